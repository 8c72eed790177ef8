"""The distribution's name and every install line: tau2 installs as `tau2-dualcontrol` (`tau2` on the package
index is another project), every hint, error, page and doc names an extra that exists in a form that works
(the editable install in a checkout, the distribution otherwise), and CI installs and tests exactly as the
README says."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import tau2
from tau2._distribution import DISTRIBUTION, install_hint, installed_version
from tau2.runner import package_versions

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
SOURCES = [
    ROOT / "README.md",
    *(ROOT / "docs").rglob("*.md"),
    *(
        path
        for folder in ("tau2", "domains", "generator", "personas")
        for path in (ROOT / folder).rglob("*.py")
        if path != ROOT / "tau2" / "_distribution.py"  # the lines' templates, which `install_hint` fills in
    ),
]
"""What a user reads: the docs, and the code whose messages and pages they see."""
INSTALL_LINE = re.compile(r"pip install (?:-e )?'(?P<target>[^'\[]+)\[(?P<extras>[^\]]+)\]'")
OURS = (".", DISTRIBUTION)
"""The install targets that are this project (other lines install other projects, e.g. τ²-bench)."""
HINTED = re.compile(r"install_hint\('(?P<extra>[\w-]+)'\)")


def readme_block(containing: str) -> list[str]:
    """The lines of the README's first code block with a line starting with `containing`."""
    blocks = re.findall(r"^```\n(.*?)^```", (ROOT / "README.md").read_text(encoding="utf-8"), re.M | re.S)
    return next(
        lines
        for lines in (block.splitlines() for block in blocks)
        if any(x.startswith(containing) for x in lines)
    )


def test_the_distribution_has_its_own_name_and_keeps_the_command_and_import_name() -> None:
    assert PROJECT["name"] == DISTRIBUTION == "tau2-dualcontrol"
    assert PROJECT["scripts"] == {"tau2": "tau2.cli:console"}
    assert PROJECT["dynamic"] == ["version"], "the version is stated once, as tau2.__version__"
    assert installed_version() == tau2.__version__, "the checkout is installed under the distribution's name"
    assert package_versions()["tau2"] == tau2.__version__, "manifests record tau2's version as before"


def test_a_hint_in_a_checkout_installs_the_checkout_with_the_extra() -> None:
    assert install_hint("plots") == "pip install -e '.[plots]' (in the tau2 checkout)"


def test_nothing_a_user_reads_names_the_other_projects_distribution() -> None:
    found = [
        f"{path.relative_to(ROOT)}: {match[0]}"
        for path in SOURCES
        for match in INSTALL_LINE.finditer(path.read_text(encoding="utf-8"))
        if match["target"] == "tau2"
    ]
    assert found == []


def test_every_extra_an_install_line_or_hint_names_exists() -> None:
    extras = set(PROJECT["optional-dependencies"])
    named = {
        (path.relative_to(ROOT), extra.strip())
        for path in SOURCES
        for text in [path.read_text(encoding="utf-8")]
        for extra_list in [m["extras"] for m in INSTALL_LINE.finditer(text) if m["target"] in OURS]
        + [m["extra"] for m in HINTED.finditer(text)]
        for extra in extra_list.split(",")
    }
    assert {extra for _, extra in named} >= {"plots", "ray", "knowledge"}, "the hints are found"
    assert sorted((str(path), extra) for path, extra in named if extra not in extras) == []


def test_the_quickstart_makes_an_environment_and_installs_no_extra() -> None:
    (command,) = readme_block("python3 -m venv")
    steps = command.split(" && ")
    assert steps[:3] == ["python3 -m venv .venv", ". .venv/bin/activate", "pip install -e ."]
    assert steps[3].startswith("tau2 run ")


def test_ci_installs_and_runs_the_readmes_test_command() -> None:
    readme = readme_block("pytest")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    installs = [line.removeprefix("pip install ") for line in readme if line.startswith("pip install ")]
    assert installs and [f"python -m pip install --quiet {line}" for line in installs] == [
        line for line in ci if line.startswith("python -m pip install --quiet -e")
    ]
    assert [line for line in readme if not line.startswith("pip install ")] == ["pytest"]
    assert "pytest || status=$?" in ci
