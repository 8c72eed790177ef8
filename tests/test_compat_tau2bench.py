"""τ²-bench task files and our suite files: conversion round trips, detection, and one-line errors."""

from __future__ import annotations

import copy
import gc
import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tau2 import RewardType, _jsonfile
from tau2._jsonfile import field_path
from tau2.errors import UserInputError
from tau2.tasks import (
    AssertionCall,
    EnvCall,
    Evaluation,
    InitialData,
    SolutionStep,
    Suite,
    Task,
    UserInstructions,
    load_suite,
)
from tau2.tasks import UserScenario as OurScenario
from tau2.tau2bench import (
    BASIS_IMPLIED_KEY,
    METADATA_KEY,
    Tau2Task,
    default_reward_basis,
    load_task_file,
    parse_task_id,
    task_from_tau2,
    task_to_tau2,
    write_tau2_file,
)
from tau2.tau2bench import _task_files as _tau2bench
from tau2.tau2bench._task_files import TaskIssue
from tau2.world import Side

CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "tau2-telecom"
TRANSFER = "transfer_to_human_agents"


def mock_record(**overrides: Any) -> dict[str, Any]:
    """A small valid τ²-bench task of the mock domain."""
    record: dict[str, Any] = {
        "id": "[lamp_issue]unplugged[PERSONA:Easy]",
        "description": {"purpose": "Lamp path.", "relevant_policies": None, "notes": None},
        "user_scenario": {
            "persona": "Patient.",
            "instructions": {
                "domain": "mock",
                "reason_for_call": "The lamp is dark.",
                "known_info": "You are Ada.",
                "unknown_info": None,
                "task_instructions": "Follow the agent.",
            },
        },
        "ticket": "Ada's lamp is dark.",
        "initial_state": {
            "initialization_data": None,
            "initialization_actions": [{"env_type": "user", "func_name": "unplug", "arguments": {}}],
            "message_history": None,
        },
        "evaluation_criteria": {
            "actions": [
                {
                    "action_id": "plug_in_0",
                    "requestor": "user",
                    "name": "plug_in",
                    "arguments": {},
                    "info": None,
                    "compare_args": None,
                }
            ],
            "env_assertions": [
                {
                    "env_type": "user",
                    "func_name": "assert_lamp_lit",
                    "arguments": {"expected_status": True},
                    "assert_value": True,
                    "message": None,
                }
            ],
            "communicate_info": None,
            "nl_assertions": None,
            "reward_basis": ["ENV_ASSERTION"],
        },
    }
    record.update(overrides)
    return record


def write(tmp_path: Path, data: Any, name: str = "tasks.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def load_error(path: Path, domain: str | None = None) -> str:
    with pytest.raises(UserInputError) as caught:
        load_task_file(path, domain)
    message = str(caught.value)
    assert "\n" not in message
    return message


# --- conversion -----------------------------------------------------------------------------------------


def test_mock_record_converts_to_our_task() -> None:
    task = task_from_tau2(Tau2Task.model_validate(mock_record()), "mock")
    assert (task.intent, task.subtasks, task.persona) == ("lamp_issue", ["unplugged"], "Easy")
    assert task.purpose == "Lamp path."
    assert task.user_scenario.persona_text == "Patient."
    assert task.initialization == [EnvCall(side=Side.USER, name="unplug")]
    assert task.evaluation.solution[0].side is Side.USER
    assert task.evaluation.assertions[0].expected is True
    assert not task.evaluation.expects_transfer
    assert task.metadata == {}
    assert task_to_tau2(task) == mock_record()


def test_assistant_is_our_agent_side_both_ways() -> None:
    record = mock_record()
    record["evaluation_criteria"]["actions"] = [
        {"action_id": "transfer", "name": TRANSFER, "arguments": {"summary": "x"}, "compare_args": []}
    ]
    record["evaluation_criteria"]["reward_basis"] = ["ENV_ASSERTION", "ACTION"]
    task = task_from_tau2(Tau2Task.model_validate(record), "mock")
    (step,) = task.evaluation.solution
    assert step.side is Side.AGENT and step.compare_args == []
    assert task.evaluation.expects_transfer
    assert task.metadata == {}
    written = task_to_tau2(task)
    assert written["evaluation_criteria"]["actions"][0]["requestor"] == "assistant"
    assert written["evaluation_criteria"]["reward_basis"] == ["ENV_ASSERTION", "ACTION"]


def test_foreign_fields_are_preserved_in_metadata() -> None:
    record = mock_record(
        issues=[{"id": "1", "title": "Typo", "status": "resolved"}],
        required_documents=["manual.md"],
        user_tools=["plug_in"],
    )
    record["description"]["notes"] = "note"
    record["evaluation_criteria"]["reward_basis"] = ["ENV_ASSERTION", "ACTION"]
    record["evaluation_criteria"]["communicate_info"] = ["say hi"]
    task = task_from_tau2(Tau2Task.model_validate(record), "mock")
    kept = task.metadata[METADATA_KEY]
    assert isinstance(kept, dict)
    assert task.evaluation.reward_basis == [RewardType.ENV_ASSERTION, RewardType.ACTION]
    assert task.evaluation.communicate_info == ["say hi"]
    assert kept["required_documents"] == ["manual.md"]
    assert task.user_tools == ["plug_in"]
    written = task_to_tau2(task)
    expected = copy.deepcopy(record)
    expected["issues"] = [TaskIssue(id="1", title="Typo", status="resolved").model_dump(mode="json")]
    assert written == expected


def test_absent_reward_basis_means_db_and_communicate() -> None:
    record = mock_record()
    del record["evaluation_criteria"]["reward_basis"]
    task = task_from_tau2(Tau2Task.model_validate(record), "mock")
    assert task.evaluation.reward_basis == [RewardType.DB, RewardType.COMMUNICATE]
    assert task.metadata == {METADATA_KEY: {BASIS_IMPLIED_KEY: True}}
    assert task_to_tau2(task)["evaluation_criteria"]["reward_basis"] == ["DB", "COMMUNICATE"]


def test_unknown_keys_inside_tasks_are_ignored() -> None:
    record = mock_record(surprise=1)
    record["description"]["info"] = "joined subtask descriptions"
    task = task_from_tau2(Tau2Task.model_validate(record), "mock")
    assert task_to_tau2(task) == mock_record()


@pytest.mark.parametrize(
    ("task_id", "parsed"),
    [
        ("[service_issue]airplane_mode_on[PERSONA:None]", ("service_issue", ["airplane_mode_on"], "None")),
        ("[mms_issue]a|b|c[PERSONA:Hard]", ("mms_issue", ["a", "b", "c"], "Hard")),
        ("plain id", (None, [], None)),
        ("[service_issue]airplane_mode_on", (None, [], None)),
        ("[]x[PERSONA:None]", (None, [], None)),
    ],
)
def test_parse_task_id(task_id: str, parsed: tuple[str | None, list[str], str | None]) -> None:
    assert parse_task_id(task_id) == parsed


def test_field_path_renders_pydantic_locations() -> None:
    assert (
        field_path((3, "evaluation_criteria", "actions", 0, "name"))
        == "[3].evaluation_criteria.actions[0].name"
    )
    assert field_path(
        ("tasks", 1, "user_scenario", "instructions", "StructuredUserInstructions", "domain")
    ) == ("tasks[1].user_scenario.instructions.domain")


# --- conformance data -------------------------------------------------------------------------------------

needs_conformance = pytest.mark.skipif(
    not (CONFORMANCE / "tasks_small.json").exists(), reason=f"conformance data not found at {CONFORMANCE}"
)


@needs_conformance
def test_conformance_tasks_round_trip() -> None:
    path = CONFORMANCE / "tasks_small.json"
    original = json.loads(path.read_text(encoding="utf-8"))
    tasks = load_task_file(path)
    assert len(tasks) == 20
    written = [task_to_tau2(task) for task in tasks]
    for item in original:
        if item.get("description"):
            item["description"].pop("info", None)
    assert written == original
    assert [list(item) for item in written] == [list(item) for item in original]
    reread = [task_from_tau2(Tau2Task.model_validate(item), "telecom") for item in written]
    assert reread == tasks


@needs_conformance
def test_conformance_tasks_map_to_our_model() -> None:
    tasks = {task.id: task for task in load_task_file(CONFORMANCE / "tasks_small.json")}
    transfer = tasks["[service_issue]lock_sim_card_pin[PERSONA:Hard]"]
    assert transfer.evaluation.expects_transfer
    assert transfer.intent == "service_issue" and transfer.persona == "Hard"
    assert transfer.metadata == {}
    fix = tasks["[mobile_data_issue]data_usage_exceeded[PERSONA:Easy]"]
    assert not fix.evaluation.expects_transfer
    assert fix.evaluation.solution[0].side is Side.AGENT
    assert fix.user_scenario.persona_text is not None
    assert sum(task.evaluation.expects_transfer for task in tasks.values()) == 2


# --- generated tasks round trip -------------------------------------------------------------------------

_names = st.from_regex(r"[a-z][a-z_]{0,7}", fullmatch=True)
_text = st.text(st.characters(blacklist_categories=["Cs"]), max_size=12)
"""Text as a valid file holds it (lone surrogates are refused on reading; see the JSON file tests)."""
_json: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=6,
)
_arguments = st.dictionaries(_names, _json, max_size=3)
_sides = st.sampled_from([Side.AGENT, Side.USER])


@st.composite
def _ids(draw: st.DrawFn) -> tuple[str, str | None, list[str], str | None]:
    if draw(st.booleans()):
        plain = draw(
            st.text(
                alphabet=st.characters(
                    blacklist_characters="[]", blacklist_categories=["Cs", "Cc", "Zl", "Zp"]
                ),
                min_size=1,
                max_size=15,
            ).filter(str.strip)
        )
        return plain, None, [], None
    intent = draw(_names)
    subtasks = draw(st.lists(_names, min_size=1, max_size=3))
    persona = draw(st.sampled_from(["None", "Easy", "Hard", "Grumpy"]))
    return f"[{intent}]{'|'.join(subtasks)}[PERSONA:{persona}]", intent, subtasks, persona


@st.composite
def _metadata(draw: st.DrawFn) -> dict[str, Any]:
    issue = st.builds(
        TaskIssue, id=_text, title=_text, description=st.none() | _text, resolution=st.none() | _text
    ).map(lambda item: item.model_dump(mode="json"))
    kept = draw(
        st.fixed_dictionaries(
            {},
            optional={
                "relevant_policies": _text,
                "notes": _text,
                "issues": st.lists(issue, max_size=2),
                "required_documents": st.lists(_text, max_size=2),
            },
        )
    )
    return {METADATA_KEY: kept} if kept else {}


@st.composite
def _basis(draw: st.DrawFn, expects_transfer: bool) -> list[RewardType] | None:
    """A reward basis as the converter stores it: None when it is the one our assertions imply."""
    basis = draw(st.lists(st.sampled_from(list(RewardType)), max_size=3))
    return None if basis == default_reward_basis(expects_transfer) else basis


@st.composite
def tasks(draw: st.DrawFn) -> Task:
    task_id, intent, subtasks, persona = draw(_ids())
    solution = draw(
        st.lists(
            st.builds(
                SolutionStep,
                side=_sides,
                name=st.sampled_from(["plug_in", "enable_power", TRANSFER]),
                arguments=_arguments,
                action_id=_text,
                compare_args=st.none() | st.lists(_names, max_size=2),
                info=st.none() | _text,
            ),
            max_size=3,
        )
    )
    expects_transfer = any(step.name == TRANSFER for step in solution)
    instructions = draw(
        _text
        | st.builds(
            UserInstructions,
            reason_for_call=_text,
            known_info=st.none() | _text,
            unknown_info=st.none() | _text,
            task_instructions=_text,
        )
    )
    return Task(
        id=task_id,
        domain="mock",
        intent=intent,
        subtasks=subtasks,
        persona=persona,
        purpose=draw(st.none() | _text),
        user_scenario=OurScenario(instructions=instructions, persona_text=draw(st.none() | _text)),
        ticket=draw(st.none() | _text),
        initial_data=draw(
            st.none()
            | st.builds(
                InitialData,
                agent_data=st.none() | st.dictionaries(_names, _json, max_size=2),
                user_data=st.none() | st.dictionaries(_names, _json, max_size=2),
            )
        ),
        initialization=draw(
            st.lists(st.builds(EnvCall, side=_sides, name=_names, arguments=_arguments), max_size=3)
        ),
        evaluation=Evaluation(
            assertions=draw(
                st.lists(
                    st.builds(
                        AssertionCall,
                        side=_sides,
                        name=_names,
                        arguments=_arguments,
                        expected=st.booleans(),
                        message=st.none() | _text,
                    ),
                    max_size=3,
                )
            ),
            solution=solution,
            expects_transfer=expects_transfer,
            reward_basis=draw(_basis(expects_transfer)),
            communicate_info=draw(st.none() | st.lists(_text, max_size=2)),
            nl_assertions=draw(st.none() | st.lists(_text, max_size=2)),
        ),
        user_tools=draw(st.none() | st.lists(_names, max_size=3)),
        metadata=draw(_metadata()),
    )


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(tasks())
def test_generated_tasks_round_trip_through_the_tau2_format(task: Task) -> None:
    text = json.dumps(task_to_tau2(task), ensure_ascii=False)
    assert task_from_tau2(Tau2Task.model_validate(json.loads(text)), "mock") == task


@settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(st.lists(tasks(), max_size=4, unique_by=lambda task: task.id))
def test_generated_task_files_round_trip(tmp_path: Path, generated: list[Task]) -> None:
    path = tmp_path / "generated.json"
    write_tau2_file(path, generated)
    assert load_task_file(path, domain="mock") == generated


# --- one-line errors ------------------------------------------------------------------------------------


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "tasks.json"
    path.write_text('[\n  {"id": "x",}\n]', encoding="utf-8")
    message = load_error(path)
    # The position and wording of the json module's reason vary between Python releases.
    assert re.fullmatch(rf"{re.escape(str(path))}: invalid JSON at line 2, column 1[34]: \S.*", message)


def test_missing_file(tmp_path: Path) -> None:
    assert load_error(tmp_path / "absent.json") == f"{tmp_path / 'absent.json'}: no such file"


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (
            lambda r: r["evaluation_criteria"]["actions"][0].pop("name"),
            "[1].evaluation_criteria.actions[0].name: Field required",
        ),
        (
            lambda r: r["user_scenario"]["instructions"].pop("reason_for_call"),
            "[1].user_scenario.instructions.reason_for_call: Field required",
        ),
        (
            lambda r: r["initial_state"]["initialization_actions"][0].update(env_type="agent"),
            "[1].initial_state.initialization_actions[0].env_type: Input should be 'user' or 'assistant'",
        ),
        (
            lambda r: r["initial_state"].update(message_history=[{"role": "user", "content": "hi"}]),
            "[1].initial_state.message_history: a non-empty message history is not supported",
        ),
        (
            lambda r: r["evaluation_criteria"].update(reward_basis=["DB", "VIBES"]),
            "[1].evaluation_criteria.reward_basis[1]: Input should be 'DB', 'ENV_ASSERTION', 'NL_ASSERTION',"
            " 'ACTION' or 'COMMUNICATE'",
        ),
        (lambda r: r.pop("user_scenario"), "[1].user_scenario: Field required"),
        (
            lambda r: r["user_scenario"].update(instructions=3),
            "[1].user_scenario.instructions: Input should be a valid dictionary or instance of"
            " StructuredUserInstructions",
        ),
    ],
    ids=[
        "action-name",
        "instructions-field",
        "env-type",
        "message-history",
        "reward-basis",
        "scenario",
        "union",
    ],
)
def test_malformed_task_is_one_line_naming_file_and_field(tmp_path: Path, mutate: Any, expected: str) -> None:
    bad = mock_record(id="bad")
    mutate(bad)
    path = write(tmp_path, [mock_record(), bad])
    assert load_error(path) == f"{path}: {expected}"


def test_object_container_paths_start_with_tasks(tmp_path: Path) -> None:
    bad = mock_record()
    del bad["id"]
    path = write(tmp_path, {"tasks": [bad]})
    assert load_error(path) == f"{path}: tasks[0].id: Field required"


def test_object_container_loads(tmp_path: Path) -> None:
    assert [task.id for task in load_task_file(write(tmp_path, {"tasks": [mock_record()]}))] == [
        "[lamp_issue]unplugged[PERSONA:Easy]"
    ]


def test_other_json_is_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, {"task": []})
    assert load_error(path).startswith(f"{path}: expected a JSON array of tasks, an object with key 'tasks'")


def test_duplicate_task_ids_are_rejected(tmp_path: Path) -> None:
    path = write(tmp_path, [mock_record(), mock_record(id="other"), mock_record()])
    assert (
        load_error(path)
        == f"{path}: [2].id: duplicate task id '[lamp_issue]unplugged[PERSONA:Easy]' (also at [0])"
    )


def test_unknown_domain_names_the_field(tmp_path: Path) -> None:
    record = mock_record()
    record["user_scenario"]["instructions"]["domain"] = "nowhere"
    path = write(tmp_path, [record])
    message = load_error(path)
    assert message.startswith(
        f"{path}: [0].user_scenario.instructions.domain: unknown domain 'nowhere' (available:"
    )
    assert "mock" in message
    assert load_task_file(path, domain="mock")[0].domain == "mock"


def test_text_instructions_need_an_explicit_domain(tmp_path: Path) -> None:
    record = mock_record()
    record["user_scenario"]["instructions"] = "Your lamp is dark."
    path = write(tmp_path, [record])
    assert load_error(path) == (
        f"{path}: [0].user_scenario.instructions: text instructions do not name a domain; give it explicitly"
        " (--domain), or the domain's data directory (--data-dir)"
    )
    (task,) = load_task_file(path, domain="mock")
    assert task.user_scenario.instructions == "Your lamp is dark."
    assert task_to_tau2(task)["user_scenario"]["instructions"] == "Your lamp is dark."


# --- suites -------------------------------------------------------------------------------------------------


def mock_suite(**overrides: Any) -> Suite:
    task = task_from_tau2(Tau2Task.model_validate(mock_record()), "mock")
    other = task.model_copy(update={"id": "second", "ticket": "Zoë's lamp — dark."})
    fields: dict[str, Any] = {
        "name": "lamps",
        "domain": "mock",
        "generator": {"intents": ["lamp_issue"], "crossed": True},
        "seed": 7,
        "tasks": [task, other],
    }
    fields.update(overrides)
    return Suite(**fields)


def test_suite_file_is_canonical_and_byte_stable(tmp_path: Path) -> None:
    suite = mock_suite()
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    suite.save(first)
    load_suite(first).save(second)
    assert first.read_bytes() == second.read_bytes()
    text = first.read_text(encoding="utf-8")
    assert text == suite.to_json() and text.endswith("}\n")
    assert "Zoë's lamp — dark." in text
    assert list(json.loads(text)) == [
        "format",
        "format_version",
        "name",
        "domain",
        "catalog_version",
        "generator",
        "seed",
        "tasks",
    ]
    assert load_suite(first) == suite


def test_task_file_loader_detects_suites(tmp_path: Path) -> None:
    path = tmp_path / "suite.json"
    mock_suite().save(path)
    assert load_task_file(path) == mock_suite().tasks
    assert load_error(path, domain="telecom") == f"{path}: domain: the suite is for 'mock', not 'telecom'"


def test_suite_rejects_duplicate_ids_and_foreign_tasks(tmp_path: Path) -> None:
    suite = mock_suite()
    data = json.loads(suite.to_json())
    data["tasks"][1]["id"] = data["tasks"][0]["id"]
    path = write(tmp_path, data, "suite.json")
    assert load_error(path) == (
        f"{path}: tasks: duplicate task id '[lamp_issue]unplugged[PERSONA:Easy]' at [0] and [1]"
    )
    data = json.loads(suite.to_json())
    data["tasks"][1]["domain"] = "telecom"
    path = write(tmp_path, data, "suite.json")
    assert load_error(path) == f"{path}: tasks: [1] has domain 'telecom', not the suite's 'mock'"


def test_suite_field_errors_name_the_field(tmp_path: Path) -> None:
    data = json.loads(mock_suite().to_json())
    data["format_version"] = 2
    assert load_error(write(tmp_path, data, "v2.json")).endswith("v2.json: format_version: Input should be 1")
    data = json.loads(mock_suite().to_json())
    data["tasks"][0]["evaluation"]["assertions"][0]["side"] = "assistant"
    assert load_error(write(tmp_path, data, "side.json")).endswith(
        "side.json: tasks[0].evaluation.assertions[0].side: Input should be 'agent' or 'user'"
    )
    data = json.loads(mock_suite().to_json())
    del data["tasks"][0]["user_scenario"]["instructions"]["reason_for_call"]
    assert load_error(write(tmp_path, data, "union.json")).endswith(
        "union.json: tasks[0].user_scenario.instructions.reason_for_call: Field required"
    )


def test_a_lone_surrogate_in_a_task_file_is_a_one_line_error(tmp_path: Path) -> None:
    path = write(tmp_path, [mock_record(id="bad\ud83d")])
    assert "\\ud83d" in path.read_text(encoding="utf-8"), "json.dumps escapes it, as a hostile file would"
    with pytest.raises(UserInputError, match=r"tasks.json: \[0\]\.id: contains an unpaired UTF-16 surrogate"):
        load_task_file(path, domain="mock")


def test_text_without_a_surrogate_escape_skips_the_surrogate_walk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A surrogate can only come from a `\\uD800`–`\\uDFFF` escape (the file itself is strict UTF-8), so
    text without one is not walked string by string."""
    walked: list[object] = []
    walk = _jsonfile.first_unpaired_surrogate

    def counted(data: object, at: tuple[int | str, ...] = ()) -> tuple[int | str, ...] | None:
        if not at:
            walked.append(data)
        return walk(data, at)

    monkeypatch.setattr(_jsonfile, "first_unpaired_surrogate", counted)
    assert [task.id for task in load_task_file(write(tmp_path, [mock_record(id="caf\u00e9 ☕")]))]
    assert walked == []
    pair = write(tmp_path, [mock_record(id="smile \U0001f600")], "pair.json")
    assert "\\ud83d\\ude00" in pair.read_text(encoding="utf-8")
    assert load_task_file(pair)[0].id == "smile \U0001f600", "a surrogate pair is one character"
    assert len(walked) == 1
    path = tmp_path / "escaped.json"
    path.write_text(json.dumps([mock_record(id="a\\ud800 b")]).replace("\\\\ud800", "\\\\uD800"))
    assert load_task_file(path)[0].id == "a\\uD800 b", "an escaped backslash before `uD800` is plain text"


def test_reading_a_task_file_pauses_the_garbage_collector_and_restores_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    collecting: list[bool] = []
    convert = _tau2bench.task_from_tau2
    monkeypatch.setattr(
        _tau2bench, "task_from_tau2", lambda *args: collecting.append(gc.isenabled()) or convert(*args)
    )
    assert gc.isenabled()
    load_task_file(write(tmp_path, [mock_record()]))
    assert collecting == [False] and gc.isenabled()
    with pytest.raises(UserInputError):
        load_task_file(write(tmp_path, [mock_record(), mock_record()], "twice.json"))
    assert gc.isenabled(), "restored after an error too"
    gc.disable()
    try:
        load_task_file(write(tmp_path, [mock_record()], "again.json"))
        assert not gc.isenabled(), "a collector paused by the caller stays paused"
    finally:
        gc.enable()


def test_json_nested_too_deeply_is_a_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(UserInputError, match="nested too deeply"):
        load_task_file(path)


def test_text_instructions_take_the_domain_a_data_directory_belongs_to(tmp_path: Path) -> None:
    from tau2.domains.airline import DATA_DIR as AIRLINE_DATA

    record = mock_record()
    record["user_scenario"]["instructions"] = "Your flight is late."
    record["evaluation_criteria"] = None
    path = write(tmp_path, [record])
    (task,) = load_task_file(path, data_dir=AIRLINE_DATA)  # only airline reads that directory's files
    assert task.domain == "airline"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert load_error_with(path, empty).endswith(
        "give it explicitly (--domain), or the domain's data directory (--data-dir)"
    )


def load_error_with(path: Path, data_dir: Path) -> str:
    with pytest.raises(UserInputError) as caught:
        load_task_file(path, data_dir=data_dir)
    return str(caught.value)
