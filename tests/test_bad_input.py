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
from tau2.stepping import TaskChooser
from tau2.tasks import Suite, register_domain
from tau2.tau2bench import task_to_tau2

runner = CliRunner()
OFFLINE = ["--agent", "oracle", "--user", "scripted", "--quiet"]
MOCK_SUITE = Path(__file__).resolve().parents[1] / "domains" / "mock" / "suites" / "examples.json"


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


def tau2bench_file_with(tmp_path: Path, task_id: str) -> Path:
    """The mock tasks as a τ²-bench task file, the first one's id replaced."""
    tasks = [task_to_tau2(task) for task in MOCK_TASKS]
    tasks[0]["id"] = task_id
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(tasks))
    return path


TASK_ID_PROBLEMS = {
    "": "a task id may not be empty",
    "  ": "a task id may not be empty",
    "a\nb": "a task id may not hold a control character ('\\n' at character 1)",
    "\x1b[2J": "a task id may not hold a control character ('\\x1b' at character 0)",
    "a\u2028b": "a task id may not hold a control character ('\\u2028' at character 1)",
}


@pytest.mark.parametrize("task_id", TASK_ID_PROBLEMS)
def test_a_tau2bench_task_id_that_names_nothing_is_refused_by_every_command(
    tmp_path: Path, task_id: str
) -> None:
    path = tau2bench_file_with(tmp_path, task_id)
    line = f"error: {path}: [0].id: {TASK_ID_PROBLEMS[task_id]}"
    assert refused(["verify", str(path)]) == line
    assert refused(["lint", str(path)]) == line
    assert refused(["run", "--suite", str(path), *OFFLINE, "--out", str(tmp_path / "run")]) == line
    assert refused(["episode", "--suite", str(path), "--task-id", "power_cut", *OFFLINE[:4]]) == line
    assert not (tmp_path / "run").exists()


def test_a_task_folder_with_an_empty_task_id_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "tasks"
    folder.mkdir()
    for index, task in enumerate(MOCK_TASKS):
        (folder / f"task_{index}.json").write_text(
            json.dumps({**task_to_tau2(task), "id": "" if index else "a"})
        )
    assert (
        refused(["verify", str(folder)]) == f"error: {folder / 'task_1.json'}: id: a task id may not be empty"
    )


def test_a_newline_in_a_task_id_never_forges_a_line_of_lint(tmp_path: Path) -> None:
    suite = suite_with(tmp_path, {"id": "x: ok\n0 tasks: 0 without findings"})
    result = runner.invoke(app, ["lint", str(suite)])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        f"error: {suite}: tasks[0].id: a task id may not hold a control character ('\\n' at character 5)\n"
    )


@pytest.mark.parametrize(
    ("task_ids", "problem"),
    [
        (
            '["both", "power_cut", "both"]',
            "[2]: 'both' is listed twice (also at [0]); list each task once "
            "(`trials` sets how often each runs)",
        ),
        ('[""]', "[0]: a task id may not be empty"),
        ('["both", "a\\tb"]', "[1]: a task id may not hold a control character ('\\t' at character 1)"),
    ],
)
def test_a_configuration_naming_a_task_twice_or_no_task_is_refused(
    tmp_path: Path, task_ids: str, problem: str
) -> None:
    config = tmp_path / "run.toml"
    config.write_text(
        f'suite = "{MOCK_SUITE}"\ntask_ids = {task_ids}\n'
        '[agent]\nkind = "oracle"\n[user]\nkind = "scripted"\n'
    )
    out = tmp_path / "run"
    assert (
        refused(["run", "--config", str(config), "--out", str(out)])
        == f"error: {config}: task_ids: {problem}"
    )
    assert not out.exists()
    experiment = tmp_path / "exp.toml"
    experiment.write_text(
        f'name = "x"\nbaseline = "a"\n[base]\nsuite = "{MOCK_SUITE}"\ntask_ids = {task_ids}\n'
        '[base.user]\nkind = "scripted"\n[[arms]]\nname = "a"\nagent = { kind = "oracle" }\n'
        '[[arms]]\nname = "b"\nagent = { kind = "transfer" }\n'
    )
    line = refused(["experiment", "run", str(experiment), "--out", str(tmp_path / "exp")])
    assert line == f"error: {experiment}: base.task_ids: {problem}"


def test_a_run_recorded_with_a_task_listed_twice_is_still_read(tmp_path: Path) -> None:
    """Runs made before duplicates were refused keep their configuration as recorded."""
    out = tmp_path / "run"
    result = runner.invoke(
        app, ["run", "--suite", str(MOCK_SUITE), *OFFLINE, "--task-ids", "both", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["config"]["task_ids"] = ["both", "both"]
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert runner.invoke(app, ["report", str(out)]).exit_code == 0


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


@pytest.mark.parametrize("escape", ["\\ud800", "\\udc80", "\\uDBFF x"])
def test_tau2bench_results_holding_a_lone_surrogate_are_refused(tmp_path: Path, escape: str) -> None:
    """The streaming parser would turn a lone high surrogate into `?` without a word, and fail on a lone
    low one as if the file were not UTF-8."""
    run, exported = tmp_path / "run", tmp_path / "results.json"
    assert runner.invoke(app, ["run", "--suite", str(MOCK_SUITE), *OFFLINE, "--out", str(run)]).exit_code == 0
    assert runner.invoke(app, ["export", "tau2bench", str(run), "-o", str(exported)]).exit_code == 0
    text = exported.read_text(encoding="utf-8")
    marked = text.replace('"content": "', f'"content": "hi {escape} there ', 1)
    exported.write_text(marked, encoding="utf-8")
    line = refused(["import", "tau2bench", str(exported), "--out", str(tmp_path / "imported")])
    at = marked.encode().index(escape.split()[0].encode())
    assert line == (
        f"error: {exported}: byte {at}: an escaped unpaired UTF-16 surrogate, which is not text (a record "
        "could neither hold nor write it)"
    )
    assert not (tmp_path / "imported").exists()


def test_every_command_taking_a_task_id_refuses_an_empty_one_in_one_line(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert runner.invoke(app, ["run", "--suite", str(MOCK_SUITE), *OFFLINE, "--out", str(run)]).exit_code == 0
    assert refused(["view", str(run), "--task", ""]) == f"error: {run}: no simulation matches (task '')"
    assert refused(["episode", "--suite", str(MOCK_SUITE), "--task-id", "", *OFFLINE[:4]]).startswith(
        f"error: {MOCK_SUITE}: no task with id '' (ids: "
    )
    empty = "error: --task-ids: no task id given (leave the option out to run every task)"
    assert refused(["run", "--suite", str(MOCK_SUITE), *OFFLINE, "--task-ids", "", "--out", "x"]) == empty
