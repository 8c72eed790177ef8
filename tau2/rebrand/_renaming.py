"""The renaming engine: one bijection per identifier kind, drawn from a seed, plus a delta's name maps and
value rules, applied the same way to every document it is given (data, tasks, texts).

Exact values are mapped exactly: a value at a declared identifier field or a key of a declared map becomes
its new identifier. Everywhere else, text is searched for identifiers and names standing on their own
(`tau2.rebrand._text`): an identifier short enough to be mistaken for a number or a word (`01`, `123`) is
changed only where the data declares it, never inside free text.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from tau2.errors import UserInputError
from tau2.rebrand._delta import Delta, ValueRule
from tau2.rebrand._formats import IdFormat
from tau2.rebrand._numbers import (
    MONEY,
    as_json_number,
    decimals_of,
    rewrite_text,
    rounded,
    to_decimal,
    written,
)
from tau2.rebrand._paths import Path, PatternIndex
from tau2.rebrand._text import _RUN, Boundary, Replacer
from tau2.tasks import AssertionCall, EnvCall, InitialData, SolutionStep, Task, UserInstructions
from tau2.world import Domain, Identifiers, Side

MIN_TEXT_LENGTH = 5
"""Identifiers shorter than this are changed only where the data declares them, never in free text."""
MIN_TEXT_DIGITS = 7
"""All-digit identifiers shorter than this are likewise too easily mistaken for a number."""
MAX_DRAWS = 1_000
"""Draws tried for one new identifier before the format is declared too crowded."""


def stands_out(identifier: str) -> bool:
    """Whether an identifier can be told from other text: long enough, and not a short number."""
    if len(identifier) < MIN_TEXT_LENGTH:
        return False
    return not (identifier.isdigit() and len(identifier) < MIN_TEXT_DIGITS)


@dataclass(frozen=True)
class Scale:
    """A value rule's change of one number: multiplied by its factor and rounded."""

    rule: ValueRule

    def __call__(self, value: Decimal) -> Decimal:
        return rounded(value * self.rule.factor, self.rule.decimals)

    def number(self, value: float | int) -> float | int:
        """A JSON number changed, keeping its type where it can."""
        return as_json_number(self(to_decimal(value)), value)


@dataclass(frozen=True)
class Kinds:
    """A domain's identifier declaration, compiled: where each kind sits, and its format."""

    declaration: Identifiers
    formats: Mapping[str, IdFormat]
    fields: PatternIndex
    keys: PatternIndex

    @classmethod
    def compile(cls, declaration: Identifiers, overrides: Mapping[str, str]) -> Kinds:
        """The declaration with a delta's formats; an override of an undeclared kind is refused."""
        names = [kind.name for kind in declaration.kinds]
        unknown = sorted(set(overrides) - set(names))
        if unknown:
            raise UserInputError(
                f"identifiers: no kind {unknown[0]!r} in this domain (kinds: {', '.join(names)})"
            )
        formats = {}
        for kind in declaration.kinds:
            text = overrides.get(kind.name, kind.format)
            try:
                formats[kind.name] = IdFormat.parse(text)
            except ValueError as error:
                raise UserInputError(f"identifiers: {kind.name}: {error}") from None
        return cls(
            declaration,
            formats,
            PatternIndex((pattern, kind.name) for kind in declaration.kinds for pattern in kind.fields),
            PatternIndex((pattern, kind.name) for kind in declaration.kinds for pattern in kind.keys),
        )


def parsed_json(text: str) -> dict[str, Any] | list[Any] | None:
    """The object or array a string holds as JSON text (tool arguments passed as text), else None."""
    if not text.startswith(("{", "[")):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict | list) else None


def dumped_like(original: str, value: Any) -> str:
    """`value` as JSON text in the style of `original` (compact or spaced separators, escaped or not)."""
    compact = '": ' not in original and '":' in original
    separators = (",", ":") if compact else (", ", ": ")
    return json.dumps(value, separators=separators, ensure_ascii=original.isascii())


def walk_identifiers(kinds: Kinds, value: Any, path: Path = ()) -> Iterator[tuple[str, str]]:
    """(kind, identifier) of every identifier a document holds at a declared field or map key."""
    yield from _identifiers(kinds, value, path, None)


def _identifiers(kinds: Kinds, value: Any, path: Path, inherited: str | None) -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        keyed = kinds.keys.label(path) if kinds.keys else None
        for key, item in value.items():
            if keyed is not None and isinstance(key, str):
                yield keyed, key
            yield from _identifiers(kinds, item, (*path, key), None)
    elif isinstance(value, list):
        kind = inherited or kinds.fields.label(path)
        for index, item in enumerate(value):
            yield from _identifiers(kinds, item, (*path, index), kind)
    elif isinstance(value, str):
        kind = inherited or kinds.fields.label(path)
        if kind is not None:
            if any(char.isalnum() for char in value):
                yield kind, value
        elif (inner := parsed_json(value)) is not None:
            yield from _identifiers(kinds, inner, path, None)
    elif isinstance(value, int) and not isinstance(value, bool):
        kind = inherited or kinds.fields.label(path)
        if kind is not None:
            yield kind, str(value)


def strings(value: Any) -> Iterator[str]:
    """Every string of a document: keys and values, at any depth."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


class Vocabulary:
    """Everything the sources write, to tell whether a new identifier or name would be mistaken for text
    already there: their words, and (looked at only when all of a candidate's words occur) their text."""

    def __init__(self, texts: Iterable[str]) -> None:
        kept = [text for text in texts if text]
        self.words: set[str] = {word for text in kept for word in _RUN.findall(text)}
        self._texts = kept
        self._joined: str | None = None

    def occurs(self, candidate: str) -> bool:
        """Whether `candidate` may already stand somewhere in the sources."""
        words = _RUN.findall(candidate)
        if not all(word in self.words for word in words):
            return False
        if self._joined is None:
            self._joined = "\n".join(self._texts)
        return candidate in self._joined


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

    def __post_init__(self) -> None:
        entries: dict[str, tuple[str, Boundary]] = {word: (word, Boundary.WORD) for word in self.protected}
        entries.update({old: (new, Boundary.WORD) for old, new in self.names.items()})
        entries.update(
            {old: (new, Boundary.ALNUM) for old, new in self.identifiers.items() if stands_out(old)}
        )
        for rule in self.rules:
            for phrase in rule.phrases:
                entries[phrase] = (self._phrase(phrase, Scale(rule), entries), Boundary.WORD)
        object.__setattr__(self, "_text", Replacer(entries))
        object.__setattr__(self, "renamed", frozenset(self.identifiers.values()))
        rules = {rule.name: rule for rule in self.rules}
        object.__setattr__(
            self, "_value_fields", PatternIndex((p, r.name) for r in rules.values() for p in r.fields)
        )
        object.__setattr__(
            self, "_value_arguments", PatternIndex((p, r.name) for r in rules.values() for p in r.arguments)
        )

    @staticmethod
    def _phrase(phrase: str, scale: Scale, entries: Mapping[str, tuple[str, Boundary]]) -> str:
        """A policy phrase with its numbers changed and its names and identifiers renamed."""
        renamed = Replacer(entries)(phrase)
        return _NUMBER_IN_PHRASE.sub(lambda match: _rescaled(match.group(), scale), renamed)

    def rule(self, name: str) -> ValueRule:
        """The value rule called `name`."""
        return next(rule for rule in self.rules if rule.name == name)

    def text(self, text: str) -> str:
        """Free text renamed: identifiers, names and policy phrases wherever they stand on their own."""
        return self._text(text)

    def occurrences(self, text: str) -> Iterator[tuple[int, int, str, str]]:
        """Where `text` holds what the renaming changes: (start, end, old, new)."""
        yield from self._text.occurrences(text)

    def identifier(self, value: str) -> str:
        """The new identifier of `value`, or `value` when it is none of the renamed identifiers."""
        return self.identifiers.get(value, value)

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
                return _NUMBER_IN_TEXT.sub(lambda match: _changed_number(match.group(), change), value)
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
        return key if keyed is not None else self._text(key)

    def _string(self, value: str, path: Path, inherited: str | None, tool: str | None) -> str:
        if inherited or self.kinds.fields.label(path):
            return self.identifiers.get(value, value)
        scale = self._scale(path, tool)
        if scale is not None and (changed := rewrite_text(value, scale)) is not None:
            return changed
        inner = parsed_json(value)
        if inner is not None:
            renamed = self._walk(inner, path, None, tool)
            return value if renamed == inner else dumped_like(value, renamed)
        return self._text(value)

    def _number(self, value: float | int, path: Path, inherited: str | None, tool: str | None) -> Any:
        if (inherited or self.kinds.fields.label(path)) and isinstance(value, int):
            new = self.identifiers.get(str(value))
            if new is None:
                return value
            return int(new) if new.isdigit() else new
        scale = self._scale(path, tool)
        return value if scale is None else scale.number(value)

    def _scale(self, path: Path, tool: str | None) -> Scale | None:
        name = (
            self._value_arguments.label((tool, *path))
            if tool is not None and self._value_arguments
            else self._value_fields.label(path)
            if tool is None and self._value_fields
            else None
        )
        return None if name is None else Scale(self.rule(name))

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

    def extended(self, identifiers: Mapping[str, str], kind: str = "generated") -> Renaming:
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


_NUMBER_IN_PHRASE = re.compile(r"(?<![\w.])\$?\d+(?:,\d{3})*(?:\.\d+)?(?!\w)")


_NUMBER_IN_TEXT = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?!\w|\.\d)")


def _changed_number(number: str, change: Callable[[Decimal], Decimal | None]) -> str:
    """A number of a text with the value `change` gives, written with at least as many decimals."""
    new = change(to_decimal(number))
    return number if new is None else written(new, decimals_of(number), thousands=False)


def _rescaled(number: str, scale: Scale) -> str:
    """A number of a policy phrase multiplied, written as it was (`$100` → `$150`)."""
    changed = rewrite_text(number, scale)
    return number if changed is None else changed


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
    declaration = domain.identifiers
    if declaration is None:
        raise UserInputError(f"domain {domain.name!r} declares no identifiers: it cannot be renamed")
    kinds = Kinds.compile(declaration, delta.identifiers)
    task_documents = [document for task in tasks for document in task_documents_of(task)]
    found: dict[str, str] = {}
    for document in documents:
        for owner, value in walk_identifiers(kinds, document):
            found.setdefault(value, owner)
    in_data = frozenset(found)
    for document, root in task_documents:
        for owner, value in walk_identifiers(kinds, document, root):
            found.setdefault(value, owner)
    sources = [*documents, *(document for document, _ in task_documents), *texts, *task_texts(tasks)]
    vocabulary = Vocabulary(text for source in sources for text in strings(source))
    protected = frozenset(protected_words(domain))
    names = capitals(delta.names)
    for old, new in names.items():
        if vocabulary.occurs(new):
            raise UserInputError(
                f"names: {old!r} becomes {new!r}, which the data already writes: choose another"
            )
    rng = random.Random(seed)
    taken = set(found) | protected | set(names.values())
    renamed: dict[str, str] = {}
    for kind in declaration.kinds:
        originals = sorted(value for value, owner in found.items() if owner == kind.name)
        form = kinds.formats[kind.name]
        if form.room < 2 * len(originals) + 1:
            raise UserInputError(
                f"identifiers: {kind.name}: format {form.text!r} has room for {form.room} identifiers, "
                f"too few for the {len(originals)} the data holds"
            )
        for original in originals:
            renamed[original] = _fresh(form, original, rng, taken, vocabulary, kind.name)
    return Renaming(kinds, renamed, found, names, protected, tuple(delta.rules), frozenset(found) - in_data)


def _fresh(
    form: IdFormat, original: str, rng: random.Random, taken: set[str], vocabulary: Vocabulary, kind: str
) -> str:
    """A new identifier of `form` for `original`: one that stands out in text, is not taken and is not
    already written in the sources."""
    for _ in range(MAX_DRAWS):
        candidate = form.draw(rng, original)
        if stands_out(candidate) and candidate not in taken and not vocabulary.occurs(candidate):
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


def task_documents_of(task: Task) -> list[tuple[Any, Path]]:
    """A task's data documents with the path each is rooted at: its data patches (at the top of the
    state), each call's arguments, and its metadata."""
    documents: list[tuple[Any, Path]] = []
    if task.initial_data is not None:
        documents += [
            (patch, ()) for patch in (task.initial_data.agent_data, task.initial_data.user_data) if patch
        ]
    calls: list[EnvCall] = [*task.initialization, *task.evaluation.assertions, *task.evaluation.solution]
    documents += [(call.arguments, ()) for call in calls]
    documents.append((task.metadata, ()))
    return documents


def task_texts(tasks: Iterable[Task]) -> Iterator[str]:
    """Every free text of the tasks: purpose, brief, persona, ticket, expected outputs, messages."""
    for task in tasks:
        scenario = task.user_scenario
        yield scenario.text()
        for text in (task.purpose, task.ticket):
            if text:
                yield text
        evaluation = task.evaluation
        yield from evaluation.communicate_info or []
        yield from evaluation.nl_assertions or []
        yield from (check.message for check in evaluation.assertions if check.message)
        yield from (step.info for step in evaluation.solution if step.info)


def money_mentions(text: str, change: Callable[[Decimal], Decimal | None]) -> str:
    """`text` with each amount of money (`$1,234.50`) changed where `change` gives a new value, written
    with the same separators and at least the same decimals."""

    def replace(match: Any) -> str:
        amount = match["amount"]
        new = change(to_decimal(amount))
        if new is None:
            return str(match.group())
        return f"${written(new, decimals_of(amount), thousands=',' in amount)}"

    return MONEY.sub(replace, text)
