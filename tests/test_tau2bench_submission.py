"""Leaderboard submissions state what was run: a standard one only from runs that each covered one of
τ²-bench's official task sets whole (recognised by content), anything else only with `--custom`, marked
custom, with the task set's hash in the methodology notes."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from tau.conformance import conformance_dir
from typer.testing import CliRunner

from tau2.cli import app
from tau2.runs import load_run
from tau2.tau2bench import load_split, load_task_file
from tau2.tau2bench_results._tasksets import OFFICIAL_TASK_SETS, official_task_set, task_set_hash

runner = CliRunner()


def cli(*arguments: str) -> str:
    result = runner.invoke(app, list(arguments))
    assert result.exit_code == 0, result.output
    return result.stdout


def test_official_banking_task_folder_is_recognised_by_content() -> None:
    """τ²-bench reads the banking task folder; the aggregate `tasks.json` beside it is stale (13 tasks
    differ), another task set."""
    data = conformance_dir("banking")
    tasks = load_task_file(data / "tasks", "banking_knowledge")
    official = official_task_set("banking_knowledge", tasks)
    assert official is not None and official.domain == "banking_knowledge"
    assert (
        official_task_set("banking_knowledge", load_task_file(data / "tasks.json", "banking_knowledge"))
        is None
    )
    assert official_task_set("banking_knowledge", tasks[1:]) is None


@pytest.mark.parametrize(
    ("domain", "file"),
    [
        ("airline", "tasks.json"),
        ("airline", "tasks_v1.json"),
        ("retail", "tasks.json"),
        ("retail", "tasks_v1.json"),
    ],
)
def test_official_task_files_are_recognised_by_content(domain: str, file: str) -> None:
    tasks = load_task_file(conformance_dir(domain) / file)
    official = official_task_set(domain, tasks)
    assert official is not None and official.domain == domain
    assert official_task_set(domain, list(reversed(tasks))) == official  # order is not content
    assert official_task_set(domain, tasks[1:]) is None  # a part is not the whole
    assert official_task_set("telecom", tasks) is None  # nor another domain's set
    edited = tasks[0].model_copy(update={"ticket": "A ticket the benchmark never had."})
    assert official_task_set(domain, [edited, *tasks[1:]]) is None


TAU2BENCH_PYTHON = os.environ.get("TAU2BENCH_PYTHON")


@pytest.mark.skipif(TAU2BENCH_PYTHON is None, reason="TAU2BENCH_PYTHON (a Python with τ²-bench) is not set")
def test_telecom_base_split_is_recognised(tmp_path: Path) -> None:
    """τ²-bench's own telecom task file (shipped with its package) and its `base` split."""
    assert TAU2BENCH_PYTHON is not None
    where = "import pathlib, tau2; print(pathlib.Path(tau2.__file__).parent / 'data/tau2/domains/telecom')"
    found = subprocess.run(
        [TAU2BENCH_PYTHON, "-c", where], capture_output=True, text=True, cwd=tmp_path, timeout=300, check=True
    )
    task_file = Path(found.stdout.strip().splitlines()[-1]) / "tasks.json"
    base = set(load_split(task_file, "base"))
    tasks = [task for task in load_task_file(task_file) if task.id in base]
    assert official_task_set("telecom", tasks) == OFFICIAL_TASK_SETS[task_set_hash(tasks)]


def test_a_submission_of_another_task_set_is_refused_unless_custom(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    cli(
        "run",
        "--domain",
        "mock",
        "--agent",
        "oracle",
        "--user",
        "scripted",
        "--oracle-plan",
        "-q",
        "--out",
        str(run_dir),
    )
    export = ["export", "tau2bench", str(run_dir), "-o", str(tmp_path / "results.json")]
    leaderboard = ["--submission", str(tmp_path / "submission.json"), "--organization", "Acme"]
    refused = runner.invoke(app, [*export, *leaderboard])
    assert refused.exit_code == 2
    assert (
        "not a standard τ²-bench submission: its tasks are not an official τ²-bench task set"
        in refused.stderr
    )
    assert "--custom" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "results.json").exists() and not (tmp_path / "submission.json").exists()
    cli(*export, *leaderboard, "--custom")
    submission = json.loads((tmp_path / "submission.json").read_text(encoding="utf-8"))
    assert submission["submission_type"] == "custom"
    run = load_run(run_dir)
    tasks = load_task_file(Path(run.manifest.suite_path))
    notes = submission["methodology"]["notes"]
    assert f"mock: custom task set {task_set_hash(tasks)} ({len(tasks)} tasks)" in notes
    assert "the agent was shown the reference solution (--oracle-plan)" in notes


@pytest.mark.parametrize(
    ("data_name", "suite", "options", "part", "note"),
    [
        (
            "airline",
            "tasks.json",
            [],
            "0,1",
            "airline: τ²-bench airline tasks.json, 2025-06 release (50 tasks)",
        ),
        (
            "banking",
            "tasks",
            ["--domain", "banking_knowledge"],
            "task_001",
            "banking_knowledge: τ²-bench banking_knowledge tasks/ folder, v1.0.1 (97 tasks), retrieval "
            "configuration bm25",
        ),
    ],
)
def test_a_whole_official_task_set_makes_a_standard_submission(
    data_name: str, suite: str, options: list[str], part: str, note: str, tmp_path: Path
) -> None:
    """The whole set is standard (a knowledge domain's notes name its retrieval configuration); a part is
    refused, and submitted only as custom."""
    data = conformance_dir(data_name)
    offline = [*options, "--agent", "null", "--user", "scripted", "-q"]
    cli(
        "run",
        "--suite",
        str(data / suite),
        "--data-dir",
        str(data),
        *offline,
        "--out",
        str(tmp_path / "all"),
    )
    cli(
        "export", "tau2bench", str(tmp_path / "all"), "-o", str(tmp_path / "results.json"),
        "--submission", str(tmp_path / "submission.json"), "--organization", "Acme",
    )  # fmt: skip
    submission = json.loads((tmp_path / "submission.json").read_text(encoding="utf-8"))
    assert submission["submission_type"] == "standard"
    assert note in submission["methodology"]["notes"]
    cli(
        "run",
        "--suite",
        str(data / suite),
        "--data-dir",
        str(data),
        *offline,
        "--task-ids",
        part,
        "--out",
        str(tmp_path / "part"),
    )
    export_part = [
        "export",
        "tau2bench",
        str(tmp_path / "part"),
        "--submission",
        "-",
        "--organization",
        "Acme",
    ]
    refused = runner.invoke(app, [*export_part, "-o", str(tmp_path / "part.json")])
    assert refused.exit_code == 2 and "not an official τ²-bench task set" in refused.stderr
    custom = cli(*export_part, "-o", str(tmp_path / "custom.json"), "--custom")
    assert json.loads(custom)["submission_type"] == "custom"
