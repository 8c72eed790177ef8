"""What a domain pack declares about its identifiers, so that a renaming engine can give every record of its
data a new identifier consistently (in the data, in tasks and in texts) without knowing the domain.

Where identifiers sit is told by path patterns: dotted names matched against the end of the path of a value
in the domain's data (or of a tool argument), each part a key or `*` for any key or list position. So
`customer_id` finds every value under a key `customer_id` at any depth, and `payment_methods.*.id` the `id`
of every entry of a `payment_methods` map or list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class IdentifierKind:
    """One kind of identifier of a domain's data (customer, line, order, …) and how a new one is written."""

    name: str
    format: str
    """The form of a new identifier: literal text with placeholders `{digits:N}`, `{upper:N}`, `{lower:N}`,
    `{alnum:N}` (upper-case letters and digits) and `{hex:N}` (lower-case), each standing for N random
    characters of that class, e.g. `C{digits:4}` or `#W{digits:7}`."""
    fields: tuple[str, ...] = ()
    """Path patterns of the values (a string, or a list of strings) that are identifiers of this kind."""
    keys: tuple[str, ...] = ()
    """Path patterns of the maps whose keys are identifiers of this kind (e.g. `users`, `accounts.data`)."""


@dataclass(frozen=True)
class Identifiers:
    """A domain's identifier declaration: its kinds (an identifier belongs to the first kind that names
    it), where its data and task files lie in a data directory, and its own data and rebrand delta."""

    kinds: tuple[IdentifierKind, ...]
    data_files: tuple[str, ...]
    """Glob patterns, relative to a data directory, of the files that make up the domain's data (databases,
    policy texts, documents): what a rebranded data directory holds besides its task files."""
    task_files: tuple[str, ...] = ("tasks*.json", "tasks")
    """Glob patterns, relative to a data directory, of its task files or task folders."""
    records: tuple[str, ...] = ()
    """Top-level fields of the domain's state that hold the identified records (empty: the whole state);
    a task whose reference actions change them writes (telecom: the CRM, not the phone)."""
    data_dir: Path | None = None
    """The pack's own data directory, laid out as the domain reads one."""
    delta: Path | None = None
    """The pack's shipped rebrand delta (a TOML file)."""
    protected: tuple[str, ...] = field(default=())
    """Words that are never renamed even when an identifier or a name occurs inside them, besides the
    domain's tool names (e.g. names of hidden tools that only documents mention)."""
