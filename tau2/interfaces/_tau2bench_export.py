"""`tau2 export tau2bench`: a run directory as a τ²-bench results file (readable by τ²-bench's loader and
metrics) and, on request, a leaderboard submission (`submission.json`: model, pass^1..4 per domain,
methodology)."""

from __future__ import annotations

from collections import defaultdict
from datetime import UTC, datetime, timedelta
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Final

from tau2 import (
    Entry,
    EntryKind,
    Mode,
    Side,
    SimulationRecord,
    Task,
    TerminationReason,
    Usage,
    UserInputError,
    get_domain,
    load_task_file,
)
from tau2._jsonfile import write_json
from tau2.interfaces._tau2bench_format import Results
from tau2.llm import ModelSpec
from tau2.metrics.passk import pass_hat_k
from tau2.runs import Run, load_run
from tau2.tasks import default_reward_basis, task_to_tau2

MAX_K: Final = 4
"""The leaderboard reports pass^1 to pass^4."""

_TERMINATIONS: Final = {
    TerminationReason.USER_STOP: "user_stop",
    TerminationReason.TRANSFER: "user_stop",
    TerminationReason.AGENT_STOP: "agent_stop",
    TerminationReason.MAX_STEPS: "max_steps",
    TerminationReason.TOO_MANY_ERRORS: "too_many_errors",
    TerminationReason.CONTEXT_OVERFLOW: "context_window_exceeded",
    TerminationReason.INFRASTRUCTURE_ERROR: "infrastructure_error",
}
"""Our terminations in τ²-bench's vocabulary (its orchestrator ends a transferred call as a user stop; an
actor error becomes `agent_error` or `user_error` by the seat that failed)."""


def export_results(run_dir: Path, out: Path) -> dict[str, Any]:
    """Write the run at `run_dir` as a τ²-bench results file at `out`; returns the written document."""
    refuse_existing(out)
    run = load_run(run_dir)
    tasks = _run_tasks(run)
    manifest = run.manifest
    records = [record for record in run.records if record.trajectory is not None]
    if not records:
        raise UserInputError(f"{run_dir}: the run has no recorded simulations to export")
    domain = get_domain(manifest.domain)
    solo = manifest.mode is Mode.SOLO
    policy = domain.policy(solo, manifest.episode.policy_variant) if domain.policy else ""
    document = {
        "timestamp": manifest.created_at.isoformat(),
        "info": {
            "git_commit": f"tau2 {_version()}",
            "num_trials": manifest.trials,
            "max_steps": manifest.episode.max_steps,
            "max_errors": manifest.episode.max_errors,
            "user_info": _seat(
                manifest.user.kind if manifest.user else "none",
                manifest.user.model if manifest.user else None,
            ),
            "agent_info": _seat(manifest.agent.kind, manifest.agent.model),
            "environment_info": {"domain_name": manifest.domain, "policy": policy},
            "seed": manifest.seed,
        },
        "tasks": [task_to_tau2(tasks[record_id]) for record_id in dict.fromkeys(r.task_id for r in records)],
        "simulations": [_simulation(run, record, tasks[record.task_id]) for record in records],
    }
    Results.model_validate(document)  # what we write must load as τ²-bench's format
    write_json(out, document)
    return document


def submission(
    run_dirs: list[Path], model_name: str, organization: str, user_simulator: str | None
) -> dict[str, Any]:
    """A leaderboard submission for runs of different domains (pass^k in percent, None without k trials)."""
    results: dict[str, dict[str, float | None]] = {}
    for run_dir in run_dirs:
        run = load_run(run_dir)
        domain = run.manifest.domain
        if domain in results:
            raise UserInputError(f"{run_dir}: a second run of domain {domain!r}; give one run per domain")
        results[domain] = pass_k_percent(run.records)
    today = datetime.now(UTC).date().isoformat()
    return {
        "model_name": model_name,
        "model_organization": organization,
        "submitting_organization": organization,
        "submission_date": today,
        "submission_type": "standard",
        "is_new": True,
        "trajectories_available": True,
        "results": results,
        "methodology": {
            "evaluation_date": today,
            "user_simulator": user_simulator,
            "notes": f"Simulated and evaluated with tau2 {_version()}; trajectories in τ²-bench's format.",
        },
    }


def refuse_existing(path: Path) -> None:
    """Exports never replace a file: an existing one is a `UserInputError`."""
    if path.exists():
        raise UserInputError(f"{path}: already exists; choose another output path")


def pass_k_percent(records: list[SimulationRecord]) -> dict[str, float | None]:
    """pass^1..pass^4 in percent, as τ²-bench computes it: the mean over tasks of C(c, k) / C(n, k); a k
    larger than some task's number of valid trials is None. Infrastructure failures are left out."""
    trials: dict[str, list[bool]] = defaultdict(list)
    for record in records:
        if not record.excluded:
            trials[record.task_id].append(record.success)
    values: dict[str, float | None] = {}
    for k in range(1, MAX_K + 1):
        if not trials or any(len(outcomes) < k for outcomes in trials.values()):
            values[f"pass_{k}"] = None
            continue
        per_task = [pass_hat_k(len(outcomes), sum(outcomes), k) for outcomes in trials.values()]
        values[f"pass_{k}"] = round(100 * sum(per_task) / len(per_task), 2)
    return values


def _run_tasks(run: Run) -> dict[str, Task]:
    """The run's tasks, read from its suite file."""
    path = Path(run.manifest.suite_path)
    if not path.is_file():
        raise UserInputError(f"{run.path}: the run's suite file {path} is missing")
    return {task.id: task for task in load_task_file(path)}


def _seat(kind: str, model: ModelSpec | None) -> dict[str, Any]:
    if model is None:
        return {"implementation": kind, "llm": None, "llm_args": None}
    return {"implementation": kind, "llm": model.name, "llm_args": model.args or None}


def _simulation(run: Run, record: SimulationRecord, task: Task) -> dict[str, Any]:
    """One simulation in τ²-bench's shape; times are laid out from the run's creation time."""
    assert record.trajectory is not None
    start = run.manifest.created_at
    usage = record.usage
    return {
        "id": f"{run.manifest.run_id}-{record.task_id}-{record.trial}",
        "task_id": record.task_id,
        "timestamp": start.isoformat(),
        "start_time": start.isoformat(),
        "end_time": (start + timedelta(seconds=record.duration_s)).isoformat(),
        "duration": record.duration_s,
        "termination_reason": _termination(record),
        "agent_cost": usage[Side.AGENT].cost if Side.AGENT in usage else None,
        "user_cost": usage[Side.USER].cost if Side.USER in usage else None,
        "reward_info": _reward_info(record, task),
        "messages": [*messages(record.trajectory.entries), *_closing(record)],
        "trial": record.trial,
        "seed": record.seed,
    }


def _termination(record: SimulationRecord) -> str:
    if record.termination is TerminationReason.ACTOR_ERROR:
        detail = record.termination_detail or ""
        return "user_error" if detail.startswith(f"{Side.USER.value} actor") else "agent_error"
    return _TERMINATIONS[record.termination]


def _reward_info(record: SimulationRecord, task: Task) -> dict[str, Any]:
    """The reward and the checks behind it, in τ²-bench's terms."""
    exported = task_to_tau2(task)
    criteria = exported.get("evaluation_criteria") or {}
    assertions = criteria.get("env_assertions") or []
    actions = {action["action_id"]: action for action in criteria.get("actions") or []}
    return {
        "reward": record.reward,
        "env_assertions": [
            {"env_assertion": assertion, "met": outcome.passed, "reward": 1.0 if outcome.passed else 0.0}
            for assertion, outcome in zip(assertions, record.assertions, strict=False)
        ],
        "action_checks": [
            {
                "action": actions[check.action_id],
                "action_match": check.performed,
                "action_reward": float(check.performed),
            }
            for check in record.actions
            if check.action_id in actions
        ],
        "reward_basis": criteria.get("reward_basis")
        or [kind.value for kind in default_reward_basis(record.expects_transfer)],
        "info": {"evaluated_by": "tau2"},
    }


def messages(entries: list[Entry]) -> list[dict[str, Any]]:
    """A trajectory as τ²-bench messages: the tool calls of one model turn (or a run of one offline seat's
    calls) become one message, followed by one tool message per result; a turn's token usage and cost
    go on its message; actor errors (τ²-bench records none) are left out."""
    out: list[dict[str, Any]] = []
    calls: dict[str, Any] | None = None
    results: list[dict[str, Any]] = []

    def flush() -> None:
        nonlocal calls
        if calls is not None:
            out.append(calls)
            out.extend(results)
        calls = None
        results.clear()

    for entry in entries:
        if entry.kind is EntryKind.MESSAGE:
            flush()
            out.append(_with_usage({"role": _requestor(entry.seat), "content": entry.text}, entry))
        elif entry.kind is EntryKind.TOOL_CALL and entry.tool_call is not None:
            requestor = _requestor(entry.seat)
            if calls is None or calls["role"] != requestor or entry.usage is not None:
                flush()
                calls = _with_usage({"role": requestor, "content": None, "tool_calls": []}, entry)
            call = entry.tool_call
            calls["tool_calls"].append(
                {"id": call.call_id, "name": call.name, "arguments": call.arguments, "requestor": requestor}
            )
        elif entry.kind is EntryKind.TOOL_RESULT and entry.tool_call is not None and entry.result is not None:
            results.append(
                {
                    "id": entry.tool_call.call_id,
                    "role": "tool",
                    "content": entry.result.render(),
                    "requestor": _requestor(entry.seat),
                    "error": not entry.result.ok,
                }
            )
    flush()
    return out


STOP_TOKEN: Final = "###STOP###"
"""The message with which τ²-bench's simulated user ends a conversation."""


def _closing(record: SimulationRecord) -> list[dict[str, Any]]:
    """The user's hang-up as τ²-bench writes it, when it was a model call that said nothing (our
    trajectory then records no entry for it): a stop message carrying that call's usage."""
    assert record.trajectory is not None
    total = record.usage.get(Side.USER)
    if record.termination is not TerminationReason.USER_STOP or total is None:
        return []
    seen = [entry.usage for entry in record.trajectory.entries if entry.seat is Side.USER and entry.usage]
    calls = total.calls - sum(usage.calls for usage in seen)
    if calls <= 0:
        return []
    cost = None if total.cost is None else total.cost - sum(usage.cost or 0.0 for usage in seen)
    remainder = Usage(
        calls=calls,
        prompt_tokens=total.prompt_tokens - sum(usage.prompt_tokens for usage in seen),
        completion_tokens=total.completion_tokens - sum(usage.completion_tokens for usage in seen),
        cost=cost,
    )
    stop = Entry(index=-1, seat=Side.USER, kind=EntryKind.MESSAGE, text=STOP_TOKEN, usage=remainder)
    return [_with_usage({"role": "user", "content": STOP_TOKEN}, stop)]


def _with_usage(message: dict[str, Any], entry: Entry) -> dict[str, Any]:
    """`message` with the token usage and cost of the model call that produced `entry`, if any."""
    if entry.usage is not None:
        usage = entry.usage
        message["usage"] = {
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
        }
        message["cost"] = usage.cost
    return message


def _requestor(seat: Side) -> str:
    """τ²-bench's name of a seat, as message role and tool-call requestor."""
    return "assistant" if seat is Side.AGENT else "user"


def _version() -> str:
    try:
        return version("tau2")
    except PackageNotFoundError:
        return "unknown"
