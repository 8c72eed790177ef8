"""The same model on the same τ²-bench telecom tasks in τ²-bench and in tau2, side by side.

Both frameworks run from their command lines against one OpenAI-compatible server (`--api-base`, `--model`),
with the same tasks (ours loads τ²-bench's own task file from `--telecom-dir`), trials, step limit, error
limit, temperature, seed and completion cap. τ²-bench runs in its own environment (`--tau2bench-python`:
its package is also called `tau2`, so it cannot share our interpreter). The script prints pass^k,
terminations by reason, turns per simulation, tokens per seat and wall time for each, and a paired
per-task table (both pass / only ours / only theirs / neither) with McNemar's exact test. It prints only;
nothing here asserts a time.

Run: `python benchmarks/compare_tau2bench.py --api-base http://127.0.0.1:8080/v1 --model openai/NAME
--tau2bench-python path/to/tau2bench-venv/bin/python --telecom-dir path/to/tau2-telecom [--tasks 10]
[--mode interactive|solo] [--trials 1] [--max-steps 30] [--keep DIR]`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from math import comb
from pathlib import Path
from statistics import mean, median
from typing import Any

from tau2.metrics import pass_hat_k
from tau2.runs import read_records

ROOT = Path(__file__).resolve().parents[1]
TELECOM = ROOT.parent / "shared" / "conformance" / "tau2-telecom"
"""τ²-bench's telecom small tasks and data, as the conformance data ships them (`--telecom-dir`)."""
OURS, THEIRS = "tau2", "τ²-bench"


@dataclass(frozen=True)
class Outcome:
    """One simulation as either framework recorded it, reduced to what the comparison prints."""

    task_id: str
    trial: int
    passed: bool
    termination: str
    turns: int
    seconds: float = 0.0
    """How long the simulation took, as the framework recorded it."""
    tokens: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Prompt and completion tokens per seat (agent, user)."""


@dataclass(frozen=True)
class Pairing:
    """Per (task, trial) agreement of the two frameworks, and McNemar's exact two-sided p-value."""

    both: list[str]
    only_ours: list[str]
    only_theirs: list[str]
    neither: list[str]
    unpaired: list[str]

    @property
    def p_value(self) -> float:
        """McNemar's exact test on the discordant pairs: a two-sided binomial test of b against b + c."""
        b, c = len(self.only_ours), len(self.only_theirs)
        n = b + c
        if n == 0:
            return 1.0
        tail = sum(comb(n, i) for i in range(min(b, c) + 1)) / 2**n
        return min(1.0, 2.0 * float(tail))


def ours_outcomes(results: Path) -> list[Outcome]:
    """Outcomes of a `tau2 run` results file: reward 1 passes; turns are the recorded actor steps."""
    records, _ = read_records(results)
    return [
        Outcome(
            task_id=record.task_id,
            trial=record.trial,
            passed=record.reward >= 1.0,
            termination=record.termination.value,
            turns=record.steps,
            seconds=record.duration_s,
            tokens={
                seat.value: (usage.prompt_tokens, usage.completion_tokens)
                for seat, usage in record.usage.items()
            },
        )
        for record in records
    ]


def theirs_outcomes(results: dict[str, Any], solo: bool) -> list[Outcome]:
    """Outcomes of a τ²-bench results file: reward 1 passes; turns are the agent and user messages less
    the fixed greeting of an interactive run (the actor turns, as ours counts them), and tokens are summed
    from each message's usage by its role."""
    simulations = results.get("simulations")
    if not isinstance(simulations, list):
        raise ValueError("τ²-bench results without a simulations list")
    outcomes = []
    for simulation in simulations:
        reward_info = simulation.get("reward_info") or {}
        reward = reward_info.get("reward")
        tokens: dict[str, list[int]] = {}
        turns = 0 if solo else -1
        for message in simulation.get("messages", []):
            role = message.get("role")
            if role not in ("assistant", "user"):
                continue
            turns += 1
            seat = "agent" if role == "assistant" else "user"
            usage = message.get("usage") or {}
            counts = tokens.setdefault(seat, [0, 0])
            counts[0] += int(usage.get("prompt_tokens") or 0)
            counts[1] += int(usage.get("completion_tokens") or 0)
        outcomes.append(
            Outcome(
                task_id=str(simulation["task_id"]),
                trial=int(simulation.get("trial") or 0),
                passed=reward is not None and float(reward) >= 1.0,
                termination=str(simulation.get("termination_reason")),
                turns=max(0, turns),
                seconds=float(simulation.get("duration") or 0.0),
                tokens={seat: (counts[0], counts[1]) for seat, counts in tokens.items()},
            )
        )
    return outcomes


def pair(ours: Iterable[Outcome], theirs: Iterable[Outcome]) -> Pairing:
    """Match simulations by (task, trial) and sort each pair by which side passed. A (task, trial) only one
    side has is listed as unpaired and left out of the test."""
    mine = {(o.task_id, o.trial): o.passed for o in ours}
    other = {(o.task_id, o.trial): o.passed for o in theirs}
    groups: dict[tuple[bool, bool], list[str]] = {
        key: [] for key in ((True, True), (True, False), (False, True), (False, False))
    }
    for key in sorted(mine.keys() & other.keys()):
        groups[(mine[key], other[key])].append(label(key))
    unpaired = [label(key) for key in sorted(mine.keys() ^ other.keys())]
    return Pairing(
        both=groups[(True, True)],
        only_ours=groups[(True, False)],
        only_theirs=groups[(False, True)],
        neither=groups[(False, False)],
        unpaired=unpaired,
    )


def label(key: tuple[str, int]) -> str:
    """A (task, trial) as one line of the paired table."""
    return f"{key[0]} #{key[1]}"


def pass_k(outcomes: Sequence[Outcome], k: int) -> float | None:
    """pass^k averaged over the tasks with at least k trials (None if no task has k)."""
    per_task: dict[str, list[bool]] = {}
    for outcome in outcomes:
        per_task.setdefault(outcome.task_id, []).append(outcome.passed)
    values = [pass_hat_k(len(runs), sum(runs), k) for runs in per_task.values() if len(runs) >= k]
    return mean(values) if values else None


def summary_rows(outcomes: Sequence[Outcome], wall: float | None, trials: int) -> list[tuple[str, str]]:
    """The printed measures of one framework's run, as (measure, value) rows (wall time None: unknown)."""
    rows = [("simulations", str(len(outcomes)))]
    for k in range(1, trials + 1):
        value = pass_k(outcomes, k)
        rows.append((f"pass^{k}", "–" if value is None else f"{value:.3f}"))
    endings = Counter(o.termination for o in outcomes)
    rows.append(("terminations", ", ".join(f"{reason} {count}" for reason, count in sorted(endings.items()))))
    turns = [o.turns for o in outcomes]
    if turns:
        rows.append(
            ("turns/sim mean · median · max", f"{mean(turns):.1f} · {median(turns):g} · {max(turns)}")
        )
    for seat in ("agent", "user"):
        prompt = sum(o.tokens.get(seat, (0, 0))[0] for o in outcomes)
        completion = sum(o.tokens.get(seat, (0, 0))[1] for o in outcomes)
        rows.append((f"{seat} tokens prompt / completion", f"{prompt:,} / {completion:,}"))
    if outcomes:
        seconds = [o.seconds for o in outcomes]
        rows.append(("seconds/sim mean · max", f"{mean(seconds):.0f} · {max(seconds):.0f}"))
    rows.append(("wall time", "–" if wall is None else f"{wall:.0f} s"))
    return rows


def print_side_by_side(ours: Sequence[tuple[str, str]], theirs: Sequence[tuple[str, str]]) -> None:
    """One markdown table: measure, ours, theirs (rows matched by measure name)."""
    theirs_by_name = dict(theirs)
    names = [name for name, _ in ours] + [name for name, _ in theirs if name not in dict(ours)]
    ours_by_name = dict(ours)
    print(f"| measure | {OURS} | {THEIRS} |\n|---|---|---|")
    for name in names:
        print(f"| {name} | {ours_by_name.get(name, '–')} | {theirs_by_name.get(name, '–')} |")


def print_comparison(
    ours: Sequence[Outcome],
    our_wall: float | None,
    theirs: Sequence[Outcome],
    their_wall: float | None,
    trials: int,
) -> None:
    """The side-by-side table and the paired per-task comparison."""
    print()
    print_side_by_side(summary_rows(ours, our_wall, trials), summary_rows(theirs, their_wall, trials))
    print_pairing(pair(ours, theirs))


def print_pairing(pairing: Pairing) -> None:
    """The paired counts, McNemar's p-value, and the discordant simulations by name."""
    print(
        f"\npaired by (task, trial): both pass {len(pairing.both)} · only {OURS} {len(pairing.only_ours)} · "
        f"only {THEIRS} {len(pairing.only_theirs)} · neither {len(pairing.neither)}"
        + (f" · unpaired {len(pairing.unpaired)}" if pairing.unpaired else "")
    )
    discordant = len(pairing.only_ours) + len(pairing.only_theirs)
    print(f"McNemar exact p = {pairing.p_value:.3f} (discordant pairs {discordant})")
    for title, names in ((f"only {OURS}", pairing.only_ours), (f"only {THEIRS}", pairing.only_theirs)):
        for name in names:
            print(f"  {title}: {name}")
    for name in pairing.unpaired:
        print(f"  unpaired: {name}")


def select_tasks(tasks_file: Path, task_ids: list[str] | None, count: int) -> list[str]:
    """The task ids to run: the given ones (each must be in the file), else the file's first `count`."""
    known = [str(task["id"]) for task in json.loads(tasks_file.read_text(encoding="utf-8"))]
    if task_ids:
        unknown = [task_id for task_id in task_ids if task_id not in known]
        if unknown:
            raise SystemExit(f"{tasks_file}: no task {unknown[0]!r}")
        return task_ids
    return known[:count]


@dataclass(frozen=True)
class Settings:
    """What both frameworks are given alike."""

    api_base: str
    model: str
    api_key: str
    mode: str
    trials: int
    max_steps: int
    max_errors: int
    temperature: float
    seed: int
    max_tokens: int | None
    timeout: float
    concurrency: int

    def model_args(self) -> dict[str, object]:
        """Provider arguments both frameworks pass to every model call."""
        args: dict[str, object] = {"temperature": self.temperature}
        if self.max_tokens is not None:
            args["max_tokens"] = self.max_tokens
        return args


def theirs_command(python: Path, settings: Settings, task_ids: list[str], out: Path) -> list[str]:
    """τ²-bench's `run` on its telecom tasks with these settings, saving to `out` (a .json path). A
    simulation its own code raises on (its solo agent raises on a text reply) is recorded as an agent error
    with reward 0 (`--skip-failed-samples`) instead of failing the whole run at its end."""
    args = json.dumps(
        {
            "api_base": settings.api_base,
            "api_key": settings.api_key,
            **settings.model_args(),
            "timeout": settings.timeout,
        }
    )
    solo = settings.mode == "solo"
    return [
        str(python), "-m", "tau2.cli", "run",
        "--domain", "telecom",
        "--task-set-name", "telecom",
        "--task-split-name", "small",
        "--task-ids", *task_ids,
        "--agent", "llm_agent_solo" if solo else "llm_agent",
        "--agent-llm", settings.model,
        "--agent-llm-args", args,
        "--user", "dummy_user" if solo else "user_simulator",
        "--user-llm", settings.model,
        "--user-llm-args", args,
        "--num-trials", str(settings.trials),
        "--max-steps", str(settings.max_steps),
        "--max-errors", str(settings.max_errors),
        "--max-concurrency", str(settings.concurrency),
        "--seed", str(settings.seed),
        "--results-dir", str(out.parent),
        "--save-to", out.stem,
        "--log-level", "ERROR",
        "--skip-failed-samples",
    ]  # fmt: skip


def ours_command(
    settings: Settings, telecom: Path, task_ids: list[str], transport: str, out: Path
) -> list[str]:
    """`tau2 run` on τ²-bench's own telecom task file with these settings, writing the run to `out`."""
    seats = []
    roles = ("agent",) if settings.mode == "solo" else ("agent", "user")
    for role in roles:
        seats += [
            f"--{role}",
            "llm",
            f"--{role}-model",
            settings.model,
            f"--{role}-api-base",
            settings.api_base,
        ]
        seats += [
            f"--{role}-arg",
            f"api_key={json.dumps(settings.api_key)}",
            f"--{role}-transport",
            transport,
        ]
        seats += [f"--{role}-timeout", str(settings.timeout)]
        for key, value in settings.model_args().items():
            seats += [f"--{role}-arg", f"{key}={json.dumps(value)}"]
    return [
        sys.executable, "-m", "tau2", "run",
        "--suite", str(telecom / "tasks_small.json"),
        "--data-dir", str(telecom),
        "--task-ids", ",".join(task_ids),
        "--mode", settings.mode,
        *seats,
        "--trials", str(settings.trials),
        "--max-steps", str(settings.max_steps),
        "--max-errors", str(settings.max_errors),
        "--seed", str(settings.seed),
        "--concurrency", str(settings.concurrency),
        "--quiet",
        "--out", str(out),
    ]  # fmt: skip


def start(command: list[str], log: Path, cwd: Path) -> subprocess.Popen[bytes]:
    """Start a framework's run with its output going to `log`, in `cwd` (away from this checkout, whose
    `tau2` package would shadow τ²-bench's own)."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENAI_API_KEY": "sk-local"}
    if command[0] != sys.executable:
        env.pop("PYTHONPATH", None)
    else:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    with log.open("wb") as handle:
        return subprocess.Popen(command, stdout=handle, stderr=subprocess.STDOUT, env=env, cwd=cwd)


def finish(name: str, process: subprocess.Popen[bytes], started: float, log: Path) -> float:
    """Wait for a run; its wall seconds, or exit naming the framework and the end of its log."""
    code = process.wait()
    wall = time.perf_counter() - started
    if code != 0:
        tail = log.read_text(encoding="utf-8", errors="replace")[-3000:]
        raise SystemExit(f"{name} exited {code} after {wall:.0f} s; the end of {log}:\n{tail}")
    return wall


def run_both(
    python: Path,
    telecom: Path,
    settings: Settings,
    task_ids: list[str],
    transport: str,
    keep: Path,
    at_once: bool,
) -> tuple[tuple[list[Outcome], float], tuple[list[Outcome], float]]:
    """Run both frameworks (one after the other, or both at once) and read their outcomes."""
    theirs_json = keep / "tau2bench.json"
    ours_dir = keep / "tau2-run"
    for existing in (theirs_json, ours_dir):
        if existing.exists():
            raise SystemExit(f"{existing}: already exists; give a new --keep directory")
    jobs = [
        (THEIRS, theirs_command(python, settings, task_ids, theirs_json), keep / "tau2bench.log"),
        (OURS, ours_command(settings, telecom, task_ids, transport, ours_dir), keep / "tau2.log"),
    ]
    walls: dict[str, float] = {}
    if at_once:
        begun = time.perf_counter()
        running = [(name, start(command, log, keep), log) for name, command, log in jobs]
        while len(walls) < len(running):  # each framework's wall time ends when it does, not when waited on
            for name, process, log in running:
                if name not in walls and process.poll() is not None:
                    walls[name] = finish(name, process, begun, log)
            time.sleep(0.5)
    else:
        for name, command, log in jobs:
            begun = time.perf_counter()
            walls[name] = finish(name, start(command, log, keep), begun, log)
            print(f"{name}: done in {walls[name]:.0f} s", flush=True)
    ours, theirs = read_both(keep, settings.mode == "solo")
    return (ours, walls[OURS]), (theirs, walls[THEIRS])


def read_both(keep: Path, solo: bool) -> tuple[list[Outcome], list[Outcome]]:
    """Both frameworks' outcomes from a `--keep` directory (what finished, if a run was cut short)."""
    ours = ours_outcomes(keep / "tau2-run" / "results.jsonl")
    theirs_json = keep / "tau2bench.json"
    if not theirs_json.exists():
        return ours, []
    return ours, theirs_outcomes(json.loads(theirs_json.read_text(encoding="utf-8")), solo)


def tau2bench_tasks_file(python: Path) -> Path:
    """Where τ²-bench's own telecom small task file is, asked of τ²-bench's interpreter."""
    script = (
        "from tau2.utils.utils import DATA_DIR; "
        "print(DATA_DIR / 'tau2' / 'domains' / 'telecom' / 'tasks_small.json')"
    )
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    found = subprocess.run(
        [str(python), "-c", script],
        capture_output=True,
        text=True,
        env=env,
        cwd=tempfile.gettempdir(),
        check=False,
    )
    if found.returncode != 0:
        raise SystemExit(f"{python}: cannot import τ²-bench: {found.stderr.strip().splitlines()[-1:]}")
    return Path(found.stdout.strip())


def same_tasks(ours_file: Path, theirs_file: Path, task_ids: list[str]) -> list[str]:
    """The selected ids whose task differs between our task file and τ²-bench's own (empty: the same)."""

    def by_id(path: Path) -> dict[str, object]:
        return {str(task["id"]): task for task in json.loads(path.read_text(encoding="utf-8"))}

    mine, other = by_id(ours_file), by_id(theirs_file)
    return [task_id for task_id in task_ids if mine.get(task_id) != other.get(task_id)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api-base", help="OpenAI-compatible API base, e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--model", help="model as litellm names it, e.g. openai/qwen2.5-1.5b")
    parser.add_argument(
        "--api-key", default="sk-local", help="key sent to the server (local servers ignore it)"
    )
    parser.add_argument("--tau2bench-python", type=Path, help="python of an environment with τ²-bench")
    parser.add_argument("--telecom-dir", type=Path, default=TELECOM, help="τ²-bench telecom tasks and data")
    parser.add_argument(
        "--task-ids", help="comma-separated task ids (default: the first --tasks of the file)"
    )
    parser.add_argument("--tasks", type=int, default=10, help="how many tasks without --task-ids")
    parser.add_argument("--mode", choices=["interactive", "solo"], default="interactive")
    parser.add_argument("--trials", type=int, default=1)
    parser.add_argument("--max-steps", type=int, default=30)
    parser.add_argument("--max-errors", type=int, default=10)
    parser.add_argument("--temperature", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=300)
    parser.add_argument(
        "--max-tokens", type=int, help="completion cap per model call (default: the server's)"
    )
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds one model request may take")
    parser.add_argument("--concurrency", type=int, default=1, help="simulations in flight in each framework")
    parser.add_argument("--transport", choices=["auto", "native", "litellm"], default="native")
    parser.add_argument("--at-once", action="store_true", help="run both frameworks at the same time")
    parser.add_argument(
        "--keep", type=Path, help="directory for both runs' outputs and logs (default: temporary)"
    )
    parser.add_argument(
        "--from", dest="from_dir", type=Path, help="print an earlier --keep directory's comparison"
    )
    options = parser.parse_args()
    if options.from_dir is not None:
        ours, theirs = read_both(options.from_dir, options.mode == "solo")
        print_comparison(ours, None, theirs, None, options.trials)
        return
    if options.api_base is None or options.model is None or options.tau2bench_python is None:
        parser.error("--api-base, --model and --tau2bench-python are needed to run (or give --from)")

    tasks_file = options.telecom_dir / "tasks_small.json"
    if not tasks_file.is_file():
        raise SystemExit(f"{tasks_file}: not found (give --telecom-dir, τ²-bench's telecom data)")
    ids = [item for item in (options.task_ids or "").split(",") if item] or None
    task_ids = select_tasks(tasks_file, ids, options.tasks)
    differing = same_tasks(tasks_file, tau2bench_tasks_file(options.tau2bench_python), task_ids)
    if differing:
        raise SystemExit(
            f"{tasks_file}: task {differing[0]!r} differs from τ²-bench's own; the runs would differ"
        )
    settings = Settings(
        api_base=options.api_base,
        model=options.model,
        api_key=options.api_key,
        mode=options.mode,
        trials=options.trials,
        max_steps=options.max_steps,
        max_errors=options.max_errors,
        temperature=options.temperature,
        seed=options.seed,
        max_tokens=options.max_tokens,
        timeout=options.timeout,
        concurrency=options.concurrency,
    )
    print(
        f"{options.model} at {options.api_base} · {len(task_ids)} telecom tasks × {options.trials} trials · "
        f"{options.mode} · max steps {options.max_steps} · temperature {options.temperature} · "
        f"seed {options.seed}" + (" · both frameworks at once" if options.at_once else ""),
        flush=True,
    )
    with tempfile.TemporaryDirectory() as scratch:
        keep = (options.keep or Path(scratch)).resolve()
        keep.mkdir(parents=True, exist_ok=True)
        telecom = options.telecom_dir.resolve()
        (ours, our_wall), (theirs, their_wall) = run_both(
            options.tau2bench_python, telecom, settings, task_ids, options.transport, keep, options.at_once
        )
        print_comparison(ours, our_wall, theirs, their_wall, options.trials)
        if options.keep:
            print(f"\noutputs: {keep}")


if __name__ == "__main__":
    main()
