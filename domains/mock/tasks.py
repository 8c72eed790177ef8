"""Example tasks of the mock domain: a lamp left dark by a pulled plug, a cut account, or both.

They are small, verified, and exercise both seats, so tests, benchmarks and docs share them.
"""

from __future__ import annotations

from tau2.tasks import AssertionCall, EnvCall, Evaluation, SolutionStep, Task, UserInstructions, UserScenario
from tau2.world import Side

LIT = AssertionCall(side=Side.USER, name="assert_lamp_lit", arguments={"expected_status": True})
DARK = AssertionCall(side=Side.USER, name="assert_lamp_lit", arguments={"expected_status": False})
UNPLUG = EnvCall(side=Side.USER, name="unplug")
CUT_POWER = EnvCall(side=Side.AGENT, name="cut_power")
PLUG_IN = SolutionStep(side=Side.USER, name="plug_in", action_id="plug_in_1")
ENABLE_POWER = SolutionStep(
    side=Side.AGENT, name="enable_power", arguments={"customer": "Ada"}, action_id="enable_power_0"
)
TRANSFER = SolutionStep(
    side=Side.AGENT,
    name="transfer_to_human_agents",
    arguments={"summary": "I cannot fix the issue."},
    action_id="transfer_to_human_agents",
    compare_args=[],
)


def mock_task(
    task_id: str,
    initialization: list[EnvCall],
    solution: list[SolutionStep],
    *,
    transfer: bool = False,
    user_tools: list[str] | None = None,
) -> Task:
    """A mock-domain task whose customer Ada calls about a dark lamp."""
    instructions = UserInstructions(
        reason_for_call="My lamp is dark.",
        known_info="You are Ada.",
        task_instructions="Do what the agent asks.",
    )
    return Task(
        id=task_id,
        domain="mock",
        user_scenario=UserScenario(instructions=instructions, persona_text="You are calm."),
        ticket="Ada's lamp is dark. Make it light.",
        initialization=initialization,
        evaluation=Evaluation(
            assertions=[DARK] if transfer else [LIT], solution=solution, expects_transfer=transfer
        ),
        user_tools=user_tools,
    )


UNPLUGGED = mock_task("unplugged", [UNPLUG], [PLUG_IN.model_copy(update={"action_id": "plug_in_0"})])
POWER_CUT = mock_task("power_cut", [CUT_POWER], [ENABLE_POWER])
BOTH = mock_task("both", [UNPLUG, CUT_POWER], [ENABLE_POWER, PLUG_IN])
WHITELISTED = mock_task(
    "whitelisted", [UNPLUG], [PLUG_IN.model_copy(update={"action_id": "plug_in_0"})], user_tools=["plug_in"]
)
NEEDS_HUMAN = mock_task("needs_human", [CUT_POWER], [TRANSFER], transfer=True)
MOCK_TASKS = [UNPLUGGED, POWER_CUT, BOTH, WHITELISTED, NEEDS_HUMAN]
