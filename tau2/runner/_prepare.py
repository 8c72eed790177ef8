"""From a run request to a ready run: tasks loaded and selected, persona applied, manifest built (or
checked against the stored one on resume), damaged results set aside and the pending units planned."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from tau2._jsonfile import read_bytes_bounded
from tau2.actors import make_actor
from tau2.episode import ActorSpec, EpisodeConfig, Mode, check_structure, shipped_policy
from tau2.errors import UserInputError
from tau2.llm import ModelSpec, missing_credentials, withheld_credentials
from tau2.personas import PersonaError, load_persona
from tau2.runner._manifest import (
    differences,
    new_run_identity,
    package_versions,
    prompt_hashes,
    sha256_bytes,
    sha256_text,
    sha256_tree,
)
from tau2.runner._plan import Unit, pending_units
from tau2.runner._request import RunRequest
from tau2.runs import (
    DAMAGED_FILE,
    MANIFEST_FILE,
    RESULTS_FILE,
    RunManifest,
    SimulationRecord,
    is_temporary,
    load_manifest,
    read_records,
    run_records,
    set_aside_damaged,
)
from tau2.tasks import (
    BASIS_IMPLIED_KEY,
    METADATA_KEY,
    Task,
    initialize_world,
    load_split,
    load_task_file,
    require_tickets,
)
from tau2.world import Domain, Side, get_domain

DEFAULTS: dict[str, Any] = {
    "domain": None,
    "task_ids": None,
    "persona_override": None,
    "trials": 1,
    "seed": 0,
    "concurrency": 32,
    "rate_limits": {},
}
"""A new run's values of the run options not given (a resumed run takes its manifest's)."""


_SHOWN_IDS = 5
"""How many task ids an unknown-id error lists."""


class PreparedRun(BaseModel):
    """Everything the executor needs, resolved and checked."""

    model_config = ConfigDict(frozen=True)

    run_dir: Path
    manifest: RunManifest
    tasks: dict[str, Task]
    """The selected tasks by id, with any persona override applied."""
    data_dir: Path | None
    previous: list[SimulationRecord]
    """Effective records already in the store (empty for a new run)."""
    units: list[Unit]
    warnings: list[str]
    stored: bool = False
    """Whether the run directory already holds this run's manifest (a resume)."""
    manifest_changed: bool = False
    """Whether a resume changed the stored manifest (added trials), so it is written again."""


def prepare_run(request: RunRequest, run_dir: Path, *, resume: bool) -> PreparedRun:
    """Resolve `request` for a new run in an empty `run_dir`, or for resuming the run stored there.

    Checks run cheapest first: the run directory, the options, the configuration against a stored one,
    and only then every task's initialisation and each seat's actor.
    """
    stored = _stored_manifest(run_dir) if resume else None
    if stored is None:
        _require_empty(run_dir)
    manifest, tasks = _resolve(request, stored)
    if stored is not None:
        changed = differences(stored, manifest)
        if changed:
            raise UserInputError(
                f"{run_dir}: cannot resume: the configuration differs in {'; '.join(changed)} "
                "(give the original options, or start a new run with another --out)"
            )
        if manifest.trials < stored.trials:
            raise UserInputError(
                f"{run_dir}: cannot resume with --trials {manifest.trials}: the run plans {stored.trials} "
                "(a resume may add trials, never remove them)"
            )
        # The stored configuration, with the secrets given now (they compare equal to the stored markers).
        given = {"agent": manifest.agent, "user": manifest.user, "judge": manifest.judge}
        manifest = stored.model_copy(update={"trials": manifest.trials, **given})
    data_dir = Path(manifest.data_dir) if manifest.data_dir is not None else None
    if manifest.mode is Mode.SOLO:
        require_tickets(list(tasks.values()))
    check_structure(list(tasks.values()))
    for task in tasks.values():
        initialize_world(task, data_dir)
    _check_actors(manifest)
    warnings = _solo_warnings(manifest.mode, request)
    previous: list[SimulationRecord] = []
    if stored is not None:
        previous = _stored_records(run_dir, manifest, warnings)
    return PreparedRun(
        run_dir=run_dir,
        manifest=manifest,
        tasks=tasks,
        data_dir=data_dir,
        previous=previous,
        units=pending_units(manifest.task_ids, manifest.trials, manifest.seed, previous),
        warnings=warnings,
        stored=stored is not None,
        manifest_changed=stored is not None and manifest.trials != stored.trials,
    )


def _stored_records(run_dir: Path, manifest: RunManifest, warnings: list[str]) -> list[SimulationRecord]:
    """A resumed run's effective records, after setting its damaged lines aside (warnings appended)."""
    results = run_dir / RESULTS_FILE
    records, read_warnings = read_records(results)  # refuses an invalid record before anything moves
    moved = set_aside_damaged(results)
    if moved:
        read_warnings = [
            f"{results}: set aside {moved} damaged line{'' if moved == 1 else 's'} in "
            f"{run_dir / DAMAGED_FILE}; their simulations run again"
        ]
    effective, excluded = run_records(manifest, records, results)
    warnings.extend([*read_warnings, *excluded])
    return effective


class EpisodeSetup(BaseModel):
    """One episode as `tau2 episode` asked for it, resolved and checked like a run's."""

    model_config = ConfigDict(frozen=True)

    task: Task
    config: EpisodeConfig
    agent: ActorSpec
    user: ActorSpec | None
    """None in solo mode."""
    judge: ModelSpec | None
    data_dir: Path | None
    warnings: list[str]


def prepare_episode(request: RunRequest, task_id: str) -> EpisodeSetup:
    """Resolve `request` for one episode of `task_id`, with the same defaults and checks as a run."""
    suite_path = _suite_path(request, None)
    tasks = _select(load_task_file(suite_path, request.domain), None)
    task = _find_task(tasks, task_id, suite_path)
    if request.persona is not None:
        (task,), _ = _with_persona([task], request.persona)
    config = request.episode_config().model_copy(update={"seed": request.seed})
    config = with_retrieval(get_domain(task.domain), config, request.data_dir)
    if config.mode is Mode.SOLO:
        require_tickets([task])
    check_structure([task])
    agent = request.agent.resolve(Side.AGENT, None)
    user = None if config.mode is Mode.SOLO else request.user.resolve(Side.USER, None)
    _policy(get_domain(task.domain), config.mode, config.policy_variant)
    warnings = _solo_warnings(config.mode, request)
    judge = request.judge.apply(None, "judge")
    check_credentials(agent.model, user.model if user else None, judge)
    return EpisodeSetup(
        task=task,
        config=config,
        agent=agent,
        user=user,
        judge=judge,
        data_dir=request.data_dir,
        warnings=warnings,
    )


def _find_task(tasks: list[Task], task_id: str, path: Path) -> Task:
    """The task called `task_id`, or a one-line `UserInputError` listing a few ids of the file."""
    for task in tasks:
        if task.id == task_id:
            return task
    shown = ", ".join(task.id for task in tasks[:_SHOWN_IDS])
    more = f", … ({len(tasks)} tasks)" if len(tasks) > _SHOWN_IDS else ""
    raise UserInputError(f"{path}: no task with id {task_id!r} (ids: {shown or 'none'}{more})")


def _solo_warnings(mode: Mode, request: RunRequest) -> list[str]:
    if mode is Mode.SOLO and request.user.given:
        return ["solo mode has no user seat: the --user options are ignored"]
    return []


def _stored_manifest(run_dir: Path) -> RunManifest:
    if not (run_dir / MANIFEST_FILE).is_file():
        unstarted = run_dir.is_dir() and all(is_temporary(path, MANIFEST_FILE) for path in run_dir.iterdir())
        hint = "; nothing is recorded there: run without --resume" if unstarted else ""
        raise UserInputError(f"{run_dir}: no run to resume ({MANIFEST_FILE} is missing{hint})")
    return load_manifest(run_dir)


def _require_empty(run_dir: Path) -> None:
    """Refuse a directory holding anything but temporaries of a manifest write that never finished (a
    kill or a full disk before the run began), which are removed."""
    if not run_dir.exists():
        return
    if not run_dir.is_dir():
        raise UserInputError(f"{run_dir}: not a directory; choose another --out")
    contents = list(run_dir.iterdir())
    if not all(is_temporary(path, MANIFEST_FILE) for path in contents):
        raise UserInputError(
            f"{run_dir}: not empty; add --resume to continue its run, or choose another --out"
        )
    for path in contents:
        path.unlink()


def _resolve(request: RunRequest, base: RunManifest | None) -> tuple[RunManifest, dict[str, Task]]:
    """The manifest `request` asks for, fields not given taken from `base` (or the defaults)."""
    fallback = DEFAULTS if base is None else base.model_dump()

    def pick(name: str, given: Any) -> Any:
        return fallback[name] if given is None else given

    episode = request.episode_config(None if base is None else base.episode)
    mode = episode.mode
    agent = request.agent.resolve(Side.AGENT, base.agent if base else None)
    user = _user_spec(request, mode, base)
    suite_path = _suite_path(request, base)
    suite_hash = _suite_hash(suite_path)
    tasks = _select(
        load_task_file(suite_path, pick("domain", request.domain)), _task_ids(request, suite_path, pick)
    )
    domain = get_domain(tasks[0].domain)
    data_dir = request.data_dir or (Path(base.data_dir) if base and base.data_dir else None)
    episode = with_retrieval(domain, episode, data_dir)
    persona: str | None = pick("persona_override", request.persona)
    hashes = prompt_hashes(agent, user, mode, talk_only=domain.single_control)
    if persona is not None:
        tasks, hashes["persona"] = _with_persona(tasks, persona)
    if data_dir is not None:
        hashes["data_dir"] = _data_hash(data_dir)
    policy = _run_policy(domain, episode, data_dir)
    if policy is not None:
        hashes["policy"] = sha256_text(policy)
    manifest = RunManifest(
        **(new_run_identity() if base is None else base.model_dump(include={"run_id", "created_at"})),
        suite_path=str(suite_path.resolve()),
        suite_hash=suite_hash,
        data_dir=None if data_dir is None else str(data_dir.resolve()),
        domain=domain.name,
        episode=episode,
        agent=agent,
        user=user,
        persona_override=persona,
        trials=pick("trials", request.trials),
        seed=pick("seed", request.seed),
        concurrency=pick("concurrency", request.concurrency),
        rate_limits=pick("rate_limits", request.rate_limits),
        versions=package_versions(),
        hashes=hashes,
        task_ids=[task.id for task in tasks],
        judge=request.judge.apply(base.judge if base else None, "judge"),
        reward_basis_source=reward_basis_source(tasks),
    )
    return manifest, {task.id: task for task in tasks}


def with_retrieval(domain: Domain[Any], episode: EpisodeConfig, data_dir: Path | None) -> EpisodeConfig:
    """`episode` with the retrieval configuration it runs under resolved (the domain's default when none
    was given) and checked, so it is recorded; a domain without a knowledge base takes none."""
    support = domain.retrieval
    if support is None:
        if episode.retrieval is not None:
            raise UserInputError(f"--retrieval: domain {domain.name!r} has no knowledge base")
        return episode
    config = support.resolve(episode.retrieval)
    support.configure(config, data_dir)  # refuses an unknown configuration or a missing package or embedder
    return episode.model_copy(update={"retrieval": config})


def _run_policy(domain: Domain[Any], episode: EpisodeConfig, data_dir: Path | None) -> str | None:
    """The agent's instructions as the manifest hashes them: the retrieval configuration's template, the
    data directory's policy, or the domain's own for the mode and variant."""
    if domain.retrieval is not None and episode.retrieval is not None:
        return domain.retrieval.policy(episode.retrieval, data_dir, None)
    return shipped_policy(domain, data_dir) or _policy(domain, episode.mode, episode.policy_variant)


def _task_ids(request: RunRequest, suite_path: Path, pick: Callable[[str, Any], Any]) -> list[str] | None:
    """The tasks asked for: `--task-ids`, or a τ²-bench split of the task file, or (None) all of them."""
    if request.split is None:
        ids: list[str] | None = pick("task_ids", request.task_ids)
        return ids
    if request.task_ids is not None:
        raise UserInputError("--split and --task-ids each choose tasks: give one of them")
    return load_split(suite_path, request.split)


def reward_basis_source(tasks: list[Task]) -> Literal["implied", "explicit"] | None:
    """How the tasks' reward basis was given: implied by an older τ²-bench file, written out, or neither."""
    if any(_as_dict(task.metadata.get(METADATA_KEY)).get(BASIS_IMPLIED_KEY) for task in tasks):
        return "implied"
    if any(task.evaluation.reward_basis is not None for task in tasks):
        return "explicit"
    return None


def _as_dict(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _suite_path(request: RunRequest, base: RunManifest | None) -> Path:
    if request.suite is not None:
        return request.suite
    if request.domain is not None:
        suite = get_domain(request.domain).default_suite
        if suite is None:
            raise UserInputError(
                f"--domain {request.domain}: the domain has no default suite; give --suite FILE"
            )
        return Path(suite)
    if base is not None:
        return Path(base.suite_path)
    raise UserInputError("no tasks: give --suite FILE or --domain NAME")


def _suite_hash(path: Path) -> str:
    """The hash of a suite or task file, or of every task file of a τ²-bench task folder."""
    if path.is_dir():
        return sha256_tree(path)
    return sha256_bytes(_read_suite(path))


def _read_suite(path: Path) -> bytes:
    """The suite's bytes; other `OSError`s (permissions) propagate with the path, for the command line to
    report as bad input or as the machine refusing."""
    try:
        return read_bytes_bounded(path)
    except FileNotFoundError:
        raise UserInputError(f"{path}: no such file") from None


def _select(tasks: list[Task], task_ids: list[str] | None) -> list[Task]:
    """The requested tasks in the requested order (all of them, in file order, when none are named)."""
    if not tasks:
        raise UserInputError("the suite has no tasks")
    domains = sorted({task.domain for task in tasks})
    if len(domains) > 1:
        raise UserInputError(f"the suite mixes domains ({', '.join(domains)}); a run covers one domain")
    if task_ids is None:
        return tasks
    by_id = {task.id: task for task in tasks}
    unknown = [task_id for task_id in task_ids if task_id not in by_id]
    if unknown:
        raise UserInputError(f"--task-ids: not in the suite: {', '.join(unknown)}")
    return [by_id[task_id] for task_id in task_ids]


def _with_persona(tasks: list[Task], name: str) -> tuple[list[Task], str]:
    """Tasks rewritten to play persona `name`, and a hash of the persona's text."""
    try:
        persona = load_persona(name)
    except PersonaError as error:
        raise UserInputError(f"--persona: {error}") from None
    text = persona.prompt_text
    rewritten = [
        task.model_copy(
            update={
                "persona": persona.label,
                "user_scenario": task.user_scenario.model_copy(update={"persona_text": text}),
            }
        )
        for task in tasks
    ]
    return rewritten, sha256_text(f"{persona.label}\x00{text or ''}")


def _policy(domain: Domain[Any], mode: Mode, variant: str) -> str | None:
    if domain.policy is None:
        return None
    try:
        return domain.policy(mode is Mode.SOLO, variant)
    except (KeyError, ValueError) as error:
        raise UserInputError(f"--policy-variant {variant!r}: {error}") from None


def _data_hash(data_dir: Path) -> str:
    if not data_dir.is_dir():
        raise UserInputError(f"--data-dir {data_dir}: not a directory")
    return sha256_tree(data_dir)


def _user_spec(request: RunRequest, mode: Mode, base: RunManifest | None) -> ActorSpec | None:
    if mode is Mode.SOLO:
        return None
    return request.user.resolve(Side.USER, base.user if base else None)


def _check_actors(manifest: RunManifest) -> None:
    """Build each seat's actor once, so a spec the actor refuses fails now rather than in every unit."""
    make_actor(manifest.agent, Side.AGENT, manifest.mode)
    if manifest.user is not None:
        make_actor(manifest.user, Side.USER, manifest.mode)
    check_credentials(manifest.agent.model, manifest.user.model if manifest.user else None, manifest.judge)


def check_credentials(agent: ModelSpec | None, user: ModelSpec | None, judge: ModelSpec | None) -> None:
    """Refuse, on one line naming the seat, a model whose key is missing (checked offline), or whose
    secrets a resumed run needs given again."""
    for seat, spec in (("agent", agent), ("user", user), ("judge", judge)):
        if spec is None:
            continue
        withheld = withheld_credentials(spec, seat)
        if withheld is not None:
            raise UserInputError(f"{seat} seat ({spec.name}): {withheld}")
        problem = missing_credentials(spec)
        if problem is not None:
            raise UserInputError(
                f"{seat} seat ({spec.name}): {problem}; set it, or give --{seat}-arg api_key=..."
            )
