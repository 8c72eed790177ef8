"""Texts of the telecom intents: what the simulated customer knows and wants, and the solo-mode ticket.

Templates fill `{name}`, `{phone_number}` (the target), `{location}` (read after initialisation) and
`{refuel_gb}` (the catalog's refuel amount). Every fact a fix depends on appears in the user scenario and
in the ticket with the exact phrase its subtask declares, which the generator's lint checks.
"""

from __future__ import annotations

from tau2.tasks import Texts
from tau2.world import RequestPhrasing

PHRASING = RequestPhrasing(
    request_prefix="Please do this on your phone:",
    idle_line="I'm not sure what to do. What should I do on my phone?",
)
"""How the offline oracle agent and scripted user word their requests in the telecom domains."""

ABROAD = "abroad in France"
AT_HOME = "at home in the United States"
PAY_ANY_OVERDUE_BILL = "pay any overdue bill"
"""Phrase granting payment permission; the suspension fix depends on it."""
TAU2_PAYMENT_WORDINGS = ("pay all their overdue bills", "asks you to pay a bill, you accept")
"""How τ²-bench's ticket and customer instructions grant the same permission."""


def refuel_phrase(gb: float) -> str:
    """Phrase stating the refuel amount the customer accepts; the data-allowance fix depends on it."""
    return f"{gb} GB"


_FRUSTRATION = (
    "Go along with the agent's suggestions. If a suggested step does not fix the problem, say so and let a "
    "little frustration show from then on."
)
_GROUNDING = (
    "Some results do not show the new state at once; run the tool again when that happens. Answer every "
    "question about your phone from a tool result: what the status bar shows comes from check_status_bar, "
    "whether a picture message can be sent comes from can_send_mms. Never invent a result. When you are not "
    "sure whether a step is needed, ask the agent."
)
_DATA_LIMITS = (
    "You are prepared to buy a data refuel of {refuel_gb} GB if it is needed, but you do not want to "
    "change your plan."
)
_DATA_TICKET_LIMITS = (
    "The customer does not want a plan change but accepts a data refuel of {refuel_gb} GB if needed."
)
_KNOWN_WITH_LOCATION = (
    "You are {name}, your phone number is {phone_number}, and you are {location} right now."
)

SERVICE = Texts(
    purpose="Exercises the no-service path: the phone has no signal, so no calls go in or out.",
    reason_for_call=(
        'Your phone has shown "No Service" for a few hours. You cannot call anyone and nobody can reach '
        "you. You want the signal back."
    ),
    known_info="You are {name} and your phone number is {phone_number}.",
    task_instructions=(
        f"{_FRUSTRATION} The problem is solved only when the status bar shows signal again; check the status "
        "bar whenever the agent asks how the phone is doing. If the agent asks you to pay a bill, agree: you "
        f"are willing to {PAY_ANY_OVERDUE_BILL} on your account. {_GROUNDING}"
    ),
    ticket=(
        "Service problem: for a few hours the customer's phone has had no service. They can neither make "
        'nor receive calls, and the status bar reads "No Service". Customer: {name}, phone number '
        f"{{phone_number}}. The customer authorises you to {PAY_ANY_OVERDUE_BILL} on the account. The issue "
        "is resolved when the status bar shows signal."
    ),
    transfer_summary=(
        "{name} ({phone_number}) has no service and the cause cannot be fixed with the available tools "
        "and policy; handing over."
    ),
)

MOBILE_DATA = Texts(
    purpose="Exercises the mobile-data path: data does not work at all, or is far too slow.",
    reason_for_call=(
        "Mobile data on your phone either fails or crawls. You want it fixed, and only an excellent speed "
        "test result will do: poor, fair or good is not enough. There is no Wi-Fi you could use instead."
    ),
    known_info=_KNOWN_WITH_LOCATION,
    task_instructions=(
        f"{_FRUSTRATION} The problem is solved only when the speed test reports excellent speed; a poor, "
        f"fair or good result does not count. {_DATA_LIMITS} {_GROUNDING}"
    ),
    ticket=(
        "Mobile data problem: the customer cannot browse on mobile data, or only very slowly. Customer: "
        "{name}, phone number {phone_number}, currently {location}. The issue is resolved when the speed "
        f"test reports excellent speed. {_DATA_TICKET_LIMITS}"
    ),
    transfer_summary=(
        "{name} ({phone_number}) has no working mobile data and the cause cannot be fixed with the "
        "available tools and policy; handing over."
    ),
)

MMS = Texts(
    purpose="Exercises the MMS path: picture and group messages cannot be sent.",
    reason_for_call=(
        "For a few hours your messaging app has failed to send MMS messages, such as pictures. You want "
        "it fixed and to get one picture message through."
    ),
    known_info=_KNOWN_WITH_LOCATION,
    task_instructions=f"{_FRUSTRATION} {_DATA_LIMITS} {_GROUNDING}",
    ticket=(
        "MMS problem: for a few hours the customer has been unable to send MMS messages from the messaging "
        "app. Customer: {name}, phone number {phone_number}, currently {location}. The issue is resolved "
        f"when an MMS message can be sent. {_DATA_TICKET_LIMITS}"
    ),
    transfer_summary=(
        "{name} ({phone_number}) cannot send MMS and the cause cannot be fixed with the available tools "
        "and policy; handing over."
    ),
)
