"""The human-readable summary of a generation: tasks kept, rejections with reasons, lint findings."""

from __future__ import annotations

from collections import Counter

from tau2.generator.lint import LintKind
from tau2.generator.pipeline import Generation
from tau2.generator.stream import TaskStream


def summary_lines(generation: Generation | TaskStream, examples: int = 5) -> list[str]:
    """Counts by intent and transfer, every rejection reason with how often it occurred, and lint findings
    by kind with up to `examples` of each (of a stream: once it has been read)."""
    tally = generation.tally
    by_intent = ", ".join(f"{intent} {count}" for intent, count in tally.intents.items())
    lines = [f"{tally.tasks} tasks verified ({by_intent}; {tally.transfers} transfers)"]
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
