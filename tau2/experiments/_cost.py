"""What an experiment will likely cost before it starts, from the models' prices in litellm's local cost
map and a per-simulation token estimate; and, while it runs, what one more simulation will likely cost."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from pydantic import BaseModel, ConfigDict

from tau2.llm import ModelSpec, token_prices
from tau2.perturbations import perturbation_models
from tau2.runs import RunManifest

SEAT_TOKENS: Final = (60_000, 1_500)
"""Prompt and completion tokens one conversational seat (agent or user) with a model spends in one
simulation, before any has run: about 15 model calls, each sending the instructions and the conversation
so far (about 4,000 tokens on average) and writing one reply (about 100)."""

JUDGE_TOKENS: Final = (3_000, 300)
"""Prompt and completion tokens the natural-language judge spends on one simulation."""

PERTURBATION_TOKENS: Final = (1_000, 500)
"""Prompt and completion tokens a model a perturbation asks spends on one simulation: a paraphrased brief
sends its instructions and the brief (about 1,000 tokens) and gets the brief back rewritten."""


class CostEstimate(BaseModel):
    """The likely spend of the simulations still to run, with what it leaves out."""

    model_config = ConfigDict(frozen=True)

    simulations: int
    """Simulations the estimate covers (at most what the plan and the budget allow)."""
    per_simulation_usd: dict[str, float]
    """Per arm, the priced models' likely cost of one simulation (0 for offline seats)."""
    total_usd: float
    unpriced: list[str]
    """Seats whose model the cost map does not price (`transfer: agent openai/x`): their cost is unknown."""

    def line(self) -> str:
        """`cost estimate: about $1.23 for up to 640 simulations (…)`, one line."""
        if not self.simulations:
            return "cost estimate: nothing left to simulate"
        text = f"cost estimate: about ${self.total_usd:.2f} for up to {self.simulations} simulations"
        prompt, completion = SEAT_TOKENS
        text += f" (~{prompt / 1000:g}k prompt + {completion / 1000:g}k completion tokens per model seat per"
        text += " simulation, at litellm's prices)"
        if self.unpriced:
            text += f"; unpriced, not counted: {', '.join(self.unpriced)}"
        return text


def simulation_cost(manifest: RunManifest) -> tuple[float, list[str]]:
    """The likely cost of one simulation of a run (offline seats cost nothing; a perturbation's model,
    such as a paraphrasing one, counts beside the seats), and the seats whose model is unpriced."""
    seats: list[tuple[str, ModelSpec | None, tuple[int, int]]] = [
        ("agent", manifest.agent.model, SEAT_TOKENS),
        ("user", None if manifest.user is None else manifest.user.model, SEAT_TOKENS),
        ("judge", manifest.config.judge, JUDGE_TOKENS),
        *(
            (where, model, PERTURBATION_TOKENS)
            for where, model in perturbation_models(manifest.config.perturbations)
        ),
    ]
    cost, unpriced = 0.0, []
    for seat, model, (prompt, completion) in seats:
        if model is None:
            continue
        prices = token_prices(model.name)
        if prices is None:
            unpriced.append(f"{seat} {model.name}")
            continue
        cost += prompt * prices[0] + completion * prices[1]
    return cost, unpriced


def estimate_cost(
    arms: Sequence[tuple[str, RunManifest]], simulations: int, observed: Mapping[int, float] | None = None
) -> CostEstimate:
    """The likely cost of `simulations` simulations spread evenly over `arms` (name, manifest): per arm,
    the mean cost of its simulations so far when `observed` has one (by the arm's index), else the
    prices times the token estimate."""
    per_arm: dict[str, float] = {}
    unpriced: list[str] = []
    for index, (name, manifest) in enumerate(arms):
        priced, missing = simulation_cost(manifest)
        per_arm[name] = (observed or {}).get(index, priced)
        unpriced += [f"{name}: {seat}" for seat in missing]
    mean = sum(per_arm.values()) / len(per_arm) if per_arm else 0.0
    return CostEstimate(
        simulations=simulations, per_simulation_usd=per_arm, total_usd=mean * simulations, unpriced=unpriced
    )
