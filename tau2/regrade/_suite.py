"""Re-scoring a run's stored trajectories against other task definitions (`tau2 regrade RUN --suite FILE`):
each trajectory's tool calls run again, in order and on their recorded side, in a fresh world of the new
task, and the final world is judged by the new task's checks (and audited against it: the simulated-user
findings and task defects each record carries are the new task's). No model is called: the conversation is the
one recorded, natural-language assertions keep the verdicts the run's judge gave (a statement it never saw
stays unjudged), and the run directory read is never written. The new run lists each verdict that flips."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from tau2._jsonfile import json_line
from tau2.audit import as_played
from tau2.episode import (
    DONE_TOOL,
    AssertionRecord,
    CheckRecord,
    Entry,
    EntryKind,
    Mode,
    Trajectory,
    Verdict,
    evaluate,
)
from tau2.errors import UserInputError
from tau2.findings import RunFindings
from tau2.personas import PersonaError
from tau2.perturbations import RENAMED_IDENTIFIERS, EpisodeStart, get_perturbation, perturbation_rng
from tau2.regrade._output import claimed_output
from tau2.runner import (
    data_hash,
    new_run_identity,
    package_versions,
    reward_basis_source,
    sha256_tree,
    suite_hash,
    with_findings,
)
from tau2.runs import (
    MANIFEST_FILE,
    RESULTS_FILE,
    RegradedFrom,
    RunManifest,
    SimulationRecord,
    load_run,
    record_provenance,
    require_named_domain,
    task_hashes,
)
from tau2.tasks import RewardType, Task, domain_of, get_domain, initialize_world
from tau2.tau2bench import load_task_file
from tau2.world import RecordWrite, ToolResult, World, WriteCall, WriteTracker


class VerdictFlip(BaseModel):
    """One simulation whose verdict differs under the new task definition, and the components that changed."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    trial: int
    before: bool
    """Whether the simulation passed as the run scored it."""
    after: bool
    reasons: list[str]
    """Each gating component whose outcome changed, as `name: before → after`."""

    def describe(self) -> str:
        """`task 7, trial 0: pass → fail (DB: passed → failed)`."""
        verdicts = f"{_verdict(self.before)} → {_verdict(self.after)}"
        why = "; ".join(self.reasons) or "the same components, judged differently"
        return f"task {self.task_id}, trial {self.trial}: {verdicts} ({why})"


class RegradeReport(BaseModel):
    """What a regrade did: the run read, the suite and data it scored against, the run it wrote, each
    verdict that flipped, and the tasks the run and the suite do not share."""

    model_config = ConfigDict(frozen=True)

    source: Path
    suite: Path
    out: Path
    run_id: str
    """The new run's id."""
    regraded: int
    """Simulations re-scored."""
    flips: list[VerdictFlip]
    changed_tasks: list[str]
    """Shared tasks whose content hash differs from the run's (empty when the run recorded none)."""
    provenance_known: bool
    """Whether the run recorded its tasks' hashes (runs made before did not)."""
    only_in_run: list[str]
    """Tasks the run simulated that the suite does not define: not regraded."""
    only_in_suite: list[str]
    """Tasks the suite defines that the run never simulated: nothing to regrade."""
    not_regraded: list[str]
    """Simulations of shared tasks that could not be re-scored, as `task/trial`: infrastructure errors (the
    run never finished them) and records without a stored trajectory. The new run leaves them out."""


def regrade_suite(run_dir: Path, suite: Path, out: Path, *, data_dir: Path | None = None) -> RegradeReport:
    """Re-score the stored trajectories of the run in `run_dir` against the tasks of `suite` on `data_dir`
    (None: the run's own data) and write them as a new run in `out`, which must be new or empty. `out` is
    claimed for this process before anything is read or written (another process writing there is
    refused, and nothing of its is touched)."""
    with claimed_output(out, run_dir):
        return _regraded_into(run_dir, suite, out, data_dir)


def _regraded_into(run_dir: Path, suite: Path, out: Path, data_dir: Path | None) -> RegradeReport:
    """`regrade_suite` in the claimed, empty `out`."""
    run = load_run(run_dir)
    manifest = run.manifest
    require_named_domain(manifest, str(run_dir / MANIFEST_FILE))
    if data_dir is not None and not data_dir.is_dir():
        raise UserInputError(f"--data-dir {data_dir}: not a directory")
    data = data_dir if data_dir is not None else manifest.config.data_dir
    tasks = _suite_tasks(suite, manifest)
    planned = set(manifest.task_ids)
    shared = [task_id for task_id in manifest.task_ids if task_id in tasks]
    if not shared:
        raise UserInputError(f"{suite}: defines none of the tasks of run {manifest.run_id} ({run_dir})")
    hashes = task_hashes(tasks[task_id] for task_id in shared)
    new = _regraded_manifest(manifest, run_dir, suite, data, shared, hashes, tasks)
    records: list[SimulationRecord] = []
    flips: list[VerdictFlip] = []
    not_regraded: list[str] = []
    played = _played(tasks, manifest)
    findings = RunFindings(get_domain(manifest.domain), data)
    for record in run.records:
        task = tasks.get(record.task_id)
        if task is None:
            continue
        if record.trajectory is None or record.excluded:
            not_regraded.append(f"{record.task_id}/{record.trial}")
            continue
        start = _played_start(record, task if played is None else played[task.id], manifest, data)
        regraded, writes = _regrade(record, task, start, new, data)
        if played is None:
            regraded = regraded.model_copy(
                update={
                    "user_findings": None,
                    "task_defects": None,
                    "collateral": None,
                    "missing_writes": None,
                }
            )
        else:
            renamed = start.base is not None
            regraded = with_findings(
                regraded,
                played[task.id],
                findings,
                writes,
                played=start.task if renamed else None,
                played_base=start.base,
            )
        records.append(regraded)
        if regraded.success != record.success:
            flips.append(_flip(record, regraded))
    if not records:
        raise UserInputError(f"{run_dir}: no stored trajectory of a task of {suite} to regrade")
    _write_run(out, new, records)
    changed = [
        task_id
        for task_id in shared
        if task_id in manifest.task_hashes and manifest.task_hashes[task_id] != hashes[task_id]
    ]
    return RegradeReport(
        source=run_dir,
        suite=suite,
        out=out,
        run_id=new.run_id,
        regraded=len(records),
        flips=flips,
        changed_tasks=changed,
        provenance_known=bool(manifest.task_hashes),
        only_in_run=[task_id for task_id in manifest.task_ids if task_id not in tasks],
        only_in_suite=[task_id for task_id in tasks if task_id not in planned],
        not_regraded=not_regraded,
    )


def _suite_tasks(suite: Path, manifest: RunManifest) -> dict[str, Task]:
    """The suite's tasks by id, read as the run read its own; a suite of another domain is refused. A
    persona override the run had is left out: it shapes the conversation, not the scoring."""
    if not suite.exists():
        raise UserInputError(f"--suite {suite}: no such file")
    tasks = load_task_file(suite, manifest.config.domain)
    if not tasks:
        raise UserInputError(f"--suite {suite}: the file has no tasks")
    foreign = sorted({task.domain for task in tasks} - {manifest.domain})
    if foreign:
        raise UserInputError(
            f"--suite {suite}: its tasks are of domain {', '.join(foreign)}; run {manifest.run_id} is of "
            f"domain {manifest.domain}"
        )
    return {task.id: task for task in tasks}


def _played(tasks: dict[str, Task], manifest: RunManifest) -> dict[str, Task] | None:
    """The suite's tasks as the run's customer played them (its persona override applied), which its
    findings are checked against; None when the persona cannot be read (the records then carry no findings
    and a report audits them itself, saying why it cannot)."""
    try:
        return {task.id: task for task in as_played(list(tasks.values()), manifest.config.persona)}
    except PersonaError:
        return None


def _regraded_manifest(
    manifest: RunManifest,
    run_dir: Path,
    suite: Path,
    data_dir: Path | None,
    shared: list[str],
    hashes: dict[str, str],
    tasks: dict[str, Task],
) -> RunManifest:
    """The new run's manifest: the run's configuration and prompt, policy and judge hashes (its
    trajectories were made under them), on the new suite and data, regraded from the run."""
    domain = get_domain(manifest.domain)
    run_hashes = {key: value for key, value in manifest.hashes.items() if key != "data_dir"}
    run_hashes["data"] = data_hash(domain, data_dir)
    if data_dir is not None:
        run_hashes["data_dir"] = sha256_tree(data_dir)
    config = manifest.config.model_copy(
        update={
            "suite": suite.resolve(),
            "data_dir": None if data_dir is None else data_dir.resolve(),
            "task_ids": shared,
            "split": None,
        }
    )
    return manifest.model_copy(
        update={
            **new_run_identity(),
            "config": config,
            "suite_path": str(suite.resolve()),
            "suite_hash": suite_hash(suite),
            "task_ids": shared,
            "versions": {**manifest.versions, **package_versions()},
            "hashes": run_hashes,
            "task_hashes": hashes,
            "reward_basis_source": reward_basis_source([tasks[task_id] for task_id in shared]),
            "regraded_from": RegradedFrom(
                run_id=manifest.run_id, path=str(run_dir.resolve()), suite=str(suite.resolve())
            ),
        }
    )


def _played_start(
    record: SimulationRecord, task: Task, manifest: RunManifest, data_dir: Path | None
) -> EpisodeStart:
    """What the simulation of `record` is replayed from: `task` on `data_dir`'s data, or, when a
    perturbation renamed its identifiers, `task` renamed by the same bijection (drawn again from the
    simulation's seed, as the run drew it) with the renamed data and reference its calls were made on."""
    start = EpisodeStart(task, data_dir)
    events = [] if record.perturbation is None else record.perturbation.events
    for name in dict.fromkeys(event.kind for event in events if event.effect == RENAMED_IDENTIFIERS):
        effect = get_perturbation(name).episode(
            manifest.config.perturbations[name], perturbation_rng(record.seed, name)
        )
        start = effect.before_episode(start)
    return start


def _regrade(
    record: SimulationRecord, task: Task, start: EpisodeStart, manifest: RunManifest, data_dir: Path | None
) -> tuple[SimulationRecord, dict[str, RecordWrite]]:
    """`record` of `task` re-scored as played from `start` (the task, or the task renamed with its world):
    its trajectory's calls replayed in a fresh world (but those a perturbation kept from the world, which
    are left out of the evaluation as when it ran); with the records the replay changed (by path, with the
    calls that changed each)."""
    assert record.trajectory is not None
    world = initialize_world(start.task, data_dir, base=start.base)
    changes = WriteTracker(world)
    unreached = frozenset() if record.perturbation is None else record.perturbation.unreached_entries()
    solo = record.mode is Mode.SOLO
    entries = _replayed(record.trajectory.entries, world, changes, solo=solo, kept=unreached)
    trajectory = Trajectory(
        entries=entries,
        termination=record.termination,
        termination_detail=record.termination_detail,
        duration_s=record.trajectory.duration_s,
        steps=record.steps,
        usage=record.usage,
    )
    retrieval = manifest.episode.retrieval
    evaluated = [entry for entry in entries if entry.index not in unreached]
    evaluation = evaluate(
        start.task,
        world,
        trajectory.model_copy(update={"entries": evaluated}) if unreached else trajectory,
        data_dir=data_dir,
        nl_verdicts=_recorded_verdicts(record),
        retrieval=retrieval,
        reference=start.reference,
    )
    state_changes = changes.since_start()
    fields: dict[str, Any] = {
        **dict(record),
        "run_id": manifest.run_id,
        "intent": task.intent,
        "subtasks": task.subtasks,
        "reward": evaluation.reward,
        "expects_transfer": evaluation.expects_transfer,
        "assertions": evaluation.assertions,
        "actions": evaluation.actions,
        "tool_errors": evaluation.tool_errors,
        "checks": evaluation.checks,
        "judge_usage": None,
        "state_changes": state_changes,
        "retrieval": evaluation.retrieval,
        "provenance": record_provenance(manifest, task.id),
        "trajectory": trajectory,
    }
    return SimulationRecord.model_validate(fields), changes.written(state_changes)


def _replayed(
    entries: Iterable[Entry],
    world: World,
    changes: WriteTracker,
    *,
    solo: bool,
    kept: frozenset[int] = frozenset(),
) -> list[Entry]:
    """The entries with every tool call run again in `world` and its result replaced by the new one. Calls
    that reached no tool (refused to the seat), a solo agent's `done`, a knowledge base's retrieval calls
    (which change nothing) and the calls at the indices `kept` (a perturbation kept them from the world)
    keep their recorded results."""
    support = domain_of(world).retrieval
    retrieved = support.tools if support is not None else frozenset()
    replayed: list[Entry] = []
    result: ToolResult | None = None
    for entry in entries:
        call = entry.tool_call
        if entry.kind is EntryKind.TOOL_CALL and call is not None:
            result = None
            if (
                call.side is not None
                and call.name not in retrieved
                and entry.index not in kept
                and not (solo and call.name == DONE_TOOL)
            ):
                changes.before(call.name)
                result = world.call(call.side, call.name, call.arguments)
                changes.after(WriteCall(entry=len(replayed), seat=entry.seat, tool=call.name))
        elif entry.kind is EntryKind.TOOL_RESULT and result is not None:
            entry = entry.model_copy(update={"result": result})
            result = None
        replayed.append(entry)
    return replayed


def _recorded_verdicts(record: SimulationRecord) -> dict[str, Verdict]:
    """The run judge's verdicts on natural-language statements, by statement, kept for the regrade (no
    judge is asked again)."""
    return {
        check.item: Verdict(passed=check.passed, reasoning=check.detail)
        for check in record.checks
        if check.kind is RewardType.NL_ASSERTION and check.item is not None and check.passed is not None
    }


def _flip(before: SimulationRecord, after: SimulationRecord) -> VerdictFlip:
    """The flip of one simulation, with every gating component whose outcome or role changed."""
    reasons: list[str] = []
    if before.expects_transfer != after.expects_transfer:
        reasons.append(f"expects a transfer: {before.expects_transfer} → {after.expects_transfer}")
    reasons += _changed(_assertions(before.assertions), _assertions(after.assertions))
    reasons += _changed(_checks(before.checks), _checks(after.checks))
    return VerdictFlip(
        task_id=before.task_id,
        trial=before.trial,
        before=before.success,
        after=after.success,
        reasons=reasons,
    )


Outcome = tuple[bool | None, bool]
"""A component's outcome (None: not judged) and whether it gates the reward."""


def _assertions(records: list[AssertionRecord]) -> dict[str, Outcome]:
    """Assertions by a readable label; every assertion gates."""
    return {
        f"assertion {record.name}({json.dumps(record.arguments, sort_keys=True, ensure_ascii=False)})"
        + ("" if record.expected else " is false"): (record.passed, True)
        for record in records
    }


def _checks(records: list[CheckRecord]) -> dict[str, Outcome]:
    """Reward-basis components by a readable label: the kind, and the item checked when there is one."""
    return {
        record.kind.value + ("" if record.item is None else f" {record.item!r}"): (
            record.passed,
            record.gating,
        )
        for record in records
    }


def _changed(before: dict[str, Outcome], after: dict[str, Outcome]) -> list[str]:
    """`label: before → after` for each component that gates on either side and whose outcome or role
    differs (`absent` where one side does not have it)."""
    lines: list[str] = []
    for label in [*before, *(label for label in after if label not in before)]:
        old, new = before.get(label), after.get(label)
        if old == new or not ((old is not None and old[1]) or (new is not None and new[1])):
            continue
        lines.append(f"{label}: {_outcome(old)} → {_outcome(new)}")
    return lines


def _outcome(outcome: Outcome | None) -> str:
    if outcome is None:
        return "absent"
    passed, gating = outcome
    state = "not judged" if passed is None else "passed" if passed else "failed"
    return state if gating else f"{state} (diagnostic)"


def _verdict(passed: bool) -> str:
    return "pass" if passed else "fail"


def _write_run(out: Path, manifest: RunManifest, records: list[SimulationRecord]) -> None:
    """Write the records, then the manifest (a directory without one is no run), into the claimed `out`; a
    failure removes the records this call wrote (and the claim the directory it made), so nothing half-made
    is left."""
    results = out / RESULTS_FILE
    created = False
    try:
        with results.open("x", encoding="utf-8", newline="\n") as stream:
            created = True
            for record in records:
                stream.write(json_line(record.model_dump_json()) + "\n")
        manifest.save(out)
    except BaseException:
        if created:
            results.unlink(missing_ok=True)
        raise
