"""Lint checks, simulated-user checks and experiment statistics added from outside the project: a file of
one object each, named as `file.py:attribute` on the command line from the file's own folder (nothing on
the Python path) or installed as an entry point of `tau2.plugins`; nothing inside `tau2/` is edited. Each
kind's contract check (`check_lint_check`, `check_user_check`, `check_experiment_statistic`) passes the
built-ins and catches a broken plugin; tests assert properties of the registered sets, never a count."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fixtures.experiments import experiment, write_experiment
from typer.testing import CliRunner

import tau2._registry
from tau2.audit import (
    BUILT_IN_LINT_CHECKS,
    BUILT_IN_USER_CHECKS,
    LintCheck,
    Severity,
    UserCheck,
    UserFinding,
    check_lint_check,
    check_user_check,
    lint_checks,
    user_checks,
)
from tau2.cli import app
from tau2.metrics import (
    BUILT_IN_STATISTICS,
    ExperimentStatistic,
    PairedUnit,
    check_experiment_statistic,
    experiment_statistics,
)

runner = CliRunner()

LINT_FILE = """
from tau2.audit import LintCheck, Severity


def _transfer(linted):
    return "the task expects a transfer" if linted.task.evaluation.expects_transfer else None


CHECK = LintCheck(name="x", severity=Severity.NOTE, rule="The task expects a transfer.", find=_transfer)
"""

USER_FILE = """
from tau2.audit import Severity, UserCheck
from tau2.episode import EntryKind
from tau2.world import Side


def _used(audited):
    calls = [e for e in audited.trajectory.entries if e.seat is Side.USER and e.kind is EntryKind.TOOL_CALL]
    return f"{len(calls)} tool calls" if calls else None


CHECK = UserCheck(name="x", severity=Severity.ERROR, rule="The customer used its tools.", find=_used)
"""

STATISTIC_FILE = """
from tau2.metrics import ExperimentStatistic


def _net(units):
    to_pass = sum(u.baseline is False and u.arm is True for u in units)
    return float(to_pass - sum(u.baseline is True and u.arm is False for u in units))


STATISTIC = ExperimentStatistic(
    name="x", label="net flips", description="Flips to pass less flips to fail.", compute=_net
)
"""


@pytest.fixture
def plugin_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder holding one file per plugin, made the current folder (and on no Python path)."""
    folder = tmp_path / "my plugins"
    folder.mkdir()
    (folder / "transfer_note.py").write_text(LINT_FILE)
    (folder / "used_tools.py").write_text(USER_FILE)
    (folder / "net_flips.py").write_text(STATISTIC_FILE)
    monkeypatch.chdir(folder)
    return folder


def afresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget this process's declarations, as the next command (a new process) starts without them."""
    monkeypatch.setattr(tau2._registry, "_DECLARED", {})


def invoke(*arguments: str) -> dict[str, Any]:
    result = runner.invoke(app, list(arguments))
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.stdout)
    return document


def test_a_lint_check_in_a_file_runs_in_tau2_lint(
    plugin_folder: Path, suite_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = invoke(
        "--plugin", "lint_check.transfer_note=transfer_note.py:CHECK", "lint", str(suite_file), "--json"
    )
    assert document["checks"]["transfer_note"] == {"severity": "note", "rule": "The task expects a transfer."}
    noted = [finding["task_id"] for finding in document["findings"] if finding["check"] == "transfer_note"]
    assert noted == ["needs_human"] and document["counts"]["transfer_note"] == 1
    afresh(monkeypatch)
    assert "transfer_note" not in invoke("lint", str(suite_file), "--json")["checks"], "only while declared"


def test_a_user_check_in_a_file_is_recorded_by_a_run_and_rated_by_its_report(
    plugin_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    declared = ["--plugin", "user_check.used_tools=used_tools.py:CHECK"]
    out = tmp_path / "run"
    made = runner.invoke(
        app,
        [
            *declared,
            "run",
            "--domain",
            "mock",
            "--agent",
            "oracle",
            "--user",
            "scripted",
            "-q",
            "--out",
            str(out),
        ],
    )
    assert made.exit_code == 0, made.output
    records = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    recorded = {r["task_id"]: [f["check"] for f in r["user_findings"]] for r in records}
    assert "used_tools" in recorded["unplugged"], "the scripted user plugs the lamp in"
    rates = {
        check["check"]: check for check in invoke(*declared, "report", str(out), "--json")["audit"]["checks"]
    }
    assert rates["used_tools"]["fired"] == sum("used_tools" in checks for checks in recorded.values()) > 0
    assert rates["used_tools"]["severity"] == "error"
    afresh(monkeypatch)
    plain = {check["check"] for check in invoke("report", str(out), "--json")["audit"]["checks"]}
    assert "used_tools" not in plain and {check.name for check in BUILT_IN_USER_CHECKS} <= plain, (
        "a report without the plugin still reads the run that recorded its findings"
    )
    assert UserFinding(check="used_tools", detail="2 tool calls").severity is Severity.WARNING, "unknown here"


@pytest.fixture(scope="module")
def small_experiment(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The oracle agent against one that does nothing, on the mock domain, two trials."""
    base = {"domain": "mock", "trials": 2, "seed": 3, "user": "scripted"}
    config = experiment("small", "oracle", base, oracle={"agent": "oracle"}, null={"agent": "null"})
    return write_experiment(tmp_path_factory.mktemp("experiment") / "small", config)


def test_a_statistic_in_a_file_is_in_every_comparison_of_an_experiment_report(
    plugin_folder: Path, small_experiment: Path
) -> None:
    declared = ["--plugin", "experiment_statistic.net_flips=net_flips.py:STATISTIC"]
    (comparison,) = invoke(*declared, "experiment", "report", str(small_experiment), "--json")["comparisons"]
    values = {value["name"]: value for value in comparison["statistics"]}
    net = comparison["flips_to_pass"] - comparison["flips_to_fail"]
    assert values["net_flips"] == {"name": "net_flips", "label": "net flips", "value": net} and net < 0
    assert {s.name for s in BUILT_IN_STATISTICS} <= values.keys()
    table = runner.invoke(app, [*declared, "experiment", "report", str(small_experiment)])
    assert table.exit_code == 0 and "net flips" in table.stdout


def test_a_plugin_file_that_is_not_of_its_kind_is_one_line(plugin_folder: Path, suite_file: Path) -> None:
    result = runner.invoke(app, ["--plugin", "lint_check.wrong=used_tools.py:CHECK", "lint", str(suite_file)])
    assert result.exit_code == 2
    assert result.output == "error: lint check 'wrong' names a UserCheck, not a tau2 LintCheck\n"


ENTRY_POINTS = """\
[tau2.plugins]
lint_check.transfer_note = outside_plugins:LINT
user_check.used_tools = outside_plugins:USER
experiment_statistic.net_flips = outside_plugins:STATISTIC
"""

PROBE = """\
import json
from tau2.audit import SeatTools, audit_trajectory, lint_checks, lint_task, user_checks
from tau2.domains.mock.tasks import MOCK_TASKS
from tau2.episode import Entry, EntryKind, ToolCall, Trajectory
from tau2.metrics import PairedUnit, experiment_statistics, statistic_values
from tau2.world import Side
from tau2.tasks import get_domain

needs_human = next(task for task in MOCK_TASKS if task.id == "needs_human")
plug_in = ToolCall(call_id="c1", name="plug_in", arguments={})
call = Entry(index=0, seat=Side.USER, kind=EntryKind.TOOL_CALL, tool_call=plug_in)
audited = audit_trajectory(Trajectory(entries=[call]), SeatTools.of(get_domain("mock")), None)
units = [PairedUnit("a", 0, False, True), PairedUnit("b", 0, False, True), PairedUnit("c", 0, True, False)]
print(json.dumps({
    "lint_checks": list(lint_checks()),
    "user_checks": list(user_checks()),
    "statistics": [statistic.name for statistic in experiment_statistics()],
    "linted": [finding.check for finding in lint_task(needs_human)],
    "audited": [finding.check for finding in audited],
    "values": {value.name: value.value for value in statistic_values(units)},
}))
"""


def test_installed_entry_points_add_a_lint_check_a_user_check_and_a_statistic(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "outside_plugins.py").write_text(
        LINT_FILE.replace("CHECK =", "LINT =") + USER_FILE.replace("CHECK =", "USER =") + STATISTIC_FILE
    )
    info = site / "outside_plugins-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: outside-plugins\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS)
    probe = subprocess.run(
        [sys.executable, "-c", PROBE],
        env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr
    found = json.loads(probe.stdout)
    assert "transfer_note" in found["lint_checks"] and "transfer_note" in found["linted"]
    assert "used_tools" in found["user_checks"] and found["audited"] == ["used_tools"]
    assert found["statistics"][: len(BUILT_IN_STATISTICS)] == [s.name for s in BUILT_IN_STATISTICS]
    assert found["values"]["net_flips"] == 1.0 and found["values"]["odds_ratio"] == 2.0


# The registered sets: properties, never a count


def test_the_built_in_checks_and_statistics_come_first_in_their_order_and_keep_their_contracts() -> None:
    first, *_, last = lint_checks()
    assert (first, last) == ("setup_fails", "duplicate_task")
    built_in = [check.name for check in BUILT_IN_LINT_CHECKS]
    assert list(lint_checks())[1 : 1 + len(built_in)] == built_in
    assert list(user_checks())[: len(BUILT_IN_USER_CHECKS)] == [check.name for check in BUILT_IN_USER_CHECKS]
    statistics = [statistic.name for statistic in experiment_statistics()]
    assert statistics[: len(BUILT_IN_STATISTICS)] == [statistic.name for statistic in BUILT_IN_STATISTICS]
    names = [*lint_checks(), *user_checks(), *statistics]
    assert len(names) == len(set(names)), "no name is both a lint check, a user check and a statistic"
    assert all(check_lint_check(check) == [] for check in BUILT_IN_LINT_CHECKS)
    assert all(check_user_check(check) == [] for check in BUILT_IN_USER_CHECKS)
    assert all(check_experiment_statistic(statistic) == [] for statistic in BUILT_IN_STATISTICS)


RAISES = LintCheck(name="raises", severity=Severity.NOTE, rule="r", find=lambda linted: linted.nothing)
EMPTY = UserCheck(name="empty", severity=Severity.NOTE, rule="r", find=lambda audited: "  ")


def _moves_the_world(linted: Any) -> None:
    linted.world.state.lamp.plugged_in = not linted.world.state.lamp.plugged_in


def test_the_contract_checks_catch_what_breaks_a_plugin() -> None:
    (problem, *_) = check_lint_check(RAISES)
    assert problem.startswith("lint check 'raises' on task 'unplugged': raised AttributeError: ")
    mover = LintCheck(name="mover", severity=Severity.NOTE, rule="r", find=_moves_the_world)
    assert check_lint_check(mover)[0] == (
        "lint check 'mover' on task 'unplugged': changed the task or its world, which every check shares"
    )
    assert check_user_check(EMPTY)[0] == (
        "user check 'empty' on task 'unplugged': answered '  ': a check answers None or a line of detail"
    )
    counter = iter(range(1000))
    restless = UserCheck(name="restless", severity=Severity.NOTE, rule="r", find=lambda a: f"{next(counter)}")
    assert check_user_check(restless)[0].endswith(
        "answered '0', then '1': a check answers the same every time"
    )
    first = ExperimentStatistic(
        name="first",
        label="first",
        description="d",
        compute=lambda units: 1.0 if units and units[0].arm else 0.0,
    )
    assert "for the same units in another order" in " ".join(check_experiment_statistic(first))
    infinite = ExperimentStatistic(
        name="inf", label="inf", description="d", compute=lambda units: float("inf")
    )
    assert check_experiment_statistic(infinite, [[PairedUnit("a", 0, True, True)]]) == [
        "'inf' on units 0: answered inf: a statistic answers a finite number or None"
    ]


BROKEN = ExperimentStatistic(name="broken", label="b", description="d", compute=lambda units: 1 / 0)


def test_a_statistic_that_fails_in_a_report_is_one_line(small_experiment: Path) -> None:
    declared = ["--plugin", f"experiment_statistic.broken={__name__}:BROKEN"]
    result = runner.invoke(app, [*declared, "experiment", "report", str(small_experiment)])
    assert result.exit_code == 2
    assert (
        result.output == "error: experiment statistic 'broken' failed: ZeroDivisionError: division by zero\n"
    )


KINDS_FILE = """
import dataclasses
from pathlib import Path

from tau2.actors import actor_kind
from tau2.tasks import get_domain

DOMAIN = dataclasses.replace(get_domain("mock"), name="filed")
KIND = dataclasses.replace(actor_kind("null"), name="filed-null")
EXTENSION = Path(__file__).with_name("faults.toml")
"""


def test_every_older_kind_takes_a_file_reference_from_the_files_own_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tau2.actors import actor_kind
    from tau2.tasks import get_domain, resolve_catalog_extension

    (tmp_path / "kinds.py").write_text(KINDS_FILE)
    monkeypatch.chdir(tmp_path)
    assert get_domain("kinds.py:DOMAIN").name == "filed"
    assert actor_kind("kinds.py:KIND").description == actor_kind("null").description
    path, label = resolve_catalog_extension("kinds.py:EXTENSION")
    assert path == tmp_path / "faults.toml" and label.startswith("kinds.py:EXTENSION")
    assert "kinds" not in sys.modules, "nothing is put on the Python path"


RAISING_FILE = """
from tau2.audit import LintCheck, Severity, UserCheck

LINT = LintCheck(name="x", severity=Severity.NOTE, rule="r", find=lambda linted: 1 / 0)
USER = UserCheck(name="x", severity=Severity.NOTE, rule="r", find=lambda audited: 1 / 0)
NUMBER = UserCheck(name="x", severity=Severity.NOTE, rule="r", find=lambda audited: 7)
"""


def test_a_check_plugin_that_fails_stops_the_command_in_one_line_and_records_nothing(
    tmp_path: Path, suite_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "raising.py").write_text(RAISING_FILE)
    (tmp_path / "broken.py").write_text("raise RuntimeError('the plugin is broken')\n")
    monkeypatch.chdir(tmp_path)
    linted = runner.invoke(app, ["--plugin", "lint_check.x=raising.py:LINT", "lint", str(suite_file)])
    assert (linted.exit_code, linted.output) == (
        2,
        "error: lint check 'x' failed on task 'unplugged': ZeroDivisionError: division by zero\n",
    )
    seats = ["run", "--suite", str(suite_file), "--agent", "oracle", "--user", "scripted", "-q", "--out"]
    expected = {
        "broken.py:CHECK": re.escape(
            "error: user check 'x' (broken.py:CHECK) could not be loaded: RuntimeError: the plugin is broken"
        ),
        "raising.py:USER": r"error: user check 'x' failed on task '\w+': ZeroDivisionError: division by zero",
        "raising.py:NUMBER": r"error: user check 'x' answered 7 on task '\w+': a check answers None or text",
    }
    for number, (reference, pattern) in enumerate(expected.items()):  # the task: whichever a lane met first
        afresh(monkeypatch)
        out = tmp_path / f"run-{number}"
        made = runner.invoke(app, ["--plugin", f"user_check.x={reference}", *seats, str(out)])
        assert made.exit_code == 2 and re.fullmatch(pattern + "\n", made.output), made.output
        results = out / "results.jsonl"
        assert not results.exists() or results.read_text() == "", "no simulation is recorded"
