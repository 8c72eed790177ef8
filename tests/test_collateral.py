"""Collateral damage: the records a simulation changes that its task's reference solution leaves alone, named
by record and attributed to the calls (seat, tool) that changed them, recorded with every simulation and
reported beside pass^k; the reward never moves."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel
from tau.conformance import conformance_dir
from typer.testing import CliRunner

from tau2.cli import app
from tau2.runs import load_run
from tau2.tasks import RewardType, get_domain, initialize_world
from tau2.tau2bench import load_task_file
from tau2.world import Side, WriteCall, WriteTracker, record_name, record_paths, state_changes

COLLATERAL_ORACLE = "tau2.testing:collateral_oracle"
REPOSITORY = Path(__file__).resolve().parents[1]
TELECOM_SMALL = REPOSITORY / "domains" / "telecom" / "suites" / "small.json"
runner = CliRunner()


def invoke(*arguments: str | Path) -> str:
    result = runner.invoke(app, [str(argument) for argument in arguments])
    assert result.exit_code == 0, result.output
    return result.output


def run(out: Path, agent: str, *options: str | Path) -> list[Any]:
    """Run `agent` with the scripted user and return the run's records."""
    invoke("run", "--agent", agent, "--user", "scripted", "--quiet", "--out", out, *options)
    return list(load_run(out).records)


def report(run_dir: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(invoke("report", run_dir, "--json"))
    return document


# Records: what a change belongs to, told from the state's own model.


class Item(BaseModel):
    name: str = ""
    size: int = 0


class Listed(BaseModel):
    item_id: str
    size: int = 0


class Store(BaseModel):
    items: dict[str, Item] = {}
    rows: list[Listed] = []
    flag: bool = False


def test_a_list_item_is_named_by_its_own_identifier_whatever_its_position() -> None:
    state = Store(rows=[Listed(item_id="R1"), Listed(item_id="R2", size=3)])
    changes = state_changes(
        Store(rows=[Listed(item_id="R1"), Listed(item_id="R2")]).model_dump_json().encode(),
        state.model_dump_json().encode(),
    )
    places = record_paths(Store, changes)
    assert list(places) == ["rows[1]"]
    assert record_name(state, places["rows[1]"], changes) == "rows[R2]"


def test_a_removed_list_item_is_named_from_its_removal() -> None:
    start, end = Store(rows=[Listed(item_id="R1"), Listed(item_id="R2")]), Store(rows=[Listed(item_id="R1")])
    changes = state_changes(start.model_dump_json().encode(), end.model_dump_json().encode())
    (place,) = record_paths(Store, changes).values()
    assert record_name(end, place, changes) == "rows[R2]"


def test_a_field_reached_through_models_alone_belongs_to_its_top_level_field() -> None:
    start, end = Store(), Store(flag=True)
    changes = state_changes(start.model_dump_json().encode(), end.model_dump_json().encode())
    assert list(record_paths(Store, changes)) == ["flag"]


@given(st.text(alphabet="ab.#-_1", min_size=1, max_size=12).filter(lambda key: "name" not in key))
def test_a_map_key_with_dots_is_one_record(key: str) -> None:
    start, end = Store(items={key: Item()}), Store(items={key: Item(name="x", size=2)})
    changes = state_changes(start.model_dump_json().encode(), end.model_dump_json().encode())
    places = record_paths(Store, changes)
    assert list(places) == [f"items.{key}"]
    assert all(change.path.startswith(f"items.{key}.") for change in changes)


@pytest.mark.parametrize("domain", ["telecom", "airline", "retail", "banking_knowledge"])
def test_every_reference_change_lies_inside_its_record(domain: str) -> None:
    """For every reference solution of a pack's own tasks: each change's path starts with its record's, and
    records in lists are named by their identifiers."""
    pack = get_domain(domain)
    named = 0
    for task in load_task_file(pack.default_suite, domain):
        world = initialize_world(task)
        start = world.snapshot()
        for step in task.evaluation.solution:
            world.call(step.side, step.name, step.arguments)
        changes = state_changes(start, world.snapshot())
        places = record_paths(type(world.state), changes)
        for change in changes:
            assert any(
                change.path == path or change.path.startswith((f"{path}.", f"{path}[")) for path in places
            )
        for place in places.values():
            name = record_name(world.state, place, changes)
            named += 1
            if place.in_list:
                assert not name.endswith(f"[{place.steps[-1]}]"), name
    assert named


# Which calls, and seats, changed each record.


def telecom_world() -> Any:
    task = load_task_file(TELECOM_SMALL, "telecom")[0]
    return initialize_world(task)


def test_each_record_is_attributed_to_the_seat_and_tool_that_changed_it() -> None:
    world = telecom_world()
    start = world.snapshot()
    tracker = WriteTracker(world)
    calls = [
        (Side.AGENT, "get_customer_by_id", {"customer_id": "C2002"}),
        (Side.AGENT, "suspend_line", {"customer_id": "C2002", "line_id": "L2003", "reason": "test"}),
        (Side.USER, "toggle_airplane_mode", {}),
    ]
    for entry, (seat, name, arguments) in enumerate(calls):
        tracker.before(name)
        assert world.call(seat, name, arguments).ok
        tracker.after(WriteCall(entry=entry, seat=seat, tool=name))
    written = tracker.written(state_changes(start, world.snapshot()))
    by_name = {write.record: write.calls for write in written.values()}
    assert by_name == {
        "crm.lines[L2003]": [WriteCall(entry=1, seat=Side.AGENT, tool="suspend_line")],
        "device": [WriteCall(entry=2, seat=Side.USER, tool="toggle_airplane_mode")],
    }


def test_a_record_changed_and_changed_back_is_not_written() -> None:
    world = telecom_world()
    start = world.snapshot()
    tracker = WriteTracker(world)
    for entry in range(2):
        tracker.before("toggle_airplane_mode")
        world.call(Side.USER, "toggle_airplane_mode", {})
        tracker.after(WriteCall(entry=entry, seat=Side.USER, tool="toggle_airplane_mode"))
    assert tracker.written(state_changes(start, world.snapshot())) == {}


# Runs: recorded with every simulation, reported beside pass^k.


def test_collateral_oracle_passes_telecom_with_collateral_on_every_simulation(tmp_path: Path) -> None:
    """The bar: pass^1 1.0 and a collateral rate of 1.0 in telecom, where the reward reads only the
    assertions; the oracle's own run has rate 0 and the same rewards."""
    damaged = run(tmp_path / "collateral", COLLATERAL_ORACLE, "--domain", "telecom")
    clean = run(tmp_path / "oracle", "oracle", "--domain", "telecom")
    assert [r.reward for r in damaged] == [r.reward for r in clean]
    for record in damaged:
        (write,) = record.collateral
        assert write.record.startswith("crm.lines[L")
        assert [(c.seat, c.tool) for c in write.calls] == [(Side.AGENT, "suspend_line")]
        assert record.missing_writes is None, "telecom is scored by assertions, not its database"
    damaged_report, clean_report = report(tmp_path / "collateral"), report(tmp_path / "oracle")
    assert damaged_report["pass_hat_k"]["1"]["value"] == 1.0
    assert damaged_report["collateral_rate"] == 1.0
    assert damaged_report["collateral"]["calls"] == [
        {"seat": "agent", "tool": "suspend_line", "simulations": len(damaged), "records": len(damaged)}
    ]
    assert len(damaged_report["collateral"]["simulations"]) == len(damaged)
    assert clean_report["collateral_rate"] == 0.0
    assert clean_report["collateral"]["simulations"] == []
    headline = invoke("report", tmp_path / "collateral")
    assert f"collateral damage 1.000 [0.98, 1.00]: {len(damaged)} of {len(damaged)} simulations" in headline


@pytest.mark.parametrize("domain", ["airline", "retail", "banking_knowledge"])
def test_the_oracle_does_no_collateral_damage(domain: str, tmp_path: Path) -> None:
    """On each pack's own data (telecom's oracle run is the bar's test above)."""
    records = run(tmp_path / "run", "oracle", "--domain", domain)
    assert records and all(record.collateral == [] for record in records)
    assert report(tmp_path / "run")["collateral_rate"] == 0.0


CONFORMANCE = [
    ("airline", "airline", "tasks.json"),
    ("retail", "retail", "tasks.json"),
    ("banking", "banking_knowledge", "tasks"),
]


@pytest.mark.parametrize(("folder", "domain", "tasks"), CONFORMANCE)
def test_the_oracle_does_no_collateral_damage_on_tau2_bench_data(
    folder: str, domain: str, tasks: str, tmp_path: Path
) -> None:
    """τ²-bench's own tasks and databases: no extra write, and missing writes only where the oracle's
    replay of the reference fails the database check."""
    data = conformance_dir(folder)
    records = run(tmp_path / "run", "oracle", "--domain", domain, "--suite", data / tasks, "--data-dir", data)
    assert all(record.collateral == [] for record in records)
    assert not [r.task_id for r in records if r.missing_writes and r.success]
    assert report(tmp_path / "run")["collateral_rate"] == 0.0


@pytest.mark.parametrize(
    ("domain", "tool"),
    [
        ("airline", "send_certificate"),
        ("retail", "modify_user_address"),
        ("banking_knowledge", "change_user_email"),
    ],
)
def test_an_extra_write_is_collateral_and_no_missing_write(domain: str, tool: str, tmp_path: Path) -> None:
    """The collateral oracle in the domains scored by their database: its one extra write is collateral, no
    reference write is missing, and the extra write fails every task whose reward compares the database."""
    records = run(tmp_path / "run", COLLATERAL_ORACLE, "--domain", domain)
    for record in records:
        (write,) = record.collateral
        assert [(c.seat, c.tool) for c in write.calls] == [(Side.AGENT, tool)]
        assert record.missing_writes in (None, [])
    scored = [record for record in records if record.missing_writes is not None]
    assert scored and not any(record.success for record in scored)


def test_a_missing_write_is_not_collateral(tmp_path: Path) -> None:
    """The null agent in airline writes nothing: every write of the reference is missing, none collateral."""
    records = run(tmp_path / "run", "null", "--domain", "airline")
    assert all(r.collateral == [] for r in records)
    writing = [r for r in records if r.missing_writes]
    assert writing and all(w.calls == [] for r in writing for w in r.missing_writes)
    summary = report(tmp_path / "run")["collateral"]
    assert (summary["damaged"], summary["missing"]) == (0, len(writing))
    assert summary["database_checked"] == len(records)


def test_household_tasks_score_the_oracle_one_with_no_collateral(tmp_path: Path) -> None:
    """The extended catalog's multi-entity tasks (several customers and lines): the oracle writes only the
    records its reference names; the collateral oracle's write is found among them."""
    suite = tmp_path / "household.json"
    invoke(
        "generate",
        "--catalog",
        "extended",
        "--intents",
        "household_issue",
        "--personas",
        "none",
        "--sample-per-bin",
        "3",
        "-o",
        suite,
    )
    records = run(tmp_path / "oracle", "oracle", "--suite", suite)
    assert len(records) >= 10
    assert all(r.success and r.collateral == [] for r in records)
    assert report(tmp_path / "oracle")["collateral_rate"] == 0.0
    damaged = run(tmp_path / "collateral", COLLATERAL_ORACLE, "--suite", suite)
    assert all(r.success and len(r.collateral) == 1 for r in damaged)


def test_compare_and_experiment_report_show_each_side_s_collateral(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    run(a, "oracle", "--suite", TELECOM_SMALL)
    run(b, COLLATERAL_ORACLE, "--suite", TELECOM_SMALL)
    comparison = json.loads(invoke("compare", a, b, "--json"))
    assert comparison["collateral"]["a"]["rate"]["value"] == 0.0
    assert comparison["collateral"]["b"]["rate"]["value"] == 1.0
    assert "collateral damage: " in invoke("compare", a, b)
    config = tmp_path / "experiment.toml"
    config.write_text(
        f'name = "damage"\nbaseline = "oracle"\n[base]\nsuite = "{TELECOM_SMALL}"\ntrials = 1\n'
        'user = { kind = "scripted" }\n[[arms]]\nname = "oracle"\nagent = { kind = "oracle" }\n'
        f'[[arms]]\nname = "damage"\nagent = {{ kind = "{COLLATERAL_ORACLE}" }}\n'
    )
    invoke("experiment", "run", config, "--out", tmp_path / "experiment")
    document = json.loads(invoke("experiment", "report", tmp_path / "experiment", "--json"))
    rates = {arm["name"]: arm["collateral"]["rate"]["value"] for arm in document["arms"]}
    assert rates == {"oracle": 0.0, "damage": 1.0}
    page = tmp_path / "experiment.html"
    invoke("experiment", "report", tmp_path / "experiment", "--html", page)
    assert "damage: simulations with collateral damage" in page.read_text()


def test_records_made_before_collateral_was_recorded_are_not_counted(tmp_path: Path) -> None:
    out = tmp_path / "run"
    records = run(out, COLLATERAL_ORACLE, "--suite", TELECOM_SMALL)
    results = out / "results.jsonl"
    lines = [json.loads(line) for line in results.read_text().splitlines()]
    for line in lines:
        del line["collateral"]
    results.write_text("".join(json.dumps(line) + "\n" for line in lines))
    document = report(out)
    assert document["collateral_rate"] is None
    assert document["collateral"]["unchecked"] == len(records)
    assert f"{len(records)} not checked" in invoke("report", out)


def test_a_regrade_measures_collateral_against_the_new_reference(tmp_path: Path) -> None:
    """Regraded against a suite whose reference makes the collateral oracle's extra write, the simulation
    no longer has collateral damage."""
    source = run(tmp_path / "run", COLLATERAL_ORACLE, "--suite", TELECOM_SMALL)
    suite = json.loads(TELECOM_SMALL.read_text())
    line = source[0].collateral[0].record.removeprefix("crm.lines[").removesuffix("]")
    arguments = source[0].trajectory.entries[source[0].collateral[0].calls[0].entry].tool_call.arguments
    assert arguments["line_id"] == line
    for task in suite["tasks"]:
        step = {"side": "agent", "name": "suspend_line", "arguments": arguments, "action_id": "collateral"}
        task["evaluation"]["solution"] = [step, *task["evaluation"]["solution"]]
    changed = tmp_path / "suite.json"
    changed.write_text(json.dumps(suite))
    invoke("regrade", tmp_path / "run", "--suite", changed, "--out", tmp_path / "regraded")
    regraded = {(r.task_id, r.trial): r for r in load_run(tmp_path / "regraded").records}
    same_line = [r for r in source if r.collateral[0].record == f"crm.lines[{line}]"]
    assert same_line
    assert all(regraded[r.task_id, r.trial].collateral == [] for r in same_line)
    unchanged = invoke("regrade", tmp_path / "run", "--suite", TELECOM_SMALL, "--out", tmp_path / "same")
    assert unchanged
    assert [r.collateral for r in load_run(tmp_path / "same").records] == [r.collateral for r in source]


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_imported_tau2_bench_simulations_are_measured_from_their_replayed_calls(
    domain: str, tmp_path: Path
) -> None:
    """A τ²-bench results file replayed in our world: simulations that pass on the database wrote exactly
    the reference's records (no collateral, no missing write), those that fail on it show why."""
    data = conformance_dir(domain)
    results = REPOSITORY / "tests" / "fixtures" / "tau2bench" / f"gold_{domain}_results.json"
    invoke("import", "tau2bench", results, "--out", tmp_path / "run", "--data-dir", data)
    records = list(load_run(tmp_path / "run").records)
    scored = [r for r in records if r.missing_writes is not None]
    passed = [r for r in scored if r.success]
    assert passed and all(r.collateral == [] and r.missing_writes == [] for r in passed)
    assert any(r.state_changes for r in passed)
    database_failures = [
        r for r in scored if any(c.kind is RewardType.DB and c.passed is False for c in r.checks)
    ]
    assert database_failures and all(r.collateral or r.missing_writes for r in database_failures)
