"""Tasks whose evaluation names unknown tools, env functions or arguments are refused before any simulation
(`tau2 run`, `tau2 episode`) and reported as invalid by `tau2 verify`, naming the task and the field."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.mock.tasks import MOCK_TASKS
from tau2.episode import structure_problem
from tau2.tau2bench import load_task_file

runner = CliRunner()
OFFLINE = ["--agent", "oracle", "--user", "scripted"]
Edit = Callable[[dict[str, Any]], None]


def _unknown_tool(task: dict[str, Any]) -> None:
    task["evaluation"]["solution"][0]["name"] = "launch_rocket"


def _unknown_assertion(task: dict[str, Any]) -> None:
    task["evaluation"]["assertions"][0]["name"] = "assert_moon_is_cheese"


def _wrong_argument_name(task: dict[str, Any]) -> None:
    task["evaluation"]["assertions"][0]["arguments"] = {"expected_colour": True}


def _wrong_side(task: dict[str, Any]) -> None:
    step = task["evaluation"]["solution"][0]
    step["side"] = "agent" if step["side"] == "user" else "user"


BROKEN: dict[str, tuple[Edit, str]] = {
    "unknown tool": (_unknown_tool, "evaluation.solution[0]: no user tool named 'launch_rocket'"),
    "unknown assertion": (_unknown_assertion, "evaluation.assertions[0]: no user env function named"),
    "wrong argument name": (_wrong_argument_name, "evaluation.assertions[0].arguments: assert_lamp_lit:"),
    "tool of the other side": (_wrong_side, "evaluation.solution[0]: no agent tool named 'plug_in'"),
}


def _suite_with(tmp_path: Path, edit: Edit) -> tuple[Path, str]:
    """The mock suite with its first task edited; returns the file and the edited task's id."""
    source = Path(__file__).resolve().parents[1] / "domains" / "mock" / "suites" / "examples.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    edit(data["tasks"][0])
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path, str(data["tasks"][0]["id"])


def test_shipped_mock_tasks_are_sound() -> None:
    assert [structure_problem(task) for task in MOCK_TASKS] == [None] * len(MOCK_TASKS)


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_run_refuses_a_broken_task_before_simulating(case: str, tmp_path: Path) -> None:
    edit, expected = BROKEN[case]
    suite, task_id = _suite_with(tmp_path, edit)
    out = tmp_path / "run"
    result = runner.invoke(app, ["run", "--suite", str(suite), *OFFLINE, "--quiet", "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    line = result.stderr.strip()
    assert "\n" not in line
    assert f"task {task_id!r}" in line and expected in line
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_episode_refuses_a_broken_task(case: str, tmp_path: Path) -> None:
    edit, expected = BROKEN[case]
    suite, task_id = _suite_with(tmp_path, edit)
    result = runner.invoke(app, ["episode", "--suite", str(suite), "--task-id", task_id, *OFFLINE])
    assert result.exit_code == 2, result.output
    assert expected in result.stderr and result.stdout == ""


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_verify_names_the_broken_field(case: str, tmp_path: Path) -> None:
    edit, expected = BROKEN[case]
    suite, task_id = _suite_with(tmp_path, edit)
    result = runner.invoke(app, ["verify", str(suite)])
    assert result.exit_code == 1
    assert f"{task_id}: {expected}" in result.stdout


def test_structure_check_passes_every_task_of_a_large_suite() -> None:
    """No false alarm over thousands of sound tasks."""
    tasks = [task.model_copy(update={"id": f"t{n}"}) for n in range(1000) for task in MOCK_TASKS]
    assert all(structure_problem(task) is None for task in tasks)


CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"


@pytest.mark.skipif(not CONFORMANCE.is_dir(), reason="needs the τ²-bench conformance data")
def test_real_tau2bench_task_files_pass_the_structure_check() -> None:
    """No false alarms: every task of τ²-bench's own files names real tools with accepted arguments."""
    files = sorted(path for path in CONFORMANCE.glob("tau2-*/tasks*.json"))
    files += sorted(path for path in CONFORMANCE.glob("tau2-*/tasks") if path.is_dir())
    assert files
    for path in files:
        domain = "banking_knowledge" if path.parent.name == "tau2-banking" else None  # free-text instructions
        problems = [(task.id, structure_problem(task)) for task in load_task_file(path, domain)]
        assert [problem for problem in problems if problem[1] is not None] == [], path
