"""`tau2 report` on fixture runs: terminal numbers, the JSON schema, and the self-contained HTML page."""

from __future__ import annotations

import base64
import gc
import gzip
import json
import re
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from fixtures.make_runs import AIRPLANE, RUNS_DIR, manifest, many_trials_run, record
from typer.testing import CliRunner

from tau2 import runs as runs_module
from tau2.cli import app
from tau2.episode import Mode
from tau2.metrics import Bootstrap
from tau2.report import SCHEMA_VERSION, RunReport, build_report, plots, run_page
from tau2.report import build as report_build
from tau2.report.tables import headline_ks
from tau2.runs import RESULTS_FILE, RunManifest, load_run

runner = CliRunner()
SCREEN = {"COLUMNS": "120", "LINES": "40"}
INTERACTIVE = str(RUNS_DIR / "interactive")


def report_json(*arguments: str) -> dict[str, Any]:
    """Run `tau2 report --json` and parse its output."""
    result = runner.invoke(app, ["report", *arguments, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def test_terminal_report_headline_fits_a_120_by_40_screen() -> None:
    result = runner.invoke(app, ["report", INTERACTIVE], env=SCREEN)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) <= 40 and max(len(line) for line in lines) <= 120
    assert lines[0].startswith("run-interactive · telecom interactive · agent llm:gpt-4o-mini")
    assert lines[1].startswith("16/16 simulations · 9 passed · 6 failed · 1 excluded · flip rate 0.250")
    assert lines[1].endswith("26,400 tokens · cost unpriced"), "the user seat is unpriced"
    out = result.stdout
    for value in ["0.625", "0.542", "0.500", "0.333", "[0.22, 1.00]"]:
        assert value in out
    assert re.search(r" 4 +0\.333 +\[0\.00, 1\.00\] +3 ", out), "pass^4 is estimated over 3 tasks"
    assert "By intent" in out and "Terminations × outcome" in out
    assert re.search(r"user_stop +15 +9 +6", out)
    assert "Run configuration" not in out and "By fault" not in out, "the rest waits for --full"


def test_full_terminal_report_shows_every_table_one_line_per_row() -> None:
    result = runner.invoke(app, ["report", INTERACTIVE, "--full"], env=SCREEN)
    assert result.exit_code == 0, result.output
    out = result.stdout
    sections = ["Run configuration", "By fault", "By resolution", "By subtasks", "Reference actions", "Tasks"]
    assert all(section in out for section in sections)
    assert re.search(r"data_roaming_off +1 +4 +0\.500 \[0\.05, 0\.95\]", out), "a breakdown row is one line"
    assert "toggle_airplane_mode" in out and "9 (0.600)" in out
    assert re.search(r"agent +16 +48 +16,000 +1,600 +\$0\.0160 +\$0\.0010", out)
    assert re.search(r"user +16 +32 +8,000 +800 +unpriced +unpriced", out), "one word, in both columns"
    assert "infrastructure_error (excluded)" in out
    assert "16 of 16 planned" in out
    assert "[PERSONA:None]" not in out, "task ids are shown without the empty persona tail"


def test_offline_run_prints_no_empty_cost_table(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    RunManifest.model_validate(manifest("offline", Mode.SOLO, [AIRPLANE], 1, "suite.json")).save(run_dir)
    offline = record(AIRPLANE, 0, Mode.SOLO, True).model_copy(update={"usage": {}})
    (run_dir / RESULTS_FILE).write_text(offline.model_dump_json() + "\n")
    result = runner.invoke(app, ["report", str(run_dir), "--full"], env=SCREEN)
    assert result.exit_code == 0, result.output
    assert "Cost and tokens" not in result.stdout and "cost" not in result.stdout.splitlines()[1]


def test_json_report_follows_the_documented_schema() -> None:
    data = report_json(INTERACTIVE)
    assert (data["schema_version"], data["kind"]) == (SCHEMA_VERSION, "run")
    assert list(data["pass_hat_k"]) == ["1", "2", "3", "4"]
    assert set(data["pass_hat_k"]["1"]) == {"value", "ci_low", "ci_high", "tasks"}
    assert data["pass_hat_k"]["2"]["value"] == pytest.approx(13 / 24)
    assert (data["pass_hat_k"]["4"]["value"], data["pass_hat_k"]["4"]["tasks"]) == (pytest.approx(1 / 3), 3)
    assert data["totals"]["excluded"] == 1
    assert data["flips"] == {"tasks": 4, "flipping": 1, "rate": 0.25}
    assert set(data["breakdowns"]) == {"intent", "fault", "subtasks", "resolution", "persona", "mode"}
    assert data["termination_outcomes"] == {"user_stop": {"pass": 9, "fail": 6}}
    assert [u["cost"] for u in data["usage"]] == [pytest.approx(0.016), None]
    assert data["actions"][1]["performed_rate"] == pytest.approx(0.6)
    assert data["tasks"][1]["flip_rate"] == pytest.approx(4 / 6)
    assert len(data["simulations"]) == 16
    assert data["manifest"]["run_id"] == "run-interactive"
    RunReport.model_validate(data)


def test_pass_hat_k_stops_at_k_8_unless_more_is_asked_for(tmp_path: Path) -> None:
    run_dir = many_trials_run(tmp_path / "run", 12)
    default = report_json(run_dir)
    assert list(default["pass_hat_k"]) == [str(k) for k in range(1, 9)]
    assert list(default["breakdowns"]["intent"][0]["pass_hat_k"]) == [str(k) for k in range(1, 9)]
    more = report_json(run_dir, "--max-k", "10")
    assert list(more["pass_hat_k"]) == [str(k) for k in range(1, 11)]
    assert {k: more["pass_hat_k"][k] for k in default["pass_hat_k"]} == default["pass_hat_k"], "same seed"
    assert list(report_json(run_dir, "--max-k", "99")["pass_hat_k"]) == [str(k) for k in range(1, 13)]
    assert more["pass_hat_k"]["10"]["value"] == 0.0 and more["pass_hat_k"]["2"]["value"] == pytest.approx(
        (8 * 7) / (12 * 11)
    )
    result = runner.invoke(app, ["report", run_dir, "--max-k", "0"])
    assert result.exit_code == 2


def test_json_report_is_deterministic_and_the_bootstrap_configurable() -> None:
    assert report_json(INTERACTIVE) == report_json(INTERACTIVE)
    other = report_json(INTERACTIVE, "--bootstrap-samples", "50", "--bootstrap-seed", "9")
    assert other["bootstrap"] == {"samples": 50, "seed": 9, "level": 0.95}


def test_html_report_is_self_contained_with_plots_and_every_transcript(tmp_path: Path) -> None:
    page_path = tmp_path / "report.html"
    result = runner.invoke(app, ["report", INTERACTIVE, "--html", str(page_path)])
    assert result.exit_code == 0, result.output
    page = page_path.read_text(encoding="utf-8")
    for fetching in ['src="http', 'href="http', "<link", "@import", "url(http", "<iframe"]:
        assert fetching not in page
    rows = json.loads(re.search(r'id="tau2-rows">(.*?)</script>', page, re.DOTALL)[1])  # type: ignore[index]
    assert len(rows["rows"]) == 16 and rows["fields"][0] == "task"
    transcripts = decode_transcripts(page)
    assert len(transcripts) == 16
    failed = next(t for row, t in zip(rows["rows"], transcripts, strict=True) if row[5] == 0 and t["entries"])
    assert [
        "user",
        "result",
        "toggle_airplane_mode",
        "Error (invalid_state): The phone refused: the SIM is locked.",
        False,
    ] in failed["entries"]
    assert [a[4] for a in failed["assertions"]] == [False, False, True]
    assert failed["usage"]["user"][3] is None, "an unpriced seat stays unpriced"
    passed = next(t for row, t in zip(rows["rows"], transcripts, strict=True) if row[5] == 1)
    assert passed["changes"] == [["device.airplane_mode", "changed", True, False]]
    assert "<td>unpriced</td><td>unpriced</td>" in page.replace(' class="num"', "")
    assert 'data-outcome="fail">6 failed simulations' in page


@pytest.mark.skipif(not plots.available(), reason="matplotlib (the plots extra) is not installed")
def test_html_plots_come_from_matplotlib_and_name_what_they_show(tmp_path: Path) -> None:
    page_path = tmp_path / "report.html"
    assert runner.invoke(app, ["report", INTERACTIVE, "--html", str(page_path)]).exit_code == 0
    page = page_path.read_text(encoding="utf-8")
    titles = re.findall(r'<figure class="plot" aria-label="([^"]*)">', page)
    assert titles == [
        "pass^k with 95% intervals",
        "pass^1 by intent",
        "pass^1 by fault",
        "pass^1 by subtasks",
        "Terminations × outcome",
        "Reference actions performed, by seat",
        "Cost per simulation by seat (USD)",
    ], "single-group breakdowns (resolution, persona) are not drawn"
    assert page.count("<svg") == len(titles) and "<?xml" not in page
    assert "agent seat (CRM tools)" in page and "user seat (phone tools)" in page
    assert "$0.0010" in page and "0.156068" not in page


def test_html_report_without_matplotlib_says_how_to_get_plots(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(plots, "available", lambda: False)
    run = load_run(RUNS_DIR / "interactive")
    page = run_page(build_report(run, Bootstrap(samples=10)), run.records)
    hint = "Plots need matplotlib: pip install -e &#x27;.[plots]&#x27; (in the tau2 checkout)."
    assert hint in page and "<svg" not in page and 'id="tau2-rows"' in page


def decode_transcripts(page: str) -> list[dict[str, Any]]:
    """Every transcript of a page's viewer, decoded as the page's script does."""
    blocks = re.findall(r'<script type="application/gzip-base64" id="tau2-t-\d+">(.*?)</script>', page)
    return [t for block in blocks for t in json.loads(gzip.decompress(base64.b64decode(block)))]


def test_html_escapes_every_text(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    task = '<img onerror="x">&[i]a'
    RunManifest.model_validate(
        manifest("<script>alert(1)</script>", Mode.INTERACTIVE, [task], 1, "suite<&>.json")
    ).save(run_dir)
    (run_dir / RESULTS_FILE).write_text(record(task, 0, Mode.INTERACTIVE, True).model_dump_json() + "\n")
    page_path = tmp_path / "page.html"
    assert runner.invoke(app, ["report", str(run_dir), "--html", str(page_path)]).exit_code == 0
    page = page_path.read_text(encoding="utf-8")
    assert "<script>alert" not in page and "<img" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;img onerror=&quot;x&quot;&gt;&amp;[i]<wbr>a" in page, "a place to wrap after `]` added"


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
    expected = f"error: --html {tmp_path / 'no' / 'page.html'}: directory {tmp_path / 'no'} does not exist"
    assert result.stderr.strip() == expected


def test_html_headline_comes_before_configuration_and_one_trial_draws_no_curve(tmp_path: Path) -> None:
    page_path = tmp_path / "report.html"
    assert runner.invoke(app, ["report", str(RUNS_DIR / "disjoint"), "--html", str(page_path)]).exit_code == 0
    page = page_path.read_text(encoding="utf-8")
    assert (
        page.index('<div class="stat">') < page.index("Run configuration") < page.index("hash agent_prompt")
    )
    assert page.index('<div class="stat">') < page.index('id="simulations"')
    assert "pass^k with 95% intervals" not in page, "one trial: the headline says it, no lone dot"
    assert "no failed simulations" in page


def test_headline_shows_a_few_k_when_there_are_many_trials() -> None:
    ks = [str(k) for k in range(1, 13)]
    assert headline_ks(ks) == ["1", "2", "4", "8", "12"]
    assert headline_ks(ks[:5]) == ["1", "2", "3", "4", "5"]


@pytest.mark.parametrize("name", ["results.jsonl", "manifest.json"])
def test_html_never_overwrites_the_runs_own_files(tmp_path: Path, name: str) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(RUNS_DIR / "interactive", run_dir)
    before = (run_dir / name).read_bytes()
    result = runner.invoke(app, ["report", str(run_dir), "--html", str(run_dir / name)])
    assert result.exit_code == 2
    page = run_dir / name
    assert result.stderr == f"error: --html {page}: is a file this command reads; choose another path\n"
    assert (run_dir / name).read_bytes() == before


LONG = 60_000


def long_names_run(run_dir: Path, flip: bool = False) -> Path:
    """A run whose persona and one reference action are named with 60,000 characters each."""
    persona, action = "P" * LONG, "toggle_" + "a" * LONG
    task = AIRPLANE.replace("None", persona)
    records = []
    for trial in range(2):
        plain = record(task, trial, Mode.INTERACTIVE, (trial == 0) != flip)
        actions = [
            a.model_copy(update={"name": action}) if a.side.value == "user" else a for a in plain.actions
        ]
        records.append(plain.model_copy(update={"persona": persona, "actions": actions}))
    run_dir.mkdir()
    RunManifest.model_validate(
        manifest(f"run-{run_dir.name}", Mode.INTERACTIVE, [task], 2, "suite.json")
    ).save(run_dir)
    (run_dir / RESULTS_FILE).write_text("".join(r.model_dump_json() + "\n" for r in records))
    return run_dir


def test_html_tables_and_plots_show_long_names_shortened_and_tables_hold_them_whole(tmp_path: Path) -> None:
    a, b = long_names_run(tmp_path / "a"), long_names_run(tmp_path / "b", flip=True)
    for arguments in (["report", str(a)], ["compare", str(a), str(b)]):
        page_path = tmp_path / "page.html"
        assert runner.invoke(app, [*arguments, "--html", str(page_path)]).exit_code == 0
        page = page_path.read_text(encoding="utf-8")
        cells = re.findall(
            r'<details class="long"><summary>(.*?)</summary><div class="whole">(.*?)</div>', page
        )
        shown = {(whole[:10], len(whole)) for _, whole in cells}
        assert {("PPPPPPPPPP", LONG), ("toggle_aaa", LONG + 7)} <= shown, "the whole name on demand"
        for summary, _ in cells:
            assert len(summary) < 300 and "…" in summary and "characters)" in summary
        svg = "".join(re.findall(r"<svg.*?</svg>", page, flags=re.DOTALL))
        assert ("P" * 48) not in svg and ("a" * 48) not in svg, "plots draw the names shortened"
        if arguments[0] == "report":
            assert '"long":200' in page, "the simulations table shortens names by the same rule"


@pytest.mark.parametrize(
    ("command", "reader", "name"),
    [
        (["report", INTERACTIVE], report_build, "fold_run"),
        (["compare", INTERACTIVE, str(RUNS_DIR / "solo")], runs_module, "load_run"),
    ],
)
def test_reading_and_reducing_runs_pauses_the_garbage_collector(
    command: list[str], reader: ModuleType, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    collecting: list[bool] = []
    read = getattr(reader, name)
    monkeypatch.setattr(reader, name, lambda *given: collecting.append(gc.isenabled()) or read(*given))
    result = runner.invoke(app, [*command, "--json"])
    assert result.exit_code == 0, result.output
    assert collecting and not any(collecting)
    assert gc.isenabled()
