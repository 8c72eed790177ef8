"""Renaming a task by replaying its reference actions on the original world and on the renamed world side
by side. Each renamed action must do there what the original did here: its result must be the renamed
image of the original result. Along the way the replay learns what no static renaming can know: the
identifiers the domain's tools write (a new account's id hashed from its owner's id), the values they
derive (the last digits of a card, a sum of changed prices), so the later actions, the assertions and the
expected outputs that name them are renamed too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from tau2.rebrand._changes import Change, call_with_changes
from tau2.rebrand._documents import dumped_like, parsed_json
from tau2.rebrand._numbers import PLAIN, as_json_number, numbers_changed, to_decimal
from tau2.rebrand._outputs import with_values
from tau2.rebrand._renaming import Renaming
from tau2.rebrand._results import difference, kept_sorted, short, sorted_like
from tau2.rebrand._text import RUN
from tau2.tasks import SolutionStep, Task, TaskSetupError, initialize_world
from tau2.world import ToolResult, World

_TOKENS = re.compile(r"(\d+\.\d+|[\w-]+)")
"""Words of a text as identifiers write them (`IDR_93be3ce5`, `555-123-2002`), kept by `split`."""


@dataclass
class RenamedTask:
    """A task renamed by replay, with what the replay learned and every place the renamed task did not
    behave as the image of the original (empty when it is consistent)."""

    original: Task
    task: Task
    renaming: Renaming
    """The renaming the task was renamed with, the identifiers its tools wrote included."""
    values: dict[Decimal, Decimal] = field(default_factory=dict)
    """Values the replay traced (old → new): changed data the actions read, and what tools computed."""
    problems: list[str] = field(default_factory=list)
    setup: str | None = None
    """Why the original task could not be set up on its own data (then nothing was replayed)."""
    end: BaseModel | None = None
    """The renamed world's state after the renamed reference actions (the reference end state a database
    check compares with); None when nothing was replayed."""


@dataclass
class _Replay:
    """What one task's replay has learned so far, and the problems it found."""

    renaming: Renaming
    learned: dict[str, str] = field(default_factory=dict)
    """Identifiers the tools wrote, old → new."""
    derived: dict[str, str] = field(default_factory=dict)
    """Other words the tools derived from renamed data (a card's last digits), old → new."""
    values: dict[Decimal, Decimal] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    _current: Renaming | None = None

    @property
    def current(self) -> Renaming:
        """The renaming with the identifiers learned so far (built again only after learning one)."""
        if self._current is None:
            self._current = self.renaming.extended(self.learned)
        return self._current

    def renamed(self, old: str) -> str | None:
        """What an identifier has become so far: learned, else renamed; None for no identifier."""
        return self.learned.get(old, self.renaming.identifiers.get(old))

    def learn_identifier(self, old: str, new: str, where: str) -> None:
        """Note that `old` became `new`; a task's own identifier that a tool wrote replaces its renaming."""
        known = self.renamed(old)
        if known == new:
            return
        if known is not None and (old in self.learned or old not in self.renaming.task_only):
            self.problems.append(f"{where}: {old!r} became {new!r}, not its renaming {known!r}")
            return
        if new in self.renaming.renamed or new in self.learned.values():
            self.problems.append(f"{where}: {old!r} became {new!r}, which renames another identifier")
            return
        self.learned[old] = new
        self._current = None

    def learn_value(self, old: Decimal, new: Decimal, where: str) -> None:
        """Note that the value `old` became `new` (a changed price the renamed world read or computed)."""
        known = self.values.get(old)
        if known is not None and known != new:
            self.problems.append(f"{where}: the value {old} became both {known} and {new}")
            return
        self.values[old] = new

    def align(self, old: Any, new: Any, where: str) -> None:
        """Learn from two values that should correspond: unknown identifiers and changed numbers."""
        if isinstance(old, dict) and isinstance(new, dict) and len(old) == len(new):
            for (old_key, old_item), (new_key, new_item) in zip(old.items(), new.items(), strict=True):
                self.align_text(str(old_key), str(new_key), where)
                self.align(old_item, new_item, where)
        elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
            if kept_sorted(old) and sorted(self.image(item) for item in old) == sorted(new):
                return
            for old_item, new_item in zip(old, new, strict=True):
                self.align(old_item, new_item, where)
        elif isinstance(old, str) and isinstance(new, str):
            old_json, new_json = parsed_json(old), parsed_json(new)
            if old_json is not None and new_json is not None:
                self.align(old_json, new_json, where)
            else:
                self.align_text(old, new, where)
        elif _is_number(old) and _is_number(new) and old != new:
            self.learn_value(to_decimal(old), to_decimal(new), where)

    def align_text(self, old: str, new: str, where: str) -> None:
        """Learn from two strings that should correspond: an identifier, a number, or a text whose words
        correspond one by one."""
        if old == new or self.image_text(old) == new:
            return
        if self.renamed(old) is not None or (_identifier_like(old) and _identifier_like(new)):
            self.learn_identifier(old, new, where)
        elif PLAIN.match(old) and PLAIN.match(new):
            self.learn_derived(old, new, where)
        else:
            self.align_words(self.image_text(old), new, where)

    def align_words(self, expected: str, new: str, where: str) -> None:
        """Learn from two texts that correspond word by word: the words the renamed world wrote otherwise
        than the image of the original are identifiers or numbers its tools derived."""
        expected_words, new_words = _TOKENS.split(expected), _TOKENS.split(new)
        if len(expected_words) != len(new_words):
            return
        for old_word, new_word in zip(expected_words[1::2], new_words[1::2], strict=True):
            if old_word == new_word:
                continue
            if PLAIN.match(old_word) and PLAIN.match(new_word):
                self.learn_derived(old_word, new_word, where)
            elif self.renamed(old_word) is None and _identifier_like(old_word) and _identifier_like(new_word):
                self.learn_identifier(old_word, new_word, where)

    def learn_derived(self, old: str, new: str, where: str) -> None:
        """Note a number the renamed world derived otherwise (a card's last digits, a changed price)."""
        self.derived.setdefault(old, new)
        self.learn_value(to_decimal(old), to_decimal(new), where)

    def image_text(self, text: str) -> str:
        """Free text as the renamed world should write it: renamed, traced numbers changed."""
        renamed = self.current.text(text)
        return numbers_changed(renamed, self.values.get) if self.values else renamed

    def image(self, value: Any) -> Any:
        """A tool's result content as the renamed world should give it (JSON in text compared parsed)."""
        if isinstance(value, str):
            inner = parsed_json(value)
            return self.image_text(value) if inner is None else self.image(inner)
        if isinstance(value, dict):
            return {self.image_key(key): self.image(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.image(item) for item in value]
        if _is_number(value):
            new = self.values.get(to_decimal(value))
            return value if new is None else as_json_number(new, value)
        return value

    def image_key(self, key: Any) -> Any:
        """A map key as the renamed world should write it."""
        if not isinstance(key, str):
            return key
        renamed = self.renamed(key)
        return renamed if renamed is not None else self.image_text(key)

    def equivalent_text(self, expected: str, actual: str) -> bool:
        """Whether two texts agree but for identifiers too short to be renamed in text (`05`), which the
        renamed world writes renamed, and numbers written with other decimals: word by word, each differing
        word must be one of those."""
        if expected == actual:
            return True
        expected_words, actual_words = _TOKENS.split(expected), _TOKENS.split(actual)
        if len(expected_words) != len(actual_words):
            return False
        return all(
            left == right or self.renamed(left) == right or _same_number(left, right)
            for left, right in zip(expected_words, actual_words, strict=True)
        )

    def equivalent(self, expected: Any, actual: Any) -> bool:
        """Whether a result agrees with the image of the original (see `equivalent_text`)."""
        if isinstance(expected, str) and isinstance(actual, str):
            return self.equivalent_text(expected, actual)
        if isinstance(expected, dict) and isinstance(actual, dict):
            return list(expected) == list(actual) and all(
                self.equivalent(expected[key], actual[key]) for key in expected
            )
        if isinstance(expected, list) and isinstance(actual, list):
            return len(expected) == len(actual) and all(
                self.equivalent(left, right) for left, right in zip(expected, actual, strict=True)
            )
        return bool(expected == actual)


def rename_task(renaming: Renaming, task: Task, source: Path | None, target: Path) -> RenamedTask:
    """`task` renamed for the renamed data in `target` (the original data is `source`, None for the
    domain's own), by replaying its reference actions on both worlds."""
    return replay_renamed(
        renaming,
        task,
        lambda original: initialize_world(original, source),
        lambda renamed: initialize_world(renamed, target),
    )


def replay_renamed(
    renaming: Renaming,
    task: Task,
    original_world: Callable[[Task], World],
    renamed_world: Callable[[Task], World],
) -> RenamedTask:
    """`task` renamed by replaying its reference actions on the fresh world `original_world` sets up for it
    and on the one `renamed_world` sets up for its renamed form (each may raise `TaskSetupError`)."""
    static = renaming.task(task)
    try:
        original = original_world(task)
    except TaskSetupError as error:
        return RenamedTask(task, static, renaming, setup=error.reason)
    replay = _Replay(renaming)
    try:
        renamed_start = renamed_world(static)
    except TaskSetupError as error:
        replay.problems.append(f"the renamed task cannot be set up: {error.reason}")
        return RenamedTask(task, static, renaming, problems=replay.problems)
    steps: list[SolutionStep] = []
    total = len(task.evaluation.solution)
    for number, step in enumerate(task.evaluation.solution, start=1):
        where = f"reference action {number} of {total} ({step.name})"
        renamed = _traced_arguments(replay, replay.current.step(step))
        replay.align(step.arguments, renamed.arguments, where)
        steps.append(renamed)
        original_result, original_changes = call_with_changes(original, step)
        renamed_result, renamed_changes = call_with_changes(renamed_start, renamed)
        _learn_changes(replay, original_changes, renamed_changes, where)
        if original_result.ok and renamed_result.ok:
            replay.align(original_result.content, renamed_result.content, where)
        _compare(replay, original_result, renamed_result, where)
    final = replay.current
    renamed_task = final.task(task)
    renamed_task = renamed_task.model_copy(
        update={"evaluation": renamed_task.evaluation.model_copy(update={"solution": steps})}
    )
    renamed_task = with_values(renamed_task, replay.values, final)
    return RenamedTask(task, renamed_task, final, replay.values, replay.problems, end=renamed_start.state)


def _learn_changes(replay: _Replay, original: list[Change], renamed: list[Change], where: str) -> None:
    """Learn from the state changes of an action on both worlds, paired in document order."""
    if len(original) != len(renamed):
        replay.problems.append(
            f"{where}: it changed {len(renamed)} places of the renamed state, {len(original)} of the original"
        )
        return
    for (old_path, old_value), (new_path, new_value) in zip(original, renamed, strict=True):
        if len(old_path) == len(new_path):
            for old_part, new_part in zip(old_path, new_path, strict=True):
                replay.align_text(old_part, new_part, where)
        replay.align(old_value, new_value, where)


def _compare(replay: _Replay, original: ToolResult, renamed: ToolResult, where: str) -> None:
    """Note where an action's renamed result is not the image of its original result."""
    if original.error is None and renamed.error is not None:
        replay.problems.append(f"{where}: only the renamed action failed: {short(renamed.error.message)}")
        return
    if original.error is not None and renamed.error is None:
        replay.problems.append(f"{where}: only the original action failed: {short(original.error.message)}")
        return
    if original.error is not None and renamed.error is not None:
        expected_message = replay.image_text(original.error.message)
        if original.error.code != renamed.error.code or not replay.equivalent_text(
            expected_message, renamed.error.message
        ):
            replay.problems.append(
                f"{where}: the actions failed differently: expected {short(expected_message)}, "
                f"got {short(renamed.error.message)}"
            )
        return
    content = original.content
    parsed = parsed_json(content) if isinstance(content, str) else None
    original_content = content if parsed is None else parsed
    expected = replay.image(original_content)
    actual = renamed.content
    if parsed is not None and isinstance(actual, str):
        actual = parsed_json(actual) or actual
    if not replay.equivalent(sorted_like(expected, original_content), sorted_like(actual, original_content)):
        replay.problems.append(f"{where}: result differs: {difference(expected, actual)}")


def _traced_arguments(replay: _Replay, step: SolutionStep) -> SolutionStep:
    """A renamed action with what earlier actions taught: values derived by the renamed world (a card's
    last digits) in place of the original's, and traced numbers in the text arguments a value rule names
    (`calculate.expression`)."""
    arguments: dict[str, Any] = step.arguments
    if replay.derived:
        arguments = _replaced_values(arguments, replay.derived)
    if replay.values:
        arguments = replay.renaming.numbers_in_arguments(step.name, arguments, replay.values.get)
    return step if arguments == step.arguments else step.model_copy(update={"arguments": arguments})


def _replaced_values(value: Any, words: Mapping[str, str]) -> Any:
    """`value` with every string equal to a key of `words` replaced, at any depth (JSON text included)."""
    if isinstance(value, dict):
        return {key: _replaced_values(item, words) for key, item in value.items()}
    if isinstance(value, list):
        return [_replaced_values(item, words) for item in value]
    if isinstance(value, str):
        if value in words:
            return words[value]
        inner = parsed_json(value)
        if inner is not None:
            replaced = _replaced_values(inner, words)
            if replaced != inner:
                return dumped_like(value, replaced)
    return value


def _same_number(left: str, right: str) -> bool:
    """Whether two words write the same number (`2995.30`, `2995.3`)."""
    return bool(PLAIN.match(left) and PLAIN.match(right)) and to_decimal(left) == to_decimal(right)


def _is_number(value: Any) -> bool:
    """Whether a JSON value is a number (not a boolean)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _identifier_like(text: str) -> bool:
    """Whether a string could be an identifier a tool wrote: one token with a digit, `_` or `-` in it, and
    not a lone number (a number is a value)."""
    return (
        3 <= len(text) <= 80
        and not any(char.isspace() for char in text)
        and any(char.isdigit() or char in "_-" for char in text)
        and RUN.search(text) is not None
        and not PLAIN.match(text)
    )
