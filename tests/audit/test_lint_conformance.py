"""`tau2 lint` on τ²-bench's public task files: the bars of the audit issue and the counts that
docs/task-quality.md publishes."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tau2.cli import app
from tau2.episode._verify_basis import NOTHING_PASSES

from .conftest import flagged, lint_json

Folder = Callable[[str], Path]


def test_retail_reference_action_fails_exactly_where_the_reference_raises(conformance: Folder) -> None:
    data = conformance("retail")
    replay = json.loads((data / "gold_replay.json").read_text(encoding="utf-8"))
    raising = {task["task_id"] for task in replay["tasks"] if any(call["error"] for call in task["calls"])}
    document = lint_json(data / "tasks.json", "--data-dir", data, exit_code=1)
    assert flagged(document, "reference_action_fails") == raising
    assert len(raising) == 18


def test_retail_v1_has_fifteen_tasks_whose_reference_fails(conformance: Folder) -> None:
    data = conformance("retail")
    document = lint_json(data / "tasks_v1.json", "--data-dir", data, exit_code=1)
    assert len(flagged(document, "reference_action_fails")) == 15


@pytest.mark.parametrize("file", ["tasks.json", "tasks_v1.json"])
def test_airline_do_nothing_passes_where_verify_notes_it(conformance: Folder, file: str) -> None:
    data = conformance("airline")
    verified = CliRunner().invoke(app, ["verify", str(data / file), "--data-dir", str(data)])
    assert verified.exit_code == 0, verified.output
    noted = {
        line.split(":")[0]
        for line in verified.output.splitlines()
        if line.endswith(f"note: {NOTHING_PASSES}")
    }
    document = lint_json(data / file, "--data-dir", data, exit_code=0)
    assert flagged(document, "do_nothing_passes") == noted
    assert len(noted) == {"tasks.json": 19, "tasks_v1.json": 23}[file]


def test_banking_refused_and_unplayable_reference_actions(conformance: Folder) -> None:
    data = conformance("banking")
    document = lint_json(data / "tasks", "--data-dir", data, "--domain", "banking_knowledge", exit_code=1)
    assert flagged(document, "reference_action_fails") == {"task_051", "task_083"}
    assert flagged(document, "reference_after_transfer") == {"task_005"}
    assert not flagged(document, "policy_names_foreign_tool"), "hidden tools are the seats' own"


def test_tau2_bench_telecom_texts_name_a_tool_no_seat_holds(conformance: Folder) -> None:
    data = conformance("telecom")
    document = lint_json(data / "tasks_small.json", "--data-dir", data, exit_code=0)
    tasks = json.loads((data / "tasks_small.json").read_text(encoding="utf-8"))
    assert flagged(document, "policy_names_foreign_tool") == {task["id"] for task in tasks}
    with_age = {
        task["id"]
        for task in tasks
        if re.search(r"\d+[ -]years?[ -]old", task["user_scenario"]["persona"] or "")
    }
    assert flagged(document, "persona_contradicts_data") == with_age and with_age
    assert not flagged(document, "ticket_missing_fact") and not flagged(document, "scenario_missing_fact")


def test_the_two_airline_versions_differ_in_twenty_nine_tasks(conformance: Folder) -> None:
    data = conformance("airline")
    document = lint_json(data / "tasks.json", data / "tasks_v1.json", "--data-dir", data)
    duplicates = [f for f in document["findings"] if f["check"] == "duplicate_task"]
    assert len(duplicates) == 29
    assert {f["file"] for f in duplicates} == {str(data / "tasks_v1.json")}
