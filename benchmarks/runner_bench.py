"""Runner throughput: LLM agent + LLM user simulations against a local scripted OpenAI-compatible server
with a fixed latency, at several concurrency levels, as a fraction of the latency-bound ideal.

The server runs in its own process (as a real provider would) and plays both seats of the mock task
`both` deterministically: every simulation takes exactly 8 model calls (4 per seat) and passes. The
ideal throughput at concurrency c is min(c, N) / (8 × latency) simulations per second.

Run: `python benchmarks/runner_bench.py [--latency 0.1] [--levels 1,16,64,256] [--sims N] [--model M]`.
Without `--sims`, each level runs max(32, 4 × c) simulations so that every level reaches steady state.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import tempfile
import time
from multiprocessing.connection import Connection
from pathlib import Path

from tau2.domains.mock.tasks import BOTH
from tau2.episode._actor import ActorSpec
from tau2.llm import ModelSpec, complete
from tau2.runner import ProgressBar, RunRequest, SeatRequest, Tally, execute_run, prepare_run
from tau2.tasks._suite import Suite
from tau2.testing import ChatRequest, Reply

CALLS_PER_SIMULATION = 8
AGENT_SCRIPT = (
    Reply.tool_call("get_account", {"customer": "Ada"}),
    Reply.tool_call("enable_power", {"customer": "Ada"}),
    Reply.text("Power is back on. Please plug your lamp in."),
    Reply.text("Your issue is resolved."),
)
USER_SCRIPT = (
    Reply.text("My lamp is dark."),
    Reply.tool_call("plug_in"),
    Reply.text("I plugged it in and it is lit now."),
    Reply.tool_call("end_call"),
)


def respond(request: ChatRequest) -> Reply:
    """The next reply of whichever seat asks: its step is the number of model replies in its transcript
    (the agent's transcript also holds the fixed greeting)."""
    replies = sum(message["role"] == "assistant" for message in request.messages)
    if "end_call" in request.tool_names:
        return USER_SCRIPT[replies]
    return AGENT_SCRIPT[replies - 1]


def serve(latency: float, connection: Connection) -> None:
    """Run the scripted server until the parent sends anything; first send back its base URL."""
    from tau2.testing import ScriptedOpenAIServer

    with ScriptedOpenAIServer(respond, latency=latency) as server:
        connection.send(server.base_url)
        connection.recv()


def seat(model: str, base_url: str) -> SeatRequest:
    """An LLM seat pointed at the scripted server (which ignores the key)."""
    return SeatRequest(kind="llm", model=model, api_base=base_url, args={"api_key": "sk-bench"})


async def client_cpu_per_call(model: str, base_url: str, calls: int = 400, in_flight: int = 16) -> float:
    """CPU seconds one `tau2.llm.complete` call costs this process (tau2's client plus litellm)."""
    spec = ActorSpec(kind="llm", model=ModelSpec(name=model, api_base=base_url, args={"api_key": "sk-bench"}))
    messages = [{"role": "system", "content": "x"}, {"role": "assistant", "content": "Hi"}]
    gate = asyncio.Semaphore(in_flight)

    async def one() -> None:
        async with gate:
            await complete(spec, [*messages, {"role": "user", "content": "y"}], seed=1)

    await one()
    started = time.process_time()
    await asyncio.gather(*(one() for _ in range(calls)))
    return (time.process_time() - started) / calls


def offline_cpu_per_sim(suite: Path, sims: int = 2000, concurrency: int = 256) -> float:
    """CPU seconds per simulation of the whole runner with offline actors (oracle agent, scripted user):
    world, turn loop, evaluation, record conversion, the JSON line and its fsync; no model calls."""
    with tempfile.TemporaryDirectory() as directory:
        offline = RunRequest(
            suite=suite, agent=SeatRequest(kind="oracle"), user=SeatRequest(kind="scripted"), trials=sims
        )
        prepared = prepare_run(offline, Path(directory) / "run", resume=False)
        started = time.process_time()
        asyncio.run(execute_run(prepared, ProgressBar(Tally(sims), enabled=False), concurrency=concurrency))
        return (time.process_time() - started) / sims


def level(suite: Path, model: str, base_url: str, concurrency: int, sims: int, latency: float) -> str:
    """Run `sims` simulations at `concurrency` into a fresh run directory; one table row."""
    with tempfile.TemporaryDirectory() as directory:
        request = RunRequest(
            suite=suite, agent=seat(model, base_url), user=seat(model, base_url), trials=sims, seed=0
        )
        prepared = prepare_run(request, Path(directory) / "run", resume=False)
        progress = ProgressBar(Tally(sims), enabled=False)
        wall, cpu = time.perf_counter(), time.process_time()
        records = asyncio.run(execute_run(prepared, progress, concurrency=concurrency))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    calls = sum(usage.calls for record in records for usage in record.usage.values())
    failed = sum(not record.success for record in records)
    rate = len(records) / wall
    ideal = min(concurrency, sims) / (CALLS_PER_SIMULATION * latency)
    return (
        f"| {concurrency} | {sims} | {rate * 3600:,.0f} | {ideal * 3600:,.0f} | {rate / ideal:.0%} "
        f"| {calls / len(records):.1f} | {cpu / calls * 1e3:.2f} | {failed} |"
    )


def main() -> None:
    """Start the server process, calibrate the client's CPU per call, then print one row per level."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.1, help="server latency per call, seconds")
    parser.add_argument("--levels", default="1,16,64,256", help="comma-separated concurrency levels")
    parser.add_argument("--sims", type=int, default=None, help="simulations per level (default 4 × c, ≥ 32)")
    parser.add_argument("--model", default="openai/gpt-4o-mini", help="model name the seats send")
    options = parser.parse_args()
    levels = [int(item) for item in options.levels.split(",")]
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    server = context.Process(target=serve, args=(options.latency, child), daemon=True)
    server.start()
    try:
        base_url = parent.recv()
        with tempfile.TemporaryDirectory() as directory:
            suite = Path(directory) / "suite.json"
            Suite(name="bench", domain="mock", tasks=[BOTH]).save(suite)
            offline = offline_cpu_per_sim(suite)
            client = asyncio.run(client_cpu_per_call(options.model, base_url))
            print(f"latency {options.latency * 1e3:.0f} ms · model {options.model} · {os.cpu_count()} CPUs")
            print(f"runner with offline actors: {offline * 1e3:.2f} CPU ms per simulation")
            print(f"LLM client (tau2.llm.complete + litellm): {client * 1e3:.2f} CPU ms per call\n")
            print("| concurrency | sims | sims/hour | ideal | of ideal | calls/sim | CPU ms/call | failed |")
            print("|---|---|---|---|---|---|---|---|")
            for concurrency in levels:
                sims = options.sims or max(32, 4 * concurrency)
                print(level(suite, options.model, base_url, concurrency, sims, options.latency), flush=True)
    finally:
        parent.send("stop")
        server.join(timeout=10)


if __name__ == "__main__":
    main()
