"""Each pack's shipped rebrand delta on the pack's own data and tasks (and on τ²-bench's telecom tasks, the
quickest public set): the rebranded directory is consistent, every renamed reference replays to reward 1.0,
`tau2 verify` accepts it, and the original reference fails on at least 90 % of the tasks that write. What
each delta changes is checked in the written files: names, prices, policy numbers, traced outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rebrand_support import assert_memorisation, assert_sound, assert_verified, conformance, rebranded

from tau2.rebrand import Delta, rename_world
from tau2.rebrand.check import check_world, replay_reward
from tau2.tasks import get_domain
from tau2.tau2bench import load_task_file

SMALL_TELECOM_SUITE = Path(get_domain("telecom").default_suite or "").parent / "small.json"


@pytest.mark.parametrize("domain", ["airline", "retail", "banking_knowledge", "telecom"])
def test_the_shipped_delta_rebrands_the_packs_own_data(domain: str, tmp_path: Path) -> None:
    suites = [SMALL_TELECOM_SUITE] if domain == "telecom" else []
    result, check = rebranded(domain, tmp_path / "out", suites=suites)
    assert_sound(result, check)
    assert_memorisation(check)
    assert_verified(result)


def test_the_shipped_delta_rebrands_the_public_telecom_tasks(tmp_path: Path) -> None:
    result, check = rebranded("telecom", tmp_path / "out", source=conformance("telecom"))
    assert_sound(result, check)
    assert_memorisation(check)
    assert_verified(result)
    assert check.summary.writing == 4  # the five tasks that change the CRM, less one the gold cannot pass


def test_airline_certificates_and_the_policy_change_together(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result, _ = rebranded("airline", out)
    policy = (out / "policy.md").read_text(encoding="utf-8")
    assert "certificate of $150 per passenger" in policy and "certificate of $75 per passenger" in policy
    assert "$30 per passenger" in policy  # the insurance the tools charge stays
    names = {
        user["name"]["first_name"] for user in json.loads((out / "db.json").read_text())["users"].values()
    }
    assert names.isdisjoint({"Ines", "Lukas", "Mei", "Owen", "Priya", "Rafael"})
    assert result.world.renaming.text("Mei Tanaka") != "Mei Tanaka"


def test_retail_prices_double_and_the_expected_outputs_follow(tmp_path: Path) -> None:
    out = tmp_path / "out"
    rebranded("retail", out)
    source = get_domain("retail").identifiers
    assert source is not None and source.data_dir is not None
    before = json.loads((source.data_dir / "db.json").read_text())
    after = json.loads((out / "db.json").read_text())
    old_prices = sorted(v["price"] for p in before["products"].values() for v in p["variants"].values())
    new_prices = sorted(v["price"] for p in after["products"].values() for v in p["variants"].values())
    assert new_prices == [round(price * 2, 2) for price in old_prices]
    original = {task.id: task for task in load_task_file(source.data_dir / "tasks.json")}
    renamed = {task.id: task for task in load_task_file(out / "tasks.json")}
    said = [
        (old, new)
        for task_id, task in original.items()
        for old, new in zip(
            task.evaluation.communicate_info or [],
            renamed[task_id].evaluation.communicate_info or [],
            strict=True,
        )
    ]
    assert said == [("277", "554")]  # an order's total, traced from the payment the reference reads


def test_banking_cardholder_names_change_in_capitals(tmp_path: Path) -> None:
    out = tmp_path / "out"
    rebranded("banking_knowledge", out)
    cards = json.loads((out / "db.json").read_text())["debit_cards"]["data"]
    holders = {card["cardholder_name"] for card in cards.values()}
    assert holders and holders.isdisjoint({"ADA QUINN", "CYRA OKOYE"}) and all(h.isupper() for h in holders)


def test_the_memorisation_check_replays_the_original_gold_on_the_rebranded_world(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result, check = rebranded("airline", out)
    writing = [task for task in check.tasks if task.writes]
    assert writing and all(task.memorised == 0.0 for task in writing)
    task = next(renamed for renamed in result.tasks if renamed.original.id == writing[0].task_id)
    info = task.original.evaluation.communicate_info or []
    assert replay_reward(task.original, task.original.evaluation.solution, info, None) == 1.0
    assert replay_reward(task.task, task.original.evaluation.solution, info, out) == 0.0
    assert (
        replay_reward(
            task.task, task.task.evaluation.solution, task.task.evaluation.communicate_info or [], out
        )
        == 1.0
    )


@pytest.mark.parametrize("domain", ["airline", "retail", "banking_knowledge", "telecom"])
def test_identifier_renaming_alone_keeps_every_reference_of_the_packs_own_tasks(
    domain: str, tmp_path: Path
) -> None:
    """The engine the identifier_format perturbation calls: an empty delta, several seeds (the whole bar runs
    on τ²-bench's tasks among the slow tests)."""
    pack = get_domain(domain)
    suite = SMALL_TELECOM_SUITE if domain == "telecom" else pack.default_suite
    assert suite is not None
    tasks = load_task_file(suite, domain)
    for seed in range(3):
        world = rename_world(pack, Delta(), tasks, tmp_path / str(seed), seed=seed)
        assert world.consistent, (seed, world.survivors, [task.problems for task in world.tasks])
        check = check_world(world)
        assert check.summary.kept == check.summary.solved == len(tasks), seed
