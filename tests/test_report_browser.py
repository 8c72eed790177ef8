"""The HTML report in a real browser: the system's headless Chromium, driven through chromedriver, in a
1,280 px window that every page must fit (tables too wide scroll in their own box; links to transcripts stay
in view).

Skipped with a reason where selenium, Chromium or chromedriver is missing (CI installs them)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixtures.browser import chromium, layout_problems, script_errors
from fixtures.make_runs import RUNS_DIR, many_trials_run
from typer.testing import CliRunner

from tau2.cli import app


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A headless Chromium with a fresh profile, closed after the module's tests."""
    with chromium(tmp_path_factory.mktemp("chromium-profile")) as driver:
        yield driver


def write_page(tmp_path: Path, *arguments: str) -> Path:
    """Run a report command with `--html` and return the page."""
    page = tmp_path / "page.html"
    result = CliRunner().invoke(app, [*arguments, "--html", str(page)])
    assert result.exit_code == 0, result.output
    return page


def test_report_lists_every_simulation_and_opens_a_failed_transcript(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    page = write_page(tmp_path, "report", str(RUNS_DIR / "interactive"))
    browser.get(page.as_uri())
    rows = browser.find_elements(By.CSS_SELECTOR, "#sim-body tr")
    assert len(rows) == 16, "every simulation is listed"
    assert browser.find_element(By.ID, "sim-count").text == "16 shown of 16 matching (16 simulations)"

    browser.find_element(By.CSS_SELECTOR, "a[data-outcome='fail']").click()
    failed = browser.find_elements(By.CSS_SELECTOR, "#sim-body tr")
    assert len(failed) == 6 and all("fail" in row.get_attribute("class") for row in failed)
    index = int(failed[0].get_attribute("data-index"))
    failed[0].click()
    panel = browser.find_element(By.ID, "transcript")
    WebDriverWait(browser, 10).until(lambda _: panel.is_displayed() and "Transcript" in panel.text)
    text = panel.text
    assert "Simulation" in text and "fail" in text
    assert "FAIL" in text and "assert_mobile_data_working" in text, "assertions with pass/fail"
    errors = panel.find_elements(By.CSS_SELECTOR, ".turn.result.error")
    assert errors and "The phone refused: the SIM is locked." in errors[0].text, "errors are highlighted"
    assert panel.find_elements(By.CSS_SELECTOR, ".turn.call.agent") and panel.find_elements(
        By.CSS_SELECTOR, ".turn.call.user"
    ), "both seats' tool calls"
    assert "Tokens and cost per seat" in text and "unpriced" in text
    assert browser.current_url.endswith(f"#sim-{index + 1}"), "the open simulation has its own link"

    header = browser.find_element(By.CSS_SELECTOR, "#sim-table th[data-sort='tool_errors']")
    header.click()
    header.click()
    first = browser.find_elements(By.CSS_SELECTOR, "#sim-body tr")[0]
    assert first.find_elements(By.TAG_NAME, "td")[7].text == "1", "sorted by tool errors, most first"
    assert layout_problems(browser) == []
    assert script_errors(browser) == []


def test_comparison_page_opens_the_transcripts_of_a_task_that_flips(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    page = write_page(tmp_path, "compare", str(RUNS_DIR / "interactive"), str(RUNS_DIR / "solo"))
    browser.get(page.as_uri())
    assert browser.find_element(By.TAG_NAME, "h1").text == "tau2 compare: interactive vs solo"
    assert "What it costs, per simulation" in browser.find_element(By.TAG_NAME, "body").text
    panel = browser.find_element(By.ID, "transcript")
    for side, link in (("B", "trial 1: pass"), ("A", "trial 1: fail")):
        browser.find_element(By.LINK_TEXT, link).click()
        heading = f"(run {side})"
        WebDriverWait(browser, 10).until(lambda _, seen=heading: panel.is_displayed() and seen in panel.text)
        assert "trial / seed\n1 / 1001" in panel.text, "the flipping task's trial 1 in that run"
    assert "FAIL" in panel.text and "get_customer_by_phone" in panel.text
    assert layout_problems(browser) == []
    assert script_errors(browser) == []


def test_a_comparison_where_no_task_flips_loads_without_a_script_error(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    page = write_page(tmp_path, "compare", str(RUNS_DIR / "interactive"), str(RUNS_DIR / "interactive"))
    browser.get(page.as_uri())
    assert "Tasks that flip" not in browser.find_element(By.TAG_NAME, "body").text
    assert browser.find_elements(By.CSS_SELECTOR, "a[href^='#sim-']") == []
    assert layout_problems(browser) == []
    assert script_errors(browser) == []


LONG_IDS = (
    "[mms_issue]bad_network_preference|bad_wifi_calling|break_apn_mms_setting|break_app_both_permissions|"
    "data_mode_off|data_usage_exceeded|unseat_sim_card|user_abroad_roaming_enabled_off[PERSONA:Hard]",
    "[mms_issue]airplane_mode_on|bad_network_preference|bad_wifi_calling|break_apn_mms_setting|"
    "break_app_storage_permission|data_mode_off|data_usage_exceeded|unseat_sim_card|"
    "user_abroad_roaming_disabled_on[PERSONA:None]",
)
"""Telecom tasks of the default suite with the longest ids: 195 characters, and 214 (shown shortened)."""


def telecom_run(out: Path, agent: str) -> Path:
    """Two trials of the `LONG_IDS` tasks with the scripted user and the `agent` kind."""
    arguments = ["run", "--domain", "telecom", "--agent", agent, "--user", "scripted", "--trials", "2", "-q"]
    arguments += ["--task-ids", ",".join(LONG_IDS), "--out", str(out)]
    result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    return out


def test_pages_of_tasks_with_long_ids_fit_the_window(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    oracle = telecom_run(tmp_path / "oracle", "oracle")
    transfer = telecom_run(tmp_path / "transfer", "transfer")
    browser.get(write_page(tmp_path, "compare", str(oracle), str(transfer)).as_uri())
    links = browser.find_elements(By.CSS_SELECTOR, "a[href^='#sim-']")
    assert len(links) == 16, "both tasks flip by both rules: a row each, linking both trials in both runs"
    assert layout_problems(browser) == []
    assert script_errors(browser) == []
    browser.get(write_page(tmp_path, "report", str(transfer)).as_uri())
    assert layout_problems(browser) == []
    assert script_errors(browser) == []


def test_a_table_wider_than_the_page_scrolls_in_its_box_with_its_first_column_in_view(
    browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    run = many_trials_run(tmp_path / "run", 20)
    browser.get(write_page(tmp_path, "report", run, "--max-k", "20").as_uri())
    assert layout_problems(browser) == [], "the page fits although a table of pass^1..20 does not"
    box = next(
        box
        for box in browser.find_elements(By.CSS_SELECTOR, ".table-box")
        if [caption.text for caption in box.find_elements(By.TAG_NAME, "caption")] == ["By intent"]
    )
    wide, shown = browser.execute_script("return [arguments[0].scrollWidth, arguments[0].clientWidth]", box)
    assert wide > shown, "the table is wider than its box"
    browser.execute_script("arguments[0].scrollIntoView(); arguments[0].scrollLeft = 1e6", box)
    first = box.find_element(By.CSS_SELECTOR, "tr:nth-child(2) td:first-child")
    last = box.find_elements(By.CSS_SELECTOR, "tr:nth-child(2) td")[-1]
    assert first.text == "mobile_data"
    assert abs(first.rect["x"] - box.rect["x"]) < 2, "the first column stays at the box's left edge"
    right = box.rect["x"] + box.rect["width"]
    assert last.rect["x"] + last.rect["width"] <= right + 1, "scrolled to the last column"
    assert script_errors(browser) == []


def test_transcript_shows_what_a_seat_said_that_was_not_accepted(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from tau2.domains.mock.tasks import BOTH
    from tau2.tasks import Suite
    from tau2.testing import Reply, ScriptedOpenAIServer

    suite = tmp_path / "suite.json"
    Suite(name="rejected", domain="mock", tasks=[BOTH]).save(suite)
    script = [
        Reply.text("I will look into it."),
        Reply.tool_call("enable_power", {"customer": "Ada"}),
        Reply.tool_call("plug_in"),
        Reply.tool_call("done"),
    ]
    out = tmp_path / "run"
    with ScriptedOpenAIServer(script) as server:
        arguments = ["run", "--suite", str(suite), "--mode", "solo", "--out", str(out)]
        arguments += [
            "--agent-model",
            "openai/m",
            "--agent-api-base",
            server.base_url,
            "--agent-arg",
            "api_key=k",
        ]
        assert CliRunner().invoke(app, arguments).exit_code == 0
    browser.get(write_page(tmp_path, "report", str(out)).as_uri())
    browser.find_elements(By.CSS_SELECTOR, "#sim-body tr")[0].click()
    panel = browser.find_element(By.ID, "transcript")
    WebDriverWait(browser, 10).until(lambda _: panel.is_displayed() and "Transcript" in panel.text)
    rejected = panel.find_elements(By.CSS_SELECTOR, ".turn.rejected.agent")
    assert [turn.text for turn in rejected] == ["✗ not accepted: I will look into it."]
    assert "nobody reads messages" in panel.find_elements(By.CSS_SELECTOR, ".turn.error.agent")[0].text
    assert script_errors(browser) == []


def test_transcript_marks_the_calls_a_perturbation_kept_from_the_world(browser: Any, tmp_path: Path) -> None:
    """A customer whose calls are all dropped: each dropped call and its result are marked in the
    transcript, and the simulation lists what the perturbation did and whether the agent noticed."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    out = tmp_path / "run"
    arguments = ["run", "--domain", "mock", "--task-ids", "both", "--agent", "oracle", "--user", "scripted"]
    config = tmp_path / "dropped.toml"
    config.write_text("[perturbations.unreliable_user]\ndrop_rate = 1.0\n")
    result = CliRunner().invoke(app, [*arguments, "--config", str(config), "--quiet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    browser.get(write_page(tmp_path, "report", str(out)).as_uri())
    browser.find_elements(By.CSS_SELECTOR, "#sim-body tr")[0].click()
    panel = browser.find_element(By.ID, "transcript")
    WebDriverWait(browser, 10).until(lambda _: panel.is_displayed() and "Transcript" in panel.text)
    marked = panel.find_elements(By.CSS_SELECTOR, ".turn.perturbed")
    assert marked and len(marked) % 2 == 0, "each dropped call with its result"
    assert all("[never reached the world: unreliable_user: dropped_call]" in turn.text for turn in marked)
    assert all("user" in turn.get_attribute("class") for turn in marked)
    (events,) = [t for t in panel.find_elements(By.TAG_NAME, "table") if "Perturbations" in t.text]
    assert "Perturbations (the agent noticed" in events.text and "dropped_call" in events.text
    assert layout_problems(browser) == []
    assert script_errors(browser) == []


def test_long_names_are_shortened_in_the_simulations_table_and_whole_on_demand(
    browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from test_report import LONG, long_names_run

    page = write_page(tmp_path, "report", str(long_names_run(tmp_path / "run")))
    browser.get(page.as_uri())
    persona = browser.find_elements(By.CSS_SELECTOR, "#sim-body tr")[0].find_elements(By.TAG_NAME, "td")[3]
    assert persona.text == "P" * 149 + "…" + "P" * 50 + " (60,000 characters)"
    whole = persona.find_element(By.CSS_SELECTOR, "details.long .whole")
    assert not whole.is_displayed()
    persona.find_element(By.TAG_NAME, "summary").click()
    assert whole.is_displayed() and len(whole.get_attribute("textContent")) == LONG
    assert browser.find_element(By.ID, "transcript").get_attribute("hidden"), "only the name unfolds"
    assert script_errors(browser) == []


def test_transcript_assertions_show_what_must_be_returned_and_what_was_observed(
    browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
    from test_view import TELECOM_TASK

    out = tmp_path / "run"
    arguments = ["run", "--domain", "telecom", "--agent", "null", "--user", "scripted", "-q"]
    assert CliRunner().invoke(app, [*arguments, "--task-ids", TELECOM_TASK, "--out", str(out)]).exit_code == 0
    browser.get(write_page(tmp_path, "view", str(out)).as_uri())
    panel = browser.find_element(By.ID, "transcript")
    WebDriverWait(browser, 10).until(lambda _: panel.is_displayed() and "Assertions" in panel.text)
    table = next(t for t in panel.find_elements(By.TAG_NAME, "table") if "Assertions" in t.text)
    rows = [
        [cell.text for cell in row.find_elements(By.CSS_SELECTOR, "th, td")]
        for row in table.find_elements(By.TAG_NAME, "tr")
    ]
    assert rows == [
        ["", "seat", "assertion", "arguments", "must return", "observed", "error"],
        ["FAIL", "user", "assert_mobile_data_status", '{"expected_status":true}', "True", "false", ""],
        [
            "FAIL",
            "user",
            "assert_internet_speed",
            '{"expected_speed":200,"expected_desc":"excellent"}',
            "True",
            '{"speed":null,"desc":"No Connection"}',
            "",
        ],
    ]
    assert script_errors(browser) == []


def test_transcript_marks_a_reply_cut_at_the_token_cap_and_the_format_failure(
    browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from tau2.domains.mock.tasks import BOTH
    from tau2.tasks import Suite
    from tau2.testing import Reply, ScriptedOpenAIServer

    suite = tmp_path / "suite.json"
    Suite(name="cut", domain="mock", tasks=[BOTH]).save(suite)
    script = [
        Reply(content='{"name": "enable_power", "arguments": {"custo', finish_reason="length"),
        Reply.tool_call("done"),
    ]
    out = tmp_path / "run"
    with ScriptedOpenAIServer(script) as server:
        arguments = ["run", "--suite", str(suite), "--mode", "solo", "--out", str(out)]
        arguments += ["--agent-model", "openai/m", "--agent-api-base", server.base_url]
        assert CliRunner().invoke(app, [*arguments, "--agent-arg", "api_key=k"]).exit_code == 0
    browser.get(write_page(tmp_path, "view", str(out)).as_uri())
    panel = browser.find_element(By.ID, "transcript")
    WebDriverWait(browser, 10).until(lambda _: panel.is_displayed() and "Transcript" in panel.text)
    (rejected,) = panel.find_elements(By.CSS_SELECTOR, ".turn.rejected.agent")
    assert rejected.text.startswith("✗ not accepted: (tool calls written as text: the reply was cut off")
    assert rejected.find_element(By.CSS_SELECTOR, ".cut").text.strip() == "[reply cut at the token cap]"
    assert "format failures\nagent 1 (tool calls written as text, not run)" in panel.text
    assert "ended right after a rejected reply of the agent" in panel.text
    assert script_errors(browser) == []


def test_report_and_comparison_show_collateral_damage_and_list_the_simulations(
    browser: Any, tmp_path: Path
) -> None:
    """A run of the collateral oracle: its rate under the headline, the seat and tool that wrote it, and
    every damaged simulation in a folded table, all within 1,280 px; the comparison gives both rates."""
    from selenium.webdriver.common.by import By

    suite = Path(__file__).resolve().parents[1] / "domains" / "telecom" / "suites" / "small.json"
    runs = {}
    for agent in ("oracle", "tau2.testing:collateral_oracle"):
        out = runs[agent] = tmp_path / agent.rsplit(":", 1)[-1]
        arguments = ["run", "--suite", str(suite), "--agent", agent, "--user", "scripted", "--quiet"]
        result = CliRunner().invoke(app, [*arguments, "--out", str(out)])
        assert result.exit_code == 0, result.output
    page = write_page(tmp_path, "report", str(runs["tau2.testing:collateral_oracle"]))
    browser.get(page.as_uri())
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "collateral damage 1.000" in body and "21 of 21 simulations" in body
    caption = "Simulations with collateral damage"
    (details,) = [d for d in browser.find_elements(By.TAG_NAME, "details") if caption in d.text]
    details.find_element(By.TAG_NAME, "summary").click()
    rows = details.find_elements(By.CSS_SELECTOR, "tr")
    assert len(rows) == 22 and "(agent suspend_line)" in rows[1].text
    assert layout_problems(browser) == []
    assert script_errors(browser) == []
    page = write_page(tmp_path, "compare", str(runs["oracle"]), str(runs["tau2.testing:collateral_oracle"]))
    browser.get(page.as_uri())
    assert "collateral damage: " in browser.find_element(By.TAG_NAME, "body").text
    assert layout_problems(browser) == []
    assert script_errors(browser) == []
