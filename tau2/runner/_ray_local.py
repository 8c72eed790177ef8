"""A local Ray cluster that lives exactly as long as its driver, and that keeps its start-up notices to
itself.

`ray.init` ties the processes it starts itself to the driver (they die with it), but not those its raylet
starts: the dashboard and runtime-env agents outlive a driver killed with `kill -9` by a minute or more.
So before starting a local cluster the driver starts a reaper, a small process in its own session that
holds the read end of a pipe from the driver, and marks the processes it starts for the cluster with an
environment variable naming that reaper. While the driver lives, the reaper keeps a list of the marked
processes below the driver and of everything they start (Ray renames its processes in a way that can
wipe the environment `/proc` shows, so the mark alone cannot be read back at the end). However the driver
ends, the pipe closes, and the reaper kills every process on its list, and any still carrying its mark,
then exits. The reaper reads `/proc`, so it runs on Linux; elsewhere the cluster is left to Ray's own
clean-up.
"""

from __future__ import annotations

import logging
import os
import select
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

MARK = "TAU2_RAY_REAPER"
"""The environment variable whose value names the reaper that owns a process of a local cluster."""

SWEEPS = 50
"""Passes the reaper makes over the process table, a tenth of a second apart, until none is left."""

WATCH_S = 0.25
"""Seconds between the reaper's looks at the driver's processes while it waits."""

HARMLESS_NOTICES = ("Token authentication is enabled for this Ray cluster", "Started a local Ray instance")
"""Start of the messages Ray logs on every start of a local cluster: they say nothing about the run."""

_reapers: list[IO[bytes]] = []
"""The driver's ends of its reapers' pipes, open until the driver exits (closing one wakes its reaper)."""


def init_local(ray: Any) -> None:
    """Start a new local Ray cluster that dies with this process, without Ray's start-up notices."""
    quiet_notices()
    with _marked(_start_reaper()):
        ray.init(address="local", log_to_driver=False)


@contextmanager
def installation_as_working_directory() -> Iterator[None]:
    """Ray puts the driver's working directory first on every worker's module path, so a `.py` file in the
    folder tau2 runs from (a shared run directory) would be imported by the workers in place of what they
    import: while Ray starts and takes note of it, the working directory is the interpreter's own folder."""
    here = os.getcwd()
    os.chdir(Path(sys.executable).parent)
    try:
        yield
    finally:
        os.chdir(here)


def quiet_notices() -> None:
    """Keep Ray's harmless start-up notices out of what the user sees; every other message still shows."""
    for handler in logging.getLogger("ray").handlers:
        if not any(isinstance(existing, _NoticeFilter) for existing in handler.filters):
            handler.addFilter(_NoticeFilter())


class _NoticeFilter(logging.Filter):
    """Drops the log records that are one of `HARMLESS_NOTICES`."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.getMessage().startswith(HARMLESS_NOTICES)


def _start_reaper() -> str | None:
    """Start this driver's reaper and return the mark its cluster's processes must carry; None where the
    reaper cannot see processes' environments."""
    if not Path("/proc/self/environ").exists():
        return None
    name = uuid.uuid4().hex
    environment = {key: value for key, value in os.environ.items() if key != MARK}
    reaper = subprocess.Popen(
        [sys.executable, "-m", "tau2.runner._ray_local", str(os.getpid()), name],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=environment,
        start_new_session=True,
    )
    assert reaper.stdin is not None
    _reapers.append(reaper.stdin)
    return name


@contextmanager
def _marked(name: str | None) -> Iterator[None]:
    """Processes started in the block carry the mark `name` (nothing is marked for None)."""
    if name is None:
        yield
        return
    os.environ[MARK] = name
    try:
        yield
    finally:
        os.environ.pop(MARK, None)


def reap(name: str, known: dict[int, int] | None = None) -> int:
    """Kill every process marked with `name`, or in `known` (pid → start time, so that a reused pid is
    spared), and everything they started, other than this process; returns how many were killed."""
    entry = f"{MARK}={name}".encode()
    known = dict(known or {})
    killed = 0
    for _ in range(SWEEPS):
        marked = {pid for pid in _processes() if entry in _environment(pid)}
        doomed = {pid for pid, started in known.items() if _start_time(pid) == started} | marked
        doomed |= {child for pid in doomed for child in _descendants(pid)}
        doomed.discard(os.getpid())
        if not doomed:
            break
        for pid in doomed:
            started = _start_time(pid)
            if started is not None:
                known.setdefault(pid, started)
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
        time.sleep(0.1)
    return killed


def watch(driver: int, name: str, known: dict[int, int]) -> None:
    """Add to `known` the driver's processes that carry the mark `name`, and all they started."""
    entry = f"{MARK}={name}".encode()
    for pid in _descendants(driver):
        if pid in known:
            continue
        started = _start_time(pid)
        if started is not None and (entry in _environment(pid) or _parent(pid) in known):
            known[pid] = started


def _descendants(pid: int) -> list[int]:
    """Every process below `pid`, parents before their children."""
    found: list[int] = []
    waiting = [pid]
    while waiting:
        parent = waiting.pop(0)
        for task in _listing(Path(f"/proc/{parent}/task")):
            try:
                children = [int(child) for child in (task / "children").read_text().split()]
            except OSError:
                continue
            found += [child for child in children if child not in found]
            waiting += children
    return found


def _listing(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


def _processes() -> list[int]:
    return [int(entry.name) for entry in _listing(Path("/proc")) if entry.name.isdigit()]


def _environment(pid: int) -> list[bytes]:
    """The entries of a process's environment as it started, or none if it is gone or not readable."""
    try:
        return Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return []


def _stat(pid: int) -> list[str]:
    """The fields of `/proc/PID/stat` after the command name (the state first), or none."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def _parent(pid: int) -> int | None:
    fields = _stat(pid)
    return int(fields[1]) if len(fields) > 1 else None


def _start_time(pid: int) -> int | None:
    """When the process started, in clock ticks since boot: with the pid, it names one process."""
    fields = _stat(pid)
    return int(fields[19]) if len(fields) > 19 else None


def _wait_for_driver_then_reap(driver: int, name: str) -> None:
    """The reaper's whole life: watch the driver's processes until its end of the pipe closes, then
    kill them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    known: dict[int, int] = {}
    stream = sys.stdin.buffer
    while True:
        readable, _, _ = select.select([stream], [], [], WATCH_S)
        if readable and not os.read(stream.fileno(), 4096):
            break
        watch(driver, name, known)
    reap(name, known)


if __name__ == "__main__":
    _wait_for_driver_then_reap(int(sys.argv[1]), sys.argv[2])
