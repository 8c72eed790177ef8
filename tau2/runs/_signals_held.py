"""A finished record is stored whole or not at all: the signals that stop a command are held while it is
serialised and queued, and raised as soon as it is.

A signal's Python handler runs between two bytecodes, which may fall inside a serialiser's callback; the
serialiser then reports the `KeyboardInterrupt` as an error of the record, and the interruption is lost
(the record stored as an infrastructure error, the run going on to its end). Held here, the signal meets
the handler it would have met, right after the section, where nothing swallows what it raises.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Final

HELD: Final = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)
"""The signals held: Ctrl-C and the signals the command line treats like it."""

Handler = Callable[[int, FrameType | None], object]


@contextmanager
def signals_held() -> Iterator[None]:
    """While inside, a held signal is only noted; on leaving, the first one noted is handed to the handler
    it would have met (which raises, for the command line's handlers and Python's Ctrl-C). Signals without
    a Python handler (the defaults, ignored ones) are left alone, and so is every thread but the main one,
    where no signal handler runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    landed: list[int] = []

    def note(signum: int, frame: FrameType | None) -> None:
        landed.append(signum)

    previous: dict[int, Handler] = {}
    for signum in HELD:
        handler = signal.getsignal(signum)
        if callable(handler):
            previous[signum] = handler
            signal.signal(signum, note)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if landed:
            previous[landed[0]](landed[0], None)
