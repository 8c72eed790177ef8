"""The knowledge base: the bank's procedure documents, `documents/<id>.json` each holding `{id, title,
content}`, read once per directory and kept in id order (the order full-knowledge prompts, search ties
and the shell's listing follow)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from tau2 import UserInputError
from tau2._jsonfile import read_json, validation_error

DOCUMENTS_DIR = "documents"


class Document(BaseModel):
    """One procedure document."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str
    title: str
    content: str


class KnowledgeBase:
    """Every document of a data directory, in id order, and by id and title."""

    def __init__(self, documents: list[Document]) -> None:
        self.documents: tuple[Document, ...] = tuple(sorted(documents, key=lambda document: document.id))
        self.by_id = {document.id: document for document in self.documents}
        self.by_title: dict[str, Document] = {}
        for document in self.documents:
            self.by_title.setdefault(document.title, document)

    def resolve(self, reference: str) -> Document | None:
        """The document a task names, by title first and else by id (as τ²-bench resolves them)."""
        return self.by_title.get(reference) or self.by_id.get(reference)


@cache
def knowledge_base(data_dir: Path) -> KnowledgeBase:
    """The knowledge base of `data_dir`, read once; a bad document is one line naming the file."""
    folder = data_dir / DOCUMENTS_DIR
    if not folder.is_dir():
        raise UserInputError(f"{folder}: no such directory (the knowledge base's documents)")
    documents = []
    for path in sorted(folder.glob("*.json")):
        try:
            documents.append(Document.model_validate(read_json(path)))
        except ValidationError as error:
            raise validation_error(path, error) from None
    if not documents:
        raise UserInputError(f"{folder}: no documents (*.json)")
    return KnowledgeBase(documents)
