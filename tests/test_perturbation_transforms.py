"""The perturbations that change what an episode starts from: `identifier_format` (the world and the task
renamed by one bijection per simulation) and `instruction_variant` (the customer's brief told by a named
variant). The oracle agent and the scripted user still solve every task, each simulation records what was
done to it, and the same seed renames or varies alike in every arm."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tau2 import run
from tau2.config import RunConfig
from tau2.perturbations import check_perturbation
from tau2.regrade import regrade_suite
from tau2.runs import Run, load_run
from tau2.tasks import get_domain
from tau2.tau2bench import load_task_file
from tau2.world import Side

COLLATERAL = "tau2.testing:collateral_oracle"
SAMPLE = 4
"""Tasks of each domain's default suite played (enough to cover its identifier kinds, quick to run)."""


def _run(tmp_path: Path, name: str, domain: str, perturbations: dict[str, Any], agent: str = "oracle") -> Run:
    suite = get_domain(domain).default_suite
    assert suite is not None
    ids = [task.id for task in load_task_file(Path(suite), domain)][:SAMPLE]
    config = RunConfig(
        suite=Path(suite),
        domain=domain,
        task_ids=ids,
        agent=agent,
        user="scripted",
        seed=5,
        perturbations=perturbations,
    )
    run(config, tmp_path / name)
    return load_run(tmp_path / name)


@pytest.mark.parametrize("domain", ["telecom", "airline", "retail", "banking_knowledge"])
def test_renamed_identifiers_keep_every_reward_and_leave_no_original_id(tmp_path: Path, domain: str) -> None:
    renamed = _run(tmp_path, "renamed", domain, {"identifier_format": {"rate": 1.0}})
    again = _run(tmp_path, "again", domain, {"identifier_format": {"rate": 1.0}})
    records = list(renamed.records)
    assert records and all(record.reward == 1.0 for record in records)
    assert all(record.collateral == [] for record in records), "measured against the renamed reference"
    assert all(not record.missing_writes for record in records)
    for record, repeated in zip(records, again.records, strict=True):
        assert record.perturbation is not None
        (event,) = record.perturbation.events
        assert event.kind == "identifier_format" and event.effect == "renamed_identifiers"
        assert repeated.perturbation == record.perturbation  # one bijection per (task, trial) and seed
        assert record.trajectory is not None
        said = json.dumps(record.trajectory.model_dump(mode="json"))
        originals = [pair.split(" → ")[0] for pair in (event.detail or "").split(": ", 1)[1].split(", ")]
        assert all(old not in said for old in originals if len(old) > 3), record.task_id


def test_collateral_on_a_renamed_world_names_the_renamed_record(tmp_path: Path) -> None:
    """The collateral oracle's extra write (a line of an uninvolved customer) is found on the renamed world
    too, named by its renamed identifier, and nothing the renamed reference writes counts."""
    renaming = {"identifier_format": {"rate": 1.0}}
    renamed = list(_run(tmp_path, "renamed", "telecom", renaming, COLLATERAL).records)
    plain = list(_run(tmp_path, "plain", "telecom", {}, COLLATERAL).records)
    assert renamed and all(record.reward == 1.0 for record in renamed)
    for record, unrenamed in zip(renamed, plain, strict=True):
        (write,) = record.collateral
        (original,) = unrenamed.collateral
        assert write.record.startswith("crm.lines[L") and write.record != original.record
        assert [(call.seat, call.tool) for call in write.calls] == [(Side.AGENT, "suspend_line")]


@pytest.mark.parametrize(("domain", "agent"), [("telecom", COLLATERAL), ("airline", "oracle")])
def test_a_regrade_of_a_renamed_run_replays_it_on_its_renamed_world(
    tmp_path: Path, domain: str, agent: str
) -> None:
    """Regrading against the suite the run played: each simulation is replayed on the world its seed renamed
    (its calls name renamed identifiers), so rewards, collateral and missing writes come out as recorded."""
    played = _run(tmp_path, "renamed", domain, {"identifier_format": {"rate": 1.0}}, agent)
    suite = get_domain(domain).default_suite
    assert suite is not None
    regrade_suite(tmp_path / "renamed", Path(suite), tmp_path / "regraded")
    regraded = list(load_run(tmp_path / "regraded").records)
    records = list(played.records)
    assert [r.reward for r in regraded] == [r.reward for r in records] and {r.reward for r in records} == {
        1.0
    }
    assert [r.collateral for r in regraded] == [r.collateral for r in records]
    assert [r.missing_writes for r in regraded] == [r.missing_writes for r in records]


@pytest.mark.parametrize("variant", ["terse", "verbose", "facts_out_of_order", "fact_late"])
def test_every_brief_variant_still_lets_the_oracle_pass_and_is_recorded(tmp_path: Path, variant: str) -> None:
    varied = _run(tmp_path, variant, "telecom", {"instruction_variant": {"variant": variant}})
    records = list(varied.records)
    assert records and all(record.reward == 1.0 for record in records)
    for record in records:
        assert record.perturbation is not None
        (event,) = record.perturbation.events
        assert event.effect == "varied_brief" and (event.detail or "").startswith(variant)


def test_both_kinds_pass_their_conformance_check() -> None:
    suite = get_domain("telecom").default_suite
    assert suite is not None
    task = load_task_file(Path(suite), "telecom")[0]
    assert check_perturbation("identifier_format", task, {"rate": 1.0}) == []
    assert check_perturbation("instruction_variant", task, {"variant": "fact_late"}) == []


def test_a_domain_without_identifiers_is_refused_in_one_line_before_any_simulation(tmp_path: Path) -> None:
    from tau2.errors import UserInputError

    with pytest.raises(UserInputError, match=r"^perturbations\.identifier_format: domain 'mock' declares no"):
        _run(tmp_path, "mock", "mock", {"identifier_format": {"rate": 1.0}})
    assert not (tmp_path / "mock" / "results.jsonl").exists()
    _run(tmp_path, "rate-zero", "mock", {"identifier_format": {"rate": 0.0}})  # nothing to rename: it runs
