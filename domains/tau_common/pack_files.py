"""A single-control pack's own data, laid out as τ²-bench's (`db.json`, `policy.md`, `tasks.json`): how
its database and policy are read, once for every such pack."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel

from .files import read_db, read_policy

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class PackFiles(Generic[M]):
    """The data directory a pack ships (`directory`) and the database model its `db.json` holds."""

    directory: Path
    model: type[M]

    @property
    def default_suite(self) -> Path:
        """The pack's own task file."""
        return self.directory / "tasks.json"

    def load_state(self, data_dir: Path | None) -> M:
        """The database of a data directory, or of the pack's own data when None."""
        return read_db(self.directory if data_dir is None else Path(data_dir), self.model)

    def policy(self, solo: bool, variant: str) -> str:
        """The pack's policy; the customer only talks, so there is no separate solo text or variant."""
        return _policy(self.directory)


@cache
def _policy(directory: Path) -> str:
    return read_policy(directory)
