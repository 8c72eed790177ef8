"""Reading data never runs code. A task file, a τ²-bench results file or a run's manifest that names a
plugin by `module:attribute` is refused in one line (exit 2) unless the user named that plugin (an option,
their own configuration, `tau2 --plugin`), so a module beside the file, even on the Python path, is never
imported; and a `.py` file in the folder tau2 runs from (a shared run directory) is never imported, by the
command or by its worker processes.

Every hostile module here writes a marker file when imported; no test may ever find one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.mock.tasks import MOCK_TASKS
from tau2.runs import MANIFEST_FILE, RESULTS_FILE
from tau2.tau2bench import task_to_tau2

runner = CliRunner()
OFFLINE = ["--agent", "oracle", "--user", "scripted", "--quiet"]
REPO = Path(__file__).resolve().parents[1]
MOCK_SUITE = REPO / "domains" / "mock" / "suites" / "examples.json"


@dataclass(frozen=True)
class Hostile:
    """A module in `folder` (which is on the Python path) that writes `marker` if it is ever imported."""

    folder: Path
    module: str
    marker: Path

    @property
    def reference(self) -> str:
        return f"{self.module}:DOMAIN"

    def refusal(self, where: str, what: str = "domain") -> str:
        """The line refusing the module named as a `what` at `where` (a domain as `DOMAIN`, an actor kind
        as `AGENT`)."""
        named = f"{self.module}:{'DOMAIN' if what == 'domain' else 'AGENT'}"
        article = "a" if what == "domain" else "an"
        return (
            f"error: {where}: '{named}' names {article} {what} by module:attribute, and tau2 never imports "
            "code a file names; install the package that provides it, or name it yourself: tau2 --plugin "
            f"{named} …"
        )


@pytest.fixture
def hostile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Hostile:
    """A hostile module beside the data, importable (its folder on `sys.path`, as `PYTHONPATH=.` makes it,
    which running a custom actor from the current folder needs), and the working directory there."""
    module = f"evil_{uuid.uuid4().hex[:8]}"
    marker = tmp_path / "IMPORTED"
    (tmp_path / f"{module}.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('imported')\nDOMAIN = AGENT = None\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return Hostile(tmp_path, module, marker)


def refused(arguments: list[str]) -> str:
    result = runner.invoke(app, arguments)
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    return line


def suite_naming(path: Path, domain: str) -> Path:
    data = json.loads(MOCK_SUITE.read_text())
    data["domain"] = domain
    for task in data["tasks"]:
        task["domain"] = domain
    path.write_text(json.dumps(data))
    return path


def tau2bench_file_naming(path: Path, domain: str) -> Path:
    tasks = [task_to_tau2(task) for task in MOCK_TASKS]
    for task in tasks:
        task["user_scenario"]["instructions"]["domain"] = domain
    path.write_text(json.dumps(tasks))
    return path


# Task files


@pytest.mark.parametrize("command", ["verify", "lint", "run", "episode"])
def test_a_suite_naming_a_module_is_refused_and_nothing_is_imported(hostile: Hostile, command: str) -> None:
    suite = suite_naming(hostile.folder / "suite.json", hostile.reference)
    arguments = {
        "verify": ["verify", str(suite)],
        "lint": ["lint", str(suite)],
        "run": ["run", "--suite", str(suite), *OFFLINE, "--out", "r"],
        "episode": ["episode", "--suite", str(suite), "--task-id", "unplugged", *OFFLINE[:4]],
    }[command]
    assert refused(arguments) == hostile.refusal(f"{suite}: domain")
    assert not hostile.marker.exists()


def test_a_tau2bench_file_naming_a_module_is_refused_and_nothing_is_imported(hostile: Hostile) -> None:
    path = tau2bench_file_naming(hostile.folder / "tasks.json", hostile.reference)
    where = f"{path}: [0].user_scenario.instructions.domain"
    assert refused(["verify", str(path)]) == hostile.refusal(where)
    assert not hostile.marker.exists()


def test_tau2bench_results_naming_a_module_are_refused_and_nothing_is_imported(
    hostile: Hostile, good_run: Path
) -> None:
    exported = hostile.folder / "results.json"
    assert runner.invoke(app, ["export", "tau2bench", str(good_run), "-o", str(exported)]).exit_code == 0
    data = json.loads(exported.read_text())
    data["info"]["environment_info"]["domain_name"] = hostile.reference
    exported.write_text(json.dumps(data))
    line = refused(["import", "tau2bench", str(exported), "--out", "imported"])
    assert line == hostile.refusal(f"{exported}: info.environment_info.domain_name")
    assert not hostile.marker.exists()


# What the user names may be imported, and files may then name it too


def test_a_plugin_the_user_names_may_be_named_by_files(tmp_path: Path) -> None:
    reference = "tau2.domains.mock:DOMAIN"
    suite = suite_naming(tmp_path / "suite.json", reference)
    assert refused(["verify", str(suite)]) == (
        f"error: {suite}: domain: '{reference}' names a domain by module:attribute, and tau2 never imports "
        f"code a file names; install the package that provides it, or name it yourself: tau2 --plugin "
        f"{reference} …"
    )
    for arguments in (
        ["--plugin", reference, "verify", str(suite)],
        ["verify", str(suite), "--domain", reference],
    ):
        result = runner.invoke(app, arguments)
        assert result.exit_code == 0, result.output
        assert result.stdout.endswith("5 tasks: 5 valid, 0 invalid\n")


def test_plugin_takes_only_references() -> None:
    assert refused(["--plugin", "mock", "verify", str(MOCK_SUITE)]) == (
        "error: --plugin mock: neither a module:attribute or file.py:attribute reference "
        "(my_pack.domain:DOMAIN) nor KIND.NAME=REFERENCE (lint_check.polite=my_checks.py:POLITE)"
    )
    assert refused(["--plugin", "lint_check=x.py:X", "verify", str(MOCK_SUITE)]) == (
        "error: --plugin lint_check=x.py:X: not KIND.NAME=REFERENCE (lint_check.polite=my_checks.py:POLITE)"
    )


# Runs


@pytest.fixture(scope="module")
def good_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "good"
    result = runner.invoke(app, ["run", "--suite", str(MOCK_SUITE), *OFFLINE, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


def run_naming(hostile: Hostile, good_run: Path, *, agent: bool = False) -> Path:
    """A copy of the good run whose manifest names the hostile module as its domain (or its agent), its
    records without the findings recorded at run time (so a report audits them itself)."""
    run = Path(shutil.copytree(good_run, hostile.folder / "run"))
    manifest = json.loads((run / MANIFEST_FILE).read_text())
    if agent:
        manifest["config"]["agent"]["kind"] = f"{hostile.module}:AGENT"
    else:
        manifest["domain"] = manifest["config"]["domain"] = hostile.reference
    (run / MANIFEST_FILE).write_text(json.dumps(manifest))
    records = [json.loads(line) for line in (run / RESULTS_FILE).read_text().splitlines()]
    for record in records:
        record.pop("user_findings", None)
        record.pop("task_defects", None)
    (run / RESULTS_FILE).write_text("".join(json.dumps(record) + "\n" for record in records))
    return run


def test_a_report_of_a_run_naming_a_module_imports_nothing(hostile: Hostile, good_run: Path) -> None:
    run = run_naming(hostile, good_run)
    result = runner.invoke(app, ["report", str(run), "--json"])
    assert result.exit_code == 0, result.output
    notes = json.loads(result.stdout)["audit"]["notes"]
    assert any("names a domain by module:attribute" in note for note in notes), notes
    assert not hostile.marker.exists()


COMMANDS: dict[str, Callable[[Path], list[str]]] = {
    "export": lambda run: ["export", "tau2bench", str(run), "-o", "exported.json"],
    "regrade": lambda run: ["regrade", str(run), "--suite", str(MOCK_SUITE), "--out", "regraded"],
    "resume": lambda run: ["run", "--resume", "--out", str(run), "--quiet"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_a_run_naming_a_module_is_refused_and_nothing_is_imported(
    hostile: Hostile, good_run: Path, command: str
) -> None:
    run = run_naming(hostile, good_run)
    where = "the run's manifest: config.domain" if command == "resume" else f"{run / MANIFEST_FILE}: domain"
    assert refused(COMMANDS[command](run)) == hostile.refusal(where)
    assert not hostile.marker.exists()


def test_resuming_a_run_naming_a_module_as_its_agent_imports_nothing(
    hostile: Hostile, good_run: Path
) -> None:
    run = run_naming(hostile, good_run, agent=True)
    line = refused(["run", "--resume", "--out", str(run), "--quiet"])
    assert line == hostile.refusal("the run's manifest: config.agent.kind", "actor kind")
    assert not hostile.marker.exists()


# The folder tau2 runs from


@pytest.mark.parametrize(
    "executor", [["--workers", "2"], ["--ray", "local", "--workers", "1"]], ids=["workers", "ray"]
)
def test_no_python_file_in_the_working_folder_is_imported_by_the_command_or_its_workers(
    tmp_path: Path, executor: list[str]
) -> None:
    """`python -m tau2` puts the working folder first on the Python path, worker processes start as
    `python -c …`, which does the same, and Ray puts the driver's working folder first on its workers'
    path: modules imported only later (the workers' `multiprocessing`, `concurrent`, what a Ray worker
    imports to simulate) must still come from the installation."""
    markers = []
    for module in ("multiprocessing", "concurrent", "orjson", "litellm", "numpy"):
        marker = tmp_path / f"IMPORTED-{module}"
        (tmp_path / f"{module}.py").write_text(
            f"import pathlib\npathlib.Path({str(marker)!r}).write_text('x')\n"
        )
        markers.append(marker)
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    command = [sys.executable, "-m", "tau2", "run", "--domain", "mock", *OFFLINE, *executor, "--out", "r"]
    result = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    assert len((tmp_path / "r" / RESULTS_FILE).read_text().splitlines()) == len(MOCK_TASKS)
    assert [marker.name for marker in markers if marker.exists()] == []
