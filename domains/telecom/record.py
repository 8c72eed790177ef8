"""The base of every stored telecom record, CRM and phone side alike."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Record(BaseModel):
    """Unknown fields are rejected so typos in data files surface; infinities and NaN never enter state."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)
