"""Reading input files and writing JSON files, with one-line errors that name the file and the failing
field.

Every task-file format (our suites, τ²-bench task files) goes through these helpers so that a bad input
always reads `<file>: <field path>: <reason>`; every input file (task files, configurations, personas,
results, data files) is opened with `open_input`, which refuses what is not a regular file.
"""

from __future__ import annotations

import gc
import json
import os
import re
import stat
import sys
import tomllib
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, BinaryIO, TextIO

from pydantic import JsonValue, ValidationError
from pydantic_core import ErrorDetails

from tau2.errors import UserInputError

_SCALAR_TYPE_TAGS = frozenset({"str", "int", "float", "bool", "dict", "list", "none"})


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A JSON escape of a UTF-16 surrogate (U+D800 to U+DFFF): the only way one can get into parsed text, since
the file itself is strict UTF-8."""

MAX_JSON_BYTES = 1 << 30
"""The largest JSON file we read (1 GiB): a device or a runaway file must not exhaust memory."""
_CHUNK_BYTES = 1 << 20


def read_json(path: Path) -> Any:
    """Parse a JSON file; an unreadable file or bad JSON becomes a one-line `UserInputError` (the machine
    refusing to let it be read, as permissions do, stays an `OSError`)."""
    try:
        text = read_text_bounded(path)
    except UnicodeDecodeError as error:
        raise UserInputError(f"{path}: cannot read: not UTF-8 text ({error.reason})") from None
    try:
        with collector_paused():
            data = parse_json(text)
    except json.JSONDecodeError as error:
        raise UserInputError(
            f"{path}: invalid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
        ) from None
    except RecursionError:
        raise UserInputError(f"{path}: JSON nested too deeply to read") from None
    bad = first_unpaired_surrogate(data) if _SURROGATE_ESCAPE.search(text) else None
    if bad is not None:
        where = field_path(bad)
        raise UserInputError(
            f"{path}: {where or 'text'}: contains an unpaired UTF-16 surrogate (not valid text)"
        )
    return data


def parse_json(text: str | bytes) -> Any:
    """`json.loads`, except that an integer too long for Python to convert (more than
    `sys.get_int_max_str_digits()` digits, which `json` reports as a bare `ValueError`) is a
    `json.JSONDecodeError` like any other mistake in the text, located at the first such run of digits."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError as error:
        limit = sys.get_int_max_str_digits()
        if "integer string conversion" not in str(error) or not limit:
            raise
        document = text if isinstance(text, str) else text.decode("utf-8", "replace")
        found = re.search(rf"\d{{{limit + 1},}}", document)
        raise json.JSONDecodeError(
            f"an integer of more than {limit:,} digits", document, found.start() if found else 0
        ) from None


def parse_toml(text: str) -> dict[str, Any]:
    """`tomllib.loads`, except that an integer too long for Python to convert is a
    `tomllib.TOMLDecodeError` like any other mistake, located as tomllib locates them."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        raise
    except ValueError as error:
        limit = sys.get_int_max_str_digits()
        if "integer string conversion" not in str(error) or not limit:
            raise
        found = re.search(rf"\d{{{limit + 1},}}", text)
        at = found.start() if found else 0
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        raise tomllib.TOMLDecodeError(
            f"an integer of more than {limit:,} digits (at line {line}, column {column})"
        ) from None


def read_toml_file(path: Path, limit: int) -> dict[str, Any]:
    """The table a TOML file of at most `limit` bytes holds, read with `read_bytes_bounded`; text that is
    not UTF-8, bad TOML (an integer too long included) and nesting too deep are one `UserInputError`
    line naming the file."""
    data = read_bytes_bounded(path, limit, "TOML")
    try:
        return parse_toml(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise UserInputError(f"{path}: cannot read: not UTF-8 text ({error.reason})") from None
    except tomllib.TOMLDecodeError as error:
        raise UserInputError(f"{path}: invalid TOML: {error}") from None
    except RecursionError:
        raise UserInputError(f"{path}: TOML nested too deeply to read") from None


_NOT_REGULAR = {
    stat.S_IFDIR: "is a directory, not a file",
    stat.S_IFIFO: "is a named pipe (FIFO), not a regular file",
    stat.S_IFCHR: "is a device, not a regular file",
    stat.S_IFBLK: "is a device, not a regular file",
    stat.S_IFSOCK: "is a socket, not a regular file",
}
_OPEN_FLAGS = (
    os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
)
"""Read only; never block in opening (a FIFO without a writer would wait forever; regular files ignore the
flag); never become the controlling terminal."""


def open_input(path: Path, buffering: int = -1) -> BinaryIO:
    """Open an input file (task file, suite, configuration, persona, results file, data file, ...) to read
    its bytes. What is not a regular file is refused with one `UserInputError` line before a byte is read:
    a FIFO would wait forever for a writer, a device such as /dev/zero never ends, a directory is no file;
    so is a missing file. The machine refusing (permission denied, an I/O error) stays an `OSError` naming
    the file, which the command line reports as the machine refusing (exit 3)."""
    try:
        descriptor = os.open(path, _OPEN_FLAGS)
    except FileNotFoundError:
        raise UserInputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise UserInputError(f"{path}: is a directory, not a file") from None
    except NotADirectoryError:
        raise UserInputError(f"{path}: a part of the path is a file, not a directory") from None
    try:
        kind = stat.S_IFMT(os.fstat(descriptor).st_mode)
        if kind != stat.S_IFREG:
            raise UserInputError(f"{path}: {_NOT_REGULAR.get(kind, 'is not a regular file')}")
        handle: BinaryIO = os.fdopen(descriptor, "rb", buffering=buffering)
    except BaseException:
        os.close(descriptor)
        raise
    return handle


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while large documents are parsed, validated, converted or
    reduced: the many acyclic objects this allocates would otherwise trigger collections that rescan all
    built so far (two thirds of the time of reading a task file of 2,000 tasks, or a run of 10,000
    records). Refcounting still frees everything acyclic."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def read_text_bounded(path: Path, limit: int = MAX_JSON_BYTES, text: str = "JSON") -> str:
    """The UTF-8 text of a file, read with `read_bytes_bounded`."""
    return read_bytes_bounded(path, limit, text).decode("utf-8")


def read_bytes_bounded(path: Path, limit: int = MAX_JSON_BYTES, text: str = "JSON") -> bytes:
    """The bytes of a `text` file (JSON, TOML, ...) opened with `open_input`, read in chunks: binary data
    (a NUL byte, which such text never holds) and files over `limit` bytes are refused as soon as they
    show, so a file that grows while it is read cannot fill memory."""
    chunks: list[bytes] = []
    size = 0
    with open_input(path, buffering=0) as handle:
        while chunk := handle.read(_CHUNK_BYTES):
            if b"\x00" in chunk:
                at = size + chunk.index(0)
                raise UserInputError(f"{path}: binary data, not {text} text (a NUL byte at byte {at})")
            size += len(chunk)
            if size > limit:
                raise UserInputError(f"{path}: larger than {_size(limit)}; not read")
            chunks.append(chunk)
    return b"".join(chunks)


def _size(limit: int) -> str:
    """A byte limit in words: `1 MiB`, `1 GiB`."""
    gib = 1 << 30
    return f"{limit // gib} GiB" if limit >= gib and not limit % gib else f"{limit >> 20} MiB"


_ESCAPE = re.compile(
    rb"\\(?:(?P<high>u[dD][89abAB][0-9a-fA-F]{2})(?P<low>\\u[dD][c-fC-F][0-9a-fA-F]{2})?"
    rb"|(?P<lone>u[dD][c-fC-F][0-9a-fA-F]{2})|.)",
    re.DOTALL,
)
"""A backslash escape of JSON text, matched from left to right so that `\\\\` pairs are consumed whole: a
high-surrogate escape with its low half (`low`) or without, a lone low half (`lone`), or any other."""
_LONGEST_ESCAPE = 12


def first_surrogate_escape(handle: IO[bytes]) -> int | None:
    """The byte offset of the first escape of an unpaired UTF-16 surrogate (`\\ud800` without its low
    half, or a low half alone) in the JSON text `handle` reads, scanned in chunks; None when there is none.
    For streaming parsers, which would otherwise replace it silently or fail with a misleading message."""
    carried = b""
    offset = 0  # of `carried` in the file
    while True:
        chunk = handle.read(_CHUNK_BYTES)
        data = carried + chunk
        last = not chunk
        resume = len(data)
        for match in _ESCAPE.finditer(data):
            if not last and match.end() > len(data) - _LONGEST_ESCAPE:
                resume = match.start()  # may be cut by the chunk's end: scan it again with the next one
                break
            if match["lone"] is not None or (match["high"] is not None and match["low"] is None):
                return offset + match.start()
        else:  # every escape is complete; a backslash ending the chunk starts one in the next
            resume = len(data) - 1 if data.endswith(b"\\") and not last else len(data)
        if last:
            return None
        carried, offset = data[resume:], offset + resume


def has_surrogate(text: str) -> bool:
    """Whether `text` holds a lone UTF-16 surrogate, which JSON escapes allow but UTF-8 cannot encode."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def first_unpaired_surrogate(data: Any, at: tuple[int | str, ...] = ()) -> tuple[int | str, ...] | None:
    """The location of the first string (key or value) in parsed JSON holding a lone surrogate."""
    if isinstance(data, str):
        return at if has_surrogate(data) else None
    if isinstance(data, list):
        for index, item in enumerate(data):
            found = first_unpaired_surrogate(item, (*at, index))
            if found is not None:
                return found
    elif isinstance(data, dict):
        for key, value in data.items():
            if has_surrogate(key):
                return (*at, key.encode("utf-8", "backslashreplace").decode("ascii"))
            found = first_unpaired_surrogate(value, (*at, key))
            if found is not None:
                return found
    return None


def canonical_json(data: Any) -> str:
    """The byte-stable text we write: keys in the given order, indent 2, UTF-8 kept, final newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


_RAW_LINE_BREAKS = {
    ord(separator): f"\\u{ord(separator):04x}" for separator in "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
}
"""Every line boundary `str.splitlines` honours but `\\n`, as a JSON escape."""


def json_line(json_text: str) -> str:
    """One JSON value on one line for readers that split on every Unicode line boundary, as
    `str.splitlines` does: JSON keeps U+0085, U+2028 and U+2029 raw inside strings, so they become escapes
    (which decode to the same text). `json_text` is JSON written without indentation; no final newline."""
    return json_text.translate(_RAW_LINE_BREAKS)


def map_strings(value: JsonValue, change: Callable[[str], str]) -> JsonValue:
    """Parsed JSON `value` with `change` applied to every string in it, object keys included."""
    if isinstance(value, str):
        return change(value)
    if isinstance(value, list):
        return [map_strings(item, change) for item in value]
    if isinstance(value, dict):
        return {change(key): map_strings(item, change) for key, item in value.items()}
    return value


def write_json(path: Path, data: Any) -> None:
    """Write `data` as canonical JSON with Unix newlines."""
    path.write_text(canonical_json(data), encoding="utf-8", newline="\n")


def field_path(loc: Sequence[int | str]) -> str:
    """Render a pydantic location as a JSON path: `(3, 'actions', 0, 'name')` → `[3].actions[0].name`.

    Union-member tags that pydantic inserts (class names, scalar type names) are not fields and are left out.
    """
    parts: list[str] = []
    for part in loc:
        if isinstance(part, int):
            parts.append(f"[{part}]")
        elif not _is_union_tag(part):
            parts.append(f".{part}" if parts else part)
    return "".join(parts)


def validation_error(
    path: Path,
    error: ValidationError,
    prefix: Sequence[int | str] = (),
    locate: Callable[[tuple[int | str, ...]], tuple[int | str, ...]] | None = None,
) -> UserInputError:
    """One line for a failed validation: the file, the path of the first bad field, and why. `locate` maps
    a validated location to where the field is written in the file, when the two differ."""
    detail = _first_error(error.errors(include_url=False))
    loc = detail["loc"] if locate is None else locate(detail["loc"])
    location = _shortened(field_path([*prefix, *loc]))
    message = detail["msg"].removeprefix("Value error, ")
    where = f"{path}: {location}" if location else str(path)
    return UserInputError(f"{where}: {message}")


_MAX_LOCATION = 100


def _shortened(location: str) -> str:
    """A field path cut in the middle when absurdly long (deeply nested input), so errors stay readable."""
    if len(location) <= _MAX_LOCATION:
        return location
    return f"{location[:60]}…{location[-30:]}"


def _first_error(errors: list[ErrorDetails]) -> ErrorDetails:
    """The first error in document order; inside a union, the member that got furthest."""
    first = errors[0]
    loc = first["loc"]
    tag_at = next((index for index, part in enumerate(loc) if _is_union_tag(part)), None)
    if tag_at is None:
        return first
    prefix = loc[:tag_at]
    siblings = [e for e in errors if e["loc"][:tag_at] == prefix and len(e["loc"]) > tag_at]
    return max(siblings, key=lambda e: len(e["loc"]))


def _is_union_tag(part: int | str) -> bool:
    """Whether a location part names a union member rather than a field (fields are snake_case)."""
    return isinstance(part, str) and (part in _SCALAR_TYPE_TAGS or part[:1].isupper() or "[" in part)


def write_json_parts(path: Path, fields: Iterable[tuple[str, Any]]) -> None:
    """Write an object as `write_json` writes it, field by field: a field whose value is an iterator is a
    list written item by item as the iterator yields them, so a document far larger than memory can be
    written with the same bytes as the whole document through `write_json`."""
    with path.open("w", encoding="utf-8", newline="\n") as file:
        file.write("{")
        for number, (key, value) in enumerate(fields):
            file.write(("," if number else "") + f"\n  {json.dumps(key, ensure_ascii=False)}: ")
            if isinstance(value, Iterator):
                _write_items(file, value)
            else:
                file.write(_nested(value, "  "))
        file.write("\n}\n")


def write_json_items(path: Path, items: Iterable[Any]) -> None:
    """Write a list as `write_json` writes it, item by item as `items` yields them (the same bytes as the
    whole list through `write_json`, without holding it)."""
    with path.open("w", encoding="utf-8", newline="\n") as file:
        empty = True
        for item in items:
            file.write(("[\n  " if empty else ",\n  ") + _nested(item, "  "))
            empty = False
        file.write("[]\n" if empty else "\n]\n")


def _write_items(file: TextIO, items: Iterator[Any]) -> None:
    """A list at the second level of a document, one item at a time (`[]` when empty)."""
    empty = True
    for item in items:
        file.write(("[\n    " if empty else ",\n    ") + _nested(item, "    "))
        empty = False
    file.write("[]" if empty else "\n  ]")


def _nested(value: Any, indent: str) -> str:
    """`value` as canonical JSON placed at `indent` (JSON strings escape newlines: every one is layout)."""
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)
