"""`tau2 report` on fixture runs: terminal numbers, the JSON schema, and the self-contained HTML page."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fixtures.make_runs import RUNS_DIR, manifest, record
from typer.testing import CliRunner

from tau2.cli import app
from tau2.episode._config import Mode
from tau2.metrics import Bootstrap
from tau2.report import SCHEMA_VERSION, RunReport, build_report
from tau2.runs._rundir import RESULTS_FILE, load_run

runner = CliRunner()
WIDE = {"COLUMNS": "200"}
INTERACTIVE = str(RUNS_DIR / "interactive")


def report_json(*arguments: str) -> dict[str, Any]:
    """Run `tau2 report --json` and parse its output."""
    result = runner.invoke(app, ["report", *arguments, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_terminal_report_shows_pass_hat_k_breakdowns_costs_and_terminations() -> None:
    result = runner.invoke(app, ["report", INTERACTIVE], env=WIDE)
    assert result.exit_code == 0, result.output
    out = result.stdout
    sections = ["Run configuration", "run-interactive", "llm:gpt-4o-mini", "By intent", "By subtasks"]
    assert all(section in out for section in sections)
    for value in ["0.625", "0.542", "0.500", "0.333", "[0.25, 1.00]"]:
        assert value in out
    assert re.search(r"│ 4 │\s+0\.333 │ .* │\s+3 │", out), "pass^4 is estimated over 3 tasks"
    assert "0.250 (1 of 4 tasks with 2+ trials)" in out
    assert "toggle_airplane_mode" in out and "9 (0.600)" in out
    assert "unpriced (16/16)" in out and "$0.0160" in out
    assert "infrastructure_error (excluded)" in out
    assert "16 of 16 planned" in out


def test_json_report_follows_the_documented_schema() -> None:
    data = report_json(INTERACTIVE)
    assert (data["schema_version"], data["kind"]) == (SCHEMA_VERSION, "run")
    assert list(data["pass_hat_k"]) == ["1", "2", "3", "4"]
    assert set(data["pass_hat_k"]["1"]) == {"value", "ci_low", "ci_high", "tasks"}
    assert data["pass_hat_k"]["2"]["value"] == pytest.approx(13 / 24)
    assert (data["pass_hat_k"]["4"]["value"], data["pass_hat_k"]["4"]["tasks"]) == (pytest.approx(1 / 3), 3)
    assert data["totals"]["excluded"] == 1
    assert data["flips"] == {"tasks": 4, "flipping": 1, "rate": 0.25}
    assert set(data["breakdowns"]) == {"intent", "subtasks", "persona", "mode"}
    assert [u["cost"] for u in data["usage"]] == [pytest.approx(0.016), None]
    assert data["actions"][1]["performed_rate"] == pytest.approx(0.6)
    assert data["tasks"][1]["flip_rate"] == pytest.approx(4 / 6)
    assert len(data["simulations"]) == 16
    assert data["manifest"]["run_id"] == "run-interactive"
    RunReport.model_validate(data)


def test_json_report_is_deterministic_and_the_bootstrap_configurable() -> None:
    assert report_json(INTERACTIVE) == report_json(INTERACTIVE)
    other = report_json(INTERACTIVE, "--bootstrap-samples", "50", "--bootstrap-seed", "9")
    assert other["bootstrap"] == {"samples": 50, "seed": 9, "level": 0.95}


def test_html_report_is_self_contained_with_plots(tmp_path: Path) -> None:
    page_path = tmp_path / "report.html"
    result = runner.invoke(app, ["report", INTERACTIVE, "--html", str(page_path)])
    assert result.exit_code == 0, result.output
    page = page_path.read_text(encoding="utf-8")
    for forbidden in ["http", "src=", "href=", "<script", "<link", "@import", "url("]:
        assert forbidden not in page
    assert page.count("<svg") == 7
    plots = ["pass^k vs k", "pass^1 by intent", "pass^1 by subtasks", "pass^1 by persona", "Cost per seat"]
    assert all(plot in page for plot in plots)
    assert "Reference actions performed" in page
    assert page.count("<tr>") > 16, "every simulation has a row"
    assert "[mms]apn_mms_missing[PERSONA:None]" in page
    assert "unpriced (16/16)" in page


def test_html_escapes_every_text(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    task = '<img onerror="x">&[i]a'
    manifest("<script>alert(1)</script>", Mode.INTERACTIVE, [task], 1, "suite<&>.json").save(run_dir)
    (run_dir / RESULTS_FILE).write_text(record(task, 0, Mode.INTERACTIVE, True).model_dump_json() + "\n")
    page_path = tmp_path / "page.html"
    assert runner.invoke(app, ["report", str(run_dir), "--html", str(page_path)]).exit_code == 0
    page = page_path.read_text(encoding="utf-8")
    assert "<script" not in page and "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img onerror=&quot;x&quot;&gt;&amp;[i]a" in page


def test_report_of_a_run_with_no_records_yet() -> None:
    run = load_run(RUNS_DIR / "disjoint").model_copy(update={"records": []})
    report = build_report(run, Bootstrap(samples=10))
    assert report.pass_hat_k["1"].value is None
    assert report.totals.simulations == 0
    assert report.flips.rate is None


def test_report_errors_are_one_line_with_exit_code_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["report", str(tmp_path / "absent")])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"error: {tmp_path / 'absent'}: not a run directory"
    result = runner.invoke(app, ["report", INTERACTIVE, "--html", str(tmp_path / "no" / "page.html")])
    assert result.exit_code == 2
    assert result.stderr.strip().startswith(f"error: {tmp_path / 'no' / 'page.html'}: cannot write")
