"""PersonaError and the translation of TOML and pydantic failures into one-line messages."""

from __future__ import annotations

import re
import tomllib

from pydantic import ValidationError
from pydantic_core import ErrorDetails

_FIXED_REASONS = {
    "missing": "missing required field",
    "extra_forbidden": "unknown field",
    "string_type": "must be a string",
    "model_type": "must be a table",
    "dict_type": "must be a table",
}
_TOML_POSITION = re.compile(r"^(?P<reason>.*?)\s*\(at (?P<where>line \d+, column \d+|end of document)\)$")


class PersonaError(ValueError):
    """A persona could not be found or loaded; its message is one line naming the file and the field."""

    def __init__(self, source: str, detail: str, field: str | None = None) -> None:
        self.field = field
        where = f"{source}: {field}" if field else source
        super().__init__(" ".join(f"{where}: {detail}".split()))


def toml_syntax_error(source: str, error: tomllib.TOMLDecodeError) -> PersonaError:
    """Report a TOML syntax error with its line and column, which tomllib only gives inside its text."""
    text = str(error)
    match = _TOML_POSITION.match(text)
    if match is None:
        return PersonaError(source, f"invalid TOML: {text}")
    return PersonaError(source, f"{match['where']}: invalid TOML: {match['reason']}")


def validation_error(source: str, error: ValidationError) -> PersonaError:
    """Report every failed field of a persona file, the first one as the error's field."""
    problems = [(_location(detail), _reason(detail)) for detail in error.errors(include_url=False)]
    first_field, first_reason = problems[0]
    rest = "".join(f"; {field}: {reason}" for field, reason in problems[1:])
    return PersonaError(source, first_reason + rest, field=first_field)


def _location(detail: ErrorDetails) -> str:
    """Dotted path of the failing field as written in the TOML file (e.g. attributes.verbosity)."""
    return ".".join(str(part) for part in detail["loc"])


def _reason(detail: ErrorDetails) -> str:
    """Plain-words reason for one pydantic error, naming the allowed values of an enum."""
    kind = detail["type"]
    context = detail.get("ctx", {})
    if kind in _FIXED_REASONS:
        return _FIXED_REASONS[kind]
    if kind == "enum":
        choices = ", ".join(re.findall(r"'([^']*)'", str(context.get("expected", ""))))
        return f"must be one of {choices} (got {_shorten(repr(detail['input']))})"
    if kind == "value_error":
        return str(context["error"])
    return detail["msg"]


def _shorten(text: str, limit: int = 40) -> str:
    """Cut a quoted input value so that a message stays short."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
