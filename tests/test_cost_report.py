"""Cost per success: the run's cost per simulation (with its interval over tasks) and per success, per seat
and judge, `unpriced` and `undefined` said rather than zero; what not asking the judges saved; and the
cost–accuracy frontier of a comparison and of an experiment, in JSON and drawn on the page."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any

import pytest
from fixtures.experiments import experiment, write_experiment
from fixtures.make_runs import RUNS_DIR, record
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2 import get_domain, load_task_file
from tau2.cli import app
from tau2.episode import Mode
from tau2.llm import UNPRICED, Usage
from tau2.metrics import (
    UNDEFINED,
    Bootstrap,
    CostTally,
    Estimate,
    FrontierPoint,
    pareto_frontier,
    seat_usage,
)
from tau2.report.frontier import frontier_figure
from tau2.runs import SimulationRecord
from tau2.tasks import RewardType, Suite
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer, ScriptedUsage
from tau2.world import Side

FAST = Bootstrap(samples=200, seed=3)


def sim(
    task: str, trial: int, *, success: bool, agent: float | None, judge: float | None = None
) -> SimulationRecord:
    """A solo simulation whose agent cost `agent` (None: unpriced) and whose judge, when asked, `judge`."""
    base = record(f"[mobile_data]airplane_mode_on|t{task}[PERSONA:None]", trial, Mode.SOLO, success)
    usage = {Side.AGENT: Usage(calls=1, prompt_tokens=10, completion_tokens=1, cost=agent)}
    judged = None if judge is None else Usage(calls=1, prompt_tokens=10, completion_tokens=1, cost=judge)
    return base.model_copy(update={"usage": usage, "judge_usage": judged})


def summary(records: list[SimulationRecord], judges: int = 0) -> Any:
    tally = CostTally()
    for item in records:
        tally.add(item)
    return tally.summary(seat_usage(records), judges, FAST)


def test_cost_per_simulation_and_per_success_and_per_seat() -> None:
    records = [
        sim("a", 0, success=True, agent=0.01, judge=0.002),
        sim("a", 1, success=False, agent=0.03, judge=0.002),
        sim("b", 0, success=True, agent=0.02, judge=0.002),
        sim("b", 1, success=False, agent=0.04),
        sim("b", 2, success=False, agent=0.05),  # tasks may have run unequal numbers of simulations
    ]
    cost = summary(records, judges=1)
    assert (cost.simulations, cost.successes) == (5, 2)
    assert cost.total == pytest.approx(0.156)
    assert cost.cost_per_simulation == pytest.approx(0.156 / 5), "the run's cost ÷ its simulations"
    assert cost.cost_per_success == pytest.approx(0.156 / 2), "the run's cost ÷ its successes"
    seats = {seat.seat: seat for seat in cost.seats}
    assert seats["agent"].total == pytest.approx(0.15) and seats["judge"].total == pytest.approx(0.006)
    assert seats["judge"].cost_per_simulation == pytest.approx(0.006 / 5)
    assert sum(seat.cost_per_success for seat in cost.seats) == pytest.approx(cost.cost_per_success)
    low, high = cost.cost_per_simulation_ci
    assert low <= cost.cost_per_simulation <= high and low < high


def test_no_success_is_undefined_and_an_unpriced_model_is_unpriced_never_zero() -> None:
    failed = [sim("a", 0, success=False, agent=0.01), sim("b", 0, success=False, agent=0.02)]
    cost = summary(failed)
    assert cost.cost_per_success == UNDEFINED and cost.cost_per_simulation == pytest.approx(0.015)
    assert all(seat.cost_per_success == UNDEFINED for seat in cost.seats)
    unpriced = summary(
        [sim("a", 0, success=True, agent=0.01, judge=None), sim("b", 0, success=True, agent=None)]
    )
    assert unpriced.total == unpriced.cost_per_simulation == unpriced.cost_per_success == UNPRICED
    assert unpriced.cost_per_simulation_ci is None
    assert {seat.seat: seat.total for seat in unpriced.seats} == {"agent": UNPRICED}


def test_the_judges_saving_is_estimated_from_their_mean_cost() -> None:
    judged = [sim("a", trial, success=True, agent=0.0, judge=0.004) for trial in range(2)]
    skipped = [
        sim("b", trial, success=False, agent=0.0).model_copy(
            update={"judge_skipped": "deterministic_failure"}
        )
        for trial in range(3)
    ]
    saving = summary([*judged, *skipped], judges=2).judge_saving
    assert (saving.not_needed, saving.calls_not_made, saving.judged) == (3, 6, 2)
    assert saving.estimated_usd == pytest.approx(3 * 0.004)
    assert summary(skipped, judges=1).judge_saving.estimated_usd == UNDEFINED, "nothing judged to learn from"
    free_judge = [item.model_copy(update={"judge_usage": Usage(calls=1, cost=None)}) for item in judged]
    assert summary([*free_judge, *skipped], judges=1).judge_saving.estimated_usd == UNPRICED
    assert summary(judged, judges=1).judge_saving.estimated_usd == 0.0
    assert summary([sim("a", 0, success=True, agent=0.01)]).judge_saving is None


def point(name: str, cost: float | str, accuracy: float | None) -> FrontierPoint:
    return FrontierPoint(
        name=name,
        run_id=name,
        pass_1=Estimate(value=accuracy, ci_low=None, ci_high=None, tasks=1),
        cost_per_simulation=cost,  # type: ignore[arg-type]
        cost_per_simulation_ci=None,
        tasks=1,
    )


PLANE = st.lists(
    st.tuples(
        st.one_of(st.sampled_from([0.0, 0.5, 1.0]), st.just(UNPRICED)),
        st.one_of(st.sampled_from([0.0, 0.25, 1.0]), st.none()),
    ),
    max_size=7,
)


@given(PLANE)
def test_the_frontier_holds_exactly_the_points_no_other_beats(
    plane: list[tuple[float | str, float | None]],
) -> None:
    marked = pareto_frontier([point(str(n), cost, accuracy) for n, (cost, accuracy) in enumerate(plane)])
    placed = [p for p in marked if not isinstance(p.cost_per_simulation, str) and p.pass_1.value is not None]

    def beats(a: FrontierPoint, b: FrontierPoint) -> bool:
        ca, cb, pa, pb = a.cost_per_simulation, b.cost_per_simulation, a.pass_1.value, b.pass_1.value
        assert isinstance(ca, float) and isinstance(cb, float) and pa is not None and pb is not None
        return ca <= cb and pa >= pb and (ca, pa) != (cb, pb)

    for here in marked:
        if here not in placed:
            assert not here.on_frontier, "an unpriced point or one without pass^1 is never on it"
        elif here.on_frontier:
            assert not any(beats(other, here) for other in placed)
        else:
            assert any(other.on_frontier and beats(other, here) for other in placed)
    assert [p.name for p in marked] == [str(n) for n in range(len(plane))], "in the order given"


def test_the_figure_is_well_formed_svg_with_names_as_text() -> None:
    marked = pareto_frontier(
        [point("<b>cheap</b> & quick", 0.01, 0.4), point("dear", 0.05, 0.9), point("lost", UNPRICED, 0.7)]
    )
    figure = frontier_figure(marked, "Cost & accuracy", 0.95)
    root = ElementTree.fromstring(figure)
    texts = ["".join(element.itertext()) for element in root.iter() if element.tag.endswith("text")]
    assert "<b>cheap</b> & quick" in texts and "dear" in texts and "Cost & accuracy" in texts
    assert "<b>" not in figure, "a name is text, never markup"
    assert "Not drawn (cost unpriced, or no valid trial): lost" in "".join(root.itertext())
    assert len([e for e in root.iter() if e.tag.endswith("circle")]) == 2 + 2, "two points and the legend"
    assert frontier_figure(pareto_frontier([point("lost", UNPRICED, 0.7)]), "t", 0.95) == ""


def invoke(*arguments: str | Path) -> Any:
    return CliRunner().invoke(app, [str(argument) for argument in arguments])


def test_report_json_keys_and_the_headline_line() -> None:
    report = json.loads(invoke("report", RUNS_DIR / "solo", "--json").stdout)
    cost = report["cost"]
    assert set(cost) == {
        "simulations",
        "successes",
        "total",
        "cost_per_simulation",
        "cost_per_simulation_ci",
        "cost_per_success",
        "seats",
        "judge_saving",
    }
    assert [seat["seat"] for seat in cost["seats"]] == ["agent"]
    assert set(cost["seats"][0]) == {"seat", "total", "cost_per_simulation", "cost_per_success"}
    assert cost["cost_per_success"] == pytest.approx(cost["total"] / cost["successes"])
    headline = invoke("report", RUNS_DIR / "solo").output
    assert re.search(
        r"cost per simulation \$0\.00100 \[\$[\d.]+, \$[\d.]+\] \(95%\) · per success \$", headline
    )
    unpriced = invoke("report", RUNS_DIR / "interactive").output
    assert "cost per simulation unpriced · per success unpriced" in unpriced
    full = invoke("report", RUNS_DIR / "interactive", "--full").output
    assert re.search(r"user +unpriced +unpriced +unpriced", full) and re.search(r"all +unpriced", full)


def test_compare_carries_both_runs_on_the_frontier() -> None:
    report = json.loads(invoke("compare", RUNS_DIR / "interactive", RUNS_DIR / "solo", "--json").stdout)
    a, b = report["frontier"]
    assert (a["name"], b["name"]) == ("A: interactive", "B: solo")
    assert a["cost_per_simulation"] == UNPRICED and not a["on_frontier"], "the interactive user is unpriced"
    assert b["on_frontier"] and b["pass_1"]["value"] == report["pass_hat_k"]["1"]["b"]
    assert b["cost_per_simulation"] == pytest.approx(0.001)


def judge_reply(request: ChatRequest) -> Reply:
    outcomes = re.findall(r"^\d+\. (.*)$", str(request.messages[-1]["content"]), flags=re.MULTILINE)
    results = [{"expectedOutcome": text, "reasoning": "seen", "metExpectation": True} for text in outcomes]
    return Reply.text(
        json.dumps({"results": results}), usage=ScriptedUsage(prompt_tokens=1000, completion_tokens=100)
    )


def judged_experiment(tmp_path: Path) -> Path:
    """Three arms judged by a priced model (the scripted server): the oracle, the null agent, and the null
    agent judged always (as accurate as the null agent, dearer: off the frontier)."""
    tasks = load_task_file(Path(get_domain("airline").default_suite))
    gated = [
        task.model_copy(
            update={
                "evaluation": task.evaluation.model_copy(
                    update={
                        "reward_basis": [RewardType.DB, RewardType.NL_ASSERTION],
                        "nl_assertions": [f"{task.id} went well."],
                    }
                )
            }
        )
        for task in tasks
    ]
    suite = tmp_path / "suite.json"
    Suite(name="gated", domain="airline", tasks=gated).save(suite)
    with ScriptedOpenAIServer(judge_reply) as server:
        judge = {"name": "openai/gpt-4o-mini", "api_base": server.base_url, "args": {"api_key": "sk-judge"}}
        base = {"suite": str(suite), "trials": 2, "seed": 3, "user": "scripted", "judge": judge}
        config = experiment(
            "gate",
            "oracle",
            base,
            oracle={"agent": "oracle"},
            null={"agent": "null"},
            null_always={"agent": "null", "judge_always": True},
        )
        return write_experiment(tmp_path / "experiment", config)


def test_experiment_report_draws_the_arms_frontier(tmp_path: Path) -> None:
    directory = judged_experiment(tmp_path)
    report = json.loads(invoke("experiment", "report", directory, "--json").stdout)
    frontier = {p["name"]: p for p in report["frontier"]}
    assert [name for name, p in frontier.items() if p["on_frontier"]] == ["oracle", "null"]
    assert frontier["null_always"]["pass_1"]["value"] == frontier["null"]["pass_1"]["value"]
    assert frontier["null_always"]["cost_per_simulation"] > frontier["null"]["cost_per_simulation"]
    differ = {c["arm"]: c["differ_in"] for c in report["comparisons"]}
    assert differ == {"null": ["agent"], "null_always": ["agent", "judge_always"]}
    arms = {arm["name"]: arm for arm in report["arms"]}
    assert arms["null"]["cost"]["judge_saving"]["not_needed"] > 0
    assert arms["null_always"]["cost"]["judge_saving"]["not_needed"] == 0
    assert all(
        p["cost_per_simulation"] == arms[n]["cost"]["cost_per_simulation"] for n, p in frontier.items()
    )
    page = tmp_path / "page.html"
    assert invoke("experiment", "report", directory, "--html", page).exit_code == 0
    html = page.read_text()
    assert '<figure class="plot" aria-label="Cost and accuracy of the arms of gate">' in html
    assert "Each point is one arm: pass^1 against what one simulation cost" in html
    terminal = invoke("experiment", "report", directory).output
    assert re.search(r"null_always +0\.\d+ .* no", terminal)


def test_the_frontier_pages_in_the_browser_at_1280_pixels(tmp_path: Path) -> None:
    from fixtures.browser import chromium, script_errors
    from selenium.webdriver.common.by import By

    pages = {
        "Cost and accuracy of the arms of gate": ["experiment", "report", judged_experiment(tmp_path)],
        "Cost and accuracy: interactive and solo": ["compare", RUNS_DIR / "interactive", RUNS_DIR / "solo"],
    }
    with chromium(tmp_path / "profile") as browser:
        browser.set_window_size(1280, 1000)
        for number, (title, command) in enumerate(pages.items()):
            page = tmp_path / f"page-{number}.html"
            assert invoke(*command, "--html", page).exit_code == 0
            browser.get(page.as_uri())
            figure = browser.find_element(By.CSS_SELECTOR, f'figure[aria-label="{title}"]')
            browser.execute_script("arguments[0].scrollIntoView()", figure)
            assert figure.is_displayed() and figure.find_elements(By.TAG_NAME, "circle")
            width = browser.execute_script("return document.documentElement.clientWidth")
            svg = figure.find_element(By.TAG_NAME, "svg").rect
            assert svg["x"] >= 0 and svg["x"] + svg["width"] <= width, "the plot fits the window"
            assert browser.execute_script("return document.documentElement.scrollWidth") <= width
            table = browser.find_element(By.XPATH, "//caption[text()='Cost and accuracy']/..")
            assert "on the frontier" in table.text
            assert script_errors(browser) == []
