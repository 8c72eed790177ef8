"""The offline quickstart on our own airline and retail data, end to end through the CLI: oracle and
scripted user pass every task, the report shows the evaluation kinds apart, solo mode is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tau2 import get_domain
from tau2.cli import app


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_oracle_quickstart_passes_and_reports_kinds(domain: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    runner = CliRunner()
    outcome = runner.invoke(
        app, ["run", "--domain", domain, "--agent", "oracle", "--user", "scripted", "--out", str(out), "-q"]
    )
    assert outcome.exit_code == 0, outcome.output
    assert "pass^1: 1.000" in outcome.output
    report = json.loads(runner.invoke(app, ["report", str(out), "--json"]).output)
    assert report["manifest"]["reward_basis_source"] == "implied"
    kinds = {(row["kind"], row["gating"]): row for row in report["checks"]}
    assert kinds["DB", True]["passed"] == kinds["DB", True]["checks"] == 5
    assert kinds["ACTION", False]["failed"] == 0
    assert "Evaluation kinds" in runner.invoke(app, ["report", str(out)]).output
    view = runner.invoke(app, ["view", str(out)]).output
    assert "Evaluation checks" in view and "gating" in view and "diagnostic" in view


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_our_tasks_verify(domain: str) -> None:
    outcome = CliRunner().invoke(app, ["verify", str(get_domain(domain).default_suite)])
    assert outcome.exit_code == 0, outcome.output
    assert "5 tasks: 5 valid, 0 invalid" in outcome.output.splitlines()


def test_solo_mode_is_refused_for_tasks_without_a_ticket(tmp_path: Path) -> None:
    outcome = CliRunner().invoke(
        app,
        ["run", "--domain", "retail", "--mode", "solo", "--agent", "oracle", "--out", str(tmp_path / "r")],
    )
    assert outcome.exit_code == 2
    (line,) = outcome.output.strip().splitlines()
    assert "solo mode needs a ticket" in line and "run these tasks in interactive mode" in line
    assert not (tmp_path / "r").exists()
