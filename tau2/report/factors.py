"""What differs between two runs' configurations, and the comparison title that names it."""

from __future__ import annotations

import json
from typing import Final

from tau2.episode import ActorSpec
from tau2.report.schema import Factor
from tau2.runs import Run

_TITLE_FACTORS: Final = 3
_EXPLAINED_BY: Final = {
    "hash persona": {"persona"},
    "hash policy": {"mode", "policy", "domain", "retrieval"},
    "hash agent_prompt": {"mode", "agent"},
    "hash user_prompt": {"user"},
}
"""Hashes that necessarily differ when the named factors do; listing them too would only repeat those."""


def differing_factors(a: Run, b: Run, personas: tuple[set[str], set[str]] | None = None) -> list[Factor]:
    """Configuration fields (most telling first) whose values differ between A and B; `personas` are the
    personas A's and B's tasks carry, when already known (otherwise the runs' records are read for them)."""
    carried = personas or (_personas(a), _personas(b))
    fields = [
        ("mode", a.manifest.mode_label(), b.manifest.mode_label()),
        ("persona", persona_label(a, carried[0]), persona_label(b, carried[1])),
        ("agent", *_actor_labels(a.manifest.agent, b.manifest.agent)),
        *_user_field(a.manifest.user, b.manifest.user),
        ("suite", *_suite_labels(a, b)),
        ("domain", a.manifest.domain, b.manifest.domain),
        ("policy", a.manifest.episode.policy_variant, b.manifest.episode.policy_variant),
        ("retrieval", _retrieval_label(a), _retrieval_label(b)),
        ("judge", _judges_label(a), _judges_label(b)),
        ("trials", str(a.manifest.trials), str(b.manifest.trials)),
        ("seed", str(a.manifest.seed), str(b.manifest.seed)),
        ("max_steps", str(a.manifest.episode.max_steps), str(b.manifest.episode.max_steps)),
        ("max_errors", str(a.manifest.episode.max_errors), str(b.manifest.episode.max_errors)),
    ]
    differing = {name for name, va, vb in fields if va != vb}
    hashes = [
        field
        for field in _dict_fields("hash", a.manifest.hashes, b.manifest.hashes)
        if not differing & _EXPLAINED_BY.get(field[0], set())
    ]
    fields += [*hashes, *_dict_fields("version", a.manifest.versions, b.manifest.versions)]
    return [Factor(name=name, a=va, b=vb) for name, va, vb in fields if va != vb]


def _retrieval_label(run: Run) -> str:
    retrieval = run.manifest.episode.retrieval
    return "none" if retrieval is None else retrieval.label()


def _judges_label(run: Run) -> str:
    """The judges' models, the first (which decides the reward) first; `none` without a judge."""
    return " + ".join(judge.name for judge in run.manifest.config.judges) or "none"


def title(factors: list[Factor]) -> str:
    """E.g. `solo vs interactive` or `persona Easy vs Hard`; `replicate` when nothing differs."""
    if not factors:
        return "replicate (same configuration)"
    parts = [
        f"{f.a} vs {f.b}" if f.name == "mode" else f"{f.name} {f.a} vs {f.b}"
        for f in factors[:_TITLE_FACTORS]
    ]
    more = len(factors) - _TITLE_FACTORS
    return "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")


def persona_label(run: Run, personas: set[str]) -> str:
    """The persona override, else the personas the run's tasks carry (`none` when they carry none)."""
    if run.manifest.config.persona is not None:
        return run.manifest.config.persona
    return ", ".join(sorted(personas)) or "none"


def _personas(run: Run) -> set[str]:
    return {record.persona for record in run.records if record.persona is not None}


def _user_field(a: ActorSpec | None, b: ActorSpec | None) -> list[tuple[str, str, str]]:
    """The user seat, unless a solo run has none (the mode already says so)."""
    return [] if a is None or b is None else [("user", *_actor_labels(a, b))]


def _actor_labels(a: ActorSpec, b: ActorSpec) -> tuple[str, str]:
    """Labels, or every setting when the labels agree but the specs do not."""
    if a == b or a.label() != b.label():
        return a.label(), b.label()
    return _settings(a), _settings(b)


def _settings(spec: ActorSpec) -> str:
    """The model settings besides its name (sampling arguments, API base, timeouts)."""
    settings = {} if spec.model is None else spec.model.model_dump(mode="json", exclude={"name"})
    return json.dumps(settings, sort_keys=True)


def _suite_labels(a: Run, b: Run) -> tuple[str, str]:
    """Suite paths, or short hashes when the paths agree."""
    if a.manifest.suite_path != b.manifest.suite_path:
        return a.manifest.suite_path, b.manifest.suite_path
    return a.manifest.suite_hash[:12], b.manifest.suite_hash[:12]


def _dict_fields(prefix: str, a: dict[str, str], b: dict[str, str]) -> list[tuple[str, str, str]]:
    return [(f"{prefix} {key}", a.get(key, "-"), b.get(key, "-")) for key in sorted(a.keys() | b.keys())]


def side_labels(factors: list[Factor], run_a: str, run_b: str) -> tuple[str, str]:
    """Names for A and B in legends: the values of the first differing factor (e.g. `solo` and
    `interactive`, `persona Easy`), or the run ids when nothing differs."""
    if not factors:
        return run_a, run_b
    first = factors[0]
    if first.name == "mode":
        return first.a, first.b
    return f"{first.name} {first.a}", f"{first.name} {first.b}"
