"""The renaming engine: one bijection per identifier kind, drawn from a seed, plus a delta's name maps and
value rules, applied the same way to every document it is given (data, tasks, texts).

Exact values are mapped exactly: a value at a declared identifier field or a key of a declared map becomes
its new identifier. Everywhere else, text is searched for identifiers and names standing on their own
(`tau2.rebrand._text`): an identifier short enough to be mistaken for a number or a word (`01`, `123`) is
changed only where the data declares it, never inside free text.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import cached_property
from typing import Any

from tau2.errors import UserInputError
from tau2.rebrand._delta import Delta, ValueRule
from tau2.rebrand._documents import (
    Vocabulary,
    dumped_like,
    parsed_json,
    strings,
    task_documents_of,
    task_texts,
)
from tau2.rebrand._formats import IdFormat
from tau2.rebrand._kinds import MIN_TEXT_DIGITS, MIN_TEXT_LENGTH, Kinds, stands_out, walk_identifiers
from tau2.rebrand._numbers import numbers_changed, rewrite_text
from tau2.rebrand._paths import Path, PatternIndex
from tau2.rebrand._text import Boundary, Replacer
from tau2.tasks import AssertionCall, Domain, EnvCall, InitialData, SolutionStep, Task, UserInstructions
from tau2.world import Side

MAX_DRAWS = 1_000
"""Draws tried for one new identifier before the format is declared too crowded."""
GENERATED = "generated"
"""The kind of an identifier a task's tools wrote (learned by replaying the task)."""
_REMEMBERED = 200_000
"""Renamed strings a renaming remembers."""


@dataclass(frozen=True)
class Renaming:
    """A consistent renaming: identifiers (old → new), names, and value rules; applied to data documents,
    task arguments, texts and whole tasks. `inverse()` undoes the identifiers and names."""

    kinds: Kinds
    identifiers: Mapping[str, str]
    """Every identifier the sources hold, old → new (a bijection onto fresh identifiers)."""
    kind_of: Mapping[str, str]
    """The kind of each old identifier."""
    names: Mapping[str, str] = field(default_factory=dict)
    """Name map with its capital variants, old → new."""
    protected: frozenset[str] = frozenset()
    rules: tuple[ValueRule, ...] = ()
    task_only: frozenset[str] = frozenset()
    """Old identifiers only tasks hold, not the data: those a task's tools may write themselves."""
    _text: Replacer = field(init=False, repr=False, compare=False)
    _value_fields: PatternIndex = field(init=False, repr=False, compare=False)
    _value_arguments: PatternIndex = field(init=False, repr=False, compare=False)
    renamed: frozenset[str] = field(init=False, repr=False, compare=False)
    """Every new identifier."""
    _texts: dict[str, str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        entries: dict[str, tuple[str, Boundary]] = {word: (word, Boundary.WORD) for word in self.protected}
        entries.update({old: (new, Boundary.WORD) for old, new in self.names.items()})
        entries.update(
            {old: (new, Boundary.ALNUM) for old, new in self.identifiers.items() if stands_out(old)}
        )
        for rule in self.rules:
            for phrase in rule.phrases:
                entries[phrase] = (self._phrase(phrase, rule, entries), Boundary.WORD)
        object.__setattr__(self, "_text", Replacer(entries))
        object.__setattr__(self, "_texts", {})
        object.__setattr__(self, "renamed", frozenset(self.identifiers.values()))
        rules = {rule.name: rule for rule in self.rules}
        object.__setattr__(
            self, "_value_fields", PatternIndex((p, r.name) for r in rules.values() for p in r.fields)
        )
        object.__setattr__(
            self, "_value_arguments", PatternIndex((p, r.name) for r in rules.values() for p in r.arguments)
        )

    @staticmethod
    def _phrase(phrase: str, rule: ValueRule, entries: Mapping[str, tuple[str, Boundary]]) -> str:
        """A policy phrase with its numbers changed and its names and identifiers renamed."""
        return numbers_changed(Replacer(entries)(phrase), rule.change)

    def rule(self, name: str) -> ValueRule:
        """The value rule called `name`."""
        return next(rule for rule in self.rules if rule.name == name)

    def text(self, text: str) -> str:
        """Free text renamed: identifiers, names and policy phrases wherever they stand on their own."""
        return self._text(text)

    def in_text(self, text: str) -> list[str]:
        """The old identifiers standing on their own in `text` (those this renaming changes there)."""
        return [literal for _, _, literal, _ in self._text.occurrences(text) if literal in self.identifiers]

    def _cached_text(self, text: str) -> str:
        """`text` renamed, remembered (data repeats its short strings: statuses, dates, names)."""
        cache = self._texts
        renamed = cache.get(text)
        if renamed is None:
            renamed = self._text(text)
            if len(cache) < _REMEMBERED:
                cache[text] = renamed
        return renamed

    def document(self, value: Any, path: Path = ()) -> Any:
        """A data document (a database, a data patch, task metadata) renamed, its value fields changed."""
        return self._walk(value, path, None, None)

    def arguments(self, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """A tool call's arguments renamed, their values changed where a rule names `tool.argument`."""
        renamed: dict[str, Any] = self._walk(dict(arguments), (), None, tool)
        return renamed

    def numbers_in_arguments(
        self, tool: str, arguments: Mapping[str, Any], change: Callable[[Decimal], Decimal | None]
    ) -> dict[str, Any]:
        """Arguments whose texts at a rule's `tool.argument` patterns (`calculate.expression`) have each
        number `change` gives a new value for replaced, written as it was."""

        def rewrite(value: Any, path: Path) -> Any:
            if isinstance(value, dict):
                return {key: rewrite(item, (*path, key)) for key, item in value.items()}
            if isinstance(value, list):
                return [rewrite(item, (*path, index)) for index, item in enumerate(value)]
            if (
                isinstance(value, str)
                and self._value_arguments
                and self._value_arguments.label((tool, *path))
            ):
                return numbers_changed(value, change)
            return value

        rewritten: dict[str, Any] = rewrite(dict(arguments), ())
        return rewritten

    def _walk(self, value: Any, path: Path, inherited: str | None, tool: str | None) -> Any:
        if isinstance(value, dict):
            keyed = self.kinds.keys.label(path) if self.kinds.keys else None
            return {
                self._key(key, keyed): self._walk(item, (*path, key), None, tool)
                for key, item in value.items()
            }
        if isinstance(value, list):
            kind = inherited or self.kinds.fields.label(path)
            return [self._walk(item, (*path, index), kind, tool) for index, item in enumerate(value)]
        if isinstance(value, str):
            return self._string(value, path, inherited, tool)
        if isinstance(value, int | float) and not isinstance(value, bool):
            return self._number(value, path, inherited, tool)
        return value

    def _key(self, key: Any, keyed: str | None) -> Any:
        if not isinstance(key, str):
            return key
        if key in self.identifiers:
            return self.identifiers[key]
        return key if keyed is not None else self._cached_text(key)

    def _string(self, value: str, path: Path, inherited: str | None, tool: str | None) -> str:
        if inherited or self.kinds.fields.label(path):
            return self.identifiers.get(value, value)
        rule = self._rule_at(path, tool)
        if rule is not None and (changed := rewrite_text(value, rule.change)) is not None:
            return changed
        inner = parsed_json(value)
        if inner is not None:
            renamed = self._walk(inner, path, None, tool)
            return value if renamed == inner else dumped_like(value, renamed)
        return self._cached_text(value)

    def _number(self, value: float | int, path: Path, inherited: str | None, tool: str | None) -> Any:
        if (inherited or self.kinds.fields.label(path)) and isinstance(value, int):
            new = self.identifiers.get(str(value))
            if new is None:
                return value
            return int(new) if new.isdigit() else new
        rule = self._rule_at(path, tool)
        return value if rule is None else rule.number(value)

    def _rule_at(self, path: Path, tool: str | None) -> ValueRule | None:
        """The value rule naming this place of a data document (no tool) or of a tool's arguments."""
        name = (
            self._value_arguments.label((tool, *path))
            if tool is not None and self._value_arguments
            else self._value_fields.label(path)
            if tool is None and self._value_fields
            else None
        )
        return None if name is None else self.rule(name)

    def task(self, task: Task) -> Task:
        """A task renamed throughout: its data patches, calls, expected outputs, brief, ticket and metadata
        (its id, domain and tool names stay)."""
        text = self.text
        scenario = task.user_scenario
        instructions = scenario.instructions
        renamed_instructions = (
            text(instructions)
            if isinstance(instructions, str)
            else UserInstructions(
                reason_for_call=text(instructions.reason_for_call),
                known_info=_maybe(text, instructions.known_info),
                unknown_info=_maybe(text, instructions.unknown_info),
                task_instructions=text(instructions.task_instructions),
                late_info=_maybe(text, instructions.late_info),
            )
        )
        evaluation = task.evaluation
        data = task.initial_data
        return task.model_copy(
            update={
                "purpose": _maybe(text, task.purpose),
                "user_scenario": scenario.model_copy(
                    update={
                        "instructions": renamed_instructions,
                        "persona_text": _maybe(text, scenario.persona_text),
                    }
                ),
                "ticket": _maybe(text, task.ticket),
                "initial_data": None
                if data is None
                else InitialData(
                    agent_data=None if data.agent_data is None else self.document(data.agent_data),
                    user_data=None if data.user_data is None else self.document(data.user_data),
                ),
                "initialization": [self.call(call) for call in task.initialization],
                "evaluation": evaluation.model_copy(
                    update={
                        "assertions": [self.assertion(check) for check in evaluation.assertions],
                        "solution": [self.step(step) for step in evaluation.solution],
                        "communicate_info": _each(text, evaluation.communicate_info),
                        "nl_assertions": _each(text, evaluation.nl_assertions),
                    }
                ),
                "metadata": self.document(task.metadata),
            }
        )

    def call(self, call: EnvCall) -> EnvCall:
        """An initialisation call renamed."""
        return call.model_copy(update={"arguments": self.arguments(call.name, call.arguments)})

    def assertion(self, check: AssertionCall) -> AssertionCall:
        """An assertion renamed."""
        return check.model_copy(
            update={
                "arguments": self.arguments(check.name, check.arguments),
                "message": _maybe(self.text, check.message),
            }
        )

    def step(self, step: SolutionStep) -> SolutionStep:
        """A reference action renamed."""
        return step.model_copy(
            update={
                "arguments": self.arguments(step.name, step.arguments),
                "info": _maybe(self.text, step.info),
            }
        )

    def extended(self, identifiers: Mapping[str, str], kind: str = GENERATED) -> Renaming:
        """This renaming with more identifiers (those the domain's tools write during a task)."""
        if not identifiers:
            return self
        extended = Renaming.__new__(Renaming)
        fields = {
            "kinds": self.kinds,
            "identifiers": {**self.identifiers, **identifiers},
            "kind_of": {**self.kind_of, **dict.fromkeys(identifiers, kind)},
            "names": self.names,
            "protected": self.protected,
            "rules": self.rules,
            "task_only": self.task_only,
            "renamed": self.renamed | frozenset(identifiers.values()),
            "_text": self._text.extended(
                {old: (new, Boundary.ALNUM) for old, new in identifiers.items() if stands_out(old)}
            ),
            "_texts": {},
            "_value_fields": self._value_fields,
            "_value_arguments": self._value_arguments,
        }
        for name, value in fields.items():
            object.__setattr__(extended, name, value)
        return extended

    def inverse(self) -> Renaming:
        """The renaming that undoes this one's identifiers and names (value rules do not invert)."""
        return Renaming(
            self.kinds,
            {new: old for old, new in self.identifiers.items()},
            {self.identifiers[old]: kind for old, kind in self.kind_of.items()},
            {new: old for old, new in self.names.items()},
            self.protected,
            task_only=frozenset(self.identifiers[old] for old in self.task_only),
        )


def _maybe(change: Callable[[str], str], text: str | None) -> str | None:
    return None if text is None else change(text)


def _each(change: Callable[[str], str], texts: list[str] | None) -> list[str] | None:
    return None if texts is None else [change(text) for text in texts]


def capitals(names: Mapping[str, str]) -> dict[str, str]:
    """A name map with each name's capitals variant added (`Ada` → `Mira` gives `ADA` → `MIRA`)."""
    variants = dict(names)
    for old, new in names.items():
        upper = old.upper()
        if upper != old and upper not in variants:
            variants[upper] = new.upper()
    return variants


def build_renaming(
    domain: Domain[Any],
    delta: Delta,
    seed: int,
    documents: Sequence[Any],
    texts: Iterable[str] = (),
    tasks: Iterable[Task] = (),
) -> Renaming:
    """The renaming of everything `documents` (data documents, walked from their top) and `tasks` hold:
    each identifier gets a new one of its kind's format, drawn with `random.Random(seed)` in a fixed order,
    distinct from every identifier and every word already written in the sources (`texts` included), so
    the renaming is a bijection and can be undone."""
    return Survey.of(domain, delta, documents, texts).with_tasks(list(tasks)).renaming(seed)


@dataclass(frozen=True)
class Survey:
    """Everything a renaming is drawn from that no seed changes: the identifiers the sources hold (and which
    of them only tasks hold), what the sources write, the words never renamed and the delta's names and
    rules. Surveying a large database once lets many renamings of it be drawn cheaply."""

    domain: Domain[Any]
    kinds: Kinds
    found: Mapping[str, str]
    """Every identifier of the sources and its kind."""
    in_data: frozenset[str]
    """The identifiers the data documents hold (the rest only tasks hold)."""
    vocabularies: tuple[Vocabulary, ...]
    protected: frozenset[str]
    names: Mapping[str, str]
    rules: tuple[ValueRule, ...]
    extends: Survey | None = field(default=None, repr=False, compare=False)
    """The survey of the data alone that this one adds tasks to (`with_tasks`); None for that survey."""

    @classmethod
    def of(
        cls, domain: Domain[Any], delta: Delta, documents: Sequence[Any], texts: Iterable[str] = ()
    ) -> Survey:
        """The survey of data `documents` (walked from their top) and `texts`."""
        declaration = domain.identifiers
        if declaration is None:
            raise UserInputError(f"domain {domain.name!r} declares no identifiers: it cannot be renamed")
        kinds = Kinds.compile(declaration, delta.identifiers)
        found: dict[str, str] = {}
        for document in documents:
            for owner, value in walk_identifiers(kinds, document):
                found.setdefault(value, owner)
        vocabulary = Vocabulary(text for source in [*documents, *texts] for text in strings(source))
        names = capitals(delta.names)
        survey = cls(
            domain,
            kinds,
            found,
            frozenset(found),
            (vocabulary,),
            frozenset(protected_words(domain)),
            names,
            tuple(delta.rules),
        )
        _refuse_written_names(names, survey.occurs)
        return survey

    def with_tasks(self, tasks: Sequence[Task]) -> Survey:
        """This survey with the identifiers `tasks` hold and the words they write."""
        if not tasks:
            return self
        found = dict(self.found)
        task_documents = [document for task in tasks for document in task_documents_of(task)]
        for document, root in task_documents:
            for owner, value in walk_identifiers(self.kinds, document, root):
                found.setdefault(value, owner)
        sources = [*(document for document, _ in task_documents), *task_texts(tasks)]
        vocabulary = Vocabulary(text for source in sources for text in strings(source))
        _refuse_written_names(self.names, vocabulary.occurs)
        return replace(
            self, found=found, vocabularies=(*self.vocabularies, vocabulary), extends=self.extends or self
        )

    def occurs(self, candidate: str) -> bool:
        """Whether `candidate` may already stand somewhere in the sources."""
        return any(vocabulary.occurs(candidate) for vocabulary in self.vocabularies)

    def draw(self, seed: int) -> Draw:
        """The new identifiers of the data's own, drawn with `seed` as `renaming` draws them first: each
        kind's in sorted order, each given a fresh one."""
        self._check_room()
        rng = random.Random(seed)
        identifiers = self._fresh_ones(rng, self._taken(), in_data=True)
        return Draw(seed, self, identifiers, rng.getstate())

    def renaming(self, seed: int, drawn: Draw | None = None) -> Renaming:
        """The renaming drawn with `seed`: the data's identifiers first, then those only tasks hold, each
        kind's in sorted order, each given a fresh one (so the data's renaming follows the seed alone, not
        the tasks renamed with it, but for a drawn identifier that a task happens to write). `drawn`, the
        same seed's draw on the survey this one adds tasks to, is taken as this survey's own draw unless
        one of its identifiers is one the tasks hold or write, which would have been drawn again."""
        self._check_room()
        if drawn is None or drawn.seed != seed or not self._keeps(drawn):
            return self._drawn_on(self.draw(seed))
        if len(self.found) == len(drawn.survey.found):  # the tasks hold no identifier of their own
            return drawn.renaming
        return self._drawn_on(drawn)

    def _drawn_on(self, drawn: Draw) -> Renaming:
        """The renaming of `drawn`'s identifiers and of those only tasks hold, drawn on from it."""
        rng = random.Random()
        rng.setstate(drawn.state)
        taken = self._taken() | set(drawn.identifiers.values())
        renamed = {**drawn.identifiers, **self._fresh_ones(rng, taken, in_data=False)}
        return Renaming(
            self.kinds,
            renamed,
            self.found,
            self.names,
            self.protected,
            self.rules,
            frozenset(self.found) - self.in_data,
        )

    def _check_room(self) -> None:
        """Refuse a format with room for too few identifiers of its kind (half of it at most is used)."""
        counts = Counter(self.found.values())
        for kind in self.kinds.declaration.kinds:
            form = self.kinds.formats[kind.name]
            count = counts[kind.name]
            if form.room < 2 * count + 1:
                raise UserInputError(
                    f"identifiers: {kind.name}: format {form.text!r} has room for {form.room} identifiers, "
                    f"too few for the {count} the data holds"
                )

    def _taken(self) -> set[str]:
        """What no new identifier may be: an identifier of the sources, a protected word or a new name."""
        return set(self.found) | self.protected | set(self.names.values())

    def _fresh_ones(self, rng: random.Random, taken: set[str], *, in_data: bool) -> dict[str, str]:
        """A fresh identifier for each of the data's identifiers (`in_data`) or of those only tasks hold,
        kind by kind in the declared order, each kind's in sorted order."""
        renamed: dict[str, str] = {}
        for kind in self.kinds.declaration.kinds:
            form = self.kinds.formats[kind.name]
            originals = sorted(
                value
                for value, owner in self.found.items()
                if owner == kind.name and (value in self.in_data) is in_data
            )
            for original in originals:
                renamed[original] = _fresh(form, original, rng, taken, self.occurs, kind.name)
        return renamed

    def _keeps(self, drawn: Draw) -> bool:
        """Whether `drawn` is what this survey draws for its data: drawn on the survey this one adds tasks
        to, with no new identifier that the tasks hold or write (a draw refuses those and draws again)."""
        base = self.extends or self
        if drawn.survey is not base:
            return False
        added = self.vocabularies[len(base.vocabularies) :]
        return not any(
            new in self.found or any(vocabulary.occurs(new) for vocabulary in added)
            for new in drawn.identifiers.values()
        )


@dataclass(frozen=True)
class Draw:
    """The new identifiers of a survey's data, drawn with one seed, and the generator's state after them,
    from which the identifiers only tasks hold are drawn (`Survey.renaming`)."""

    seed: int
    survey: Survey
    identifiers: Mapping[str, str]
    """The data's identifiers, old → new."""
    state: tuple[Any, ...]
    """The state of the seed's generator after drawing them (`random.Random.getstate`)."""

    @cached_property
    def renaming(self) -> Renaming:
        """The renaming of the drawn survey's identifiers: that of every task holding none of its own."""
        return self.survey._drawn_on(self)


def _refuse_written_names(names: Mapping[str, str], occurs: Callable[[str], bool]) -> None:
    """Refuse a name map one of whose new names the sources already write."""
    for old, new in names.items():
        if occurs(new):
            raise UserInputError(
                f"names: {old!r} becomes {new!r}, which the data already writes: choose another"
            )


def _fresh(
    form: IdFormat,
    original: str,
    rng: random.Random,
    taken: set[str],
    occurs: Callable[[str], bool],
    kind: str,
) -> str:
    """A new identifier of `form` for `original`: one that stands out in text, is not taken and is not
    already written in the sources."""
    for _ in range(MAX_DRAWS):
        candidate = form.draw(rng, original)
        if stands_out(candidate) and candidate not in taken and not occurs(candidate):
            taken.add(candidate)
            return candidate
    raise UserInputError(
        f"identifiers: {kind}: format {form.text!r} found no fresh identifier for {original!r} in "
        f"{MAX_DRAWS} draws (each must be new and at least {MIN_TEXT_LENGTH} characters long, "
        f"{MIN_TEXT_DIGITS} if all digits)"
    )


def protected_words(domain: Domain[Any]) -> list[str]:
    """Words never renamed: the domain's tool and env-function names, its hidden tools, its declared ones."""
    names = {tool.name for tool in domain.tools.tools()}
    names.update(function.name for side in Side for function in domain.tools.env_functions(side))
    if domain.discoverable_tools is not None:
        names.update(domain.discoverable_tools())
    if domain.identifiers is not None:
        names.update(domain.identifiers.protected)
    return sorted(name for name in names if any(char.isalnum() for char in name))
