"""What a score rests on: the content hash of a task, the provenance a record carries (its task's hash and
the run-wide hashes it was scored against), and which of those differ between runs that are compared."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from typing import Final

from pydantic import BaseModel, ConfigDict

from tau2.runs._manifest import RunManifest
from tau2.tasks import Task
from tau2.tau2bench import BASIS_IMPLIED_KEY, METADATA_KEY

REFUSING: Final = ("data",)
"""The run-wide hash kinds whose difference makes two runs' scores incomparable (besides their tasks'
content and their domain): the domain's starting database. Every other hash (policy, prompts, persona,
judge, data directory) follows a setting that comparisons vary on purpose, and is reported as a factor."""
_SHOWN: Final = 8
"""How many differing task ids one line names."""


def task_hash(task: Task) -> str:
    """`sha256:<hex>` of the task's canonical content as its file defines it (a run's persona override is
    hashed on its own, so persona ablations compare): every field as JSON, keys sorted, so equal tasks
    hash equal whatever order their file wrote keys in, and any change of content changes the hash. The
    one thing left out is the note that an older τ²-bench file implied the reward basis: the basis itself
    is hashed, and how the file spelled it does not change the task."""
    content = task.model_dump(mode="json")
    foreign = content["metadata"].get(METADATA_KEY)
    if isinstance(foreign, dict) and BASIS_IMPLIED_KEY in foreign:
        kept = {key: value for key, value in foreign.items() if key != BASIS_IMPLIED_KEY}
        content["metadata"] = {
            key: value for key, value in content["metadata"].items() if key != METADATA_KEY
        }
        if kept:
            content["metadata"][METADATA_KEY] = kept
    text = json.dumps(content, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def task_hashes(tasks: Iterable[Task]) -> dict[str, str]:
    """Each task's content hash, by task id (each task hashed once)."""
    return {task.id: task_hash(task) for task in tasks}


class Provenance(BaseModel):
    """The hashes one record was scored against, so a record read on its own says which task version,
    policy, data, simulated-user prompt and judge stand behind its reward. The run-wide values repeat the
    manifest's (`hashes`, `versions`); the task's is the manifest's `task_hashes` entry."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    """The task's content hash (`task_hash`)."""
    policy: str | None = None
    """The hash of the policy text the agent was given; None for domains without a policy."""
    data: str | None = None
    """The hash of the domain's starting database as loaded (from the data directory or the pack's own)."""
    user_prompt: str | None = None
    """The hash of the simulated user's prompt template; None for kinds without a prompt (scripted) or in
    solo mode."""
    user_prompt_version: str | None = None
    """The version of that prompt, as its actor kind names it."""
    judge: str | None = None
    """The hash of the judge models' settings (names and arguments, secrets left out); None without one."""
    tau2: str | None = None
    """The tau2 version that scored the record."""


def record_provenance(manifest: RunManifest, task_id: str) -> Provenance | None:
    """The provenance a record of `task_id` in the run of `manifest` carries; None for runs made before
    manifests held task hashes (their provenance is unknown)."""
    hashed = manifest.task_hashes.get(task_id)
    if hashed is None:
        return None
    hashes, versions = manifest.hashes, manifest.versions
    return Provenance(
        task=hashed,
        policy=hashes.get("policy"),
        data=hashes.get("data"),
        user_prompt=hashes.get("user_prompt"),
        user_prompt_version=versions.get("user_prompt"),
        judge=hashes.get("judge"),
        tau2=versions.get("tau2"),
    )


class ProvenanceCheck(BaseModel):
    """Whether runs to be compared rest on the same content: the differences that make a comparison
    meaningless (another domain, other task content, other domain data), and notes (runs whose provenance
    is unknown)."""

    model_config = ConfigDict(frozen=True)

    mismatches: list[str]
    """One clause per difference that refuses the comparison, naming the runs and the tasks or hashes."""
    notes: list[str]


def check_provenance(manifests: Sequence[RunManifest]) -> ProvenanceCheck:
    """The one rule of what runs may be compared, shared by `tau2 compare` and `tau2 experiment report`:
    every run against the first, a mismatch when they are of different domains, when a task both ran has
    other content, or when the domain's starting data differs (`REFUSING`). What else differs — mode,
    persona, seats, policy, retrieval — is what comparisons are for, and is not checked here. Runs made
    before manifests held task hashes are compared as they are, with a note that their provenance is
    unknown."""
    mismatches: list[str] = []
    notes: list[str] = [
        f"run {manifest.run_id}: provenance unknown (made before runs recorded content hashes); "
        "compared as is"
        for manifest in manifests
        if not manifest.task_hashes
    ]
    base, *others = manifests
    for other in others:
        pair = f"runs {base.run_id} and {other.run_id}"
        if base.domain != other.domain:
            mismatches.append(f"{pair} are of different domains ({base.domain} vs {other.domain})")
            continue
        if not (base.task_hashes and other.task_hashes):
            continue
        changed = _changed_tasks(base, other)
        if changed:
            shown = ", ".join(changed[:_SHOWN]) + (", …" if len(changed) > _SHOWN else "")
            count = _count(len(changed), "task")
            mismatches.append(f"task content differs between {pair} for {count} ({shown})")
        for kind in REFUSING:
            before, after = base.hashes.get(kind), other.hashes.get(kind)
            if before is not None and after is not None and before != after:
                mismatches.append(
                    f"domain {kind} differs between {pair} ({_digest(before)} vs {_digest(after)})"
                )
    return ProvenanceCheck(mismatches=mismatches, notes=notes)


def _changed_tasks(base: RunManifest, other: RunManifest) -> list[str]:
    """The tasks both runs ran whose content hashes differ, in the first run's order."""
    theirs = other.task_hashes
    return [
        task_id
        for task_id, hashed in base.task_hashes.items()
        if task_id in theirs and theirs[task_id] != hashed
    ]


def _digest(value: str | None) -> str:
    """The first hex digits of a `sha256:` hash, or `none`."""
    return "none" if value is None else value.removeprefix("sha256:")[:12]


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
