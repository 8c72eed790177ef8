"""`tau2 lint` through the command line: exit codes, the text and JSON outputs, bad input."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tau2.audit import lint_checks
from tau2.cli import app
from tau2.domains.mock.tasks import BOTH, MOCK_TASKS
from tau2.tasks import Suite, Task

from .conftest import broken_task, lint_json

runner = CliRunner()


def save(path: Path, tasks: list[Task]) -> Path:
    Suite(name="lint", domain="mock", tasks=tasks).save(path)
    return path


def broken_suite(tmp_path: Path) -> Path:
    """The mock examples plus a task whose first reference action fails."""
    return save(tmp_path / "broken.json", [*MOCK_TASKS, broken_task()])


def test_a_clean_file_exits_0_with_a_summary(suite_file: Path) -> None:
    result = runner.invoke(app, ["lint", str(suite_file)])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == ["5 tasks: 5 without findings, 0 with findings"]


def test_an_error_finding_exits_1_and_prints_one_line_per_task_and_check(tmp_path: Path) -> None:
    result = runner.invoke(app, ["lint", str(broken_suite(tmp_path))])
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert lines[0].startswith("broken: error reference_action_fails: reference action 1 of 2 (enable_power)")
    assert lines[1].startswith("broken: error verification_fails: action 1 of 2 (enable_power) failed")
    assert lines[2:] == [
        "6 tasks: 5 without findings, 1 with findings",
        "1 error reference_action_fails",
        "1 error verification_fails",
    ]


def test_json_lists_checks_counts_and_findings(tmp_path: Path) -> None:
    document = lint_json(broken_suite(tmp_path), exit_code=1)
    assert document["files"] == [{"path": str(tmp_path / "broken.json"), "tasks": 6}]
    assert list(document["checks"]) == list(lint_checks()) == list(document["counts"])
    assert document["checks"]["do_nothing_passes"]["severity"] == "warning"
    assert document["counts"]["reference_action_fails"] == 1
    assert [(f["task_id"], f["check"], f["severity"]) for f in document["findings"]] == [
        ("broken", "reference_action_fails", "error"),
        ("broken", "verification_fails", "error"),
    ]


def test_several_files_name_the_file_of_each_finding(tmp_path: Path, suite_file: Path) -> None:
    again = save(tmp_path / "again.json", [BOTH.model_copy(update={"id": "both-again"})])
    result = runner.invoke(app, ["lint", str(suite_file), str(again)])
    assert result.exit_code == 0, result.output
    assert (
        f"{again}: both-again: warning duplicate_task: same content as task both ({suite_file})"
        in result.output
    )


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["lint", str(tmp_path / "missing.json")])
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    malformed = runner.invoke(app, ["lint", str(tmp_path / "bad.json")])
    (tmp_path / "empty.json").write_text("[]", encoding="utf-8")
    empty = runner.invoke(app, ["lint", str(tmp_path / "empty.json")])
    for result in (missing, malformed, empty):
        assert result.exit_code == 2, result.output
        assert len(result.output.strip().splitlines()) == 1 and result.output.startswith("error: ")
    assert "the file has no tasks" in empty.output
