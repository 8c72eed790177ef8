"""Dense retrieval: documents and queries embedded by an OpenAI-compatible `/embeddings` endpoint and
ranked by cosine similarity (ties in id order). The endpoint is never needed offline: only the dense
configurations use it, and only when a run asks for one.

The documents are embedded once per knowledge base and embedder; each search embeds its query with one
blocking request (the tool call waits for it).
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any, Protocol

from tau2.errors import ErrorCode, ToolError, UserInputError
from tau2.retrieval._bm25 import INSTALL_HINT
from tau2.retrieval._documents import Document, KnowledgeBase
from tau2.world import EmbedderConfig

OPENAI_API_BASE = "https://api.openai.com/v1"
BATCH = 64
"""Texts per embeddings request while indexing."""


class Embedder(Protocol):
    """Turns texts into vectors (one per text, in order)."""

    def embed(self, texts: Sequence[str]) -> list[list[float]]: ...


class EndpointError(Exception):
    """The embeddings endpoint could not be reached or answered something unusable."""


class OpenAIEmbedder:
    """An OpenAI-compatible `/embeddings` endpoint (OpenAI, vLLM, llama.cpp, Ollama, …)."""

    def __init__(self, config: EmbedderConfig) -> None:
        self.config = config
        self.url = (config.api_base or OPENAI_API_BASE).rstrip("/") + "/embeddings"
        self.api_key = os.environ.get(config.api_key_env, "")

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        body = json.dumps({"model": self.config.model, "input": list(texts)}).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.config.timeout_s) as response:
                payload: Any = json.loads(response.read())
        except (urllib.error.URLError, TimeoutError, OSError, ValueError) as error:
            raise EndpointError(f"{self.url}: {error}") from None
        try:
            rows = sorted(payload["data"], key=lambda row: row["index"])
            vectors = [[float(value) for value in row["embedding"]] for row in rows]
        except (KeyError, TypeError, ValueError):
            raise EndpointError(f"{self.url}: the answer is not an embeddings list") from None
        if len(vectors) != len(texts):
            raise EndpointError(f"{self.url}: {len(vectors)} embeddings for {len(texts)} texts")
        return vectors


class DenseSearch:
    """The knowledge base's documents as unit vectors, searched by cosine similarity."""

    def __init__(self, knowledge: KnowledgeBase, embedder: Embedder) -> None:
        try:
            import numpy
        except ImportError:
            raise UserInputError(INSTALL_HINT) from None
        self._numpy: Any = numpy
        self._documents = knowledge.documents
        self._embedder = embedder
        texts = [document.content for document in self._documents]
        try:
            vectors = [
                vector
                for start in range(0, len(texts), BATCH)
                for vector in embedder.embed(texts[start : start + BATCH])
            ]
        except EndpointError as error:
            raise UserInputError(f"embedding the knowledge base failed: {error}") from None
        self._matrix = self._unit(numpy.array(vectors, dtype=float))

    def _unit(self, matrix: Any) -> Any:
        norms = self._numpy.linalg.norm(matrix, axis=-1, keepdims=True)
        return matrix / self._numpy.where(norms == 0, 1.0, norms)

    def search(self, query: str, k: int) -> list[tuple[Document, float]]:
        """The `k` documents most similar to `query`, best first; none for a blank query."""
        if not query.strip():
            return []
        try:
            (vector,) = self._embedder.embed([query])
        except EndpointError as error:
            raise ToolError(ErrorCode.INVALID_STATE, f"the embeddings endpoint failed: {error}") from None
        scores = self._matrix @ self._unit(self._numpy.array(vector, dtype=float))
        order = self._numpy.argsort(-scores, kind="stable")[:k]
        return [(self._documents[index], float(scores[index])) for index in order]
