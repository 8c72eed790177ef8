"""The customer's brief paraphrased by a model (`instruction_variant` with `variant = "paraphrase"`):
each part of a structured brief rewritten in other words, every name, number and identifier kept as
written. The request goes through `tau2.llm`, so a model cache in scope answers it again without asking,
and the answer is checked: a paraphrase that drops a part or a value is refused, never used."""

from __future__ import annotations

import json
import re
from typing import Any

from tau2.llm import InfrastructureError, ModelCache, ModelClient, ModelSpec, Usage, call_settings
from tau2.tasks import UserInstructions, VariedBrief

PARAPHRASE_PROMPT = """\
You rewrite the brief of a simulated customer for a customer-service test, so that the same customer \
situation is told in other words. Keep every fact, and write every name, number, date, amount, code, \
e-mail address and identifier exactly as it is written. Do not add facts, drop facts or change what the \
customer wants, knows or does not know. Answer with one JSON object with exactly the keys of the brief you \
are given, each holding the rewritten text of that part."""
"""The paraphrasing model's instructions (a change of this text changes every cached answer's key)."""

_KEPT = re.compile(r"[\w.@#/:+-]*\d[\w.@#/:+-]*|\S+@\S+|\b\w*_\w*\b")
"""Words a paraphrase must keep as written: those with a digit (numbers, identifiers, phone numbers,
amounts), e-mail addresses, and words joined by `_` (tool and record names)."""


async def paraphrase_brief(
    instructions: UserInstructions | str, model: ModelSpec, seed: int, *, cache: ModelCache | None = None
) -> tuple[VariedBrief, Usage]:
    """The brief paraphrased by `model` with `seed` (the same request is answered from `cache`, or from the
    model cache in scope, without asking again), with the call's usage. A paraphrase that is not a JSON
    object of the brief's parts, leaves a part empty, or drops a value the brief writes raises
    `InfrastructureError` naming the model (the model failed the request, not the agent its task)."""
    parts = _parts(instructions)
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": PARAPHRASE_PROMPT},
        {"role": "user", "content": json.dumps(parts, ensure_ascii=False, indent=2)},
    ]
    client = ModelClient(model)
    if cache is None:
        completion = await client.complete(messages, seed=seed)
    else:
        with call_settings(cache=cache):
            completion = await client.complete(messages, seed=seed)
    rewritten = _checked(parts, completion.text or "", model.name)
    paraphrased: UserInstructions | str
    if isinstance(instructions, str):
        paraphrased = rewritten["brief"]
    else:
        paraphrased = UserInstructions.model_validate({**instructions.model_dump(), **rewritten})
    varied = VariedBrief(variant="paraphrase", seed=seed, instructions=paraphrased, model=model.name)
    return varied, completion.usage


def _parts(instructions: UserInstructions | str) -> dict[str, str]:
    """The brief's non-empty parts by field name (a free-text brief is the one part `brief`)."""
    if isinstance(instructions, str):
        return {"brief": instructions}
    fields = instructions.model_dump(exclude_none=True)
    return {name: value for name, value in fields.items() if isinstance(value, str) and value}


def _checked(parts: dict[str, str], answer: str, model: str) -> dict[str, str]:
    """The model's rewritten parts, after checking they are the brief's parts, none empty, and that they
    keep every value the brief writes."""
    text = answer.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        rewritten = json.loads(text)
    except ValueError:
        raise InfrastructureError(f"{model}: the paraphrase of the brief is not JSON") from None
    if not isinstance(rewritten, dict) or set(rewritten) != set(parts):
        raise InfrastructureError(
            f"{model}: the paraphrase of the brief does not hold exactly its parts ({', '.join(parts)})"
        )
    empty = [name for name, value in rewritten.items() if not isinstance(value, str) or not value.strip()]
    if empty:
        raise InfrastructureError(f"{model}: the paraphrase of the brief leaves {empty[0]} empty")
    written = " ".join(rewritten.values())
    kept = (word.rstrip(".,:;/+-") for part in parts.values() for word in _KEPT.findall(part))
    dropped = [word for word in kept if word and word not in written]
    if dropped:
        raise InfrastructureError(f"{model}: the paraphrase of the brief drops {dropped[0]!r}")
    return {name: str(value) for name, value in rewritten.items()}
