"""The `grep` retrieval tool's search: a regular expression (case-insensitive; text that is not a valid
expression is searched literally; a blank one finds nothing), documents ranked by how often it matches
their content. Matching runs in linear time (`patterns`), so no expression can stall a run."""

from __future__ import annotations

import re

from tau2.retrieval._documents import Document, KnowledgeBase
from tau2.retrieval._patterns import compile_pattern


def grep(knowledge: KnowledgeBase, pattern: str, k: int = 10) -> list[tuple[Document, float]]:
    """Up to `k` documents whose content matches, most matches first (ties in id order). Raises
    `UnsupportedPattern` for an expression only a backtracking search can follow."""
    if not pattern.strip():
        return []
    try:
        expression = compile_pattern(pattern, re.IGNORECASE)
    except re.error:
        expression = compile_pattern(re.escape(pattern), re.IGNORECASE)
    counted = [(document, expression.count(document.content)) for document in knowledge.documents]
    matching = [(document, float(count)) for document, count in counted if count > 0]
    matching.sort(key=lambda hit: -hit[1])
    return matching[:k]
