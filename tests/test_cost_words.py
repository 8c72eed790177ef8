"""One word for a cost that cannot be known (`unpriced`) in every output, and nothing at all for a seat a run
does not have (the user of a solo run): the run report, `tau2 view`, `tau2 compare`, the experiment report
and the summaries of runs and experiments, on real runs of a model the cost map does not price."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fixtures.experiments import experiment, write_experiment
from typer.testing import CliRunner

from tau2.cli import app
from tau2.experiments import arm_run_dir
from tau2.llm import UNPRICED, spent_text
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer, ScriptedUsage

runner = CliRunner()
WIDE = {"COLUMNS": "200"}
MODEL = "openai/tau2-unpriced-model"


def answer(request: ChatRequest) -> Reply:
    """The customer hangs up at once; the solo agent calls `done` at once."""
    usage = ScriptedUsage(prompt_tokens=100, completion_tokens=10)
    if "end_call" in request.tool_names:
        return Reply.tool_call("end_call", {}, content="Bye.", usage=usage)
    return Reply.tool_call("done", {}, usage=usage)


@pytest.fixture(scope="module")
def server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(answer) as serving:
        yield serving


@pytest.fixture(scope="module")
def arms(server: ScriptedOpenAIServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An experiment on the mock tasks: an interactive arm whose customer is the unpriced model, and a
    solo arm whose agent is."""
    model = {"name": MODEL, "api_base": server.base_url, "args": {"api_key": "k"}}
    config = experiment(
        "unpriced",
        "interactive",
        {"domain": "mock", "trials": 1, "seed": 3},
        interactive={"agent": "oracle", "user": {"kind": "llm", "model": model}},
        solo={"mode": "solo", "agent": {"kind": "llm", "model": model}},
    )
    return write_experiment(tmp_path_factory.mktemp("cost") / "experiment", config)


def invoke(*arguments: str) -> str:
    result = runner.invoke(app, list(arguments), env=WIDE)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_run_report_says_unpriced_for_the_cost_and_per_simulation(arms: Path) -> None:
    out = invoke("report", str(arm_run_dir(arms, "interactive")), "--full")
    assert f"cost {UNPRICED}" in out.splitlines()[1]
    assert re.search(rf"user +5 +5 +500 +50 +{UNPRICED} +{UNPRICED}", out)
    assert "n/a" not in out.split("Cost and tokens")[1].split("Tasks")[0]


def test_view_says_unpriced(arms: Path) -> None:
    out = invoke("view", str(arm_run_dir(arms, "interactive")), "--task", "unplugged")
    assert f"user 1 calls, 110 tokens, {UNPRICED}" in out


def test_the_experiment_report_says_unpriced_and_shows_no_line_for_a_solo_arms_user(arms: Path) -> None:
    out = invoke("experiment", "report", str(arms))
    table = out.split("Per seat, per valid simulation")[1]
    assert re.search(rf"interactive +user +1\.0 +0\.0 +0\.0 +110 +{UNPRICED}", table)
    assert re.search(rf"solo +agent +0\.0 +1\.0 +0\.0 +110 +{UNPRICED}", table)
    assert not re.search(r"solo +user", table), "a solo arm has no customer to show"
    assert re.search(r"interactive +agent +1\.0 +0\.0 +0\.0 +0 +\$0\.0000", table), "the oracle is free"
    assert table.count("$0.0000") == 1 and "n/a" not in table


def test_compare_shows_nothing_for_the_seat_a_solo_run_does_not_have(arms: Path) -> None:
    out = invoke(
        "compare", str(arm_run_dir(arms, "interactive")), str(arm_run_dir(arms, "solo")), "--allow-mismatch"
    )
    assert re.search(r"user +tokens +110 +-110", out), "no value on the solo side, the difference stays"
    assert not re.search(r"user .*\$0\.0000", out)


@pytest.mark.parametrize(
    ("priced", "unpriced", "text"),
    [(0.0, True, UNPRICED), (0.0123, True, f"$0.0123 + {UNPRICED}"), (0.0123, False, "$0.0123")],
)
def test_a_summary_of_spending_never_shows_a_made_up_zero(priced: float, unpriced: bool, text: str) -> None:
    assert spent_text(priced, unpriced) == text
