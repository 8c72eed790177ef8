"""The customer's brief rewritten by a named, deterministic variant (the `instruction_variant`
perturbation): the same facts told otherwise. A fact is one sentence of the brief; every variant keeps every
fact word for word, and only moves, reorders or frames them:

- `terse`: the opening says only the first sentence of the reason; the rest of the reason waits with what
  the customer knows, and the customer is told to answer in as few words as it can.
- `verbose`: the opening says the whole reason and everything the customer knows, and the customer is told
  to explain at length.
- `facts_out_of_order`: the sentences of each part of the brief in another order, drawn from the seed.
- `fact_late`: one fact of what the customer knows (else of its reason, never the opening sentence), drawn
  from the seed, held back as the brief's late information: given only once the agent asks for it.
"""

from __future__ import annotations

import random
import re
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict

from tau2.errors import UserInputError
from tau2.tasks._task import Task, UserInstructions

TERSE_STYLE = "Answer in as few words as you can: no greetings, no explanations, one fact at a time."
"""What a `terse` brief adds to how the customer acts."""
VERBOSE_STYLE = (
    "Explain yourself at length: give background and context in every message, and repeat what matters."
)
"""What a `verbose` brief adds to how the customer acts."""

_BREAK = re.compile(r"\s*\n\s*|(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9#])")
"""Where one sentence ends and the next begins: a line break, or end punctuation, space and a capital."""
_ABBREVIATION = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Dr|St|No|vs|etc|e\.g|i\.e)\.)$")
"""Sentence ends that are abbreviations, not ends (`Dr. Lee`, `e.g. Wi-Fi`)."""


class BriefVariant(StrEnum):
    """The named variants of a brief."""

    TERSE = "terse"
    VERBOSE = "verbose"
    FACTS_OUT_OF_ORDER = "facts_out_of_order"
    FACT_LATE = "fact_late"


class VariedBrief(BaseModel):
    """A brief rewritten by a variant, and what the variant did (what a simulation records)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    variant: str
    """The variant's name (`terse`, …, or `paraphrase`)."""
    seed: int
    instructions: UserInstructions | str
    """The rewritten brief."""
    held_back: str | None = None
    """`fact_late`: the fact held back (None when the brief had none to hold back)."""
    model: str | None = None
    """`paraphrase`: the model that rewrote the brief."""

    def apply(self, task: Task) -> Task:
        """`task` with this brief in place of its own."""
        scenario = task.user_scenario.model_copy(update={"instructions": self.instructions})
        return task.model_copy(update={"user_scenario": scenario})


def brief_facts(instructions: UserInstructions | str) -> list[str]:
    """The facts of a brief: its sentences, part by part (reason, what the customer knows, what it gives
    late, what it does not know, how it acts), each as written."""
    if isinstance(instructions, str):
        return sentences(instructions)
    return [fact for part in _parts(instructions).values() for fact in part]


def sentences(text: str | None) -> list[str]:
    """The sentences of `text`, in order, each as written (abbreviations never end one)."""
    if not text:
        return []
    found: list[str] = []
    for piece in _BREAK.split(text.strip()):
        if not piece:
            continue
        if found and _ABBREVIATION.search(found[-1]):
            found[-1] = f"{found[-1]} {piece}"
        else:
            found.append(piece)
    return found


def vary_brief(instructions: UserInstructions | str, variant: BriefVariant | str, seed: int) -> VariedBrief:
    """The brief rewritten by `variant`; the same (variant, seed) always gives the same brief. An unknown
    variant is a `UserInputError` naming the known ones."""
    try:
        chosen = BriefVariant(variant)
    except ValueError:
        known = ", ".join(member.value for member in BriefVariant)
        raise UserInputError(f"unknown instruction variant {variant!r} (known: {known})") from None
    rng = random.Random(f"{chosen.value}:{seed}")
    if isinstance(instructions, str):
        return _vary_text(instructions, chosen, seed, rng)
    parts = _parts(instructions)
    held_back: str | None = None
    if chosen is BriefVariant.TERSE:
        reason = parts["reason_for_call"]
        parts["reason_for_call"] = reason[:1]
        parts["known_info"] = [*reason[1:], *parts["known_info"]]
        parts["task_instructions"] = [*parts["task_instructions"], TERSE_STYLE]
    elif chosen is BriefVariant.VERBOSE:
        parts["reason_for_call"] = [*parts["reason_for_call"], *parts["known_info"]]
        parts["known_info"] = []
        parts["task_instructions"] = [*parts["task_instructions"], VERBOSE_STYLE]
    elif chosen is BriefVariant.FACTS_OUT_OF_ORDER:
        parts = {name: _reordered(facts, rng) for name, facts in parts.items()}
    else:
        field = "known_info" if parts["known_info"] else "reason_for_call"
        first = 0 if field == "known_info" else 1
        candidates = parts[field][first:]
        if candidates:
            position = first + rng.randrange(len(candidates))
            held_back = parts[field].pop(position)
            parts["late_info"] = [*parts["late_info"], held_back]
    return VariedBrief(variant=chosen.value, seed=seed, instructions=_joined(parts), held_back=held_back)


def _vary_text(text: str, variant: BriefVariant, seed: int, rng: random.Random) -> VariedBrief:
    """A free-text brief varied: its sentences framed, reordered, or one held back (the rest then becomes
    the reason for calling of a structured brief, the only kind with late information)."""
    facts = sentences(text)
    if variant is BriefVariant.TERSE:
        return VariedBrief(variant=variant.value, seed=seed, instructions=" ".join([*facts, TERSE_STYLE]))
    if variant is BriefVariant.VERBOSE:
        return VariedBrief(variant=variant.value, seed=seed, instructions=" ".join([*facts, VERBOSE_STYLE]))
    if variant is BriefVariant.FACTS_OUT_OF_ORDER:
        return VariedBrief(variant=variant.value, seed=seed, instructions=" ".join(_reordered(facts, rng)))
    if len(facts) < 2:
        return VariedBrief(variant=variant.value, seed=seed, instructions=text)
    held_back = facts.pop(1 + rng.randrange(len(facts) - 1))
    instructions = UserInstructions(
        reason_for_call=" ".join(facts), task_instructions="", late_info=held_back
    )
    return VariedBrief(variant=variant.value, seed=seed, instructions=instructions, held_back=held_back)


def _parts(instructions: UserInstructions) -> dict[str, list[str]]:
    """The sentences of each part of a structured brief, by field name, in the order the brief tells them."""
    return {
        "reason_for_call": sentences(instructions.reason_for_call),
        "known_info": sentences(instructions.known_info),
        "late_info": sentences(instructions.late_info),
        "unknown_info": sentences(instructions.unknown_info),
        "task_instructions": sentences(instructions.task_instructions),
    }


def _joined(parts: dict[str, list[str]]) -> UserInstructions:
    """A structured brief of these sentences (an empty optional part left out)."""
    fields: dict[str, Any] = {name: " ".join(facts) or None for name, facts in parts.items()}
    fields["reason_for_call"] = fields["reason_for_call"] or ""
    fields["task_instructions"] = fields["task_instructions"] or ""
    return UserInstructions(**fields)


def _reordered(facts: list[str], rng: random.Random) -> list[str]:
    """`facts` shuffled by `rng`, never left in their order unless they are all alike."""
    shuffled = list(facts)
    rng.shuffle(shuffled)
    if len(facts) > 1 and shuffled == facts:
        shuffled = shuffled[1:] + shuffled[:1]
    return shuffled
