"""`tau2 run` end to end with offline actors: results, manifest, seeds, personas, and one-line errors."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner, Result

from tau2.cli import COMMANDS, app
from tau2.domains.mock.tasks import MOCK_TASKS
from tau2.runner import ProgressBar, Tally, derive_seed
from tau2.runs import SimulationRecord, load_run

runner = CliRunner()
OFFLINE = ["--agent", "oracle", "--user", "scripted", "--quiet"]


def run(*arguments: str) -> Result:
    return runner.invoke(app, ["run", *arguments])


def one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, text
    return lines[0]


@pytest.mark.parametrize("module", COMMANDS)
def test_every_subcommand_prints_its_help(module: str) -> None:
    name = module.replace("_", "-")
    result = runner.invoke(app, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert f"tau2 {name}" in result.output and "--help" in result.output


def untimed(record: SimulationRecord) -> dict[str, Any]:
    """A record without its wall-clock fields and its run id."""
    data = record.model_dump(mode="json", exclude={"duration_s", "run_id"})
    trajectory = data["trajectory"]
    trajectory.pop("duration_s")
    for entry in trajectory["entries"]:
        entry.pop("elapsed_s")
    return data


def test_offline_run_writes_manifest_and_one_record_per_unit(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = run("--suite", str(suite_file), *OFFLINE, "--trials", "2", "--seed", "3", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    lines = result.stdout.strip().splitlines()
    assert "mock, interactive, agent oracle, user scripted, 5 tasks × 2 trials" in lines[0]
    assert lines[1] == "simulations: 10/10 judged, 0 infrastructure errors, 0 not run"
    assert lines[2] == "pass^1: 1.000 · tokens 0 · cost $0.0000"
    assert lines[3] == f"results: {out / 'results.jsonl'} · report: `tau2 report {out}`"
    loaded = load_run(out)
    manifest = loaded.manifest
    assert manifest.task_ids == [task.id for task in MOCK_TASKS]
    assert (manifest.trials, manifest.seed, manifest.episode.max_steps, manifest.episode.max_errors) == (
        2,
        3,
        100,
        10,
    )
    assert manifest.suite_hash.startswith("sha256:") and manifest.suite_path == str(suite_file.resolve())
    assert set(manifest.hashes) == {"policy", "data"} and {"tau2", "litellm", "python"} <= set(
        manifest.versions
    )
    assert sorted((r.task_id, r.trial) for r in loaded.records) == sorted(
        (task.id, trial) for task in MOCK_TASKS for trial in range(2)
    )
    assert all(r.seed == derive_seed(3, r.task_id, r.trial) and r.success for r in loaded.records)
    assert len((out / "results.jsonl").read_text().splitlines()) == 10


def test_same_seed_gives_identical_records_modulo_timing(suite_file: Path, tmp_path: Path) -> None:
    common = ["--suite", str(suite_file), *OFFLINE, "--trials", "2", "--concurrency", "3"]
    for name, seed in (("a", "11"), ("b", "11"), ("c", "12")):
        assert run(*common, "--seed", seed, "--out", str(tmp_path / name)).exit_code == 0

    def records(name: str) -> list[dict[str, Any]]:
        loaded = load_run(tmp_path / name).records
        return sorted((untimed(record) for record in loaded), key=lambda r: (r["task_id"], r["trial"]))

    assert records("a") == records("b")
    assert [r["seed"] for r in records("a")] != [r["seed"] for r in records("c")]


def test_task_subset_persona_override_and_solo_mode(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    arguments = ["--suite", str(suite_file), "--task-ids", "both,power_cut", "--persona", "hard"]
    result = run(*arguments, "--mode", "solo", "--agent", "oracle", "--quiet", "--out", str(out))
    assert result.exit_code == 0, result.output
    loaded = load_run(out)
    assert loaded.manifest.task_ids == ["both", "power_cut"] and loaded.manifest.user is None
    assert loaded.manifest.config.persona == "hard" and "persona" in loaded.manifest.hashes
    assert {(r.task_id, r.persona, r.mode.value) for r in loaded.records} == {
        ("both", "Hard", "solo"),
        ("power_cut", "Hard", "solo"),
    }


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--agent", "llm", "--user", "scripted"], "error: --agent llm needs --agent-model"),
        (["--agent", "oracle"], "error: --user llm needs --user-model"),
        (
            ["--agent", "llm", "--agent-model", "m", "--user", "scripted", "--agent-arg", "seed=1"],
            "may not set seed",
        ),
        (
            ["--agent", "scripted", "--user", "scripted"],
            "error: actor kind 'scripted' is for the user seat (agent kinds: ",
        ),
        ([*OFFLINE, "--rate-limit", "openai=fast"], "error: --rate-limit 'openai=fast': expected PROVIDER="),
        ([*OFFLINE, "--persona", "nobody"], "error: --persona: 'nobody': unknown persona; available: easy,"),
        ([*OFFLINE, "--persona", "missing.toml"], "error: --persona: missing.toml: no such file"),
        ([*OFFLINE, "--task-ids", "both,ghost"], "error: --task-ids: not in the suite: ghost"),
        ([*OFFLINE, "--trials", "0"], "error: --trials: Input should be greater than or equal to 1"),
        ([*OFFLINE, "--max-steps", "0"], "error: --max-steps: Input should be greater than or equal to 1"),
        (
            ["--agent", "llm", "--agent-model", "m", "--user", "scripted", "--agent-timeout", "0"],
            "error: --agent-timeout: Input should be greater than 0",
        ),
        ([*OFFLINE, "--data-dir", "/nonexistent"], "error: --data-dir /nonexistent: not a directory"),
        ([*OFFLINE, "--domain", "atlantis"], "domain: the suite is for 'mock', not 'atlantis'"),
    ],
)
def test_bad_options_exit_two_with_one_line(
    suite_file: Path, tmp_path: Path, arguments: list[str], message: str
) -> None:
    out = tmp_path / "run"
    result = run("--suite", str(suite_file), *arguments, "--out", str(out))
    assert result.exit_code == 2, result.output
    assert message in one_line(result.stderr)
    assert not out.exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "invalid JSON at line 1"),
        ('{"format": "tau2-suite", "name": "s", "domain": "mock", "tasks": [{"id": 1}]}', "tasks[0]"),
        ("[]", "the suite has no tasks"),
    ],
)
def test_bad_suite_file_exits_two_naming_the_file(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "suite.json"
    path.write_text(content)
    result = run("--suite", str(path), *OFFLINE, "--out", str(tmp_path / "run"))
    assert result.exit_code == 2
    assert message in one_line(result.stderr)
    missing = run("--suite", str(tmp_path / "nope.json"), *OFFLINE, "--out", str(tmp_path / "run"))
    assert one_line(missing.stderr) == f"error: {tmp_path / 'nope.json'}: no such file"


def test_no_tasks_given_and_non_empty_directory_are_refused(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert (
        one_line(run(*OFFLINE, "--out", str(out)).stderr)
        == "error: no tasks: give --suite FILE or --domain NAME"
    )
    unknown = run("--domain", "atlantis", *OFFLINE, "--out", str(out)).stderr
    assert one_line(unknown).startswith("error: unknown domain 'atlantis' (available: ")
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    result = run("--suite", str(suite_file), *OFFLINE, "--out", str(out))
    assert result.exit_code == 2
    assert one_line(result.stderr) == (
        f"error: {out}: not empty; add --resume to continue its run, or choose another --out"
    )


def test_progress_bar_shows_live_counts_on_a_terminal() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=200)
    tally = Tally(4)
    bar = ProgressBar(enabled=True, console=console)
    bar.begin(tally)
    tally.start()
    tally.start()
    tally.finish(
        SimulationRecord.model_validate(
            {
                "task_id": "a",
                "trial": 0,
                "seed": 1,
                "mode": "interactive",
                "reward": 1.0,
                "termination": "user_stop",
            }
        )
    )
    bar.end(tally)
    text = buffer.getvalue()
    assert "1/4 done · 1 running · 1 passed · 0 failed · 0 infra errors · pass^1 1.000 · 0 tokens" in text
    quiet = io.StringIO()
    disabled = ProgressBar(enabled=False, console=Console(file=quiet, force_terminal=True))
    disabled.begin(Tally(1))
    disabled.end(Tally(1))
    assert quiet.getvalue() == ""


def test_manifest_is_plain_json(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run("--suite", str(suite_file), *OFFLINE, "--out", str(out)).exit_code == 0
    data = json.loads((out / "manifest.json").read_text())
    assert data["config"]["agent"]["kind"] == "oracle" and data["config"]["user"]["kind"] == "scripted"
    assert not (out / "manifest.json.tmp").exists()


def test_solo_mode_ignores_user_options_with_a_warning(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = run("--suite", str(suite_file), *OFFLINE, "--mode", "solo", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "warning: solo mode has no user seat: the --user options are ignored" in result.stderr
    assert load_run(out).manifest.user is None


@pytest.mark.parametrize("value", ["", ",,,", " , "])
def test_an_empty_task_selection_is_refused_not_widened(suite_file: Path, tmp_path: Path, value: str) -> None:
    out = tmp_path / "run"
    arguments = ["run", "--suite", str(suite_file), "--agent", "oracle", "--user", "scripted"]
    result = runner.invoke(app, [*arguments, "--task-ids", value, "--out", str(out)])
    assert result.exit_code == 2
    assert "--task-ids: no task id given" in result.stderr
    assert not out.exists()


def test_version_and_short_help() -> None:
    from tau2 import __version__

    version = runner.invoke(app, ["--version"])
    assert (version.exit_code, version.stdout.strip()) == (0, f"tau2 {__version__}")
    short = runner.invoke(app, ["run", "-h"])
    assert short.exit_code == 0 and "--task-ids" in short.stdout
