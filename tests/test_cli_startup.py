"""What the command line loads: a subcommand imports its own module and what it uses, never the other
commands' modules nor the model clients (aiohttp, litellm), so that `tau2 report` starts fast. Checked on
the modules a fresh interpreter holds, never on timings."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import NoReturn

import pytest
from fixtures.make_runs import RUNS_DIR
from typer.testing import CliRunner

from tau2.cli import COMMANDS, GROUPS, app, run_reporting_errors
from tau2.personas import PersonaError

OTHER_COMMANDS = sorted(
    {f"tau2.cli.{module}" for module in (*COMMANDS, *GROUPS.values())} - {"tau2.cli.report"}
)
"""The modules of every subcommand but `report`."""
NEVER_FOR_A_REPORT = ["aiohttp", "litellm", "tau2.generator", *OTHER_COMMANDS]
"""What reading and reporting a run has no use for."""


def loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running `code` (which must print nothing)."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    return set(json.loads(result.stdout.splitlines()[-1]))


def test_looking_up_a_subcommand_imports_only_its_module() -> None:
    loaded = loaded_after(
        "import typer\nfrom tau2.cli import app\ntyper.main.get_command(app).commands['report']"
    )
    assert "tau2.cli.report" in loaded
    heavy = ["numpy", "tau2.config", "tau2.llm", "tau2.personas", "tau2.report", "tau2.runs"]
    assert sorted(loaded.intersection([*heavy, *NEVER_FOR_A_REPORT])) == []


def test_reporting_a_run_loads_no_model_client_nor_other_command() -> None:
    run = RUNS_DIR / "interactive"
    loaded = loaded_after(
        "import contextlib, io\nfrom tau2.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['report', {str(run)!r}, '--json']) == 0\n"
    )
    assert {"tau2.cli.report", "tau2.report", "tau2.runs"} <= loaded
    sidecar_readers = ["tau2.annotation", "tau2.tau2bench_results"]  # the terminal tables' extras only
    assert sorted(loaded.intersection([*NEVER_FOR_A_REPORT, *sidecar_readers])) == []


@pytest.mark.parametrize(("given", "expected"), [(None, "1"), ("4", "4")])
def test_the_command_line_starts_no_blas_threads_unless_asked(given: str | None, expected: str) -> None:
    """numpy's BLAS would start a thread per core (CPU for nothing): one, unless the user set a number."""
    environment = {name: value for name, value in os.environ.items() if name != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        environment["OPENBLAS_NUM_THREADS"] = given
    script = "import os, tau2.cli\nprint(os.environ['OPENBLAS_NUM_THREADS'])"
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=environment
    )
    assert result.stdout.strip() == expected


def test_the_tau2_process_freezes_what_outlives_the_command() -> None:
    """The interpreter's final collection would scan every object still alive (the modules' among them)
    for nothing: the console entry freezes them once the command returns."""
    script = (
        "import gc, sys\nfrom tau2.cli import console\nsys.argv = ['tau2', '--version']\n"
        "code = console()\nprint(code, gc.get_freeze_count() > 0)"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert result.stdout.split()[-2:] == ["0", "True"]


def test_reporting_a_run_that_recorded_its_findings_loads_no_runner_nor_personas(tmp_path: Path) -> None:
    """Records made now carry their audit, so the report never reads the suite: what only the audit of
    older records needs stays unloaded. (The checks load with `tau2.findings`: docs/performance.md gives
    what that costs.)"""
    run = tmp_path / "run"
    made = CliRunner().invoke(
        app, ["run", "--domain", "mock", "--agent", "null", "--user", "scripted", "-q", "--out", str(run)]
    )
    assert made.exit_code == 0, made.output
    loaded = loaded_after(
        "import contextlib, io\nfrom tau2.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['report', {str(run)!r}, '--json']) == 0\n"
    )
    only_for_older_records = ["tau2.runner", "tau2.personas", "tau2.regrade"]
    assert sorted(loaded.intersection(only_for_older_records)) == []


def test_the_root_help_lists_every_command_in_the_declared_order() -> None:
    """The commands are built on demand; `tau2 --help` still shows each one once, as `COMMANDS` and
    `GROUPS` order them, with its help."""
    result = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    listed = re.findall(r"^│ ([a-z][a-z-]*) {2,}\S", result.output, flags=re.MULTILINE)
    assert listed == [*(name.replace("_", "-") for name in COMMANDS), *GROUPS]
    assert "Report one run: a one-screen headline" in result.output


def test_a_persona_error_is_still_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    """The persona package is no longer imported at start-up; a persona that cannot be loaded still ends
    the command with one line and exit 2."""

    def load() -> NoReturn:
        raise PersonaError("personas/nobody.toml", "file not found")

    assert run_reporting_errors(load) == 2
    assert capsys.readouterr().err == "error: personas/nobody.toml: file not found\n"
