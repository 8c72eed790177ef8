"""A local Ray cluster that lives exactly as long as its driver, and that keeps its start-up notices to
itself.

`ray.init` ties the processes it starts itself to the driver (they die with it), but not those its raylet
starts: the dashboard and runtime-env agents outlive a driver killed with `kill -9` by a minute or more.
So before starting a local cluster the driver starts a reaper, a small process in its own session that
holds the read end of a pipe from the driver, and marks every process of the cluster with an environment
variable naming that reaper. However the driver ends, the pipe closes, and the reaper kills every process
carrying its mark, then exits. The reaper reads processes' environments from `/proc`, so it runs on Linux;
elsewhere the cluster is left to Ray's own clean-up.
"""

from __future__ import annotations

import logging
import os
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

HARMLESS_NOTICES = ("Token authentication is enabled for this Ray cluster", "Started a local Ray instance")
"""Start of the messages Ray logs on every start of a local cluster: they say nothing about the run."""

_reapers: list[IO[bytes]] = []
"""The driver's ends of its reapers' pipes, open until the driver exits (closing one wakes its reaper)."""


def init_local(ray: Any) -> None:
    """Start a new local Ray cluster that dies with this process, without Ray's start-up notices."""
    quiet_notices()
    with _marked(_start_reaper()):
        ray.init(address="local", log_to_driver=False)


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
        [sys.executable, "-m", "tau2.runner._ray_local", name],
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


def reap(name: str) -> int:
    """Kill every process marked with `name` (other than this one); returns how many were killed."""
    entry = f"{MARK}={name}".encode()
    killed = 0
    for _ in range(SWEEPS):
        marked = [pid for pid in _processes() if pid != os.getpid() and entry in _environment(pid)]
        if not marked:
            break
        for pid in marked:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
        time.sleep(0.1)
    return killed


def _processes() -> list[int]:
    return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]


def _environment(pid: int) -> list[bytes]:
    """The entries of a process's environment as it started, or none if it is gone or not readable."""
    try:
        return Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return []


def _wait_for_driver_then_reap(name: str) -> None:
    """The reaper's whole life: read until the driver's end of the pipe closes, then reap."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while sys.stdin.buffer.read(4096):
        pass
    reap(name)


if __name__ == "__main__":
    _wait_for_driver_then_reap(sys.argv[1])
