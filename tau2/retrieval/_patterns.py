"""Regular expressions a model writes, matched in time linear in the text, so that no pattern can stall a run:
Python's syntax and meaning (τ²-bench's `grep` runs Python's `re`) without Python's backtracking.

A pattern that offers no choice to go back on (no repeat, no alternative) runs on Python's `re` itself,
which then spends time bounded by the pattern's length at each position: its meaning is Python's exactly.
Any other pattern runs on RE2, which never backtracks. It is read by Python's own parser, so what is
valid, literal or repeated is what `re` decides; the translation writes every character class as the
code points Python's class holds (`\\w`: what `str.isalnum` accepts, and `_`; `\\d`: decimal digits;
`\\s`: what `str.isspace` accepts), closes it under Python's case folding when case is ignored, and
writes `$` as Python's (the end, or before a final newline). What RE2 cannot do is refused with
`UnsupportedPattern`: backreferences, lookaround, conditionals, atomic groups and possessive repeats
beside a repeat or an alternative, and repeat counts above 1,000. Three meanings differ slightly from
Python's there, in patterns no search needs: `\\b` and `\\B` count only ASCII letters, digits and `_` as
word characters; a `$` before a final newline takes that newline into its match (so a pattern that goes
on matching after `$` misses it); and after an empty match, a match at the same place is not looked for
again (Python then tries a longer one there, which only a lazy or an empty-first alternative finds).
"""

from __future__ import annotations

import bisect
import importlib
import re
from collections.abc import Callable, Iterable, Iterator
from functools import cache, lru_cache
from typing import Any

import re2  # type: ignore[import-untyped]

_parser: Any = importlib.import_module("re._parser")  # Python's own reading of a pattern
_constants: Any = importlib.import_module("re._constants")
_sre: Any = importlib.import_module("_sre")  # the lower-casing `re` compares by when ignoring case
_EXTRA_CASES: dict[int, tuple[int, ...]] = importlib.import_module("re._casefix")._EXTRA_CASES
"""Lower cases `re` also takes as equal when ignoring case (`s` and `ſ`, `i` and `ı`, Greek variants)."""

REPEAT_LIMIT = 1000
"""RE2's largest repeat count."""
MEMORY = 64 << 20
"""Bytes RE2 may spend on one compiled pattern (large classes in large repeats need more than its default)."""
_LAST = 0x10FFFF
_SURROGATES = range(0xD800, 0xE000)
_UNSUPPORTED = {
    "GROUPREF": "backreferences",
    "GROUPREF_EXISTS": "conditional groups",
    "ASSERT": "lookahead or lookbehind",
    "ASSERT_NOT": "lookahead or lookbehind",
    "ATOMIC_GROUP": "atomic groups",
    "POSSESSIVE_REPEAT": "possessive repeats",
}
_UNANCHORED = re2._re2.RE2.Anchor.UNANCHORED

Ranges = list[tuple[int, int]]


class UnsupportedPattern(ValueError):
    """A valid Python pattern that has no linear-time equivalent (the message says what it uses)."""


class LinearPattern:
    """A pattern ready to match; each method answers as the same method of Python's compiled pattern would.
    It runs on RE2, or on Python's `re` itself when the pattern has no choice to go back on (no repeat, no
    alternative), where `re` takes time bounded by the pattern's length at each position."""

    def __init__(self, program: Any, python: re.Pattern[str] | None = None) -> None:
        self._program = program
        self._python = python

    def _spans(self, text: str) -> Iterator[tuple[bytes, int, int]]:
        """(UTF-8 text, start, end) of each RE2 match, in order, as `re.finditer` steps through the text."""
        data = text.encode("utf-8", "surrogatepass")
        end = len(data)
        position, no_empty_at = 0, -1
        while position <= end:
            start, stop = self._program.Match(_UNANCHORED, data, position, end)[0]
            if start < 0:
                return
            if start == stop == no_empty_at:  # the same empty match again: look one character on
                position = _next_character(data, start)
                no_empty_at = -1
                continue
            yield data, start, stop
            position = stop
            no_empty_at = stop if start == stop else -1

    def count(self, text: str) -> int:
        """`len(re.findall(pattern, text))`."""
        if self._python is not None:
            return sum(1 for _ in self._python.finditer(text))
        count = 0
        for _ in self._spans(text):
            count += 1
        return count

    def search(self, text: str) -> bool:
        """Whether the pattern matches anywhere in `text`."""
        if self._python is not None:
            return self._python.search(text) is not None
        data = text.encode("utf-8", "surrogatepass")
        return bool(self._program.Match(_UNANCHORED, data, 0, len(data))[0][0] >= 0)

    def matches(self, text: str) -> list[str]:
        """The text of every match (`[m.group(0) for m in re.finditer(pattern, text)]`)."""
        if self._python is not None:
            return [match.group(0) for match in self._python.finditer(text)]
        return [data[start:stop].decode("utf-8", "surrogatepass") for data, start, stop in self._spans(text)]


def compile_pattern(pattern: str, flags: int = 0) -> LinearPattern:
    """`pattern` (Python syntax, with `re` flags) ready to match in linear time. Raises `re.error` where
    Python's `re.compile` would, and `UnsupportedPattern` where RE2 cannot follow."""
    return _compiled(pattern, flags)


@lru_cache(maxsize=512)
def _compiled(pattern: str, flags: int) -> LinearPattern:
    python = re.compile(pattern, flags)  # Python's verdict on validity first (parser and compiler errors)
    parsed = _parser.parse(pattern, flags)
    if _choice_free(parsed):
        return LinearPattern(None, python)
    source = _Translation().sequence(parsed, parsed.state.flags)
    options = re2.Options()
    options.never_capture = True
    options.log_errors = False
    options.max_mem = MEMORY
    program = re2._re2.RE2(source.encode(), options)
    if not program.ok():
        raise UnsupportedPattern(
            f"too large or complex for a linear-time search ({program.error().decode()})"
        )
    return LinearPattern(program)


_CHOICES = {"BRANCH", "MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"}


def _choice_free(items: Any) -> bool:
    """Whether a parsed pattern has no repeat and no alternative anywhere (inside groups and lookaround)."""
    for op, value in items:
        name = str(op)
        if name in _CHOICES:
            return False
        if name == "SUBPATTERN" and not _choice_free(value[3]):
            return False
        if name in ("ASSERT", "ASSERT_NOT") and not _choice_free(value[1]):
            return False
        if name == "ATOMIC_GROUP" and not _choice_free(value):
            return False
        if name == "GROUPREF_EXISTS" and not all(_choice_free(branch) for branch in value[1:] if branch):
            return False
    return True


def _next_character(data: bytes, start: int) -> int:
    position = start + 1
    while position < len(data) and data[position] & 0xC0 == 0x80:
        position += 1
    return position


class _Translation:
    """Python's parsed pattern written in RE2's syntax."""

    def sequence(self, items: Any, flags: int) -> str:
        return "".join(self.item(str(op), value, flags) for op, value in items)

    def item(self, op: str, value: Any, flags: int) -> str:
        if op in _UNSUPPORTED:
            raise UnsupportedPattern(f"uses {_UNSUPPORTED[op]}, which a linear-time search cannot follow")
        if op == "LITERAL":
            return _class(_cased([(value, value)], flags)) if flags & re.IGNORECASE else _char(value)
        if op == "NOT_LITERAL":
            return _class(_complement(_cased([(value, value)], flags)))
        if op == "ANY":
            return "(?s:.)" if flags & re.DOTALL else "(?-s:.)"
        if op == "IN":
            return _class(_set(value, flags))
        if op == "BRANCH":
            return "(?:" + "|".join(self.sequence(branch, flags) for branch in value[1]) + ")"
        if op == "SUBPATTERN":
            _group, added, removed, inner = value
            return "(?:" + self.sequence(inner, (flags | added) & ~removed) + ")"
        if op in ("MAX_REPEAT", "MIN_REPEAT"):
            low, high, inner = value
            return (
                "(?:"
                + self.sequence(inner, flags)
                + ")"
                + _repeat(low, high)
                + ("?" if op == "MIN_REPEAT" else "")
            )
        if op == "AT":
            return _anchor(str(value), flags)
        raise UnsupportedPattern(f"uses {op.lower()}, which a linear-time search cannot follow")


def _repeat(low: int, high: int) -> str:
    unbounded = high == _constants.MAXREPEAT
    if low > REPEAT_LIMIT or (not unbounded and high > REPEAT_LIMIT):
        raise UnsupportedPattern(
            f"repeats more than {REPEAT_LIMIT} times, more than a linear-time search allows"
        )
    if unbounded:
        return "*" if low == 0 else "+" if low == 1 else f"{{{low},}}"
    return f"{{{low}}}" if low == high else f"{{{low},{high}}}"


def _anchor(at: str, flags: int) -> str:
    multiline = bool(flags & re.MULTILINE)
    if at == "AT_BEGINNING":
        return "(?m:^)" if multiline else r"\A"
    if at == "AT_END":
        # Python's `$`: before a newline (multi-line), or at the end or before a final newline; outside
        # multi-line mode the final newline is taken into the match, which counts the same matches.
        return "(?m:$)" if multiline else r"(?:\n?\z)"
    anchors = {
        "AT_BEGINNING_STRING": r"\A",
        "AT_END_STRING": r"\z",
        "AT_BOUNDARY": r"\b",
        "AT_NON_BOUNDARY": r"\B",
    }
    return anchors[at]


def _cased(ranges: Ranges, flags: int) -> Ranges:
    """The code points Python matches against a class when ignoring case: those whose lower case is the
    lower case of one in the class, or an extra case of one (ASCII letters only under the ASCII flag)."""
    if not flags & re.IGNORECASE:
        return ranges
    ascii_only = bool(flags & re.ASCII)
    changed = _lower_map(ascii_only)
    inside = _member(ranges)
    lowered = _merge(
        [*_without(ranges, changed), *((low, low) for code, low in changed.items() if inside(code))]
    )
    if not ascii_only:
        has = _member(lowered)
        extra = [(other, other) for low, others in _EXTRA_CASES.items() if has(low) for other in others]
        lowered = _merge([*lowered, *extra])
    has = _member(lowered)
    return _merge([*_without(lowered, changed), *((code, code) for code, low in changed.items() if has(low))])


@cache
def _lower_map(ascii_only: bool) -> dict[int, int]:
    """Code point → its lower case, for those that have another."""
    lower = _sre.ascii_tolower if ascii_only else _sre.unicode_tolower
    return {code: lower(code) for code in range(128 if ascii_only else _LAST + 1) if lower(code) != code}


def _member(ranges: Ranges) -> Callable[[int], bool]:
    starts = [low for low, _ in ranges]

    def inside(code: int) -> bool:
        index = bisect.bisect_right(starts, code) - 1
        return index >= 0 and code <= ranges[index][1]

    return inside


def _without(ranges: Ranges, codes: Iterable[int]) -> Ranges:
    """`ranges` less the given code points."""
    return _intersection(ranges, _complement(_merge((code, code) for code in codes)))


def _intersection(first: Ranges, second: Ranges) -> Ranges:
    shared: Ranges = []
    i = j = 0
    while i < len(first) and j < len(second):
        low, high = max(first[i][0], second[j][0]), min(first[i][1], second[j][1])
        if low <= high:
            shared.append((low, high))
        if first[i][1] < second[j][1]:
            i += 1
        else:
            j += 1
    return shared


def _char(code: int) -> str:
    if code in _SURROGATES:
        raise UnsupportedPattern("names a lone surrogate, which UTF-8 text cannot hold")
    return f"\\x{{{code:x}}}"


def _class(ranges: Ranges) -> str:
    parts = [
        _char(low) if low == high else f"{_char(low)}-{_char(high)}"
        for low, high in _without_surrogates(ranges)
    ]
    return f"[{''.join(parts)}]" if parts else rf"[^\x{{0}}-\x{{{_LAST:x}}}]"


def _set(items: Any, flags: int) -> Ranges:
    """The code points of a bracketed set (`[...]`), negation applied."""
    ranges: Ranges = []
    negated = False
    for op, value in items:
        name = str(op)
        if name == "NEGATE":
            negated = True
        elif name == "LITERAL":
            ranges.append((value, value))
        elif name == "RANGE":
            ranges.append((value[0], value[1]))
        elif name == "CATEGORY":
            ranges.extend(_category(str(value), flags))
        else:
            raise UnsupportedPattern(
                f"uses {name.lower()} in a set, which a linear-time search cannot follow"
            )
    closed = _cased(_merge(ranges), flags)
    return _complement(closed) if negated else closed


def _category(name: str, flags: int) -> Ranges:
    """`\\d`, `\\s`, `\\w` and their opposites as code points, Unicode or ASCII as the flags say."""
    kind = name.removeprefix("CATEGORY_").removeprefix("NOT_").lower()
    table = _ascii_table(kind) if flags & re.ASCII else _unicode_table(kind)
    return _complement(table) if "_NOT_" in name else table


_TESTS: dict[str, Callable[[str], bool]] = {
    "word": lambda char: char.isalnum() or char == "_",
    "digit": str.isdecimal,
    "space": str.isspace,
}
_ASCII = {"word": "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz", "digit": "0123456789"}


@cache
def _unicode_table(kind: str) -> Ranges:
    """Python's own class: the code points its `str` test accepts (as `re` tests `\\w`, `\\d`, `\\s`)."""
    test = _TESTS[kind]
    return _merge((code, code) for code in range(_LAST + 1) if test(chr(code)))


def _ascii_table(kind: str) -> Ranges:
    return _merge((ord(char), ord(char)) for char in _ASCII.get(kind, " \t\n\r\f\v"))


def _merge(ranges: Iterable[tuple[int, int]]) -> Ranges:
    merged: Ranges = []
    for low, high in sorted(ranges):
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return merged


def _complement(ranges: Ranges) -> Ranges:
    gaps: Ranges = []
    next_code = 0
    for low, high in _merge(ranges):
        if low > next_code:
            gaps.append((next_code, low - 1))
        next_code = high + 1
    if next_code <= _LAST:
        gaps.append((next_code, _LAST))
    return gaps


def _without_surrogates(ranges: Ranges) -> Ranges:
    kept: Ranges = []
    for low, high in ranges:
        if low < _SURROGATES.start and high >= _SURROGATES.start:
            kept.append((low, _SURROGATES.start - 1))
            low = _SURROGATES.stop
        elif low in _SURROGATES:
            low = _SURROGATES.stop
        if (high >= _SURROGATES.stop and low <= high) or high < _SURROGATES.start:
            kept.append((low, high))
    return kept
