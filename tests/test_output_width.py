"""How wide output is laid out: a headline too long for its terminal is broken between its parts, never cut;
output to a pipe or a file (`view`, `play`, `--help`, as `report`) is not wrapped at rich's 80 columns but
laid out at `PIPED_WIDTH`, with what fills the width (a rule, help's panels) at `READING_WIDTH`."""

from __future__ import annotations

import os
import subprocess
import sys

from fixtures.make_runs import RUNS_DIR
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from typer.testing import CliRunner

from tau2._display import READING_WIDTH
from tau2.cli import app
from tau2.metrics import Bootstrap
from tau2.report import build_report, fmt
from tau2.report.tables import totals_line
from tau2.report.terminal import packed
from tau2.runs import load_run
from tau2.stepping import load_tasks

runner = CliRunner()
PIPED = {"COLUMNS": None, "TERMINAL_WIDTH": None}
"""The environment of output to a pipe nobody sized (CliRunner's stdout is no terminal)."""
RUN = RUNS_DIR / "interactive"
PART = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=30).filter(
    lambda part: fmt.SEPARATOR not in part and part.strip() == part and part
)


@given(st.lists(PART, min_size=1, max_size=12), st.integers(min_value=1, max_value=200))
def test_a_headline_is_broken_only_between_parts_and_packs_each_row(parts: list[str], width: int) -> None:
    rows = packed(parts, width)
    assert fmt.SEPARATOR.join(rows) == fmt.SEPARATOR.join(parts), "nothing cut, nothing moved"
    for row, following in zip(rows, [*rows[1:], None], strict=True):
        assert cell_len(row) <= width or fmt.SEPARATOR not in row, "a row too wide holds one part alone"
        if following is not None:
            first = following.split(fmt.SEPARATOR)[0]
            assert cell_len(row + fmt.SEPARATOR + first) > width, "a row takes every part that fits"


def test_the_report_headline_wraps_between_its_parts_on_a_narrow_terminal() -> None:
    totals = totals_line(build_report(load_run(RUN), Bootstrap()))
    assert len(totals) > 80
    result = runner.invoke(app, ["report", str(RUN)], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    expected = packed(totals.split(fmt.SEPARATOR), 80)
    start = lines.index(expected[0])
    assert lines[start : start + len(expected)] == expected
    assert expected[-1].endswith("cost unpriced") and len(expected) > 1
    assert not any("…" in line for line in lines[: start + len(expected)])


def test_piped_help_is_laid_out_at_the_reading_width_not_80_columns() -> None:
    result = runner.invoke(app, ["run", "--help"], env=PIPED)
    assert result.exit_code == 0, result.output
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    summary = (
        "Run every task × trial, append one record per simulation to OUT/results.jsonl, print a summary."
    )
    assert f" {summary}" in lines, "the help's first line is not wrapped"
    panel = next(line for line in lines if line.startswith("╭─ Options"))
    assert len(panel) == READING_WIDTH


def test_piped_help_of_a_fresh_process_is_laid_out_at_the_reading_width() -> None:
    environment = {
        key: value for key, value in os.environ.items() if key not in ("COLUMNS", "TERMINAL_WIDTH")
    }
    done = subprocess.run(
        [sys.executable, "-m", "tau2", "view", "--help"],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    panel = next(line for line in done.stdout.splitlines() if line.startswith("╭─ Options"))
    assert len(panel) == READING_WIDTH


def test_piped_view_keeps_long_lines_whole_and_draws_its_rule_at_the_reading_width() -> None:
    result = runner.invoke(app, ["view", str(RUN)], env=PIPED)
    assert result.exit_code == 0, result.output
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    assert lines[0] == "─" * READING_WIDTH
    usage = "agent 3 calls, 1,100 tokens, $0.0010 · user 2 calls, 550 tokens, unpriced"
    (facts,) = [line for line in lines if line.endswith(usage)]
    assert len(facts) > 80 and facts.startswith("6 turns · ")


def test_piped_play_keeps_long_lines_whole() -> None:
    task = next(task for task in load_tasks("telecom", "small") if len(task.user_scenario.reason()) > 80)
    arguments = ["play", "--domain", "telecom", "--suite", "small", "--task-id", task.id, "--seat", "user"]
    result = runner.invoke(app, [*arguments, "--other", "oracle"], input="/quit\n", env=PIPED)
    assert f"Why you are calling: {task.user_scenario.reason()}" in result.stdout.splitlines()
