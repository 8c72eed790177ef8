"""`tau2 lint`: deterministic, offline checks of any domain's task files (ours or τ²-bench's), no model
involved. One finding per (task, check); the rules are the `Check`s of `LINT_CHECKS`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tau2.episode import EpisodeConfig, agent_policy
from tau2.findings._findings import Check, LintFinding, Severity
from tau2.findings._lint_basis import CRITERIA_OUTSIDE_BASIS, REWARD_BASIS_INCONSISTENT, basis_findings
from tau2.findings._lint_duplicates import DUPLICATE_TASK, duplicate_findings
from tau2.findings._lint_facts import SCENARIO_MISSING_FACT, TICKET_MISSING_FACT, fact_findings
from tau2.findings._lint_persona import PERSONA_CONTRADICTS_DATA, persona_findings
from tau2.findings._lint_reference import (
    DO_NOTHING_PASSES,
    DO_NOTHING_PASSES_UNLESS_JUDGED,
    REFERENCE_ACTION_FAILS,
    REFERENCE_AFTER_TRANSFER,
    REFERENCE_TOOL_NOT_OFFERED,
    SETUP_FAILS,
    VERIFICATION_FAILS,
    reference_findings,
)
from tau2.findings._lint_tools import (
    POLICY_NAMES_FOREIGN_TOOL,
    Reader,
    foreign_tools,
    seat_reader,
    tool_owners,
)
from tau2.tasks import Task, TaskSetupError, initialize_world
from tau2.world import Domain, Side, get_domain

E, W, N = Severity.ERROR, Severity.WARNING, Severity.NOTE
LINT_CHECKS: dict[str, Check] = {
    check.name: check
    for check in (
        Check(name=SETUP_FAILS, severity=E, rule="The task's data patches or init calls fail on fresh data."),
        Check(
            name=REFERENCE_ACTION_FAILS,
            severity=E,
            rule="A reference action fails (or its world refuses it) when the reference actions are replayed "
            "in order on the task's fresh world; τ²-bench skips it silently when building the reference "
            "database, and grading keeps that parity.",
        ),
        Check(
            name=REFERENCE_AFTER_TRANSFER,
            severity=E,
            rule="Reference actions follow the transfer to a human, which ends the conversation.",
        ),
        Check(
            name=REFERENCE_TOOL_NOT_OFFERED,
            severity=E,
            rule="A reference action is a customer tool the task does not give the customer.",
        ),
        Check(
            name=VERIFICATION_FAILS,
            severity=E,
            rule="The reference solution does not decide the task, as `tau2 verify` checks it.",
        ),
        Check(
            name=DO_NOTHING_PASSES,
            severity=W,
            rule="An agent that changes nothing and says nothing meets every gating check.",
        ),
        Check(
            name=DO_NOTHING_PASSES_UNLESS_JUDGED,
            severity=N,
            rule="An agent that does nothing meets every gating check but the natural-language assertions, "
            "which only a judge can fail.",
        ),
        Check(
            name=REWARD_BASIS_INCONSISTENT,
            severity=W,
            rule="A component of the reward basis has nothing to check: DB when the reference actions change "
            "nothing, ACTION without reference actions, COMMUNICATE without information (when the file "
            "wrote it), NL_ASSERTION without statements, ENV_ASSERTION without assertions.",
        ),
        Check(
            name=CRITERIA_OUTSIDE_BASIS,
            severity=N,
            rule="The task states information, statements or assertions that its reward basis never checks.",
        ),
        Check(
            name=TICKET_MISSING_FACT,
            severity=E,
            rule="The solo ticket does not state a fact the fix depends on (the facts the domain's catalog "
            "declares for the task's subtasks), so a solo agent cannot know it.",
        ),
        Check(
            name=SCENARIO_MISSING_FACT,
            severity=E,
            rule="The customer's instructions do not state a fact the fix depends on.",
        ),
        Check(
            name=PERSONA_CONTRADICTS_DATA,
            severity=W,
            rule="The persona or the instructions state an age, a name, a phone number or an email that the "
            "record of the customer the task's user plays contradicts.",
        ),
        Check(
            name=POLICY_NAMES_FOREIGN_TOOL,
            severity=W,
            rule="The agent's policy or the customer's instructions tell their seat to use a tool it does "
            "not hold: the other seat's, or one no seat holds.",
        ),
        Check(
            name=DUPLICATE_TASK,
            severity=W,
            rule="Two tasks have the same content under different ids, or one id has different content in "
            "the files linted together.",
        ),
    )
}


def lint_task(task: Task, data_dir: Path | None = None) -> list[LintFinding]:
    """Every per-task check on one task (duplicates and policies are checked across files)."""
    found = _task_checks(task, data_dir, errors_only=False)
    return [_finding(task.id, check, found[check]) for check in LINT_CHECKS if check in found]


def task_errors(task: Task, data_dir: Path | None = None) -> list[str]:
    """The error checks of `lint_task` that fire on one task, in `LINT_CHECKS` order, the others not run:
    what a failed simulation's task defects are."""
    found = _task_checks(task, data_dir, errors_only=True)
    return [check for check in LINT_CHECKS if check in found]


def _task_checks(task: Task, data_dir: Path | None, errors_only: bool) -> dict[str, str]:
    """Check name → detail for the per-task checks that fire (with `errors_only`, only the checks of
    severity error are run)."""
    try:
        if errors_only:  # the reference's replay sets the task up first: a set-up that fails raises there
            found = {**reference_findings(task, data_dir, idle=False), **fact_findings(task, data_dir)}
            return {check: detail for check, detail in found.items() if LINT_CHECKS[check].severity is E}
        world = initialize_world(task, data_dir)
    except TaskSetupError as error:
        return {SETUP_FAILS: error.reason}
    found = {
        **reference_findings(task, data_dir),
        **basis_findings(task, data_dir),
        **fact_findings(task, data_dir),
        **persona_findings(task, world),
    }
    offered = None if task.user_tools is None else set(task.user_tools)
    reader = seat_reader(Side.USER, world.domain, offered)
    told = list(foreign_tools(task.user_scenario.text(), reader, tool_owners(world.domain)))
    if told:
        found[POLICY_NAMES_FOREIGN_TOOL] = "customer's instructions: " + "; ".join(told)
    return found


def lint_files(
    files: Sequence[tuple[str, Sequence[Task]]],
    data_dir: Path | None = None,
    policy_variant: str = EpisodeConfig().policy_variant,
) -> list[LintFinding]:
    """Lint tasks read from several files (name, tasks): each task, the agent policies of their domains,
    and duplicates across all of them; findings in file and task order, policies first."""
    domains = sorted({task.domain for _, tasks in files for task in tasks})
    findings = policy_findings(domains, data_dir, policy_variant)
    duplicates: dict[tuple[str, str], list[str]] = {}
    for file, task_id, detail in duplicate_findings(files):
        duplicates.setdefault((file, task_id), []).append(detail)
    for file, tasks in files:
        for task in tasks:
            findings += [finding.model_copy(update={"file": file}) for finding in lint_task(task, data_dir)]
            details = duplicates.get((file, task.id))
            if details:
                findings.append(_finding(task.id, DUPLICATE_TASK, "; ".join(details), file))
    return findings


def policy_findings(domains: Sequence[str], data_dir: Path | None, variant: str) -> list[LintFinding]:
    """The agent policy each mode gives, checked against the tools the agent holds in that mode."""
    findings = []
    for name in domains:
        domain = _agent_domain(get_domain(name), data_dir)
        owners = tool_owners(domain)
        seen: set[str] = set()
        for solo in (False, True):
            policy = _policy(domain, solo, variant, data_dir)
            if policy is None or policy in seen:
                continue
            seen.add(policy)
            reader = seat_reader(Side.AGENT, domain)
            if solo:
                reader = Reader(Side.AGENT, reader.holds | seat_reader(Side.USER, domain).holds)
            told = list(foreign_tools(policy, reader, owners))
            if told:
                mode = "solo" if solo else "interactive"
                detail = f"{name} agent policy ({mode}, variant {variant}): " + "; ".join(told)
                findings.append(_finding(None, POLICY_NAMES_FOREIGN_TOOL, detail))
    return findings


def _agent_domain(domain: Domain[Any], data_dir: Path | None) -> Domain[Any]:
    """The domain as its agent sees it: a knowledge domain under its default retrieval configuration, whose
    search tools its policy names."""
    support = domain.retrieval
    return domain if support is None else support.configure(support.default, data_dir)


def _policy(domain: Domain[Any], solo: bool, variant: str, data_dir: Path | None) -> str | None:
    """The policy an agent of `domain` reads (a knowledge domain's under its default configuration)."""
    support = domain.retrieval
    if support is not None:
        return support.policy(support.default, data_dir, None)
    return agent_policy(domain, solo, variant, data_dir)


def _finding(task_id: str | None, check: str, detail: str, file: str | None = None) -> LintFinding:
    severity = LINT_CHECKS[check].severity
    return LintFinding(task_id=task_id, check=check, severity=severity, detail=detail, file=file)
