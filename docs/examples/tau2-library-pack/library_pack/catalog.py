"""The library's subtask catalog: the faults that keep a borrowed e-book from opening, which `tau2 generate
--domain library` composes into verified tasks."""

from __future__ import annotations

from tau2.tasks import (
    AssertionCall,
    Catalog,
    EnvCall,
    Fact,
    Group,
    Intent,
    Precedence,
    Step,
    Subtask,
    Target,
    Texts,
)
from tau2.world import Side, World

from .domain import LibraryState

OPENS = AssertionCall(side=Side.USER, name="assert_book_opens", arguments={"expected_status": True})
STAYS_SHUT = AssertionCall(side=Side.USER, name="assert_book_opens", arguments={"expected_status": False})

GROUPS = (
    Group(name="fines", workflow_step="1", description="Does the member owe fines?"),
    Group(name="loan", workflow_step="2", description="Is the loan active and the title still licensed?"),
    Group(name="sign_in", workflow_step="3", description="Is the e-reader signed in?"),
    Group(name="wifi", workflow_step="4", description="Is the e-reader online?"),
)

TEXTS = Texts(
    purpose="The borrowed e-book does not open.",
    reason_for_call="The e-book {title} I borrowed will not open on my e-reader. My library card is {card}.",
    known_info="You are {name}, holder of library card {card}.",
    task_instructions="Do what the agent asks on your e-reader and say what it shows.",
    ticket="{name} (library card {card}) cannot open the borrowed e-book {title}. Make it open.",
    transfer_summary="{name}'s e-book {title} cannot be opened from the desk.",
)


def catalog_for(state: LibraryState) -> Catalog:
    """The catalog of the world's one member: every fault, with the member's card in each desk fix."""
    card = state.member.card_number
    knows_card = Fact(key="card", phrase=card)
    return Catalog(
        version="library-1",
        target=Target(key=card, facts={"name": state.member.name, "card": card}),
        groups=GROUPS,
        subtasks=(
            Subtask(
                name="fines_due",
                group="fines",
                description="The member owes a fine, which blocks borrowing.",
                init=(EnvCall(side=Side.AGENT, name="add_fine", arguments={"amount": 2.5}),),
                checks=(STAYS_SHUT,),
                solution=(Step(side=Side.AGENT, name="waive_fines", arguments={"card_number": card}),),
                facts=(knows_card,),
            ),
            Subtask(
                name="loan_expired",
                group="loan",
                description="The e-book loan has run out.",
                init=(EnvCall(side=Side.AGENT, name="expire_loan"),),
                checks=(STAYS_SHUT,),
                solution=(Step(side=Side.AGENT, name="renew_loan", arguments={"card_number": card}),),
                facts=(knows_card,),
            ),
            Subtask(
                name="license_withdrawn",
                group="loan",
                description="The publisher withdrew the title; only a librarian can license it again.",
                init=(EnvCall(side=Side.AGENT, name="withdraw_license"),),
                checks=(STAYS_SHUT,),
                unfixable=True,
            ),
            Subtask(
                name="signed_out",
                group="sign_in",
                description="The e-reader is signed out of the library account.",
                init=(EnvCall(side=Side.USER, name="sign_out"),),
                checks=(STAYS_SHUT,),
                solution=(Step(side=Side.USER, name="sign_in"),),
            ),
            Subtask(
                name="wifi_off",
                group="wifi",
                description="The e-reader's Wi-Fi is off.",
                init=(EnvCall(side=Side.USER, name="turn_off_wifi"),),
                checks=(STAYS_SHUT,),
                solution=(Step(side=Side.USER, name="turn_on_wifi"),),
            ),
        ),
        intents=(
            Intent(
                name="book_wont_open",
                groups=("fines", "loan", "sign_in", "wifi"),
                success=(OPENS,),
                failure=(STAYS_SHUT,),
                texts=TEXTS,
            ),
        ),
        stages=("fines", "loan", "sign_in", "wifi"),
        fix_order=(
            Precedence(before="loan", after="sign_in", reason="settle the account before the e-reader"),
        ),
        facts={"title": state.member.loan.title},
        parameters={"card_number": card},
    )


class LibraryCatalog:
    """The catalog source the domain registers: one catalog, for the world's one member."""

    def catalogs(self, world: World) -> list[Catalog]:
        """The member's catalog."""
        state = world.state
        if not isinstance(state, LibraryState):
            raise TypeError(f"not a library world: {type(state).__name__}")
        return [catalog_for(state)]

    def situation(self, world: World) -> dict[str, str]:
        """Nothing is read from the world after initialisation: every fact is the member's."""
        return {}
