"""Shared helpers of the audit tests: τ²-bench's public data beside the repository (a skip with a reason
without it, a failure on CI), `tau2 lint --json` run through the command line, and a run's records made
as old runs wrote them (without recorded findings)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import SHARED_CONFORMANCE
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.mock.tasks import BOTH, ENABLE_POWER, PLUG_IN
from tau2.runs import RESULTS_FILE
from tau2.tasks import Task


@pytest.fixture
def conformance() -> Callable[[str], Path]:
    """The conformance folder of a domain (`tau2-<name>`)."""

    def folder(name: str) -> Path:
        path = SHARED_CONFORMANCE / f"tau2-{name}"
        if not path.is_dir():
            if os.environ.get("CI") == "true":
                pytest.fail(f"conformance data missing: {path}")
            pytest.skip(f"conformance data not present at {path}")
        return path

    return folder


def lint_json(*arguments: str | Path, exit_code: int | None = None) -> dict[str, Any]:
    """`tau2 lint --json ARGUMENTS` parsed; its exit code checked when given."""
    result = CliRunner().invoke(app, ["lint", *map(str, arguments), "--json"])
    assert exit_code is None or result.exit_code == exit_code, result.output
    assert result.exit_code in (0, 1), result.output
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def flagged(document: dict[str, Any], check: str) -> set[str]:
    """The ids of the tasks a check fired on."""
    return {finding["task_id"] for finding in document["findings"] if finding["check"] == check}


def broken_task() -> Task:
    """A mock task (id `broken`) whose first reference action fails: it names a customer with no account."""
    wrong = ENABLE_POWER.model_copy(update={"arguments": {"customer": "Bob"}})
    solution = [wrong, PLUG_IN]
    return BOTH.model_copy(
        update={"id": "broken", "evaluation": BOTH.evaluation.model_copy(update={"solution": solution})}
    )


def strip_findings(run_dir: Path) -> int:
    """Remove the recorded findings (`user_findings`, `task_defects`) from every record of the run, as runs
    made before they were recorded wrote them; returns how many records carried any."""
    results = run_dir / RESULTS_FILE
    lines, carried = [], 0
    for line in results.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        recorded = [record.pop("user_findings", None), record.pop("task_defects", None)]
        carried += recorded != [None, None]
        lines.append(json.dumps(record, ensure_ascii=False))
    results.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return carried
