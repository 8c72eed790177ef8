"""The telecom catalog: eligible targets by rule, parameters derived from the target, the shipped texts."""

from __future__ import annotations

from pathlib import Path

from tau2.domains.telecom import DOMAIN, Bill, BillStatus
from tau2.domains.telecom.catalog import OVERDUE_BILL_ID, eligible_targets, unused_bill_id
from tau2.generator.options import GeneratorOptions
from tau2.generator.pipeline import generate
from tau2.tasks import Catalog, UserInstructions
from tau2.world import World


def arguments(catalog: Catalog, subtask: str, call: int = 0) -> dict[str, object]:
    return dict(catalog.subtask(subtask).init[call].arguments)


def test_our_data_offers_the_targets_its_header_lists(own_catalogs: list[Catalog]) -> None:
    assert [catalog.target.key for catalog in own_catalogs] == [
        "C2001/L2001",
        "C2003/L2006",
        "C2004/L2007",
        "C2005/L2009",
        "C2006/L2012",
        "C2012/L2019",
        "C2002/L2004",
    ]


def test_the_reference_data_prefers_john_smiths_primary_line(tau2_catalog: Catalog, tau2_data: Path) -> None:
    assert [
        target.line.line_id for target in eligible_targets(World.create(DOMAIN, tau2_data).state.crm)
    ] == [
        "L1002",
        "L1001",
    ]
    assert tau2_catalog.target.key == "C1001/L1002"
    assert tau2_catalog.target.facts["name"] == "John Smith"
    assert arguments(tau2_catalog, "data_usage_exceeded")["data_used_gb"] == 15.1
    assert arguments(tau2_catalog, "data_usage_exceeded_no_refuel", 1)["data_used_gb"] == 17.1
    assert arguments(tau2_catalog, "overdue_bill_suspension")["new_bill_id"] == OVERDUE_BILL_ID


def test_parameters_follow_each_target(own_catalogs: list[Catalog]) -> None:
    usage = {
        catalog.target.key: arguments(catalog, "data_usage_exceeded")["data_used_gb"]
        for catalog in own_catalogs
    }
    assert usage == {
        "C2001/L2001": 12.1,
        "C2002/L2004": 1000.1,
        "C2003/L2006": 30.1,
        "C2004/L2007": 4.1,
        "C2005/L2009": 40.1,
        "C2006/L2012": 12.1,
        "C2012/L2019": 4.1,
    }
    marisol = own_catalogs[0]
    assert dict(marisol.preamble[0].arguments) == {"name": "Marisol Vega", "phone_number": "555-410-7721"}
    assert (
        dict(marisol.subtask("data_usage_exceeded").extra_assertions[0].arguments)["expected_amount"] == 2.0
    )


def test_a_taken_bill_id_is_replaced_by_the_next_unused_one() -> None:
    crm = World.create(DOMAIN).state.crm
    assert unused_bill_id(crm) == OVERDUE_BILL_ID
    template = crm.bills[0]
    for number in (1234321, 1234322):
        crm.bills.append(Bill.model_validate({**template.model_dump(), "bill_id": f"B{number}"}))
    assert unused_bill_id(crm) == "B1234323"


def test_a_customer_with_an_overdue_bill_is_not_eligible() -> None:
    crm = World.create(DOMAIN).state.crm
    before = [target.customer.customer_id for target in eligible_targets(crm)]
    bill = next(bill for bill in crm.bills if bill.customer_id == "C2001")
    bill.status = BillStatus.OVERDUE
    assert [target.customer.customer_id for target in eligible_targets(crm)] == before[1:]
    assert before[0] == "C2001"


def test_texts_state_what_the_customer_knows() -> None:
    options = GeneratorOptions(intents=("mobile_data_issue",), personas=("none",), max_subtasks=1)
    tasks = {task.id: task for task in generate(DOMAIN, options).tasks}
    abroad = tasks["[mobile_data_issue]user_abroad_roaming_disabled_on[PERSONA:None]"]
    home = tasks["[mobile_data_issue]data_mode_off[PERSONA:None]"]
    assert isinstance(abroad.user_scenario.instructions, UserInstructions)
    assert "abroad in France" in (abroad.user_scenario.instructions.known_info or "")
    assert "abroad in France" in (abroad.ticket or "")
    assert "at home in the United States" in (home.ticket or "")
    assert "No Service" not in (home.ticket or ""), "Δ13: the mobile-data ticket makes no status-bar claim"
    assert "2.0 GB" in (home.ticket or "") and "Marisol Vega" in (home.ticket or "")
    assert abroad.metadata == {"target": "C2001/L2001", "catalog_version": "telecom-1"}
