"""The persona data model: what a persona file may contain and the rules its values obey."""

from __future__ import annotations

import re
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

NO_PERSONA = "none"
"""Name of the persona that adds no text: the simulator follows the task instructions only."""

_NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
_LABEL = re.compile(r"[A-Z][A-Za-z0-9]*")


class TechnicalSkill(StrEnum):
    """How much the customer knows about phones and mobile networks."""

    NONE = "none"
    LOW = "low"
    AVERAGE = "average"
    HIGH = "high"
    EXPERT = "expert"


class Verbosity(StrEnum):
    """How much the customer writes per turn."""

    TERSE = "terse"
    NORMAL = "normal"
    VERBOSE = "verbose"


class Cooperativeness(StrEnum):
    """How readily the customer carries out what the agent asks."""

    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"


def _short_line(value: str, limit: int) -> str:
    """Accept a non-empty single line of at most `limit` characters, for labels shown in reports."""
    if not value:
        raise ValueError("must not be empty")
    if len(value.splitlines()) > 1:
        raise ValueError("must be a single line")
    if len(value) > limit:
        raise ValueError(f"must be at most {limit} characters")
    return value


class PersonaAttributes(BaseModel):
    """Structured traits of a persona, so that ablation reports can group and compare by trait."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    occupation: str
    technical_skill: TechnicalSkill
    temperament: str
    """Free text of at most 40 characters, e.g. "anxious and easily flustered"."""
    verbosity: Verbosity
    cooperativeness: Cooperativeness

    @field_validator("occupation")
    @classmethod
    def _check_occupation(cls, value: str) -> str:
        """Keep the occupation a short phrase."""
        return _short_line(value, 60)

    @field_validator("temperament")
    @classmethod
    def _check_temperament(cls, value: str) -> str:
        """Keep the temperament a short phrase."""
        return _short_line(value, 40)


class Persona(BaseModel):
    """One user persona: its identity in task IDs, the text the user simulator plays, and its traits."""

    model_config = ConfigDict(frozen=True, extra="forbid", str_strip_whitespace=True)

    name: str
    label: str
    summary: str | None = None
    description: str = Field(default="", validate_default=True)
    attributes: PersonaAttributes | None = Field(default=None, validate_default=True)

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        """Names are snake_case so that they double as file stems and CLI arguments."""
        if not _NAME.fullmatch(value):
            raise ValueError("must be snake_case (lowercase letters, digits, single underscores)")
        return value

    @field_validator("label")
    @classmethod
    def _check_label(cls, value: str) -> str:
        """Labels are CamelCase tokens so that they fit inside `[PERSONA:<label>]` of a task ID."""
        if not _LABEL.fullmatch(value):
            raise ValueError("must be a CamelCase token of letters and digits, e.g. Easy")
        return value

    @field_validator("summary")
    @classmethod
    def _check_summary(cls, value: str | None) -> str | None:
        """A summary, when given, is one line for reports."""
        return None if value is None else _short_line(value, 120)

    @field_validator("description")
    @classmethod
    def _check_description(cls, value: str, info: ValidationInfo) -> str:
        """Only the none persona goes without text; it must then really have none."""
        name = info.data.get("name")
        if name == NO_PERSONA and value:
            raise ValueError(f"must be empty for the {NO_PERSONA} persona")
        if name not in (None, NO_PERSONA) and not value:
            raise ValueError(f"must not be empty (only the {NO_PERSONA} persona has no text)")
        return value

    @field_validator("attributes")
    @classmethod
    def _check_attributes(
        cls, value: PersonaAttributes | None, info: ValidationInfo
    ) -> PersonaAttributes | None:
        """Only the none persona, which describes nobody, goes without attributes."""
        name = info.data.get("name")
        if name == NO_PERSONA and value is not None:
            raise ValueError(f"must be absent for the {NO_PERSONA} persona")
        if name not in (None, NO_PERSONA) and value is None:
            raise ValueError(f"missing required table (only the {NO_PERSONA} persona has none)")
        return value

    @property
    def prompt_text(self) -> str | None:
        """The text given to the user simulator, or None when the persona adds nothing."""
        return self.description or None
