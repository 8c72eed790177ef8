"""The docs name only what exists and teach only public imports: every `tau2.…` name resolves (a module, or
an attribute of one), every repository path and relative link points at a file or folder that is there,
and every name a code example imports from `tau2` exists and is public (no `_` module or name). Each
problem is reported as `file:line: what`."""

from __future__ import annotations

import ast
import importlib
import re
import textwrap
from pathlib import Path

import pytest

from tau2.world import PLUGIN_GROUP

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
ENTRY_POINT_GROUPS = {PLUGIN_GROUP, "tau2.domains", "tau2.actors", "tau2.catalog_extensions"}
"""Names that look like modules but are entry-point groups (the one group, and the deprecated ones)."""

DOTTED = re.compile(r"(?<![\w./-])tau2(?:\.[A-Za-z_]\w*)+")
FOLDERS = ("tau2", "domains", "generator", "personas", "tests", "benchmarks", "docs", ".ci")
PATH = re.compile(rf"(?<![\w./-])(?:{'|'.join(re.escape(folder) for folder in FOLDERS)})/[\w./-]*")
GYM_ID = re.compile(r"^tau2/[\w-]+-v\d+$")
"""Gymnasium environment ids (`tau2/telecom-agent-v0`) look like paths but are not."""
LINK = re.compile(r"\]\((?!https?:|mailto:|#)([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")
IMPORT = re.compile(r"^\s*(?:from\s+(?P<source>[\w.]+)\s+import\b|import\s+(?P<modules>[\w., ]+))")


def resolves(name: str) -> bool:
    """Whether a dotted `tau2…` name is a module or an attribute (at any depth) of one. A module whose
    import needs an optional extra that is missing counts as resolving its attributes."""
    parts = name.split(".")
    for split in range(len(parts), 0, -1):
        module_name = ".".join(parts[:split])
        if not is_module(module_name):
            continue
        try:
            target: object = importlib.import_module(module_name)
        except ImportError as error:
            return not (error.name or "").startswith("tau2")
        for attribute in parts[split:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


def is_module(name: str) -> bool:
    """Whether a dotted name is an importable module."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # a parent is a plain module, not a package
        return False


def through_private_module(name: str) -> bool:
    """Whether a name reaches a public attribute through a private module (`tau2.runs._rundir.load_run`):
    what a reader would import from there. Naming a private module itself only says where code lives."""
    parts = name.split(".")
    private = any(part.startswith("_") for part in parts[1:-1])
    return private and not parts[-1].startswith("_") and not is_module(name)


def private_imports(line: str) -> list[str]:
    """The private `tau2` modules an import statement in a code example names."""
    match = IMPORT.match(line)
    if match is None:
        return []
    if match["source"] is not None:
        modules = [match["source"]]
    else:
        modules = [part.split(" as ")[0].strip() for part in match["modules"].split(",")]
    return [
        module
        for module in modules
        if module.split(".")[0] == "tau2" and any(part.startswith("_") for part in module.split(".")[1:])
    ]


def import_problems(where: str, first: int, block: str) -> list[str]:
    """The private modules and names, and the names that do not exist, that the imports of one code example
    (its text `block`, starting on line `first`) take from `tau2`. A block that is not Python as a whole
    (a shell session, a fragment) has its import lines checked one by one for private modules."""
    try:
        tree = ast.parse(textwrap.dedent(block))
    except SyntaxError:
        return [
            f"{where}:{first + offset}: imports the private module `{module}`; use the package's public API"
            for offset, line in enumerate(block.splitlines())
            for module in private_imports(line)
        ]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules, names = [alias.name for alias in node.names], []
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            modules = [node.module]
            names = [f"{node.module}.{alias.name}" for alias in node.names if alias.name != "*"]
        else:
            continue
        line = first + node.lineno - 1
        for module in modules:
            if is_private(module):
                found.append(
                    f"{where}:{line}: imports the private module `{module}`; use the package's public API"
                )
        for name in names:
            if name.split(".")[0] != "tau2" or is_private(name.rsplit(".", 1)[0]):
                continue
            if name.rsplit(".", 1)[1].startswith("_"):
                kind = "module" if is_module(name) else "name"
                found.append(
                    f"{where}:{line}: imports the private {kind} `{name}`; use the package's public API"
                )
            elif resolves(name.rsplit(".", 1)[0]) and not resolves(name):
                found.append(f"{where}:{line}: `{name}` is neither a module nor an attribute of one")
    return found


def is_private(module: str) -> bool:
    """Whether a dotted `tau2` module name passes through a private (`_`) part."""
    parts = module.split(".")
    return parts[0] == "tau2" and any(part.startswith("_") for part in parts[1:])


def code_blocks(text: str) -> list[tuple[int, str]]:
    """The fenced code blocks of a page: the number of each block's first line, and its text."""
    blocks: list[tuple[int, str]] = []
    start: int | None = None
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if FENCE.match(line):
            if start is None:
                start = number + 1
            else:
                blocks.append((start, "\n".join(lines[start - 1 : number - 1])))
                start = None
    return blocks


def problems(where: str, text: str, folder: Path) -> list[str]:
    """Every stale name, missing path, broken link and private or missing import of one page's text (`where`
    names the page, `folder` holds it), one line each."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            continue
        for name in DOTTED.findall(line):
            if name not in ENTRY_POINT_GROUPS and not resolves(name):
                found.append(f"{where}:{number}: `{name}` is neither a module nor an attribute of one")
            elif through_private_module(name):
                found.append(
                    f"{where}:{number}: `{name}` is reached through a private module; use the public name"
                )
        for path in PATH.findall(line):
            path = path.rstrip(".")
            if not GYM_ID.match(path) and not (ROOT / path).exists():
                found.append(f"{where}:{number}: `{path}` does not exist in the repository")
        for target in LINK.findall(line):
            file = target.split("#", 1)[0]
            if file and not (folder / file).exists():
                found.append(f"{where}:{number}: link to `{target}`: no such file")
    for first, block in code_blocks(text):
        found.extend(import_problems(where, first, block))
    return sorted(found, key=lambda problem: int(problem.split(":")[1]))


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(ROOT)) for page in PAGES])
def test_the_page_names_only_what_exists_and_imports_only_public_modules(page: Path) -> None:
    found = problems(str(page.relative_to(ROOT)), page.read_text(encoding="utf-8"), page.parent)
    assert not found, "\n" + "\n".join(found)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A `World` (`tau2/world.py`) is", [(1, "`tau2/world.py` does not exist in the repository")]),
        ("see `tau2/world/_world.py`, `domains/mock/`.", []),
        ("ids `tau2/telecom-agent-v0`", []),
        ("`tau2.world.World.create` and `tau2.check_actor`", []),
        ("`tau2.domains` and `tau2.catalog_extensions` groups", []),
        ("`tau2.assertions.run`", [(1, "`tau2.assertions.run` is neither a module nor an attribute of one")]),
        ("`tau2.world.Nothing`", [(1, "`tau2.world.Nothing` is neither a module nor an attribute of one")]),
        (
            "`tau2.runs._rundir.load_run`, in `tau2.actors._llm`",
            [(1, "`tau2.runs._rundir.load_run` is reached through a private module; use the public name")],
        ),
        ("[the world](world.md#the-tool-table), [x](https://e.org/a.md)", []),
        ("[gone](nowhere.md)", [(1, "link to `nowhere.md`: no such file")]),
        (
            "```python\nfrom tau2.actors._requests import format_request\n```",
            [(2, "imports the private module `tau2.actors._requests`; use the package's public API")],
        ),
        (
            "```python\nimport tau2._registry as r, json\nfrom tau2.actors import make_actor\n```",
            [(2, "imports the private module `tau2._registry`; use the package's public API")],
        ),
        ("from tau2.actors._requests import x (prose, not code)", []),
        (
            "```python\nfrom tau2 import interfaces\n```",
            [(2, "`tau2.interfaces` is neither a module nor an attribute of one")],
        ),
        (
            "```python\nfrom tau2.rl import (\n    message_action,\n    gone_action,\n)\n```",
            [(2, "`tau2.rl.gone_action` is neither a module nor an attribute of one")],
        ),
        (
            "```python\nfrom tau2.tau2bench import _task_files\nfrom tau2 import _SOURCES\n```",
            [
                (2, "imports the private module `tau2.tau2bench._task_files`; use the package's public API"),
                (3, "imports the private name `tau2._SOURCES`; use the package's public API"),
            ],
        ),
        (
            "```python\nfrom tau2.actors._requests import x\nunfinished = (\n```",
            [(2, "imports the private module `tau2.actors._requests`; use the package's public API")],
        ),
        ("```console\n$ python -c 'from tau2.rl import gone_action'\n```", []),
    ],
)
def test_the_checker_finds_what_it_should(text: str, expected: list[str]) -> None:
    found = problems("docs/probe.md", text, ROOT / "docs")
    assert found == [f"docs/probe.md:{line}: {problem}" for line, problem in expected]
