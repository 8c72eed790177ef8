"""Ctrl-C, SIGTERM and SIGHUP end the command line the same way: stop, keep what is recorded, print one
line, exit 128 + the signal number (130 for Ctrl-C).

This module imports only the standard library: `tau2.cli` installs the handlers before its heavy imports,
so a signal that arrives while the program is still starting never prints a traceback. Until a command
runs there is nothing to save, so the process leaves at once; while one runs, the signal becomes an
`Interrupted` exception that unwinds the command (closing the files it writes) up to the error reporter.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
from collections.abc import Iterator
from types import FrameType

HANDLED = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
"""The signals treated like Ctrl-C (SIGHUP does not exist on Windows)."""


class Interrupted(KeyboardInterrupt):
    """A handled signal arrived while a command ran; a `KeyboardInterrupt`, so the code that already
    stops cleanly on Ctrl-C stops cleanly on all of them."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal_name(signum))
        self.signum = signum


class Stopped(Exception):
    """Raised by a command that caught an interruption and saved its work; `note` says what was kept.

    (Not a `KeyboardInterrupt`: Typer would turn that into a bare exit 130 and lose the note.)"""

    def __init__(self, interruption: KeyboardInterrupt, note: str) -> None:
        super().__init__(note)
        self.signum = interruption.signum if isinstance(interruption, Interrupted) else int(signal.SIGINT)
        self.note = note


def signal_name(signum: int) -> str:
    """`SIGTERM` for 15, and so on."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


class _State:
    """Whether a command is running (signals raise) and whether one signal already arrived."""

    running = False
    received: int | None = None


def _leave(signum: int) -> None:
    """End the process now with the conventional code, after one line (nothing is being written)."""
    with contextlib.suppress(OSError, ValueError, RuntimeError):
        sys.stdout.flush()
    os.write(2, f"interrupted by {signal_name(signum)}\n".encode())
    os._exit(128 + signum)


def _handle(signum: int, frame: FrameType | None) -> None:
    """Raise `Interrupted` inside a running command; otherwise, or on a second signal, leave at once."""
    if not _State.running or _State.received is not None:
        _leave(signum)
    _State.received = signum
    raise Interrupted(signum)


def received() -> int | None:
    """The signal that interrupted the last command, if one did."""
    return _State.received


def running_command_line() -> bool:
    """Whether this process is the `tau2` program (console script or `python -m tau2`), not a library user
    nor one of its worker processes (which re-run the program's main module, and which their parent stops)."""
    multiprocessing = sys.modules.get("multiprocessing")
    if multiprocessing is not None and multiprocessing.current_process().name != "MainProcess":
        return False  # a spawned worker: its name is set before it imports the main module
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name == "tau2.__main__":
        return True
    return os.path.basename(sys.argv[0]) in ("tau2", "tau2.exe") if sys.argv else False


class QuietInterruptions(logging.Filter):
    """Drops asyncio's reports of tasks that ended with an `Interrupted` (a signal that landed inside one
    of a run's tasks, which asyncio then reports as never retrieved): the command already said it once."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, Interrupted)


def install() -> None:
    """Take over the handled signals for the command line (a no-op when tau2 is used as a library)."""
    if not running_command_line():
        return
    logging.getLogger("asyncio").addFilter(QuietInterruptions())
    for signum in HANDLED:
        signal.signal(signum, _handle)


@contextlib.contextmanager
def command_running() -> Iterator[None]:
    """While inside, a handled signal raises `Interrupted` in the command instead of ending the process."""
    _State.running = True
    _State.received = None
    try:
        yield
    finally:
        _State.running = False
