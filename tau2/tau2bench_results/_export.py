"""`tau2 export tau2bench`: a run directory as a τ²-bench results file (readable by τ²-bench's loader and
metrics) and, on request, a leaderboard submission (`submission.json`: model, pass^1..4 per domain,
methodology)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final

from tau2._distribution import installed_version
from tau2._jsonfile import write_json_parts
from tau2.episode import CheckRecord, Entry, EntryKind, Mode, TerminationReason, agent_policy
from tau2.errors import UserInputError
from tau2.llm import ModelSpec, Usage
from tau2.metrics.passk import pass_hat_k
from tau2.runner import sha256_text
from tau2.runs import MANIFEST_FILE, RecordFile, Run, SimulationRecord, load_run, require_named_domain
from tau2.tasks import RewardType, Task, get_domain, resolve_retrieval
from tau2.tau2bench import default_reward_basis, load_task_file, task_to_tau2
from tau2.tau2bench_results._format import Results, SimulationRun
from tau2.tau2bench_results._import import load_import
from tau2.tau2bench_results._tasksets import official_task_set, task_set_hash
from tau2.world import RetrievalConfig, Side

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


def export_results(run_dir: Path, out: Path) -> int:
    """Write the run at `run_dir` as a τ²-bench results file at `out`; returns how many simulations it holds.
    The file is written as the records are read, one simulation at a time (each checked against τ²-bench's
    format before it is written), with the bytes the whole document would have."""
    refuse_existing(out)
    run = load_run(run_dir)
    require_named_domain(run.manifest, str(run_dir / MANIFEST_FILE))
    tasks = _run_tasks(run)
    manifest = run.manifest
    records = _traced(run.records)
    if not records:
        raise UserInputError(f"{run_dir}: the run has no recorded simulations to export")
    policy = _policy(run)
    simulation_policy = _simulation_policies(run)
    head = {
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
            **_retrieval_fields(manifest.episode.retrieval),
        },
        "tasks": [task_to_tau2(tasks[task_id]) for task_id in dict.fromkeys(_task_ids(records))],
    }
    Results.model_validate(head)  # what we write must load as τ²-bench's format

    def simulations() -> Iterator[dict[str, Any]]:
        for record in records:
            simulation = _simulation(run, record, tasks[record.task_id], simulation_policy)
            SimulationRun.model_validate(simulation)
            yield simulation

    write_json_parts(out, [*head.items(), ("simulations", simulations())])
    return len(records)


def _traced(records: Sequence[SimulationRecord]) -> Sequence[SimulationRecord]:
    """The records that hold a trajectory (chosen from the index, without reading, for a run on disk)."""
    if isinstance(records, RecordFile):
        return records.where(lambda line: line.has_trajectory is True)
    return [record for record in records if record.trajectory is not None]


def _task_ids(records: Sequence[SimulationRecord]) -> Iterator[str]:
    """The records' task ids in order (from the index, without reading, for a run on disk)."""
    if isinstance(records, RecordFile):
        return (line.task_id for line in records.lines)
    return (record.task_id for record in records)


def submission(
    run_dirs: list[Path],
    model_name: str,
    organization: str,
    user_simulator: str | None,
    *,
    custom: bool = False,
) -> dict[str, Any]:
    """A leaderboard submission for runs of different domains (pass^k in percent, None without k trials).

    A standard submission needs every run to cover one of τ²-bench's official task sets whole (recognised
    by content), every task judged, with each task's own persona and no reference solution shown; any
    other run is refused unless `custom`, which marks the submission custom and names each run's task set
    by its hash in the methodology notes."""
    results: dict[str, dict[str, float | None]] = {}
    sets: list[str] = []
    for run_dir in run_dirs:
        run = load_run(run_dir)
        require_named_domain(run.manifest, str(run_dir / MANIFEST_FILE))
        domain = run.manifest.domain
        if domain in results:
            raise UserInputError(f"{run_dir}: a second run of domain {domain!r}; give one run per domain")
        description, problems = _task_set(run)
        if problems and not custom:
            raise UserInputError(
                f"{run_dir}: not a standard τ²-bench submission: {'; '.join(problems)}; "
                "add --custom to submit it as a custom one"
            )
        results[domain] = pass_k_percent(run.records)
        sets.append(f"{domain}: {description}" + "".join(f"; {problem}" for problem in problems))
    today = datetime.now(UTC).date().isoformat()
    return {
        "model_name": model_name,
        "model_organization": organization,
        "submitting_organization": organization,
        "submission_date": today,
        "submission_type": "custom" if custom else "standard",
        "is_new": True,
        "trajectories_available": True,
        "results": results,
        "methodology": {
            "evaluation_date": today,
            "user_simulator": user_simulator,
            "notes": (
                f"Simulated and evaluated with tau2 {_version()}; trajectories in τ²-bench's format. "
                f"Task sets: {' | '.join(sets)}."
            ),
        },
    }


def _task_set(run: Run) -> tuple[str, list[str]]:
    """What task set `run` covered (an official set's name, or its hash; with the retrieval configuration
    of a knowledge domain's run) and why it is not a standard leaderboard run (empty when it is one)."""
    manifest = run.manifest
    suite = _run_tasks(run)
    tasks = [suite[task_id] for task_id in manifest.task_ids if task_id in suite]
    official = official_task_set(manifest.domain, tasks)
    description = (
        official.name if official else f"custom task set {task_set_hash(tasks)} ({len(tasks)} tasks)"
    )
    if manifest.episode.retrieval is not None:  # part of what a knowledge domain's score means
        description += f", retrieval configuration {manifest.episode.retrieval.label()}"
    problems = [] if official else ["its tasks are not an official τ²-bench task set"]
    judged = {record.task_id for record in run.records if not record.excluded}
    missing = [task.id for task in tasks if task.id not in judged]
    if missing:
        problems.append(f"{len(missing)} of its tasks have no judged simulation (resume the run)")
    if manifest.config.persona is not None:
        problems.append("every task's persona was replaced (--persona)")
    if manifest.episode.oracle_plan:
        problems.append("the agent was shown the reference solution (--oracle-plan)")
    if manifest.mode is Mode.SOLO:
        problems.append("it ran in solo mode (the leaderboard's runs are interactive)")
    return description, problems


def refuse_existing(path: Path) -> None:
    """Exports never replace a file: an existing one is a `UserInputError`."""
    if path.exists():
        raise UserInputError(f"{path}: already exists; choose another output path")


def pass_k_percent(records: Iterable[SimulationRecord]) -> dict[str, float | None]:
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


def _policy(run: Run) -> str:
    """The agent policy the run used: the one an imported run recorded, else (a knowledge domain) its
    retrieval configuration's instructions, or its data directory's own or the domain's policy; refused
    when it is no longer the text the manifest's policy hash names."""
    manifest = run.manifest
    imported = load_import(run.path)
    data_dir = manifest.config.data_dir
    domain = get_domain(manifest.domain)
    support = domain.retrieval
    if imported is not None and imported.policy is not None:
        policy = imported.policy
    elif support is not None:
        settled = resolve_retrieval(domain, manifest.episode.retrieval)  # a run records it settled
        assert settled is not None
        policy = support.policy(settled, data_dir, None)
    else:
        solo = manifest.mode is Mode.SOLO
        policy = agent_policy(domain, solo, manifest.episode.policy_variant, data_dir) or ""
    recorded = manifest.hashes.get("policy")
    if recorded is not None and sha256_text(policy) != recorded:
        where = f"its data directory {data_dir}" if data_dir else "the installed domain"
        raise UserInputError(
            f"{run.path}: the policy the run used (hash {recorded}) is no longer in {where}; "
            "restore it to export the run"
        )
    return policy


SimulationPolicy = Callable[[SimulationRecord, Task], str | None]
"""The agent instructions of one simulation of a task, when the run's format records them per simulation."""


def _simulation_policies(run: Run) -> SimulationPolicy:
    """Each simulation's agent instructions: those τ²-bench recorded, for an imported run; for a run of a
    knowledge domain, its retrieval configuration's instructions for the task (τ²-bench records them per
    simulation: some configurations show each task its own documents); none otherwise."""
    imported = load_import(run.path)
    if imported is not None:
        recorded = imported.simulation_policies()
        return lambda record, task: recorded.get((record.task_id, record.trial))
    domain = get_domain(run.manifest.domain)
    support, config = domain.retrieval, resolve_retrieval(domain, run.manifest.episode.retrieval)
    if support is None or config is None:
        return lambda record, task: None
    data_dir = run.manifest.config.data_dir
    texts: dict[str, str] = {}
    by_task: dict[str, str] = {}

    def policy(record: SimulationRecord, task: Task) -> str:
        if task.id not in by_task:  # each distinct text held once (the whole knowledge base is large)
            text = support.policy(config, data_dir, task)
            by_task[task.id] = texts.setdefault(text, text)
        return by_task[task.id]

    return policy


def _retrieval_fields(config: RetrievalConfig | None) -> dict[str, Any]:
    """The retrieval configuration in τ²-bench's run information: its name and options (`top_k`, and the
    embeddings of a dense configuration, which τ²-bench's loader ignores and tau2's importer reads)."""
    if config is None:
        return {}
    options: dict[str, Any] = {"top_k": config.top_k}
    if config.embedder is not None:
        options["embedder_model"] = config.embedder.model
        if config.embedder.api_base is not None:
            options["embedder_api_base"] = config.embedder.api_base
    return {"retrieval_config": config.name, "retrieval_config_kwargs": options}


def _run_tasks(run: Run) -> dict[str, Task]:
    """The run's tasks, read from its suite (a file, or a τ²-bench task folder)."""
    path = Path(run.manifest.suite_path)
    if not path.exists():
        raise UserInputError(f"{run.path}: the run's suite {path} is missing")
    return {task.id: task for task in load_task_file(path, run.manifest.domain)}


def _seat(kind: str, model: ModelSpec | None) -> dict[str, Any]:
    if model is None:
        return {"implementation": kind, "llm": None, "llm_args": None}
    return {"implementation": kind, "llm": model.name, "llm_args": model.args or None}


def _simulation(run: Run, record: SimulationRecord, task: Task, policy: SimulationPolicy) -> dict[str, Any]:
    """One simulation in τ²-bench's shape; times are laid out from the run's creation time."""
    assert record.trajectory is not None
    start = run.manifest.created_at
    usage = record.usage
    instructions = policy(record, task)
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
        "messages": _numbered([*messages(record.trajectory.entries, start), *_closing(record, start)]),
        "trial": record.trial,
        "seed": record.seed,
        **({"policy": instructions} if instructions is not None else {}),
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
    basis: list[str] = criteria.get("reward_basis") or [
        kind.value for kind in default_reward_basis(record.expects_transfer)
    ]
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
        **_check_fields(record.checks),
        "reward_basis": basis,
        "reward_breakdown": _breakdown(record, basis),
        "info": {"evaluated_by": "tau2"},
    }


def _check_fields(checks: list[CheckRecord]) -> dict[str, Any]:
    """The database, communication and judged-statement checks in τ²-bench's shape, for the kinds the
    run evaluated (a statement no judge saw has no verdict and is left out)."""
    fields: dict[str, Any] = {}
    database = [check for check in checks if check.kind is RewardType.DB]
    if database:
        matched = database[0].passed is True
        fields["db_check"] = {"db_match": matched, "db_reward": float(matched)}
    told = [check for check in checks if check.kind is RewardType.COMMUNICATE]
    if told:
        fields["communicate_checks"] = [
            {
                "info": check.item,
                "met": check.passed is True,
                "justification": "said in an agent message" if check.passed else "said in no agent message",
            }
            for check in told
        ]
    judged = [check for check in checks if check.kind is RewardType.NL_ASSERTION and check.passed is not None]
    if judged:
        fields["nl_assertions"] = [
            {"nl_assertion": check.item, "met": check.passed, "justification": check.detail or ""}
            for check in judged
        ]
    return fields


def _breakdown(record: SimulationRecord, basis: list[str]) -> dict[str, float]:
    """Per component of the reward basis, 1.0 when all its checks passed (τ²-bench's `reward_breakdown`;
    a component without items, such as no information to tell, passes); a record judged by assertions
    alone knows that component only."""
    if not record.checks:
        assertions = RewardType.ENV_ASSERTION.value
        passed = all(check.passed for check in record.assertions)
        return {assertions: float(passed)} if assertions in basis else {}
    outcomes: dict[str, list[bool]] = defaultdict(list)
    for check in record.checks:
        outcomes[check.kind.value].append(check.passed is True)
    return {kind: float(all(outcomes[kind])) for kind in basis}


def _numbered(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The messages with τ²-bench's `turn_idx`: each message's position in the conversation."""
    return [{**message, "turn_idx": index} for index, message in enumerate(messages)]


def messages(entries: list[Entry], start: datetime) -> list[dict[str, Any]]:
    """A trajectory as τ²-bench messages: the tool calls of one model turn (or a run of one offline seat's
    calls) become one message, followed by one tool message per result; a turn's token usage and cost
    go on its message, and each message is stamped `start` plus the time its entry was made; actor
    errors (τ²-bench records none) are left out."""
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
        at = (start + timedelta(seconds=entry.elapsed_s)).isoformat()
        if entry.kind is EntryKind.MESSAGE:
            flush()
            said: dict[str, Any] = {"role": _requestor(entry.seat), "content": entry.text, "timestamp": at}
            out.append(_with_usage(said, entry))
        elif entry.kind is EntryKind.TOOL_CALL and entry.tool_call is not None:
            requestor = _requestor(entry.seat)
            if calls is None or calls["role"] != requestor or entry.usage is not None:
                flush()
                turn: dict[str, Any] = {"role": requestor, "content": None, "tool_calls": [], "timestamp": at}
                calls = _with_usage(turn, entry)
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
                    "timestamp": at,
                }
            )
    flush()
    return out


STOP_TOKEN: Final = "###STOP###"
"""The message with which τ²-bench's simulated user ends a conversation."""


def _closing(record: SimulationRecord, start: datetime) -> list[dict[str, Any]]:
    """The user's hang-up as τ²-bench writes it, when it was a model call that said nothing (our
    trajectory then records no entry for it): a stop message carrying that call's usage."""
    assert record.trajectory is not None
    total = record.usage.get(Side.USER)
    if record.termination is not TerminationReason.USER_STOP or total is None:
        return []
    seen = [entry.usage for entry in record.trajectory.entries if entry.seat is Side.USER and entry.usage]
    events = [] if record.perturbation is None else record.perturbation.events
    seen += [event.usage for event in events if event.seat is Side.USER and event.usage]  # a paraphrase
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
    at = (start + timedelta(seconds=record.duration_s)).isoformat()
    return [_with_usage({"role": "user", "content": STOP_TOKEN, "timestamp": at}, stop)]


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
    return installed_version() or "unknown"
