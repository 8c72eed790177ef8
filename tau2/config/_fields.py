"""The order a configuration's settings are listed in (TOML files, command-line help), and what each says
it means (the docstring under its declaration)."""

from __future__ import annotations

import ast
import inspect
from functools import cache

from pydantic import BaseModel
from pydantic.fields import FieldInfo


def ordered_fields(model: type[BaseModel]) -> list[tuple[str, FieldInfo]]:
    """A model's fields, those it declares itself before those it inherits: a run's suite and seats
    before the episode settings every episode shares."""
    own = inspect.get_annotations(model)
    fields = list(model.model_fields.items())
    return [item for item in fields if item[0] in own] + [item for item in fields if item[0] not in own]


@cache
def field_docs(model: type[BaseModel]) -> dict[str, str]:
    """Each field's docstring (the string literal under its declaration in the class body), inherited
    fields included: the help of the settings, read when help is shown rather than when the models are
    built (pydantic's own reading of them costs every command that imports the configuration)."""
    docs: dict[str, str] = {}
    for cls in reversed(model.__mro__):
        if issubclass(cls, BaseModel) and cls is not BaseModel:
            docs.update(_declared_docs(cls))
    return docs


def _declared_docs(cls: type[BaseModel]) -> dict[str, str]:
    """The docstrings of the fields `cls` declares itself."""
    body = ast.parse(inspect.cleandoc("\n" + inspect.getsource(cls))).body[0]
    assert isinstance(body, ast.ClassDef)
    docs = {}
    for statement, following in zip(body.body, body.body[1:], strict=False):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[statement.target.id] = inspect.cleandoc(following.value.value)
    return docs
