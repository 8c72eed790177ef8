"""The judges in reports: what judging cost, on a line of its own apart from the seats, and for a panel of
several judges their agreement (κ), each judge's cost and the assertions they disagree on (rendered by the
terminal and the HTML page)."""

from __future__ import annotations

from tau2.metrics import JudgeAgreement, SeatUsage
from tau2.metrics.usage import JUDGE
from tau2.report import fmt
from tau2.report.tables import TableData


def cost_line(ledger: list[SeatUsage], agreement: JudgeAgreement | None) -> str | None:
    """What the judges cost, apart from the seats' cost; None when no judge was asked."""
    judge = next((u for u in ledger if u.seat == JUDGE and u.calls), None)
    if judge is None:
        return None
    whose = "judge's" if agreement is None else f"{len(agreement.judges)} judges'"
    tokens = fmt.count(judge.prompt_tokens + judge.completion_tokens)
    spent = fmt.cost(judge.cost)
    return f"{whose} cost: {spent} ({fmt.count(judge.calls)} calls, {tokens} tokens)"


def agreement_line(agreement: JudgeAgreement | None) -> str | None:
    """The panel's agreement in one line; None without a panel."""
    if agreement is None:
        return None
    kappa = fmt.NA if agreement.kappa is None else f"{agreement.kappa:.3f}"
    disagree = len(agreement.disagreements)
    return (
        f"judge agreement ({' · '.join(agreement.judges)}): {agreement.statistic} {kappa}, "
        f"{fmt.count(disagree)} of {fmt.count(agreement.assertions)} assertions disagreeing"
    )


def costs(agreement: JudgeAgreement | None) -> TableData:
    """Each judge of a panel: its role, calls, tokens and cost."""
    rows = [
        [
            cost.judge,
            "decides the reward" if place == 0 else "measured",
            fmt.count(cost.simulations),
            fmt.count(cost.calls),
            fmt.count(cost.prompt_tokens),
            fmt.count(cost.completion_tokens),
            fmt.cost(cost.cost),
        ]
        for place, cost in enumerate([] if agreement is None else agreement.costs)
    ]
    columns = ["judge", "role", "sims", "calls", "prompt tokens", "completion tokens", "cost"]
    return TableData("Judges", columns, rows, text_columns=2)


def disagreements(agreement: JudgeAgreement | None) -> TableData:
    """Every assertion the judges disagree on, with each judge's verdict."""
    judges = [] if agreement is None else agreement.judges
    rows = [
        [
            fmt.short_id(item.task_id),
            str(item.trial),
            fmt.shortened(item.assertion),
            *("pass" if verdict else "FAIL" for verdict in item.verdicts),
        ]
        for item in ([] if agreement is None else agreement.disagreements)
    ]
    columns = ["task", "trial", "assertion", *judges]
    return TableData("Assertions the judges disagree on", columns, rows, text_columns=len(columns))
