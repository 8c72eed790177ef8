"""Shared helpers of the rebrand tests: rebranding a domain with its shipped delta, and the checks every
rebrand must pass (consistent, every renamed reference keeps its reward, the memorisation share, the
written directory accepted by `tau2 verify`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tau2.cli import app
from tau2.rebrand import Delta, Rebrand, load_delta, rebrand
from tau2.rebrand.check import Check, check_rebrand
from tau2.tasks import get_domain

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "conformance"
CONFORMANCE = {
    "airline": "tau2-airline",
    "retail": "tau2-retail",
    "banking_knowledge": "tau2-banking",
    "telecom": "tau2-telecom",
}
MEMORISATION_BAR = 0.9
"""The share of writing tasks on which the original reference must fail on the rebranded world."""


def conformance(domain: str) -> Path:
    """τ²-bench's public data of `domain` beside the repository; skip without it (fail on CI)."""
    directory = SHARED / CONFORMANCE[domain]
    if not directory.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"conformance data missing: {directory}")
        pytest.skip(f"conformance data not present at {directory}")
    return directory


def shipped(domain: str) -> Delta:
    """The delta the domain's pack ships."""
    declaration = get_domain(domain).identifiers
    assert declaration is not None and declaration.delta is not None
    return load_delta(declaration.delta, declaration)


def rebranded(
    domain: str,
    target: Path,
    source: Path | None = None,
    delta: Delta | None = None,
    suites: Sequence[Path] = (),
    seed: int | None = None,
) -> tuple[Rebrand, Check]:
    """Rebrand `domain` (its shipped delta unless one is given) into `target` and check it."""
    chosen = shipped(domain) if delta is None else delta
    result = rebrand(get_domain(domain), chosen, target, source=source, suites=suites, seed=seed)
    return result, check_rebrand(result)


def assert_sound(result: Rebrand, check: Check) -> None:
    """The rebrand is consistent, no old identifier survived, and every renamed reference keeps its reward
    (all of them 1.0 here, as the originals)."""
    problems = [(task.original.id, task.problems) for task in result.tasks if task.problems]
    assert problems == []
    assert result.world.survivors == [] and result.world.survivor_count == 0
    assert [task.task_id for task in check.tasks if task.original != 1.0] == []
    assert check.summary.kept == check.summary.tasks == check.summary.solved


def assert_memorisation(check: Check) -> None:
    """The original reference actions score 0 on at least 90 % of the tasks that write."""
    share = check.summary.memorisation_share
    assert share is not None and share >= MEMORISATION_BAR, check.summary


def assert_verified(result: Rebrand) -> None:
    """`tau2 verify` accepts every written task file on the written data directory."""
    target = result.world.target
    for path, tasks in result.task_files:
        arguments = ["verify", str(path), "--data-dir", str(target), "--domain", result.domain.name]
        outcome = CliRunner().invoke(app, arguments)
        assert outcome.exit_code == 0, outcome.output
        assert f"{len(tasks)} tasks: {len(tasks)} valid, 0 invalid" in outcome.output.splitlines()
