"""Bad input that used to be accepted (or to hang, or to exit 1) is refused with exit 2 and one line
naming what and where: an empty task id, an assertion's expected value of the wrong type, a bootstrap
too large to finish, an empty database, a domain without a default suite given no suite."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tau2 import UserInputError, get_domain
from tau2.cli import app
from tau2.domains.mock.tasks import MOCK_TASKS
from tau2.metrics import Bootstrap
from tau2.seats._tasks import TaskChooser
from tau2.tasks._suite import Suite
from tau2.world._domain import register_domain

runner = CliRunner()
OFFLINE = ["--agent", "oracle", "--user", "scripted", "--quiet"]


def refused(arguments: list[str]) -> str:
    """The one error line of a command that must exit 2."""
    result = runner.invoke(app, arguments)
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert result.exception is None or isinstance(result.exception, SystemExit)
    return line


def suite_with(tmp_path: Path, change: dict[str, Any]) -> Path:
    """The mock suite with the first task's fields at the given dotted paths replaced."""
    path = tmp_path / "suite.json"
    Suite(name="mock", domain="mock", tasks=MOCK_TASKS).save(path)
    data = json.loads(path.read_text())
    for dotted, value in change.items():
        *parents, last = dotted.split(".")
        target = data["tasks"][0]
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[last] = value
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize("task_id", ["", "   "])
def test_an_empty_task_id_is_refused(tmp_path: Path, task_id: str) -> None:
    suite = suite_with(tmp_path, {"id": task_id})
    out = tmp_path / "run"
    line = refused(["run", "--suite", str(suite), *OFFLINE, "--out", str(out)])
    assert line == f"error: {suite}: tasks[0].id: a task id may not be empty"
    assert not out.exists()
    assert refused(["verify", str(suite)]) == line


@pytest.mark.parametrize("expected", ["no", "yes", 1, 0])
def test_an_assertion_expected_value_of_the_wrong_type_is_refused(tmp_path: Path, expected: object) -> None:
    suite = suite_with(tmp_path, {"evaluation.assertions.0.expected": expected})
    line = refused(["verify", str(suite)])
    assert line.startswith(f"error: {suite}: tasks[0].evaluation.assertions[0].expected: Input should be")


def test_a_tau2bench_assert_value_of_the_wrong_type_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    task = {
        "id": "t",
        "user_scenario": {
            "instructions": {"domain": "mock", "reason_for_call": "x", "task_instructions": "y"}
        },
        "evaluation_criteria": {
            "env_assertions": [
                {"env_type": "user", "func_name": "assert_lamp_lit", "arguments": {}, "assert_value": "yes"}
            ]
        },
    }
    path.write_text(json.dumps([task]))
    line = refused(["verify", str(path), "--domain", "mock"])
    assert line.startswith(f"error: {path}: [0].evaluation_criteria.env_assertions[0].assert_value: ")


@pytest.mark.parametrize("command", ["report", "compare"])
def test_a_bootstrap_too_large_to_finish_is_refused_before_anything_is_read(
    tmp_path: Path, command: str
) -> None:
    runs = [str(tmp_path / "absent")] * (2 if command == "compare" else 1)
    line = refused([command, *runs, "--bootstrap-samples", "1000000000"])
    assert line == "error: --bootstrap-samples 1000000000: at most 100,000 (intervals settle long before)"
    with pytest.raises(ValueError, match="less than or equal to 100000"):
        Bootstrap(samples=100_001)


def test_an_empty_telecom_database_is_bad_input(tmp_path: Path) -> None:
    from tau2.domains.telecom import DATA_DIR

    data_dir = tmp_path / "data"
    shutil.copytree(DATA_DIR, data_dir)
    (data_dir / "db.toml").write_text("")
    suite = get_domain("telecom").default_suite
    line = refused(["verify", str(suite), "--data-dir", str(data_dir)])
    assert line == (
        f"error: {data_dir / 'db.toml'}: the database is empty (no plans, customers, lines, bills, devices)"
    )


def test_an_empty_airline_database_is_bad_input(tmp_path: Path) -> None:
    suite = get_domain("airline").default_suite
    assert suite is not None
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "db.json").write_text("{}")
    line = refused(["verify", str(suite), "--data-dir", str(data_dir)])
    assert line == f"error: {data_dir / 'db.json'}: the database is empty (no flights, users, reservations)"


def test_an_environment_of_a_domain_without_a_default_suite_needs_a_suite() -> None:
    register_domain(dataclasses.replace(get_domain("mock"), name="mock_unsuited", default_suite=None))
    with pytest.raises(UserInputError, match="domain 'mock_unsuited' has no default suite; give a suite"):
        TaskChooser("mock_unsuited", None, None, None)
    assert (
        TaskChooser("mock_unsuited", get_domain("mock").default_suite, None, None).domain == "mock_unsuited"
    )
