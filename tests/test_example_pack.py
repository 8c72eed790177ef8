"""The external pack docs/extending.md teaches from (`docs/examples/tau2-library-pack`): installed, it runs,
verifies and generates end to end through its entry points; not installed, its modules on the Python path
work as `module:attribute` references, in worker processes too.

The installed-pack tests skip with a reason where the pack is not installed; with CI=true (CI installs it)
its absence fails them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from tau2.world import Side

PACK = Path(__file__).resolve().parents[1] / "docs" / "examples" / "tau2-library-pack"
TASKS = PACK / "library_pack" / "tasks.json"
INSTALL = f"pip install -e {PACK.relative_to(PACK.parents[2])}"


def require_installed_pack() -> None:
    """Skip (fail on CI) unless the example pack's domain is installed from this repository."""
    points = {point.name: point.value for point in entry_points(group="tau2.plugins")}
    if points.get("domain.library") == "library_pack:DOMAIN":
        return
    reason = f"the example pack is not installed ({INSTALL})"
    if os.environ.get("CI") == "true":
        pytest.fail(f"CI=true but {reason}")
    pytest.skip(reason)


def tau2(*arguments: str, cwd: Path, path: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the tau2 command line; `path` goes on the Python path."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    if path is not None:
        env["PYTHONPATH"] = str(path)
    command = [sys.executable, "-m", "tau2", *arguments]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def records(run: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]


def said(record: dict[str, object]) -> list[str]:
    """The messages of a record's trajectory."""
    trajectory = record["trajectory"]
    assert isinstance(trajectory, dict)
    return [entry["text"] for entry in trajectory["entries"] if entry["kind"] == "message"]


# Installed: found through its entry points


def test_the_installed_pack_runs_with_the_offline_seats_in_the_neutral_request_format(tmp_path: Path) -> None:
    require_installed_pack()
    seats = ["--agent", "oracle", "--user", "scripted", "--out", "r"]
    ran = tau2("run", "--domain", "library", *seats, cwd=tmp_path)
    assert ran.returncode == 0, ran.stderr
    results = records(tmp_path / "r")
    assert len(results) == 3 and all(record["reward"] == 1.0 for record in results)
    asked = [text for record in results for text in said(record) if text.startswith("Please do this")]
    assert "Please do this on your side: sign_in {}" in asked
    assert json.loads((tmp_path / "r" / "manifest.json").read_text())["domain"] == "library"


def test_the_installed_pack_verifies_generates_with_its_extension_and_its_agent_solves_the_tasks(
    tmp_path: Path,
) -> None:
    require_installed_pack()
    verified = tau2("verify", str(TASKS), cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.strip() == "3 tasks: 3 valid, 0 invalid"
    generate = ["generate", "--domain", "library", "--personas", "none", "--max-subtasks", "2"]
    made = tau2(*generate, "--catalog-extension", "library-extra", "-o", "suite.json", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    suite = json.loads((tmp_path / "suite.json").read_text())
    assert suite["catalog_version"] == "library-1+library-extra-1"
    assert "[book_wont_open]app_outdated[PERSONA:None]" in [task["id"] for task in suite["tasks"]]
    assert tau2("verify", "suite.json", cwd=tmp_path).returncode == 0
    desk = ["--agent", "library-desk", "--user", "scripted", "--out", "desk", "--quiet"]
    ran = tau2("run", "--suite", "suite.json", *desk, cwd=tmp_path)
    assert ran.returncode == 0 and "warning" not in ran.stderr, ran.stderr
    assert all(record["reward"] == 1.0 for record in records(tmp_path / "desk"))


def test_the_installed_pack_passes_check_domain_and_lists_its_kind() -> None:
    require_installed_pack()
    from tau2 import actor_kinds, available_domains, check_domain, get_domain

    assert "library" in available_domains() and "library-desk" in actor_kinds(Side.AGENT)
    assert check_domain(get_domain("library")) == []


def test_the_installed_pack_adds_a_lint_check_a_user_check_and_a_statistic_that_keep_their_contracts() -> (
    None
):
    require_installed_pack()
    from library_pack import CARD_NEVER_GIVEN, CARD_NOT_STATED, FLIP_SHARE

    from tau2.audit import (
        SeatTools,
        audit_trajectory,
        check_lint_check,
        check_user_check,
        lint_checks,
        lint_task,
        user_checks,
    )
    from tau2.episode import Entry, EntryKind, Trajectory
    from tau2.metrics import PairedUnit, check_experiment_statistic, experiment_statistics, statistic_values
    from tau2.tasks import get_domain
    from tau2.tau2bench import load_task_file

    assert "card_not_stated" in lint_checks() and "card_never_given" in user_checks()
    assert "flip_share" in [statistic.name for statistic in experiment_statistics()]
    assert check_lint_check(CARD_NOT_STATED, "library") == check_user_check(CARD_NEVER_GIVEN, "library") == []
    assert check_experiment_statistic(FLIP_SHARE) == []
    task = load_task_file(TASKS, None)[0]
    scenario = task.user_scenario.model_copy(update={"persona_text": None})
    cardless = task.model_copy(
        update={"user_scenario": scenario.model_copy(update={"instructions": "My e-book will not open."})}
    )
    assert "card_not_stated" not in [finding.check for finding in lint_task(task)]
    assert "card_not_stated" in [finding.check for finding in lint_task(cardless)]
    said = Trajectory(
        entries=[Entry(index=0, seat=Side.USER, kind=EntryKind.MESSAGE, text="It will not open.")]
    )
    tools = SeatTools.of(get_domain("library"), task)
    assert "card_never_given" in [finding.check for finding in audit_trajectory(said, tools, task)]
    units = [PairedUnit("a", 0, True, False), PairedUnit("b", 0, True, True), PairedUnit("c", 0, None, True)]
    assert {value.name: value.value for value in statistic_values(units)}["flip_share"] == 0.5


def test_the_installed_pack_adds_a_retrieval_engine_and_a_perturbation_that_keep_their_contracts(
    tmp_path: Path,
) -> None:
    require_installed_pack()
    from library_pack import HURRIED_MEMBER, TITLES

    from tau2.perturbations import available_perturbations, check_perturbation
    from tau2.retrieval import available_engines, check_engine, get_engine
    from tau2.tau2bench import load_task_file

    assert "titles" in available_engines() and get_engine("titles") is TITLES
    assert check_engine(TITLES) == []
    assert "hurried_member" in available_perturbations()
    task = load_task_file(TASKS, None)[0]
    assert check_perturbation(HURRIED_MEMBER, task, {"rate": 1.0}) == []
    run = tmp_path / "hurried"
    ran = tau2(
        "run", "--domain", "library", "--agent", "oracle", "--user", "scripted",
        "--perturbation", "hurried_member:rate=1", "--out", str(run), cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    done = records(run)
    assert done and all(record["reward"] == 1.0 and record["perturbation"] for record in done)


# Not installed: named as module:attribute


@pytest.fixture
def annex(tmp_path: Path) -> Path:
    """The pack's package copied as `annex_pack`, its domain renamed `annex`: a pack nothing installed."""
    folder = tmp_path / "modules"
    shutil.copytree(PACK / "library_pack", folder / "annex_pack")
    init, tasks = folder / "annex_pack" / "__init__.py", folder / "annex_pack" / "tasks.json"
    init.write_text(init.read_text().replace('name="library"', 'name="annex"'))
    tasks.write_text(tasks.read_text().replace('"domain": "library"', '"domain": "annex"'))
    return folder


def test_a_domain_on_the_python_path_runs_as_module_colon_attribute(tmp_path: Path, annex: Path) -> None:
    reference = ["--domain", "annex_pack:DOMAIN"]
    seats = ["--agent", "annex_pack:DESK", "--user", "scripted", "--quiet"]
    ran = tau2("run", *reference, *seats, "--workers", "2", "--out", "w", cwd=tmp_path, path=annex)
    assert ran.returncode == 0, ran.stderr
    assert [record["reward"] for record in records(tmp_path / "w")] == [1.0, 1.0, 1.0]
    assert json.loads((tmp_path / "w" / "manifest.json").read_text())["domain"] == "annex"
    made = tau2("generate", *reference, "--personas", "none", "-o", "s.json", cwd=tmp_path, path=annex)
    assert made.returncode == 0, made.stderr
    assert json.loads((tmp_path / "s.json").read_text())["domain"] == "annex"
    verified = tau2("verify", "s.json", *reference, cwd=tmp_path, path=annex)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    unnamed = tau2("verify", "s.json", cwd=tmp_path, path=annex)
    assert unnamed.returncode == 2
    assert unnamed.stderr.startswith("error: unknown domain 'annex' (available: ")
    assert "named as module:attribute" in unnamed.stderr


def test_a_domain_reference_that_does_not_load_is_one_line(tmp_path: Path) -> None:
    seats = ["--agent", "oracle", "--user", "scripted", "--out", "r"]
    ran = tau2("run", "--domain", "no_such_pack:DOMAIN", *seats, cwd=tmp_path)
    assert ran.returncode == 2
    assert ran.stderr.strip().splitlines() == [
        "error: domain 'no_such_pack:DOMAIN' could not be loaded: "
        "ModuleNotFoundError: No module named 'no_such_pack'"
    ]
