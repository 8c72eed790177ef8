"""What differs between two runs' configurations, and the comparison title that names it."""

from __future__ import annotations

import json
from collections.abc import Callable
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


Personas = tuple[set[str], set[str]]
"""The personas run A's and run B's tasks carry."""
Labels = Callable[[Run, Run, Personas], list[tuple[str, str]]]
"""A factor's or setting's value in A and in B, as labels (none when it does not apply to the runs)."""


def _pair(read: Callable[[Run], object]) -> Labels:
    """The labels of a value read from each run alike."""
    return lambda a, b, _: [(str(read(a)), str(read(b)))]


FACTORS: Final[tuple[tuple[str, Labels], ...]] = (
    ("mode", _pair(lambda run: run.manifest.mode_label())),
    ("persona", lambda a, b, carried: [(persona_label(a, carried[0]), persona_label(b, carried[1]))]),
    ("agent", lambda a, b, _: [_actor_labels(a.manifest.agent, b.manifest.agent)]),
    ("user", lambda a, b, _: _user_labels(a.manifest.user, b.manifest.user)),
    ("policy", _pair(lambda run: run.manifest.episode.policy_variant)),
    ("retrieval", _pair(lambda run: _retrieval_label(run))),
    ("perturbation", _pair(lambda run: perturbation_label(run))),
)
"""The study factors: what a comparison, or an experiment's arms, varies on purpose — mode, persona, the
agent's and the user's actor and model, the policy variant, the retrieval configuration and the
perturbations. Runs that differ in them are compared, and the output names them ("runs differ in: mode").
A new factor is one more entry here."""
SETTINGS: Final[tuple[tuple[str, Labels], ...]] = (
    ("suite", lambda a, b, _: [_suite_labels(a, b)]),
    ("domain", _pair(lambda run: run.manifest.domain)),
    ("judge", _pair(lambda run: _judges_label(run))),
    ("judge_always", _pair(lambda run: run.manifest.config.judge_always)),
    ("trials", _pair(lambda run: run.manifest.trials)),
    ("seed", _pair(lambda run: run.manifest.seed)),
    ("max_steps", _pair(lambda run: run.manifest.episode.max_steps)),
    ("max_errors", _pair(lambda run: run.manifest.episode.max_errors)),
)
"""The other settings a comparison names when they differ, after the factors (whether a difference of
content makes the comparison meaningless is `tau2.runs.check_provenance`'s to say)."""


def differing_factors(a: Run, b: Run, personas: Personas | None = None) -> list[Factor]:
    """What differs between A's and B's configurations: the study factors (`FACTORS`), the other settings
    (`SETTINGS`), then the content hashes no differing factor explains and the versions; `personas` are
    the personas A's and B's tasks carry, when already known (otherwise the runs' records are read)."""
    carried = personas or (_personas(a), _personas(b))
    fields = [(name, va, vb) for name, labels in (*FACTORS, *SETTINGS) for va, vb in labels(a, b, carried)]
    differing = {name for name, va, vb in fields if va != vb}
    hashes = [
        field
        for field in _dict_fields("hash", a.manifest.hashes, b.manifest.hashes)
        if not differing & _EXPLAINED_BY.get(field[0], set())
    ]
    fields += [*hashes, *_dict_fields("version", a.manifest.versions, b.manifest.versions)]
    return [Factor(name=name, a=va, b=vb) for name, va, vb in fields if va != vb]


def differ_line(factors: list[Factor], what: str = "runs") -> str:
    """`runs differ in: mode` (`arms differ in: …` for an experiment), or that nothing differs."""
    if not factors:
        return f"{what} differ in nothing: the same configuration"
    return f"{what} differ in: {', '.join(factor.name for factor in factors)}"


def _retrieval_label(run: Run) -> str:
    retrieval = run.manifest.episode.retrieval
    return "none" if retrieval is None else retrieval.label()


def perturbation_label(run: Run) -> str:
    """The run's perturbations with their settings that differ from the kind's defaults, e.g.
    `tool_faults(rate=0.3, mode=persistent)`; `none` without any."""
    parts = []
    for name, settings in run.manifest.config.perturbations.items():
        given = settings.model_dump(mode="json", exclude_defaults=True)
        parts.append(f"{name}({', '.join(f'{key}={value}' for key, value in given.items())})")
    return " + ".join(parts) or "none"


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


def _user_labels(a: ActorSpec | None, b: ActorSpec | None) -> list[tuple[str, str]]:
    """The user seat, unless a solo run has none (the mode already says so)."""
    return [] if a is None or b is None else [_actor_labels(a, b)]


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
