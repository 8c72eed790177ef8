"""The order a configuration's settings are listed in (TOML files, command-line help)."""

from __future__ import annotations

import inspect

from pydantic import BaseModel
from pydantic.fields import FieldInfo


def ordered_fields(model: type[BaseModel]) -> list[tuple[str, FieldInfo]]:
    """A model's fields, those it declares itself before those it inherits: a run's suite and seats
    before the episode settings every episode shares."""
    own = inspect.get_annotations(model)
    fields = list(model.model_fields.items())
    return [item for item in fields if item[0] in own] + [item for item in fields if item[0] not in own]
