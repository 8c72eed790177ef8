"""The `grep` retrieval tool's search: a regular expression (case-insensitive; text that is not a valid
expression is searched literally), documents ranked by how often it matches their content."""

from __future__ import annotations

import re

from .documents import Document, KnowledgeBase


def grep(knowledge: KnowledgeBase, pattern: str, k: int = 10) -> list[tuple[Document, float]]:
    """Up to `k` documents whose content matches, most matches first (ties in id order)."""
    try:
        expression = re.compile(pattern, re.IGNORECASE)
    except re.error:
        expression = re.compile(re.escape(pattern), re.IGNORECASE)
    counted = [(document, len(expression.findall(document.content))) for document in knowledge.documents]
    matching = [(document, float(count)) for document, count in counted if count > 0]
    matching.sort(key=lambda hit: -hit[1])
    return matching[:k]
