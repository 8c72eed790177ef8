"""The extended telecom catalog (`--catalog extended`): its pool, its new faults' semantics, verification of
every new subtask alone and of a stratified sample of the pool in both orders, the offline actors'
self-test on a sample, and its household tasks, which span several lines and two customers. The whole pool
is verified by benchmarks/extended_catalog_bench.py."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_generator_properties import compositions
from typer.testing import CliRunner

from tau2.actors import make_actor
from tau2.cli import app
from tau2.domains.telecom import EXTENDED_DOMAIN
from tau2.domains.telecom.catalog import CATALOG, EXTENDED_FAULTS
from tau2.episode import ActorSpec, EpisodeConfig, Mode, run_episode
from tau2.generator.build import Plan
from tau2.generator.compose import is_transfer
from tau2.generator.options import GeneratorOptions, Order, PersonaAssignment, TargetMode
from tau2.generator.pipeline import Generation, _personas, catalog_layers, generate, plan_drafts
from tau2.generator.replay import verify_plans
from tau2.generator.workflow import Workflow
from tau2.tasks import Catalog, Domain, extend_catalog, load_suite
from tau2.world import Side, World

runner = CliRunner()
EXTENDED = GeneratorOptions(catalog="extended", max_transfer_share=1.0)
"""The whole extended pool: no cap on its transfers."""
ROTATED = EXTENDED.model_copy(update={"persona_assignment": PersonaAssignment.ROTATE})
NEW_SUBTASKS = {
    "line_suspended_no_bill",
    "overdue_bill_suspension_request_pending",
    "contract_end_suspension_bill_paid",
    "line_pending_activation",
    "line_closed_by_mistake",
    "apn_reset_pending_reboot",
    "no_network_coverage",
    "no_5g_coverage",
    "network_mode_3g_only",
    "network_mode_4g_only",
    "data_usage_exceeded_partial_refuel",
    "data_usage_exceeded_beyond_cap",
    "mms_apn_reset_pending_reboot",
    "overdue_bill_unpaid",
    "overdue_bill_request_pending",
    "two_overdue_bills",
    "user_knows_sim_pin",
    "device_not_activated",
    "two_overdue_bills_suspension",
    "autopay_expired_card_suspension",
    "autopay_expired_card",
    "wrong_plan",
    "storage_full",
    "family_line_suspended",
    "family_line_pending_activation",
    "family_line_wrong_plan",
    "family_line_out_of_data",
    "family_line_roaming_off",
    "partner_line_suspended",
    "partner_line_out_of_data",
}
VERSION = "telecom-1+telecom-extended-2"


@pytest.fixture(scope="module")
def extended_catalogs(telecom: Domain) -> list[Catalog]:
    """The extended catalog of every eligible target of our data."""
    layers = catalog_layers(telecom, CATALOG, "extended")
    return [extend_catalog(catalog, layers) for catalog in CATALOG.catalogs(World.create(EXTENDED_DOMAIN))]


@pytest.fixture(scope="module")
def singles(telecom: Domain) -> Generation:
    """Every subtask of the extended catalog alone, personas rotated, spread over the targets."""
    options = ROTATED.model_copy(update={"max_subtasks": 1, "target": TargetMode.SPREAD})
    return generate(telecom, options)


@pytest.fixture(scope="module")
def sample(telecom: Domain) -> Generation:
    """One task per (intent, #subtasks, persona) bin of the extended pool, spread over the targets."""
    options = EXTENDED.model_copy(update={"sample_per_bin": 1, "seed": 3, "target": TargetMode.SPREAD})
    return generate(telecom, options)


def test_the_extended_pool_holds_over_10000_compositions_without_a_transfer(
    extended_catalogs: list[Catalog],
) -> None:
    catalog = extended_catalogs[0]
    drafts = plan_drafts(catalog, ROTATED, _personas(ROTATED.personas))
    intents = Counter(draft.composition.intent for draft in drafts)
    assert intents == {
        "mobile_data_issue": 3838,
        "service_issue": 1439,
        "mms_issue": 30400,
        "billing_issue": 15,
        "household_issue": 1520,
    }
    transfers = Counter(
        draft.composition.intent for draft in drafts if is_transfer(catalog, draft.composition)
    )
    assert transfers == {"mobile_data_issue": 3072, "service_issue": 1104, "mms_issue": 21280}
    assert len(drafts) == 37212 and len(drafts) - transfers.total() == 11756 >= 10000
    assert {name for draft in drafts for name in draft.composition.subtasks} >= NEW_SUBTASKS
    assert catalog.version == VERSION


def test_variants_join_only_the_intents_whose_predicate_they_break(extended_catalogs: list[Catalog]) -> None:
    drafts = plan_drafts(extended_catalogs[0], ROTATED, _personas(ROTATED.personas))
    intents_of: dict[str, set[str]] = {}
    for draft in drafts:
        for name in draft.composition.subtasks:
            intents_of.setdefault(name, set()).add(draft.composition.intent)
    for name in ("network_mode_3g_only", "network_mode_4g_only", "no_5g_coverage"):
        assert intents_of[name] == {"mobile_data_issue"}, "MMS still work on 3G, 4G and without 5G"
    assert intents_of["no_network_coverage"] == {"service_issue", "mobile_data_issue", "mms_issue"}
    mms = {draft.composition.subtasks for draft in drafts if draft.composition.intent == "mms_issue"}
    assert ("no_network_coverage",) not in mms, "a prerequisite of MMS, never alone"
    own_account = {"billing_issue", "household_issue"}
    for name in ("overdue_bill_unpaid", "overdue_bill_request_pending", "two_overdue_bills", "wrong_plan"):
        assert intents_of[name] == own_account
    assert intents_of["user_knows_sim_pin"] == intents_of["device_not_activated"] == {"service_issue"}
    assert intents_of["storage_full"] == {"mms_issue"}
    household = {
        draft.composition.subtasks for draft in drafts if draft.composition.intent == "household_issue"
    }
    assert ("wrong_plan",) not in household, (
        "the caller's own account faults join another line's, never alone"
    )


def test_the_base_pool_is_part_of_the_extended_one(extended_catalogs: list[Catalog], telecom: Domain) -> None:
    base = CATALOG.catalogs(World.create(telecom))[0]
    options = ROTATED.model_copy(update={"catalog": "base"})
    own = {draft.composition for draft in plan_drafts(base, options, _personas(options.personas))}
    extended = {
        draft.composition for draft in plan_drafts(extended_catalogs[0], ROTATED, _personas(("none",)))
    }
    assert len(own) == 3405 and own < extended


def test_every_new_subtask_verifies_alone(singles: Generation) -> None:
    assert singles.rejected == [] and singles.findings == []
    assert len(singles.tasks) == 52, "21 of τ²-bench, 30 new, no coverage under both service and data"
    assert sum(task.evaluation.expects_transfer for task in singles.tasks) == 9
    assert {name for task in singles.tasks for name in task.subtasks} >= NEW_SUBTASKS
    assert {task.metadata["catalog_version"] for task in singles.tasks} == {VERSION}
    assert {task.domain for task in singles.tasks} == {"telecom_extended"} == {singles.domain}


def test_the_new_faults_store_what_they_promise(singles: Generation) -> None:
    no_5g = next(task for task in singles.tasks if task.subtasks == ["no_5g_coverage"])
    assert [(a.name, a.arguments) for a in no_5g.evaluation.assertions] == [
        ("assert_internet_not_excellent", {})
    ]
    partial = next(task for task in singles.tasks if task.subtasks == ["data_usage_exceeded_partial_refuel"])
    customer_id, line_id = str(partial.metadata["target"]).split("/")
    target = {"customer_id": customer_id, "line_id": line_id}
    assert [(step.name, step.arguments) for step in partial.evaluation.solution] == [
        ("refuel_data", {**target, "gb_amount": 1.0})
    ]
    assert partial.evaluation.assertions[-1].arguments == {**target, "expected_amount": 2.0}
    phrase = "whatever smaller amount the monthly refuel limit still allows"
    assert phrase in (partial.ticket or "") and phrase in str(partial.user_scenario.instructions)
    billing = next(task for task in singles.tasks if task.subtasks == ["overdue_bill_unpaid"])
    assert [a.name for a in billing.evaluation.assertions] == [
        "assert_no_overdue_bill",
        "assert_no_overdue_bill",
        "assert_line_status",
        "assert_autopay_usable",
        "assert_line_plan",
    ]
    assert [step.name for step in billing.evaluation.solution] == ["send_payment_request", "make_payment"]
    assert "pay any overdue bill" in (billing.ticket or "")
    pin = next(task for task in singles.tasks if task.subtasks == ["user_knows_sim_pin"])
    assert [(step.name, step.arguments) for step in pin.evaluation.solution] == [
        ("enter_sim_pin", {"pin": "4812"})
    ]
    assert "4812" in (pin.ticket or "") and "4812" in str(pin.user_scenario.instructions)


@pytest.mark.parametrize("order", list(Order))
def test_a_stratified_sample_verifies_in_either_order(telecom: Domain, order: Order) -> None:
    options = EXTENDED.model_copy(
        update={"sample_per_bin": 1, "seed": 11, "target": TargetMode.SPREAD, "order": order}
    )
    generation = generate(telecom, options, lint=order is Order.WORKFLOW)
    assert generation.rejected == [] and generation.findings == []
    sizes = Counter((task.intent, task.num_subtasks) for task in generation.tasks)
    assert max(size for _, size in sizes) == 11 and len(generation.tasks) == 3 * len(sizes)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_any_valid_extended_composition_verifies(
    telecom: Domain, extended_catalogs: list[Catalog], data: st.DataObject
) -> None:
    catalog = data.draw(st.sampled_from(extended_catalogs))
    composition = data.draw(compositions(catalog))
    order = data.draw(st.sampled_from(list(Order)))
    subtasks = [catalog.subtask(name) for name in composition.subtasks]
    assume(all(subtask.offered_to(composition.intent) for subtask in subtasks))
    plan = Plan(
        catalog, catalog.intent(composition.intent), composition, Workflow(catalog).arrange(subtasks, order)
    )
    [(_, outcome)] = verify_plans(World.create(EXTENDED_DOMAIN), [plan], CATALOG.situation, lint=True)
    assert outcome.problem is None
    assert outcome.redundant == () or order is Order.TAU2


@pytest.mark.parametrize("mode", [Mode.INTERACTIVE, Mode.SOLO])
async def test_the_oracle_solves_and_the_null_agent_fails_a_sample(
    singles: Generation, sample: Generation, mode: Mode
) -> None:
    assert sample.rejected == []
    tasks = singles.tasks + sample.tasks
    config = EpisodeConfig(mode=mode)
    for agent, expected in (("oracle", 1.0), ("null", 0.0)):
        for task in tasks:
            user = None if mode is Mode.SOLO else make_actor(ActorSpec(kind="scripted"), Side.USER, mode)
            result = await run_episode(
                task, make_actor(ActorSpec(kind=agent), Side.AGENT, mode), user, config
            )
            assert result.reward == expected, (agent, task.id, result.trajectory.termination_detail)


def test_an_extended_suite_records_its_catalog_and_regenerates_byte_for_byte(tmp_path: Path) -> None:
    outputs = [tmp_path / "a" / "suite.json", tmp_path / "b" / "suite.json"]
    for output in outputs:
        output.parent.mkdir()
        arguments = ["--catalog", "extended", "--max-subtasks", "2", "--sample-per-bin", "2", "--seed", "5"]
        result = runner.invoke(app, ["generate", *arguments, "-o", str(output)])
        assert result.exit_code == 0, result.output
    assert outputs[0].read_bytes() == outputs[1].read_bytes()
    suite = load_suite(outputs[0])
    assert suite.catalog_version == VERSION and suite.domain == "telecom_extended"
    assert suite.generator["catalog"] == "extended"
    digest = hashlib.sha256(EXTENDED_FAULTS.read_bytes()).hexdigest()
    assert suite.generator["catalog_extensions"] == [
        {"name": "telecom-extended", "version": "2", "sha256": digest}
    ]
    assert suite.generator["max_transfer_share"] == 0.35, "the extension's recommended cap, recorded"
    verified = runner.invoke(app, ["verify", str(outputs[0])])
    assert verified.exit_code == 0 and verified.output.strip().endswith(
        f"{len(suite.tasks)} valid, 0 invalid"
    )


def test_the_extended_catalog_works_on_tau2_bench_data(telecom: Domain, tau2_data: Path) -> None:
    options = ROTATED.model_copy(update={"max_subtasks": 1})
    generation = generate(telecom, options, tau2_data)
    assert generation.rejected == [] and len(generation.tasks) == 52
    refuel = next(
        task for task in generation.tasks if task.subtasks == ["data_usage_exceeded_partial_refuel"]
    )
    assert refuel.initialization[-1].arguments["data_used_gb"] == 16.1, "15 GB + 1.0 refuelled + 0.1"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (
            ["--catalog", "full"],
            "error: --catalog: domain 'telecom' has no catalog 'full' (catalogs: base, extended)",
        ),
        (["--domain", "mock", "--catalog", "extended"], "error: domain 'mock' has no subtask catalog"),
    ],
)
def test_an_unknown_catalog_is_a_one_line_error(arguments: list[str], message: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["generate", *arguments, "-o", str(tmp_path / "out.json")])
    assert result.exit_code == 2 and result.output.startswith(message) and result.output.count("\n") == 1
