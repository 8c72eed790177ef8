"""`tau2 episode` end to end: through Typer's test runner and as a real subprocess."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tau2.actors._scripted import ScriptedUser
from tau2.cli import app
from tau2.domains.mock.tasks import MOCK_TASKS
from tau2.episode import EpisodeResult, SeatContext
from tau2.personas import load_persona
from tau2.tau2bench import write_tau2_file

CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "tau2-telecom"
runner = CliRunner()


OFFLINE = ["--agent", "oracle", "--user", "scripted"]
"""Offline seats (the default kind is a model, which must be named)."""


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


def test_the_readmes_episode_row_shows_both_seats_as_written(suite_file: Path) -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    (row,) = [line for line in readme.splitlines() if line.startswith("| Watch one episode, both seats")]
    command = row.split("`")[1].replace("suite.json", str(suite_file)).replace(" ID ", " both ")
    assert command.startswith("tau2 episode ")
    result = runner.invoke(app, command.split()[1:])
    assert result.exit_code == 0, result.output
    assert "agent (oracle)" in result.stdout and "user (scripted)" in result.stdout


def test_oracle_episode_shows_both_views_assertions_and_reward(suite_file: Path) -> None:
    result = runner.invoke(app, ["episode", "--suite", str(suite_file), "--task-id", "both", *OFFLINE])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "agent (oracle)" in out and "user (scripted)" in out
    assert "enable_power(customer='Ada')" in out and "plug_in() [user]" in out
    assert "termination: user_stop" in out
    assert "assertion pass user.assert_lamp_lit(expected_status=True)" in out
    assert "action plug_in_1 (user): performed by its seat" in out
    assert out.rstrip().endswith("reward: 1.0")


def test_solo_null_episode(suite_file: Path) -> None:
    arguments = [
        "episode",
        "--suite",
        str(suite_file),
        "--task-id",
        "unplugged",
        "--agent",
        "null",
        "--user",
        "scripted",
    ]
    result = runner.invoke(app, [*arguments, "--mode", "solo"])
    assert result.exit_code == 0, result.output
    assert "mode: solo" in result.stdout and "user (" not in result.stdout
    assert "termination: agent_stop" in result.stdout
    assert "assertion FAIL" in result.stdout and "reward: 0.0" in result.stdout


def test_json_output_is_the_episode_result(suite_file: Path) -> None:
    arguments = [
        "--suite",
        str(suite_file),
        "--task-id",
        "needs_human",
        "--agent",
        "transfer",
        "--user",
        "scripted",
        "--json",
    ]
    result = runner.invoke(app, ["episode", *arguments, "--oracle-plan", "--max-steps", "7"])
    assert result.exit_code == 0, result.output
    episode = EpisodeResult.model_validate_json(one_line(result.stdout))
    assert (episode.reward, episode.termination.value) == (1.0, "transfer")
    assert (episode.agent, episode.user) == ("transfer", "scripted")
    assert episode.config.oracle_plan and episode.config.max_steps == 7


def test_persona_reaches_the_user(suite_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str | None] = []
    original = ScriptedUser.start

    async def spy(self: ScriptedUser, context: SeatContext) -> None:
        seen.append(context.persona_text)
        await original(self, context)

    monkeypatch.setattr(ScriptedUser, "start", spy)
    arguments = [
        "--suite",
        str(suite_file),
        "--task-id",
        "unplugged",
        *OFFLINE,
        "--persona",
        "easy",
        "--json",
    ]
    assert runner.invoke(app, ["episode", *arguments]).exit_code == 0
    assert seen == [load_persona("easy").prompt_text]


def test_unknown_task_id_exits_two_listing_ids(suite_file: Path) -> None:
    result = runner.invoke(app, ["episode", "--suite", str(suite_file), "--task-id", "nope"])
    assert result.exit_code == 2
    line = one_line(result.stderr)
    assert line.startswith(f"error: {suite_file}: no task with id 'nope' (ids: unplugged, power_cut, both")


@pytest.mark.parametrize(
    ("arguments", "fragment"),
    [
        (["--agent", "robot"], "unknown agent kind 'robot' (agent kinds: "),
        (["--user", "oracle"], "actor kind 'oracle' is for the agent seat (user kinds: "),
        (["--mode", "duo"], "Invalid value for '--mode'"),
    ],
)
def test_bad_options_exit_two(suite_file: Path, arguments: list[str], fragment: str) -> None:
    result = runner.invoke(
        app, ["episode", "--suite", str(suite_file), "--task-id", "both", *OFFLINE, *arguments]
    )
    assert result.exit_code == 2
    assert fragment in one_line(result.stderr)


def test_tau2_bench_file_in_a_subprocess(tmp_path: Path) -> None:
    if CONFORMANCE.is_dir():
        tasks, data_dir = CONFORMANCE / "tasks_small.json", ["--data-dir", str(CONFORMANCE)]
        task_id = "[service_issue]overdue_bill_suspension[PERSONA:Easy]"
    else:
        tasks, data_dir, task_id = tmp_path / "tasks.json", [], "both"
        write_tau2_file(tasks, MOCK_TASKS)
    command = [sys.executable, "-m", "tau2", "episode", "--suite", str(tasks), "--task-id", task_id, *OFFLINE]
    completed = subprocess.run([*command, *data_dir, "--json"], capture_output=True, text=True, check=False)
    assert completed.returncode == 0, completed.stderr
    data = json.loads(completed.stdout)
    assert data["task_id"] == task_id and data["reward"] == 1.0
    assert data["termination"] == "user_stop"
