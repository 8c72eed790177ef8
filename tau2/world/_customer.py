"""What a domain's data says about the customer a task's user seat plays: the facts `tau2 lint` compares
with the task's persona and instruction texts (a stated age against the date of birth, a name, a number)."""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict


class CustomerRecord(BaseModel):
    """The customer's facts as the database holds them; empty fields are unknown, never checked."""

    model_config = ConfigDict(frozen=True)

    names: tuple[str, ...] = ()
    """Full names the record gives the customer (e.g. `("John Smith",)`)."""
    date_of_birth: date | None = None
    today: date | None = None
    """The domain's frozen "now", from which ages are computed; None = ages are not checked."""
    phone_numbers: tuple[str, ...] = ()
    """Every number the customer holds (contact number and lines)."""
    emails: tuple[str, ...] = ()

    def age(self) -> int | None:
        """Completed years on `today`, when both dates are known."""
        born, today = self.date_of_birth, self.today
        if born is None or today is None:
            return None
        return today.year - born.year - ((today.month, today.day) < (born.month, born.day))
