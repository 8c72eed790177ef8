"""The package layout's rules: one namespace that user folders cannot shadow, and imports that only
flow down the layers (world → tasks and domains, retrieval engines → τ²-bench task files → llm → episode →
config, actors, findings → runs → runner → metrics and audit → report, stepping → api, experiments, RL, play,
annotation, τ²-bench results → cli)."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
import tomllib
from functools import cache
from pathlib import Path

import networkx
import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIRS: dict[str, str] = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "setuptools"
]["package-dir"]
"""Import name → folder, as pyproject maps the top-level folders into the one `tau2` namespace."""
MAPPED = {name.removeprefix("tau2.") for name in PACKAGE_DIRS if name != "tau2"}

LAYERS: dict[str, int] = {
    "errors": 0,
    "_jsonfile": 0,
    "files": 0,
    "_display": 0,
    "_urls": 0,
    "_credentials": 0,
    "_registry": 0,
    "_distribution": 0,
    "world": 1,
    "tasks": 2,
    "personas": 2,
    "tau2bench": 2,
    "retrieval": 2,
    "llm": 3,
    "rebrand": 3,
    "perturbations": 3,
    "episode": 4,
    "config": 5,
    "actors": 5,
    "testing": 5,
    "rebrand.check": 5,
    "findings": 5,
    "runs": 6,
    "runner": 7,
    "metrics": 8,
    "audit": 8,
    "report": 9,
    "regrade": 9,
    "generator": 9,
    "domains": 9,
    "stepping": 9,
    "api": 10,
    "experiments": 10,
    "rl": 10,
    "play": 10,
    "annotation": 10,
    "tau2bench_results": 10,
    "cli": 11,
}
"""Rank of each part of `tau2` (a top-level package, or a subpackage listed by its dotted name, which then
is a part of its own): a module may import parts of lower rank, and parts of its own rank only as
`WITHIN_LAYER` allows."""

WITHIN_LAYER: dict[str, set[str]] = {
    "_jsonfile": {"errors"},
    "files": {"_jsonfile"},
    "_registry": {"errors"},
    "_urls": {"_credentials"},
    "tau2bench": {"tasks"},
    "retrieval": {"tasks"},
    "testing": {"config", "actors"},
    "audit": {"metrics"},
    "perturbations": {"rebrand", "llm"},
    "experiments": {"api"},
}
"""The parts of its own rank each part may import (the order inside a layer); no other import inside a
layer is allowed, so two parts of one layer never import each other."""

ENGINE = {name for name in LAYERS if name not in {"domains", "generator", "cli"}}
"""Parts that must never import a concrete domain or the generator."""


def part_of(module: str) -> str | None:
    """The part of `tau2` a dotted module name belongs to (None for `tau2` itself): its top-level package,
    or the longest listed subpackage holding it."""
    parts = module.split(".")
    if parts[0] != "tau2" or len(parts) < 2:
        return None
    for end in range(len(parts), 2, -1):
        nested = ".".join(parts[1:end])
        if nested in LAYERS:
            return nested
    return parts[1]


@cache
def modules() -> tuple[tuple[str, Path], ...]:
    """Every module of the package, named as it is imported (the mapped top-level folders included)."""
    found = []
    for package, folder in PACKAGE_DIRS.items():
        root = ROOT / folder
        nested = package != "tau2"  # tau2's own walk must not re-enter a mapped folder
        for path in sorted(root.rglob("*.py")):
            relative = path.relative_to(root).with_suffix("")
            if not nested and relative.parts[0] in MAPPED:
                continue
            name = ".".join([package, *relative.parts]).removesuffix(".__init__")
            found.append((name, path))
    return tuple(found)


def imports_of(path: Path, module: str) -> list[str]:
    """The modules of tau2 a module imports, those it imports under `if TYPE_CHECKING:` included (an import
    for annotations is a dependency all the same, and the layers hold for it too); a submodule taken from
    its package (`from tau2.report import fmt`) counts as that submodule."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    known = {name for name, _ in modules()}
    found = []
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            submodules = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in known]
            found.extend(submodules if len(submodules) == len(node.names) else [base, *submodules])
    return [name for name in found if name == "tau2" or name.startswith("tau2.")]


def test_every_part_has_a_layer() -> None:
    parts = {part_of(name) for name, _ in modules()} - {None, "__main__"}
    assert parts <= set(LAYERS), f"parts without a layer: {sorted(parts - set(LAYERS))}"


def test_imports_only_flow_down_the_layers() -> None:
    problems = []
    for name, path in modules():
        own = part_of(name)
        if own is None or own == "__main__":
            continue
        for imported in imports_of(path, name):
            other = part_of(imported)
            if other is None or other == own:
                continue
            if LAYERS[other] > LAYERS[own]:
                problems.append(f"{name} imports {imported} (layer {other} is above {own})")
            elif LAYERS[other] == LAYERS[own] and other not in WITHIN_LAYER.get(own, set()):
                problems.append(f"{name} imports {imported} ({other} is not below {own} in their layer)")
    assert problems == []


def test_no_modules_import_each_other() -> None:
    """Inside a package too, modules form no circle of imports (deferred and annotation-only imports
    included): each definition has one place below the modules that use it."""
    known = {name for name, _ in modules()}
    graph = networkx.DiGraph()
    for name, path in modules():
        graph.add_edges_from((name, imported) for imported in imports_of(path, name) if imported in known)
    graph.remove_edges_from(networkx.selfloop_edges(graph))
    assert [sorted(cycle) for cycle in networkx.simple_cycles(graph)] == []


def test_the_order_inside_a_layer_is_between_parts_of_one_layer() -> None:
    listed = {(own, other) for own, others in WITHIN_LAYER.items() for other in others}
    assert [pair for pair in listed if LAYERS[pair[0]] != LAYERS[pair[1]]] == []
    assert [pair for pair in listed if (pair[1], pair[0]) in listed] == []


def test_parts_use_each_others_public_api() -> None:
    problems = []
    for name, path in modules():
        own = part_of(name)
        for imported in imports_of(path, name):
            other = part_of(imported)
            private = any(piece.startswith("_") for piece in imported.split(".")[2:])
            if other is not None and other != own and private:
                problems.append(f"{name} imports the private module {imported}")
    assert problems == []


def test_domain_packs_and_the_generator_use_only_public_modules() -> None:
    """What the engine keeps private (`tau2._jsonfile` among it) is no API for the packs and the generator,
    which build on tau2 as any outside package would: its public modules (`tau2.files` for data files)."""
    problems = [
        f"{name} imports the private module {imported}"
        for name, path in modules()
        if part_of(name) in {"domains", "generator"}
        for imported in imports_of(path, name)
        if part_of(imported) != part_of(name) and any(piece[0] == "_" for piece in imported.split(".")[1:])
    ]
    assert problems == []


def test_the_engine_never_imports_a_domain_or_the_generator() -> None:
    problems = [
        f"{name} imports {imported}"
        for name, path in modules()
        if part_of(name) in ENGINE
        for imported in imports_of(path, name)
        if part_of(imported) in {"domains", "generator"}
    ]
    assert problems == []


def test_the_engine_imports_packages_not_tau2_itself() -> None:
    """`tau2` re-exports names from layers up to `tau2.api`, so an engine module importing from it would
    import up the layers; the engine names the package each name comes from."""
    problems = [
        f"{name} imports tau2 itself"
        for name, path in modules()
        if part_of(name) in ENGINE
        for imported in imports_of(path, name)
        if imported == "tau2"
    ]
    assert problems == []


def public_functions() -> dict[str, dict[str, list[str]]]:
    """Each function name in a package's `__all__` → the function it names (module and qualified name) →
    the packages exporting that function. A package needing an extra that is not installed is passed over."""
    found: dict[str, dict[str, list[str]]] = {}
    for name, path in modules():
        if path.name != "__init__.py":
            continue
        try:
            package = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if (error.name or "").startswith("tau2"):
                raise
            continue
        for public in getattr(package, "__all__", []):
            value = getattr(package, public)
            if inspect.isfunction(value):
                function = f"{value.__module__}.{value.__qualname__}"
                found.setdefault(public, {}).setdefault(function, []).append(name)
    return found


def test_no_two_public_functions_share_a_name_across_packages() -> None:
    """A name in packages' `__all__` means one function wherever it is exported (re-exports of that one
    function are fine). Domain packs are the exception among themselves: each fills the same hooks of
    `Domain` (`load_state`, …), and a pack is always reached by its name."""
    clashes = []
    for public, functions in sorted(public_functions().items()):
        owners = {package for packages in functions.values() for package in packages}
        if len(functions) > 1 and not all(part_of(package) == "domains" for package in owners):
            clashes.append(f"{public}: {', '.join(sorted(functions))}")
    assert clashes == []


SHARED_HELPERS = "tau_common"
"""Helpers the τ-bench packs share; a module of plain functions, not a pack (it registers no domain)."""


def test_domain_packs_import_no_other_pack() -> None:
    problems = []
    for name, path in modules():
        if part_of(name) != "domains" or name.count(".") < 2:
            continue
        pack = name.split(".")[2]
        for imported in imports_of(path, name):
            pieces = imported.split(".")
            if part_of(imported) == "domains" and len(pieces) > 2 and pieces[2] not in {pack, SHARED_HELPERS}:
                problems.append(f"{name} imports {imported}")
    assert problems == []


@pytest.mark.parametrize("folder", ["domains", "generator", "personas"])
def test_a_users_own_folder_cannot_shadow_the_shipped_packages(tmp_path: Path, folder: str) -> None:
    for name in ("domains", "generator", "personas"):
        package = tmp_path / name
        (package / "telecom").mkdir(parents=True)
        (package / "__init__.py").write_text("raise ImportError('the user folder was imported')\n")
        (package / "telecom" / "__init__.py").write_text("raise ImportError('shadowed')\n")
    code = (
        "from tau2 import get_domain; import tau2.generator, tau2.personas; "
        "assert get_domain('telecom').name == 'telecom'; "
        f"import importlib; module = importlib.import_module('tau2.{folder}'); "
        "print(module.__name__)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"tau2.{folder}"


def _public_home(module: str, name: str) -> str | None:
    """The nearest package above the private module `module` (no `_` part up to it) exporting `name`."""
    parts = module.split(".")
    for end in range(len(parts) - 1, 0, -1):
        if any(part.startswith("_") for part in parts[:end]):
            continue
        package = importlib.import_module(".".join(parts[:end]))
        if name in getattr(package, "__all__", ()):
            return package.__name__
    return None


def test_tests_import_public_names_where_there_is_one() -> None:
    """A test reaches into a private module only for a name its package does not export: what a package
    exports is imported from the package, as users import it, so a test breaks when the public API does."""
    problems = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom) or node.level or not node.module:
                continue
            private = any(part.startswith("_") for part in node.module.split("."))
            if not node.module.startswith("tau2.") or not private:
                continue
            for alias in node.names:
                home = _public_home(node.module, alias.name)
                if home is not None:
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    problems.append(f"{where}: {alias.name} from {node.module}, not {home}")
    assert problems == []
