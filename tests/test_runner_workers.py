"""`tau2 run --workers N` and `--ray`: simulations spread over worker processes while the driver alone
writes the store; a killed worker loses and duplicates nothing, a killed driver resumes cleanly, and
per-provider limits are split so that all workers together stay within them."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.mock.tasks import BOTH, MOCK_TASKS
from tau2.errors import UserInputError
from tau2.llm import ProviderLimit
from tau2.runner import split_limits
from tau2.runner._workers import split_concurrency
from tau2.runs import load_run, read_records
from tau2.tasks import Suite
from tau2.testing import DELAY_VARIABLE, ChatRequest, Reply, ScriptedOpenAIServer, slowed_name

OFFLINE = ["--agent", "oracle", "--user", "scripted", "--quiet"]
TRIALS = 6


def units(out: Path) -> Counter[tuple[str, int]]:
    records, warnings = read_records(out / "results.jsonl")
    assert warnings == []
    return Counter((record.task_id, record.trial) for record in records)


def expected() -> set[tuple[str, int]]:
    return {(task.id, trial) for task in MOCK_TASKS for trial in range(TRIALS)}


def start(suite: Path, out: Path, *extra: str) -> subprocess.Popen[bytes]:
    """The offline run in a subprocess, each actor turn slowed so the run can be caught mid-flight."""
    seats = ["--agent", slowed_name("oracle"), "--user", slowed_name("scripted"), "--quiet"]
    arguments = ["--suite", str(suite), *seats, "--trials", str(TRIALS), "--out", str(out), *extra]
    return subprocess.Popen(
        [sys.executable, "-m", "tau2", "run", *arguments],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, DELAY_VARIABLE: "0.05"},
    )


def worker_processes(pid: int) -> list[int]:
    """Process ids of the worker processes `pid` spawned (Linux /proc; multiprocessing's resource
    tracker, also a child, is left out)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            command = Path(f"/proc/{child}/cmdline").read_bytes()
            if b"spawn_main" in command:
                found.append(int(child))
    return found


def wait_for_records(process: subprocess.Popen[bytes], results: Path, count: int) -> None:
    deadline = time.monotonic() + 90
    while not (results.exists() and results.read_bytes().count(b"\n") >= count):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "no records appeared"
        time.sleep(0.02)


def test_workers_run_every_unit_once(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    arguments = ["run", "--suite", str(suite_file), *OFFLINE, "--trials", str(TRIALS), "--out", str(out)]
    result = CliRunner().invoke(app, [*arguments, "--workers", "2", "--concurrency", "8"])
    assert result.exit_code == 0, result.output
    found = units(out)
    assert set(found) == expected() and set(found.values()) == {1}
    assert all(record.success for record in load_run(out).records)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds worker processes through /proc")
def test_a_killed_worker_loses_and_duplicates_nothing(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    process = start(suite_file, out, "--workers", "2", "--concurrency", "8")
    try:
        wait_for_records(process, out / "results.jsonl", 4)
        workers = worker_processes(process.pid)
        assert len(workers) == 2, workers
        os.kill(workers[0], signal.SIGKILL)
        _, stderr = process.communicate(timeout=120)
        assert process.returncode == 0, stderr
    finally:
        if process.poll() is None:
            process.kill()
    found = units(out)
    assert set(found) == expected() and set(found.values()) == {1}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds worker processes through /proc")
def test_a_killed_driver_resumes_without_loss_or_duplicates(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    process = start(suite_file, out, "--workers", "2", "--concurrency", "8")
    try:
        wait_for_records(process, out / "results.jsonl", 4)
        workers = worker_processes(process.pid)
        assert len(workers) == 2, workers
        os.kill(process.pid, signal.SIGKILL)
        assert process.wait(timeout=10) == -signal.SIGKILL
    finally:
        if process.poll() is None:
            process.kill()
    deadline = time.monotonic() + 30
    while any(Path(f"/proc/{pid}").exists() and _alive(pid) for pid in workers):
        assert time.monotonic() < deadline, "workers outlived their driver"
        time.sleep(0.1)
    written = units(out)
    assert set(written.values()) == {1}
    seats = ["--agent", slowed_name("oracle"), "--user", slowed_name("scripted")]  # named again: a manifest
    # never imports the plugins it names (docs/extending.md)
    resumed = CliRunner().invoke(
        app, ["run", "--resume", "--out", str(out), *seats, "--workers", "2", "--quiet"]
    )
    assert resumed.exit_code == 0, resumed.output
    found = units(out)
    assert set(found) == expected() and set(found.values()) == {1}


def _alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for its reaper counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def test_limits_are_split_so_all_workers_together_stay_within_them() -> None:
    shares = split_limits({"openai": ProviderLimit(max_concurrent=9, requests_per_minute=100)}, 2)
    assert shares == {"openai": ProviderLimit(max_concurrent=4, requests_per_minute=50)}
    with pytest.raises(UserInputError, match="cannot be split over 4 workers"):
        split_limits({"local": ProviderLimit(max_concurrent=3)}, 4)


@given(concurrency=st.integers(min_value=1, max_value=5000), workers=st.integers(min_value=1, max_value=64))
def test_concurrency_is_split_evenly_without_idle_workers(concurrency: int, workers: int) -> None:
    shares = split_concurrency(concurrency, workers)
    assert sum(shares) == concurrency
    assert len(shares) == min(concurrency, workers)
    assert max(shares) - min(shares) <= 1


def test_ray_runs_every_unit_once(suite_file: Path, tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="the ray extra is not installed (pip install -e '.[ray]')")
    out = tmp_path / "run"
    arguments = ["run", "--suite", str(suite_file), *OFFLINE, "--trials", str(TRIALS), "--out", str(out)]
    result = CliRunner().invoke(app, [*arguments, "--ray", "local", "--workers", "2", "--concurrency", "8"])
    assert result.exit_code == 0, result.output
    found = units(out)
    assert set(found) == expected() and set(found.values()) == {1}


def test_a_local_ray_run_shows_the_user_none_of_rays_own_notices(tmp_path: Path) -> None:
    """Ray's start-up notices (token authentication, the local instance started) and its warning about
    actor arguments kept in the object store (the telecom suite's setup is large enough to be kept
    there) say nothing about the run: the user sees only tau2's own lines."""
    pytest.importorskip("ray", reason="the ray extra is not installed (pip install -e '.[ray]')")
    out = tmp_path / "run"
    arguments = ["--domain", "telecom", *OFFLINE, "--trials", "1", "--out", str(out)]
    finished = subprocess.run(
        [sys.executable, "-m", "tau2", "run", *arguments, "--ray", "local", "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert finished.returncode == 0, finished.stderr
    for notice in (
        "Token authentication is enabled",
        "Started a local Ray instance",
        "has constructor arguments in the object store",
    ):
        assert notice not in finished.stderr and notice not in finished.stdout
    assert finished.stderr.strip() == ""
    assert all(record.success for record in load_run(out).records)


class Counting:
    """Plays both seats of the mock task `both` slowly, counting the most requests held at once."""

    AGENT = (
        Reply.tool_call("get_account", {"customer": "Ada"}),
        Reply.tool_call("enable_power", {"customer": "Ada"}),
        Reply.text("Power is back on. Please plug your lamp in."),
        Reply.text("Your issue is resolved."),
    )
    USER = (
        Reply.text("My lamp is dark."),
        Reply.tool_call("plug_in"),
        Reply.text("I plugged it in and it is lit now."),
        Reply.tool_call("end_call"),
    )

    def __init__(self) -> None:
        self.in_flight = 0
        self.most = 0

    async def __call__(self, request: ChatRequest) -> Reply:
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            await asyncio.sleep(0.02)
        finally:
            self.in_flight -= 1
        replies = sum(message["role"] == "assistant" for message in request.messages)
        return self.USER[replies] if "end_call" in request.tool_names else self.AGENT[replies - 1]


def test_a_rate_limit_holds_across_workers(tmp_path: Path) -> None:
    suite = tmp_path / "both.json"
    Suite(name="both", domain="mock", tasks=[BOTH]).save(suite)
    provider = Counting()
    out = tmp_path / "run"
    with ScriptedOpenAIServer(provider) as server:
        host = urlsplit(server.base_url).netloc
        arguments = ["run", "--suite", str(suite), "--trials", "16", "--out", str(out), "--quiet"]
        for seat in ("agent", "user"):
            arguments += [
                f"--{seat}",
                "llm",
                f"--{seat}-model",
                "openai/m",
                f"--{seat}-api-base",
                server.base_url,
            ]
            arguments += [f"--{seat}-arg", "api_key=sk-test"]
        arguments += ["--workers", "2", "--concurrency", "16", "--rate-limit", f"{host}=4"]
        result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output
    assert all(record.success for record in load_run(out).records)
    assert 2 <= provider.most <= 4
