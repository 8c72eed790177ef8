"""Reading a τ²-bench results file one simulation at a time (with `ijson`'s C parser): the run's `info` and
`tasks` first, then each simulation as it is parsed, so a file of any size imports in memory bounded by
its largest simulation. A file that is not τ²-bench's Results gets one line saying what it looks like.

JSON's own rules do the first checks: `NaN`, `Infinity`, numbers beyond a float (`1e309`) and integers
beyond 64 bits are not JSON a run can hold, and are refused with the text around them.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import accumulate, repeat
from operator import itemgetter
from pathlib import Path
from typing import IO, Any, Final

import ijson
from ijson import JSONError
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from tau2._jsonfile import first_surrogate_escape, open_input, validation_error
from tau2.errors import UserInputError
from tau2.tau2bench import Tau2Task
from tau2.tau2bench_results._format import RunInfo, SimulationRun

try:  # the C parser: fast, and strict about numbers JSON does not have
    _parser = ijson.get_backend("yajl2_c")
except ImportError:  # a platform without ijson's compiled wheel
    _parser = ijson

_TASKS: Final = TypeAdapter(list[Tau2Task])
_SHOWN_KEYS: Final = 6
_SNIFFED_BYTES: Final = 1 << 16
_NEAR: Final = 8
"""Characters either side of the spot a parser error points at that are searched for a non-finite word."""

_LOOKALIKES: Final = (
    (frozenset({"pass_hat_ks"}), "τ²-bench's metrics (scores without trajectories)"),
    (frozenset({"avg_reward"}), "τ²-bench's metrics (scores without trajectories)"),
    (frozenset({"model_name", "results"}), "a leaderboard submission"),
    (frozenset({"run_id", "suite_path"}), "a tau2 run manifest"),
    (frozenset({"format", "tasks"}), "a tau2 task suite"),
)
"""Top-level keys that tell a file for a look-alike (a sentence beats a missing-field message)."""

RESULTS_SHAPE: Final = "one JSON object with `info`, `tasks` and `simulations`"
_END: Final = object()
MAX_DEPTH: Final = 256
"""How deeply a results file may nest (τ²-bench's own nest a dozen levels, tool arguments included)."""
_DEPTH_CHANGE: Final = {"start_map": 1, "start_array": 1, "end_map": -1, "end_array": -1}
_UNREADABLE: Final = (JSONError, UnicodeDecodeError)
"""What the parser raises on text that is not JSON, or not UTF-8."""


class ResultsFile(BaseModel):
    """A τ²-bench results file whose run information and tasks are read; simulations stream on demand."""

    model_config = ConfigDict(frozen=True)

    path: Path
    info: RunInfo
    tasks: list[Tau2Task]

    def has_user_messages(self) -> bool:
        """Whether any simulation has a user message (τ²-bench's solo mode has none)."""
        with _open(self.path) as handle:
            try:
                return any(
                    role == "user" for role in _parser.items(handle, "simulations.item.messages.item.role")
                )
            except _UNREADABLE:  # the simulations' own pass reports it, naming the simulation
                return True

    def simulations(self) -> Iterator[tuple[int, SimulationRun]]:
        """Each simulation with its index, validated as it is read."""
        index = 0
        with _open(self.path) as handle:
            items = _parser.items(handle, "simulations.item", use_float=True)
            while True:
                try:
                    item = next(items, _END)
                except _UNREADABLE as error:
                    raise UserInputError(
                        f"{self.path}: simulations[{index}]: {_json_problem(error)}"
                    ) from None
                if item is _END:
                    return
                try:
                    yield index, SimulationRun.model_validate(item)
                except ValidationError as error:
                    raise validation_error(self.path, error, ("simulations", index)) from None
                index += 1


def open_results(path: Path) -> ResultsFile:
    """Read the run information and tasks of the results file at `path`; anything that is not τ²-bench's
    Results is a one-line `UserInputError` saying what the file looks like."""
    _check_text(path)
    info = _first(path, "info")
    if info is None:
        raise UserInputError(f"{path}: {_looks_like(path)}, not τ²-bench's results ({RESULTS_SHAPE})")
    tasks = _first(path, "tasks")
    if tasks is None:
        raise UserInputError(f"{path}: tasks: missing; τ²-bench's results list the run's tasks")
    try:
        run_info = RunInfo.model_validate(info)
    except ValidationError as error:
        raise validation_error(path, error, ("info",)) from None
    try:
        return ResultsFile(path=path, info=run_info, tasks=_TASKS.validate_python(tasks))
    except ValidationError as error:
        raise validation_error(path, error, ("tasks",)) from None


def _open(path: Path) -> IO[bytes]:
    return open_input(path)


def _check_text(path: Path) -> None:
    """Refuse what is plainly no JSON text: an empty file, binary data, an escaped unpaired surrogate
    (which the parser would replace with `?`, or fail on as if the file were not UTF-8), or nesting no
    results file has (the parser's key paths grow with the square of the depth, so
    a file of a few hundred kilobytes nested a hundred thousand deep would take gigabytes)."""
    with _open(path) as handle:
        start = handle.read(_SNIFFED_BYTES)
    if b"\x00" in start:
        raise UserInputError(f"{path}: binary data, not JSON text (a NUL byte at byte {start.index(0)})")
    if not start.strip():
        raise UserInputError(f"{path}: the file is empty, not τ²-bench's results ({RESULTS_SHAPE})")
    with _open(path) as handle:
        surrogate = first_surrogate_escape(handle)
    if surrogate is not None:
        raise UserInputError(
            f"{path}: byte {surrogate}: an escaped unpaired UTF-16 surrogate, which is not text (a record "
            "could neither hold nor write it)"
        )
    with _open(path) as handle:
        kinds = map(itemgetter(0), _events(handle))
        deepest = max(accumulate(map(_DEPTH_CHANGE.get, kinds, repeat(0))), default=0)
    if deepest > MAX_DEPTH:
        raise UserInputError(
            f"{path}: JSON nested {deepest} levels deep (a results file needs at most {MAX_DEPTH})"
        )


def _events(handle: IO[bytes]) -> Iterator[tuple[str, Any]]:
    """The parser's events without key paths, up to the first error (the later passes report it, with the
    simulation it is in)."""
    try:
        yield from _parser.basic_parse(handle)
    except _UNREADABLE:
        return


def _first(path: Path, key: str) -> Any | None:
    """The value of the top-level `key`, parsed alone (None when the file has none)."""
    with _open(path) as handle:
        try:
            return next(iter(_parser.items(handle, key, use_float=True)), None)
        except _UNREADABLE as error:
            if "trailing garbage" in str(error):
                raise UserInputError(
                    f"{path}: JSON Lines (one JSON value per line), not τ²-bench's results ({RESULTS_SHAPE})"
                ) from None
            raise UserInputError(f"{path}: {_json_problem(error)}") from None


def _looks_like(path: Path) -> str:
    """What a file without a top-level `info` is: a list (of tasks, of simulations), a known look-alike,
    or an object with other keys."""
    with _open(path) as handle:
        events = _parser.parse(handle, use_float=True)
        try:
            _, first, _ = next(events)
            if first == "start_array":
                return "a JSON list" + _list_of(events)
            if first != "start_map":
                return f"a single JSON {first.replace('start_', '')}"
            keys = [value for prefix, event, value in events if prefix == "" and event == "map_key"]
        except _UNREADABLE as error:
            raise UserInputError(f"{path}: {_json_problem(error)}") from None
    for needed, name in _LOOKALIKES:
        if needed <= set(keys):
            return name
    shown = ", ".join(keys[:_SHOWN_KEYS]) + (", …" if len(keys) > _SHOWN_KEYS else "")
    return f"a JSON object with keys {shown}" if keys else "an empty JSON object"


def _list_of(events: Iterator[tuple[str, str, Any]]) -> str:
    """What the first item of a list holds: tasks or simulations, as far as its keys tell."""
    keys = set()
    for prefix, event, value in events:
        if prefix == "item" and event == "map_key":
            keys.add(value)
        elif (prefix == "item" and event == "end_map") or (prefix == "" and event == "end_array"):
            break
    if "user_scenario" in keys:
        return " of tasks (a task file: run it with `tau2 run --suite`)"
    if "messages" in keys:
        return " of simulations, without the run's info and tasks"
    return ""


_PROBLEMS: Final = (
    ("premature EOF", "the JSON ends early (a truncated file?)"),
    ("numeric (floating point) overflow", "a number too large for a float (such as 1e309)"),
    ("integer overflow", "an integer beyond 64 bits"),
)


def _json_problem(error: JSONError | UnicodeDecodeError) -> str:
    """One line for a parser error: what is wrong and the text around it (the parser's own message spans
    several lines, drawing an arrow under the spot)."""
    if isinstance(error, UnicodeDecodeError):
        return f"cannot read: not UTF-8 text ({error.reason})"
    lines = str(error).splitlines()
    message = lines[0].rstrip(".") if lines else "invalid JSON"
    context = lines[1] if len(lines) > 1 else ""
    marker = lines[2].find("^") if len(lines) > 2 else -1
    near = context[max(0, marker - _NEAR) : marker + _NEAR] if marker >= 0 else context
    for token in ("NaN", "Infinity"):  # the parser stops a character or two into the word
        if token in near:
            return f"{token} is not a JSON number (non-finite numbers cannot be stored)"
    for text, problem in _PROBLEMS:
        if text in message:
            message = problem
            break
    shown = "".join(char if char.isprintable() else "?" for char in context.strip())
    return f"invalid JSON: {message}" + (f" near `{shown}`" if shown else "")
