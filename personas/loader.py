"""Find persona files, by built-in name or by path, and load them into validated personas."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from tau2.errors import UserInputError
from tau2.files import parse_toml, read_bytes_bounded
from tau2.personas.errors import PersonaError, toml_syntax_error, validation_error
from tau2.personas.model import Persona

LIBRARY_DIR = Path(__file__).parent / "library"
"""Directory of the built-in persona files shipped with the package."""
MAX_PERSONA_BYTES = 1 << 20
"""The largest persona file read (1 MiB): far beyond any real one."""


def list_personas() -> list[str]:
    """Names of the built-in personas, sorted."""
    return sorted(path.stem for path in LIBRARY_DIR.glob("*.toml"))


def load_persona(name_or_path: str | Path) -> Persona:
    """Load a built-in persona by name, or any persona file given by its path."""
    path, source = _locate(name_or_path)
    return _read(path, source)


def load_personas(names: Iterable[str | Path]) -> list[Persona]:
    """Load several personas in order, refusing two with the same label (their results would merge)."""
    personas: list[Persona] = []
    label_sources: dict[str, str] = {}
    for item in names:
        path, source = _locate(item)
        persona = _read(path, source)
        if persona.label in label_sources:
            detail = f"{persona.label!r} is already used by {label_sources[persona.label]}"
            raise PersonaError(source, detail, field="label")
        label_sources[persona.label] = source
        personas.append(persona)
    return personas


def _locate(name_or_path: str | Path) -> tuple[Path, str]:
    """The file to read and how to name it in messages; a bare name must be a built-in persona."""
    if isinstance(name_or_path, Path) or _looks_like_path(name_or_path):
        return Path(name_or_path), str(name_or_path)
    available = list_personas()
    if name_or_path not in available:
        detail = f"unknown persona; available: {', '.join(available)} (or give a .toml path)"
        raise PersonaError(repr(name_or_path), detail)
    return LIBRARY_DIR / f"{name_or_path}.toml", f"personas/library/{name_or_path}.toml"


def _looks_like_path(text: str) -> bool:
    """A string names a file when it has a directory part or a .toml suffix."""
    return text.endswith(".toml") or "/" in text or "\\" in text


def _read(path: Path, source: str) -> Persona:
    """Parse and validate one persona file, turning every failure into a one-line PersonaError."""
    if path.suffix != ".toml":
        raise PersonaError(source, "not a .toml file")
    try:
        text = read_bytes_bounded(path, MAX_PERSONA_BYTES, "TOML").decode("utf-8")
    except UserInputError as exc:  # missing, not a regular file, binary or too large
        raise PersonaError(source, str(exc).removeprefix(f"{path}: ")) from None
    except UnicodeDecodeError as exc:
        raise PersonaError(source, "not valid UTF-8 text") from exc
    try:
        data = parse_toml(text)
    except tomllib.TOMLDecodeError as exc:
        raise toml_syntax_error(source, exc) from exc
    try:
        persona = Persona.model_validate(data)
    except ValidationError as exc:
        raise validation_error(source, exc) from exc
    if persona.name != path.stem:
        raise PersonaError(
            source, f"must equal the file stem {path.stem!r} (got {persona.name!r})", field="name"
        )
    return persona
