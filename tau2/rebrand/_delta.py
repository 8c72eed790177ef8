"""Rebrand deltas: a reviewable TOML file saying what a rebranded domain changes (names, identifier
formats, values and prices, policy numbers), validated with one-line errors."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from tau2._jsonfile import read_toml_file, validation_error
from tau2.errors import UserInputError
from tau2.rebrand._formats import IdFormat
from tau2.rebrand._numbers import as_json_number, rounded, to_decimal
from tau2.rebrand._paths import parse_pattern
from tau2.rebrand._text import anchor
from tau2.world import Identifiers

MAX_DELTA_BYTES = 1 << 20
"""The largest delta file read (1 MiB): far beyond any real delta; a device must not fill memory."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ValueRule(_Strict):
    """Numbers multiplied by one factor, and rounded, wherever the rule names them: data fields, tool
    arguments of tasks, phrases of the policy and documents, amounts of money in task texts."""

    name: str = Field(min_length=1)
    factor: Annotated[Decimal, Field(gt=0)]
    decimals: Annotated[int, Field(ge=0, le=6)] = 2
    """Places the changed numbers are rounded to (half up)."""
    fields: list[str] = Field(default_factory=list)
    """Path patterns of data values (numbers or number texts such as `"$12.50"`)."""
    arguments: list[str] = Field(default_factory=list)
    """Patterns `tool.argument…` of task arguments (reference actions, initialisation, assertions)."""
    phrases: list[str] = Field(default_factory=list)
    """Exact phrases of the policy, documents and task texts whose numbers change (`$100 per passenger`)."""
    money_in_texts: bool = False
    """Also change every amount of money (`$300`) that task texts write and no traced value explains."""

    def change(self, value: Decimal) -> Decimal:
        """`value` multiplied by the factor and rounded."""
        return rounded(value * self.factor, self.decimals)

    def number(self, value: float | int) -> float | int:
        """A JSON number changed, keeping its type where it can."""
        return as_json_number(self.change(to_decimal(value)), value)

    @field_validator("factor", mode="before")
    @classmethod
    def _exact(cls, value: object) -> object:
        """A factor written as a TOML float keeps its decimal text (1.1, not 1.100000000000000088)."""
        return to_decimal(value) if isinstance(value, float | int) else value

    @field_validator("fields", "arguments")
    @classmethod
    def _patterns(cls, patterns: list[str]) -> list[str]:
        for pattern in patterns:
            parse_pattern(pattern)
        return patterns

    @field_validator("phrases")
    @classmethod
    def _numbered(cls, phrases: list[str]) -> list[str]:
        for phrase in phrases:
            if not any(char.isdigit() for char in phrase):
                raise ValueError(f"phrase {phrase!r} holds no number to change")
        return phrases


class Delta(_Strict):
    """One rebranding of a domain. Every part is optional: an empty delta renames identifiers only."""

    description: str = ""
    seed: int = 0
    """Seeds the new identifiers (`tau2 rebrand --seed` overrides it)."""
    names: dict[str, str] = Field(default_factory=dict)
    """Words and phrases (people, places, companies, products) and what they become, wherever they stand
    on their own; each also changes in capitals (`Ada Quinn` → `ADA QUINN`)."""
    identifiers: dict[str, str] = Field(default_factory=dict)
    """New formats of identifier kinds, by kind (the domain's declared format otherwise)."""
    values: list[ValueRule] = Field(default_factory=list)
    """Values and prices: data fields and the task arguments computed from them."""
    policy_numbers: list[ValueRule] = Field(default_factory=list)
    """Numbers of the policy and the task values they govern, changed together."""

    @field_validator("identifiers")
    @classmethod
    def _formats(cls, formats: dict[str, str]) -> dict[str, str]:
        for kind, text in formats.items():
            try:
                IdFormat.parse(text)
            except ValueError as error:
                raise ValueError(f"{kind}: {error}") from None
        return formats

    @field_validator("names")
    @classmethod
    def _injective(cls, names: dict[str, str]) -> dict[str, str]:
        seen: dict[str, str] = {}
        for old, new in names.items():
            if anchor(old) is None or anchor(new) is None:
                raise ValueError(f"{old!r} = {new!r}: names need a letter or digit")
            if old == new:
                raise ValueError(f"{old!r} is mapped to itself")
            if new in seen:
                raise ValueError(f"{old!r} and {seen[new]!r} both become {new!r}: names must stay distinct")
            if new in names:
                raise ValueError(f"{old!r} becomes {new!r}, which is itself renamed: rename to a new word")
            seen[new] = old
        return names

    @model_validator(mode="after")
    def _rules(self) -> Delta:
        for rule in self.values:
            if not (rule.fields or rule.arguments):
                raise ValueError(f"values rule {rule.name!r} names no fields or arguments to change")
        for rule in self.policy_numbers:
            if not rule.phrases:
                raise ValueError(f"policy_numbers rule {rule.name!r} names no policy phrases")
        names = [rule.name for rule in self.rules]
        duplicate = next((name for name in names if names.count(name) > 1), None)
        if duplicate is not None:
            raise ValueError(f"two value rules are called {duplicate!r}")
        if sum(rule.money_in_texts for rule in self.rules) > 1:
            raise ValueError("only one value rule may change every amount of money in task texts")
        return self

    @property
    def rules(self) -> list[ValueRule]:
        """Every value rule: values, then policy numbers."""
        return [*self.values, *self.policy_numbers]


def load_delta(path: Path, declaration: Identifiers | None = None) -> Delta:
    """The delta of a TOML file, for the domain of `declaration` when given (its identifier formats must
    name the domain's kinds); a bad file is one line naming the file and the field."""
    data = read_toml_file(path, MAX_DELTA_BYTES)
    try:
        delta = Delta.model_validate(data)
    except ValidationError as error:
        raise validation_error(path, error) from None
    if declaration is not None:
        kinds = [kind.name for kind in declaration.kinds]
        unknown = sorted(set(delta.identifiers) - set(kinds))
        if unknown:
            raise UserInputError(
                f"{path}: identifiers: no kind {unknown[0]!r} in this domain (kinds: {', '.join(kinds)})"
            )
    return delta
