"""τ²-bench's banking results import with τ²-bench's verdicts and export as τ²-bench's banking code reads
them: hidden tools unlocked, handed over and called replay exactly (the database's call logs decide the
reward), and the retrieval configuration and the agent's instructions travel with the run (that the
official task folder makes a standard submission is in `test_tau2bench_submission.py`).

The results files are built from τ²-bench's reference trajectories (`fixtures/tau2bench_banking_results.py`:
every reference call with the result τ²-bench returned, plus runs cut before a hidden call or with a wrong
argument, each with the verdict τ²-bench's rules give it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tau.conformance import conformance_dir
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.banking_knowledge.retrieval import KNOWLEDGE
from tau2.runner import sha256_text
from tau2.runs import SimulationRecord, load_run
from tau2.tasks import RewardType
from tau2.tau2bench_results import load_import
from tau2.tau2bench_results._export import _retrieval_fields
from tau2.tau2bench_results._format import Results
from tau2.world import EmbedderConfig, RetrievalConfig

DOMAIN = "banking_knowledge"
FIXTURE = Path(__file__).parent / "fixtures" / "tau2bench" / "gold_banking_results.json"
FIXTURE_TASKS = [
    "task_001", "task_005", "task_015", "task_031", "task_033",
    "task_034", "task_051", "task_055", "task_083", "task_102",
]  # fmt: skip
"""The tasks of the committed file: a customer's own tool, a transfer before the work, tools handed over
and called by the customer, hidden transfers judged by actions, refused and failing reference calls, a
deposit, and a task judged on a statement."""
OPENAI = EmbedderConfig(model="text-embedding-3-large")
"""The embeddings of τ²-bench's OpenAI configurations."""
OPENAI_TOP_5 = RetrievalConfig(name="openai_embeddings", top_k=5, embedder=OPENAI)
runner = CliRunner()


def cli(*arguments: str) -> str:
    result = runner.invoke(app, list(arguments))
    assert result.exit_code == 0, result.output
    return result.stdout


def import_file(results_file: Path, out: Path, data: Path) -> str:
    return cli("import", "tau2bench", str(results_file), "--out", str(out), "--data-dir", str(data))


def records(run_dir: Path) -> dict[str, SimulationRecord]:
    """The run's records by the id of the simulation they were imported from."""
    imported = load_import(run_dir)
    assert imported is not None
    ids = {
        (simulation.task_id, simulation.trial): simulation.simulation_id
        for simulation in imported.simulations
    }
    return {ids[record.task_id, record.trial]: record for record in load_run(run_dir).records}


def results(data: Path, task_ids: list[str] | None = None) -> dict[str, Any]:
    """The banking results file the fixture script writes (it scores searches with rank-bm25)."""
    pytest.importorskip("rank_bm25", reason="the knowledge extra (rank-bm25) is not installed")
    from fixtures.tau2bench_banking_results import results as build

    return build(data, task_ids)


def gating_failures(record: SimulationRecord) -> set[RewardType]:
    return {check.kind for check in record.checks if check.gating and check.passed is not True}


def test_the_committed_file_is_what_its_script_writes() -> None:
    written = results(conformance_dir("banking"), FIXTURE_TASKS)
    assert json.loads(FIXTURE.read_text(encoding="utf-8")) == written


def test_every_official_task_imports_with_the_reference_verdict(tmp_path: Path) -> None:
    """All 97 tasks: the reference run passes, a run cut before a hidden call or with a wrong argument
    fails, and every replayed call (unlocking, handing over and calling hidden tools included) has the
    outcome τ²-bench recorded."""
    data = conformance_dir("banking")
    document = results(data)
    assert len(document["tasks"]) == 97
    source = tmp_path / "results.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    output = import_file(source, tmp_path / "run", data)
    simulations = document["simulations"]
    searches = len(simulations)  # one knowledge-base search each
    calls = sum(len(m.get("tool_calls") or []) for s in simulations for m in s["messages"]) - searches
    assert (
        f"{len(simulations)} agree with the recorded reward, 0 disagree; {calls} of {calls} replayed tool "
        f"calls had the recorded outcome; {searches} retrieval calls kept their recorded answers"
    ) in output
    verdicts = {simulation["id"]: simulation["reward_info"]["reward"] for simulation in simulations}
    assert {identifier: record.reward for identifier, record in records(tmp_path / "run").items()} == verdicts
    variants = {identifier.split("-task_")[0] for identifier, reward in verdicts.items() if reward == 0.0}
    assert variants == {"cut", "wrong-argument", "unmet"}


def test_an_imported_banking_run_records_what_was_run(tmp_path: Path) -> None:
    """The run records τ²-bench's retrieval configuration, the recall of the documents the agent found,
    what each simulation changed (the hidden tools' call logs included) and why a failing one failed."""
    out = tmp_path / "run"
    import_file(FIXTURE, out, conformance_dir("banking"))
    run = load_run(out)
    assert run.manifest.episode.retrieval == RetrievalConfig(name="bm25", top_k=3)
    document = json.loads(FIXTURE.read_text(encoding="utf-8"))
    assert run.manifest.hashes["policy"] == sha256_text(document["info"]["environment_info"]["policy"])
    by_id = records(out)
    for identifier, record in by_id.items():
        assert record.retrieval is not None and record.retrieval.configuration == "bm25(top_k=3)"
        assert len(record.retrieval.retrieved) == 3, identifier
        failures = gating_failures(record)
        variant = identifier.split("-task_")[0]
        if variant == "gold":
            assert record.reward == 1.0 and not failures
        elif variant == "unmet":
            assert failures == {RewardType.NL_ASSERTION}
        else:
            assert failures in ({RewardType.DB}, {RewardType.ACTION}), identifier
    logged = {change.path.split(".")[0] for change in by_id["gold-task_031"].state_changes}
    assert {"agent_discoverable_tools", "user_discoverable_tools", "user_discoverable_tool_calls"} <= logged
    exported = tmp_path / "again.json"
    cli("export", "tau2bench", str(out), "-o", str(exported))
    again = json.loads(exported.read_text(encoding="utf-8"))
    assert again["info"]["retrieval_config"] == "bm25"
    assert again["info"]["retrieval_config_kwargs"] == {"top_k": 3}
    assert again["info"]["environment_info"]["policy"] == document["info"]["environment_info"]["policy"]
    policies = {simulation["id"]: simulation["policy"] for simulation in document["simulations"]}
    ids = {(s["task_id"], s["trial"]): s["id"] for s in document["simulations"]}
    assert {ids[s["task_id"], s["trial"]]: s["policy"] for s in again["simulations"]} == policies


@pytest.mark.parametrize(
    ("configuration", "options", "expected"),
    [
        (None, None, RetrievalConfig(name="alltools", embedder=OPENAI)),
        ("AllTools", None, RetrievalConfig(name="alltools", embedder=OPENAI)),
        ("openai_embeddings", {"top_k": 5}, OPENAI_TOP_5),
        ("golden_retrieval", {}, RetrievalConfig(name="golden_retrieval")),
    ],
)  # fmt: skip
def test_a_configuration_that_needs_a_service_imports_offline(
    configuration: str | None, options: dict[str, Any] | None, expected: RetrievalConfig, tmp_path: Path
) -> None:
    """Searches are never replayed, so a dense configuration (τ²-bench's default when the file names
    none) imports without its embeddings service and is recorded with the embeddings τ²-bench used."""
    document = json.loads(FIXTURE.read_text(encoding="utf-8"))
    document["info"]["retrieval_config"] = configuration
    document["info"]["retrieval_config_kwargs"] = options
    document["simulations"] = document["simulations"][:2]
    source = tmp_path / "results.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    output = import_file(source, tmp_path / "run", conformance_dir("banking"))
    assert "2 agree with the recorded reward, 0 disagree" in output
    assert load_run(tmp_path / "run").manifest.episode.retrieval == expected


@pytest.mark.parametrize(
    ("configuration", "options", "problem"),
    [
        ("bm25_reranker", None, "retrieval_config: 'bm25_reranker' is not a retrieval configuration"),
        ("bm25", {"top_k": 0}, "retrieval_config_kwargs: top_k: Input should be greater than or equal to 1"),
        ("qwen_embeddings", {"embedder_model": 7}, "retrieval_config_kwargs: embedder_model: Input"),
        ("bm25", "five", "retrieval_config_kwargs: Input should be a valid dictionary"),
        ("bm25", {"top_k": True}, "retrieval_config_kwargs: top_k: Input should be a valid integer"),
    ],
)  # fmt: skip
def test_a_configuration_tau2_cannot_record_is_refused_in_one_line(
    configuration: str, options: Any, problem: str, tmp_path: Path
) -> None:
    document = json.loads(FIXTURE.read_text(encoding="utf-8"))
    document["info"]["retrieval_config"] = configuration
    document["info"]["retrieval_config_kwargs"] = options
    source = tmp_path / "results.json"
    source.write_text(json.dumps(document), encoding="utf-8")
    result = runner.invoke(app, ["import", "tau2bench", str(source), "--out", str(tmp_path / "run")])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [result.stderr.strip()]
    assert f"{source}: info.{problem}" in result.stderr
    assert not (tmp_path / "run").exists()


def test_our_oracle_round_trips_with_every_verdict_and_its_instructions(tmp_path: Path) -> None:
    """Our oracle on all 97 tasks and τ²-bench's data under golden retrieval (each task's own documents in
    its instructions) → a results file with the configuration and each simulation's instructions →
    imported again: every verdict agrees, and a second export writes the same instructions."""
    data = conformance_dir("banking")
    cli(
        "run", "--suite", str(data / "tasks"), "--data-dir", str(data), "--domain", DOMAIN,
        "--retrieval", "golden_retrieval", "--agent", "oracle",
        "--user", "scripted", "-q", "--out", str(tmp_path / "ours"),
    )  # fmt: skip
    cli("export", "tau2bench", str(tmp_path / "ours"), "-o", str(tmp_path / "results.json"))
    document = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    Results.model_validate(document)
    assert document["info"]["retrieval_config"] == "golden_retrieval"
    documents = {
        p.stem: json.loads(p.read_text(encoding="utf-8")) for p in (data / "documents").glob("*.json")
    }
    tasks = {task["id"]: task for task in document["tasks"]}
    for simulation in document["simulations"]:
        wanted = tasks[simulation["task_id"]]["required_documents"]
        assert all(documents[name]["content"] in simulation["policy"] for name in wanted)
    output = import_file(tmp_path / "results.json", tmp_path / "back", data)
    assert "97 agree with the recorded reward, 0 disagree" in output
    ours = {record.task_id: record.reward for record in load_run(tmp_path / "ours").records}
    assert {record.task_id: record.reward for record in load_run(tmp_path / "back").records} == ours
    assert set(ours.values()) == {0.0, 1.0}  # the reference of 005, 051 and 083 cannot be played as written
    cli("export", "tau2bench", str(tmp_path / "back"), "-o", str(tmp_path / "again.json"))
    again = json.loads((tmp_path / "again.json").read_text(encoding="utf-8"))
    assert [s["policy"] for s in again["simulations"]] == [s["policy"] for s in document["simulations"]]
    assert again["info"]["retrieval_config"] == "golden_retrieval"


CONFIGURATIONS = KNOWLEDGE.offered()


@given(
    name=st.sampled_from(sorted(CONFIGURATIONS)),
    top_k=st.integers(min_value=1, max_value=1000),
    model=st.sampled_from(["text-embedding-3-small", "qwen/qwen3-embedding-8b"]),
    api_base=st.sampled_from([None, "http://localhost:8000/v1"]),
)
def test_an_exported_configuration_reads_back_as_itself(
    name: str, top_k: int, model: str, api_base: str | None
) -> None:
    embedder = EmbedderConfig(model=model, api_base=api_base) if CONFIGURATIONS[name].embeddings else None
    config = RetrievalConfig(name=name, top_k=top_k, embedder=embedder)
    fields = _retrieval_fields(config)
    assert KNOWLEDGE.recorded_config(fields["retrieval_config"], fields["retrieval_config_kwargs"]) == config
