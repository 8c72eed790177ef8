"""Each `tau2 lint` check on constructed tasks: it fires on the defect it is about and stays quiet on a
sound task."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from tau2.audit import Severity, lint_checks, lint_files, lint_task
from tau2.domains.mock.tasks import BOTH, CUT_POWER, ENABLE_POWER, LIT, PLUG_IN, TRANSFER, UNPLUG, mock_task
from tau2.findings import BUILT_IN_LINT_CHECKS, task_errors
from tau2.findings._lint_duplicates import duplicate_findings
from tau2.findings._lint_persona import contradictions
from tau2.findings._lint_tools import Reader, foreign_tools
from tau2.tasks import AssertionCall, EnvCall, RewardType, SolutionStep, Task, load_suite
from tau2.world import CustomerRecord, Side

TELECOM_SUITE = Path(__file__).resolve().parents[2] / "domains" / "telecom" / "suites" / "base.json"
REFUEL_TASK = "[mobile_data_issue]bad_vpn|data_usage_exceeded[PERSONA:Hard]"
LOOK = SolutionStep(side=Side.USER, name="look_at_lamp", action_id="look_0")


def checks(task: Task) -> dict[str, str]:
    """Check name → detail of every finding on `task`."""
    return {finding.check: finding.detail for finding in lint_task(task)}


def with_evaluation(task: Task, **changes: object) -> Task:
    return task.model_copy(update={"evaluation": task.evaluation.model_copy(update=changes)})


def telecom_task(task_id: str = REFUEL_TASK) -> Task:
    return next(task for task in load_suite(TELECOM_SUITE).tasks if task.id == task_id)


def test_a_sound_task_has_no_finding() -> None:
    assert checks(BOTH) == {}


def test_every_check_has_a_rule_and_a_severity() -> None:
    assert all(check.rule and check.severity in Severity for check in lint_checks().values())


def test_a_failing_init_call_is_reported_alone() -> None:
    broken = BOTH.model_copy(update={"initialization": [EnvCall(side=Side.USER, name="no_such_function")]})
    assert list(checks(broken)) == ["setup_fails"]


def test_a_reference_action_that_fails_when_replayed_is_reported() -> None:
    wrong_customer = ENABLE_POWER.model_copy(update={"arguments": {"customer": "Bob"}})
    found = checks(with_evaluation(BOTH, solution=[wrong_customer, PLUG_IN]))
    assert "reference action 1 of 2 (enable_power) is refused: not_found" in found["reference_action_fails"]
    assert "verification_fails" in found


def test_reference_actions_after_the_transfer_are_reported() -> None:
    task = mock_task("late", [CUT_POWER], [TRANSFER, ENABLE_POWER], transfer=True)
    assert "reference actions 2-2 follow the transfer" in checks(task)["reference_after_transfer"]
    assert "reference_after_transfer" not in checks(
        mock_task("human", [CUT_POWER], [TRANSFER], transfer=True)
    )


def test_a_customer_action_the_task_does_not_offer_is_reported() -> None:
    task = mock_task("hidden", [UNPLUG], [PLUG_IN], user_tools=["flip_switch"])
    assert "(plug_in) is a customer tool the task does not give" in checks(task)["reference_tool_not_offered"]


def test_a_task_that_doing_nothing_passes_is_reported() -> None:
    already_lit = mock_task("lit", [], [LOOK])
    found = checks(already_lit)
    assert "do_nothing_passes" in found and "assertions already pass" in found["verification_fails"]
    basis = with_evaluation(BOTH, reward_basis=[RewardType.DB], assertions=[])
    assert "do_nothing_passes" not in checks(basis), "the reference changes the database"


def test_doing_nothing_that_only_a_judge_can_fail_is_a_note() -> None:
    task = with_evaluation(
        mock_task("judged", [], [LOOK]),
        assertions=[],
        reward_basis=[RewardType.DB, RewardType.NL_ASSERTION],
        nl_assertions=["The agent greets the customer."],
    )
    found = lint_task(task)
    assert [(f.check, f.severity) for f in found if f.check.startswith("do_nothing")] == [
        ("do_nothing_passes_unless_judged", Severity.NOTE)
    ]


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"reward_basis": [RewardType.DB, RewardType.ACTION], "solution": []}, "ACTION is in the basis but"),
        ({"reward_basis": [RewardType.DB, RewardType.COMMUNICATE]}, "COMMUNICATE is in the basis but"),
        ({"reward_basis": [RewardType.DB, RewardType.NL_ASSERTION]}, "NL_ASSERTION is in the basis but"),
        (
            {"reward_basis": [RewardType.DB, RewardType.ENV_ASSERTION], "assertions": []},
            "ENV_ASSERTION is in",
        ),
        ({"reward_basis": [RewardType.DB], "solution": [LOOK]}, "the reference actions leave the database"),
    ],
)
def test_a_basis_component_with_nothing_to_check_is_inconsistent(
    changes: dict[str, object], expected: str
) -> None:
    assert expected in checks(with_evaluation(BOTH, **changes))["reward_basis_inconsistent"]


def test_a_consistent_basis_and_an_implied_empty_communicate_are_not_reported() -> None:
    assert "reward_basis_inconsistent" not in checks(with_evaluation(BOTH, reward_basis=[RewardType.DB]))
    implied = with_evaluation(BOTH, reward_basis=[RewardType.DB, RewardType.COMMUNICATE]).model_copy(
        update={"metadata": {"tau2bench": {"reward_basis_implied": True}}}
    )
    assert "reward_basis_inconsistent" not in checks(implied)


def test_criteria_the_basis_never_checks_are_a_note() -> None:
    task = with_evaluation(BOTH, reward_basis=[RewardType.DB], communicate_info=["42"])
    assert "gives COMMUNICATE criteria" in checks(task)["criteria_outside_basis"]


def test_a_ticket_or_scenario_without_the_refuel_amount_misses_a_fact() -> None:
    task = telecom_task()
    assert checks(task) == {}
    assert task.ticket is not None
    vague = task.model_copy(update={"ticket": task.ticket.replace("2.0 GB", "some data")})
    assert (
        "does not state refuel_amount ('2.0 GB'), which data_usage_exceeded needs"
        in (checks(vague)["ticket_missing_fact"])
    )
    instructions = task.user_scenario.instruction_text().replace("2.0 GB", "some data")
    scenario = task.user_scenario.model_copy(update={"instructions": instructions})
    assert "scenario_missing_fact" in checks(task.model_copy(update={"user_scenario": scenario}))


def test_task_errors_are_the_error_findings_of_lint_task() -> None:
    """`task_errors` runs only the error checks (what a failed simulation's task defects are) and finds
    exactly the errors `lint_task` finds: on a task of each error check, on sound ones, on a shipped suite."""
    refuel = telecom_task()
    vague = refuel.model_copy(update={"ticket": (refuel.ticket or "").replace("2.0 GB", "some data")})
    instructions = refuel.user_scenario.instruction_text().replace("2.0 GB", "some data")
    unstated = refuel.user_scenario.model_copy(update={"instructions": instructions})
    wrong_customer = ENABLE_POWER.model_copy(update={"arguments": {"customer": "Bob"}})
    tasks = [
        BOTH,
        BOTH.model_copy(update={"initialization": [EnvCall(side=Side.USER, name="no_such_function")]}),
        with_evaluation(BOTH, solution=[wrong_customer, PLUG_IN]),
        mock_task("late", [CUT_POWER], [TRANSFER, ENABLE_POWER], transfer=True),
        mock_task("hidden", [UNPLUG], [PLUG_IN], user_tools=["flip_switch"]),
        mock_task("idle", [], [LOOK]),
        vague,
        refuel.model_copy(update={"user_scenario": unstated}),
        *load_suite(TELECOM_SUITE).tasks[:40],
    ]
    found = set()
    for task in tasks:
        errors = [finding.check for finding in lint_task(task) if finding.severity is Severity.ERROR]
        assert task_errors(task) == errors, task.id
        found.update(errors)
    shipped = {check.name for check in BUILT_IN_LINT_CHECKS if check.severity is Severity.ERROR}
    assert found == shipped | {"setup_fails"}  # installed plugins check other domains


def test_the_payment_permission_is_recognised_in_tau2_bench_wording() -> None:
    task = next(t for t in load_suite(TELECOM_SUITE).tasks if "overdue_bill_suspension" in t.subtasks)
    assert task.ticket is not None and "pay any overdue bill" in task.ticket
    reworded = task.model_copy(
        update={"ticket": task.ticket.replace("pay any overdue bill", "pay all their overdue bills")}
    )
    assert "ticket_missing_fact" not in checks(reworded)
    dropped = task.model_copy(update={"ticket": task.ticket.replace("pay any overdue bill", "pay")})
    assert "payment_permission" in checks(dropped)["ticket_missing_fact"]


RECORD = CustomerRecord(
    names=("John Smith",),
    date_of_birth=date(1985, 6, 15),
    today=date(2025, 2, 25),
    phone_numbers=("555-123-2002", "555-123-2003"),
    emails=("john.smith@example.com",),
)


@pytest.mark.parametrize(
    "text",
    [
        "As a 41-year-old office administrator, you use your phone daily.",
        "At 64 years old, you're a retired librarian.",
        "John Smith, a 52-year-old teacher, calls.",
        "You are 30 years old.",
        "You are in your sixties.",
        "Your date of birth: 06/15/1986",
        "**Verification info:**\n- DOB: 09/22/1991 | Address: 1 Main Street",
        "You are John Smyth with phone number 555-123-2002.",
        "Your name is Jane.",
        "You are John Smith with phone number 555-999-0000.",
        "Your email is john.smith@example.org.",
    ],
)
def test_statements_the_record_contradicts(text: str) -> None:
    assert list(contradictions(text, RECORD)), text


@pytest.mark.parametrize(
    "text",
    [
        "As a 39-year-old office administrator, you use your phone daily.",
        "You are in your late thirties.",
        "Your 16-year-old daughter Sofia has a card; the company is 2 years old.",
        "You are John Smith with phone number 555-123-2003.",
        "You are French and you are Polite.",
        "Your name is John. Your date of birth is 1985-06-15. Email john.smith@example.com.",
        "You travel with Kevin Smith, DOB 2001-04-12.",
        "You ran the speed test 100 times. Call the shop at 555-000-1111 for spare parts.",
    ],
)
def test_statements_the_record_allows(text: str) -> None:
    assert list(contradictions(text, RECORD)) == [], text


def test_a_persona_age_that_contradicts_the_customer_record_is_reported() -> None:
    task = telecom_task()
    scenario = task.user_scenario.model_copy(update={"persona_text": "As a 120-year-old retiree, you…"})
    found = checks(task.model_copy(update={"user_scenario": scenario}))
    assert found["persona_contradicts_data"].startswith('persona: "As a 120-year-old" but the record')


OWNERS = {"check_status_bar": Side.USER, "toggle_data": Side.USER, "refuel_data": Side.AGENT}
USER = Reader(Side.USER, frozenset({"check_status_bar", "toggle_data"}))
AGENT = Reader(Side.AGENT, frozenset({"refuel_data"}))


@pytest.mark.parametrize(
    ("text", "reader", "expected"),
    [
        ("Ground your answers on the results of the `get_status_bar` tool call.", USER, "get_status_bar"),
        ("Use refuel_data when the allowance is spent.", USER, "refuel_data"),
        ("Then call `phone.toggle_data` yourself.", AGENT, "toggle_data"),
    ],
)
def test_a_text_telling_its_seat_to_use_a_tool_it_lacks(text: str, reader: Reader, expected: str) -> None:
    (told,) = foreign_tools(text, reader, OWNERS)
    assert expected in told


@pytest.mark.parametrize(
    ("text", "reader"),
    [
        ("Ask the customer to use `phone.toggle_data` and to tell you the result.", AGENT),
        ("| `phone.check_status_bar` | The quick view of the phone. |", AGENT),
        ("Use check_status_bar when asked; ask the agent to call refuel_data.", USER),
        ("The get_status_bar idea is not a tool call the text tells anyone to make.", USER),
    ],
)
def test_a_text_naming_tools_without_telling_its_seat_to_use_them(text: str, reader: Reader) -> None:
    assert list(foreign_tools(text, reader, OWNERS)) == []


def test_customer_instructions_naming_an_agent_tool_are_reported() -> None:
    task = BOTH.model_copy(
        update={
            "user_scenario": BOTH.user_scenario.model_copy(
                update={"instructions": "Your lamp is dark. Use `enable_power` yourself if you can."}
            )
        }
    )
    assert (
        "the user is told to use enable_power, a tool of the agent seat"
        in (checks(task)["policy_names_foreign_tool"])
    )


def test_duplicates_by_content_and_by_id_across_files() -> None:
    renamed = BOTH.model_copy(update={"id": "both-again"})
    changed = with_evaluation(BOTH, assertions=[LIT, AssertionCall(side=Side.USER, name="assert_lamp_lit")])
    found = duplicate_findings([("a.json", [BOTH, renamed]), ("b.json", [changed, BOTH])])
    assert found == [
        ("a.json", "both-again", "same content as task both (a.json)"),
        ("b.json", "both", "the same id holds other content in a.json"),
    ]
    assert duplicate_findings([("a.json", [BOTH]), ("b.json", [BOTH])]) == []


def test_lint_files_reports_duplicates_with_their_file() -> None:
    renamed = BOTH.model_copy(update={"id": "both-again"})
    findings = lint_files([("suite.json", [BOTH, renamed])])
    assert [(f.task_id, f.check, f.file) for f in findings] == [
        ("both-again", "duplicate_task", "suite.json")
    ]
