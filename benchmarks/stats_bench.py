"""Reports, comparisons, pass^k and task files at scale: CPU and peak memory of whole commands, against
τ²-bench's own code where it does the same work.

Sections (`--sections`, comma-separated; all by default):
- `report`: run directories of `--shapes` (tasks × trials; 1k, 10k and 100k records by default) are written
  from two real offline runs of a τ²-bench task file (an oracle agent, whose simulations pass, and a null
  agent, whose simulations fail): each task gets a seeded chance of passing, and each (task, trial) takes
  the record of one run or the other. `tau2 report`, the same start-up and reading of the run alone, and
  `tau2 compare` (the run against a second run of the same shape and another seed; up to
  `--compare-max-records`) are timed as processes; with `--tau2bench-python`, the run is exported with
  `tau2 export tau2bench` (timed too) and τ²-bench's metrics
  (`Results.load` and `compute_metrics`) are timed on the same simulations (up to
  `--tau2bench-max-records`).
- `passk`: `tau2 report` of runs with many trials per task (`--trial-shapes`) against τ²-bench's metrics
  on the same records, and our pass^k curve and its intervals alone, in process.
- `tasks`: reading τ²-bench task files (`--task-files`) into tasks, ours against τ²-bench's loader.
- `experiment`: an experiment directory of two arms × `--experiment-records` records each is written from
  a real offline experiment (the shipped oracle-vs-transfer example, one trial), its records repeated as
  further trials; `tau2 experiment report DIR --json` and `tau2 compare` of its two arms are measured
  (CPU and peak memory: the bar is 300 MB at 2 × 50,000 records).
- `runs`: `tau2 report RUN --json` of existing run directories (`--runs`, e.g. a real 10,000-simulation
  run) against τ²-bench's metrics on the same simulations (exported as above), each measured
  `--repeat` times (the median is printed, with the ratio).
- `bar`: the report's CPU bar on every shape, each against τ²-bench's metrics on the same simulations:
  the telecom default suite run offline for `--bar-trials` trials (63: 10,017 simulations) with the
  oracle agent and with the null agent (every simulation fails at once), both again as records made
  before runs recorded their findings (the report audits those itself), and once more with every
  conversation made distinct (as a real model's are); with `--suite`, the synthetic 2,000 × 5 run of the
  `report` section; and one task × `--bar-trial-counts` trials (linear in trials: the cost per extra 1,000
  trials is printed). Each command runs `--repeat` times, ours and theirs alternating, after one untimed
  run of ours (bytecode compiled); medians printed. `--keep-reports DIR` keeps each `--json` report, to
  compare reports before and after a change.

Every figure is a separate process's user + system CPU and its peak resident memory (`os.wait4`), so
interpreter start-up and imports are included on both sides. Nothing here asserts a time.

Run: `python benchmarks/stats_bench.py --suite full.json --data-dir path/to/tau2-telecom
[--sections report,passk,tasks] [--shapes 250x4,2000x5,2000x50] [--tau2bench-python PATH] [--work DIR]`, or
`python benchmarks/stats_bench.py --sections runs --runs RUN [--tau2bench-python PATH] [--repeat 3]`, or
`python benchmarks/stats_bench.py --sections experiment [--experiment-records 50000] [--repeat 3]`, or
`python benchmarks/stats_bench.py --sections bar --tau2bench-python PATH [--suite full.json --data-dir
path/to/tau2-telecom] [--repeat 3] [--work DIR] [--keep-reports DIR]`.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import orjson

from tau2.metrics import Bootstrap, TaskOutcome, pass_hat_k_curve

ROOT = Path(__file__).resolve().parents[1]
TAU2 = [sys.executable, "-m", "tau2"]
"""The `tau2` command, run by this interpreter."""
TAU2BENCH_METRICS = """
import sys
from pathlib import Path
from tau2.data_model.simulation import Results
from tau2.metrics.agent_metrics import compute_metrics
metrics = compute_metrics(Results.load(Path(sys.argv[1])))
print({k: round(v, 4) for k, v in metrics.pass_hat_ks.items()})
"""
"""τ²-bench's metrics of a results file, as its `agent_metrics` module computes them."""
TAU2BENCH_IMPORTS = "\n".join(TAU2BENCH_METRICS.splitlines()[:5])
"""What τ²-bench's metrics import before reading anything."""
REPORT_IMPORTS = "import tau2.cli, tau2.cli.report, tau2.cli._report_sections, tau2.report"
"""What `tau2 report` imports before reading anything (with the interpreter's start-up, as for τ²-bench)."""
LOAD_TIMES = """
import statistics, sys, time
def timed(load, path):
    started = time.process_time()
    count = len(load(path))
    first = time.process_time() - started
    again = []
    for _ in range(5):
        started = time.process_time()
        load(path)
        again.append(time.process_time() - started)
    print(f"{count} {first} {statistics.median(again)}")
"""
"""Times a loader on a task file in the process that imported it: the first read, then the median of five."""
THEIR_LOADER = """
from tau2.domains.telecom.environment import load_tasks
timed(load_tasks, sys.argv[1])
"""
"""τ²-bench's loader of a task file (every domain reads its file so: each task validated into `Task`)."""
OUR_LOADER = """
from pathlib import Path
from tau2.tau2bench import load_task_file
from tau2.tasks import get_domain
get_domain(sys.argv[2])
timed(load_task_file, Path(sys.argv[1]))
"""
"""Our loader, with the domain pack its tasks name already imported (as τ²-bench's are at import)."""


READ_ONLY = """
import sys
from pathlib import Path
from tau2._jsonfile import collector_paused
import tau2.cli.report, tau2.report
from tau2.runs import fold_run
class Nothing:
    def add(self, head):
        pass
with collector_paused():
    fold_run(Path(sys.argv[1]), lambda manifest: Nothing())
"""
"""What `tau2 report` does besides its metrics: start-up (the same imports) and reading every record's
head as it does (one parse per line)."""


@dataclass(frozen=True)
class Usage:
    """What one process took: user + system CPU seconds, wall seconds and peak resident memory."""

    cpu_s: float
    wall_s: float
    peak_mb: float

    def __str__(self) -> str:
        return f"{self.cpu_s:7.2f} s CPU {self.wall_s:7.2f} s wall {self.peak_mb:7.0f} MB peak"


def measure(command: list[str], cwd: Path | None = None, output: Path | None = None) -> Usage:
    """Run a command that must succeed, its output discarded (or written to `output`), and return its own
    resource usage."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # bytecode is written and reused, as by any install
    started = time.perf_counter()
    with tempfile.TemporaryFile() as errors, (output or Path(os.devnull)).open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=errors, cwd=cwd, env=env)
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            errors.seek(0)
            raise RuntimeError(f"{' '.join(command[:4])} failed:\n{errors.read().decode()[-3000:]}")
    wall = time.perf_counter() - started
    return Usage(usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024)


def offline_run(suite: Path, data_dir: Path, agent: str, out: Path) -> Path:
    """One trial of every task of `suite` with an offline agent and the scripted user (kept if present)."""
    if not (out / "results.jsonl").exists():
        options = ["--data-dir", str(data_dir), "--agent", agent, "--user", "scripted", "--trials", "1"]
        subprocess.run([*TAU2, "run", "--suite", str(suite), *options, "-q", "--out", str(out)], check=True)
    return out


def synthetic_run(passing: Path, failing: Path, tasks: int, trials: int, seed: int, out: Path) -> Path:
    """A run directory of `tasks` × `trials` real records: each task passes with a chance drawn from a
    U-shaped Beta(0.6, 0.6) (most tasks reliable either way, some flaky), and each (task, trial) takes
    the passing or failing run's record of that task. Kept if present."""
    if (out / "results.jsonl").exists():
        return out
    out.mkdir(parents=True)
    manifest = orjson.loads((passing / "manifest.json").read_bytes())
    task_ids = manifest["task_ids"][:tasks]
    if len(task_ids) < tasks:
        raise SystemExit(f"the suite has {len(task_ids)} tasks, fewer than the {tasks} asked for")
    run_id = f"bench{seed}x{tasks}x{trials}"
    manifest.update(run_id=run_id, task_ids=task_ids)
    manifest["config"].update(trials=trials, seed=seed)
    (out / "manifest.json").write_bytes(orjson.dumps(manifest))
    lines = {name: _records_by_task(run) for name, run in (("pass", passing), ("fail", failing))}
    rng = random.Random(seed)
    with (out / "results.jsonl").open("wb") as results:
        for task_id in task_ids:
            chance = rng.betavariate(0.6, 0.6)
            for trial in range(trials):
                record = dict(lines["pass" if rng.random() < chance else "fail"][task_id])
                record.update(run_id=run_id, trial=trial, seed=rng.randrange(1 << 31))
                results.write(orjson.dumps(record) + b"\n")
    return out


def _records_by_task(run: Path) -> dict[str, dict[str, object]]:
    records = (orjson.loads(line) for line in (run / "results.jsonl").read_bytes().splitlines())
    return {str(record["task_id"]): record for record in records}


def exported(run: Path) -> Path:
    """The run as a τ²-bench results file (kept if present; written by `tau2 export tau2bench`, whose CPU
    and memory are printed when it runs)."""
    out = run.with_suffix(".tau2bench.json")
    if not out.exists():
        usage = measure([*TAU2, "export", "tau2bench", str(run), "-o", str(out)])
        print(f"  tau2 export tau2bench:            {usage}", flush=True)
    return out


def parse_shape(text: str) -> tuple[int, int]:
    tasks, trials = text.lower().split("x")
    return int(tasks), int(trials)


def report_section(options: argparse.Namespace, shapes: list[tuple[int, int]], compare: bool) -> None:
    """`tau2 report` (and `compare`) CPU and memory per shape, and τ²-bench's metrics on the same runs."""
    work: Path = options.work
    passing = offline_run(options.suite, options.data_dir, "oracle", work / "oracle")
    failing = offline_run(options.suite, options.data_dir, "null", work / "null")
    away = Path(tempfile.gettempdir())  # τ²-bench runs away from this checkout, whose `tau2` would shadow it
    for tasks, trials in shapes:
        records = tasks * trials
        run = synthetic_run(passing, failing, tasks, trials, 1, work / f"run-{tasks}x{trials}")
        print(f"{tasks:,} tasks × {trials:,} trials = {records:,} records", flush=True)
        for label, extra in (("default k", []), ("every k", ["--max-k", str(trials)])):
            if label == "every k" and trials <= options.default_max_k:
                continue
            usage = measure([*TAU2, "report", str(run), *extra])
            print(f"  tau2 report ({label}):          {usage}", flush=True)
        usage = measure([sys.executable, "-c", READ_ONLY, str(run)])
        print(f"  of which start-up and reading:    {usage}", flush=True)
        if compare and records <= options.compare_max_records:
            other = synthetic_run(passing, failing, tasks, trials, 2, work / f"run-{tasks}x{trials}-b")
            usage = measure([*TAU2, "compare", str(run), str(other)])
            print(f"  tau2 compare:                     {usage}", flush=True)
        if options.tau2bench_python is not None and records <= options.tau2bench_max_records:
            results = exported(run)
            theirs = measure([str(options.tau2bench_python), "-c", TAU2BENCH_METRICS, str(results)], away)
            print(f"  τ²-bench metrics:                 {theirs}", flush=True)


def passk_section(options: argparse.Namespace) -> None:
    """pass^k with many trials per task: our curve alone in process, then whole reports against τ²-bench."""
    bootstrap = Bootstrap()
    for tasks, trials in [parse_shape(shape) for shape in options.trial_shapes.split(",")]:
        rng = random.Random(0)
        outcomes = [
            TaskOutcome(
                task_id=f"t{i}",
                intent=None,
                subtasks=1,
                persona=None,
                mode="interactive",
                trials=trials,
                successes=sum(rng.random() < 0.9 for _ in range(trials)),
                excluded=0,
            )
            for i in range(tasks)
        ]
        for max_k in sorted({min(trials, options.default_max_k), trials}):
            started = time.process_time()
            pass_hat_k_curve(outcomes, max_k, bootstrap)
            spent = time.process_time() - started
            print(f"{tasks} × {trials} trials, pass^1..{max_k} with intervals: {spent:.3f} s CPU", flush=True)
    report_section(options, [parse_shape(shape) for shape in options.trial_shapes.split(",")], False)


def tasks_section(options: argparse.Namespace) -> None:
    """Reading τ²-bench task files into tasks, ours and τ²-bench's, in a process that has imported what it
    needs: the first read and the median of five more, in CPU seconds."""
    away = Path(tempfile.gettempdir())
    for item in options.task_files.split(","):
        domain, path = item.split("=", 1)
        file = Path(path).resolve()
        line = f"{domain} ({file.stat().st_size / 1e6:.1f} MB):"
        ours = subprocess.run(
            [sys.executable, "-c", LOAD_TIMES + OUR_LOADER, str(file), domain],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
        ).stdout.split()
        line += f" {ours[0]} tasks; tau2 first {float(ours[1]):.3f} s, then {float(ours[2]):.3f} s"
        if options.tau2bench_python is not None:
            theirs = subprocess.run(
                [str(options.tau2bench_python), "-c", LOAD_TIMES + THEIR_LOADER, str(file)],
                capture_output=True,
                text=True,
                check=True,
                cwd=away,
            ).stdout.split()
            line += f"; τ²-bench first {float(theirs[-2]):.3f} s, then {float(theirs[-1]):.3f} s"
        print(line, flush=True)


def experiment_section(options: argparse.Namespace) -> None:
    """`tau2 experiment report` and `tau2 compare` of a large synthetic experiment: CPU and peak memory."""
    directory = synthetic_experiment(options.work, options.experiment_records)
    arms = sorted(path.name for path in directory.iterdir() if path.is_dir())
    print(f"experiment of {len(arms)} arms × {options.experiment_records:,} records", flush=True)
    for _ in range(options.repeat):
        usage = measure([*TAU2, "experiment", "report", str(directory), "--json"])
        print(f"  tau2 experiment report --json:    {usage}", flush=True)
        usage = measure([*TAU2, "compare", *(str(directory / arm) for arm in arms), "--json"])
        print(f"  tau2 compare (the two arms):      {usage}", flush=True)


def synthetic_experiment(work: Path, records: int) -> Path:
    """An experiment directory whose two arms hold `records` records each: the shipped oracle-vs-transfer
    example run with one trial, each arm's records repeated as further trials (seeds kept paired). Kept if
    present."""
    small, out = work / "experiment-1", work / f"experiment-{records}"
    if not small.exists():
        example = ROOT / "docs" / "examples" / "oracle-vs-transfer.toml"
        text = example.read_text(encoding="utf-8").replace("trials = 2", "trials = 1")
        (work / "one-trial.toml").write_text(text, encoding="utf-8")
        subprocess.run(
            [*TAU2, "experiment", "run", str(work / "one-trial.toml"), "--out", str(small), "-q"], check=True
        )
    if (out / "experiment.json").exists():
        return out
    out.mkdir(parents=True)
    experiment = orjson.loads((small / "experiment.json").read_bytes())
    arms = [arm["name"] for arm in experiment["config"]["arms"]]
    tasks = len(orjson.loads((small / arms[0] / "manifest.json").read_bytes())["task_ids"])
    trials = -(-records // tasks)
    experiment["config"]["base"]["trials"] = trials
    (out / "experiment.json").write_bytes(orjson.dumps(experiment))
    for arm in arms:
        (out / arm).mkdir()
        manifest = orjson.loads((small / arm / "manifest.json").read_bytes())
        manifest["config"]["trials"] = trials
        (out / arm / "manifest.json").write_bytes(orjson.dumps(manifest))
        lines = [orjson.loads(line) for line in (small / arm / "results.jsonl").read_bytes().splitlines()]
        written = 0
        with (out / arm / "results.jsonl").open("wb") as results:
            for trial in range(trials):
                for record in lines:
                    if written == records:
                        break
                    results.write(
                        orjson.dumps({**record, "trial": trial, "seed": record["seed"] + trial}) + b"\n"
                    )
                    written += 1
    return out


def runs_section(options: argparse.Namespace) -> None:
    """`tau2 report --json` of existing runs against τ²-bench's metrics on the same simulations: the median
    of `--repeat` measurements of each."""
    away = Path(tempfile.gettempdir())
    for item in options.runs.split(","):
        run = Path(item).resolve()
        ours = median_usage([*TAU2, "report", str(run), "--json"], options.repeat)
        print(f"{run.name}: tau2 report --json:  {ours}", flush=True)
        if options.tau2bench_python is not None:
            metrics = [str(options.tau2bench_python), "-c", TAU2BENCH_METRICS, str(exported(run))]
            theirs = median_usage(metrics, options.repeat, away)
            print(f"{run.name}: τ²-bench metrics:    {theirs}", flush=True)
            print(f"{run.name}: τ²-bench / tau2 CPU: {theirs.cpu_s / ours.cpu_s:.2f}×", flush=True)


def median_usage(command: list[str], repeat: int, cwd: Path | None = None) -> Usage:
    """The measurement of median CPU among `repeat` runs of `command`."""
    usages = sorted((measure(command, cwd) for _ in range(repeat)), key=lambda usage: usage.cpu_s)
    return usages[len(usages) // 2]


def bar_section(options: argparse.Namespace) -> None:
    """`tau2 report --json` against τ²-bench's metrics on every shape of the report's CPU bar: the median of
    `--repeat` alternating measurements of each, the ratio of their CPU, and each one's peak memory."""
    with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as apart:
        shapes = apart.submit(bar_shapes, options).result()
    if options.keep_reports is not None:
        options.keep_reports.mkdir(parents=True, exist_ok=True)
    theirs_imports = [str(options.tau2bench_python), "-c", TAU2BENCH_IMPORTS]
    ours, theirs = alternating([sys.executable, "-c", REPORT_IMPORTS], theirs_imports, options.repeat)
    print(f"start-up (the imports of each):\n  tau2 report:         {ours}\n  τ²-bench metrics:    {theirs}")
    ours_by_shape: dict[str, Usage] = {}
    for label, run in shapes:
        kept = None if options.keep_reports is None else options.keep_reports / f"{run.name}.json"
        report = [*TAU2, "report", str(run), "--json"]
        measure(report, output=kept)  # untimed: compiles bytecode, warms the file cache
        metrics = [str(options.tau2bench_python), "-c", TAU2BENCH_METRICS, str(exported(run))]
        ours, theirs = alternating(report, metrics, options.repeat)
        ours_by_shape[label] = ours
        records = sum(1 for _ in (run / "results.jsonl").open("rb"))
        print(f"{label} ({records:,} records):", flush=True)
        print(f"  tau2 report --json:  {ours}", flush=True)
        print(f"  τ²-bench metrics:    {theirs}", flush=True)
        print(f"  τ²-bench / tau2 CPU: {theirs.cpu_s / ours.cpu_s:.2f}×", flush=True)
    counts = [int(count) for count in options.bar_trial_counts.split(",")]
    if len(counts) > 1:
        first, last = (ours_by_shape[f"1 task × {count:,} trials"] for count in (counts[0], counts[-1]))
        extra = (last.cpu_s - first.cpu_s) / (counts[-1] - counts[0]) * 1000
        print(f"1 task: {extra:.3f} s CPU per 1,000 trials beyond the first {counts[0]:,}", flush=True)


def bar_shapes(options: argparse.Namespace) -> list[tuple[str, Path]]:
    """The runs of the bar section, each with its label: written where absent (in a process of its own, so
    the records it reads never count in the peak memory of the commands this one starts)."""
    work: Path = options.work
    trials = options.bar_trials
    oracle = default_suite_run("oracle", trials, work / f"telecom-oracle-{trials}")
    null = default_suite_run("null", trials, work / f"telecom-null-{trials}")
    shapes = [
        ("oracle agent", oracle),
        ("null agent", null),
        ("oracle agent, records without findings", without_findings(oracle, work / f"{oracle.name}-old")),
        ("null agent, records without findings", without_findings(null, work / f"{null.name}-old")),
        (
            "oracle agent, records without findings, every conversation distinct",
            distinct_conversations(work / f"{oracle.name}-old", work / f"{oracle.name}-old-distinct"),
        ),
    ]
    if options.suite is not None and options.data_dir is not None:
        passing = offline_run(options.suite, options.data_dir, "oracle", work / "oracle")
        failing = offline_run(options.suite, options.data_dir, "null", work / "null")
        shapes.append(
            ("2,000 tasks × 5 trials", synthetic_run(passing, failing, 2000, 5, 1, work / "run-2000x5"))
        )
    one_task = [int(count) for count in options.bar_trial_counts.split(",")]
    for count in one_task:
        run = synthetic_run(oracle, null, 1, count, 1, work / f"run-1x{count}")
        shapes.append((f"1 task × {count:,} trials", run))
    return shapes


def alternating(ours: list[str], theirs: list[str], repeat: int) -> tuple[Usage, Usage]:
    """The median measurements (by CPU) of two commands run `repeat` times each, one after the other, so a
    change in the machine's load weighs on both alike. τ²-bench runs away from this checkout, whose `tau2`
    would shadow it."""
    away = Path(tempfile.gettempdir())
    runs: tuple[list[Usage], list[Usage]] = ([], [])
    for _ in range(repeat):
        runs[0].append(measure(ours))
        runs[1].append(measure(theirs, away))
    first, second = (sorted(side, key=lambda usage: usage.cpu_s)[repeat // 2] for side in runs)
    return first, second


def default_suite_run(agent: str, trials: int, out: Path) -> Path:
    """The telecom default suite run offline with `agent` and the scripted user (kept if present)."""
    if not (out / "results.jsonl").exists():
        options = ["--domain", "telecom", "--agent", agent, "--user", "scripted", "--trials", str(trials)]
        subprocess.run([*TAU2, "run", *options, "-q", "--out", str(out)], check=True)
    return out


def without_findings(run: Path, out: Path) -> Path:
    """The run's records as written before runs recorded their findings: without the simulated-user
    findings and task defects, which the report then works out itself (kept if present)."""
    return rewritten(run, out, lambda record, _: record)


def distinct_conversations(run: Path, out: Path) -> Path:
    """The run's records, each conversation made unlike every other (its first agent message numbered), as
    a real model's conversations are: an offline agent and user say the same in every trial of a task."""

    def numbered(record: dict[str, object], number: int) -> dict[str, object]:
        trajectory = record.get("trajectory")
        if isinstance(trajectory, dict) and trajectory["entries"]:
            first = trajectory["entries"][0]
            first["text"] = f"{first['text']} (conversation {number})"
        return record

    return rewritten(run, out, numbered)


def rewritten(run: Path, out: Path, change: Callable[[dict[str, object], int], dict[str, object]]) -> Path:
    """A copy of a run directory with every record changed by `change` (given its line's number) and
    stripped of recorded findings (kept if present)."""
    if (out / "results.jsonl").exists():
        return out
    out.mkdir(parents=True)
    (out / "manifest.json").write_bytes((run / "manifest.json").read_bytes())
    with (run / "results.jsonl").open("rb") as lines, (out / "results.jsonl").open("wb") as results:
        for number, line in enumerate(lines):
            record = orjson.loads(line)
            record.pop("user_findings", None)
            record.pop("task_defects", None)
            results.write(orjson.dumps(change(record, number)) + b"\n")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sections", default="report,passk,tasks")
    parser.add_argument("--suite", type=Path, help="a τ²-bench task file whose tasks the runs use")
    parser.add_argument("--data-dir", type=Path, help="the data directory of the suite's domain")
    parser.add_argument("--shapes", default="250x4,2000x5,2000x50", help="tasks×trials of the report runs")
    parser.add_argument("--trial-shapes", default="1x10000,5x1600", help="tasks×trials of the pass^k runs")
    parser.add_argument("--task-files", default="", help="DOMAIN=FILE,… τ²-bench task files to read")
    parser.add_argument("--tau2bench-python", type=Path, help="python of an environment with τ²-bench")
    parser.add_argument("--tau2bench-max-records", type=int, default=30_000)
    parser.add_argument(
        "--compare-max-records", type=int, default=100_000, help="compare runs only up to this size"
    )
    parser.add_argument("--default-max-k", type=int, default=8)
    parser.add_argument("--runs", default="", help="RUN,… existing run directories for the runs section")
    parser.add_argument("--experiment-records", type=int, default=50_000, help="records per arm (experiment)")
    parser.add_argument("--repeat", type=int, default=3, help="measurements per command in the runs section")
    parser.add_argument("--work", type=Path, help="where run directories are kept (default: a temporary one)")
    parser.add_argument("--bar-trials", type=int, default=63, help="trials of the default-suite runs (bar)")
    parser.add_argument("--bar-trial-counts", default="1000,10000", help="trials of the one-task runs (bar)")
    parser.add_argument("--keep-reports", type=Path, help="a directory to keep each report in (bar)")
    options = parser.parse_args()
    sections = set(options.sections.split(","))
    with tempfile.TemporaryDirectory() as scratch:
        options.work = (options.work or Path(scratch)).resolve()
        if sections & {"report", "passk"} and (options.suite is None or options.data_dir is None):
            parser.error("the report and passk sections need --suite and --data-dir")
        if "report" in sections:
            report_section(options, [parse_shape(shape) for shape in options.shapes.split(",")], True)
        if "passk" in sections:
            passk_section(options)
        if "tasks" in sections and options.task_files:
            tasks_section(options)
        if "runs" in sections and options.runs:
            runs_section(options)
        if "experiment" in sections:
            experiment_section(options)
        if "bar" in sections:
            if options.tau2bench_python is None:
                parser.error("the bar section needs --tau2bench-python")
            bar_section(options)


if __name__ == "__main__":
    main()
