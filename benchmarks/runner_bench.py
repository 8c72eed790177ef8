"""Runner throughput with model seats: LLM agent + LLM user simulations against a lean scripted
OpenAI-compatible server with a fixed latency, per transport, concurrency level and number of workers.

The server (`benchmarks/lean_server.py`) runs in its own process and answers from precomputed bytes, so
its own CPU stays small. It plays both seats of the mock task `both`: every simulation takes exactly 8 model
calls (4 per seat) and passes. The ideal throughput at concurrency c is min(c, N) / (8 × latency).

Sections (`--sections`, comma-separated; all by default):
- `calibrate`: CPU per model call of each transport's client alone, and of the whole runner path
  (actors, orchestrator, evaluation, records) at 32 in flight and zero latency; memory per simulation in
  flight; the runner with offline actors.
- `levels`: a throughput table for every `--latencies` × `--levels` × `--workers`.
- `tau2bench`: with `--tau2bench-python`, τ²-bench's runner and ours on the same server and the same
  workload (τ²-bench's telecom small tasks as a 7-call chat the customer ends), at `--compare-level`.

Run: `python benchmarks/runner_bench.py [--sections calibrate,levels] [--latencies 0.1,1] [--levels 1,16,64]
[--workers 1,2] [--transport native] [--tau2bench-python PATH]`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from lean_server import CALLS_PER_SIMULATION, CHAT_TURNS, LeanServer

from tau2.config import ActorSpec, ConfigLayer, ExecutorConfig, RunConfig
from tau2.domains.mock.tasks import BOTH
from tau2.llm import ModelClient, ModelSpec
from tau2.runner import PreparedRun, RunProgress, drive, prepare_run
from tau2.runs import RESULTS_FILE, SimulationRecord, read_records
from tau2.tasks import Suite

MODEL = "openai/gpt-4o-mini"
ROOT = Path(__file__).resolve().parents[1]
TELECOM = ROOT.parent / "shared" / "conformance" / "tau2-telecom"
"""τ²-bench's telecom small tasks and data, as the conformance data ships them (`--telecom-dir`)."""
CHAT_CALLS = 2 * CHAT_TURNS + 1


def seat(base_url: str, transport: str) -> ActorSpec:
    """An LLM seat pointed at the server (which ignores the key)."""
    model = ModelSpec(name=MODEL, api_base=base_url, args={"api_key": "sk-bench"}, transport=transport)
    return ActorSpec(kind="llm", model=model)


def prepared(directory: str, config: RunConfig) -> PreparedRun:
    """`config` prepared as a new run in `directory`."""
    return prepare_run([ConfigLayer.of(config)], Path(directory) / "run", resume=False)


def written(run: PreparedRun) -> list[SimulationRecord]:
    """The records a run wrote."""
    return read_records(run.run_dir / RESULTS_FILE)[0]


def cpu_now() -> float:
    """CPU seconds of this process and its finished children (workers)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


async def client_cpu_per_call(base_url: str, transport: str, calls: int = 800, in_flight: int = 32) -> float:
    """CPU seconds one `ModelClient.complete` call costs, transport included, outside the runner."""
    spec = ModelSpec(name=MODEL, api_base=base_url, args={"api_key": "sk-bench"}, transport=transport)
    client = ModelClient(spec)
    tools = [{"type": "function", "function": {"name": "end_call", "parameters": {"type": "object"}}}]
    messages = [{"role": "system", "content": "x" * 2000}, {"role": "user", "content": "Hi"}]
    gate = asyncio.Semaphore(in_flight)

    async def one() -> None:
        async with gate:
            await client.complete(messages, tools, seed=1)

    await asyncio.gather(*(one() for _ in range(in_flight)))
    started = time.process_time()
    await asyncio.gather(*(one() for _ in range(calls)))
    return (time.process_time() - started) / calls


def run_level(
    suite: Path, base_url: str, transport: str, concurrency: int, sims: int, workers: int
) -> tuple[float, float, int, int]:
    """Wall seconds, CPU seconds (driver and workers), model calls and failures of one run."""
    with tempfile.TemporaryDirectory() as directory:
        llm = seat(base_url, transport)
        config = RunConfig(
            suite=suite,
            agent=llm,
            user=llm,
            trials=sims,
            concurrency=concurrency,
            executor=ExecutorConfig(workers=workers),
        )
        run = prepared(directory, config)
        wall, cpu = time.perf_counter(), cpu_now()
        asyncio.run(drive(run, RunProgress()))
        wall, cpu = time.perf_counter() - wall, cpu_now() - cpu
        records = written(run)
    calls = sum(usage.calls for record in records for usage in record.usage.values())
    return wall, cpu, calls, sum(not record.success for record in records)


def memory_per_simulation(suite: Path, base_url: str, transport: str, in_flight: int) -> float:
    """Extra resident memory (bytes) per simulation in flight: peak RSS during a run of `in_flight`
    simulations, all in flight at once against a slow server, minus RSS before it."""

    def rss() -> int:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        return 0

    async def sampled(work: Coroutine[Any, Any, object]) -> int:
        peak = 0
        task = asyncio.create_task(work)
        while not task.done():
            peak = max(peak, rss())
            await asyncio.sleep(0.05)
        await task
        return peak

    with tempfile.TemporaryDirectory() as directory:
        llm = seat(base_url, transport)
        config = RunConfig(suite=suite, agent=llm, user=llm, trials=in_flight, concurrency=in_flight)
        run = prepared(directory, config)
        before = rss()
        peak = asyncio.run(sampled(drive(run, RunProgress())))
    return (peak - before) / in_flight


def offline_cpu_per_sim(suite: Path, sims: int = 2000, concurrency: int = 256) -> float:
    """CPU seconds per simulation of the whole runner with offline actors (oracle agent, scripted user)."""
    with tempfile.TemporaryDirectory() as directory:
        oracle, scripted = ActorSpec(kind="oracle"), ActorSpec(kind="scripted")
        offline = RunConfig(suite=suite, agent=oracle, user=scripted, trials=sims, concurrency=concurrency)
        run = prepared(directory, offline)
        started = time.process_time()
        asyncio.run(drive(run, RunProgress()))
        return (time.process_time() - started) / sims


def calibrate(suite: Path, transports: list[str]) -> None:
    """Print the CPU and memory calibration lines."""
    print(f"runner with offline actors: {offline_cpu_per_sim(suite) * 1e3:.2f} CPU ms per simulation")
    with LeanServer(0.0) as base_url:
        for transport in transports:
            client = asyncio.run(client_cpu_per_call(base_url, transport))
            print(f"{transport} client alone, 32 in flight: {client * 1e3:.3f} CPU ms per call")
        for transport in transports:
            run_level(suite, base_url, transport, 32, 32, 1)  # warm-up: imports, first connections
            _, cpu, calls, failed = run_level(suite, base_url, transport, 32, 400, 1)
            print(
                f"{transport} whole runner path, 32 in flight, 0 latency: {cpu / calls * 1e3:.3f} CPU ms per "
                f"call ({calls} calls, {failed} failed)"
            )
    with LeanServer(2.0) as base_url:
        for transport in transports:
            per_sim = memory_per_simulation(suite, base_url, transport, 1000)
            print(f"{transport} memory per simulation in flight (1000 in flight): {per_sim / 1024:.0f} KiB")


def worker_startup_s(suite: Path, base_url: str, transport: str, workers: int, latency: float) -> float:
    """Seconds worker processes take to start (spawn, imports): a run of one simulation per worker, less
    the simulation's own latency-bound time."""
    wall, *_ = run_level(suite, base_url, transport, workers, workers, workers)
    return max(0.0, wall - CALLS_PER_SIMULATION * latency)


def levels(
    suite: Path,
    transport: str,
    latencies: list[float],
    concurrency_levels: list[int],
    workers: list[int],
    waves: int,
) -> None:
    """Print the throughput table; rows with workers have the workers' start-up time subtracted."""
    print(f"\ntransport {transport}; {waves} simulations per slot of concurrency")
    print("| latency | workers | concurrency | sims | sims/hour | ideal | of ideal | CPU ms/call | failed |")
    print("|---|---|---|---|---|---|---|---|---|")
    for latency in latencies:
        with LeanServer(latency) as base_url:
            for count in workers:
                startup = worker_startup_s(suite, base_url, transport, count, latency) if count > 1 else 0.0
                for concurrency in concurrency_levels:
                    sims = waves * concurrency
                    wall, cpu, calls, failed = run_level(suite, base_url, transport, concurrency, sims, count)
                    rate = sims / (wall - startup)
                    ideal = min(concurrency, sims) / (CALLS_PER_SIMULATION * latency)
                    cpu_text = f"{cpu / calls * 1e3:.2f}" if count == 1 else "–"  # workers' includes start-up
                    print(
                        f"| {latency * 1e3:.0f} ms | {count} | {concurrency} | {sims} | {rate * 3600:,.0f} "
                        f"| {ideal * 3600:,.0f} | {rate / ideal:.0%} | {cpu_text} | {failed} |",
                        flush=True,
                    )


def timed(command: list[str], env: dict[str, str], cwd: str) -> float:
    """Wall seconds of a command that must succeed, run in `cwd` (away from this checkout, whose `tau2`
    package would shadow τ²-bench's own)."""
    started = time.perf_counter()
    result = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{command[0]} failed:\n{result.stderr[-3000:]}")
    return time.perf_counter() - started


def outcomes(label: str, directory: Path, trials: int) -> tuple[float, dict[str, int]]:
    """Model calls per simulation and how the simulations ended, read from a comparison run's output,
    to check both runners did the same work."""
    endings: Counter[str] = Counter()
    calls = 0
    if label == "tau2":
        records, _ = read_records(directory / f"{label}-{trials}" / "results.jsonl")
        for record in records:
            endings[record.termination.value] += 1
            calls += sum(usage.calls for usage in record.usage.values())
        return calls / len(records), dict(endings)
    results = json.loads((directory / f"{label}-{trials}.json").read_text())
    for simulation in results["simulations"]:
        endings[str(simulation.get("termination_reason"))] += 1
        messages = simulation["messages"]
        calls += sum(message["role"] in ("assistant", "user") for message in messages) - 1  # the greeting
    return calls / len(results["simulations"]), dict(endings)


def compare_with_tau2bench(
    python: Path, telecom: Path, latency: float, concurrency: int, trials: int, transport: str
) -> None:
    """τ²-bench's runner and ours, as command-line runs, on τ²-bench's telecom small tasks against the
    same server. Each runs `trials` and one trial per task; the rate is the difference in simulations
    over the difference in wall time, so start-up (imports, data loading) cancels out."""
    tasks_file = telecom / "tasks_small.json"
    if not tasks_file.is_file():
        raise SystemExit(f"{tasks_file}: not found (the comparison runs τ²-bench's telecom small tasks)")
    task_count = len(json.loads(tasks_file.read_text()))
    sims = task_count * trials
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENAI_API_KEY": "sk-bench"}
    tau2bench = [str(python), "-m", "tau2.cli"]
    ours = [sys.executable, "-m", "tau2", "run"]
    with LeanServer(latency) as base_url, tempfile.TemporaryDirectory() as directory:
        args = json.dumps({"api_base": base_url, "api_key": "sk-bench", "temperature": 0.0})

        def theirs(count: int, name: str) -> list[str]:
            return [
                *tau2bench,
                "run",
                "--domain",
                "telecom",
                "--task-set-name",
                "telecom",
                "--task-split-name",
                "small",
                "--num-trials",
                str(count),
                "--max-concurrency",
                str(concurrency),
                "--agent-llm",
                MODEL,
                "--agent-llm-args",
                args,
                "--user-llm",
                MODEL,
                "--user-llm-args",
                args,
                "--results-dir",
                directory,
                "--save-to",
                name,
                "--log-level",
                "ERROR",
            ]

        def mine(count: int, name: str) -> list[str]:
            seats = []
            for role in ("agent", "user"):
                seats += [f"--{role}", "llm", f"--{role}-model", MODEL, f"--{role}-api-base", base_url]
                seats += [f"--{role}-arg", "api_key=sk-bench", f"--{role}-transport", transport]
            return [
                *ours,
                "--suite",
                str(tasks_file),
                "--data-dir",
                str(telecom),
                *seats,
                "--trials",
                str(count),
                "--concurrency",
                str(concurrency),
                "--quiet",
                "--out",
                str(Path(directory) / name),
            ]

        rates = {}
        for label, build in (("τ²-bench", theirs), ("tau2", mine)):
            short = timed(build(1, f"{label}-1"), env, directory)
            wall = timed(build(trials, f"{label}-{trials}"), env, directory)
            rates[label] = (sims - task_count) / max(wall - short, 1e-9)
            calls, endings = outcomes(label, Path(directory), trials)
            print(
                f"{label}: {sims} simulations in {wall:.1f} s, {task_count} in {short:.1f} s → "
                f"{rates[label] * 3600:,.0f} sims/hour; {calls:.1f} model calls per simulation; "
                f"endings {endings}",
                flush=True,
            )
    ideal = min(concurrency, sims) / (CHAT_CALLS * latency)
    print(f"ideal {ideal * 3600:,.0f} sims/hour; tau2 / τ²-bench = {rates['tau2'] / rates['τ²-bench']:.1f}×")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", default="calibrate,levels,tau2bench")
    parser.add_argument("--transport", default="native", choices=["native", "litellm"])
    parser.add_argument("--latencies", default="0.1,1", help="server latencies per call, seconds")
    parser.add_argument("--levels", default="1,16,64,256,1000", help="concurrency levels")
    parser.add_argument("--workers", default="1,2", help="worker process counts")
    parser.add_argument("--waves", type=int, default=4, help="simulations per slot of concurrency")
    parser.add_argument("--tau2bench-python", type=Path, help="python of an environment with τ²-bench")
    parser.add_argument("--telecom-dir", type=Path, default=TELECOM, help="τ²-bench telecom tasks and data")
    parser.add_argument("--compare-level", type=int, default=64, help="concurrency of the comparison")
    parser.add_argument("--compare-trials", type=int, default=16, help="trials per task in the comparison")
    parser.add_argument("--compare-latency", type=float, default=0.1)
    options = parser.parse_args()
    sections = set(options.sections.split(","))
    print(f"{os.cpu_count()} CPUs · Python {sys.version.split()[0]} · model {MODEL}")
    with tempfile.TemporaryDirectory() as directory:
        suite = Path(directory) / "suite.json"
        Suite(name="bench", domain="mock", tasks=[BOTH]).save(suite)
        if "calibrate" in sections:
            calibrate(suite, ["native", "litellm"])
        if "levels" in sections:
            levels(
                suite,
                options.transport,
                [float(item) for item in options.latencies.split(",")],
                [int(item) for item in options.levels.split(",")],
                [int(item) for item in options.workers.split(",")],
                options.waves,
            )
    if "tau2bench" in sections and options.tau2bench_python is not None:
        print(f"\nτ²-bench comparison at {options.compare_level} in flight × {options.compare_latency}s")
        compare_with_tau2bench(
            options.tau2bench_python,
            options.telecom_dir.resolve(),  # the runs work in a temporary directory
            options.compare_latency,
            options.compare_level,
            options.compare_trials,
            options.transport,
        )


if __name__ == "__main__":
    main()
