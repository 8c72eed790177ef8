"""Flag persona text stating personal facts that a task's customer record could contradict."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tau2.personas.model import Persona

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_DECADE_WORD = r"(?:twenties|thirties|forties|fifties|sixties|seventies|eighties|nineties)"
_TENS_WORD = r"(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
_RELATIVE = (
    r"(?i:daughter|son|wife|husband|partner|spouse|grandson|granddaughter|grandchild|niece"
    r"|nephew|brother|sister|mother|father|mom|mum|dad|friend|neighbou?r|boss|colleague)"
)
_CAPITALISED = r"[A-Z][a-z'’-]+"

_BIRTH_DATE = "the customer's date of birth"
_RECORD_DATES = "dates in the customer's record"


@dataclass(frozen=True)
class _Rule:
    """One kind of personal fact, what it could contradict, and how to spot it."""

    kind: str
    risk: str
    pattern: re.Pattern[str]


def _rule(kind: str, risk: str, *alternatives: str, ignore_case: bool = False) -> _Rule:
    """Compile the alternatives of one rule into a single pattern."""
    flags = re.IGNORECASE if ignore_case else 0
    return _Rule(kind, risk, re.compile("|".join(f"(?:{alt})" for alt in alternatives), flags))


# Order matters: a span claimed by an earlier rule is not reported again by a later, vaguer one.
_RULES: tuple[_Rule, ...] = (
    _rule("email address", "the customer's email", r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    _rule(
        "date",
        _RECORD_DATES,
        r"\b\d{4}-\d{1,2}-\d{1,2}\b",
        r"\b\d{1,2}[/.-]\d{1,2}[/.-](?:\d{4}|\d{2})\b",
        rf"\b{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}}\b)?",
        rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\b(?:,?\s+\d{{4}}\b)?",
        rf"\b{_MONTH}\s+(?:of\s+)?(?:19|20)\d{{2}}\b",
    ),
    _rule(
        "phone number",
        "the customer's phone number",
        r"(?<![\w+])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{3}\)\s?|\d{3}[\s.-]?)\d{3}[\s.-]?\d{4}(?!\w)",
        r"(?<![\w+])\+\d[\d\s.-]{6,}\d(?!\w)",
        r"\b\d{3}-\d{4}\b",
    ),
    _rule(
        "payment detail",
        "the customer's payment methods",
        r"\b(?:card|account)\b[^.;]{0,20}?\b(?:ending|ends)\s+(?:in|with)\s+\d{4}\b",
        ignore_case=True,
    ),
    _rule(
        "birth year",
        _BIRTH_DATE,
        r"\b(?:born|birth\s*year|year\s+of\s+birth)\b[^.;]{0,20}?\b(?:19|20)\d{2}\b",
        rf"\bborn\s+in\s+the\s+(?:(?:19)?\d0s|'\d0s|{_DECADE_WORD})",
        ignore_case=True,
    ),
    _rule(
        "age",
        _BIRTH_DATE,
        r"\b\d{1,3}(?:\s*-\s*|\s+)(?:years?|yrs?)(?:\s*-\s*|\s+)old\b",
        rf"\b{_TENS_WORD}(?:[\s-]\w+)?[\s-]years?[\s-]old\b",
        r"\baged?\b\s*(?:[:=]|of|is)?\s*\d{1,3}\b",
        r"\b\d{1,3}\s*y/?o\b",
        r"\b(?:turned|turning|turns)\s+\d{2,3}\b"
        r"(?!\s*(?:%|(?:percent|minutes?|hours?|seconds?|times|degrees|[GMK]B)\b))",
        rf"\bin\s+(?:his|her|their|my|your|the)\s+(?:(?:early|mid|late)[\s-]+)?"
        rf"(?:\d0s|'\d0s|{_DECADE_WORD})",
        rf"\b(?:\d0|{_TENS_WORD})-something\b",
        r"\b(?:quadra|quinqua|sexa|septua|octo|nona)genarians?\b",
        r"\bcentenarians?\b",
        ignore_case=True,
    ),
    _rule("year", _RECORD_DATES, r"\b(?:19|20)\d{2}\b"),
    _rule(
        "birth detail",
        _BIRTH_DATE,
        r"\b(?:born|birthday|birth\s*date|date\s+of\s+birth|DOB)\b",
        ignore_case=True,
    ),
    _rule(
        "street address",
        "the customer's address",
        r"\b\d{1,5}\s+(?:[A-Z][a-z]+\s+){1,3}"
        r"(?:Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Drive|Dr|Boulevard|Blvd|Court|Ct|Way|Place|Pl)\b",
    ),
    _rule(
        "person name",
        "the customer's name",
        rf"\b(?:Mr|Mrs|Ms|Miss|Mx|Dr|Prof|Sir|Dame|Madam|Mister)\.?\s+{_CAPITALISED}",
        rf"\b(?i:named|name\s+is|name's|known\s+as|go(?:es)?\s+by)\s+{_CAPITALISED}",
        rf"\b(?i:you\s+are|I\s+am|I'm)\s+(?!An\b|The\b){_CAPITALISED}",
        rf"\b{_RELATIVE}\s+{_CAPITALISED}",
    ),
    _rule(
        "location",
        "the customer's address or the task's location (home or abroad)",
        r"\b(?i:live[sd]?|living|resides?|residing|based|grew\s+up|moved\s+to|staying)"
        rf"\s+(?i:in\s+)?(?i:the\s+)?{_CAPITALISED}",
        r"\b(?i:abroad|overseas|on\s+(?:vacation|holiday)|on\s+a\s+trip|travel(?:l)?ing)\b",
    ),
    _rule(
        "device model",
        "the customer's device record",
        r"\b(?:iPhone|iPad|Galaxy|Pixel|Samsung|Motorola|Nokia|Huawei|Xiaomi|OnePlus|Android|iOS)\b",
    ),
)


def persona_fact_conflicts(persona: Persona) -> list[str]:
    """One finding per persona phrase stating a personal fact that a customer record could contradict."""
    fields = [("summary", persona.summary or ""), ("description", persona.description)]
    if persona.attributes is not None:
        fields.append(("attributes.occupation", persona.attributes.occupation))
        fields.append(("attributes.temperament", persona.attributes.temperament))
    return [f"{field}: {finding}" for field, text in fields for finding in _scan(text)]


def _scan(text: str) -> list[str]:
    """Findings for one text in reading order, each span reported by the first rule that claims it."""
    claimed: list[tuple[int, int]] = []
    findings: list[tuple[int, str]] = []
    for rule in _RULES:
        for match in rule.pattern.finditer(text):
            start, end = match.span()
            if any(start < other_end and other_start < end for other_start, other_end in claimed):
                continue
            claimed.append((start, end))
            findings.append((start, f'{rule.kind} "{match[0]}" could contradict {rule.risk}'))
    return [finding for _, finding in sorted(findings)]
