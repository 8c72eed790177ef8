"""Document collections: a knowledge base's documents, each `{id, title, content}`, kept in id order (the
order full-knowledge instructions, search ties and the shell's listing follow), and the folder format they
are read from (one JSON file per document), read once per folder."""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from tau2._jsonfile import read_json, validation_error
from tau2.errors import UserInputError


class Document(BaseModel):
    """One document of a knowledge base."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    id: str
    title: str
    content: str


class KnowledgeBase:
    """A collection of documents, in id order, and by id and title."""

    def __init__(self, documents: Iterable[Document]) -> None:
        self.documents: tuple[Document, ...] = tuple(sorted(documents, key=lambda document: document.id))
        self.by_id = {document.id: document for document in self.documents}
        self.by_title: dict[str, Document] = {}
        for document in self.documents:
            self.by_title.setdefault(document.title, document)

    def resolve(self, reference: str) -> Document | None:
        """The document a task names, by title first and else by id (as τ²-bench resolves them)."""
        return self.by_title.get(reference) or self.by_id.get(reference)

    def resolve_all(self, references: Iterable[str]) -> tuple[Document, ...]:
        """The documents `references` name, in their order; a name no document answers to is left out."""
        found = (self.resolve(reference) for reference in references)
        return tuple(document for document in found if document is not None)


@cache
def read_documents(folder: Path) -> KnowledgeBase:
    """The knowledge base whose documents are the `*.json` files of `folder` (each `{id, title, content}`),
    read once; a bad document is one line naming its file."""
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
