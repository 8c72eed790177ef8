"""The model cache (`--cache DIR`): each model answer stored under the hash of everything in its request that
shapes the answer, so asking again (a rerun, a resume, another arm) answers from the cache and sends nothing.

The key is SHA-256 over the model's name, the provider arguments that reach the model (secrets and headers
left out: a key given or not, and any key, hash the same), the messages, the tools and the seed. The API base
is left out too: a model's name names it wherever it is served. An entry holds the answer alone (text, tool
calls, finish reason, the original call's tokens and cost), never the request, so nothing secret can be
stored. Each entry is one file, `<2 hex>/<62 hex>.json`, written to a temporary beside it and linked into
place: a reader sees a whole answer or none, any number of processes share the directory, and when two ask
the same request at once the first answer stored is the one both use (so the cache always holds what the
records used). Only answers are stored: a request that failed is asked again next time. A file in the
directory names the format of its entries; a cache of another format is refused, never read.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any, Final

import orjson
from pydantic import ValidationError

from tau2.errors import UserInputError
from tau2.llm._secrets import REDACTED
from tau2.llm._spec import ModelSpec
from tau2.llm._transports import Completion

CACHE_FORMAT: Final = 1
"""The key and the layout of the entries; a cache written in another format is refused."""

FORMAT_FILE: Final = "tau2-model-cache.json"
"""The file naming a cache directory's format (and the tau2 version that made it)."""

HEADER_ARGS: Final = frozenset({"extra_headers"})
"""Provider arguments that travel as HTTP headers: they reach the server, never the model."""


class ModelCache:
    """A model cache directory, opened with `open` (which checks its format); cheap to copy to worker
    processes (it holds only its path)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    @classmethod
    def open(cls, directory: Path) -> ModelCache:
        """The cache in `directory`: created (with its format file) when the directory is new or empty; one
        `UserInputError` line for a directory holding something else or a cache of another format."""
        marker = directory / FORMAT_FILE
        if directory.exists() and not directory.is_dir():
            raise UserInputError(f"{directory}: not a directory (the model cache is a directory)")
        if marker.is_file():
            _check_format(marker)
        elif directory.is_dir() and any(not _is_temporary(entry) for entry in directory.iterdir()):
            raise UserInputError(
                f"{directory}: not a model cache (no {FORMAT_FILE}): give a new or empty directory"
            )
        else:
            directory.mkdir(parents=True, exist_ok=True)
            text = json.dumps({"format": CACHE_FORMAT, "tau2": _version()}, indent=2) + "\n"
            _link_or_replace(marker, text.encode())
        return cls(directory)

    def key(
        self,
        spec: ModelSpec,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        seed: int | None,
    ) -> str:
        """The hex SHA-256 of what shapes the answer to this request (see the module's description)."""
        content = {
            "model": spec.name,
            "args": _reaching_the_model(dict(spec.args)),
            "messages": messages,
            "tools": tools or [],  # no tools and an empty list send the same request
            "seed": seed,
        }
        return hashlib.sha256(orjson.dumps(content, option=orjson.OPT_SORT_KEYS)).hexdigest()

    def get(self, key: str) -> Completion | None:
        """The stored answer of `key`, or None (none stored, or an entry that cannot be read)."""
        try:
            return Completion.model_validate_json(self._path(key).read_bytes())
        except (OSError, ValidationError, ValueError):
            return None

    def put(self, key: str, completion: Completion) -> Completion:
        """Store `completion` as the answer of `key` unless one is stored already, and return the answer
        stored (the earlier one, when another request got there first). A failure to store (a full disk)
        loses only the entry: the answer is returned all the same."""
        path = self._path(key)
        try:
            path.parent.mkdir(exist_ok=True)
            if not _link_or_replace(path, completion.model_dump_json().encode(), replace=False):
                stored = self.get(key)
                if stored is not None:
                    return stored
                _link_or_replace(path, completion.model_dump_json().encode())  # a damaged entry gives way
        except OSError:
            pass
        return completion

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key[2:]}.json"


def _reaching_the_model(args: dict[str, Any]) -> dict[str, Any]:
    """Provider arguments (their redacted view) without headers and without the secrets' markers."""
    return {
        key: _without_markers(value)
        for key, value in args.items()
        if key not in HEADER_ARGS and value != REDACTED
    }


def _without_markers(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _without_markers(item) for key, item in value.items() if item != REDACTED}
    if isinstance(value, list):
        return [_without_markers(item) for item in value]
    return value


def _link_or_replace(path: Path, data: bytes, *, replace: bool = True) -> bool:
    """Write `data` to a temporary beside `path`, then link it into place (False when `path` exists and
    `replace` is off) or, with `replace`, rename it over `path`; a reader never sees a partial file."""
    descriptor, name = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
    temporary = Path(name)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        if replace:
            os.replace(temporary, path)
            return True
        try:
            os.link(temporary, path)
        except FileExistsError:
            return False
        except OSError:  # a file system without hard links: rename, the last writer winning
            os.replace(temporary, path)
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()


def _is_temporary(path: Path) -> bool:
    """Whether `path` is a temporary of `_link_or_replace` (another process creating the cache now)."""
    return path.name.startswith(".") and path.name.endswith(".tmp")


def _check_format(marker: Path) -> None:
    """Refuse, in one line, a cache whose entries another format wrote."""
    try:
        stated = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        stated = None
    found = stated.get("format") if isinstance(stated, dict) else None
    if found != CACHE_FORMAT:
        written_by = stated.get("tau2") if isinstance(stated, dict) else None
        by = f" (written by tau2 {written_by})" if isinstance(written_by, str) else ""
        raise UserInputError(
            f"{marker.parent}: a model cache of format {found}{by}; this tau2 reads format {CACHE_FORMAT}: "
            "give another --cache directory"
        )


def _version() -> str:
    try:
        return metadata.version("tau2")
    except metadata.PackageNotFoundError:
        return "unknown"
