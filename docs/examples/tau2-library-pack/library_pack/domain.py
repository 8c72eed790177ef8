"""The library domain: the agent runs a public library's lending desk, the customer holds an e-reader.

A borrowed e-book opens only when the member owes no fines, the loan is active and still licensed, and
the e-reader is signed in, online and up to date; so a fix can need either seat, or only a librarian.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from tau2.errors import ErrorCode, ToolError
from tau2.world import Side, ToolKind, ToolSet


class Loan(BaseModel):
    """The member's e-book loan."""

    model_config = ConfigDict(extra="forbid")

    title: str = "The Left Hand of Darkness"
    active: bool = True
    licensed: bool = True
    """The library still holds a license for the title; only a librarian can buy a new one."""


class Member(BaseModel):
    """The desk's record of one library member."""

    model_config = ConfigDict(extra="forbid")

    card_number: str = "L-1001"
    name: str = "Noor"
    fines_due: float = 0.0
    loan: Loan = Field(default_factory=Loan)


class Reader(BaseModel):
    """The member's e-reader."""

    model_config = ConfigDict(extra="forbid")

    signed_in: bool = True
    wifi_on: bool = True
    app_up_to_date: bool = True


class LibraryState(BaseModel):
    """Both sides of the library world: the desk's member record and the member's e-reader."""

    model_config = ConfigDict(extra="forbid")

    member: Member = Field(default_factory=Member)
    reader: Reader = Field(default_factory=Reader)

    @property
    def book_opens(self) -> bool:
        """Whether the borrowed e-book opens on the e-reader."""
        loan, reader = self.member.loan, self.reader
        account_ok = self.member.fines_due == 0 and loan.active and loan.licensed
        return account_ok and reader.signed_in and reader.wifi_on and reader.app_up_to_date


desk = ToolSet(Side.AGENT)
reader = ToolSet(Side.USER)


def _member(state: LibraryState, card_number: str) -> Member:
    if card_number != state.member.card_number:
        raise ToolError(ErrorCode.NOT_FOUND, f"no member with card {card_number!r}")
    return state.member


@desk.tool(ToolKind.READ)
def find_member(state: LibraryState, card_number: str) -> Member:
    """Look up a member, their fines and their e-book loan.

    Args:
        card_number: The number on the member's library card, e.g. L-1001.
    """
    return _member(state, card_number)


@desk.tool(ToolKind.WRITE)
def waive_fines(state: LibraryState, card_number: str) -> dict[str, float]:
    """Waive every fine on a member's account.

    Args:
        card_number: The number on the member's library card.
    """
    member = _member(state, card_number)
    waived, member.fines_due = member.fines_due, 0.0
    return {"waived": waived}


@desk.tool(ToolKind.WRITE)
def renew_loan(state: LibraryState, card_number: str) -> Loan:
    """Renew a member's expired e-book loan; a title the library no longer licenses cannot be renewed.

    Args:
        card_number: The number on the member's library card.
    """
    loan = _member(state, card_number).loan
    if not loan.licensed:
        raise ToolError(ErrorCode.INVALID_STATE, f"{loan.title!r} is no longer licensed")
    loan.active = True
    return loan


@desk.tool(ToolKind.GENERIC)
def transfer_to_librarian(state: LibraryState, summary: str) -> str:
    """Hand the member to a librarian, who can buy licenses and settle what the desk cannot.

    Args:
        summary: A short summary of the member's problem.
    """
    return "Transfer requested."


@reader.tool(ToolKind.READ)
def check_reader(state: LibraryState) -> str:
    """Look at the e-reader: whether the book opens, the account is signed in, Wi-Fi is on and the app is
    up to date."""
    shown = state.reader

    def yes(flag: bool) -> str:
        return "yes" if flag else "no"

    return (
        f"book opens: {yes(state.book_opens)}; signed in: {yes(shown.signed_in)}; "
        f"wifi: {'on' if shown.wifi_on else 'off'}; app up to date: {yes(shown.app_up_to_date)}"
    )


@reader.tool(ToolKind.WRITE)
def sign_in(state: LibraryState) -> str:
    """Sign in to the library account on the e-reader."""
    state.reader.signed_in = True
    return check_reader(state)


@reader.tool(ToolKind.WRITE)
def turn_on_wifi(state: LibraryState) -> str:
    """Turn the e-reader's Wi-Fi on."""
    state.reader.wifi_on = True
    return check_reader(state)


@reader.tool(ToolKind.WRITE)
def update_app(state: LibraryState) -> str:
    """Install the latest version of the e-reader's library app."""
    state.reader.app_up_to_date = True
    return check_reader(state)


@desk.env_function()
def add_fine(state: LibraryState, amount: float) -> None:
    """Fault: the member owes a fine.

    Args:
        amount: The fine, in dollars.
    """
    state.member.fines_due += amount


@desk.env_function()
def expire_loan(state: LibraryState) -> None:
    """Fault: the loan has run out."""
    state.member.loan.active = False


@desk.env_function()
def withdraw_license(state: LibraryState) -> None:
    """Fault: the publisher withdrew the title from the library's catalogue."""
    state.member.loan.licensed = False


@reader.env_function()
def sign_out(state: LibraryState) -> None:
    """Fault: the e-reader is signed out."""
    state.reader.signed_in = False


@reader.env_function()
def turn_off_wifi(state: LibraryState) -> None:
    """Fault: the e-reader's Wi-Fi is off."""
    state.reader.wifi_on = False


@reader.env_function()
def outdate_app(state: LibraryState) -> None:
    """Fault: the library app needs an update before it opens books again."""
    state.reader.app_up_to_date = False


@reader.assertion()
def assert_book_opens(state: LibraryState, expected_status: bool) -> bool:
    """Whether the book opening on the e-reader equals `expected_status`.

    Args:
        expected_status: True for "the book opens", False for "it does not".
    """
    return state.book_opens is expected_status


def load_state(data_dir: Path | None) -> LibraryState:
    """A fresh world; the pack has no data files, so a data directory changes nothing."""
    return LibraryState()


def policy(solo: bool, variant: str) -> str:
    """The lending desk's policy, for an agent who talks to the member or holds the e-reader too."""
    reader_steps = (
        "You can use the e-reader's tools yourself."
        if solo
        else "Ask the member to do anything on the e-reader, one step at a time."
    )
    return (
        "You work at the lending desk of a public library. Members call when a borrowed e-book will not "
        "open. Ask for the card number and look the member up. Waive any fines and renew an expired loan. "
        "If the library no longer licenses the title, transfer the member to a librarian. Then make sure the "
        f"e-reader is signed in, online and up to date. {reader_steps}"
    )


SUITE = Path(__file__).with_name("tasks.json")
"""Three verified example tasks; `tau2 run --domain library` runs them."""
