"""The τ²-bench comparison benchmark's pure logic: reading both frameworks' results, pass^k, pairing by
(task, trial) with McNemar's exact test, and command lines that give both frameworks the same settings."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"


def load_benchmark() -> ModuleType:
    """The script as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location(
        "compare_tau2bench", ROOT / "benchmarks" / "compare_tau2bench.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


bench = load_benchmark()


def outcome(task: str, passed: bool, trial: int = 0) -> object:
    return bench.Outcome(task_id=task, trial=trial, passed=passed, termination="agent_stop", turns=1)


def test_theirs_outcomes_read_a_real_tau2bench_file() -> None:
    results = json.loads(
        (FIXTURES / "tau2bench" / "smollm2_telecom_results.json").read_text(encoding="utf-8")
    )
    outcomes = bench.theirs_outcomes(results, solo=False)
    first = results["simulations"][0]
    participants = [m for m in first["messages"] if m["role"] in ("assistant", "user")]
    assert len(outcomes) == len(results["simulations"])
    assert outcomes[0].task_id == first["task_id"]
    assert outcomes[0].termination == "max_steps"
    assert not outcomes[0].passed
    assert outcomes[0].turns == len(participants) - 1  # less τ²-bench's fixed greeting
    agent_prompt = sum(
        (m.get("usage") or {}).get("prompt_tokens", 0) for m in participants if m["role"] == "assistant"
    )
    user_completion = sum(
        (m.get("usage") or {}).get("completion_tokens", 0) for m in participants if m["role"] == "user"
    )
    assert outcomes[0].tokens["agent"][0] == agent_prompt > 0
    assert outcomes[0].tokens["user"][1] == user_completion > 0
    assert bench.theirs_outcomes(results, solo=True)[0].turns == len(participants)


def test_theirs_outcomes_count_reward_one_as_a_pass_and_a_missing_reward_as_a_failure() -> None:
    simulations = [
        {
            "task_id": "a",
            "trial": 0,
            "termination_reason": "agent_stop",
            "reward_info": {"reward": 1.0},
            "messages": [],
        },
        {
            "task_id": "b",
            "trial": 0,
            "termination_reason": "agent_error",
            "reward_info": None,
            "messages": [],
        },
    ]
    passed = [o.passed for o in bench.theirs_outcomes({"simulations": simulations}, solo=True)]
    assert passed == [True, False]
    with pytest.raises(ValueError):
        bench.theirs_outcomes({}, solo=True)


def test_ours_outcomes_read_a_run_directory() -> None:
    outcomes = bench.ours_outcomes(FIXTURES / "runs" / "solo" / "results.jsonl")
    lines = (FIXTURES / "runs" / "solo" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines if line.strip()]
    assert [o.task_id for o in outcomes] == [r["task_id"] for r in records]
    assert [o.passed for o in outcomes] == [r["reward"] >= 1.0 for r in records]
    assert [o.termination for o in outcomes] == [r["termination"] for r in records]


def test_pairing_sorts_by_who_passed_and_lists_unpaired_simulations() -> None:
    ours = [
        outcome("a", True),
        outcome("b", True),
        outcome("c", False),
        outcome("d", False),
        outcome("x", True),
    ]
    theirs = [
        outcome("a", True),
        outcome("b", False),
        outcome("c", True),
        outcome("d", False),
        outcome("y", False),
    ]
    pairing = bench.pair(ours, theirs)
    assert pairing.both == ["a #0"]
    assert pairing.only_ours == ["b #0"]
    assert pairing.only_theirs == ["c #0"]
    assert pairing.neither == ["d #0"]
    assert pairing.unpaired == ["x #0", "y #0"]


def test_trials_of_one_task_pair_separately() -> None:
    pairing = bench.pair(
        [outcome("a", True, 0), outcome("a", False, 1)], [outcome("a", True, 0), outcome("a", True, 1)]
    )
    assert pairing.both == ["a #0"] and pairing.only_theirs == ["a #1"]


@pytest.mark.parametrize(
    ("only_ours", "only_theirs", "p"),
    [(0, 0, 1.0), (3, 0, 0.25), (2, 2, 1.0), (5, 1, 0.21875), (0, 6, 0.03125)],
)
def test_mcnemar_exact_p_value(only_ours: int, only_theirs: int, p: float) -> None:
    pairing = bench.Pairing(
        both=[], only_ours=["o"] * only_ours, only_theirs=["t"] * only_theirs, neither=[], unpaired=[]
    )
    assert pairing.p_value == pytest.approx(p)


def test_pass_k_averages_over_tasks_with_enough_trials() -> None:
    outcomes = [outcome("a", True, 0), outcome("a", True, 1), outcome("b", True, 0), outcome("b", False, 1)]
    assert bench.pass_k(outcomes, 1) == pytest.approx(0.75)
    assert bench.pass_k(outcomes, 2) == pytest.approx(0.5)
    assert bench.pass_k(outcomes, 3) is None


def test_both_command_lines_carry_the_same_settings() -> None:
    settings = bench.Settings(
        api_base="http://127.0.0.1:9/v1", model="openai/m", api_key="k", mode="interactive", trials=2,
        max_steps=30, max_errors=7, temperature=0.0, seed=5, max_tokens=64, timeout=90.0, concurrency=1,
    )  # fmt: skip
    ids = ["t1", "t2"]
    theirs = bench.theirs_command(Path("py"), settings, ids, Path("/out/x.json"))
    ours = bench.ours_command(settings, Path("/telecom"), ids, "native", Path("/out/run"))

    def after(command: list[str], flag: str) -> str:
        return str(command[command.index(flag) + 1])

    assert after(theirs, "--max-steps") == after(ours, "--max-steps") == "30"
    assert after(theirs, "--max-errors") == after(ours, "--max-errors") == "7"
    assert after(theirs, "--num-trials") == after(ours, "--trials") == "2"
    assert after(theirs, "--seed") == after(ours, "--seed") == "5"
    assert theirs[theirs.index("--task-ids") + 1 : theirs.index("--task-ids") + 3] == ids
    assert after(ours, "--task-ids") == "t1,t2"
    their_args = json.loads(after(theirs, "--agent-llm-args"))
    assert their_args["temperature"] == 0.0 and their_args["max_tokens"] == 64
    assert "temperature=0.0" in ours and "max_tokens=64" in ours
    assert after(theirs, "--agent") == "llm_agent" and after(ours, "--mode") == "interactive"
    assert "--skip-failed-samples" in theirs  # a simulation τ²-bench raises on is recorded, not fatal
    solo = bench.Settings(**{**settings.__dict__, "mode": "solo"})
    assert after(bench.theirs_command(Path("py"), solo, ids, Path("/o.json")), "--user") == "dummy_user"
    assert "--user-model" not in bench.ours_command(solo, Path("/telecom"), ids, "native", Path("/o"))
