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
from pydantic_core import to_jsonable_python

from tau2.rebrand._numbers import MONEY, PLAIN, as_json_number, decimals_of, to_decimal, written
from tau2.rebrand._paths import Path as DocPath
from tau2.rebrand._renaming import Renaming, Scale, dumped_like, money_mentions, parsed_json, task_texts
from tau2.rebrand._text import _RUN
from tau2.tasks import SolutionStep, Task, TaskSetupError, initialize_world
from tau2.world import ToolResult, World, state_changes

_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w]|\.\d)")
_TOKENS = re.compile(r"(\d+\.\d+|[\w-]+)")
"""Words of a text as identifiers write them (`IDR_93be3ce5`, `555-123-2002`), kept by `split`."""
_SHOWN = 160
"""Characters of a differing value shown in a problem line."""


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
            if _kept_sorted(old) and sorted(self.image(item) for item in old) == sorted(new):
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
        if not self.values:
            return renamed

        def change(match: re.Match[str]) -> str:
            number = match.group()
            new = self.values.get(to_decimal(number))
            return number if new is None else written(new, decimals_of(number), thousands=False)

        return money_mentions(_NUMBER.sub(change, renamed), self.values.get)

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
    static = renaming.task(task)
    try:
        original_world = initialize_world(task, source)
    except TaskSetupError as error:
        return RenamedTask(task, static, renaming, setup=error.reason)
    replay = _Replay(renaming)
    try:
        renamed_world = initialize_world(static, target)
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
        original_result, original_changes = _call(original_world, step)
        renamed_result, renamed_changes = _call(renamed_world, renamed)
        _learn_changes(replay, original_changes, renamed_changes, where)
        if original_result.ok and renamed_result.ok:
            replay.align(original_result.content, renamed_result.content, where)
        _compare(replay, original_result, renamed_result, where)
    final = replay.current
    renamed_task = final.task(task)
    renamed_task = renamed_task.model_copy(
        update={"evaluation": renamed_task.evaluation.model_copy(update={"solution": steps})}
    )
    renamed_task = _with_values(renamed_task, replay, final)
    return RenamedTask(task, renamed_task, final, replay.values, replay.problems)


Change = tuple[tuple[str, ...], Any]
"""A changed place of a state: its path (keys and positions) and its new value as JSON."""


def _call(world: World, step: SolutionStep) -> tuple[ToolResult, list[Change]]:
    """Run one reference action, with the places of the state it changed."""
    copy = world.domain.fresh_state
    if copy is None:
        before = world.snapshot()
        result = world.call(step.side, step.name, step.arguments)
        return result, [
            (tuple(_path_parts(change.path)), change.after)
            for change in state_changes(before, world.snapshot())
        ]
    shared = copy(world.state)
    result = world.call(step.side, step.name, step.arguments)
    changes: list[Change] = []
    _shared_changes(shared, world.state, (), changes)
    return result, changes


def _shared_changes(before: Any, after: Any, path: tuple[str, ...], out: list[Change]) -> None:
    """The changed places between two states that share their unchanged records (a domain's fresh copy):
    whatever is the very same object in both is skipped without being looked at."""
    if before is after:
        return
    if isinstance(before, BaseModel) and type(before) is type(after):
        for name in type(before).model_fields:
            _shared_changes(getattr(before, name), getattr(after, name), (*path, name), out)
    elif isinstance(before, dict) and isinstance(after, dict):
        for key in [*before, *(key for key in after if key not in before)]:
            old, new = before.get(key, _ABSENT), after.get(key, _ABSENT)
            if new is _ABSENT:
                out.append(((*path, str(key)), None))
            elif old is _ABSENT:
                out.append(((*path, str(key)), to_jsonable_python(new)))
            else:
                _shared_changes(old, new, (*path, str(key)), out)
    elif before != after:
        out.append((path, to_jsonable_python(after)))


_ABSENT = object()


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
    if original.error is not None or renamed.error is not None:
        if original.error is None or renamed.error is None:
            failed, error = (
                ("renamed", renamed.error) if renamed.error is not None else ("original", original.error)
            )
            assert error is not None
            replay.problems.append(f"{where}: only the {failed} action failed: {_short(error.message)}")
        elif original.error.code != renamed.error.code or not replay.equivalent_text(
            replay.image_text(original.error.message), renamed.error.message
        ):
            replay.problems.append(
                f"{where}: the actions failed differently: expected "
                f"{_short(replay.image_text(original.error.message))}, got {_short(renamed.error.message)}"
            )
        return
    content = original.content
    parsed = parsed_json(content) if isinstance(content, str) else None
    original_content = content if parsed is None else parsed
    expected = replay.image(original_content)
    actual = renamed.content
    if parsed is not None and isinstance(actual, str):
        actual = parsed_json(actual) or actual
    if not replay.equivalent(
        _sorted_like(expected, original_content), _sorted_like(actual, original_content)
    ):
        replay.problems.append(f"{where}: result differs: {_difference(expected, actual)}")


def _kept_sorted(values: list[Any]) -> bool:
    """Whether a list of strings is in sorted order (a tool that sorts identifiers keeps it so)."""
    return len(values) > 1 and all(isinstance(value, str) for value in values) and values == sorted(values)


def _sorted_like(value: Any, original: Any) -> Any:
    """`value` with each list of strings sorted where the original result's list is kept sorted: renamed
    identifiers sort otherwise, and a tool that sorts them is no less consistent."""
    if isinstance(value, dict) and isinstance(original, dict) and len(value) == len(original):
        return {
            key: _sorted_like(item, before)
            for (key, item), before in zip(value.items(), original.values(), strict=True)
        }
    if isinstance(value, list) and isinstance(original, list) and len(value) == len(original):
        if _kept_sorted(original) and all(isinstance(item, str) for item in value):
            return sorted(value)
        return [_sorted_like(item, before) for item, before in zip(value, original, strict=True)]
    return value


def _difference(expected: Any, actual: Any, path: DocPath = ()) -> str:
    """The first place two values differ, as `at PATH: expected X, got Y`."""
    if isinstance(expected, dict) and isinstance(actual, dict) and list(expected) == list(actual):
        for key in expected:
            if expected[key] != actual[key]:
                return _difference(expected[key], actual[key], (*path, key))
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (left, right) in enumerate(zip(expected, actual, strict=True)):
            if left != right:
                return _difference(left, right, (*path, index))
    if isinstance(expected, str) and isinstance(actual, str):
        pairs = enumerate(zip(expected, actual, strict=False))
        shortest = min(len(expected), len(actual))
        start = next((index for index, (left, right) in pairs if left != right), shortest)
        expected, actual = expected[max(0, start - 40) :], actual[max(0, start - 40) :]
    at = ".".join(str(part) for part in path) or "top"
    return f"at {at}: expected {_short(expected)}, got {_short(actual)}"


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    return repr(text if len(text) <= _SHOWN else f"{text[:_SHOWN]}…")


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


def _with_values(task: Task, replay: _Replay, renaming: Renaming) -> Task:
    """A renamed task's texts with the traced values: numbers the agent must say, amounts of money the
    brief and the assertions write. With a rule that changes every amount of money, the other amounts the
    texts write change by it, and so does a number the agent must say that the texts write as money."""
    values = replay.values
    everywhere = next((rule for rule in renaming.rules if rule.money_in_texts), None)
    if not values and everywhere is None:
        return task
    amounts = {to_decimal(match["amount"]) for text in task_texts([task]) for match in MONEY.finditer(text)}

    def money(value: Decimal) -> Decimal | None:
        traced = values.get(value)
        if traced is not None or everywhere is None:
            return traced
        return Scale(everywhere)(value)

    def text(value: str) -> str:
        return money_mentions(value, money)

    def item(value: str) -> str:
        if PLAIN.match(value.replace(",", "")):
            number = to_decimal(value)
            new = values.get(number)
            if new is None and number in amounts:
                new = money(number)
            if new is not None:
                return written(new, decimals_of(value), thousands="," in value)
        return text(value)

    return _texts_changed(task, text, item)


def _texts_changed(task: Task, text: Callable[[str], str], item: Callable[[str], str]) -> Task:
    """`task` with `text` applied to its brief, ticket, purpose and assertions, `item` to the information
    the agent must communicate."""
    scenario = task.user_scenario
    instructions = scenario.instructions
    if isinstance(instructions, str):
        new_instructions: Any = text(instructions)
    else:
        new_instructions = instructions.model_copy(
            update={
                "reason_for_call": text(instructions.reason_for_call),
                "known_info": None if instructions.known_info is None else text(instructions.known_info),
                "unknown_info": None
                if instructions.unknown_info is None
                else text(instructions.unknown_info),
                "task_instructions": text(instructions.task_instructions),
            }
        )
    evaluation = task.evaluation
    return task.model_copy(
        update={
            "user_scenario": scenario.model_copy(update={"instructions": new_instructions}),
            "ticket": None if task.ticket is None else text(task.ticket),
            "purpose": None if task.purpose is None else text(task.purpose),
            "evaluation": evaluation.model_copy(
                update={
                    "communicate_info": None
                    if evaluation.communicate_info is None
                    else [item(value) for value in evaluation.communicate_info],
                    "nl_assertions": None
                    if evaluation.nl_assertions is None
                    else [text(value) for value in evaluation.nl_assertions],
                }
            ),
        }
    )


_PATH_PART = re.compile(r"\[(\d+)\]|\.?([^.\[]+)")


def _path_parts(path: str) -> list[str]:
    """The keys and positions of a state change's path (`users.u1.payment_methods[0]`)."""
    return [index or key for index, key in _PATH_PART.findall(path)]


def _same_number(left: str, right: str) -> bool:
    """Whether two words write the same number (`2995.30`, `2995.3`)."""
    return bool(PLAIN.match(left) and PLAIN.match(right)) and to_decimal(left) == to_decimal(right)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _identifier_like(text: str) -> bool:
    """Whether a string could be an identifier a tool wrote: one token, with a digit, `_` or `-` in it,
    and a letter (a lone number is a value)."""
    return (
        3 <= len(text) <= 80
        and not any(char.isspace() for char in text)
        and any(char.isdigit() or char in "_-" for char in text)
        and _RUN.search(text) is not None
        and not PLAIN.match(text)
    )
