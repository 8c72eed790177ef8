"""τ²-bench results files mutated at random, imported: each is refused with one line on stderr and exit 2
(no run directory left behind), or becomes a run its own reader reads and every reading command finishes
on: `report` (terminal, JSON and HTML), `view`, and an export that imports again with the same rewards.

The files start from exported offline runs (mock domain, interactive and solo) and, with the τ²-bench data
beside the repository, from the airline and retail files τ²-bench itself scored and a banking file built
from its reference trajectories. Mutations replace a
value anywhere in the document (numbers JSON has no room for, huge, negative and fractional numbers,
other types, a list nested 300 deep, hostile text), remove a field, repeat or drop a simulation, reorder
messages, or cut the file at a random byte. Each case gets a minute; a command that runs longer fails.
"""

from __future__ import annotations

import copy
import json
import random
import signal
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from reliability.conftest import ReliabilityScale
from tau.conformance import SHARED
from typer.testing import CliRunner, Result

from tau2.cli import app
from tau2.runs import load_run

runner = CliRunner()
CASE_SECONDS = 60
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "tau2bench"
Path_ = tuple[str | int, ...]

VALUES: list[Any] = [
    None, True, 0, -1, 1.5, 2**62, 10**30, -(10**30), 1e300, -0.0, "", "x" * 100_000, "\x1b[31mred\x1b[0m",
    "\ud800", "\x00", [], {}, [[[[[]]]]], {"role": "tool"}, "user_stop", "assistant", "NaN",
    json.loads("[" * 300 + "]" * 300),
]  # fmt: skip
"""Replacement values; `10**30` is written as that integer, `1e300` as a float JSON does allow."""
TEXT_EDITS: list[tuple[str, str]] = [("NaN", "number"), ("Infinity", "number"), ("1e309", "number")]


def _paths(value: Any, at: Path_ = ()) -> Iterator[Path_]:
    yield at
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*at, key))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _paths(child, (*at, index))


def _parent(document: Any, path: Path_) -> Any:
    for part in path[:-1]:
        document = document[part]
    return document


def mutate(document: dict[str, Any], rng: random.Random) -> tuple[str, str]:
    """One random mutation of `document`: its kind and the text of the mutated file."""
    document = copy.deepcopy(document)
    paths = [path for path in _paths(document) if path]
    kind = rng.choice(["value", "value", "value", "remove", "repeat", "drop", "shuffle", "text", "cut"])
    simulations = document.get("simulations") or []
    if kind == "value":
        path = rng.choice(paths)
        _parent(document, path)[path[-1]] = copy.deepcopy(rng.choice(VALUES))
    elif kind == "remove":
        path = rng.choice(paths)
        parent = _parent(document, path)
        if isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent.pop(path[-1])
    elif kind == "repeat" and simulations:
        simulations.append(copy.deepcopy(rng.choice(simulations)))
    elif kind == "drop" and simulations:
        simulations.pop(rng.randrange(len(simulations)))
    elif kind == "shuffle" and simulations:
        rng.shuffle(rng.choice(simulations)["messages"])
    text = json.dumps(document, ensure_ascii=rng.random() < 0.5)
    if kind == "text":
        numbers = [index for index, char in enumerate(text) if char.isdigit() and text[index - 1] in " :["]
        if numbers:
            at = rng.choice(numbers)
            end = at
            while end < len(text) and text[end] in "0123456789.eE+-":
                end += 1
            text = text[:at] + rng.choice(TEXT_EDITS)[0] + text[end:]
    elif kind == "cut":
        text = text[: rng.randrange(len(text))]
    return kind, text


class CaseTooSlow(Exception):
    """A command ran past `CASE_SECONDS`."""


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    def stop(signum: int, frame: FrameType | None) -> None:
        raise CaseTooSlow(f"a command ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def invoke(*arguments: str) -> Result:
    return runner.invoke(app, list(arguments))


def one_line_refusal(result: Result, where: str) -> None:
    lines = result.stderr.strip().splitlines()
    assert result.exit_code == 2, f"{where}: exit {result.exit_code}: {result.output[-500:]}"
    assert len(lines) == 1 and lines[0].startswith("error: "), f"{where}: {result.stderr[-500:]}"


def check_file(text: str, root: Path, data_dir: Path | None, where: str) -> bool:
    """Import one file and read the run back; True when it imported, False when refused."""
    source = root / "results.json"
    source.write_text(text, encoding="utf-8", errors="surrogatepass")
    out = root / "run"
    options = ["--data-dir", str(data_dir)] if data_dir else []
    with time_limit(CASE_SECONDS):
        imported = invoke("import", "tau2bench", str(source), "--out", str(out), *options)
        if imported.exit_code != 0:
            one_line_refusal(imported, where)
            assert not out.exists(), f"{where}: a refused import left {out}"
            return False
        run = load_run(out)
        assert not run.warnings, f"{where}: {run.warnings}"
        for command in (["report", str(out)], ["report", str(out), "--json"], ["view", str(out), "--all"]):
            result = invoke(*command)
            assert result.exit_code == 0, f"{where}: {' '.join(command[:1])}: {result.output[-500:]}"
        page = invoke("report", str(out), "--html", str(root / "report.html"))
        assert page.exit_code == 0, f"{where}: report --html: {page.output[-500:]}"
        exported = invoke("export", "tau2bench", str(out), "-o", str(root / "again.json"))
        assert exported.exit_code == 0, f"{where}: export: {exported.output[-500:]}"
        again = invoke(
            "import", "tau2bench", str(root / "again.json"), "--out", str(root / "again"), *options
        )
        assert again.exit_code == 0, f"{where}: import of the export: {again.output[-500:]}"
        rewards = sorted((r.task_id, r.trial, r.reward) for r in run.records)
        assert sorted((r.task_id, r.trial, r.reward) for r in load_run(root / "again").records) == rewards
    return True


@pytest.fixture(scope="module")
def sources(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, dict[str, Any], Path | None]]:
    """The documents mutated: offline mock runs exported, and τ²-bench's own files when its data is here."""
    root = tmp_path_factory.mktemp("sources")
    found: list[tuple[str, dict[str, Any], Path | None]] = []
    for name, options in {
        "mock": ["--domain", "mock", "--agent", "oracle", "--user", "scripted", "--trials", "2"],
        "mock-solo": ["--domain", "mock", "--mode", "solo", "--agent", "oracle"],
    }.items():
        assert invoke("run", *options, "-q", "--out", str(root / name)).exit_code == 0
        assert (
            invoke("export", "tau2bench", str(root / name), "-o", str(root / f"{name}.json")).exit_code == 0
        )
        found.append((name, json.loads((root / f"{name}.json").read_text(encoding="utf-8")), None))
    for domain in ("airline", "retail", "banking"):
        data_dir = SHARED / f"tau2-{domain}"
        if data_dir.is_dir():
            document = json.loads((FIXTURES / f"gold_{domain}_results.json").read_text(encoding="utf-8"))
            found.append((domain, _few_tasks(document) if domain == "banking" else document, data_dir))
    return found


BANKING_TASKS = frozenset({"task_015", "task_031", "task_102"})
"""Banking tasks fuzzed: a tool handed to the customer, hidden tools with a wrong argument and cut short,
and a judged statement (the whole file is ten tasks of long instructions; these keep each case quick)."""


def _few_tasks(document: dict[str, Any]) -> dict[str, Any]:
    return {
        **document,
        "tasks": [task for task in document["tasks"] if task["id"] in BANKING_TASKS],
        "simulations": [s for s in document["simulations"] if s["task_id"] in BANKING_TASKS],
    }


def test_mutated_results_files_are_refused_in_one_line_or_import_as_readable_runs(
    sources: list[tuple[str, dict[str, Any], Path | None]],
    reliability_scale: ReliabilityScale,
    tmp_path: Path,
) -> None:
    cases = reliability_scale.pick(fast=40, full=600)
    rng = random.Random(20251126)
    outcomes: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for number in range(cases):
        name, document, data_dir = sources[number % len(sources)]
        kind, text = mutate(document, rng)
        root = tmp_path / str(number)
        root.mkdir()
        imported = check_file(text, root, data_dir, f"case {number} ({name}, {kind})")
        outcomes["imported" if imported else "refused"] += 1
        kinds[kind] += 1
    assert outcomes["imported"] and outcomes["refused"]
    print(
        f"\nRELIABILITY: import fuzz: {cases} mutated τ²-bench results files from {len(sources)} sources "
        f"({', '.join(f'{count} {kind}' for kind, count in sorted(kinds.items()))}): "
        f"{outcomes['refused']} refused in one line with exit 2 and nothing left behind, "
        f"{outcomes['imported']} imported as runs that report (terminal, JSON, HTML), view, export and "
        "import again with the same rewards; 0 tracebacks, 0 commands past a minute"
    )
