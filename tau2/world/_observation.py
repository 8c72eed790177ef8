"""What an assertion may return besides a plain boolean: whether it holds and what it saw in the world, so a
failed check can say "the speed was 12.5" rather than only FAIL."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from pydantic import JsonValue
from pydantic_core import to_jsonable_python

_FIELDS: Final = frozenset({"holds", "observed"})


@dataclass(frozen=True, slots=True)
class Observation:
    """An assertion's verdict with the value it compared: the number, status or setting it read from the
    world (several as an object). `None` observes nothing, as a plain `bool` return does.

    A slotted dataclass rather than a pydantic model: verification evaluates assertions after every step
    of thousands of tasks, and the world turns it into result content without validating it again."""

    holds: bool
    observed: JsonValue = None

    def content(self) -> dict[str, Any]:
        """The JSON content a successful result carries for it (`World.run_env_function`)."""
        return {"holds": self.holds, "observed": to_jsonable_python(self.observed)}

    @classmethod
    def of(cls, content: Any) -> Observation | None:
        """The verdict in a successful result's content: a `bool`, or an `Observation` as `content` wrote
        it; None for anything else, which evaluation treats as a broken assertion."""
        if isinstance(content, bool):
            return cls(content)
        if isinstance(content, dict) and content.keys() == _FIELDS and isinstance(content["holds"], bool):
            return cls(content["holds"], content["observed"])
        return None
