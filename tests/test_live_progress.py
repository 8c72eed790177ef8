"""The progress bar's tokens and cost move with every model call, in one process and with worker
processes, and finished simulations are not counted twice."""

from __future__ import annotations

import asyncio
import io
import threading
from pathlib import Path

import pytest
from rich.console import Console

from tau2.config import ConfigLayer, RunConfig
from tau2.domains.mock.tasks import BOTH
from tau2.llm import Usage
from tau2.runner import ProgressBar, Recorder, RunProgress, Tally, drive, prepare_run
from tau2.runs import SimulationRecord, read_records
from tau2.tasks import Suite
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer, ScriptedUsage

USAGE = ScriptedUsage(prompt_tokens=100, completion_tokens=10)
AGENT_SCRIPT = [
    Reply.tool_call("get_account", {"customer": "Ada"}, usage=USAGE),
    Reply.tool_call("enable_power", {"customer": "Ada"}, usage=USAGE),
    Reply.text("Power is back on. Please plug your lamp in.", usage=USAGE),
    Reply.text("Your issue is resolved.", usage=USAGE),
]
USER_SCRIPT = [
    Reply.text("My lamp is dark.", usage=USAGE),
    Reply.tool_call("plug_in", usage=USAGE),
    Reply.text("I plugged it in and it is lit now.", usage=USAGE),
    Reply.tool_call("end_call", usage=USAGE),
]


class Store:
    """Stands in for the results writer: keeps what it is given."""

    def __init__(self) -> None:
        self.records: list[SimulationRecord] = []

    def write(self, record: SimulationRecord) -> SimulationRecord:
        self.records.append(record)
        return record


def recorder_of(tally: Tally, progress: RunProgress) -> Recorder:
    return Recorder([Store()], tally, progress)  # type: ignore[list-item]


def test_a_call_moves_the_bar_before_its_simulation_ends() -> None:
    buffer = io.StringIO()
    tally = Tally(4)
    bar = ProgressBar(enabled=True, console=Console(file=buffer, force_terminal=True, width=200))
    bar.begin(tally)
    recorder = recorder_of(tally, bar)
    on_usage = recorder.follow_calls()
    recorder.unit_started()
    on_usage("openai/m", Usage(calls=1, prompt_tokens=1000, completion_tokens=234, cost=0.5))
    bar.end(tally)
    expected = (
        "0/4 done · 1 running · 0 passed · 0 failed · 0 infra errors · pass^1 – · 1.2k tokens · $0.5000"
    )
    assert expected in buffer.getvalue()


def test_a_finished_record_is_not_counted_again_when_calls_are_followed() -> None:
    tally = Tally(1)
    recorder = recorder_of(tally, RunProgress())
    on_usage = recorder.follow_calls()
    recorder.unit_started()
    on_usage("m", Usage(calls=1, prompt_tokens=7, completion_tokens=3, cost=None))
    record = SimulationRecord.model_validate(
        {
            "task_id": "a",
            "trial": 0,
            "seed": 1,
            "mode": "interactive",
            "reward": 1.0,
            "termination": "user_stop",
            "usage": {"agent": {"calls": 1, "prompt_tokens": 7, "completion_tokens": 3, "cost": None}},
        }
    )
    recorder.unit_finished(0, record)
    assert (tally.tokens, tally.unpriced, tally.done) == (10, 1, 1)
    assert tally.cost_text() == "unpriced"


class Gate:
    """Plays both seats, holding the agent's last reply until the test has seen live tokens."""

    def __init__(self) -> None:
        self.seen_live = threading.Event()

    async def __call__(self, request: ChatRequest) -> Reply:
        replies = sum(message["role"] == "assistant" for message in request.messages)
        if "end_call" in request.tool_names:
            return USER_SCRIPT[replies]
        if replies - 1 == len(AGENT_SCRIPT) - 1:
            await asyncio.to_thread(self.seen_live.wait, 20)
        return AGENT_SCRIPT[replies - 1]


@pytest.mark.parametrize("workers", [1, 2])
async def test_tokens_move_while_the_simulations_run(tmp_path: Path, workers: int) -> None:
    suite = tmp_path / "suite.json"
    tasks = [BOTH.model_copy(update={"id": f"t{number}"}) for number in range(2)]
    Suite(name="live", domain="mock", tasks=tasks).save(suite)
    gate = Gate()
    async with ScriptedOpenAIServer(gate) as server:
        model = {"name": "openai/m", "api_base": server.base_url, "args": {"api_key": "k"}}
        seat = {"kind": "llm", "model": model}
        executor = {"workers": workers}
        config = RunConfig(suite=suite, agent=seat, user=seat, concurrency=2, executor=executor)
        prepared = prepare_run([ConfigLayer.of(config)], tmp_path / "run", resume=False)
        tally: Tally | None = None

        class Watch(RunProgress):
            def begin(self, started: Tally) -> None:
                nonlocal tally
                tally = started

        async def watch() -> tuple[int, int]:
            while tally is None or tally.tokens == 0:
                await asyncio.sleep(0.01)
            seen = (tally.tokens, tally.done)
            gate.seen_live.set()
            return seen

        watcher = asyncio.create_task(watch())
        await drive(prepared, Watch())
        tokens_seen, done_then = await watcher
    records, _ = read_records(tmp_path / "run" / "results.jsonl")
    assert tokens_seen > 0 and done_then == 0
    assert tally is not None and tally.done == 2
    recorded = sum(u.prompt_tokens + u.completion_tokens for r in records for u in r.usage.values())
    assert recorded == 2 * 8 * 110
    assert tally.tokens == recorded
