"""How the offline seats word their requests in a domain: the oracle agent asking the customer to use one of
the customer's tools, and the scripted customer asking what to do."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, field_validator


class RequestPhrasing(BaseModel):
    """The words of the offline request format. A request is the prefix, the name of a customer tool and
    its arguments as one JSON object: `Please do this on your side: plug_in {}`. The defaults are the
    domain-neutral wording every domain understands; a domain may add its own (telecom: "on your phone")."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    request_prefix: str = "Please do this on your side:"
    """What the oracle agent writes before the tool name; the scripted customer looks for it."""
    idle_line: str = "I'm not sure what to do. What should I do?"
    """What the scripted customer says when the agent's message asks for nothing."""

    @field_validator("request_prefix", "idle_line")
    @classmethod
    def _one_line(cls, value: str) -> str:
        if not value.strip() or "\n" in value:
            raise ValueError("must be one non-empty line")
        return value


NEUTRAL_PHRASING = RequestPhrasing()
"""The domain-neutral wording, used by domains that give none and always understood by the scripted user."""
