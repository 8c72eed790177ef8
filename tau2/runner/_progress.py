"""Live counts of a run (done, running, passed, failed, infrastructure errors, pass^1 so far, tokens,
cost) and their progress bar.

Tokens and cost move with every model call when the executor feeds them in (`Recorder.follow_calls`), else
with every finished simulation. A call costs a few additions; the bar renders on its own timer.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from typing import NamedTuple

from rich.console import Console
from rich.progress import BarColumn, Progress, ProgressColumn, Task, TaskID, TimeElapsedColumn
from rich.text import Text

from tau2.llm import spent_text
from tau2.runs import SimulationRecord


class Outcome(NamedTuple):
    """What the counts of a run need of one record, without its transcript: a few fields kept per unit
    where a whole record would weigh tens of kilobytes."""

    task_id: str
    trial: int
    excluded: bool
    """An infrastructure error (never judged; runs again on resume)."""
    success: bool
    calls: tuple[tuple[int, float | None, int, float], ...]
    """Per seat: the tokens and the cost spent (None: unpriced) of its model calls, and how many of them
    the model cache answered, saving what."""
    detail: str | None
    """Why the simulation ended as it did (read for infrastructure errors)."""

    @classmethod
    def of(cls, record: SimulationRecord) -> Outcome:
        """The outcome of `record`."""
        return cls(
            record.task_id,
            record.trial,
            record.excluded,
            record.success,
            tuple(
                (seat.prompt_tokens + seat.completion_tokens, seat.spent, seat.cached_calls, seat.cached_cost)
                for seat in record.usage.values()
            ),
            record.termination_detail,
        )


class Tally:
    """Running counts of a run, fed one finished record (or its `Outcome`) at a time."""

    def __init__(self, total: int, previous: Iterable[SimulationRecord | Outcome] = ()) -> None:
        self.total = total
        """Units in the whole run (tasks × trials)."""
        self.done = 0
        """Units with a judged record (infrastructure errors are not judged)."""
        self.passed = 0
        """Judged units that succeeded."""
        self.failed = 0
        """Judged units that did not succeed (the agent's failures, not the framework's)."""
        self.infra_errors = 0
        """Infrastructure errors in this session: never judged, they run again on resume."""
        self.running = 0
        self.tokens = 0
        self.cost = 0.0
        """Priced cost spent, in USD (answers from the model cache cost nothing)."""
        self.unpriced = 0
        """Records with a seat whose model was unpriced (unpriced calls, when counting live)."""
        self.cached = 0
        """Model calls the model cache answered."""
        self.saved = 0.0
        """What those answers cost when they were first asked, in USD: the spend the cache saved."""
        self.live = False
        """Whether tokens and cost come from each model call (`call`) rather than finished records."""
        self._tasks: dict[str, tuple[int, int]] = {}
        self._rate_sum = 0.0
        for record in previous:
            if not record.excluded:
                self.add(record)

    def start(self) -> None:
        """A unit began simulating."""
        self.running += 1

    def abandon(self) -> None:
        """A unit that `start` counted stopped without a record (its worker died); it runs again."""
        self.running -= 1

    def finish(self, record: SimulationRecord) -> None:
        """A unit that `start` counted ended with `record` (whose calls were counted already if live)."""
        self.running -= 1
        self.add(record, usage=not self.live)

    def call(self, tokens: int, cost: float | None, cached: int = 0, saved: float = 0.0) -> None:
        """One model call's tokens and cost spent (None: unpriced), counted as it happens; `cached` and
        `saved` count the calls of it the model cache answered and what they would have cost."""
        self.tokens += tokens
        if cost is None:
            self.unpriced += 1
        else:
            self.cost += cost
        self.cached += cached
        self.saved += saved

    def add(self, record: SimulationRecord | Outcome, *, usage: bool = True) -> None:
        """Count one record: judged ones towards pass^1, and (with `usage`) its tokens and cost."""
        if isinstance(record, SimulationRecord):
            record = Outcome.of(record)
        if usage:
            for tokens, cost, cached, saved in record.calls:
                self.call(tokens, cost, cached, saved)
        if record.excluded:
            self.infra_errors += 1
            return
        self.done += 1
        if record.success:
            self.passed += 1
        else:
            self.failed += 1
        trials, successes = self._tasks.get(record.task_id, (0, 0))
        if trials:
            self._rate_sum -= successes / trials
        trials, successes = trials + 1, successes + record.success
        self._tasks[record.task_id] = (trials, successes)
        self._rate_sum += successes / trials

    @property
    def pass_1(self) -> float | None:
        """Success rate averaged over tasks with a judged record so far."""
        return self._rate_sum / len(self._tasks) if self._tasks else None

    def cost_text(self) -> str:
        """`$0.0123`; unpriced usage is said so (`unpriced`, `$0.0123 + unpriced`), never counted as free;
        answers from the model cache follow (`$0.0000 (42 calls from the cache, $0.0123 saved)`)."""
        text = spent_text(self.cost, bool(self.unpriced))
        if self.cached:
            calls = "call" if self.cached == 1 else "calls"
            text += f" ({self.cached} {calls} from the cache, ${self.saved:.4f} saved)"
        return text

    def stats_text(self) -> str:
        """One line of the live counts."""
        pass_1 = "–" if self.pass_1 is None else f"{self.pass_1:.3f}"
        return (
            f"{self.done}/{self.total} done · {self.running} running · {self.passed} passed · "
            f"{self.failed} failed · {self.infra_errors} infra errors · pass^1 {pass_1} · "
            f"{_compact(self.tokens)} tokens · {self.cost_text()}"
        )


def _compact(count: int) -> str:
    """`950`, `12.3k`, `4.56M`."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.2f}M"


class RunProgress:
    """What a run reports as it goes. Every hook here does nothing but pass warnings on as Python warnings;
    subclass it to show or log progress (`ProgressBar` draws a bar). The tally's tokens and cost move with
    every model call, between hooks."""

    def warning(self, message: str) -> None:
        """Something about the run worth knowing before it starts (a setting that is ignored, damaged
        results set aside, seats that cannot work together)."""
        warnings.warn(message, stacklevel=2)

    def begin(self, tally: Tally) -> None:
        """The run is about to simulate; `tally` counts what its store already holds."""

    def update(self, tally: Tally) -> None:
        """A simulation started, ended, or stopped without a record (and will run again)."""

    def end(self, tally: Tally) -> None:
        """The run stopped simulating: done, interrupted or failed."""


class ProgressBar(RunProgress):
    """A rich progress bar of the run's tally on stderr; inert when disabled (quiet, or stderr is no
    terminal). The counts line renders on the bar's own timer, four times a second."""

    def __init__(self, *, enabled: bool = True, console: Console | None = None) -> None:
        self._console = console or Console(stderr=True)
        self._enabled = enabled and self._console.is_terminal
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def begin(self, tally: Tally) -> None:
        """Show the bar."""
        if not self._enabled:
            return
        self._progress = Progress(
            BarColumn(bar_width=20),
            _StatsColumn(tally),
            TimeElapsedColumn(),
            console=self._console,
            refresh_per_second=4,
        )
        self._progress.start()
        self._task = self._progress.add_task("run", total=tally.total)
        self.update(tally)

    def update(self, tally: Tally) -> None:
        """Move the bar to the tally's finished count."""
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, completed=tally.done + tally.infra_errors)

    def end(self, tally: Tally) -> None:
        """Draw the final counts and stop."""
        if self._progress is not None:
            self.update(tally)
            self._progress.refresh()
            self._progress.stop()
            self._progress = None


class _StatsColumn(ProgressColumn):
    """The tally's counts line, read afresh at every refresh of the bar (4 times a second)."""

    def __init__(self, tally: Tally) -> None:
        super().__init__()
        self._tally = tally

    def render(self, task: Task) -> Text:
        """The current counts."""
        return Text(self._tally.stats_text())
