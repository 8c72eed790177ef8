"""What a score rests on: content hashes of the tasks, policy, data, simulated-user prompt and judges in
every manifest and record; older manifests and records still load (their provenance unknown); `compare`
refuses runs whose scores rest on other content (domain, task content, domain data) unless given
--allow-mismatch, and names every other difference (a policy, a persona) as what the runs differ in."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from fixtures.make_runs import RUNS_DIR
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError
from tau.conformance import conformance_dir
from typer.testing import CliRunner, Result

from tau2.actors import actor_kind
from tau2.cli import app
from tau2.domains.mock.tasks import MOCK_TASKS
from tau2.episode import ActorSpec, Mode
from tau2.llm import ModelSpec
from tau2.runner._manifest import judge_hash, prompt_versions
from tau2.runs import (
    RunManifest,
    SimulationRecord,
    check_provenance,
    load_run,
    record_provenance,
    task_hash,
)
from tau2.tasks import Task
from tau2.tau2bench import BASIS_IMPLIED_KEY, METADATA_KEY
from tau2.world import Side

runner = CliRunner()
OFFLINE = ["--agent", "oracle", "--user", "scripted", "--quiet"]
LLM_PROMPTS_V1 = "06357fa7bc1d8fe975fe0d71eb63ad70f92e3225dfe591936fa2e835a57c2817"
"""The hash of every LLM prompt template at prompt version "1" (`test_llm_prompts_match_their_version`)."""


def run(*arguments: str | Path) -> Result:
    result = runner.invoke(app, ["run", *map(str, arguments)])
    assert result.exit_code == 0, result.output
    return result


def compare(*arguments: str | Path) -> Result:
    return runner.invoke(app, ["compare", *map(str, arguments)])


def edited_suite(suite_file: Path, path: Path, task: int, field: str, value: Any) -> Path:
    data = json.loads(suite_file.read_text(encoding="utf-8"))
    data["tasks"][task][field] = value
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# --- task hashes ---------------------------------------------------------------------------------------


def test_task_hash_ignores_key_order_and_how_a_file_spelled_the_basis() -> None:
    task = MOCK_TASKS[0]
    data = task.model_dump(mode="json")
    reordered = Task.model_validate(json.loads(json.dumps(dict(reversed(list(data.items()))))))
    assert task_hash(reordered) == task_hash(task)
    implied = task.model_copy(update={"metadata": {METADATA_KEY: {BASIS_IMPLIED_KEY: True}}})
    assert task_hash(implied) == task_hash(task)
    noted = task.model_copy(
        update={"metadata": {METADATA_KEY: {BASIS_IMPLIED_KEY: True, "description": "x"}}}
    )
    assert task_hash(noted) == task_hash(
        task.model_copy(update={"metadata": {METADATA_KEY: {"description": "x"}}})
    )
    assert task_hash(noted) != task_hash(task)


TEXT_CHARACTER = st.characters(exclude_categories=["Cs"])
"""Any character a task accepts: everything but the UTF-16 surrogates, which are not text."""


def with_ticket(text: str) -> Task:
    """The first mock task with `text` as its ticket, validated as any task built in code is."""
    return Task.model_validate({**MOCK_TASKS[0].model_dump(), "ticket": text})


@given(text=st.text(TEXT_CHARACTER, min_size=1, max_size=40), data=st.data())
def test_a_one_character_change_of_a_task_changes_its_hash(text: str, data: st.DataObject) -> None:
    task = with_ticket(text)
    position = data.draw(st.integers(0, len(text) - 1))
    other = data.draw(TEXT_CHARACTER.filter(lambda character: character != text[position]))
    edited = with_ticket(text[:position] + other + text[position + 1 :])
    assert task_hash(edited) != task_hash(task)
    assert task_hash(task.model_copy()) == task_hash(task)


@given(
    text=st.text(TEXT_CHARACTER, max_size=20),
    position=st.integers(0, 20),
    surrogate=st.characters(categories=["Cs"]),
)
def test_a_task_holding_a_lone_surrogate_is_refused_where_it_is_built(
    text: str, position: int, surrogate: str
) -> None:
    position %= len(text) + 1
    with pytest.raises(ValidationError, match=r"ticket\n.*contains an unpaired UTF-16 surrogate"):
        with_ticket(text[:position] + surrogate + text[position:])
    data = {**MOCK_TASKS[0].model_dump(), "metadata": {"notes": ["fine", surrogate]}}
    with pytest.raises(ValidationError, match=r"metadata\n.*notes\[1\]: contains an unpaired UTF-16"):
        Task.model_validate(data)


@given(
    text=st.text(TEXT_CHARACTER, min_size=1, max_size=40),
    position=st.integers(0, 39),
    other=TEXT_CHARACTER,
)
def test_a_one_character_change_of_a_judge_setting_changes_the_judge_hash(
    text: str, position: int, other: str
) -> None:
    position %= len(text)
    edited = text[:position] + other + text[position + 1 :]
    judge = ModelSpec(name="judge", args={"system_note": text})
    same = ModelSpec(name="judge", args={"system_note": text, "api_key": "sk-a-secret"})
    assert judge_hash([judge]) == judge_hash([same])
    assert (judge_hash([ModelSpec(name="judge", args={"system_note": edited})]) == judge_hash([judge])) == (
        edited == text
    )


@given(surrogate=st.characters(categories=["Cs"]))
def test_a_model_named_or_configured_with_a_lone_surrogate_is_refused(surrogate: str) -> None:
    with pytest.raises(ValidationError, match=r"args\n.*note\[1\]: contains an unpaired UTF-16 surrogate"):
        ModelSpec(name="judge", args={"note": ["fine", f"a{surrogate}"]})
    with pytest.raises(ValidationError, match=r"\nname\n"):
        ModelSpec(name=f"judge{surrogate}")


def test_llm_prompts_match_their_version() -> None:
    """Changing an LLM seat's prompt must bump its version: pin the new hash below with the new version."""
    kind = actor_kind("llm")
    assert kind.prompt_template is not None and kind.prompt_version == "1"
    digest = hashlib.sha256()
    for seat in Side:
        for mode in Mode:
            for talk_only in (False, True):
                digest.update(kind.prompt_template(seat, mode, talk_only).encode() + b"\x00")
    assert digest.hexdigest() == LLM_PROMPTS_V1
    llm = ActorSpec(kind="llm", model=ModelSpec(name="m"))
    assert prompt_versions(llm, llm) == {"agent_prompt": "1", "user_prompt": "1"}
    assert prompt_versions(ActorSpec(kind="oracle"), ActorSpec(kind="scripted")) == {}


# --- manifests and records ------------------------------------------------------------------------------


def test_runs_of_the_same_inputs_record_the_same_hashes_and_each_record_its_own(
    suite_file: Path, tmp_path: Path
) -> None:
    run("--suite", suite_file, *OFFLINE, "--out", tmp_path / "a")
    run("--suite", suite_file, *OFFLINE, "--out", tmp_path / "b", "--seed", "9")
    a, b = load_run(tmp_path / "a"), load_run(tmp_path / "b")
    assert a.manifest.run_id != b.manifest.run_id
    assert (a.manifest.hashes, a.manifest.task_hashes) == (b.manifest.hashes, b.manifest.task_hashes)
    assert a.manifest.task_hashes == {task.id: task_hash(task) for task in MOCK_TASKS}
    assert {"policy", "data"} <= set(a.manifest.hashes) and a.manifest.versions["tau2"]
    for record in a.records:
        provenance = record.provenance
        assert provenance is not None and provenance == record_provenance(a.manifest, record.task_id)
        assert provenance.task == a.manifest.task_hashes[record.task_id]
        assert (provenance.policy, provenance.data) == (
            a.manifest.hashes["policy"],
            a.manifest.hashes["data"],
        )
        assert provenance.tau2 == a.manifest.versions["tau2"] and provenance.judge is None
    assert check_provenance([a.manifest, b.manifest]).mismatches == []
    assert check_provenance([a.manifest, b.manifest]).notes == []


def test_manifests_and_records_made_before_the_hashes_load_and_stay_as_they_were() -> None:
    old = load_run(RUNS_DIR / "interactive")
    assert old.manifest.task_hashes == {} and old.manifest.regraded_from is None
    assert all(record.provenance is None for record in old.records)
    lines = (RUNS_DIR / "interactive" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    record = SimulationRecord.model_validate_json(lines[0])
    assert "provenance" not in json.loads(lines[0]) and "provenance" not in record.model_dump(mode="json")
    assert record_provenance(old.manifest, old.records[0].task_id) is None
    check = check_provenance([old.manifest, load_run(RUNS_DIR / "solo").manifest])
    assert check.mismatches == [] and len(check.notes) == 2
    assert all("provenance unknown" in note for note in check.notes)


def test_a_run_made_before_the_hashes_resumes(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "old"
    run("--suite", suite_file, *OFFLINE, "--out", out)
    path = out / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    del manifest["hashes"]["data"], manifest["task_hashes"]
    path.write_text(json.dumps(manifest), encoding="utf-8")
    results = out / "results.jsonl"
    stripped = [
        {key: value for key, value in json.loads(line).items() if key != "provenance"}
        for line in results.read_text(encoding="utf-8").splitlines()
    ]
    results.write_text("".join(json.dumps(line) + "\n" for line in stripped), encoding="utf-8")
    run("--suite", suite_file, *OFFLINE, "--out", out, "--resume", "--trials", "2")
    resumed = load_run(out)
    assert resumed.manifest.task_hashes == {} and "data" not in resumed.manifest.hashes
    assert len(resumed.records) == 2 * len(MOCK_TASKS)
    assert all(record.provenance is None for record in resumed.records)


# --- compare --------------------------------------------------------------------------------------------


def test_compare_refuses_runs_of_different_task_content_in_one_line_unless_allowed(
    suite_file: Path, tmp_path: Path
) -> None:
    changed = edited_suite(suite_file, tmp_path / "changed.json", 0, "ticket", "Ada's lamp is dark!")
    run("--suite", suite_file, *OFFLINE, "--out", tmp_path / "a")
    run("--suite", changed, *OFFLINE, "--out", tmp_path / "b")
    a, b = (load_run(tmp_path / name).manifest.run_id for name in ("a", "b"))
    refused = compare(tmp_path / "a", tmp_path / "b")
    assert refused.exit_code == 2 and refused.stdout == ""
    assert refused.stderr.splitlines() == [
        f"error: cannot compare: task content differs between runs {a} and {b} for 1 task "
        f"({MOCK_TASKS[0].id}) (the scores rest on different content; --allow-mismatch compares anyway)"
    ]
    allowed = compare(tmp_path / "a", tmp_path / "b", "--allow-mismatch")
    assert allowed.exit_code == 0, allowed.output
    assert f"warning: task content differs between runs {a} and {b}" in allowed.stderr
    assert allowed.stdout.startswith("Comparison:")


def test_persona_ablations_compare_naming_the_persona(suite_file: Path, tmp_path: Path) -> None:
    """A persona override is hashed on its own: the tasks stay those of the file."""
    for persona in ("easy", "hard"):
        run("--suite", suite_file, *OFFLINE, "--persona", persona, "--out", tmp_path / persona)
    easy, hard = (load_run(tmp_path / persona).manifest for persona in ("easy", "hard"))
    assert easy.task_hashes == hard.task_hashes == {task.id: task_hash(task) for task in MOCK_TASKS}
    result = compare(tmp_path / "easy", tmp_path / "hard")
    assert result.exit_code == 0, result.output
    assert result.stderr == "" and "runs differ in: persona\n" in result.stdout


def test_compare_of_runs_made_before_the_hashes_notes_their_provenance_is_unknown() -> None:
    result = compare(RUNS_DIR / "interactive", RUNS_DIR / "solo")
    assert result.exit_code == 0, result.output
    assert "warning: run run-interactive: provenance unknown" in result.stderr


def test_a_one_character_policy_change_changes_the_policy_hash_alone_and_compare_names_it(
    tmp_path: Path,
) -> None:
    """The policy is what an arm may vary: its text differs, the data and tasks do not, so the runs compare
    and the output says what differs."""
    airline = conformance_dir("airline")
    edited = tmp_path / "data"
    edited.mkdir()
    (edited / "db.json").symlink_to(airline / "db.json")
    policy = (airline / "policy.md").read_text(encoding="utf-8")
    (edited / "policy.md").write_text(policy.replace("a", "b", 1), encoding="utf-8")
    suite = airline / "tasks.json"
    for name, data in (("a", airline), ("b", edited)):
        run("--suite", suite, "--data-dir", data, *OFFLINE, "--task-ids", "0,1", "--out", tmp_path / name)
    a, b = (load_run(tmp_path / name).manifest for name in ("a", "b"))
    assert a.hashes["policy"] != b.hashes["policy"] and a.hashes["data"] == b.hashes["data"]
    assert a.task_hashes == b.task_hashes
    assert check_provenance([a, b]).mismatches == []
    result = compare(tmp_path / "a", tmp_path / "b", "--json")
    assert result.exit_code == 0, result.output
    assert "hash policy" in json.loads(result.stdout)["differ_in"]


def test_other_domain_data_refuses_the_comparison(tmp_path: Path) -> None:
    airline = conformance_dir("airline")
    edited = tmp_path / "data"
    edited.mkdir()
    (edited / "policy.md").symlink_to(airline / "policy.md")
    database = json.loads((airline / "db.json").read_text(encoding="utf-8"))
    first = next(iter(database["users"].values()))
    first["name"]["first_name"] += "x"
    (edited / "db.json").write_text(json.dumps(database), encoding="utf-8")
    suite = airline / "tasks.json"
    for name, data in (("a", airline), ("b", edited)):
        run("--suite", suite, "--data-dir", data, *OFFLINE, "--task-ids", "0", "--out", tmp_path / name)
    refused = compare(tmp_path / "a", tmp_path / "b")
    assert refused.exit_code == 2 and len(refused.stderr.splitlines()) == 1
    assert refused.stderr.startswith("error: cannot compare: domain data differs between runs")


def test_runs_over_different_suites_are_refused_in_one_line(suite_file: Path, tmp_path: Path) -> None:
    run("--suite", suite_file, *OFFLINE, "--out", tmp_path / "mock")
    airline = conformance_dir("airline")
    run(
        "--suite",
        airline / "tasks.json",
        "--data-dir",
        airline,
        *OFFLINE,
        "--task-ids",
        "0",
        "--out",
        tmp_path / "air",
    )
    refused = compare(tmp_path / "mock", tmp_path / "air")
    assert refused.exit_code == 2 and refused.stdout == ""
    (line,) = refused.stderr.splitlines()
    assert "are of different domains (mock vs airline)" in line


def test_only_the_data_hash_refuses_and_other_hashes_are_left_to_the_factors() -> None:
    base = RunManifest.model_validate_json((RUNS_DIR / "solo" / "manifest.json").read_text(encoding="utf-8"))
    known = base.model_copy(update={"task_hashes": {"t": "sha256:1"}, "hashes": {"policy": "sha256:p"}})
    other = known.model_copy(
        update={
            "run_id": "other",
            "hashes": {"policy": "sha256:q", "judge": "sha256:j", "persona": "sha256:x"},
        }
    )
    assert check_provenance([known, other]) == check_provenance([known, known])
    assert check_provenance([known, other]).mismatches == []
    changed = other.model_copy(
        update={"hashes": {"policy": "sha256:p", "data": "sha256:d"}, "task_hashes": {"t": "sha256:2"}}
    )
    with_data = known.model_copy(update={"hashes": {"policy": "sha256:p", "data": "sha256:e"}})
    assert [line.split(" ")[:2] for line in check_provenance([with_data, changed]).mismatches] == [
        ["task", "content"],
        ["domain", "data"],
    ]
    assert check_provenance([known, changed]).mismatches[1:] == []  # a data hash only one run has: unknown


def test_solo_against_interactive_of_the_same_suite_compares_without_a_flag_naming_the_mode(
    suite_file: Path, tmp_path: Path
) -> None:
    """The solo policy text differs from the interactive one by design: the mode is what this varies."""
    for mode in ("solo", "interactive"):
        run("--suite", suite_file, *OFFLINE, "--mode", mode, "--out", tmp_path / mode)
    solo, interactive = (load_run(tmp_path / mode).manifest for mode in ("solo", "interactive"))
    assert solo.hashes["policy"] != interactive.hashes["policy"]
    text = compare(tmp_path / "solo", tmp_path / "interactive")
    assert text.exit_code == 0 and text.stderr == "", text.output
    assert text.stdout.splitlines()[2] == "runs differ in: mode"
    document = compare(tmp_path / "solo", tmp_path / "interactive", "--json")
    assert json.loads(document.stdout)["differ_in"] == ["mode"]
    page = compare(tmp_path / "solo", tmp_path / "interactive", "--html", "-")
    assert "runs differ in: mode" in page.stdout
