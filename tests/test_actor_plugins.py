"""Actor kinds from outside the project: a package installed with its entry point, a `module:factory`
reference to a local module, and a `file.py:factory` reference to a file of the current folder; each drives a
real `tau2 run`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

PLUGIN = '''
"""A third-party actor kind: an agent that hands every customer to a human at once."""

from tau2 import ActorSpec, Mode, Side, make_actor
from tau2.actors import ActorKind


def make(spec: ActorSpec, mode: Mode):
    return make_actor(ActorSpec(kind="transfer"), Side.AGENT, mode)


KIND = ActorKind("handoff", {Side.AGENT: make}, description="transfers at once")
'''

PYPROJECT = """
[build-system]
requires = ["setuptools>=68"]
build-backend = "setuptools.build_meta"

[project]
name = "tau2-handoff-actor"
version = "0.1.0"

[project.entry-points."tau2.plugins"]
"actor.handoff" = "handoff_actor:KIND"

[tool.setuptools]
py-modules = ["handoff_actor"]
"""


def run_with(tmp_path: Path, agent: str, path: Path) -> dict[str, object]:
    """`tau2 run` on the mock domain with `agent`, `path` on the Python path; returns the manifest."""
    out = tmp_path / f"run-{agent.replace(':', '-')}"
    env = {**os.environ, "PYTHONPATH": str(path)}
    command = [sys.executable, "-m", "tau2", "run", "--domain", "mock", "--agent", agent]
    result = subprocess.run(
        [*command, "--user", "scripted", "--out", str(out), "--quiet"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert records and all(record["termination"] == "transfer" for record in records)
    manifest: dict[str, object] = json.loads((out / "manifest.json").read_text())
    return manifest


def test_an_installed_actor_package_is_found_through_its_entry_point(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "handoff_actor.py").write_text(textwrap.dedent(PLUGIN))
    (source / "pyproject.toml").write_text(PYPROJECT)
    site = tmp_path / "site"
    install = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation"]
    installed = subprocess.run(
        [*install, "--target", str(site), str(source)], capture_output=True, text=True, check=False
    )
    assert installed.returncode == 0, installed.stderr
    assert list(site.glob("tau2_handoff_actor-*.dist-info")), "installed with its metadata"
    manifest = run_with(tmp_path, "handoff", site)
    assert manifest["config"]["agent"] == {"kind": "handoff", "model": None}


def test_a_local_module_factory_reference_works_without_installing(tmp_path: Path) -> None:
    (tmp_path / "handoff_actor.py").write_text(textwrap.dedent(PLUGIN))
    manifest = run_with(tmp_path, "handoff_actor:make", tmp_path)
    assert manifest["config"]["agent"] == {"kind": "handoff_actor:make", "model": None}


def test_a_reference_that_does_not_load_is_one_line(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "tau2", "run", "--domain", "mock", "--agent", "no_such_module:make"]
    result = subprocess.run(
        [*command, "--user", "scripted", "--out", str(tmp_path / "x")], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "error: actor kind 'no_such_module:make' could not be loaded: "
        "ModuleNotFoundError: No module named 'no_such_module'"
    ]


def test_a_file_of_the_current_folder_is_named_by_its_path_with_nothing_on_the_python_path(
    tmp_path: Path,
) -> None:
    (tmp_path / "handoff_actor.py").write_text(textwrap.dedent(PLUGIN))
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    command = [sys.executable, "-m", "tau2", "run", "--domain", "mock", "--user", "scripted", "--quiet"]

    def run(agent: str, *options: str) -> subprocess.CompletedProcess[str]:
        arguments = [*command, "--agent", agent, *options, "--out", f"out-{agent}"]
        return subprocess.run(arguments, cwd=tmp_path, env=env, capture_output=True, text=True, check=False)

    ran = run("handoff_actor.py:make", "--workers", "2")  # worker processes load the file themselves
    assert ran.returncode == 0, ran.stderr
    records = [
        json.loads(line)
        for line in (tmp_path / "out-handoff_actor.py:make" / "results.jsonl").read_text().splitlines()
    ]
    assert records and all(record["termination"] == "transfer" for record in records)
    missing = run("no_such_file.py:make")
    assert missing.returncode == 2
    assert missing.stderr.strip().splitlines() == [
        "error: actor kind 'no_such_file.py:make' could not be loaded: "
        "FileNotFoundError: no file no_such_file.py"
    ]
    unnamed = run("handoff_actor.py:KIND_THAT_IS_NOT")
    assert unnamed.returncode == 2
    assert unnamed.stderr.strip().splitlines() == [
        "error: actor kind 'handoff_actor.py:KIND_THAT_IS_NOT' could not be loaded: "
        "AttributeError: handoff_actor.py has no attribute 'KIND_THAT_IS_NOT'"
    ]
