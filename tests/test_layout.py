"""The package layout's rules: one namespace that user folders cannot shadow, and imports that only
flow down the layers (world → tasks → llm → episode → config, actors → runs → runner → metrics and audit →
report → api, interfaces → cli)."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

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
    "_display": 0,
    "_urls": 0,
    "_registry": 0,
    "world": 1,
    "tasks": 2,
    "personas": 2,
    "llm": 3,
    "episode": 4,
    "config": 5,
    "actors": 5,
    "testing": 5,
    "runs": 6,
    "runner": 7,
    "metrics": 8,
    "audit": 8,
    "report": 9,
    "generator": 9,
    "domains": 9,
    "interfaces": 10,
    "api": 10,
    "experiments": 10,
    "cli": 11,
}
"""Rank of each top-level part of `tau2`: a module may import parts of its own rank or lower."""

ENGINE = {name for name in LAYERS if name not in {"domains", "generator", "cli"}}
"""Parts that must never import a concrete domain or the generator."""


def part_of(module: str) -> str | None:
    """The top-level part of `tau2` a dotted module name belongs to (None for `tau2` itself)."""
    parts = module.split(".")
    return parts[1] if parts[0] == "tau2" and len(parts) > 1 else None


def modules() -> list[tuple[str, Path]]:
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
    return found


def runtime_imports(path: Path, module: str) -> list[str]:
    """Modules imported at run time (imports under `if TYPE_CHECKING:` only annotate, so they are skipped)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(child) for statement in node.body for child in ast.walk(statement))
    found = []
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            found.append(base)
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
        for imported in runtime_imports(path, name):
            other = part_of(imported)
            if other is None or other == own:
                continue
            if LAYERS[other] > LAYERS[own]:
                problems.append(f"{name} imports {imported} (layer {other} is above {own})")
    assert problems == []


def test_parts_use_each_others_public_api() -> None:
    problems = []
    for name, path in modules():
        own = part_of(name)
        for imported in runtime_imports(path, name):
            other = part_of(imported)
            private = any(piece.startswith("_") for piece in imported.split(".")[2:])
            if other is not None and other != own and private:
                problems.append(f"{name} imports the private module {imported}")
    assert problems == []


def test_the_engine_never_imports_a_domain_or_the_generator() -> None:
    problems = [
        f"{name} imports {imported}"
        for name, path in modules()
        if part_of(name) in ENGINE
        for imported in runtime_imports(path, name)
        if part_of(imported) in {"domains", "generator"}
    ]
    assert problems == []


SHARED_HELPERS = "tau_common"
"""Helpers the τ-bench packs share; a module of plain functions, not a pack (it registers no domain)."""


def test_domain_packs_import_no_other_pack() -> None:
    problems = []
    for name, path in modules():
        if part_of(name) != "domains" or name.count(".") < 2:
            continue
        pack = name.split(".")[2]
        for imported in runtime_imports(path, name):
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
