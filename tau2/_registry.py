"""The one way tau2 finds a plugin by name, shared by every kind of plugin: domains, actor kinds, catalog
extensions, lint checks, simulated-user checks, experiment statistics.

A name is looked up, in order, among the entries registered in code (directly, or as a builder a decorator
registered, built on first use), the entries declared for this process (`declare_plugin`: `tau2 --plugin
KIND.NAME=REFERENCE`), the entries other packages install under the one entry-point group `tau2.plugins`
(entry point `KIND.NAME`, e.g. `domain.library`; the older per-kind groups are still read, deprecated), and,
when it is a reference, the attribute it names: `module:attribute` of an importable module, or
`path/to/file.py:attribute` of a Python file (relative to the current folder, or absolute), which needs
nothing on the Python path. Installed and referenced entries are imported only when first asked for; an
import that fails or names the wrong kind of object is one `UserInputError` line naming the entry.

Data never runs code: a reference (of either form) read from a file (a task file's domain, a run's
manifest) is checked with `refuse_data_reference` before it reaches a registry, and passes only when the
user named it (on the command line, in their own configuration: `allow_reference`) or code of this process
already resolved it; registered and installed names always pass.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import sys
import warnings
from collections.abc import Callable
from functools import cached_property, lru_cache, partial, reduce
from importlib.metadata import EntryPoint, EntryPoints, entry_points
from pathlib import Path
from types import ModuleType
from typing import Generic, TypeVar

from pydantic import BaseModel

from tau2.errors import UserInputError

T = TypeVar("T")
Named = TypeVar("Named", bound=BaseModel)

_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
_REFERENCE = re.compile(rf"^(?P<module>{_DOTTED}):(?P<attribute>{_DOTTED})$")
_FILE_REFERENCE = re.compile(rf"^(?P<file>.+\.py):(?P<attribute>{_DOTTED})$")
"""A reference whose left side ends in `.py` names a file (so no module called `py` can be referenced)."""


def is_reference(name: str) -> bool:
    """Whether `name` is a reference: `module:attribute` (e.g. `my_pack.domain:DOMAIN`) or
    `path/to/file.py:attribute` (e.g. `my_actors.py:KIND`)."""
    return _FILE_REFERENCE.match(name) is not None or _REFERENCE.match(name) is not None


PLUGIN_GROUP = "tau2.plugins"
"""The entry-point group every kind of plugin is installed under, each entry point named `KIND.NAME`."""

_KIND = re.compile(r"^[a-z][a-z_]*$")
_DECLARATION = re.compile(r"^(?P<kind>[a-z][a-z_]*)\.(?P<name>[^=\s]+)=(?P<reference>.+)$")

_DECLARED: dict[str, dict[str, str]] = {}
"""The plugins declared for this process (`declare_plugin`), by kind and name: the reference each names."""


def declare_plugin(declaration: str) -> None:
    """Declare a plugin for this process as an installed entry point would: `KIND.NAME=REFERENCE`
    (`lint_check.polite=my_checks.py:POLITE`), so it is found by that name, and every plugin of its kind
    that runs on its own (a check, a statistic) runs. A declaration that is malformed is one
    `UserInputError` line; the reference is imported only when first used."""
    match = _DECLARATION.match(declaration)
    if match is None or not is_reference(match["reference"]):
        raise UserInputError(
            f"--plugin {declaration}: not KIND.NAME=REFERENCE (lint_check.polite=my_checks.py:POLITE)"
        )
    _DECLARED.setdefault(match["kind"], {})[match["name"]] = match["reference"]
    allow_reference(match["reference"])


_TRUSTED: set[str] = set()
"""The `module:attribute` references the user named or this process resolved: files may name them too."""


def allow_reference(name: str) -> None:
    """Let data name the `module:attribute` reference `name` (it was named by the user: an option, their
    own configuration file, `tau2 --plugin`); anything else is ignored (only references need it)."""
    if is_reference(name):
        _TRUSTED.add(name)


def refuse_data_reference(name: str, what: str, where: str) -> None:
    """A one-line `UserInputError` when `name`, read from data at `where` (`suite.json: tasks[0].domain`),
    is a `module:attribute` reference the user has not named: reading a file must never import the code
    it names. Registered and installed names (which are never references) pass."""
    if is_reference(name) and name not in _TRUSTED:
        article = "an" if what[:1] in "aeiou" else "a"
        raise UserInputError(
            f"{where}: {name!r} names {article} {what} by module:attribute, and tau2 never imports code a "
            f"file names; install the package that provides it, or name it yourself: tau2 --plugin {name} …"
        )


def resolve_reference(name: str) -> object:
    """The attribute (which may be dotted) a reference names: of the module it imports, or of the Python
    file it runs (once per process)."""
    in_file = _FILE_REFERENCE.match(name)
    if in_file is not None:
        path = Path(in_file["file"])
        module = _file_module(path)
        try:
            return reduce(getattr, in_file["attribute"].split("."), module)
        except AttributeError:
            raise AttributeError(f"{path} has no attribute {in_file['attribute']!r}") from None
    match = _REFERENCE.match(name)
    if match is None:
        raise ValueError(f"{name!r} is not a module:attribute or file.py:attribute reference")
    try:
        module = importlib.import_module(match["module"])
    except ModuleNotFoundError as error:
        here = Path(*match["module"].split(".")).with_suffix(".py")
        if error.name != match["module"] or not here.is_file():
            raise
        raise ModuleNotFoundError(
            f"No module named {error.name!r} on the Python path; the file {here} is named as "
            f"{here}:{match['attribute']}",
            name=error.name,
        ) from None
    return reduce(getattr, match["attribute"].split("."), module)


def _file_module(path: Path) -> ModuleType:
    """The module a Python file defines, run on first use and kept under a name made from its resolved
    path (so two spellings of one file give one module, and classes in it can find their module)."""
    resolved = path.expanduser().resolve()
    if not resolved.is_file():
        raise FileNotFoundError(f"no file {path}")
    name = f"_tau2_file_{resolved.stem}_{hashlib.sha256(str(resolved).encode()).hexdigest()[:12]}"
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} cannot be loaded as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


@lru_cache(maxsize=16)
def _entry_points(group: str, path: tuple[str, ...]) -> EntryPoints:
    """The entry points installed under `group`, read once per import path: every kind's registry picks its
    own from `tau2.plugins`, so a process using several kinds scans the installed distributions once."""
    return entry_points(group=group)


Accept = Callable[[str, object], T]
"""Checks what a name loaded to (and may convert it); raises `UserInputError` naming the entry when wrong."""

Unknown = Callable[[str, list[str]], UserInputError]
"""The error for a name nothing answers to, given the name and the names there are."""


class Registry(Generic[T]):
    """Named entries of one kind: registered in code, declared for this process, installed as entry points
    `KIND.NAME` of `tau2.plugins` (or of the kind's older group), or referenced."""

    def __init__(
        self, what: str, kind: str, accept: Accept[T], unknown: Unknown, *, legacy_group: str | None = None
    ) -> None:
        if _KIND.match(kind) is None:
            raise ValueError(f"plugin kind {kind!r}: lower-case letters and underscores (lint_check)")
        self.what = what
        """What an entry is, for messages ("domain", "actor kind")."""
        self.kind = kind
        """The kind's name in entry-point names (`domain` in `domain.library`) and in declarations."""
        self.legacy_group = legacy_group
        """The kind's own entry-point group from before `tau2.plugins` (`tau2.domains`), still read for one
        release with a `DeprecationWarning`; None for kinds that never had one."""
        self._accept = accept
        self._unknown = unknown
        self._entries: dict[str, T] = {}
        self._builders: dict[str, Callable[[], object]] = {}
        self._references: dict[str, T] = {}

    def register(self, name: str, entry: T) -> T:
        """Make `entry` available as `name` (a later registration of the same name replaces it)."""
        self._builders.pop(name, None)
        self._entries[name] = entry
        return entry

    def register_builder(self, name: str, build: Callable[[], object]) -> None:
        """Make `name` available, built by `build` when first asked for (what a decorator registers)."""
        self._entries.pop(name, None)
        self._builders[name] = build

    @cached_property
    def installed(self) -> dict[str, EntryPoint]:
        """The entry points installed packages declare for this kind, by name (read once per process):
        `KIND.NAME` under `tau2.plugins`, then those of the legacy group that name no other."""
        prefix = f"{self.kind}."
        found = {
            point.name.removeprefix(prefix): point
            for point in _entry_points(PLUGIN_GROUP, tuple(sys.path))
            if point.name.startswith(prefix) and len(point.name) > len(prefix)
        }
        if self.legacy_group is not None:
            for point in _entry_points(self.legacy_group, tuple(sys.path)):
                if point.name not in found:
                    warnings.warn(
                        f"{self.what} {point.name!r} is installed under the entry-point group "
                        f"{self.legacy_group!r}, read until the next release: declare it under "
                        f"{PLUGIN_GROUP!r} as {prefix}{point.name}",
                        DeprecationWarning,
                        stacklevel=2,
                    )
                    found[point.name] = point
        return found

    def _declared(self) -> dict[str, str]:
        """The plugins of this kind declared for this process, by name."""
        return _DECLARED.get(self.kind, {})

    def names(self) -> list[str]:
        """Every registered, declared or installed name, sorted (references are not listed: they name
        themselves)."""
        return sorted(set(self._entries) | set(self._builders) | set(self._declared()) | set(self.installed))

    def knows(self, name: str) -> bool:
        """Whether `name` is registered, declared or installed, or is a reference (which may still fail to
        load)."""
        return name in self.names() or is_reference(name)

    def all(self) -> list[T]:
        """Every registered, declared and installed entry, by sorted name, each loaded (what runs every entry
        of its kind, as the checks do: one that fails to load is one `UserInputError` line)."""
        return [self.get(name) for name in self.names()]

    def get(self, name: str) -> T:
        """The entry called `name`, importing it on first use."""
        if name in self._entries:
            return self._entries[name]
        if name in self._references:
            return self._references[name]
        build = self._builders.get(name)
        if build is not None:
            return self.register(name, self._accept(name, self._load(name, "", build)))
        declared = self._declared().get(name)
        if declared is not None:  # kept apart from the registered: a declaration lasts while it is declared
            key = f"{name}={declared}"
            if key not in self._references:
                load = partial(resolve_reference, declared)
                self._references[key] = self._accept(name, self._load(name, f" ({declared})", load))
            return self._references[key]
        point = self.installed.get(name)
        if point is not None:
            return self.register(name, self._accept(name, self._load(name, f" ({point.value})", point.load)))
        if is_reference(name):
            entry = self._accept(name, self._load(name, "", lambda: resolve_reference(name)))
            self._references[name] = entry
            _TRUSTED.add(name)
            return entry
        raise self._unknown(name, self.names())

    def _load(self, name: str, origin: str, load: Callable[[], object]) -> object:
        """Run `load`, turning any failure (an import error, an exception in the plugin) into one line."""
        try:
            return load()
        except Exception as error:  # a broken plugin must not take a command down with a traceback
            raise UserInputError(
                f"{self.what} {name!r}{origin} could not be loaded: {type(error).__name__}: {error}"
            ) from None


def named_registry(entry_type: type[Named], what: str, kind: str, listed_as: str) -> Registry[Named]:
    """The registry of a kind of plugin whose entries are `entry_type` models with a `name` (`what`: "lint
    check"; `kind`: its plugin kind, `lint_check`; `listed_as`: how an unknown name's error lists the others,
    "checks"): an entry of another type is refused on one line, and one registered under another name takes
    the name it is registered by."""

    def accept(name: str, loaded: object) -> Named:
        if not isinstance(loaded, entry_type):
            raise UserInputError(
                f"{what} {name!r} names a {type(loaded).__name__}, not a tau2 {entry_type.__name__}"
            )
        return loaded if getattr(loaded, "name", None) == name else loaded.model_copy(update={"name": name})

    def unknown(name: str, names: list[str]) -> UserInputError:
        return UserInputError(f"unknown {what} {name!r} ({listed_as}: {', '.join(names)})")

    return Registry(what, kind, accept, unknown)
