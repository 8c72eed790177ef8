"""`tau2 lint`: deterministic, offline checks of any domain's task files (ours or τ²-bench's), no model
involved. One finding per (task, check); the rules are `lint_checks()`: the built-in checks and every lint
check registered, declared or installed."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from tau2.episode import EpisodeConfig, agent_policy
from tau2.findings._findings import Check, LintFinding, Severity, plugin_detail
from tau2.findings._lint_basis import CRITERIA_OUTSIDE_BASIS, REWARD_BASIS_INCONSISTENT, basis_findings
from tau2.findings._lint_check import LINT_CHECK_REGISTRY, LintCheck, LintedTask, register_lint_check
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
from tau2.tasks import Domain, Task, TaskSetupError, get_domain, initialize_world
from tau2.world import Side

E, W, N = Severity.ERROR, Severity.WARNING, Severity.NOTE
_SETUP = Check(name=SETUP_FAILS, severity=E, rule="The task's data patches or init calls fail on fresh data.")
"""Lint's own first check: every other per-task check needs the world the task sets up."""
_DUPLICATES = Check(
    name=DUPLICATE_TASK,
    severity=W,
    rule="Two tasks have the same content under different ids, or one id has different content in the files "
    "linted together.",
)
"""Lint's own check across the files linted together (no check of one task can see it)."""


def _reference(linted: LintedTask) -> Mapping[str, str]:
    # the replay of an agent doing nothing only feeds checks below error: skipped for task defects
    return reference_findings(linted.task, linted.data_dir, idle=not linted.errors_only)


def _basis(linted: LintedTask) -> Mapping[str, str]:
    return basis_findings(linted.task, linted.data_dir)


def _facts(linted: LintedTask) -> Mapping[str, str]:
    return fact_findings(linted.task, linted.data_dir)


def _persona(linted: LintedTask) -> Mapping[str, str]:
    return persona_findings(linted.task, linted.world)


def _foreign_tools(linted: LintedTask) -> str | None:
    """The customer's instructions telling it to use tools it does not hold."""
    task, domain = linted.task, linted.world.domain
    offered = None if task.user_tools is None else set(task.user_tools)
    told = list(
        foreign_tools(task.user_scenario.text(), seat_reader(Side.USER, domain, offered), tool_owners(domain))
    )
    return "customer's instructions: " + "; ".join(told) if told else None


def _built_in(
    name: str, severity: Severity, rule: str, batch: Callable[[LintedTask], Mapping[str, str]]
) -> LintCheck:
    """A built-in check whose finding is one line of a pass several checks share."""
    return LintCheck(
        name=name, severity=severity, rule=rule, find=lambda linted: linted.batch(batch).get(name)
    )


BUILT_IN_LINT_CHECKS: tuple[LintCheck, ...] = (
    _built_in(
        REFERENCE_ACTION_FAILS,
        E,
        "A reference action fails (or its world refuses it) when the reference actions are replayed in order "
        "on the task's fresh world; τ²-bench skips it silently when building the reference database, and "
        "grading keeps that parity.",
        _reference,
    ),
    _built_in(
        REFERENCE_AFTER_TRANSFER,
        E,
        "Reference actions follow the transfer to a human, which ends the conversation.",
        _reference,
    ),
    _built_in(
        REFERENCE_TOOL_NOT_OFFERED,
        E,
        "A reference action is a customer tool the task does not give the customer.",
        _reference,
    ),
    _built_in(
        VERIFICATION_FAILS,
        E,
        "The reference solution does not decide the task, as `tau2 verify` checks it.",
        _reference,
    ),
    _built_in(
        DO_NOTHING_PASSES,
        W,
        "An agent that changes nothing and says nothing meets every gating check.",
        _reference,
    ),
    _built_in(
        DO_NOTHING_PASSES_UNLESS_JUDGED,
        N,
        "An agent that does nothing meets every gating check but the natural-language assertions, which only "
        "a judge can fail.",
        _reference,
    ),
    _built_in(
        REWARD_BASIS_INCONSISTENT,
        W,
        "A component of the reward basis has nothing to check: DB when the reference actions change nothing, "
        "ACTION without reference actions, COMMUNICATE without information (when the file wrote it), "
        "NL_ASSERTION without statements, ENV_ASSERTION without assertions.",
        _basis,
    ),
    _built_in(
        CRITERIA_OUTSIDE_BASIS,
        N,
        "The task states information, statements or assertions that its reward basis never checks.",
        _basis,
    ),
    _built_in(
        TICKET_MISSING_FACT,
        E,
        "The solo ticket does not state a fact the fix depends on (the facts the domain's catalog declares "
        "for the task's subtasks), so a solo agent cannot know it.",
        _facts,
    ),
    _built_in(
        SCENARIO_MISSING_FACT,
        E,
        "The customer's instructions do not state a fact the fix depends on.",
        _facts,
    ),
    _built_in(
        PERSONA_CONTRADICTS_DATA,
        W,
        "The persona or the instructions state an age, a name, a phone number or an email that the record of "
        "the customer the task's user plays contradicts.",
        _persona,
    ),
    LintCheck(
        name=POLICY_NAMES_FOREIGN_TOOL,
        severity=W,
        rule="The agent's policy or the customer's instructions tell their seat to use a tool it does not "
        "hold: the other seat's, or one no seat holds.",
        find=_foreign_tools,
    ),
)
"""The per-task checks tau2 ships, in the order their findings are listed."""
for _check in BUILT_IN_LINT_CHECKS:
    register_lint_check(_check)


def active_lint_checks() -> list[LintCheck]:
    """Every per-task check that runs: the built-ins in their order, then the others registered, declared or
    installed, by name. One that fails to load is one `UserInputError` line."""
    rank = {check.name: number for number, check in enumerate(BUILT_IN_LINT_CHECKS)}
    return sorted(LINT_CHECK_REGISTRY.all(), key=lambda check: (rank.get(check.name, len(rank)), check.name))


def lint_checks() -> dict[str, Check]:
    """The rule of every check `tau2 lint` makes, by name, in the order findings are listed: set-up, the
    per-task checks (`active_lint_checks`), duplicates across files."""
    checks: list[Check] = [_SETUP, *active_lint_checks(), _DUPLICATES]
    return {check.name: Check(name=check.name, severity=check.severity, rule=check.rule) for check in checks}


def lint_task(task: Task, data_dir: Path | None = None) -> list[LintFinding]:
    """Every per-task check on one task (duplicates and policies are checked across files)."""
    return _checked(task, data_dir, active_lint_checks(), errors_only=False)


def task_errors(task: Task, data_dir: Path | None = None) -> list[str]:
    """The names of the checks of severity error that fire on one task, in `lint_checks()` order, the
    others not run: what a failed simulation's task defects are."""
    errors = [check for check in active_lint_checks() if check.severity is E]
    return [finding.check for finding in _checked(task, data_dir, errors, errors_only=True)]


def _checked(
    task: Task, data_dir: Path | None, checks: Sequence[LintCheck], errors_only: bool
) -> list[LintFinding]:
    """The findings of `checks` on one task, after the set-up every check needs."""
    try:
        world = initialize_world(task, data_dir)
    except TaskSetupError as error:
        return [_finding(task.id, _SETUP, error.reason)]
    linted = LintedTask(task, world, data_dir, errors_only)
    found = []
    for check in checks:
        built_in = any(check is shipped for shipped in BUILT_IN_LINT_CHECKS)
        detail = plugin_detail(
            f"lint check {check.name!r}",
            f"on task {task.id!r}",
            partial(check.find, linted),
            built_in=built_in,
        )
        if detail is not None:
            found.append(_finding(task.id, check, detail))
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
                findings.append(_finding(task.id, _DUPLICATES, "; ".join(details), file))
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
                findings.append(_finding(None, _POLICY, detail))
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


def _finding(task_id: str | None, check: Check, detail: str, file: str | None = None) -> LintFinding:
    return LintFinding(task_id=task_id, check=check.name, severity=check.severity, detail=detail, file=file)


_POLICY = next(check for check in BUILT_IN_LINT_CHECKS if check.name == POLICY_NAMES_FOREIGN_TOOL)
