"""Verifying all plans of one target on one world: plans whose init sequences share a prefix of subtasks
share its calls, through a trie walked depth first that snapshots the world where it branches.

A plan without steps to replay (a transfer task whose subtasks are all unfixable) only runs assertions,
which read the world; such plans are settled first at each node, so only plans that replay steps and
deeper prefixes need a restored world.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from tau2.generator.build import Plan
from tau2.generator.lint import redundant_steps
from tau2.generator.verify import Situation, apply_calls, apply_subtask, settle
from tau2.tasks import EnvCall, Subtask
from tau2.world import World


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a plan fared: why it is rejected, or the facts read after initialisation and (when linting)
    the steps that could be left out."""

    problem: str | None
    situation: dict[str, str] = field(default_factory=dict)
    redundant: tuple[str, ...] = ()


@dataclass(slots=True)
class _Node:
    """A prefix of init blocks: the plans whose initialisation ends here and the longer prefixes."""

    plans: list[Plan] = field(default_factory=list)
    children: dict[str, tuple[Subtask, _Node]] = field(default_factory=dict)
    """Longer prefixes by the name of the subtask they add."""

    def subtree_plans(self) -> Iterator[Plan]:
        """Every plan at or below this node."""
        yield from self.plans
        for _, child in self.children.values():
            yield from child.subtree_plans()


def verify_plans(
    world: World, plans: Sequence[Plan], situation: Situation, lint: bool = False
) -> Iterator[tuple[Plan, Outcome]]:
    """Verify plans of one catalog on `world` (fresh from the data), each with its outcome: the preamble
    once, then the plans of each intent set-up (most share the empty one) from the world it leaves."""
    if not plans:
        return
    problem = apply_calls(world, plans[0].catalog.preamble, "preamble")
    if problem is not None:
        yield from ((plan, Outcome(problem)) for plan in plans)
        return
    groups: list[tuple[tuple[EnvCall, ...], list[Plan]]] = []
    for plan in plans:
        group = next((group for setup, group in groups if setup == plan.intent.setup), None)
        if group is None:
            groups.append((plan.intent.setup, [plan]))
        else:
            group.append(plan)
    start = world.snapshot() if len(groups) > 1 else None
    for index, (setup, group) in enumerate(groups):
        if start is not None and index > 0:
            world.restore(start)
        problem = apply_calls(world, setup, "set-up")
        if problem is not None:
            yield from ((plan, Outcome(problem)) for plan in group)
            continue
        root = _Node()
        for plan in group:
            node = root
            for subtask in plan.arrangement.init:
                node = node.children.setdefault(subtask.name, (subtask, _Node()))[1]
            node.plans.append(plan)
        yield from _visit(world, root, situation, lint)


def _visit(world: World, node: _Node, situation: Situation, lint: bool) -> Iterator[tuple[Plan, Outcome]]:
    """Settle the plans ending at `node`, then plant each child's subtask and descend into it."""
    for plan in node.plans:
        if not plan.arrangement.steps:
            yield plan, _settle(world, plan, situation, lint)
    writers: list[Plan | tuple[Subtask, _Node]] = [plan for plan in node.plans if plan.arrangement.steps]
    writers.extend(node.children.values())
    snapshot = world.snapshot() if len(writers) > 1 else None
    for index, writer in enumerate(writers):
        if snapshot is not None and index > 0:
            world.restore(snapshot)
        if isinstance(writer, Plan):
            yield writer, _settle(world, writer, situation, lint)
            continue
        subtask, child = writer
        problem = apply_subtask(world, subtask)
        if problem is None:
            yield from _visit(world, child, situation, lint)
        else:
            yield from ((plan, Outcome(problem)) for plan in child.subtree_plans())


def _settle(world: World, plan: Plan, situation: Situation, lint: bool) -> Outcome:
    """Verify one initialised plan and, when linting a verified fixable one, find its redundant steps."""
    lint_steps = lint and not plan.transfer
    verdict = settle(world, plan, situation, keep_snapshots=lint_steps)
    if verdict.problem is not None or not lint_steps:
        return Outcome(verdict.problem, verdict.situation)
    return Outcome(None, verdict.situation, tuple(redundant_steps(world, plan, verdict)))
