"""Running experiments: arms paired on tasks and seeds, interleaved, resumable after SIGKILL; budgets
(simulations cap, adaptive rounds, spend cap with a cost estimate); secrets never written; bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from tau2 import ExperimentConfig, run_experiment
from tau2.actors import Actor, ActorSpec, actor_kind
from tau2.cli import app
from tau2.episode import ActorTurn, Entry, Mode, SeatContext
from tau2.experiments import (
    Budget,
    CostEstimate,
    ExperimentManifest,
    ExperimentProgress,
    ExperimentStop,
    StopReason,
    allocate,
    load_experiment,
)
from tau2.experiments._plan import ArmsState
from tau2.metrics import TaskCounts
from tau2.runner import Tally, derive_seed
from tau2.runs import SimulationRecord, read_records
from tau2.testing import DELAY_VARIABLE, Reply, ScriptedOpenAIServer, ScriptedUsage, slowed_name
from tau2.world import Side

runner = CliRunner()
EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "oracle-vs-transfer.toml"
PRICED = "openai/gpt-4o-mini"
"""A model litellm's local cost map prices."""


def experiment_file(tmp_path: Path, suite: Path, *, trials: int, arms: str, extra: str = "") -> Path:
    """An experiment over the mock suite with the scripted user, and the arms given as TOML."""
    path = tmp_path / "exp.toml"
    path.write_text(
        f'name = "test"\nbaseline = "oracle"\n[base]\nsuite = "{suite}"\ntrials = {trials}\nseed = 5\n'
        f'user = {{ kind = "scripted" }}\n{extra}\n{arms}'
    )
    return path


ORACLE_TRANSFER = """
[[arms]]
name = "oracle"
agent = { kind = "oracle" }
[[arms]]
name = "transfer"
agent = { kind = "transfer" }
"""


def run_cli(*arguments: str) -> Result:
    return runner.invoke(app, ["experiment", "run", *arguments])


def arm_records(out: Path, arm: str) -> list[SimulationRecord]:
    records, warnings = read_records(out / arm / "results.jsonl")
    assert warnings == []
    return records


def test_arms_are_ordinary_runs_paired_on_tasks_and_seeds(suite_file: Path, tmp_path: Path) -> None:
    exp, out = experiment_file(tmp_path, suite_file, trials=3, arms=ORACLE_TRANSFER), tmp_path / "out"
    result = run_cli(str(exp), "--out", str(out), "--quiet")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("cost estimate: about $0.00 for up to 30 simulations")
    assert "stopped: every planned trial ran (30 simulations, $0.0000)" in result.stdout
    seeds = {}
    for arm in ("oracle", "transfer"):
        records = arm_records(out, arm)
        units = Counter((record.task_id, record.trial) for record in records)
        assert len(units) == len(records) == 15
        seeds[arm] = {(r.task_id, r.trial): r.seed for r in records}
        assert all(seed == derive_seed(5, task, trial) for (task, trial), seed in seeds[arm].items())
        manifest = json.loads((out / arm / "manifest.json").read_text())
        assert manifest["config"]["agent"]["kind"] == arm
        report = runner.invoke(app, ["report", str(out / arm)])
        assert report.exit_code == 0, report.output
    assert seeds["oracle"] == seeds["transfer"]
    stored = load_experiment(out)
    assert stored.config.baseline == "oracle"
    assert stored.status is not None and stored.status.stopped is ExperimentStop.COMPLETE


def test_units_interleave_trial_by_trial_task_by_task_arm_by_arm() -> None:
    state = ArmsState(["a", "b"], seed=1, stored=[[], [], []])
    units = [(item.unit.trial, item.unit.task_id, item.arm) for item in state.all_units(2)]
    assert units == [(t, task, arm) for t in range(2) for task in ("a", "b") for arm in range(3)]
    assert {
        item.unit.seed for item in state.all_units(2) if item.unit.task_id == "a" and item.unit.trial == 1
    } == {derive_seed(1, "a", 1)}


def test_python_api_runs_and_resumes_nothing_twice(suite_file: Path, tmp_path: Path) -> None:
    config = ExperimentConfig.from_file(experiment_file(tmp_path, suite_file, trials=2, arms=ORACLE_TRANSFER))
    out = tmp_path / "out"
    result = run_experiment(config, out)
    assert result.manifest.config == config  # no secret here to redact
    assert set(result.arms) == {"oracle", "transfer"}
    assert result.status is not None and result.status.simulations == 20
    assert result.arms["oracle"].pass_hat_k()[1].value == 1.0
    before = {arm: (out / arm / "results.jsonl").read_bytes() for arm in ("oracle", "transfer")}
    again = run_experiment(config, out, resume=True)
    assert again.estimate.simulations == 0
    assert {arm: (out / arm / "results.jsonl").read_bytes() for arm in before} == before


class Recorder(ExperimentProgress):
    """Keeps what an experiment reports."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def estimate(self, estimate: CostEstimate) -> None:
        self.lines.append(estimate.line())

    def end(self, tally: Tally) -> None:
        self.lines.append(tally.stats_text())


def test_progress_hears_the_estimate_first_and_each_arms_pass_1(suite_file: Path, tmp_path: Path) -> None:
    config = ExperimentConfig.from_file(experiment_file(tmp_path, suite_file, trials=2, arms=ORACLE_TRANSFER))
    progress = Recorder()
    run_experiment(config, tmp_path / "out", progress=progress)
    assert progress.lines[0].startswith("cost estimate: about $0.00 for up to 20 simulations")
    assert progress.lines[1] == (
        "20/20 done · 0 running · 0 infra errors · pass^1 oracle 1.000, transfer 0.200 · $0.0000"
    )


def test_the_example_runs_offline_on_telecom_paired(tmp_path: Path) -> None:
    """The bar: the telecom default suite, oracle against transfer with the scripted user, 2 trials,
    baseline oracle; every (task, trial) has the same seed in both arms."""
    out = tmp_path / "out"
    result = run_cli(str(EXAMPLE), "--out", str(out), "--quiet")
    assert result.exit_code == 0, result.output
    assert load_experiment(out).config.baseline == "oracle"
    oracle, transfer = arm_records(out, "oracle"), arm_records(out, "transfer")
    assert len(oracle) == len(transfer) == 159 * 2
    seeds = {(r.task_id, r.trial): r.seed for r in oracle}
    assert seeds == {(r.task_id, r.trial): r.seed for r in transfer}
    assert all(seed == derive_seed(7, task, trial) for (task, trial), seed in seeds.items())
    assert all(r.success for r in oracle) and sum(r.success for r in transfer) < len(transfer) / 2


def test_allocation_gives_no_task_more_than_max_trials() -> None:
    baseline = TaskCounts.from_counts([3, 4, 4], [3, 4, 4])
    arm = TaskCounts.from_counts([3, 4, 4], [1, 4, 4])  # task 0 is the uncertain one
    budget = Budget(max_simulations=1000)
    assert allocate([baseline, arm], budget, round_size=3).tasks[0] == 0
    assert allocate([baseline, arm], budget, round_size=3, max_trials=4).tasks == [0]
    capped = allocate([baseline, arm], budget, round_size=3, max_trials=3)
    assert (capped.tasks, capped.stop) == ([], StopReason.TRIALS)
    initial = Budget(max_simulations=1000, initial_trials=5)  # the initial round stops at the cap too
    assert allocate([baseline, arm], initial, round_size=3, max_trials=4).tasks == [0]


def test_max_simulations_stops_exactly_at_the_cap(suite_file: Path, tmp_path: Path) -> None:
    budget = "[budget]\nmax_simulations = 14\ninitial_trials = 1\n"
    exp = experiment_file(tmp_path, suite_file, trials=4, arms=ORACLE_TRANSFER + budget)
    out = tmp_path / "out"
    result = run_cli(str(exp), "--out", str(out), "--quiet")
    assert result.exit_code == 0, result.output
    assert "stopped: one more paired trial would pass max_simulations (14 simulations" in result.stdout
    oracle, transfer = arm_records(out, "oracle"), arm_records(out, "transfer")
    assert len(oracle) + len(transfer) == 14
    assert {(r.task_id, r.trial) for r in oracle} == {(r.task_id, r.trial) for r in transfer}
    status = load_experiment(out).status
    assert status is not None and (status.stopped, status.simulations) == (ExperimentStop.MAX_SIMULATIONS, 14)

    exp.write_text(exp.read_text().replace("max_simulations = 14", "max_simulations = 20"))
    resumed = run_cli(str(exp), "--out", str(out), "--quiet", "--resume")  # a budget may change on resume
    assert resumed.exit_code == 0, resumed.output
    assert resumed.stdout.startswith("cost estimate: about $0.00 for up to 6 simulations")
    oracle, transfer = arm_records(out, "oracle"), arm_records(out, "transfer")
    assert len(oracle) == len({(r.task_id, r.trial) for r in oracle}) == 10 == len(transfer)
    stored = load_experiment(out)
    assert stored.config.budget.max_simulations == 20
    assert stored.status is not None and stored.status.simulations == 20


def test_a_reached_target_stops_after_the_initial_round(suite_file: Path, tmp_path: Path) -> None:
    arms = '[[arms]]\nname = "oracle"\nagent = { kind = "oracle" }\n'
    arms += '[[arms]]\nname = "again"\nagent = { kind = "oracle" }\n'  # agrees with the baseline
    # the interval of a difference that never varies is Newcombe's, 0.43 wide each side over 5 tasks
    arms += "[budget]\ntarget_half_width = 0.45\ninitial_trials = 2\n"
    out = tmp_path / "out"
    result = run_cli(str(experiment_file(tmp_path, suite_file, trials=6, arms=arms)), "--out", str(out), "-q")
    assert result.exit_code == 0, result.output
    assert "stopped: every comparison reached the target half width (20 simulations" in result.stdout
    status = load_experiment(out).status
    assert status is not None and status.stopped is ExperimentStop.TARGET


class CoinAgent:
    """The oracle agent, except on the tasks in `UNCERTAIN`, where an odd seed makes it transfer."""

    UNCERTAIN = ("both", "power_cut")

    def __init__(self, spec: ActorSpec, mode: Mode) -> None:
        self._spec, self._mode = spec, mode
        self._actor: Actor | None = None

    async def start(self, context: SeatContext) -> None:
        odd = context.task.id in self.UNCERTAIN and (context.seed or 0) % 2 == 1
        kind = "transfer" if odd else "oracle"
        self._actor = actor_kind(kind).factories[Side.AGENT](
            self._spec.model_copy(update={"kind": kind}), self._mode
        )
        await self._actor.start(context)

    async def act(self, observation: list[Entry]) -> ActorTurn:
        assert self._actor is not None
        return await self._actor.act(observation)


EXECUTORS = {"local": [], "workers": ["--workers", "2"]}
"""The options of an executor each budget test also runs on: rounds and the spend cap work on every one."""


@pytest.mark.parametrize("executor", list(EXECUTORS))
def test_adaptive_rounds_add_trials_only_to_uncertain_tasks(
    suite_file: Path, tmp_path: Path, executor: str
) -> None:
    seed = next(
        seed
        for seed in range(1000)
        if all(
            derive_seed(seed, task, 0) % 2 != derive_seed(seed, task, 1) % 2 for task in CoinAgent.UNCERTAIN
        )
    )
    arms = '[[arms]]\nname = "oracle"\nagent = { kind = "oracle" }\n'
    arms += '[[arms]]\nname = "coin"\nagent = { kind = "test_experiment_run:CoinAgent" }\n'  # workers too
    arms += "[budget]\nmax_simulations = 24\ninitial_trials = 2\n"
    exp = experiment_file(tmp_path, suite_file, trials=6, arms=arms, extra="concurrency = 2")
    exp.write_text(exp.read_text().replace("seed = 5", f"seed = {seed}"))
    out = tmp_path / "out"
    result = run_cli(str(exp), "--out", str(out), "--quiet", *EXECUTORS[executor])
    assert result.exit_code == 0, result.output
    for arm in ("oracle", "coin"):
        trials = Counter(record.task_id for record in arm_records(out, arm))
        assert trials == {"both": 3, "power_cut": 3, "unplugged": 2, "whitelisted": 2, "needs_human": 2}
    coin = {(r.task_id, r.trial): r.success for r in arm_records(out, "coin")}
    assert coin[("both", 0)] != coin[("both", 1)]


@pytest.mark.parametrize("executor", list(EXECUTORS))
def test_spend_cap_stops_a_priced_model_and_no_secret_is_written(
    suite_file: Path, tmp_path: Path, executor: str
) -> None:
    secret = "sk-experiment-secret-1234"

    def reply(request: object) -> Reply:
        return Reply.text(
            "Let me look into that.", usage=ScriptedUsage(prompt_tokens=100_000, completion_tokens=1_000)
        )

    with ScriptedOpenAIServer(reply) as server:
        arms = '[[arms]]\nname = "oracle"\nagent = { kind = "oracle" }\n'
        arms += f'[[arms]]\nname = "llm"\nagent = {{ kind = "llm", model = {{ name = "{PRICED}", '
        arms += f'api_base = "{server.base_url}", args = {{ api_key = "{secret}" }} }} }}\n'
        exp = experiment_file(
            tmp_path, suite_file, trials=4, arms=arms, extra="concurrency = 1\nmax_steps = 4"
        )
        out = tmp_path / "out"
        result = run_cli(str(exp), "--out", str(out), "--quiet", "--max-cost", "0.05", *EXECUTORS[executor])
        assert result.exit_code == 0, result.output
        first = result.stdout.splitlines()[0]
        assert first.startswith("cost estimate: about $") and not first.startswith(
            "cost estimate: about $0.00 "
        )
        status = load_experiment(out).status
        assert status is not None and status.stopped is ExperimentStop.MAX_COST
        assert 0 < status.cost_usd <= 0.05 and status.max_cost_usd == 0.05
        assert status.simulations < 40
        assert "one more simulation would likely pass the spend cap" in result.stdout
        llm_cost = sum(
            usage.cost or 0.0 for record in arm_records(out, "llm") for usage in record.usage.values()
        )
        assert llm_cost == pytest.approx(status.cost_usd)
        written = [path for path in tmp_path.rglob("*") if path.is_file() and path != exp]
        assert written and not [path for path in written if secret.encode() in path.read_bytes()]
        assert '"api_key": "[redacted]"' in (out / "experiment.json").read_text()

        resumed = run_cli(
            str(exp), "--out", str(out), "--quiet", "--resume", "--max-cost", "0.1", *EXECUTORS[executor]
        )
        assert resumed.exit_code == 0, resumed.output
        more = load_experiment(out).status
        assert more is not None and status.cost_usd < more.cost_usd <= 0.1
        assert not [
            path
            for path in tmp_path.rglob("*")
            if path.is_file() and path != exp and secret.encode() in path.read_bytes()
        ]


def test_secrets_at_any_depth_are_redacted_in_the_experiment_file(tmp_path: Path) -> None:
    model = (
        '{ name = "openai/x", args = { api_key = "k-1", extra_headers = { Authorization = "Bearer k-2" } } }'
    )
    text = 'name = "s"\nbaseline = "a"\n[base]\ndomain = "telecom"\n'
    text += f'agent = {{ kind = "llm", model = {model} }}\n'
    text += '[[arms]]\nname = "a"\n[[arms]]\nname = "b"\nuser = { kind = "llm", model = { name = "openai/y", '
    text += 'args = { api_key = "k-3", max_tokens = 50 } } }\n'
    (tmp_path / "exp.toml").write_text(text)
    config = ExperimentConfig.from_file(tmp_path / "exp.toml")
    ExperimentManifest(created_at=datetime.now(UTC), config=config).save(tmp_path)
    written = (tmp_path / "experiment.json").read_text()
    assert not [key for key in ("k-1", "k-2", "k-3") if key in written]
    stored = load_experiment(tmp_path).config
    assert stored.base["agent"]["model"]["args"]["extra_headers"] == {"Authorization": "[redacted]"}
    assert stored.arm("b").overrides["user"]["model"]["args"] == {"api_key": "[redacted]", "max_tokens": 50}
    assert config.base["agent"]["model"]["args"]["api_key"] == "k-1"  # the live value stays in memory


def test_the_python_result_holds_no_secret(suite_file: Path, tmp_path: Path) -> None:
    judge = 'judge = { name = "openai/gpt-4o-mini", args = { api_key = "sk-judge-secret" } }'
    exp = experiment_file(tmp_path, suite_file, trials=1, arms=ORACLE_TRANSFER, extra=judge)
    result = run_experiment(ExperimentConfig.from_file(exp), tmp_path / "out")
    assert result.manifest.config.base["judge"]["args"] == {"api_key": "[redacted]"}
    assert "sk-judge-secret" not in repr(result.manifest) + repr(result.arms["oracle"].manifest)


def test_bad_input_is_one_line_and_exit_2(suite_file: Path, tmp_path: Path) -> None:
    exp, out = experiment_file(tmp_path, suite_file, trials=1, arms=ORACLE_TRANSFER), tmp_path / "out"
    missing = run_cli(str(tmp_path / "nope.toml"), "--out", str(out))
    assert missing.exit_code == 2 and missing.stderr.count("\n") == 1
    assert run_cli(str(exp), "--out", str(out), "--quiet").exit_code == 0
    again = run_cli(str(exp), "--out", str(out))
    assert again.exit_code == 2
    assert again.stderr.strip() == (
        f"error: {out}: not empty; add --resume to continue its experiment, or choose another --out"
    )
    exp.write_text(exp.read_text().replace("trials = 1", "trials = 2").replace('"transfer" }', '"null" }'))
    changed = run_cli(str(exp), "--out", str(out), "--resume")
    assert changed.exit_code == 2
    assert changed.stderr.strip() == (
        f"error: {out}: cannot resume: the experiment differs in base.trials (1 → 2); "
        "arms.transfer.agent.kind (transfer → null) (give the original experiment, or start a new one: "
        "choose another --out)"
    )
    nothing = run_cli(str(exp), "--out", str(tmp_path / "empty"), "--resume")
    assert nothing.exit_code == 2 and "no experiment to resume (experiment.json is missing)" in nothing.stderr
    assert not (tmp_path / "empty").exists()
    shared = experiment_file(tmp_path, suite_file, trials=1, arms=ORACLE_TRANSFER + "concurrency = 3\n")
    refused = run_cli(str(shared), "--out", str(tmp_path / "other"))
    assert refused.exit_code == 2
    assert refused.stderr.strip() == (
        f"error: {shared}: arms.transfer.concurrency: the arms share one executor; set it in [base]"
    )


def test_resume_from_another_directory_reads_the_same_experiment(
    suite_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "study"
    folder.mkdir()
    (folder / "suite.json").write_bytes(suite_file.read_bytes())
    experiment_file(folder, Path("suite.json"), trials=1, arms=ORACLE_TRANSFER)
    monkeypatch.chdir(folder)
    assert run_cli("exp.toml", "--out", "out", "--quiet").exit_code == 0
    monkeypatch.chdir(tmp_path)
    resumed = run_cli("study/exp.toml", "--out", "study/out", "--quiet", "--resume")
    assert resumed.exit_code == 0, resumed.output
    assert "cost estimate: nothing left to simulate" in resumed.stdout


def test_an_arm_refused_while_preparing_is_named_and_nothing_is_written(
    suite_file: Path, tmp_path: Path
) -> None:
    arms = ORACLE_TRANSFER.replace('kind = "transfer"', 'kind = "no-such-kind"')
    exp, out = experiment_file(tmp_path, suite_file, trials=1, arms=arms), tmp_path / "out"
    refused = run_cli(str(exp), "--out", str(out))
    assert refused.exit_code == 2
    assert refused.stderr.startswith("error: arm transfer: unknown agent kind 'no-such-kind'")
    assert refused.stderr.count("\n") == 1
    assert not out.exists()


def test_print_config_shows_every_arm(suite_file: Path, tmp_path: Path) -> None:
    exp = experiment_file(tmp_path, suite_file, trials=1, arms=ORACLE_TRANSFER)
    result = run_cli(str(exp), "--print-config")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("# arm oracle\n") and "# arm transfer\n" in result.stdout


@pytest.mark.slow
def test_resume_after_sigkill_loses_duplicates_and_changes_nothing(suite_file: Path, tmp_path: Path) -> None:
    trials, tasks, concurrency = 8, 5, 4
    arms = f'[[arms]]\nname = "oracle"\nagent = {{ kind = "{slowed_name("oracle")}" }}\n'
    arms += f'[[arms]]\nname = "transfer"\nagent = {{ kind = "{slowed_name("transfer")}" }}\n'
    exp = experiment_file(
        tmp_path, suite_file, trials=trials, arms=arms, extra=f"concurrency = {concurrency}"
    )
    exp.write_text(
        exp.read_text().replace('{ kind = "scripted" }', f'{{ kind = "{slowed_name("scripted")}" }}')
    )
    out = tmp_path / "out"
    command = [sys.executable, "-m", "tau2", "experiment", "run", str(exp), "--out", str(out), "--quiet"]
    slowed = {**os.environ, DELAY_VARIABLE: "0.05"}
    results = [out / arm / "results.jsonl" for arm in ("oracle", "transfer")]

    def written() -> int:
        return sum(path.read_bytes().count(b"\n") for path in results if path.exists())

    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=slowed)
    try:
        deadline = time.monotonic() + 60
        while written() < 12:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "no records appeared"
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
        assert process.wait(timeout=10) == -signal.SIGKILL
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()
    before = {path: path.read_bytes() for path in results}
    finished = {path: data[: data.rfind(b"\n") + 1] for path, data in before.items()}
    counts = [data.count(b"\n") for data in finished.values()]
    assert 12 <= sum(counts) < 2 * tasks * trials
    assert abs(counts[0] - counts[1]) <= concurrency + 1  # interleaved: the arms stay balanced

    resumed = subprocess.run([*command, "--resume"], capture_output=True, text=True, check=False, env=slowed)
    assert resumed.returncode == 0, resumed.stderr
    for path in results:
        assert path.read_bytes().startswith(finished[path])
        records, warnings = read_records(path)
        assert warnings == []
        units = Counter((record.task_id, record.trial) for record in records)
        assert len(records) == len(units) == tasks * trials
        assert all(record.seed == derive_seed(5, record.task_id, record.trial) for record in records)
