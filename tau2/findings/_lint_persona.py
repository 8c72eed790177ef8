"""Lint check that the customer's persona and instructions agree with the customer's record in the data:
a stated age with the date of birth, a stated name with the record's name, a stated phone number or email
with the record's. The domain names the customer (`Domain.customer_record`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime

from tau2.tasks import Task, domain_of
from tau2.world import CustomerRecord, World

PERSONA_CONTRADICTS_DATA = "persona_contradicts_data"

_AGE = re.compile(
    r"(?:\b(?:you are|you're|I am|I'm|as)\s+|,\s+)an?\s+(\d{1,3})[\s-]years?[\s-]old\b"
    r"|\bat\s+(\d{1,3})(?:\s+years?\s+old)?,\s+(?:you|I)\b"
    r"|\b(?:you are|you're|I am|I'm)\s+(\d{1,3})(?:\s+years?\s+old)?\b"
    r"(?!\s*(?:%|percent|minutes?|hours?|days?))",
    re.IGNORECASE,
)
"""An age stated as the customer's: "as a 41-year-old", "Wei Chen, a 45-year-old …", "At 64 years old,
you …", "you are 64" (an age of someone or something else, "your 16-year-old daughter", is not)."""
_DECADES = {"twenties": 20, "thirties": 30, "forties": 40, "fifties": 50, "sixties": 60, "seventies": 70}
_DECADES |= {"eighties": 80, "nineties": 90}
_DECADE = re.compile(
    r"\bin\s+(?:your|his|her|their|my)\s+(?:(?:early|mid|late)[\s-]+)?"
    rf"(?:(\d)0s|({'|'.join(_DECADES)}))\b",
    re.IGNORECASE,
)
_WORD = r"[A-Z][a-z'’]*(?:-[A-Z]?[a-z'’]+)*"
_NAME = re.compile(
    rf"\b(?:[Yy]our name is|[Mm]y name is|[Yy]our character is)\s+({_WORD}(?:\s+{_WORD})*)"
    rf"|\b(?:[Yy]ou are|I am|I'm)\s+({_WORD}(?:\s+{_WORD})+)"
)
"""A stated name: after "your name is" one capitalised word or more, after "you are" two or more (one
capitalised word after "you are" is as often a nationality or a mood as a first name)."""
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_BIRTH = re.compile(
    r"(?:\b(?:your|my)\s+(?:date of birth|birth ?date|DOB|birthday)|\b(?:you were|I was)\s+born(?:\s+on)?"
    r"|(?:^|[\n|])[\s*-]*(?:date of birth|birth ?date|DOB))\W{0,6}"
    r"(\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{4}|(?:" + "|".join(_MONTHS) + r")\s+\d{1,2},?\s+\d{4})",
    re.IGNORECASE,
)
"""A date of birth stated as the customer's: "your date of birth is …", "I was born on …", or a labelled
line of the customer's details ("- DOB: …"); another passenger's ("Kevin Smith, DOB …") is not."""
_PHONE = re.compile(r"(?<![\d-])(?:\(\d{3}\)\s*|\d{3}[-. ])\d{3}[-. ]\d{4}(?![\d-])")
_PHONE_CONTEXT = re.compile(r"phone|your (?:\w+ )?number|number is", re.IGNORECASE)
"""What a number must follow (within 40 characters) to be stated as the customer's own."""
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def persona_findings(task: Task, world: World) -> dict[str, str]:
    """Check name → detail when the task's persona or instructions contradict the record of the customer
    its user plays (read from `world`, the task's initialised world)."""
    hook = domain_of(world).customer_record
    record = None if hook is None else hook(world, task)
    if record is None:
        return {}
    scenario = task.user_scenario
    texts = (("persona", scenario.persona_text or ""), ("instructions", scenario.instruction_text()))
    found = [f"{where}: {problem}" for where, text in texts for problem in contradictions(text, record)]
    return {PERSONA_CONTRADICTS_DATA: "; ".join(dict.fromkeys(found))} if found else {}


def contradictions(text: str, record: CustomerRecord) -> Iterator[str]:
    """Each statement of `text` about the customer that the record contradicts, as one phrase."""
    yield from _ages(text, record)
    yield from _birth_dates(text, record)
    yield from _names(text, record)
    yield from _numbers(text, record)
    yield from _emails(text, record)


def _ages(text: str, record: CustomerRecord) -> Iterator[str]:
    age = record.age()
    if age is None:
        return
    born = f"the record's date of birth {record.date_of_birth} makes the customer {age} on {record.today}"
    for match in _AGE.finditer(text):
        stated = int(match[1] or match[2] or match[3])
        if stated != age:
            yield f'"{match[0].lstrip(", ")}" but {born}'
    for match in _DECADE.finditer(text):
        decade = int(match[1]) * 10 if match[1] else _DECADES[match[2].lower()]
        if not decade <= age < decade + 10:
            yield f'"{match[0]}" but {born}'


def _birth_dates(text: str, record: CustomerRecord) -> Iterator[str]:
    if record.date_of_birth is None:
        return
    for match in _BIRTH.finditer(text):
        stated = _date(match[1])
        if stated is not None and stated != record.date_of_birth:
            yield f'"{match[0]}" but the record\'s date of birth is {record.date_of_birth}'


def _names(text: str, record: CustomerRecord) -> Iterator[str]:
    if not record.names:
        return
    known = {word.lower() for name in record.names for word in name.split()}
    for match in _NAME.finditer(text):
        stated = match[1] or match[2]
        if any(word.lower() not in known for word in stated.split()):
            yield f'"{match[0]}" but the record names the customer {" / ".join(record.names)}'


def _numbers(text: str, record: CustomerRecord) -> Iterator[str]:
    if not record.phone_numbers:
        return
    held = {_digits(number) for number in record.phone_numbers}
    for match in _PHONE.finditer(text):
        context = text[max(0, match.start() - 40) : match.start()]
        if _PHONE_CONTEXT.search(context) and _digits(match[0]) not in held:
            held_numbers = ", ".join(record.phone_numbers)
            yield f'phone number "{match[0]}" is not one of the customer\'s ({held_numbers})'


def _emails(text: str, record: CustomerRecord) -> Iterator[str]:
    if not record.emails:
        return
    held = {email.lower() for email in record.emails}
    for match in _EMAIL.finditer(text):
        email = match[0].rstrip(".")
        if email.lower() not in held:
            yield f'email "{email}" is not the customer\'s ({", ".join(record.emails)})'


def _date(text: str) -> date | None:
    """A date written `YYYY-MM-DD`, `MM/DD/YYYY` or `Month D, YYYY`; None when it is none of them."""
    for layout in ("%Y-%m-%d", "%m/%d/%Y", "%B %d, %Y", "%B %d %Y"):
        try:
            return datetime.strptime(text, layout).date()
        except ValueError:
            continue
    return None


def _digits(text: str) -> str:
    return re.sub(r"\D", "", text)
