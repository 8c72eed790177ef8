"""`tau2 verify` end to end: through Typer's test runner, through `main`, and as a real subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tau2.cli import app, main
from tau2.tasks import (
    AssertionCall,
    EnvCall,
    Evaluation,
    SolutionStep,
    Suite,
    Task,
    UserInstructions,
    UserScenario,
)
from tau2.tau2bench import write_tau2_file
from tau2.world import Side

REPO = Path(__file__).resolve().parents[1]

runner = CliRunner()


def lamp_task(task_id: str, initialization: list[str], solution: list[str]) -> Task:
    """A mock task: user-side init calls and user-side reference actions, fixed when the lamp is lit."""
    return Task(
        id=task_id,
        domain="mock",
        user_scenario=UserScenario(
            instructions=UserInstructions(reason_for_call="Your lamp is dark.", task_instructions="Comply.")
        ),
        initialization=[EnvCall(side=Side.USER, name=name) for name in initialization],
        evaluation=Evaluation(
            assertions=[
                AssertionCall(side=Side.USER, name="assert_lamp_lit", arguments={"expected_status": True})
            ],
            solution=[
                SolutionStep(side=Side.USER, name=name, action_id=f"{name}_{index}")
                for index, name in enumerate(solution)
            ],
        ),
    )


GOOD = lamp_task("good", ["unplug"], ["plug_in"])
ALREADY_FIXED = lamp_task("already-fixed", [], ["plug_in"])
BROKEN_ACTION = lamp_task("broken", ["unplug"], ["plug_in", "flip_switch"])


def tau2_file(tmp_path: Path, tasks: list[Task]) -> Path:
    path = tmp_path / "tasks.json"
    write_tau2_file(path, tasks)
    return path


def telecom_record() -> dict[str, Any]:
    """A τ²-bench telecom task; verification of it needs the telecom data files."""
    return {
        "id": "[service_issue]airplane_mode_on[PERSONA:None]",
        "user_scenario": {
            "instructions": {
                "domain": "telecom",
                "reason_for_call": "No service.",
                "task_instructions": "Comply.",
            }
        },
        "initial_state": {
            "initialization_actions": [
                {"env_type": "user", "func_name": "turn_airplane_mode_on", "arguments": {}}
            ]
        },
        "evaluation_criteria": {
            "actions": [
                {"action_id": "a0", "requestor": "user", "name": "toggle_airplane_mode", "arguments": {}}
            ],
            "env_assertions": [
                {
                    "env_type": "user",
                    "func_name": "assert_service_status",
                    "arguments": {"expected_status": "connected"},
                }
            ],
            "reward_basis": ["ENV_ASSERTION"],
        },
    }


def one_line(text: str) -> str:
    lines = text.splitlines()
    assert len(lines) == 1, text
    assert "Traceback" not in text
    return lines[0]


def test_valid_tasks_exit_zero(tmp_path: Path) -> None:
    result = runner.invoke(app, ["verify", str(tau2_file(tmp_path, [GOOD]))])
    assert result.exit_code == 0, result.output
    assert result.stdout == "1 tasks: 1 valid, 0 invalid\n"


def test_invalid_tasks_exit_one_with_reasons(tmp_path: Path) -> None:
    result = runner.invoke(app, ["verify", str(tau2_file(tmp_path, [GOOD, ALREADY_FIXED, BROKEN_ACTION]))])
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "already-fixed: assertions already pass after initialisation",
        "broken: assertions already pass after action 1 of 2 (plug_in)",
        "3 tasks: 1 valid, 2 invalid",
    ]


def test_suite_files_are_accepted(tmp_path: Path) -> None:
    path = tmp_path / "suite.json"
    Suite(name="lamps", domain="mock", tasks=[GOOD]).save(path)
    result = runner.invoke(app, ["verify", str(path), "--domain", "mock"])
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith("1 tasks: 1 valid, 0 invalid\n")


def test_malformed_task_file_exits_two_naming_file_and_field(tmp_path: Path) -> None:
    path = tau2_file(tmp_path, [GOOD, GOOD.model_copy(update={"id": "second"})])
    data = json.loads(path.read_text(encoding="utf-8"))
    del data[1]["evaluation_criteria"]["env_assertions"][0]["func_name"]
    path.write_text(json.dumps(data), encoding="utf-8")
    result = runner.invoke(app, ["verify", str(path)])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert one_line(result.stderr) == (
        f"error: {path}: [1].evaluation_criteria.env_assertions[0].func_name: Field required"
    )


def test_malformed_data_file_exits_two_naming_file_and_field(tmp_path: Path) -> None:
    from tau2.domains.telecom import DATA_DIR

    data_dir = tmp_path / "data"
    shutil.copytree(DATA_DIR, data_dir)
    user_db = data_dir / "user_db.toml"
    user_db.write_text(
        user_db.read_text(encoding="utf-8").replace("battery_level = 80", 'battery_level = "full"'),
        encoding="utf-8",
    )
    tasks = tmp_path / "telecom.json"
    tasks.write_text(json.dumps([telecom_record()]), encoding="utf-8")
    result = runner.invoke(app, ["verify", str(tasks), "--data-dir", str(data_dir)])
    assert result.exit_code == 2
    line = one_line(result.stderr)
    assert line.startswith(f"error: {user_db}: ")
    assert "battery_level" in line


def test_unknown_domain_exits_two(tmp_path: Path) -> None:
    result = runner.invoke(app, ["verify", str(tau2_file(tmp_path, [GOOD])), "--domain", "nowhere"])
    assert result.exit_code == 2
    assert one_line(result.stderr).startswith("error: unknown domain 'nowhere' (available:")


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (["verify", "--bogus"], "error: No such option: --bogus (see 'tau2 verify --help')"),
        (["verify"], "error: Missing argument 'tasks'. (see 'tau2 verify --help')"),
        (["verfy"], "error: No such command 'verfy'. Did you mean 'verify'? (see 'tau2 --help')"),
        ([], "error: Missing command. (see 'tau2 --help')"),
    ],
    ids=["unknown-option", "missing-argument", "unknown-command", "no-command"],
)
def test_bad_arguments_exit_two_with_one_line(arguments: list[str], expected: str) -> None:
    result = runner.invoke(app, arguments, prog_name="tau2")
    assert result.exit_code == 2
    assert one_line(result.stderr) == expected


def test_bad_option_value_exits_two(tmp_path: Path) -> None:
    code = main(["verify", str(tau2_file(tmp_path, [GOOD])), "--data-dir", str(tmp_path / "absent")])
    assert code == 2


def test_main_returns_codes_and_prints_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(tau2_file(tmp_path, [GOOD]))]) == 0
    assert main(["verify", str(tmp_path / "absent.json")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "1 tasks: 1 valid, 0 invalid\n"
    assert one_line(captured.err) == f"error: {tmp_path / 'absent.json'}: no such file"


def test_unexpected_errors_exit_one_with_traceback_only_in_debug(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    def explode(*_: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("tau2.episode.verify_task", explode)
    path = str(tau2_file(tmp_path, [GOOD]))
    monkeypatch.delenv("TAU2_DEBUG", raising=False)
    assert main(["verify", path]) == 1
    assert (
        one_line(capsys.readouterr().err)
        == "error: unexpected RuntimeError: boom (set TAU2_DEBUG=1 for the traceback)"
    )
    monkeypatch.setenv("TAU2_DEBUG", "1")
    assert main(["verify", path]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_help_still_works() -> None:
    result = runner.invoke(app, ["verify", "--help"], prog_name="tau2")
    assert result.exit_code == 0
    assert "--data-dir" in result.stdout


def _run(*arguments: str) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if key != "TAU2_DEBUG"}
    return subprocess.run(
        [sys.executable, "-m", "tau2", *arguments],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=environment,
        timeout=60,
        check=False,
    )


def test_subprocess_reports_user_errors_on_one_line(tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    path.write_text("[{]", encoding="utf-8")
    completed = _run("verify", str(path))
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert one_line(completed.stderr).startswith(f"error: {path}: invalid JSON at line 1, column 3:")
    completed = _run("verify", "--nope")
    assert completed.returncode == 2
    assert one_line(completed.stderr) == "error: No such option: --nope (see 'tau2 verify --help')"


def test_subprocess_verifies_and_does_not_import_litellm(tmp_path: Path) -> None:
    completed = _run("verify", str(tau2_file(tmp_path, [GOOD, ALREADY_FIXED])))
    assert completed.returncode == 1
    assert completed.stdout.splitlines()[-1] == "2 tasks: 1 valid, 1 invalid"
    probe = subprocess.run(
        [sys.executable, "-c", "import sys, tau2.cli; print('litellm' in sys.modules)"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=True,
    )
    assert probe.stdout.strip() == "False"
