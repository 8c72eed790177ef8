"""Building a run's manifest (configuration, provenance: versions, hashes) and comparing it with a stored
one."""

from __future__ import annotations

import hashlib
import json
import platform
import uuid
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel

from tau2._distribution import installed_version
from tau2.actors import actor_kind
from tau2.episode import ActorSpec, Mode
from tau2.llm import REDACTED, ModelSpec
from tau2.runs import RunManifest
from tau2.tasks import Domain
from tau2.world import Side, World

PACKAGES: Final = ("litellm", "pydantic", "rich", "typer")
"""Packages whose versions every manifest records (with Python's and tau2's own)."""
LATER_HASHES: Final = frozenset({"data", "judge"})
"""Hashes manifests hold since runs recorded what their scores rest on: a manifest made before lacks them,
and resuming its run compares the rest."""


def _shaping(manifest: RunManifest) -> dict[str, Any]:
    """What a resume must find unchanged, in the order differences are listed: the settings and the
    provenance that shape results. The rest identifies or describes the run: its id and creation time,
    the suite's and data directory's paths (compared by hash, so they may move), the versions, the
    concurrency, rate limits and executor (which may be given anew), the trials (which may be added, as
    `prepare_run` checks itself), and the domain, tasks and split as given (compared as resolved)."""
    return {
        "suite_hash": manifest.suite_hash,
        "domain": manifest.domain,
        "episode": manifest.episode,
        "agent": manifest.agent,
        "user": manifest.user,
        "persona_override": manifest.config.persona,  # named as before: `persona` is the text's hash
        "seed": manifest.seed,
        "hashes": manifest.hashes,
        "task_ids": manifest.task_ids,
        "judge": manifest.config.judge,
        "extra_judges": manifest.config.extra_judges,
        "reward_basis_source": manifest.reward_basis_source,
    }


def sha256_bytes(data: bytes) -> str:
    """`sha256:<hex>` of `data`."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    """`sha256:<hex>` of `text` encoded as UTF-8."""
    return sha256_bytes(text.encode())


def sha256_tree(root: Path, files: Iterable[Path] | None = None) -> str:
    """One hash over `files` below `root` (default: every regular file below it): relative paths and
    contents, in sorted path order."""
    digest = hashlib.sha256()
    for path in sorted(item for item in (root.rglob("*") if files is None else files) if item.is_file()):
        digest.update(path.relative_to(root).as_posix().encode() + b"\x00")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return "sha256:" + digest.hexdigest()


def package_versions(packages: Iterable[str] = PACKAGES) -> dict[str, str]:
    """Installed versions of `packages` (missing ones left out), plus Python's and, under `tau2`, that of
    this distribution (left out when it runs uninstalled)."""
    versions = {"python": platform.python_version()}
    own = installed_version()
    if own is not None:
        versions["tau2"] = own
    for name in packages:
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            continue
    return versions


def prompt_hashes(
    agent: ActorSpec, user: ActorSpec | None, mode: Mode, *, talk_only: bool = False
) -> dict[str, str]:
    """Hashes of the system-prompt templates the run's seats use (kinds without prompts have none);
    `talk_only`: the domain's customer holds no tools."""
    hashes: dict[str, str] = {}
    for seat, spec in ((Side.AGENT, agent), (Side.USER, user)):
        template = None if spec is None else actor_kind(spec.kind).prompt_template
        if template is not None:
            hashes[f"{seat.value}_prompt"] = sha256_text(template(seat, mode, talk_only))
    return hashes


def prompt_versions(agent: ActorSpec, user: ActorSpec | None) -> dict[str, str]:
    """The versions of the prompt templates the run's seats use, named like their hashes (kinds that
    version no prompt have none)."""
    versions: dict[str, str] = {}
    for seat, spec in ((Side.AGENT, agent), (Side.USER, user)):
        version = None if spec is None else actor_kind(spec.kind).prompt_version
        if version is not None:
            versions[f"{seat.value}_prompt"] = version
    return versions


def data_hash(domain: Domain[Any], data_dir: Path | None) -> str:
    """The hash of the domain's starting database as loaded from `data_dir` (None: the pack's own data):
    the state's JSON, so the same data hashes the same wherever it lies and whichever files hold it."""
    return sha256_bytes(World.create(domain, data_dir).snapshot())


def judge_hash(judges: Sequence[ModelSpec]) -> str | None:
    """The hash of the judge models' settings that shape verdicts (name, server, arguments), in order,
    secrets left out (a key given or not hashes the same); None without a judge."""
    if not judges:
        return None
    settings = [
        _without_secrets(judge.model_dump(mode="json", include={"name", "api_base", "args"}))
        for judge in judges
    ]
    return sha256_text(json.dumps(settings, sort_keys=True, ensure_ascii=False, separators=(",", ":")))


def _without_secrets(value: Any) -> Any:
    """`value` (dumped settings) without the entries whose value is a redacted secret, at any depth."""
    if isinstance(value, dict):
        return {key: _without_secrets(item) for key, item in value.items() if item != REDACTED}
    if isinstance(value, list):
        return [_without_secrets(item) for item in value]
    return value


def new_run_identity() -> dict[str, Any]:
    """The identity fields of a new manifest: a random run id and the creation time (UTC)."""
    return {"run_id": uuid.uuid4().hex[:12], "created_at": datetime.now(UTC)}


def differences(stored: RunManifest, requested: RunManifest) -> list[str]:
    """Settings that shape results and differ between two manifests, each as `name (old → new)`."""
    found: list[str] = []
    old, new = _shaping(stored), _shaping(requested)
    for name in old:
        _compare(name, old[name], new[name], found)
    return found


def _compare(name: str, old: Any, new: Any, found: list[str]) -> None:
    """Append the differences between `old` and `new` to `found`, naming nested fields with dots."""
    if old == new:
        return
    if isinstance(old, BaseModel) and type(old) is type(new):
        for field in type(old).model_fields:
            _compare(f"{name}.{field}", getattr(old, field), getattr(new, field), found)
    elif _models(old) and _models(new) and len(old) == len(new):
        for index, (before, after) in enumerate(zip(old, new, strict=True)):
            _compare(f"{name}.{index}", before, after, found)
    elif name == "hashes":
        for key in sorted(set(old) | set(new)):
            if key in LATER_HASHES and key not in old:
                continue
            if old.get(key) != new.get(key):
                found.append(f"{key} ({_digest(old.get(key))} → {_digest(new.get(key))})")
    else:
        found.append(f"{name} ({_show(old)} → {_show(new)})")


def _models(value: Any) -> bool:
    """Whether `value` is a list of models (a run's further judges), compared item by item."""
    return isinstance(value, list) and all(isinstance(item, BaseModel) for item in value)


def _digest(value: str | None) -> str:
    """The first hex digits of a `sha256:` hash, or `none`."""
    return "none" if value is None else value.removeprefix("sha256:")[:12]


def _show(value: Any) -> str:
    """A short printable form of a manifest value."""
    if value and _models(value) and all(isinstance(getattr(item, "name", None), str) for item in value):
        return ", ".join(item.name for item in value)  # models by their names: a run's further judges
    if isinstance(value, list):
        return f"{len(value)} items"
    if isinstance(value, BaseModel):
        return json.dumps(value.model_dump(mode="json"))
    return json.dumps(value) if isinstance(value, dict) else str(value)
