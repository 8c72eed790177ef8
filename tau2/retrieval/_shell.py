"""The `shell` retrieval tool: a read-only shell over the knowledge base, interpreted in process.

The tree is one flat directory, as τ²-bench's sandbox lays it out: each document as `<id>.md` (`# title`,
a blank line, the content) and an `INDEX.md` listing them. A handful of commands — `ls`, `cat`, `head`,
`tail`, `grep`, `find`, `wc`, `sort`, `uniq` — and pipes between them are understood; nothing runs as a
process, nothing outside the tree can be named, and nothing can be written.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from tau2.retrieval._documents import KnowledgeBase
from tau2.retrieval._patterns import LinearPattern, UnsupportedPattern, compile_pattern
from tau2.retrieval._shell_words import split_words

_ESCAPES = ("..", "~", "$HOME", "${HOME}")
_FILE_MODE = "-rw-r--r--"
_OWNER = "kb_user  kb_group"
_DATE = "Jan  1 00:00"


def file_name(document_id: str) -> str:
    """A document's file name: characters other than letters, digits, `.`, `_` and `-` become `_`."""
    safe = document_id.replace("/", "_").replace("\\", "_").replace("..", "_")
    return "".join(char if char.isalnum() or char in "._-" else "_" for char in safe)[:252] + ".md"


def build_tree(knowledge: KnowledgeBase) -> dict[str, str]:
    """The files of the tree by name, in name order."""
    files = {
        file_name(document.id): f"# {document.title}\n\n{document.content}"
        for document in knowledge.documents
    }
    index = [
        "# Knowledge Base Index\n",
        f"**Total documents:** {len(knowledge.documents)}\n",
        "## Documents\n",
        *(f"- **{file_name(document.id)}** - {document.title}" for document in knowledge.documents),
    ]
    files["INDEX.md"] = "\n".join(index) + "\n"
    return dict(sorted(files.items()))


@dataclass
class _Result:
    """What a command printed and how it exited."""

    out: str = ""
    err: str = ""
    code: int = 0


class _Failure(Exception):
    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.message = message
        self.code = code


@dataclass
class VirtualShell:
    """The shell over one tree; `run` answers one command line as the `shell` tool shows it."""

    files: dict[str, str]
    _commands: dict[str, Callable[[list[str], str | None], _Result]] = field(init=False)

    def __post_init__(self) -> None:
        self._commands = {
            "ls": self._ls,
            "cat": self._cat,
            "head": self._head,
            "tail": self._tail,
            "grep": self._grep,
            "find": self._find,
            "wc": self._wc,
            "sort": self._sort,
            "uniq": self._uniq,
            "echo": self._echo,
            "pwd": lambda _args, _stdin: _Result(out="/knowledge_base\n"),
        }

    def run(self, command: str) -> str:
        """The tool's answer: output, `(no output)`, `No matches found.` or `Error (exit code N): …`."""
        result = self._execute(command)
        if result.code != 0:
            if result.code == 1 and "grep" in command and not result.err:
                return "No matches found."
            if result.err:
                return f"Error (exit code {result.code}): {result.err}"
            return f"Command failed with exit code {result.code}"
        return result.out if result.out else "(no output)"

    def _execute(self, command: str) -> _Result:
        blocked = _escape(command)
        if blocked is not None:
            return _Result(
                err=f"Error: Command blocked - contains '{blocked}' which could escape the sandbox", code=1
            )
        try:
            words = split_words(command)
        except ValueError as error:
            return _Result(err=f"bash: syntax error: {error}\n", code=2)
        stages: list[list[str]] = [[]]
        for word in words:
            if word == "|":
                stages.append([])
            elif word in (">", ">>", "<", "&", "&&", ";", "||", ";;", "&>"):
                return _Result(
                    err="only simple commands and pipes run here; the knowledge base is read-only\n", code=1
                )
            else:
                stages[-1].append(word)
        if any(not stage for stage in stages):
            return _Result(err="bash: syntax error near unexpected token `|'\n", code=2)
        stdin: str | None = None
        result = _Result()
        for stage in stages:
            name, arguments = stage[0], stage[1:]
            handler = self._commands.get(name)
            if handler is None:
                return _Result(err=f"bash: line 1: {name}: command not found\n", code=127)
            try:
                result = handler(arguments, stdin)
            except _Failure as failure:
                return _Result(err=f"{name}: {failure.message}\n", code=failure.code)
            stdin = result.out
        return result

    # Files

    def _resolve(self, path: str) -> list[str]:
        """The file names a path argument names (`.`, `./x`, `x`, or a glob); raises when none."""
        name = path.removeprefix("./")
        if name in ("", "."):
            return list(self.files)
        if any(char in name for char in "*?["):
            found = [file for file in self.files if fnmatch.fnmatchcase(file, name)]
            if found:
                return found
        if name in self.files:
            return [name]
        raise _Failure(f"{path}: No such file or directory")

    def _read(self, path: str) -> str:
        name = path.removeprefix("./")
        if name in ("", "."):
            raise _Failure(f"{path}: Is a directory", 1)
        if name not in self.files:
            raise _Failure(f"{path}: No such file or directory", 1)
        return self.files[name]

    def _inputs(self, paths: list[str], stdin: str | None) -> list[tuple[str, str]]:
        """(name, text) of each file argument, or of the piped input when there is none."""
        if not paths:
            return [("(standard input)", stdin or "")]
        return [(path, self._read(path)) for path in paths]

    # Commands

    def _ls(self, arguments: list[str], stdin: str | None) -> _Result:
        options, paths = _split_options(arguments)
        names: list[str] = []
        for path in paths or ["."]:
            names.extend(self._resolve(path))
        long = any("l" in option for option in options)
        if not long:
            return _Result(out="".join(f"{name}\n" for name in names))
        lines = [f"total {len(names) * 4}"]
        lines.extend(
            f"{_FILE_MODE} 1 {_OWNER}  {len(self.files[name].encode())} {_DATE} {name}" for name in names
        )
        return _Result(out="\n".join(lines) + "\n")

    def _cat(self, arguments: list[str], stdin: str | None) -> _Result:
        _, paths = _split_options(arguments)
        return _Result(out="".join(text for _, text in self._inputs(paths, stdin)))

    def _head(self, arguments: list[str], stdin: str | None) -> _Result:
        count, paths = _line_count(arguments)
        return _Result(out=self._slices(paths, stdin, lambda lines: lines[:count]))

    def _tail(self, arguments: list[str], stdin: str | None) -> _Result:
        count, paths = _line_count(arguments)
        return _Result(out=self._slices(paths, stdin, lambda lines: lines[-count:] if count else []))

    def _slices(self, paths: list[str], stdin: str | None, pick: Callable[[list[str]], list[str]]) -> str:
        inputs = self._inputs(paths, stdin)
        parts = []
        for number, (name, text) in enumerate(inputs):
            chosen = "".join(pick(text.splitlines(keepends=True)))
            if len(inputs) > 1:
                chosen = f"{chr(10) if number else ''}==> {name} <==\n{chosen}"
            parts.append(chosen)
        return "".join(parts)

    def _grep(self, arguments: list[str], stdin: str | None) -> _Result:
        flags, values, rest = _grep_options(arguments)
        if not rest and "e" not in values:
            raise _Failure("usage: grep [OPTION]... PATTERNS [FILE]...")
        pattern = values.get("e") or rest.pop(0)
        expression = _compile(pattern, flags)
        recursive = bool(flags & {"r", "R"})
        if recursive and not rest:
            rest = ["."]
        targets: list[tuple[str, str]] = []
        for path in rest:
            name = path.removeprefix("./")
            if name in ("", ".") or any(char in name for char in "*?["):
                if not recursive and name in ("", "."):
                    raise _Failure(f"{path}: Is a directory")
                prefix = "./" if path.startswith(".") else ""
                targets.extend((f"{prefix}{file}", self.files[file]) for file in self._resolve(path))
            else:
                targets.append((path, self._read(path)))
        if not rest:
            targets = [("(standard input)", stdin or "")]
        show_names = "h" not in flags and ("H" in flags or len(targets) > 1 or recursive)
        out: list[str] = []
        any_match = False
        for name, text in targets:
            lines = text.splitlines()
            hits = [
                index for index, line in enumerate(lines) if bool(expression.search(line)) != ("v" in flags)
            ]
            if hits:
                any_match = True
            if "l" in flags:
                out.extend([name] if hits else [])
                continue
            if "c" in flags:
                out.append(f"{name}:{len(hits)}" if show_names else str(len(hits)))
                continue
            out.extend(_grep_lines(name if show_names else None, lines, hits, expression, flags, values))
        code = 0 if any_match else 1
        return _Result(out="".join(f"{line}\n" for line in out), code=code)

    def _find(self, arguments: list[str], stdin: str | None) -> _Result:
        roots = [argument for argument in arguments if not argument.startswith("-")][:1] or ["."]
        tests: list[tuple[str, str]] = []
        index = 0
        while index < len(arguments):
            argument = arguments[index]
            if argument in ("-name", "-iname", "-type") and index + 1 < len(arguments):
                tests.append((argument, arguments[index + 1]))
                index += 2
                continue
            index += 1
        root = roots[0].rstrip("/") or "."
        if root not in (".", "./"):
            raise _Failure(f"'{roots[0]}': No such file or directory", 1)
        entries = [(".", "d"), *((f"./{name}", "f") for name in self.files)]
        found = [path for path, kind in entries if all(_find_test(path, kind, test) for test in tests)]
        return _Result(out="".join(f"{path}\n" for path in found))

    def _wc(self, arguments: list[str], stdin: str | None) -> _Result:
        options, paths = _split_options(arguments)
        letters = "".join(option.lstrip("-") for option in options) or "lwc"
        rows = []
        for name, text in self._inputs(paths, stdin):
            counts = {"l": text.count("\n"), "w": len(text.split()), "c": len(text.encode())}
            shown = " ".join(str(counts[letter]) for letter in "lwc" if letter in letters)
            rows.append(shown if name == "(standard input)" else f"{shown} {name}")
        return _Result(out="".join(f"{row}\n" for row in rows))

    def _sort(self, arguments: list[str], stdin: str | None) -> _Result:
        options, paths = _split_options(arguments)
        lines = [line for _, text in self._inputs(paths, stdin) for line in text.splitlines()]
        reverse = any("r" in option for option in options)
        if any("n" in option for option in options):
            lines.sort(key=_leading_number, reverse=reverse)
        else:
            lines.sort(reverse=reverse)
        if any("u" in option for option in options):
            lines = list(dict.fromkeys(lines))
        return _Result(out="".join(f"{line}\n" for line in lines))

    def _uniq(self, arguments: list[str], stdin: str | None) -> _Result:
        options, paths = _split_options(arguments)
        lines = [line for _, text in self._inputs(paths, stdin) for line in text.splitlines()]
        groups: list[list[str]] = []
        for line in lines:
            if groups and groups[-1][0] == line:
                groups[-1].append(line)
            else:
                groups.append([line])
        counted = any("c" in option for option in options)
        out = [f"{len(group):>7} {group[0]}" if counted else group[0] for group in groups]
        return _Result(out="".join(f"{line}\n" for line in out))

    def _echo(self, arguments: list[str], stdin: str | None) -> _Result:
        return _Result(out=" ".join(arguments) + "\n")


def _escape(command: str) -> str | None:
    """What in a command could name something outside the tree (quoted text aside), or None."""
    unquoted = re.sub(r'"[^"]*"', '""', re.sub(r"'[^']*'", '""', command))
    if ".." in unquoted:
        return ".."
    absolute = re.search(r"(?:^|[\s;|&])(/[a-zA-Z][^\s;|&]*)", unquoted)
    if absolute:
        return f"absolute path: {absolute.group(1)}"
    if unquoted.strip().startswith("/"):
        return "absolute path at start"
    for pattern in ("~", "$HOME", "${HOME}"):
        if pattern in unquoted:
            return pattern
    return None


def _split_options(arguments: list[str]) -> tuple[list[str], list[str]]:
    """The options (`-x`, `--x`) and the other arguments, in one pass (a long line costs linear time)."""
    options: list[str] = []
    others: list[str] = []
    for argument in arguments:
        (options if argument.startswith("-") and argument != "-" else others).append(argument)
    return options, others


def _line_count(arguments: list[str]) -> tuple[int, list[str]]:
    """`-n N`, `-nN`, `-N` or `--lines=N` (default 10), and the file arguments."""
    count, paths, index = 10, [], 0
    while index < len(arguments):
        argument = arguments[index]
        if argument == "-n" and index + 1 < len(arguments):
            count = _number(arguments[index + 1])
            index += 2
            continue
        if argument.startswith("--lines="):
            count = _number(argument.removeprefix("--lines="))
        elif argument.startswith("-n"):
            count = _number(argument[2:])
        elif argument.startswith("-") and argument[1:].isdigit():
            count = int(argument[1:])
        else:
            paths.append(argument)
        index += 1
    return count, paths


def _number(text: str) -> int:
    if not text.lstrip("+").isdigit():
        raise _Failure(f"invalid number of lines: '{text}'", 1)
    return int(text.lstrip("+"))


_GREP_VALUED = {"e", "A", "B", "C", "m"}


def _grep_options(arguments: list[str]) -> tuple[set[str], dict[str, str], list[str]]:
    """grep's single-letter flags, its valued options (`-e`, `-A`, `-B`, `-C`, `-m`) and the rest."""
    flags: set[str] = set()
    values: dict[str, str] = {}
    rest: list[str] = []
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        if argument == "--":
            rest.extend(arguments[index + 1 :])
            break
        if argument.startswith("--"):
            long = {"--recursive": "r", "--ignore-case": "i", "--line-number": "n", "--count": "c"}
            flags.add(long.get(argument.split("=")[0], ""))
            index += 1
            continue
        if argument.startswith("-") and len(argument) > 1:
            letters = argument[1:]
            position = 0
            while position < len(letters):
                letter = letters[position]
                if letter in _GREP_VALUED:
                    value = letters[position + 1 :]
                    if not value:
                        index += 1
                        value = arguments[index] if index < len(arguments) else ""
                    values[letter] = value
                    break
                if letter.isdigit():
                    values["C"] = letters[position:]
                    break
                flags.add(letter)
                position += 1
            index += 1
            continue
        rest.append(argument)
        index += 1
    return flags, values, rest


def _compile(pattern: str, flags: set[str]) -> LinearPattern:
    """grep's pattern as a Python expression: fixed (`-F`), extended (`-E`) or basic (the default, where
    `\\|`, `\\(`, `\\)`, `\\+`, `\\?`, `\\{`, `\\}` are operators and their bare forms are text)."""
    if "F" in flags:
        source = re.escape(pattern)
    elif "E" in flags or "P" in flags:
        source = pattern
    else:
        source = _basic_to_python(pattern)
    if "w" in flags:
        source = rf"\b(?:{source})\b"
    if "x" in flags:
        source = rf"^(?:{source})$"
    try:
        return compile_pattern(source, re.IGNORECASE if "i" in flags else 0)
    except re.error as error:
        raise _Failure(f"invalid regular expression: {error}") from None
    except UnsupportedPattern as error:
        raise _Failure(f"the pattern {error}") from None


def _basic_to_python(pattern: str) -> str:
    out = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            following = pattern[index + 1]
            out.append(following if following in "|()+?{}" else f"\\{following}")
            index += 2
            continue
        out.append(f"\\{char}" if char in "|()+?{}" else char)
        index += 1
    return "".join(out)


def _grep_lines(
    name: str | None,
    lines: list[str],
    hits: list[int],
    expression: LinearPattern,
    flags: set[str],
    values: dict[str, str],
) -> list[str]:
    """The printed lines of one file: matches (or only the matching parts), with context and numbers."""
    limit = int(values["m"]) if values.get("m", "").isdigit() else None
    hits = hits[:limit] if limit is not None else hits
    if "o" in flags and "v" not in flags:
        return [
            f"{_prefix(name, index, ':', flags)}{matched}"
            for index in hits
            for matched in expression.matches(lines[index])
        ]
    context = values.get("C", "0")
    after = _count(values.get("A", context))
    before = _count(values.get("B", context))
    if not (after or before):
        return [f"{_prefix(name, index, ':', flags)}{lines[index]}" for index in hits]
    shown: list[int] = []
    for index in hits:
        shown.extend(range(max(0, index - before), min(len(lines), index + after + 1)))
    ordered = sorted(set(shown))
    out: list[str] = []
    matched = set(hits)
    for position, index in enumerate(ordered):
        if position and index != ordered[position - 1] + 1:
            out.append("--")
        out.append(f"{_prefix(name, index, ':' if index in matched else '-', flags)}{lines[index]}")
    return out


def _prefix(name: str | None, index: int, separator: str, flags: set[str]) -> str:
    parts = [] if name is None else [name]
    if "n" in flags:
        parts.append(str(index + 1))
    return "".join(f"{part}{separator}" for part in parts)


def _count(text: str) -> int:
    return int(text) if text.isdigit() else 0


def _find_test(path: str, kind: str, test: tuple[str, str]) -> bool:
    option, value = test
    base = path.rsplit("/", 1)[-1]
    if option == "-name":
        return fnmatch.fnmatchcase(base, value)
    if option == "-iname":
        return fnmatch.fnmatchcase(base.lower(), value.lower())
    return kind == value


def _leading_number(line: str) -> float:
    match = re.match(r"\s*(-?\d+(?:\.\d+)?)", line)
    return float(match.group(1)) if match else 0.0
