"""Malformed inputs to every command: each is refused with one line on stderr, the documented exit code
(2 for bad input, 3 for a machine that refuses), no traceback, and no file created, changed or removed.

The cases are data (`CASES`); one parametrized test runs each through the real CLI in-process, and a sample
again as real `tau2` processes. Paths in a case's arguments are relative to a shared workspace holding a
good suite, a good run, and the broken files and run directories of `BROKEN_FILES` and `BROKEN_RUNS`;
named pipes and links (`SPECIAL_PATHS`) where files are expected; and a Python module, `evil_module.py`,
that files name as their domain and that writes a file into the workspace if it is ever imported (the
processes run in the workspace, where `python -m` would import from).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import pytest
from typer.testing import CliRunner

from tau2.cli import app


class ReliabilityScale(Protocol):
    """The `reliability_scale` fixture of this folder's conftest."""

    def pick(self, fast: int, full: int) -> int: ...


REPO = Path(__file__).resolve().parents[2]
MOCK_SUITE = REPO / "domains" / "mock" / "suites" / "examples.json"
OFFLINE = ["--agent", "oracle", "--user", "scripted"]
JUDGE_WITH_KEY = ["--judge-model", "openai/m", "--judge-arg", "api_key=sk-test"]
BAD_INPUT, ENVIRONMENT = 2, 3
SUBPROCESS_SAMPLE = 12
"""Every how-many-th case also runs as a real process (in the fast suite; the full suite runs all)."""


def _suite() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(MOCK_SUITE.read_text(encoding="utf-8"))
    return data


def _edited(edit: Callable[[dict[str, Any]], object]) -> bytes:
    """The mock suite with `edit` applied to its first task, as JSON bytes."""
    data = _suite()
    edit(data["tasks"][0])
    return json.dumps(data).encode()


def _suite_edited(edit: Callable[[dict[str, Any]], object]) -> bytes:
    data = _suite()
    edit(data)
    return json.dumps(data).encode()


def _naming(domain: str) -> Callable[[dict[str, Any]], None]:
    """An edit of a suite that names `domain` as its own and every task's."""

    def edit(suite: dict[str, Any]) -> None:
        suite["domain"] = domain
        for task in suite["tasks"]:
            task["domain"] = domain

    return edit


def _tau2bench(edit: Callable[[dict[str, Any]], object]) -> bytes:
    """The mock tasks as a τ²-bench task file, `edit` applied to the first."""
    from tau2.domains.mock.tasks import MOCK_TASKS
    from tau2.tau2bench import task_to_tau2

    tasks = [task_to_tau2(task) for task in MOCK_TASKS]
    edit(tasks[0])
    return json.dumps(tasks).encode()


GOOD = MOCK_SUITE.read_bytes()
BROKEN_FILES: dict[str, bytes] = {
    "empty.json": b"",
    "whitespace.json": b"  \n\t ",
    "truncated.json": GOOD[: len(GOOD) // 2],
    "not-json.json": b"tasks: all of them",
    "trailing-comma.json": b'{"tasks": [1,],}',
    "binary.json": bytes(range(256)) * 4,
    "latin1.json": b'{"name": "caf\xe9"}',
    "number.json": b"42",
    "null.json": b"null",
    "string.json": b'"a suite"',
    "array-of-numbers.json": b"[1, 2, 3]",
    "deep-array.json": b"[" * 100_000 + b"]" * 100_000,
    "deep-object.json": b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
    "deep-metadata.json": _edited(
        lambda task: task.update(metadata={"x": json.loads("[" * 600 + "]" * 600)})
    ),
    "nan.json": GOOD.replace(b'"format_version": 1', b'"format_version": NaN'),
    "surrogate-id.json": _edited(lambda task: task.update(id="lone\ud800")),
    "surrogate-key.json": GOOD.replace(b'"tasks"', b'"\\udc80tasks"'),
    "unknown-field.json": _edited(lambda task: task.update(colour="blue")),
    "id-not-string.json": _edited(lambda task: task.update(id=5)),
    "no-evaluation.json": _edited(lambda task: task.pop("evaluation")),
    "assertions-not-list.json": _edited(lambda task: task["evaluation"].update(assertions="all")),
    "bad-side.json": _edited(lambda task: task["evaluation"]["assertions"][0].update(side="both")),
    "empty-tasks.json": _suite_edited(lambda suite: suite.update(tasks=[])),
    "tasks-not-list.json": _suite_edited(lambda suite: suite.update(tasks={"a": 1})),
    "unknown-format.json": _suite_edited(lambda suite: suite.update(format="tau3-suite")),
    "unknown-domain.json": _edited(lambda task: task.update(domain="atlantis")),
    "mixed-domains.json": _suite_edited(lambda suite: suite["tasks"][1].update(domain="telecom")),
    "unknown-tool.json": _edited(lambda task: task["evaluation"]["solution"][0].update(name="launch")),
    "unknown-assertion.json": _edited(
        lambda task: task["evaluation"]["assertions"][0].update(name="assert_x")
    ),
    "wrong-argument.json": _edited(
        lambda task: task["evaluation"]["assertions"][0].update(arguments={"x": 1})
    ),
    "unknown-init-call.json": _edited(lambda task: task["initialization"][0].update(name="summon")),
    "tau2bench-wrong-types.json": b'[{"id": 1, "user_scenario": 2, "evaluation_criteria": []}]',
    "empty-id.json": _edited(lambda task: task.update(id="")),
    "newline-id.json": _edited(lambda task: task.update(id="x: ok\n5 tasks: 5 without findings")),
    "escape-id.json": _edited(lambda task: task.update(id="\x1b]0;owned\x07")),
    "tau2bench-empty-id.json": _tau2bench(lambda task: task.update(id="")),
    "tau2bench-tab-id.json": _tau2bench(lambda task: task.update(id="a\tb")),
    "big-integer.json": GOOD.replace(b'"format_version": 1', b'"format_version": ' + b"7" * 5_000),
    "big-integer-argument.json": GOOD.replace(
        b'"arguments": {}', b'"arguments": {"n": ' + b"7" * 5_000 + b"}", 1
    ),
    "domain-module.json": _suite_edited(_naming("evil_module:DOMAIN")),
    "domain-module-attribute.json": _suite_edited(_naming("os:system")),
    "tau2bench-domain-module.json": _tau2bench(
        lambda task: task["user_scenario"]["instructions"].update(domain="evil_module:DOMAIN")
    ),
}
"""Broken task files, by file name in the workspace."""
BROKEN_CONFIGS: dict[str, bytes] = {
    "config-empty.toml": b"",
    "config-garbled.toml": b"trials = [",
    "config-binary.toml": bytes(range(256)) * 4,
    "config-latin1.toml": b'persona = "caf\xe9"',
    "config-huge.toml": b"# " * (1 << 20),
    "config-unknown-field.toml": b'colour = "blue"',
    "config-wrong-type.toml": b'trials = "many"',
    "config-zero-trials.toml": b"trials = 0",
    "config-model-without-name.toml": b"[agent.model]\ntimeout_s = 3",
    "config-ray-without-address.toml": b'executor = { kind = "ray" }',
    "config-deep.toml": b"x = " + b"[" * 5_000 + b"]" * 5_000,
    "config-big-integer.toml": b"seed = " + b"7" * 5_000,
    "config-task-twice.toml": b'suite = "good-suite.json"\ntask_ids = ["both", "unplugged", "both"]',
    "config-empty-task-id.toml": b'suite = "good-suite.json"\ntask_ids = [""]',
    "config-newline-task-id.toml": b'suite = "good-suite.json"\ntask_ids = ["a\\nb"]',
}
"""Broken `--config` files, by file name in the workspace (the empty one has no tasks to run)."""
GOOD_EXPERIMENT = (
    b'name = "x"\nbaseline = "oracle"\n[base]\nsuite = "good-suite.json"\nuser = { kind = "scripted" }\n'
    b'[[arms]]\nname = "oracle"\nagent = { kind = "oracle" }\n'
    b'[[arms]]\nname = "transfer"\nagent = { kind = "transfer" }\n'
)
BROKEN_EXPERIMENT_FILES: dict[str, bytes] = {
    "experiment-one-arm.toml": b'name = "x"\nbaseline = "a"\n[[arms]]\nname = "a"\n',
    "experiment-unknown-baseline.toml": GOOD_EXPERIMENT.replace(b'baseline = "oracle"', b'baseline = "solo"'),
    "experiment-arm-sets-seed.toml": GOOD_EXPERIMENT + b"seed = 3\n",
    "experiment-arm-sets-concurrency.toml": GOOD_EXPERIMENT + b"concurrency = 3\n",
    "experiment-arm-named-twice.toml": GOOD_EXPERIMENT.replace(b'name = "transfer"', b'name = "oracle"'),
    "experiment-unknown-kind.toml": GOOD_EXPERIMENT.replace(b'kind = "transfer"', b'kind = "nope"'),
    "experiment-bad-budget.toml": GOOD_EXPERIMENT + b"[budget]\nmax_simulations = 0\n",
    "experiment-task-twice.toml": GOOD_EXPERIMENT.replace(
        b'suite = "good-suite.json"', b'suite = "good-suite.json"\ntask_ids = ["both", "both"]'
    ),
}
"""Broken experiment files (besides every broken `--config` file, also read as one)."""
VERIFY_REPORTS = {
    "unknown-tool.json",
    "unknown-assertion.json",
    "wrong-argument.json",
    "unknown-init-call.json",
}
"""Readable files of invalid tasks: `verify` lists them as invalid on stdout and exits 1, by design (and
`lint` reports them as findings)."""

RESULTS_LINE = (
    (REPO / "tests" / "fixtures" / "runs" / "interactive" / "results.jsonl")
    .read_text(encoding="utf-8")
    .splitlines()[0]
)


BROKEN_RUNS: dict[str, dict[str, bytes | None]] = {
    "run-empty-dir": {},
    "run-no-manifest": {"results.jsonl": b""},
    "run-empty-manifest": {"manifest.json": b""},
    "run-garbled-manifest": {"manifest.json": b'{"run_id": "x", '},
    "run-binary-manifest": {"manifest.json": b"\x00\x01\x02"},
    "run-manifest-array": {"manifest.json": b"[]"},
    "run-manifest-wrong-types": {"manifest.json": b'{"run_id": 1, "trials": "many"}'},
    "run-manifest-deep": {"manifest.json": b"[" * 100_000 + b"]" * 100_000},
    "run-manifest-is-dir": {"manifest.json": None},
    "run-no-task-ids": {"manifest.json": b"NO_TASKS"},
    "run-zero-trials": {"manifest.json": b"ZERO_TRIALS"},
    "run-results-is-dir": {"manifest.json": b"GOOD", "results.jsonl": None},
    "run-garbled-record": {"manifest.json": b"GOOD", "results.jsonl": b"{oops\n{}\n"},
    "run-record-wrong-types": {"manifest.json": b"GOOD", "results.jsonl": b'{"task_id": 5}\n{}\n'},
    "run-damage-then-bad-record": {"manifest.json": b"GOOD", "results.jsonl": b"\x00\xfe\n\x00\n[]\n{}\n"},
    "run-results-fifo": {"manifest.json": b"GOOD"},
    "run-results-dev-zero": {"manifest.json": b"GOOD"},
    "run-manifest-fifo": {},
}
"""Broken run directories: file name → bytes, None for a directory in its place; GOOD is the good run's
manifest, NO_TASKS and ZERO_TRIALS that manifest with an empty task list or zero trials. (Lines that are
not JSON objects alone are no error: readers skip them with a warning and a resume sets them aside; a JSON
object that is no record is.)"""


EXTENSION = (
    b'name = "x"\nversion = "1"\nextends = "telecom"\n[[subtask]]\nname = "apn_by_hand"\ngroup = "apn"\n'
    b'description = "d"\ninit = [{ side = "user", name = "break_apn_settings" }]\nTICKET\n'
    b'[[subtask.solution]]\nside = "user"\nname = "set_apn_settings"\n'
    b'arguments = { apn_settings = { apn_name = "internet" } }\n'
)
EXTENSIONS: dict[str, bytes] = {
    "ext-good.toml": EXTENSION.replace(b"TICKET", b'texts.ticket = "{name} typed it in."'),
    "ext-attribute.toml": EXTENSION.replace(b"TICKET", b'texts.ticket = "{name.__class__.__init__}"'),
    "ext-index.toml": EXTENSION.replace(b"TICKET", b'texts.ticket = "{name[0]}"'),
    "ext-position.toml": EXTENSION.replace(b"TICKET", b'texts.ticket = "{0}"'),
    "ext-width.toml": EXTENSION.replace(b"TICKET", b'texts.ticket = "{name:>2000}"'),
    "ext-expression.toml": EXTENSION.replace(
        b"TICKET",
        b'checks = [{ side = "user", name = "assert_service_status", arguments = { expected_status = '
        b'"=9999999 * 9999999 * 9999999" } }]',
    ),
}
"""Catalog-extension files: one good, the others with text templates that reach past a fact's text, or an
expression whose value grows without bound."""
ANNOTATIONS: dict[str, bytes] = {
    "ann-list": b"[]",
    "ann-string": b'"labels"',
    "ann-big-integer": b'{"instance_id_to_label_to_value": {"unplugged#0": ' + b"7" * 5_000 + b"}}",
    "ann-surrogate": b'{"instance_id_to_label_to_value": {"\\udc80": []}}',
}
"""Potato annotation folders, each with one annotator whose state file holds these bytes."""
SPECIAL_PATHS: dict[str, str] = {
    "fifo.json": "fifo",
    "fifo.toml": "fifo",
    "link-to-null.json": "/dev/null",
    "page-results-symlink.html": "good-run/results.jsonl",
    "page-manifest-symlink.html": "good-run/manifest.json",
    "page-results-hardlink.html": "hard:good-run/results.jsonl",
    "ext-good-hardlink.json": "hard:ext-good.toml",
    "run-results-fifo/results.jsonl": "fifo",
    "run-results-dev-zero/results.jsonl": "/dev/zero",
    "run-manifest-fifo/manifest.json": "fifo",
    "ann-fifo/eve/user_state.json": "fifo",
}
"""Paths that are no regular file where one is expected: named pipes (`fifo`), symbolic links (to a
device, or to a good run's files) and hard links (`hard:`)."""


BROKEN_EXPERIMENTS: dict[str, bytes] = {
    "experiment-garbled": b"{",
    "experiment-no-arms": json.dumps(
        {
            "schema_version": 1,
            "created_at": "2026-01-01T00:00:00Z",
            "config": {
                "name": "x",
                "baseline": "a",
                "base": {"domain": "mock"},
                "arms": [{"name": "a"}, {"name": "b"}],
            },
        }
    ).encode(),
}
"""Experiment directories by name, each holding only this `experiment.json` (the second names arms whose run
directories are missing)."""


@dataclass(frozen=True)
class Case:
    """One malformed invocation: its arguments (workspace-relative paths) and the exit code it must give."""

    id: str
    args: tuple[str, ...]
    code: int = BAD_INPUT

    @property
    def command(self) -> str:
        """The command it exercises (`export tau2bench`, `run`, …)."""
        return " ".join(self.args[:2]) if self.args[0] in ("export", "import", "experiment") else self.args[0]


def _cases() -> list[Case]:
    cases: list[Case] = []

    def add(case_id: str, *args: str, code: int = BAD_INPUT) -> None:
        cases.append(Case(case_id, args, code))

    bad_paths = {
        "missing": "no-such-file.json",
        "directory": "a-directory",
        "under-a-file": "a-file/suite.json",
        "dev-zero": "/dev/zero",
        "dev-null": "/dev/null",
        "fifo": "fifo.json",
        "link-to-null": "link-to-null.json",
    }
    for name in [*BROKEN_FILES, *bad_paths.values()]:
        add(f"run-suite-{name}", "run", "--suite", name, *OFFLINE, "--out", "new-run")
        add(f"episode-suite-{name}", "episode", "--suite", name, "--task-id", "unplugged", *OFFLINE)
        if name not in VERIFY_REPORTS:
            add(f"verify-{name}", "verify", name)
            add(f"lint-{name}", "lint", name)
            add(f"regrade-suite-{name}", "regrade", "good-run", "--suite", name, "--out", "new-run")
    for name in [*BROKEN_CONFIGS, *bad_paths.values()]:
        add(f"run-config-{name}", "run", "--config", name, "--out", "new-run")
        add(f"episode-config-{name}", "episode", "--config", name, "--task-id", "unplugged")
    add("import-tau2bench-dev-zero", "import", "tau2bench", "/dev/zero", "--out", "new-run")
    add("import-tau2bench-empty", "import", "tau2bench", "empty.json", "--out", "new-run")
    add("import-tau2bench-deep", "import", "tau2bench", "deep-array.json", "--out", "new-run")
    add("import-tau2bench-binary", "import", "tau2bench", "binary.json", "--out", "new-run")
    add("import-tau2bench-suite", "import", "tau2bench", "good-suite.json", "--out", "new-run")
    add("import-tau2bench-missing", "import", "tau2bench", "no-such-file.json", "--out", "new-run")
    add("import-tau2bench-out-exists", "import", "tau2bench", "good-suite.json", "--out", "good-run")

    run_dirs = [*BROKEN_RUNS, "no-such-run", "a-file", "/dev/null"]
    for run_dir in run_dirs:
        add(f"report-{run_dir}", "report", run_dir)
        add(f"view-{run_dir}", "view", run_dir)
        add(f"compare-a-{run_dir}", "compare", run_dir, "good-run")
        add(f"export-tau2bench-{run_dir}", "export", "tau2bench", run_dir, "-o", "export.json")
        add(f"resume-{run_dir}", "run", "--resume", "--out", run_dir, *OFFLINE)
        add(f"regrade-judges-{run_dir}", "regrade", run_dir, "--out", "regraded", "--judge-model", "openai/m")
    for run_dir in ("run-garbled-manifest", "run-no-task-ids", "no-such-run"):
        add(f"compare-b-{run_dir}", "compare", "good-run", run_dir)
        add(f"export-potato-{run_dir}", "export", "potato", run_dir, "-o", "potato-project")
        add(f"import-potato-into-{run_dir}", "import", "potato", "a-directory", run_dir)

    suite = ("--suite", "good-suite.json")
    run = ("run", *suite, *OFFLINE, "--out", "new-run")
    for option, value in [
        ("--trials", "0"),
        ("--trials", "-1"),
        ("--trials", "many"),
        ("--trials", "99999999999999999999999999"),
        ("--concurrency", "0"),
        ("--workers", "0"),
        ("--max-steps", "0"),
        ("--max-errors", "-3"),
        ("--max-actor-retries", "0"),
        ("--mode", "telepathic"),
        ("--seed", "1.5"),
        ("--task-ids", ""),
        ("--task-ids", ","),
        ("--task-ids", "no-such-task"),
        ("--task-ids", "lone\udc80"),
        ("--split", "train"),
        ("--persona", "no-such-persona"),
        ("--domain", "atlantis"),
        ("--data-dir", "no-such-dir"),
        ("--data-dir", "a-file"),
        ("--agent-timeout", "0"),
        ("--rate-limit", "openai"),
        ("--rate-limit", "openai=0"),
        ("--agent-arg", "temperature"),
        ("--judge-arg", "x"),
        ("--out", "a-file"),
        ("--out", "a-file/run"),
        ("--out", "good-run"),
    ]:
        add(f"run-option{option}={value!r}", *run, option, value)
    add(
        "run-policy-variant-unknown",
        "run",
        "--domain",
        "telecom",
        *OFFLINE,
        "--out",
        "x",
        "--policy-variant",
        "x",
    )
    add("run-agent-unknown", "run", *suite, "--agent", "wizard", "--user", "scripted", "--out", "new-run")
    add("run-user-unknown", "run", *suite, "--agent", "oracle", "--user", "wizard", "--out", "new-run")
    add("run-oracle-as-user", "run", *suite, "--agent", "oracle", "--user", "oracle", "--out", "new-run")
    add("run-scripted-as-agent", "run", *suite, "--agent", "scripted", "--user", "scripted", "--out", "x")
    add("run-llm-without-model", "run", *suite, "--agent", "llm", "--user", "scripted", "--out", "new-run")
    add("run-model-for-oracle", *run, "--agent-model", "openai/x")
    add("run-plugin-missing", "run", *suite, "--agent", "no_such_module:f", *OFFLINE[2:], "--out", "x")
    add("run-no-suite", "run", *OFFLINE, "--out", "new-run")
    add("run-no-out", "run", *suite, *OFFLINE)
    add("run-unknown-option", *run, "--colour", "blue")

    episode = ("episode", *suite, *OFFLINE)
    add("episode-no-task-id", *episode)
    add("episode-unknown-task", *episode, "--task-id", "no-such-task")
    add("episode-surrogate-task", *episode, "--task-id", "\ud800")
    add("episode-max-steps-zero", *episode, "--task-id", "unplugged", "--max-steps", "0")
    add("episode-mode-unknown", *episode, "--task-id", "unplugged", "--mode", "x")
    add("episode-data-dir-missing", *episode, "--task-id", "unplugged", "--data-dir", "nope")

    add("verify-data-dir-file", "verify", "good-suite.json", "--data-dir", "a-file")
    add("verify-domain-unknown", "verify", "good-suite.json", "--domain", "atlantis")
    add("verify-no-argument", "verify")
    add("lint-data-dir-file", "lint", "good-suite.json", "--data-dir", "a-file")
    add("lint-domain-unknown", "lint", "good-suite.json", "--domain", "atlantis")
    add("lint-second-file-missing", "lint", "good-suite.json", "no-such-file.json")
    add("lint-no-argument", "lint")

    report = ("report", "good-run")
    add("report-bootstrap-zero", *report, "--bootstrap-samples", "0")
    add("report-bootstrap-negative", *report, "--bootstrap-samples", "-5")
    add("report-html-directory", *report, "--html", "a-directory")
    add("report-html-under-file", *report, "--html", "a-file/page.html")
    add("report-html-missing-dir", *report, "--html", "no-dir/page.html")
    add("report-html-manifest", *report, "--html", "good-run/manifest.json")
    add("report-html-full-disk", *report, "--html", "/dev/full", code=ENVIRONMENT)
    add("report-html-and-json-stdout", *report, "--html", "-", "--json")
    add("compare-pair-by-unknown", "compare", "good-run", "good-run", "--pair-by", "colour")
    regrade = ("regrade", "good-run", "--suite", "good-suite.json")
    for run_dir in run_dirs:
        add(f"regrade-{run_dir}", "regrade", run_dir, "--suite", "good-suite.json", "--out", "new-run")
    add("regrade-out-exists", *regrade, "--out", "good-run")
    add("regrade-out-file", *regrade, "--out", "a-file")
    add("regrade-out-inside-the-run", *regrade, "--out", "good-run/regraded")
    add("regrade-no-out", *regrade)
    add("regrade-suite-and-judge", *regrade, "--out", "new-run", "--judge-model", "openai/m")
    add("regrade-data-dir-without-suite", "regrade", "good-run", "--out", "new-run", "--data-dir", "good-run")
    add("regrade-data-dir-file", *regrade, "--out", "new-run", "--data-dir", "a-file")
    add("regrade-data-dir-missing", *regrade, "--out", "new-run", "--data-dir", "no-such-dir")
    add("compare-one-run", "compare", "good-run")
    add("regrade-neither-suite-nor-judge", "regrade", "good-run", "--out", "regraded")
    add("regrade-into-itself", "regrade", "good-run", "--out", "good-run", "--judge-model", "openai/m")
    add("regrade-nothing-to-judge", "regrade", "good-run", "--out", "regraded", *JUDGE_WITH_KEY)
    add("compare-html-full-disk", "compare", "good-run", "good-run", "--html", "/dev/full", code=ENVIRONMENT)

    rebrand = ("rebrand", "--domain", "retail")
    add("rebrand-domain-unknown", "rebrand", "--domain", "atlantis", "-o", "renamed")
    add("rebrand-domain-without-identifiers", "rebrand", "--domain", "mock", "-o", "renamed")
    add("rebrand-out-file", *rebrand, "-o", "a-file")
    add("rebrand-out-a-run", *rebrand, "-o", "good-run")
    add("rebrand-out-under-a-file", *rebrand, "-o", "a-file/renamed")
    add("rebrand-no-out", *rebrand)
    add("rebrand-data-dir-file", *rebrand, "-o", "renamed", "--data-dir", "a-file")
    add("rebrand-suite-missing", *rebrand, "-o", "renamed", "--suite", "no-such-file.json")
    add("rebrand-suite-not-json", *rebrand, "-o", "renamed", "--suite", "a-file")
    add("rebrand-delta-missing", *rebrand, "-o", "renamed", "--delta", "no-such-file.toml")
    add("rebrand-delta-directory", *rebrand, "-o", "renamed", "--delta", "a-directory")
    for name in sorted(BROKEN_CONFIGS.keys() - {"config-empty.toml"}):  # an empty delta: identifiers only
        add(f"rebrand-delta-{name}", *rebrand, "-o", "renamed", "--delta", name)

    view = ("view", "good-run")
    add("view-index-zero", *view, "--index", "0")
    add("view-index-too-large", *view, "--index", "999")
    add("view-unknown-task", *view, "--task", "no-such-task")
    add("view-trial-missing", *view, "--trial", "7")
    add("view-trial-not-int", *view, "--trial", "first")
    add("view-html-full-disk", *view, "--html", "/dev/full", code=ENVIRONMENT)
    add("view-html-directory", *view, "--html", "a-directory")

    generate = ("generate", "-o", "generated.json")
    add("generate-no-output", "generate")
    add("generate-output-directory", "generate", "-o", "a-directory")
    add("generate-output-under-file", "generate", "-o", "a-file/tasks.json")
    add("generate-domain-unknown", *generate, "--domain", "atlantis")
    add("generate-domain-without-catalog", *generate, "--domain", "mock")
    add("generate-min-subtasks-zero", *generate, "--min-subtasks", "0")
    add("generate-max-below-min", *generate, "--min-subtasks", "3", "--max-subtasks", "1")
    add("generate-sample-zero", *generate, "--sample-per-bin", "0")
    add("generate-format-unknown", *generate, "--format", "yaml")
    add("generate-target-unknown", *generate, "--target", "somewhere")
    add("generate-intent-unknown", *generate, "--intents", "no_such_intent")
    add("generate-persona-unknown", *generate, "--personas", "no-such-persona")
    add("generate-exclude-unknown", *generate, "--exclude", "no_such_subtask")
    add("generate-data-dir-missing", *generate, "--data-dir", "no-such-dir")

    add("export-tau2bench-out-exists", "export", "tau2bench", "good-run", "-o", "good-suite.json")
    add("export-tau2bench-out-under-file", "export", "tau2bench", "good-run", "-o", "a-file/x.json")
    add(
        "export-tau2bench-submission-no-org",
        "export",
        "tau2bench",
        "good-run",
        "-o",
        "x.json",
        "--submission",
        "s.json",
    )
    add("export-tau2bench-both-stdout", "export", "tau2bench", "good-run", "-o", "-", "--submission", "-")
    add("export-potato-stdout", "export", "potato", "good-run", "-o", "-")
    add("export-potato-out-is-file", "export", "potato", "good-run", "-o", "a-file")
    add("export-potato-port-text", "export", "potato", "good-run", "-o", "p", "--port", "http")
    add("export-unknown-format", "export", "csv", "good-run")
    add("import-potato-missing", "import", "potato", "no-such-dir", "good-run")
    add("import-potato-file", "import", "potato", "a-file", "good-run")
    add("import-unknown-format", "import", "csv", "x")

    vllm = ("--agent-model", "hosted_vllm/m")
    add("check-model-no-model", "check-model")
    add("check-model-model-missing-value", "check-model", "--agent-model")
    add("check-model-api-base-not-url", "check-model", *vllm, "--agent-api-base", "localhost:8000/v1")
    add(
        "check-model-api-base-ftp",
        "check-model",
        "--user-model",
        "hosted_vllm/m",
        "--user-api-base",
        "ftp://h",
    )
    add("check-model-timeout-zero", "check-model", *vllm, "--agent-timeout", "0")
    add("check-model-transport-unknown", "check-model", *vllm, "--agent-transport", "carrier")
    add("check-model-arg-no-value", "check-model", *vllm, "--agent-arg", "temperature")
    add(
        "check-model-arg-owned",
        "check-model",
        *vllm,
        "--agent-api-base",
        "http://127.0.0.1:9/v1",
        "--agent-arg",
        "seed=3",
    )
    add("check-model-judge-options-no-model", "check-model", "--judge-timeout", "5")
    add(
        "run-api-base-not-url",
        "run",
        "--suite",
        "good-suite.json",
        "--agent",
        "llm",
        *vllm,
        "--agent-api-base",
        "x",
        "--user",
        "scripted",
        "--out",
        "new-run",
    )
    add(
        "episode-api-base-not-url",
        "episode",
        "--suite",
        "good-suite.json",
        "--task-id",
        "both",
        "--agent",
        "llm",
        *vllm,
        "--agent-api-base",
        "x",
    )

    for name in [*BROKEN_CONFIGS, *BROKEN_EXPERIMENT_FILES, *bad_paths.values()]:
        add(f"experiment-run-{name}", "experiment", "run", name, "--out", "new-experiment")
    experiment = ("experiment", "run", "good-experiment.toml")
    add("experiment-run-out-is-a-run", *experiment, "--out", "good-run")
    add("experiment-run-resume-a-run", *experiment, "--out", "good-run", "--resume")
    add("experiment-run-resume-nothing", *experiment, "--out", "new-experiment", "--resume")
    add("experiment-run-out-is-a-file", *experiment, "--out", "a-file")
    add("experiment-run-no-out", *experiment)
    add("experiment-run-max-cost-text", *experiment, "--out", "new-experiment", "--max-cost", "lots")
    add("experiment-run-max-cost-negative", *experiment, "--out", "new-experiment", "--max-cost", "-1")
    add("experiment-unknown-command", "experiment", "stop")

    add("play-seat-unknown", "play", "--seat", "referee", "--out", "play-run")
    add("play-out-exists", "play", "--seat", "agent", "--out", "good-run")
    add("play-mode-unknown", "play", "--mode", "x", "--out", "play-run")
    experiment = ("experiment", "report")
    for directory in ("good-run", "no-such-run", "a-file", "/dev/null", *BROKEN_EXPERIMENTS):
        add(f"experiment-report-{directory}", *experiment, directory)
    add("experiment-report-bootstrap-zero", *experiment, "experiment-no-arms", "--bootstrap-samples", "0")
    add(
        "experiment-report-html-over-its-file",
        *experiment,
        "experiment-no-arms",
        "--html",
        "experiment-no-arms/experiment.json",
    )
    add("unknown-command", "simulate")
    add("surrogate-argument", "report", "run\udcff")

    for page in ("page-results-symlink.html", "page-manifest-symlink.html", "page-results-hardlink.html"):
        add(f"report-html-{page}", "report", "good-run", "--html", page)
        add(f"view-html-{page}", "view", "good-run", "--html", page)
        add(f"compare-html-{page}", "compare", "good-run", "good-run", "--html", page)
    for name in EXTENSIONS:
        if name != "ext-good.toml":
            add(f"generate-{name}", "generate", "--catalog-extension", name, "-o", "generated.json")
    add(
        "generate-over-its-extension",
        "generate",
        "--catalog-extension",
        "ext-good.toml",
        "-o",
        "ext-good-hardlink.json",
    )
    for folder in (*ANNOTATIONS, "ann-fifo"):
        add(f"import-potato-{folder}", "import", "potato", folder, "good-run")
    for name in ("results-surrogate.json", "results-domain-module.json", "fifo.json"):
        add(f"import-tau2bench-{name}", "import", "tau2bench", name, "--out", "new-run")
    add("export-tau2bench-domain-module", "export", "tau2bench", "run-domain-module", "-o", "export.json")
    add(
        "regrade-domain-module",
        "regrade",
        "run-domain-module",
        "--suite",
        "good-suite.json",
        "--out",
        "new-run",
    )
    add("resume-domain-module", "run", "--resume", "--out", "run-domain-module", *OFFLINE)
    add("resume-agent-module", "run", "--resume", "--out", "run-agent-module")
    add("plugin-not-a-reference", "--plugin", "mock", "verify", "good-suite.json")
    add("view-empty-task", "view", "good-run", "--task", "")
    return cases


CASES = _cases()


def _write_workspace(root: Path, good_run: Path) -> None:
    """The shared workspace: good inputs, the broken files and run directories, a file and a directory."""
    (root / "good-suite.json").write_bytes(GOOD)
    (root / "a-file").write_text("not a directory\n", encoding="utf-8")
    (root / "a-directory").mkdir()
    (root / "good-experiment.toml").write_bytes(GOOD_EXPERIMENT)
    (root / "evil_module.py").write_text(
        'import pathlib\npathlib.Path(__file__).with_name("IMPORTED").write_text("x")\n'
        "DOMAIN = AGENT = None\n"
    )
    for name, content in {**BROKEN_FILES, **BROKEN_CONFIGS, **BROKEN_EXPERIMENT_FILES, **EXTENSIONS}.items():
        (root / name).write_bytes(content)
    for folder, content in ANNOTATIONS.items():
        (root / folder / "eve").mkdir(parents=True)
        (root / folder / "eve" / "user_state.json").write_bytes(content)
    for name, content in BROKEN_EXPERIMENTS.items():
        (root / name).mkdir()
        (root / name / "experiment.json").write_bytes(content)
    manifest = json.loads((good_run / "manifest.json").read_text(encoding="utf-8"))
    special = {
        b"GOOD": manifest,
        b"NO_TASKS": {**manifest, "task_ids": []},
        b"ZERO_TRIALS": {**manifest, "config": {**manifest["config"], "trials": 0}},
    }
    for name, files in BROKEN_RUNS.items():
        folder = root / name
        folder.mkdir()
        for file, content in files.items():
            if content is None:
                (folder / file).mkdir()
            elif content in special:
                (folder / file).write_text(json.dumps(special[content]), encoding="utf-8")
            else:
                (folder / file).write_bytes(content)
    for name, changed in {
        "run-domain-module": {"domain": "evil_module:DOMAIN"},
        "run-agent-module": {"agent": {"kind": "evil_module:AGENT"}},
    }.items():
        shutil.copytree(good_run, root / name)
        config = {**manifest["config"], **changed}
        named = {
            **manifest,
            "config": config,
            **({"domain": changed["domain"]} if "domain" in changed else {}),
        }
        (root / name / "manifest.json").write_text(json.dumps(named))
    exported = json.loads((root / "results.json").read_text(encoding="utf-8"))
    exported["info"]["environment_info"]["domain_name"] = "evil_module:DOMAIN"
    (root / "results-domain-module.json").write_text(json.dumps(exported), encoding="utf-8")
    text = (root / "results.json").read_text(encoding="utf-8")
    (root / "results-surrogate.json").write_text(text.replace('"content": "', '"content": "\\ud800', 1))
    for name, target in SPECIAL_PATHS.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if target == "fifo":
            os.mkfifo(path)
        elif target.startswith("hard:"):
            path.hardlink_to(root / target.removeprefix("hard:"))
        else:
            path.symlink_to(target if target.startswith("/") else root / target)


def snapshot(root: Path) -> dict[str, object]:
    """Every path under `root` with what it is: a regular file's bytes and modification time, a link's
    target, a named pipe's kind (neither followed nor read), None for a directory."""
    found: dict[str, object] = {}
    for path in sorted(root.rglob("*")):
        relative = str(path.relative_to(root))
        status = path.lstat()
        if stat.S_ISLNK(status.st_mode):
            found[relative] = ("link", os.readlink(path))
        elif stat.S_ISDIR(status.st_mode):
            found[relative] = None
        elif stat.S_ISREG(status.st_mode):
            found[relative] = (path.read_bytes(), status.st_mtime_ns)
        else:
            found[relative] = ("special", stat.S_IFMT(status.st_mode))
    return found


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The shared workspace, with a good run of the mock suite; prints the suite's summary line at the end."""
    root = tmp_path_factory.mktemp("malformed")
    good_run = root / "good-run"
    result = CliRunner().invoke(
        app, ["run", "--suite", str(MOCK_SUITE), *OFFLINE, "-q", "--out", str(good_run)]
    )
    assert result.exit_code == 0, result.output
    exported = CliRunner().invoke(
        app, ["export", "tau2bench", str(good_run), "-o", str(root / "results.json")]
    )
    assert exported.exit_code == 0, exported.output
    _write_workspace(root, good_run)
    yield root
    if len(_PASSED) == len(CASES):
        commands = {case.command for case in CASES}
        print(
            f"\nRELIABILITY: malformed inputs: {len(CASES)} cases over {len(commands)} commands, "
            "all one-line errors, 0 tracebacks, 0 files changed"
        )


_PASSED: set[str] = set()


@pytest.fixture
def in_workspace(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(workspace)
    return workspace


def test_corpus_is_large_and_covers_every_command() -> None:
    from tau2.cli import COMMANDS, GROUPS

    commands = {case.command.split()[0] for case in CASES}
    assert len(CASES) >= 150
    assert {name.replace("_", "-") for name in COMMANDS} | set(GROUPS) <= commands
    assert len({case.id for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_malformed_input_is_one_line_and_changes_nothing(case: Case, in_workspace: Path) -> None:
    before = snapshot(in_workspace)
    result = CliRunner().invoke(app, list(case.args))
    stderr = result.stderr
    assert not isinstance(result.exception, Exception) or isinstance(result.exception, SystemExit), stderr
    assert "Traceback" not in stderr + result.stdout
    assert result.exit_code == case.code, f"exit {result.exit_code}: {stderr}"
    assert len(stderr.splitlines()) == 1 and stderr.startswith("error: "), stderr
    assert snapshot(in_workspace) == before, "the command changed the workspace"
    _PASSED.add(case.id)


def _argv_bytes(argument: str) -> bytes:
    """An argument as a command line carries it: undecodable bytes stand for `\\udc80`-`\\udcff`, and any
    other lone surrogate becomes its (equally undecodable) UTF-8-style bytes."""
    try:
        return argument.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return argument.encode("utf-8", "surrogatepass")


def test_a_sample_as_real_processes(in_workspace: Path, reliability_scale: ReliabilityScale) -> None:
    """Every 12th case (every case with TAU2_RELIABILITY=full) again as a `python -m tau2` process."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    for case in CASES[:: reliability_scale.pick(SUBPROCESS_SAMPLE, 1)]:
        before = snapshot(in_workspace)
        arguments = [_argv_bytes(argument) for argument in case.args]
        command = [sys.executable.encode(), b"-m", b"tau2", *arguments]
        result = subprocess.run(command, capture_output=True, env=env, timeout=120, check=False)
        stderr = result.stderr.decode("utf-8", "replace")
        assert result.returncode == case.code, f"{case.id}: {stderr}"
        assert len(stderr.splitlines()) == 1 and "Traceback" not in stderr, f"{case.id}: {stderr}"
        assert snapshot(in_workspace) == before, case.id
