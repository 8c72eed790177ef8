"""From a configuration to a ready run: tasks loaded and selected, persona applied, manifest built (or
checked against the stored one on resume), damaged results set aside and the pending units planned."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, PrivateAttr, SkipValidation

from tau2._jsonfile import read_bytes_bounded
from tau2.actors import make_actor
from tau2.config import ActorSpec, ConfigLayer, EpisodeConfig, Mode, ModelSpec, RunConfig, layered, source
from tau2.episode import check_structure, shipped_policy
from tau2.errors import UserInputError
from tau2.findings import RunFindings, lint_checks, user_checks
from tau2.llm import ModelCache, missing_credentials, withheld_credentials
from tau2.personas import PersonaError, load_persona
from tau2.perturbations import PerturbationSettings, perturbation_models, refuse_inapplicable
from tau2.runner._manifest import (
    data_hash,
    differences,
    judge_hash,
    new_run_identity,
    package_versions,
    prompt_hashes,
    prompt_versions,
    sha256_bytes,
    sha256_text,
    sha256_tree,
)
from tau2.runner._plan import Unit, UnitQueue, finished_units, planned_units
from tau2.runner._progress import Outcome
from tau2.runner._specs import resolved_model, resolved_models, resolved_seat
from tau2.runner._summary import latest_outcomes
from tau2.runs import (
    DAMAGED_FILE,
    MANIFEST_FILE,
    PYTHON,
    RESULTS_FILE,
    DirectoryWords,
    RecordFile,
    RunManifest,
    clear_unfinished_writes,
    index_run,
    is_temporary,
    load_manifest,
    set_aside_damaged,
    task_hashes,
)
from tau2.tasks import Domain, Task, get_domain, initialize_world, require_tickets, resolve_retrieval
from tau2.tau2bench import BASIS_IMPLIED_KEY, METADATA_KEY, load_split, load_task_file, task_folder_files
from tau2.world import Side

Layers = Sequence[ConfigLayer]
"""The settings given, lowest first (a configuration file, then command-line options)."""

_SHOWN_IDS = 5
"""How many task ids an unknown-id error lists."""


class PreparedRun(BaseModel):
    """Everything the executor needs, resolved and checked."""

    model_config = ConfigDict(frozen=True)

    run_dir: Path
    config: RunConfig
    """The configuration this session runs with, resolved like the manifest's; on resume, the settings
    that may change (concurrency, rate limits, executor) are as given now, not as stored."""
    manifest: RunManifest
    tasks: dict[str, Task]
    """The selected tasks by id, with any persona override applied."""
    previous: SkipValidation[list[Outcome]]
    """The outcomes of the effective records already in the store, in its order (empty for a new run): a
    few fields per unit, never the records themselves."""
    warnings: list[str]
    stored: bool = False
    """Whether the run directory already holds this run's manifest (a resume)."""
    manifest_changed: bool = False
    """Whether a resume changed the stored manifest (added trials), so it is written again."""
    _findings: RunFindings | None = PrivateAttr(default=None)

    def pending(self) -> UnitQueue:
        """The units without a finished record, trial by trial so early results cover every task, made
        one at a time as an executor takes them."""
        manifest = self.manifest
        finished = finished_units(self.previous)
        planned = planned_units(manifest.task_ids, manifest.trials, manifest.seed, finished)
        return UnitQueue(planned, len(manifest.task_ids) * manifest.trials - len(finished))

    @property
    def units(self) -> list[Unit]:
        """Every unit `pending` would hand out, as a list."""
        pending = self.pending()
        return [pending.take() for _ in range(len(pending))]

    @property
    def findings(self) -> RunFindings:
        """What the run records about each simulation as it is judged (the simulated-user checks, task
        defects), with its caches: made on first use, in each process that simulates."""
        if self._findings is None:
            self._findings = RunFindings(get_domain(self.manifest.domain), self.data_dir)
        return self._findings

    @property
    def data_dir(self) -> Path | None:
        """The data directory the tasks run on; None = the domain's own data."""
        return self.manifest.config.data_dir


def prepare_run(
    layers: Layers, run_dir: Path, *, resume: bool, words: DirectoryWords = PYTHON
) -> PreparedRun:
    """Resolve the settings `layers` give for a new run in an empty `run_dir` (over the defaults), or for
    resuming the run stored there (over its configuration); a refused directory says the ways on in the
    caller's `words`.

    Checks run cheapest first: the run directory, the settings, the configuration against a stored one,
    and only then every task's initialisation, each seat's actor and the checks every simulation gets.
    """
    stored = stored_manifest(run_dir, words) if resume else None
    if stored is None:
        _require_empty(run_dir, words)
    resolved = _resolve_settings(layered(layers, None if stored is None else stored.config), layers)
    manifest = _manifest(resolved, stored)
    config = manifest.config
    tasks = {task.id: task for task in resolved.tasks}
    if stored is not None:
        changed = differences(stored, manifest)
        if changed:
            raise UserInputError(
                f"{run_dir}: cannot resume: the configuration differs in {'; '.join(changed)} "
                f"(give the original settings, or start a new run: {words.elsewhere})"
            )
        if manifest.trials < stored.trials:
            raise UserInputError(
                f"{run_dir}: cannot resume with {source(layers, ('trials',))} {manifest.trials}: the run "
                f"plans {stored.trials} (a resume may add trials, never remove them)"
            )
        # The stored configuration, with the seats given now: their secrets compare equal to the stored
        # markers, and only the seats given now hold the values.
        seats = {
            "agent": config.agent,
            "user": config.user,
            "judge": config.judge,
            "extra_judges": config.extra_judges,
            "perturbations": config.perturbations,  # a paraphrasing model's secrets, given again
        }
        added = stored.config.model_copy(update={"trials": manifest.trials, **seats})
        manifest = stored.model_copy(update={"config": added})
    _check_resolved(resolved)
    lint_checks(), user_checks()  # a check plugin that does not load stops the run before it starts
    warnings = _solo_warnings(manifest.mode, layers)
    previous: list[Outcome] = []
    if stored is not None:
        previous = _stored_outcomes(run_dir, manifest, warnings)
    return PreparedRun(
        run_dir=run_dir,
        config=config,
        manifest=manifest,
        tasks=tasks,
        previous=previous,
        warnings=warnings,
        stored=stored is not None,
        manifest_changed=stored is not None and manifest.trials != stored.trials,
    )


def _stored_outcomes(run_dir: Path, manifest: RunManifest, warnings: list[str]) -> list[Outcome]:
    """The outcomes of a resumed run's effective records, read one record at a time, after setting its
    damaged lines aside (warnings appended)."""
    results = run_dir / RESULTS_FILE
    index = index_run(manifest, results)
    # every effective record is validated before anything moves: an invalid one refuses the resume
    outcomes = latest_outcomes(RecordFile(results, index.lines))
    moved = set_aside_damaged(results)
    if moved:
        warnings.append(
            f"{results}: set aside {moved} damaged line{'' if moved == 1 else 's'} in "
            f"{run_dir / DAMAGED_FILE}; their simulations run again"
        )
        warnings.extend(index.left_out)
    else:
        warnings.extend(index.warnings(results))
    return outcomes


class EpisodeSetup(BaseModel):
    """One episode as `tau2 episode` asked for it, resolved and checked like a run's."""

    model_config = ConfigDict(frozen=True)

    task: Task
    config: EpisodeConfig
    agent: ActorSpec
    user: ActorSpec | None
    """None in solo mode."""
    judge: ModelSpec | None
    extra_judges: list[ModelSpec] = []
    """Further judges, recorded beside the first (whose verdicts decide the reward)."""
    data_dir: Path | None
    warnings: list[str]

    @property
    def judges(self) -> list[ModelSpec]:
        """Every judge, the first first."""
        return [] if self.judge is None else [self.judge, *self.extra_judges]


def prepare_episode(layers: Layers, task_id: str, seed: int | None = None) -> EpisodeSetup:
    """Resolve the settings `layers` give for one episode of `task_id` with `seed`, the same way as a run's
    (the same defaults, and the same checks)."""
    resolved = _resolve_settings(layered(layers), layers, task_id=task_id)
    _check_resolved(resolved)
    return EpisodeSetup(
        task=resolved.tasks[0],
        config=resolved.episode.model_copy(update={"seed": seed}),
        agent=resolved.agent,
        user=resolved.user,
        judge=resolved.judge,
        extra_judges=resolved.extra_judges,
        data_dir=resolved.data_dir,
        warnings=_solo_warnings(resolved.mode, layers),
    )


def _find_task(tasks: list[Task], task_id: str, path: Path) -> Task:
    """The task called `task_id`, or a one-line `UserInputError` listing a few ids of the file."""
    for task in tasks:
        if task.id == task_id:
            return task
    shown = ", ".join(task.id for task in tasks[:_SHOWN_IDS])
    more = f", … ({len(tasks)} tasks)" if len(tasks) > _SHOWN_IDS else ""
    raise UserInputError(f"{path}: no task with id {task_id!r} (ids: {shown or 'none'}{more})")


def _solo_warnings(mode: Mode, layers: Layers) -> list[str]:
    """Solo mode has no user seat: say so when user settings were given anyway."""
    if mode is not Mode.SOLO:
        return []
    return [
        "solo mode has no user seat: "
        + ("the --user options are ignored" if layer.options else f"{layer.name(('user',))} is ignored")
        for layer in layers
        if layer.gives(("user",))
    ]


def stored_manifest(run_dir: Path, words: DirectoryWords = PYTHON) -> RunManifest:
    """The manifest of the run stored in `run_dir`; a directory holding none is one line saying so (and,
    when nothing is recorded there, how to start the run, in the caller's `words`)."""
    if not (run_dir / MANIFEST_FILE).is_file():
        unstarted = run_dir.is_dir() and all(is_temporary(path, MANIFEST_FILE) for path in run_dir.iterdir())
        hint = f"; nothing is recorded there: {words.fresh}" if unstarted else ""
        raise UserInputError(f"{run_dir}: no run to resume ({MANIFEST_FILE} is missing{hint})")
    return load_manifest(run_dir)


def _require_empty(run_dir: Path, words: DirectoryWords) -> None:
    """Refuse a directory holding anything but temporaries of a manifest write that never finished (a
    kill or a full disk before the run began), which are removed."""
    if not run_dir.exists():
        return
    if not run_dir.is_dir():
        raise UserInputError(f"{run_dir}: not a directory; {words.elsewhere}")
    clear_unfinished_writes(run_dir, MANIFEST_FILE, "run", words)


@dataclass(frozen=True)
class _Resolved:
    """The settings a run or an episode runs with, resolved one way for both: the seats checked and their
    transports resolved, the tasks loaded, selected and played as the persona, the retrieval configuration
    and the agent's instructions settled."""

    given: RunConfig
    """The settings as given (over the defaults)."""
    agent: ActorSpec
    user: ActorSpec | None
    """None in solo mode."""
    judge: ModelSpec | None
    extra_judges: list[ModelSpec]
    suite_path: Path
    suite_hash: str
    domain: Domain[Any]
    tasks: list[Task]
    """The selected tasks, as played (with the persona's override)."""
    task_hashes: dict[str, str]
    """The selected tasks' hashes as the file defines them (a persona override is hashed on its own)."""
    persona_hash: str | None
    episode: EpisodeConfig
    """The episode settings, with the retrieval configuration resolved."""
    policy: str | None
    """The agent's instructions (None: the domain has none)."""

    @property
    def mode(self) -> Mode:
        """Solo or interactive, as the episode settings say."""
        return self.episode.mode

    @property
    def data_dir(self) -> Path | None:
        """The data directory the tasks run on (None: the domain's own data)."""
        return self.given.data_dir


def _resolve_settings(config: RunConfig, layers: Layers, *, task_id: str | None = None) -> _Resolved:
    """Resolve `config` (the settings `layers` give, over a base): the tasks it chooses, or the one task
    `task_id` of its suite for an episode. Reads the suite and the settings only; `_check_resolved` does
    the costlier checks."""
    suite_path = _suite_path(config, layers)
    hashed_suite = suite_hash(suite_path)  # first: a missing file is one line naming it
    tasks = load_task_file(suite_path, config.domain, data_dir=config.data_dir)
    if task_id is None:
        tasks = _select(tasks, _task_ids(config, suite_path, layers), layers)
    else:
        tasks = [_find_task(_select(tasks, None, layers), task_id, suite_path)]
    domain = get_domain(tasks[0].domain)
    if config.data_dir is not None:
        _require_directory(config.data_dir, layers)
    agent = resolved_seat(config.agent, Side.AGENT, layers)
    user = None if config.mode is Mode.SOLO else resolved_seat(config.user, Side.USER, layers)
    episode = with_retrieval(domain, config.episode, config.data_dir, layers)
    hashed_tasks = task_hashes(tasks)
    persona_hash = None
    if config.persona is not None:
        tasks, persona_hash = _with_persona(tasks, config.persona, layers)
    return _Resolved(
        given=config,
        agent=agent,
        user=user,
        judge=resolved_model(config.judge),
        extra_judges=resolved_models(config.extra_judges),
        suite_path=suite_path,
        suite_hash=hashed_suite,
        domain=domain,
        tasks=tasks,
        task_hashes=hashed_tasks,
        persona_hash=persona_hash,
        episode=episode,
        policy=_run_policy(domain, episode, config.data_dir, layers),
    )


def _check_resolved(resolved: _Resolved) -> None:
    """What a run and an episode both check before anything runs: the model cache readable, the tasks fit
    for the mode, the perturbations for the domain, every task's world built, each seat's actor made and
    every model's key present."""
    given = resolved.given
    if given.cache is not None:
        ModelCache.open(given.cache)  # a cache this tau2 cannot read is refused before anything is written
    if resolved.mode is Mode.SOLO:
        require_tickets(resolved.tasks)
    check_structure(resolved.tasks)
    refuse_inapplicable(resolved.episode.perturbations, resolved.domain)
    for task in resolved.tasks:
        initialize_world(task, resolved.data_dir)
    make_actor(resolved.agent, Side.AGENT, resolved.mode)
    if resolved.user is not None:
        make_actor(resolved.user, Side.USER, resolved.mode)
    user_model = None if resolved.user is None else resolved.user.model
    check_credentials(resolved.agent.model, user_model, resolved.judge, resolved.extra_judges)
    _check_perturbation_credentials(resolved.episode.perturbations)


def _manifest(resolved: _Resolved, base: RunManifest | None) -> RunManifest:
    """The manifest of a run with the `resolved` settings, every hash taken, its paths absolute; the
    identity is `base`'s on resume."""
    config = resolved.given
    agent, user, domain, data_dir = resolved.agent, resolved.user, resolved.domain, resolved.data_dir
    hashes = prompt_hashes(agent, user, resolved.mode, talk_only=domain.single_control)
    if resolved.persona_hash is not None:
        hashes["persona"] = resolved.persona_hash
    if data_dir is not None:
        hashes["data_dir"] = sha256_tree(data_dir)
    if resolved.policy is not None:
        hashes["policy"] = sha256_text(resolved.policy)
    hashes["data"] = data_hash(domain, data_dir)
    judged = judge_hash([] if resolved.judge is None else [resolved.judge, *resolved.extra_judges])
    if judged is not None:
        hashes["judge"] = judged
    stored = config.model_copy(
        update={
            "suite": None if config.suite is None else config.suite.resolve(),
            "data_dir": None if data_dir is None else data_dir.resolve(),
            "agent": agent,
            "user": config.user if user is None else user,
            "judge": resolved.judge,
            "extra_judges": resolved.extra_judges,
            "retrieval": resolved.episode.retrieval,
        }
    )
    return RunManifest(
        **(new_run_identity() if base is None else base.model_dump(include={"run_id", "created_at"})),
        config=stored,
        suite_path=str(resolved.suite_path.resolve()),
        suite_hash=resolved.suite_hash,
        domain=domain.name,
        task_ids=[task.id for task in resolved.tasks],
        versions={**package_versions(), **prompt_versions(agent, user)},
        hashes=hashes,
        task_hashes=resolved.task_hashes,
        reward_basis_source=reward_basis_source(resolved.tasks),
    )


def with_retrieval(
    domain: Domain[Any], episode: EpisodeConfig, data_dir: Path | None, layers: Layers = ()
) -> EpisodeConfig:
    """`episode` with the retrieval configuration it runs under resolved (the domain's default when none
    was given) and checked, so it is recorded; a domain without a knowledge base takes none."""
    support = domain.retrieval
    if support is None:
        if episode.retrieval is not None:
            raise UserInputError(
                f"{source(layers, ('retrieval',))}: domain {domain.name!r} has no knowledge base"
            )
        return episode
    config = resolve_retrieval(domain, episode.retrieval)
    assert config is not None  # a domain with a knowledge base always has a default
    support.configure(config, data_dir)  # refuses an unknown configuration or a missing package or embedder
    return episode.model_copy(update={"retrieval": config})


def _run_policy(
    domain: Domain[Any], episode: EpisodeConfig, data_dir: Path | None, layers: Layers
) -> str | None:
    """The agent's instructions as the manifest hashes them: the retrieval configuration's template, the
    data directory's policy, or the domain's own for the mode and variant."""
    if domain.retrieval is not None and episode.retrieval is not None:
        return domain.retrieval.policy(episode.retrieval, data_dir, None)
    return shipped_policy(domain, data_dir) or _policy(domain, episode.mode, episode.policy_variant, layers)


def _task_ids(config: RunConfig, suite_path: Path, layers: Layers) -> list[str] | None:
    """The tasks asked for: task ids, or a τ²-bench split of the task file, or (None) all of them."""
    if config.split is None:
        return config.task_ids
    if config.task_ids is not None:
        raise UserInputError(
            f"{source(layers, ('split',))} and {source(layers, ('task_ids',))} each choose tasks: "
            "give one of them"
        )
    return load_split(suite_path, config.split)


def reward_basis_source(tasks: list[Task]) -> Literal["implied", "explicit"] | None:
    """How the tasks' reward basis was given: implied by an older τ²-bench file, written out, or neither."""
    if any(_as_dict(task.metadata.get(METADATA_KEY)).get(BASIS_IMPLIED_KEY) for task in tasks):
        return "implied"
    if any(task.evaluation.reward_basis is not None for task in tasks):
        return "explicit"
    return None


def _as_dict(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _suite_path(config: RunConfig, layers: Layers) -> Path:
    if config.suite is not None:
        return config.suite
    if config.domain is not None:
        suite = get_domain(config.domain).default_suite
        if suite is None:
            raise UserInputError(
                f"{source(layers, ('domain',))} {config.domain}: the domain has no default suite; "
                "give --suite FILE"
            )
        return Path(suite)
    raise UserInputError("no tasks: give --suite FILE or --domain NAME")


def suite_hash(path: Path) -> str:
    """The hash of a suite or task file, or of the task files of a τ²-bench task folder (nothing else
    below it is read; a folder without any is refused)."""
    if path.is_dir():
        return sha256_tree(path, task_folder_files(path))
    return sha256_bytes(_read_suite(path))


def _read_suite(path: Path) -> bytes:
    """The suite's bytes; other `OSError`s (permissions) propagate with the path, for the command line to
    report as bad input or as the machine refusing."""
    try:
        return read_bytes_bounded(path)
    except FileNotFoundError:
        raise UserInputError(f"{path}: no such file") from None


def _select(tasks: list[Task], task_ids: list[str] | None, layers: Layers) -> list[Task]:
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
        raise UserInputError(f"{source(layers, ('task_ids',))}: not in the suite: {', '.join(unknown)}")
    return [by_id[task_id] for task_id in task_ids]


def _with_persona(tasks: list[Task], name: str, layers: Layers) -> tuple[list[Task], str]:
    """Tasks rewritten to play persona `name`, and a hash of the persona's text."""
    try:
        persona = load_persona(name)
    except PersonaError as error:
        raise UserInputError(f"{source(layers, ('persona',))}: {error}") from None
    text = persona.prompt_text
    rewritten = [task.played_as(persona.label, text) for task in tasks]
    return rewritten, sha256_text(f"{persona.label}\x00{text or ''}")


def _policy(domain: Domain[Any], mode: Mode, variant: str, layers: Layers) -> str | None:
    if domain.policy is None:
        return None
    try:
        return domain.policy(mode is Mode.SOLO, variant)
    except (KeyError, ValueError) as error:
        raise UserInputError(f"{source(layers, ('policy_variant',))} {variant!r}: {error}") from None


def _require_directory(data_dir: Path, layers: Layers) -> None:
    if not data_dir.is_dir():
        raise UserInputError(f"{source(layers, ('data_dir',))} {data_dir}: not a directory")


def _check_perturbation_credentials(perturbations: Mapping[str, PerturbationSettings]) -> None:
    """Refuse, on one line naming the setting, a model a perturbation asks (a paraphrasing model) whose key
    is missing, or whose secrets a resumed run needs given again (they are never stored with a run)."""
    for where, spec in perturbation_models(perturbations):
        if withheld_credentials(spec, where) is not None:
            raise UserInputError(
                f"{where} ({spec.name}): its secrets are never stored with a run: give the configuration "
                "that sets them again"
            )
        problem = missing_credentials(spec)
        if problem is not None:
            raise UserInputError(f"{where} ({spec.name}): {problem}; set it, or give api_key in {where}.args")


def check_credentials(
    agent: ModelSpec | None,
    user: ModelSpec | None,
    judge: ModelSpec | None,
    extra_judges: Sequence[ModelSpec] = (),
) -> None:
    """Refuse, on one line naming the seat, a model whose key is missing (checked offline), or whose
    secrets a resumed run needs given again."""
    judges = [("judge", judge), *(("judge", spec) for spec in extra_judges)]
    for seat, spec in (("agent", agent), ("user", user), *judges):
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
