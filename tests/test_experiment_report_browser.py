"""The experiment report's HTML page in a real browser (the system's headless Chromium): it loads without
errors, shows the verdict, a flip's links open its transcript in either arm, and it fits a 1,280 px window.

Skipped with a reason where selenium, Chromium or chromedriver is missing (CI installs them)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fixtures.browser import chromium, layout_problems, script_errors
from fixtures.experiments import experiment, write_experiment
from typer.testing import CliRunner

from tau2.cli import app

pytestmark = pytest.mark.slow


def test_page_shows_the_verdict_and_opens_a_flip_in_both_arms(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    base = {"domain": "mock", "trials": 2, "seed": 3, "user": "scripted"}
    config = experiment("oracle-vs-null", "oracle", base, oracle={"agent": "oracle"}, null={"agent": "null"})
    directory = write_experiment(tmp_path / "experiment", config)
    page = tmp_path / "page.html"
    runner = CliRunner()
    assert runner.invoke(app, ["experiment", "report", str(directory), "--html", str(page)]).exit_code == 0
    (comparison,) = json.loads(runner.invoke(app, ["experiment", "report", str(directory), "--json"]).stdout)[
        "comparisons"
    ]
    first = min(comparison["flips"], key=lambda f: (f["task_id"], f["trial"]))

    with chromium(tmp_path / "profile") as browser:
        browser.get(page.as_uri())
        verdicts = [p.text for p in browser.find_elements(By.CSS_SELECTOR, "p.verdict")]
        assert verdicts == [comparison["verdict"]]
        assert browser.find_element(By.TAG_NAME, "h1").text == "tau2 experiment: oracle-vs-null"
        panel = browser.find_element(By.ID, "transcript")
        for arm, outcome in (("null", "fail"), ("oracle", "pass")):
            browser.find_elements(By.LINK_TEXT, f"{arm}: {outcome}")[0].click()
            heading = f"(run {arm})"
            WebDriverWait(browser, 10).until(
                lambda _, seen=heading: panel.is_displayed() and seen in panel.text
            )
            assert f"trial / seed\n{first['trial']} / {first['seed']}" in panel.text, (
                "the same unit in both arms"
            )
            assert outcome in panel.text.lower()
        assert "Transcript" in panel.text
        assert layout_problems(browser) == []
        assert script_errors(browser) == []


def test_page_of_long_task_ids_and_a_long_arm_name_fits_the_window(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from test_report_browser import LONG_IDS

    long_arm = "transfer-every-customer-to-a-person-at-once-with-a-scripted-user"  # 64 characters: the most
    base = {"domain": "telecom", "trials": 2, "seed": 3, "user": "scripted", "task_ids": list(LONG_IDS)}
    arms = {"oracle": {"agent": "oracle"}, long_arm: {"agent": "transfer"}}
    directory = write_experiment(tmp_path / "experiment", experiment("long", "oracle", base, **arms))
    page = tmp_path / "page.html"
    report = ["experiment", "report", str(directory), "--html", str(page)]
    assert CliRunner().invoke(app, report).exit_code == 0

    with chromium(tmp_path / "profile") as browser:
        browser.get(page.as_uri())
        assert len(browser.find_elements(By.CSS_SELECTOR, "a[href^='#sim-']")) == 8, "4 flips, 2 links each"
        assert layout_problems(browser) == []
        assert script_errors(browser) == []


def test_the_robustness_profile_shows_on_the_experiment_and_the_run_page(tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    base = {"domain": "mock", "trials": 3, "seed": 3, "agent": "oracle", "user": "scripted"}
    dropped = {"perturbations": {"unreliable_user": {"drop_rate": 1.0}}}
    config = experiment("robustness", "none", base, none={}, dropped=dropped)
    directory = write_experiment(tmp_path / "experiment", config)
    runner = CliRunner()
    pages = {"experiment": tmp_path / "experiment.html", "run": tmp_path / "run.html"}
    assert (
        runner.invoke(
            app, ["experiment", "report", str(directory), "--html", str(pages["experiment"])]
        ).exit_code
        == 0
    )
    assert (
        runner.invoke(app, ["report", str(directory / "dropped"), "--html", str(pages["run"])]).exit_code == 0
    )

    with chromium(tmp_path / "profile") as browser:
        for page in pages.values():
            browser.get(page.as_uri())
            (table,) = [
                t for t in browser.find_elements(By.TAG_NAME, "table") if "Robustness profile" in t.text
            ]
            cells = [cell.text for cell in table.find_elements(By.CSS_SELECTOR, "tr:nth-child(2) td")]
            assert cells[:3] == ["dropped", "unreliable_user", "none"]
            folded = browser.find_element(By.XPATH, "//summary[contains(., 'Where the agent noticed')]")
            folded.click()
            assert "unreliable_user: the agent noticed in" in folded.find_element(By.XPATH, "..").text
            assert layout_problems(browser) == []
            assert script_errors(browser) == []
