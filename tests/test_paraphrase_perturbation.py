"""The model-based paraphrase as a setting of `instruction_variant` (`variant = "paraphrase"` with a `model`),
tested at the HTTP boundary against the scripted OpenAI-compatible server: a run through `tau2 run
--config` records the event and plays the paraphrased brief, a rerun with the same `--cache` asks nothing,
the model's key is written nowhere in the run, a paraphrase the check refuses is an infrastructure error of
its simulation, settings in error are one line (exit 2), an experiment's arm paraphrases while staying
paired with its baseline, and the synchronous paths prepare it or refuse it."""

from __future__ import annotations

import asyncio
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import pytest
from typer.testing import CliRunner

from tau2.cli import app
from tau2.config import RunConfig
from tau2.episode import EntryKind, Episode, EpisodeConfig, Mode, run_episode
from tau2.errors import UserInputError
from tau2.experiments import simulation_cost
from tau2.llm import InfrastructureError
from tau2.runs import RunManifest, SimulationRecord, load_manifest, read_records
from tau2.stepping import EpisodeStepper
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer, ScriptedUsage
from tau2.world import Side

runner = CliRunner()
KEY = "sk-paraphrase-secret-0123456789abcdef"
LEAD = "Put another way: "


def paraphrasing(request: ChatRequest) -> Reply:
    """A paraphrase keeping every value: each part of the brief it is sent, led by other words."""
    parts = json.loads(request.messages[-1]["content"])
    rewritten = {name: LEAD + text for name, text in parts.items()}
    return Reply.text(json.dumps(rewritten), usage=ScriptedUsage(prompt_tokens=60, completion_tokens=25))


def model_table(server: ScriptedOpenAIServer, *, key: str | None = KEY) -> str:
    args = "" if key is None else f', args = {{ api_key = "{key}" }}'
    return (
        f'{{ name = "openai/paraphraser", api_base = "{server.base_url}", transport = "native", '
        f"max_retries = 0{args} }}"
    )


def config_file(tmp_path: Path, suite: Path, perturbation: str, name: str = "run.toml") -> Path:
    path = tmp_path / name
    path.write_text(
        f'suite = "{suite}"\ntask_ids = ["unplugged", "both"]\ntrials = 2\nseed = 11\n'
        'agent = { kind = "oracle" }\nuser = { kind = "scripted" }\n\n'
        f"[perturbations.instruction_variant]\n{perturbation}\n"
    )
    return path


def load_records(out: Path) -> list[SimulationRecord]:
    return read_records(out / "results.jsonl")[0]


def run(*arguments: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["run", "--quiet", *arguments])
    return result.exit_code, result.stdout, result.stderr


def paraphrase_event(record: Any) -> Any:
    assert record.perturbation is not None
    (event,) = record.perturbation.events
    return event


def first_user_message(record: Any) -> str | None:
    entries = record.trajectory.entries
    return next(e.text for e in entries if e.seat is Side.USER and e.kind is EntryKind.MESSAGE)


def test_a_run_plays_the_paraphrased_brief_and_a_cached_rerun_asks_nothing(
    suite_file: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    with ScriptedOpenAIServer(paraphrasing) as server:
        config = config_file(tmp_path, suite_file, f'variant = "paraphrase"\nmodel = {model_table(server)}')
        first = tmp_path / "first"
        code, _, stderr = run("--config", str(config), "--cache", str(cache), "--out", str(first))
        assert code == 0, stderr
        asked = server.request_count
        assert asked == 4  # one paraphrase per simulation: 2 tasks × 2 trials
        assert all(request.seed is not None for request in server.requests)
        assert all(headers.get("Authorization") == f"Bearer {KEY}" for headers in server.request_headers)

        again = tmp_path / "again"
        code, _, stderr = run("--config", str(config), "--cache", str(cache), "--out", str(again))
        assert code == 0, stderr
        assert server.request_count == asked  # every paraphrase answered from the cache

    records = sorted(load_records(first), key=lambda r: (r.task_id, r.trial))
    rerun = sorted(load_records(again), key=lambda r: (r.task_id, r.trial))
    assert len(records) == 4 and all(record.reward == 1.0 for record in records)
    for record, repeated in zip(records, rerun, strict=True):
        event = paraphrase_event(record)
        assert (event.kind, event.effect, event.seat) == ("instruction_variant", "varied_brief", Side.USER)
        assert event.detail.startswith("paraphrase (seed ")
        assert event.detail.endswith(" by openai/paraphraser")
        assert first_user_message(record) == LEAD + "My lamp is dark."  # the scripted user's opening
        assert event.usage.calls == 1 and event.usage.prompt_tokens == 60
        assert record.usage[Side.USER].calls == 1  # the scripted user asks no model: the paraphrase alone
        assert paraphrase_event(repeated).detail == event.detail  # the same seed: arms stay paired
        assert paraphrase_event(repeated).usage.cached_calls == 1
        assert repeated.usage[Side.USER].cached_calls == 1
    seeds = {paraphrase_event(record).detail for record in records}
    assert len(seeds) == 4  # each simulation draws its own seed from its stream


def test_the_paraphrasing_models_key_is_written_nowhere_in_the_run(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    with ScriptedOpenAIServer(paraphrasing) as server:
        config = config_file(tmp_path, suite_file, f'variant = "paraphrase"\nmodel = {model_table(server)}')
        code, _, stderr = run("--config", str(config), "--cache", str(tmp_path / "cache"), "--out", str(out))
        assert code == 0, stderr
    written = [path for path in tmp_path.rglob("*") if path.is_file() and path != config]
    assert written and not [path for path in written if KEY.encode() in path.read_bytes()]
    model = load_manifest(out).config.perturbations["instruction_variant"].model_dump(mode="json")["model"]
    assert model["name"] == "openai/paraphraser" and model["args"] == {"api_key": "[redacted]"}

    # resuming without the configuration that gives the key again is one line, before anything runs
    code, stdout, stderr = run("--resume", "--out", str(out), "--trials", "3")
    assert code == 2 and stdout == "" and stderr.count("\n") == 1
    assert "perturbations.instruction_variant.model (openai/paraphraser)" in stderr


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ("Sure! Here it is.", "is not JSON"),
        (json.dumps({"reason_for_call": "My lamp is out.", "known_info": "Ada."}), "exactly its parts"),
    ],
)
def test_a_refused_paraphrase_is_an_infrastructure_error_of_its_simulation(
    suite_file: Path, tmp_path: Path, answer: str, problem: str
) -> None:
    out = tmp_path / "run"
    with ScriptedOpenAIServer(lambda request: Reply.text(answer)) as server:
        config = config_file(tmp_path, suite_file, f'variant = "paraphrase"\nmodel = {model_table(server)}')
        code, _, _ = run("--config", str(config), "--out", str(out))
    assert code == 1  # nothing could be judged
    records = load_records(out)
    assert len(records) == 4
    for record in records:
        assert record.termination == "infrastructure_error" and record.excluded
        assert "InfrastructureError" in (record.termination_detail or "")
        assert problem in (record.termination_detail or "")


@pytest.mark.parametrize(
    ("perturbation", "message"),
    [
        ('variant = "paraphrase"', 'variant "paraphrase" needs a model'),
        ('variant = "terse"\nmodel = "openai/gpt-4o-mini"', 'give it only with variant = "paraphrase"'),
        ('variant = "paraphrase"\nmodel = 3', "instruction_variant.model: Input should be"),
        ('variant = "paraphrase"\nmodel = { nam = "openai/x" }', "instruction_variant.model"),
        ('variant = "reworded"', "unknown variant 'reworded'"),
    ],
)
def test_paraphrase_settings_in_error_are_one_line(
    suite_file: Path, tmp_path: Path, perturbation: str, message: str
) -> None:
    out = tmp_path / "run"
    config = config_file(tmp_path, suite_file, perturbation)
    code, stdout, stderr = run("--config", str(config), "--out", str(out))
    assert code == 2 and stdout == ""
    assert message in stderr and stderr.count("\n") == 1
    assert not out.exists()


def paraphrase_config(server: ScriptedOpenAIServer, seed: int = 3) -> EpisodeConfig:
    model = {"name": "openai/paraphraser", "api_base": server.base_url, "transport": "native"}
    model["max_retries"] = 0
    perturbations = {"instruction_variant": {"variant": "paraphrase", "model": model}}
    return EpisodeConfig.model_validate({"seed": seed, "perturbations": perturbations})


def test_the_stepper_prepares_the_paraphrase_and_a_direct_episode_refuses_it() -> None:
    from tau2.domains.mock.tasks import MOCK_TASKS

    task = MOCK_TASKS[0]
    with ScriptedOpenAIServer(paraphrasing) as server:
        config = paraphrase_config(server)
        with pytest.raises(UserInputError, match=r"await Episode\.create"):
            Episode(task, config)
        stepper = EpisodeStepper()
        try:
            turn = stepper.start(task, {Side.AGENT: None, Side.USER: None}, config)
            context = stepper.context(Side.USER)
        finally:
            stepper.close()
        assert server.request_count == 1
    assert turn is not None and context is not None
    assert context.task.user_scenario.reason() == LEAD + "My lamp is dark."


async def test_run_episode_awaits_the_paraphrase_and_raises_a_refused_one() -> None:
    from tau2.actors import make_actor
    from tau2.domains.mock.tasks import MOCK_TASKS
    from tau2.episode import ActorSpec

    task = MOCK_TASKS[0]
    with ScriptedOpenAIServer(lambda request: Reply.text("no")) as server:
        agent = make_actor(ActorSpec(kind="oracle"), Side.AGENT, Mode.INTERACTIVE)
        user = make_actor(ActorSpec(kind="scripted"), Side.USER, Mode.INTERACTIVE)
        with pytest.raises(InfrastructureError, match="not JSON"):
            await run_episode(task, agent, user, paraphrase_config(server))
    with ScriptedOpenAIServer(paraphrasing) as server:
        result = await run_episode(task, agent, user, paraphrase_config(server))
    assert result.played is not None
    assert result.played.user_scenario.reason().startswith(LEAD)
    assert asyncio.iscoroutinefunction(Episode.create)


def test_an_experiment_arm_paraphrases_and_stays_paired_with_the_baseline(
    suite_file: Path, tmp_path: Path
) -> None:
    out = tmp_path / "experiment"
    with ScriptedOpenAIServer(paraphrasing) as server:
        experiment = tmp_path / "experiment.toml"
        experiment.write_text(
            f'name = "paraphrased"\nbaseline = "none"\n\n[base]\nsuite = "{suite_file}"\n'
            'task_ids = ["unplugged", "both"]\ntrials = 2\nseed = 7\n'
            'agent = { kind = "oracle" }\nuser = { kind = "scripted" }\n\n'
            '[[arms]]\nname = "none"\n\n[[arms]]\nname = "paraphrase"\n'
            "[arms.perturbations.instruction_variant]\n"
            f'variant = "paraphrase"\nmodel = {model_table(server)}\n'
        )
        result = runner.invoke(app, ["experiment", "run", str(experiment), "--out", str(out), "--quiet"])
        assert result.exit_code == 0, result.stderr
        assert server.request_count == 4  # the paraphrased arm's simulations only
    # the paraphrasing model is counted in the estimate beside the seats (unpriced here, so said to be)
    unpriced = "unpriced, not counted: paraphrase: perturbations.instruction_variant.model openai/paraphraser"
    assert unpriced in result.stdout
    baseline = {(r.task_id, r.trial): r for r in load_records(out / "none")}
    paraphrased = {(r.task_id, r.trial): r for r in load_records(out / "paraphrase")}
    assert baseline.keys() == paraphrased.keys()
    for unit, record in paraphrased.items():
        assert record.seed == baseline[unit].seed and baseline[unit].perturbation is None
        assert first_user_message(record) == LEAD + "My lamp is dark."
    assert not [path for path in out.rglob("*") if path.is_file() and KEY.encode() in path.read_bytes()]


def test_the_cost_estimate_counts_a_priced_paraphrasing_model() -> None:
    """A priced paraphrasing model makes an offline arm's simulations cost something before any has run."""

    def manifest(perturbations: dict[str, object]) -> RunManifest:
        config = RunConfig(agent="oracle", user="scripted", perturbations=perturbations)
        return RunManifest(
            run_id="r",
            created_at=datetime.now(UTC),
            config=config,
            suite_path="suite.json",
            suite_hash="0",
            domain="mock",
            task_ids=["unplugged"],
        )

    paraphrase = {"instruction_variant": {"variant": "paraphrase", "model": "openai/gpt-4o-mini"}}
    assert simulation_cost(manifest({})) == (0.0, [])
    cost, unpriced = simulation_cost(manifest(paraphrase))
    assert cost > 0 and unpriced == []
