"""The human-readable summary of a generation: tasks kept, rejections with reasons, lint findings."""

from __future__ import annotations

from collections import Counter

from tau2.generator.lint import LintKind
from tau2.generator.pipeline import Generation


def summary_lines(generation: Generation, examples: int = 5) -> list[str]:
    """Counts by intent and transfer, every rejection reason with how often it occurred, and lint findings
    by kind with up to `examples` of each."""
    tasks = generation.tasks
    intents = Counter(task.intent for task in tasks)
    transfers = sum(task.evaluation.expects_transfer for task in tasks)
    by_intent = ", ".join(f"{intent} {count}" for intent, count in intents.items())
    lines = [f"{len(tasks)} tasks verified ({by_intent}; {transfers} transfers)"]
    if generation.rejected:
        lines.append(f"{len(generation.rejected)} tasks rejected:")
        reasons = Counter(rejection.reason for rejection in generation.rejected)
        first: dict[str, str] = {}
        for rejection in generation.rejected:
            first.setdefault(rejection.reason, rejection.task_id)
        lines.extend(f"  {count} x {reason} (e.g. {first[reason]})" for reason, count in reasons.items())
    lines.append(f"lint: {len(generation.findings)} findings")
    for kind in LintKind:
        found = [finding for finding in generation.findings if finding.kind is kind]
        if not found:
            continue
        lines.append(f"  {kind.value}: {len(found)}")
        lines.extend(f"    {finding.subject}: {finding.message}" for finding in found[:examples])
        if len(found) > examples:
            lines.append(f"    … and {len(found) - examples} more")
    return lines
