"""The banking domain through the command line on a fresh clone's own data: runs with the oracle and the
scripted customer, the retrieval configuration recorded in the manifest, kept on resume and shown in the
report, `tau2 episode`, and task folders wherever a task file is accepted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.banking_knowledge import DEFAULT_TASKS

ORACLE = ["--domain", "banking_knowledge", "--agent", "oracle", "--user", "scripted", "-q"]


def _run(*arguments: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["run", *arguments])
    return result.exit_code, result.output


def _manifest(out: Path) -> dict[str, object]:
    manifest: dict[str, object] = json.loads((out / "manifest.json").read_text())
    return manifest


def test_a_fresh_clone_runs_the_domain_offline_under_the_default_retrieval(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, output = _run(*ORACLE, "--out", str(out))
    assert code == 0, output
    assert "pass^1: 1.000" in output
    config = _manifest(out)["config"]
    assert isinstance(config, dict)
    assert config["retrieval"] == {"name": "bm25", "top_k": 10, "embedder": None}
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert {record["retrieval"]["configuration"] for record in records} == {"bm25"}
    report = CliRunner().invoke(app, ["report", str(out)], env={"COLUMNS": "200", "LINES": "40"})
    assert "· retrieval bm25 ·" in report.output and "recall@10 0.000" in report.output


def test_the_configuration_is_kept_on_resume_and_a_different_one_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert (
        _run(*ORACLE, "--out", str(out), "--retrieval", "golden_retrieval", "--task-ids", "task_001")[0] == 0
    )
    code, output = _run(*ORACLE, "--out", str(out), "--resume", "--trials", "2")
    assert code == 0, output
    config = _manifest(out)["config"]
    assert isinstance(config, dict) and config["retrieval"]["name"] == "golden_retrieval"
    code, output = _run(*ORACLE, "--out", str(out), "--resume", "--retrieval", "bm25")
    assert code == 2
    assert "episode.retrieval.name (golden_retrieval → bm25)" in output


def test_a_configuration_file_sets_the_retrieval_and_print_config_shows_it(tmp_path: Path) -> None:
    path = tmp_path / "run.toml"
    path.write_text(
        'domain = "banking_knowledge"\nagent = "oracle"\nuser = "scripted"\ntask_ids = ["task_001"]\n'
        '[retrieval]\nname = "golden_retrieval"\ntop_k = 3\n'
    )
    out = tmp_path / "run"
    code, output = _run("--config", str(path), "--out", str(out), "-q")
    assert code == 0, output
    config = _manifest(out)["config"]
    assert isinstance(config, dict)
    assert config["retrieval"] == {"name": "golden_retrieval", "top_k": 3, "embedder": None}
    code, printed = _run("--resume", "--out", str(out), "--retrieval-top-k", "5", "--print-config")
    assert code == 0 and '[retrieval]\nname = "golden_retrieval"\ntop_k = 5\n' in printed
    code, output = _run("--resume", "--out", str(out), "--retrieval-top-k", "5")
    assert code == 2 and "episode.retrieval.top_k (3 → 5)" in output


def test_the_report_breaks_tasks_down_by_what_was_retrieved(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert _run(*ORACLE, "--out", str(out), "--retrieval", "golden_retrieval")[0] == 0
    data = json.loads(CliRunner().invoke(app, ["report", str(out), "--json"]).output)
    assert data["retrieval"] == {
        "configuration": "golden_retrieval",
        "k": 10,
        "recall": 1.0,
        "simulations": 7,
    }
    assert [group["key"] for group in data["breakdowns"]["retrieval"]] == ["every required document seen"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--retrieval", "bm26"], "--retrieval bm26: not a retrieval configuration"),
        (["--retrieval", "alltools"], "--retrieval alltools: searches by embeddings; give --embedding-model"),
        (["--retrieval-top-k", "0"], "--retrieval-top-k"),
    ],
)
def test_a_bad_retrieval_option_is_one_line(tmp_path: Path, arguments: list[str], message: str) -> None:
    code, output = _run(*ORACLE, "--out", str(tmp_path / "run"), *arguments)
    assert code == 2
    assert message in output
    assert "Traceback" not in output


def test_a_domain_without_knowledge_base_refuses_a_retrieval(tmp_path: Path) -> None:
    code, output = _run(
        "--domain",
        "mock",
        "--agent",
        "oracle",
        "--user",
        "scripted",
        "--out",
        str(tmp_path / "r"),
        "--retrieval",
        "bm25",
    )
    assert code == 2
    assert "error: --retrieval: domain 'mock' has no knowledge base" in output


def test_one_episode_with_a_handed_over_tool(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app,
        [
            "episode",
            "--domain",
            "banking_knowledge",
            "--task-id",
            "task_006",
            "--agent",
            "oracle",
            "--user",
            "scripted",
            "--retrieval",
            "grep_only",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    episode = json.loads(result.output)
    assert episode["reward"] == 1.0
    assert episode["config"]["retrieval"]["name"] == "grep_only"
    calls = [
        entry["tool_call"]["name"]
        for entry in episode["trajectory"]["entries"]
        if entry["kind"] == "tool_call"
    ]
    assert calls == ["log_verification", "give_discoverable_user_tool", "call_discoverable_user_tool"]


def test_verify_reads_a_task_folder() -> None:
    result = CliRunner().invoke(app, ["verify", str(DEFAULT_TASKS)])
    assert result.exit_code == 0, result.output
    assert "7 tasks: 7 valid, 0 invalid" in result.output


def test_a_bad_task_folder_is_one_line_naming_the_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(app, ["verify", str(empty)])
    assert result.exit_code == 2 and f"{empty}: no task files (task_*.json) in the folder" in result.output
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "task_001.json").write_text((DEFAULT_TASKS / "task_001.json").read_text())
    (broken / "task_002.json").write_text('{"id": "task_002"}')
    result = CliRunner().invoke(app, ["verify", str(broken)])
    assert result.exit_code == 2
    assert f"{broken / 'task_002.json'}: user_scenario: Field required" in result.output


def test_an_episode_reports_what_was_retrieved() -> None:
    result = CliRunner().invoke(
        app,
        [
            "episode",
            "--domain",
            "banking_knowledge",
            "--task-id",
            "task_001",
            "--agent",
            "oracle",
            "--user",
            "scripted",
        ],
        env={"COLUMNS": "200", "LINES": "40"},
    )
    assert result.exit_code == 0, result.output
    assert "retrieval bm25: 0 of 3 required documents seen (recall@10 0.000)" in result.output


def test_verify_takes_the_domain_of_text_instructions_from_the_data_directory(
    banking_data: Path, tmp_path: Path
) -> None:
    folder = tmp_path / "tasks"
    folder.mkdir()
    for name in ("task_001.json", "task_036.json"):  # τ²-bench's instructions are text naming no domain
        (folder / name).write_text((banking_data / "tasks" / name).read_text())
    result = CliRunner().invoke(app, ["verify", str(folder), "--data-dir", str(banking_data)])
    assert result.exit_code == 0, result.output
    assert "2 tasks: 2 valid, 0 invalid" in result.output
    alone = CliRunner().invoke(app, ["verify", str(folder)])
    assert alone.exit_code == 2
    assert "text instructions do not name a domain; give it explicitly (--domain)" in alone.output
