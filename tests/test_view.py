"""`tau2 view`: trajectories by seat, terminations, failed assertions, and the filters."""

from __future__ import annotations

import json
import re
from pathlib import Path

from fixtures.make_runs import AIRPLANE, APN, ROAMING, RUNS_DIR, WIFI
from typer.testing import CliRunner

from tau2.cli import app

runner = CliRunner()
WIDE = {"COLUMNS": "200"}
SCREEN = {"COLUMNS": "120", "LINES": "40"}


def view(run: str, *arguments: str) -> str:
    """The output of a successful `tau2 view`."""
    result = runner.invoke(app, ["view", str(RUNS_DIR / run), *arguments], env=WIDE)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_view_shows_both_seats_tool_calls_and_failed_assertions() -> None:
    out = view("interactive", "--task", ROAMING, "--trial", "1")
    assert f"{ROAMING} · trial 1" in out
    header = next(line for line in out.splitlines() if line.startswith(" # "))
    assert " user" in header
    user_call = next(line for line in out.splitlines() if "toggle_airplane_mode({})" in line)
    agent_call = next(line for line in out.splitlines() if "get_customer_by_phone({" in line)
    assert user_call.index("→") >= header.index(" user"), "the user's call is in the user column"
    assert agent_call.index("→") < header.index(" user"), "the agent's call is in the agent column"
    assert "Error (invalid_state): The phone refused" in out
    assert "My mobile data stopped working." in out
    assert "reward 0 (failure) · termination user_stop" in out
    assert "Failed assertions (2 of 3)" in out
    assert "assert_airplane_mode_off" in out and "assert_mobile_data_working" in out
    assert "assert_account_active" not in out
    assert "unpriced" in out


def test_view_of_a_successful_solo_simulation_has_one_seat() -> None:
    out = view("solo", "--task", AIRPLANE, "--trial", "0")
    header = next(line for line in out.splitlines() if line.startswith(" # "))
    assert " agent" in header and " user" not in header
    assert "World state changes (start → end)" in out and "device.airplane_mode" in out
    assert "agent_stop" in out
    assert "All 3 assertions held." in out


def test_failed_filter_keeps_only_unsuccessful_simulations() -> None:
    out = view("interactive", "--failed", "--all")
    assert out.count("· trial") == 7
    assert f"{AIRPLANE} ·" not in out
    assert f"{APN} · trial 3" in out
    assert f"{WIFI} · trial 3" in out
    assert "infrastructure_error (excluded: infrastructure): provider returned 503" in out
    assert "no trajectory recorded" in out


def test_no_matching_simulation_is_a_one_line_error() -> None:
    result = runner.invoke(app, ["view", str(RUNS_DIR / "solo"), "--task", AIRPLANE, "--failed"])
    assert result.exit_code == 2
    expected = f"error: {RUNS_DIR / 'solo'}: no simulation matches (task {AIRPLANE!r}, failed)"
    assert result.stderr.strip() == expected


def test_view_shows_one_simulation_with_a_header_broken_between_its_parts_never_cut() -> None:
    result = runner.invoke(app, ["view", str(RUNS_DIR / "interactive"), "--failed"], env={"COLUMNS": "30"})
    assert result.exit_code == 0, result.output
    lines = [line.rstrip() for line in result.stdout.splitlines()]
    assert lines[1:4] == ["[mms]apn_mms_missing[PERSONA:N", "one]", "trial 0"], (
        "a part wider than a line folds"
    )
    facts = ["reward 0 (failure)", "termination user_stop", "interactive · persona None", "seed 1000"]
    assert lines[4:9] == [*facts, "expects transfer no"], "broken between parts"
    header = lines[1 : lines.index("Trajectory")]
    assert not any("…" in line for line in header)
    assert "agent 3 calls, 1,100 tokens," in header, "a part too long alone wraps between its words"
    assert lines[-1].startswith("simulation 1 of 7 matching")
    second = runner.invoke(app, ["view", str(RUNS_DIR / "interactive"), "--failed", "--index", "2"], env=WIDE)
    assert f"{ROAMING} · trial 1" in second.stdout
    too_far = runner.invoke(app, ["view", str(RUNS_DIR / "interactive"), "--failed", "--index", "8"])
    assert (too_far.exit_code, too_far.stderr.strip()) == (2, "error: --index 8: only 7 simulations match")


def test_view_html_writes_the_viewer_with_the_matching_simulations(tmp_path: Path) -> None:
    page_path = tmp_path / "view.html"
    arguments = ["view", str(RUNS_DIR / "interactive"), "--failed", "--html", str(page_path)]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 0, result.output
    page = page_path.read_text(encoding="utf-8")
    rows = json.loads(re.search(r'id="tau2-rows">(.*?)</script>', page, re.DOTALL)[1])  # type: ignore[index]
    assert len(rows["rows"]) == 7 and rows["open"] == 0


TELECOM_TASK = "[mobile_data_issue]bad_network_preference|user_abroad_roaming_disabled_off[PERSONA:None]"


def test_failed_assertions_show_what_they_observed(tmp_path: Path) -> None:
    out = tmp_path / "run"
    arguments = ["run", "--domain", "telecom", "--agent", "null", "--user", "scripted", "-q"]
    result = runner.invoke(app, [*arguments, "--task-ids", TELECOM_TASK, "--out", str(out)])
    assert result.exit_code == 0, result.output
    (record,) = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert [(a["name"], a["passed"], a["observed"]) for a in record["assertions"]] == [
        ("assert_mobile_data_status", False, False),
        ("assert_internet_speed", False, {"speed": None, "desc": "No Connection"}),
    ], "the record keeps what each assertion saw"
    shown = runner.invoke(app, ["view", str(out), "--failed"], env=WIDE)
    assert shown.exit_code == 0, shown.output
    header = next(line for line in shown.stdout.splitlines() if "must return" in line)
    assert re.search(r"side +┃ assertion +┃ arguments +┃ must return +┃ observed +┃ error", header)
    speed = next(line for line in shown.stdout.splitlines() if "assert_internet_speed" in line)
    assert re.search(r'│ True +│ \{"speed": null, "desc": "No Connection"\} +│', speed)


def test_records_written_before_observed_values_show_none() -> None:
    out = view("interactive", "--failed")
    row = next(line for line in out.splitlines() if "assert_airplane_mode_off" in line)
    assert re.search(r"│ \{\} +│ True +│ +│ +│", row), "must return True, nothing observed, no error"


def test_view_marks_the_calls_a_perturbation_kept_from_the_world(tmp_path: Path) -> None:
    """Every dropped customer call and its result carry the mark, in the user's column, and a table says
    what the perturbation did and whether the agent noticed."""
    config = tmp_path / "dropped.toml"
    config.write_text("[perturbations.unreliable_user]\ndrop_rate = 1.0\n")
    out_dir = tmp_path / "run"
    arguments = ["run", "--domain", "mock", "--task-ids", "both", "--agent", "oracle", "--user", "scripted"]
    ran = runner.invoke(app, [*arguments, "--config", str(config), "--quiet", "--out", str(out_dir)])
    assert ran.exit_code == 0, ran.output
    result = runner.invoke(app, ["view", str(out_dir)], env=WIDE)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    header = next(line for line in lines if line.lstrip().startswith("#"))
    marked = [line for line in lines if "[never reached the world: unreliable_user:" in line]
    assert marked and len(marked) % 2 == 0, "each dropped call with its result"
    assert all(line.index("[never") > header.index(" user") for line in marked), "in the user's column"
    assert "Perturbations (the agent noticed:" in result.stdout and "dropped_call" in result.stdout
