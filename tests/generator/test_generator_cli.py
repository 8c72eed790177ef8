"""`tau2 generate` end to end: summaries, determinism, the τ²-bench format with `tau2 verify`, bad options."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from generator_mock import SWITCHED_OFF, UNPLUGGED, mock_catalog, mock_domain
from typer.testing import CliRunner

from tau2.cli import app
from tau2.tasks import Subtask, load_suite, register_domain

runner = CliRunner()
STRATIFIED = [
    "generate",
    "--domain",
    "telecom",
    "--personas",
    "none,easy,hard",
    "--persona-assignment",
    "cross",
    "--min-subtasks",
    "2",
    "--sample-per-bin",
    "3",
    "--seed",
    "7",
]


def test_a_stratified_suite_is_verified_and_identical_on_every_run(tmp_path: Path) -> None:
    first, second = tmp_path / "a" / "suite.json", tmp_path / "b" / "suite.json"
    for path in (first, second):
        path.parent.mkdir()
        result = runner.invoke(app, [*STRATIFIED, "-o", str(path)])
        assert result.exit_code == 0, result.output
    assert first.read_bytes() == second.read_bytes()
    suite = load_suite(first)
    assert suite.seed == 7 and suite.catalog_version == "telecom-1"
    assert suite.generator["persona_assignment"] == "cross" and suite.generator["data_dir"] is None
    bins: dict[tuple[str | None, int, str | None], int] = {}
    for task in suite.tasks:
        key = (task.intent, task.num_subtasks, task.persona)
        bins[key] = bins.get(key, 0) + 1
    assert min(task.num_subtasks for task in suite.tasks) == 2
    assert set(bins.values()) <= {1, 2, 3} and max(bins.values()) == 3
    assert {persona for _, _, persona in bins} == {"None", "Easy", "Hard"}
    assert f"{len(suite.tasks)} tasks verified" in result.output and "lint: 0 findings" in result.output


def test_a_tau2_bench_export_passes_tau2_verify(tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    arguments = [
        "generate",
        "--persona-assignment",
        "rotate",
        "--max-subtasks",
        "2",
        "--format",
        "tau2-bench",
    ]
    result = runner.invoke(app, [*arguments, "--intents", "service_issue", "-o", str(path)])
    assert result.exit_code == 0, result.output
    records = json.loads(path.read_text(encoding="utf-8"))
    assert len(records) == 6 + 14 and records[0]["id"] == "[service_issue]airplane_mode_on[PERSONA:None]"
    verified = runner.invoke(app, ["verify", str(path)])
    assert verified.exit_code == 0, verified.output
    assert verified.output.strip().endswith("20 tasks: 20 valid, 0 invalid")


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--intents", "billing_issue"], "error: unknown intent 'billing_issue'"),
        (["--min-subtasks", "3", "--max-subtasks", "2"], "error: max_subtasks 2 is below min_subtasks 3"),
        (["--exclude", "no_such_fault"], "error: --exclude: unknown subtask 'no_such_fault'"),
        (
            ["--include-optional", "bad_vpn"],
            "error: --include-optional: 'bad_vpn' is not an optional subtask",
        ),
        (["--personas", "pirate"], "error: 'pirate': unknown persona"),
        (["--personas", "none,none"], "error: personas: a name is given twice"),
        (["--sample-per-bin", "0"], "error: --sample-per-bin: Input should be greater than or equal to 1"),
        (["--domain", "atlantis"], "error: unknown domain 'atlantis'"),
        (["--order", "random"], "error: Invalid value for '--order'"),
    ],
)
def test_bad_options_are_one_line_errors_with_exit_code_2(
    arguments: list[str], message: str, tmp_path: Path
) -> None:
    output = tmp_path / "out.json"
    result = runner.invoke(app, ["generate", *arguments, "-o", str(output)])
    assert result.exit_code == 2
    assert result.output.startswith(message) and result.output.count("\n") == 1
    assert not output.exists()


def test_rejected_tasks_are_reported_and_not_written(tmp_path: Path) -> None:
    broken = Subtask.model_validate(
        {**SWITCHED_OFF.model_dump(), "solution": [{"side": "user", "name": "plug_in"}]}
    )
    domain = dataclasses.replace(mock_domain(mock_catalog(subtasks=(UNPLUGGED, broken))), name="mock_rejects")
    register_domain(domain)
    path = tmp_path / "suite.json"
    result = runner.invoke(
        app, ["generate", "--domain", "mock_rejects", "--personas", "none", "-o", str(path)]
    )
    assert result.exit_code == 1
    assert "2 tasks rejected:" in result.output
    assert (
        "2 x V5: the solution does not satisfy the intent (e.g. [dark_lamp]switched_off[PERSONA:None])"
        in result.output
    )
    assert load_suite(path).tasks == []
