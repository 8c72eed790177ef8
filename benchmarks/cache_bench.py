"""The model cache's costs: computing a request's key, a lookup that hits or misses, storing an answer (one
file per key, linked into place), the same from several processes at once; the same lookups and stores in
one SQLite file in WAL mode, the alternative the file store was chosen over; and the runner's CPU per model
call with every answer from the cache against every answer from a server.

Run: `python benchmarks/cache_bench.py [--entries 2000] [--processes 1,2,4]`.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import multiprocessing
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tau2.config import ActorSpec, ConfigLayer, RunConfig
from tau2.domains.mock.tasks import BOTH
from tau2.llm import Completion, ModelCache, ModelSpec, Usage
from tau2.runner import RunProgress, drive, prepare_run
from tau2.runs import RESULTS_FILE, read_records
from tau2.tasks import Suite

sys.path.insert(0, str(Path(__file__).resolve().parent))
from lean_server import LeanServer

MODEL = "openai/gpt-4o-mini"
SPEC = ModelSpec(name=MODEL, args={"api_key": "sk-bench", "temperature": 0.0})
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": f"tool_{number}",
            "description": "Looks something up. " * 10,
            "parameters": {"type": "object", "properties": {"id": {"type": "string"}}},
        },
    }
    for number in range(12)
]
ANSWER = Completion(
    text="I have updated your account; is there anything else I can do? " * 4,
    usage=Usage(calls=1, prompt_tokens=4_000, completion_tokens=100, cost=0.00066),
)


def messages(number: int) -> list[dict[str, Any]]:
    """A request of about 4,000 tokens (a policy and a conversation), different for every `number`."""
    return [
        {"role": "system", "content": "Follow the airline's policy. " * 500},
        *(
            {"role": "user" if turn % 2 else "assistant", "content": f"turn {turn} " * 40}
            for turn in range(20)
        ),
        {"role": "user", "content": f"request {number}"},
    ]


def per_op_us(action: Any, count: int) -> float:
    started = time.perf_counter()
    for number in range(count):
        action(number)
    return (time.perf_counter() - started) / count * 1e6


class SqliteStore:
    """The alternative measured: one SQLite file in WAL mode, key → answer JSON, first writer kept."""

    def __init__(self, path: Path) -> None:
        self._db = sqlite3.connect(path, timeout=30, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, answer BLOB)")

    def get(self, key: str) -> Completion | None:
        row = self._db.execute("SELECT answer FROM answers WHERE key = ?", (key,)).fetchone()
        return None if row is None else Completion.model_validate_json(row[0])

    def put(self, key: str, completion: Completion) -> None:
        data = completion.model_dump_json().encode()
        self._db.execute("INSERT OR IGNORE INTO answers VALUES (?, ?)", (key, data))


def single_process(directory: Path, entries: int) -> None:
    cache = ModelCache.open(directory / "files")
    keys = [cache.key(SPEC, messages(number), TOOLS, number) for number in range(entries)]
    key_us = per_op_us(lambda n: cache.key(SPEC, messages(n), TOOLS, n), entries)
    print(f"key of a ~4,000-token request with 12 tools: {key_us:.0f} µs")
    stores: list[tuple[str, Any]] = [("files", cache), ("sqlite (WAL)", SqliteStore(directory / "a.sqlite"))]
    for name, store in stores:
        miss = per_op_us(lambda n, store=store: store.get(keys[n]), entries)
        put = per_op_us(lambda n, store=store: store.put(keys[n], ANSWER), entries)
        hit = per_op_us(lambda n, store=store: store.get(keys[n]), entries)
        print(f"{name}: miss {miss:.0f} µs, store {put:.0f} µs, hit {hit:.0f} µs ({entries} entries)")


def _writer(kind: str, directory: str, worker: int, entries: int, ready: Any, start: Any) -> None:
    store: Any = (
        ModelCache.open(Path(directory) / "files")
        if kind == "files"
        else SqliteStore(Path(directory) / "a.sqlite")
    )
    keys = [hashlib.sha256(f"{worker} {number}".encode()).hexdigest() for number in range(entries)]
    ready.release()
    start.wait()
    for key in keys:
        store.put(key, ANSWER)
    for key in keys:
        assert store.get(key) is not None


def concurrent(directory: Path, entries: int, processes: int) -> None:
    context = multiprocessing.get_context("spawn")
    for kind in ("files", "sqlite (WAL)"):
        with tempfile.TemporaryDirectory(dir=directory) as place:
            if kind == "files":
                ModelCache.open(Path(place) / "files")
            else:
                SqliteStore(Path(place) / "a.sqlite")
            ready, start = context.Semaphore(0), context.Event()
            workers = [
                context.Process(target=_writer, args=(kind, place, worker, entries, ready, start))
                for worker in range(processes)
            ]
            for worker in workers:
                worker.start()
            for _ in workers:
                ready.acquire()
            started = time.perf_counter()
            start.set()
            for worker in workers:
                worker.join()
            assert all(worker.exitcode == 0 for worker in workers)
            elapsed = time.perf_counter() - started
            operations = 2 * processes * entries
            print(f"{kind}, {processes} processes: {operations} operations, {operations / elapsed:,.0f}/s")


def runner_cpu_per_call(directory: Path, sims: int) -> None:
    """CPU per model call of the whole runner path at 0 latency: answers from the server, then the same
    run again with every answer from the cache."""
    suite = directory / "suite.json"
    Suite(name="bench", domain="mock", tasks=[BOTH]).save(suite)
    with LeanServer(0.0) as base_url:
        model = ModelSpec(name=MODEL, api_base=base_url, args={"api_key": "sk-bench"}, transport="native")
        seat = ActorSpec(kind="llm", model=model)
        config = RunConfig(
            suite=suite, agent=seat, user=seat, trials=sims, concurrency=32, cache=directory / "run-cache"
        )
        for label in ("answers from the server (stored)", "answers from the cache"):
            out = directory / label.replace(" ", "-")
            run = prepare_run([ConfigLayer.of(config)], out, resume=False)
            wall, cpu = time.perf_counter(), time.process_time()
            asyncio.run(drive(run, RunProgress()))
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            records = read_records(out / RESULTS_FILE)[0]
            calls = sum(usage.calls for record in records for usage in record.usage.values())
            print(
                f"native runner, 32 in flight, 0 latency, {label}: {cpu / calls * 1e3:.3f} CPU ms, "
                f"{wall / calls * 1e3:.3f} wall ms per call ({calls} calls)"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=2000)
    parser.add_argument("--processes", default="1,2,4")
    parser.add_argument("--sims", type=int, default=400)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as place:
        directory = Path(place)
        single_process(directory, options.entries)
        for processes in (int(count) for count in options.processes.split(",")):
            concurrent(directory, options.entries, processes)
        runner_cpu_per_call(directory, options.sims)


if __name__ == "__main__":
    main()
