"""The registry of retrieval engines, by name: the engines tau2 ships, those registered in code, those
installed as entry points `retrieval_engine.NAME` of the `tau2.plugins` group, and `module:attribute` or
`path/to/file.py:attribute` references (the project's one plugin mechanism, `tau2._registry`)."""

from __future__ import annotations

from tau2._registry import Registry
from tau2.errors import UserInputError
from tau2.retrieval._engine import Engine
from tau2.retrieval._engines import BUILT_IN


def _accept(name: str, loaded: object) -> Engine:
    """An `Engine` as is: one found by a reference or an entry point keeps its own name, and is found
    only under what named it (so it can never stand in for a shipped engine)."""
    if not isinstance(loaded, Engine):
        raise UserInputError(f"retrieval engine {name!r} names a {type(loaded).__name__}, not a tau2 Engine")
    return loaded


def _unknown(name: str, names: list[str]) -> UserInputError:
    return UserInputError(
        f"unknown retrieval engine {name!r} (available: {', '.join(names)}; an engine that is not "
        "installed is named as module:attribute or path/to/file.py:attribute)"
    )


_ENGINES: Registry[Engine] = Registry("retrieval engine", "retrieval_engine", _accept, _unknown)
for _shipped in BUILT_IN:
    _ENGINES.register(_shipped.name, _shipped)


def register_engine(engine: Engine) -> Engine:
    """Make `engine` available by its name (a later registration of the same name replaces it); returns
    it, so it can be written `ENGINE = register_engine(Engine(...))`."""
    return _ENGINES.register(engine.name, engine)


def get_engine(name: str) -> Engine:
    """The engine called `name`: shipped, registered, installed, or named by a reference (imported on
    first use); an unknown name is one `UserInputError` line listing the engines there are."""
    return _ENGINES.get(name)


def available_engines() -> list[str]:
    """The names of every shipped, registered or installed engine, sorted."""
    return _ENGINES.names()
