"""Retrieval configurations: how an agent reaches a domain's knowledge base (in its instructions, through
search tools, through a read-only shell). A configuration is part of what a score means, so runs record
it (which configurations a domain offers, and what each changes, its pack declares)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tau2._urls import api_base_problem, url_secrets


class EmbedderConfig(BaseModel):
    """An OpenAI-compatible embeddings endpoint, for the configurations that search by dense vectors."""

    model_config = ConfigDict(
        frozen=True, extra="forbid", hide_input_in_errors=True
    )  # a URL may hold a password

    model: str = Field(min_length=1)
    """The embedding model of the dense retrieval configurations, as the endpoint names it, e.g.
    `text-embedding-3-large`."""
    api_base: str | None = None
    """The OpenAI-compatible embeddings endpoint, up to `/v1` (default: OpenAI's; the key is read from the
    environment variable `api_key_env` names)."""

    @field_validator("api_base")
    @classmethod
    def _usable(cls, api_base: str | None) -> str | None:
        """Refuse, before anything is stored, a URL that is not http(s) or that carries credentials (the
        embedder's key comes from `api_key_env` alone)."""
        problem = None if api_base is None else api_base_problem(api_base)
        if problem is None and api_base is not None and url_secrets(api_base):
            problem = (
                "a key in the URL is not accepted (the URL is stored with the run); put it in the "
                "environment variable api_key_env names"
            )
        if problem is not None:
            raise ValueError(problem)
        return api_base

    api_key_env: str = "OPENAI_API_KEY"
    """The environment variable holding the API key (read when the run starts; never recorded)."""
    timeout_s: float = Field(default=60.0, gt=0)
    """Seconds one embeddings request may take."""


class RetrievalConfig(BaseModel):
    """One retrieval configuration: its name (as the domain offers it), how many documents a search
    returns, and the embedder of the dense configurations."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    """The retrieval configuration, for a domain with a knowledge base: one the domain offers (see
    docs/domains.md; the dense ones need an embedding model); left out, the domain's default."""
    top_k: int = Field(default=10, ge=1, le=1000)
    """Documents one knowledge-base search returns."""
    embedder: EmbedderConfig | None = None
    """The embeddings endpoint of the dense configurations."""

    @model_validator(mode="before")
    @classmethod
    def _a_name_alone(cls, data: Any) -> Any:
        """A configuration given as a string is its name (`retrieval = "bm25"`)."""
        return {"name": data} if isinstance(data, str) else data

    def label(self) -> str:
        """Short printable form: the name, with `top_k` and the embedder model when they are set."""
        extras = [] if self.top_k == 10 else [f"top_k={self.top_k}"]
        if self.embedder is not None:
            extras.append(f"embedder={self.embedder.model}")
        return f"{self.name}({', '.join(extras)})" if extras else self.name


class RetrievalRecall(BaseModel):
    """How many of the documents a task needs the agent was shown: recall@k, a diagnostic."""

    model_config = ConfigDict(frozen=True)

    configuration: str
    """The configuration's label."""
    k: int
    required: list[str]
    """The documents the task needs (its `required_documents`)."""
    retrieved: list[str]
    """Every document the agent was shown: by its search tools (at most k per search), or in its
    instructions (the required documents, or the whole knowledge base)."""

    @property
    def recall(self) -> float | None:
        """The share of required documents retrieved; None when the task names none."""
        if not self.required:
            return None
        return len(set(self.required) & set(self.retrieved)) / len(self.required)
