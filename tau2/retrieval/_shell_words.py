"""A shell command line split into words, in time linear in its length: the words (and runs of `|&;<>`)
that Python's `shlex.shlex(command, posix=True, punctuation_chars="|&;<>")` with `whitespace_split`
gives, which builds each word a character at a time and so costs time quadratic in a long word."""

from __future__ import annotations

WHITESPACE = " \t\r\n"
PUNCTUATION = "|&;<>"
QUOTES = "'\""
ESCAPE = "\\"
COMMENT = "#"


def split_words(command: str) -> list[str]:
    """The words of `command`; raises `ValueError` ("No closing quotation", "No escaped character") where
    `shlex` does. A `#` where a word could start or continue ends the line, as in `shlex`."""
    words: list[str] = []
    word: list[str] = []
    quoted = False
    state = " "
    escaped_from = " "
    index, end = 0, len(command)

    def emit() -> None:
        nonlocal quoted
        words.append("".join(word))
        word.clear()
        quoted = False

    while True:
        char = command[index] if index < end else ""
        index += 1
        if state == " ":
            if not char:
                break
            if char in WHITESPACE:
                if word or quoted:
                    emit()
            elif char == COMMENT:
                index = _line_end(command, index)
            elif char == ESCAPE:
                escaped_from, state = "a", ESCAPE
            elif char in PUNCTUATION:
                word.append(char)
                state = "c"
            elif char in QUOTES:
                state = char
            else:
                word.append(char)
                state = "a"
        elif state in QUOTES:
            quoted = True
            if not char:
                raise ValueError("No closing quotation")
            if char == state:
                state = "a"
            elif char == ESCAPE and state == '"':
                escaped_from, state = state, ESCAPE
            else:
                word.append(char)
        elif state == ESCAPE:
            if not char:
                raise ValueError("No escaped character")
            if escaped_from in QUOTES and char not in (ESCAPE, escaped_from):
                word.append(ESCAPE)
            word.append(char)
            state = escaped_from
        else:  # in a word ("a") or a run of punctuation ("c")
            if not char:
                break
            if char in WHITESPACE:
                state = " "
                if word or quoted:
                    emit()
            elif char == COMMENT:
                index = _line_end(command, index)
                state = " "
                if word or quoted:
                    emit()
            elif state == "c":
                if char in PUNCTUATION:
                    word.append(char)
                else:
                    index -= 1  # read again as the start of the next word
                    state = " "
                    emit()
            elif char in QUOTES:
                state = char
            elif char == ESCAPE:
                escaped_from, state = "a", ESCAPE
            elif char not in PUNCTUATION:
                word.append(char)
            else:
                index -= 1
                state = " "
                if word or quoted:
                    emit()
    if word or quoted:
        emit()
    return words


def _line_end(command: str, index: int) -> int:
    """The index after the end of the line `index` is on (a comment runs to it)."""
    newline = command.find("\n", index)
    return len(command) if newline < 0 else newline + 1
