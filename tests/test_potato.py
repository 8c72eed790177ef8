"""The Potato round trip: export a run as an annotation project, serve it with the real Potato server on
127.0.0.1, annotate through its HTTP API, import the annotations and read the agreement in the report."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from collections.abc import Iterator
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import pytest
from fixtures.potato_server import free_port, potato_server
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2.annotation import HumanLabel, label_agreement
from tau2.cli import app
from tau2.episode import TerminationReason
from tau2.metrics import cohen_kappa
from tau2.runs import SimulationRecord, load_run

runner = CliRunner()


def cli(*arguments: str) -> str:
    result = runner.invoke(app, list(arguments))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    """A mock run where the null agent fails every fix task and succeeds on the transfer task."""
    out = tmp_path / "run"
    cli("run", "--domain", "mock", "--agent", "null", "--user", "scripted", "-q", "--out", str(out))
    return out


def read_items(project: Path) -> list[dict[str, Any]]:
    """The items of an exported project's data file, split only on `\\n`."""
    lines = (project / "data" / "simulations.jsonl").read_text(encoding="utf-8").split("\n")
    return [json.loads(line) for line in lines if line]


def test_project_files_follow_the_design(run_dir: Path, tmp_path: Path) -> None:
    cli("export", "potato", str(run_dir), "-o", str(tmp_path / "project"))
    config = json.loads((tmp_path / "project" / "config.yaml").read_text(encoding="utf-8"))
    schemes = {scheme["name"]: scheme for scheme in config["annotation_schemes"]}
    assert [(name, scheme["annotation_type"]) for name, scheme in schemes.items()] == [
        ("task_success", "radio"),
        ("conversation_quality", "likert"),
        ("tool_use_issues", "multiselect"),
        ("eval_rationale", "text"),
    ], "the scheme names and types of the τ-bench Potato design"
    assert [label["name"] for label in schemes["task_success"]["labels"]] == [
        "Success",
        "Partial Success",
        "Failure",
    ]
    assert [label["key_value"] for label in schemes["task_success"]["labels"]] == ["1", "2", "3"]
    assert schemes["conversation_quality"]["size"] == 5
    assert schemes["tool_use_issues"]["labels"] == [
        "Tool Call Error",
        "Wrong Arguments",
        "Missing Tool Call",
        "Redundant Tool Call",
        "Correct Tool Use",
    ]
    items = read_items(tmp_path / "project")
    assert len(items) == 5
    assert {"id", "text", "domain", "task_spec", "conversation"} == set(items[0])
    assert items[0]["conversation"][0] == "[Agent] Hi! How can I help you today?"
    assert items[0]["conversation"][1].startswith("[User] ")
    transfer = next(item for item in items if item["id"] == "needs_human#0")
    assert '[Tool Call] (agent) transfer_to_human_agents({"summary"' not in transfer["text"]  # null agent


def test_annotators_judge_blind_unless_the_outcome_is_asked_for(run_dir: Path, tmp_path: Path) -> None:
    cli("export", "potato", str(run_dir), "-o", str(tmp_path / "blind"))
    blind = (tmp_path / "blind" / "data" / "simulations.jsonl").read_text(encoding="utf-8")
    assert "Reward" not in blind and "reward" not in blind and "FAILED" not in blind
    config = json.loads((tmp_path / "blind" / "config.yaml").read_text(encoding="utf-8"))
    assert [field["key"] for field in config["instance_display"]["fields"]] == [
        "domain",
        "task_spec",
        "conversation",
    ]

    cli("export", "potato", str(run_dir), "-o", str(tmp_path / "open"), "--show-outcome")
    config = json.loads((tmp_path / "open" / "config.yaml").read_text(encoding="utf-8"))
    assert config["instance_display"]["fields"][-1] == {
        "key": "final_outcome",
        "type": "text",
        "label": "Final outcome",
    }
    item = read_items(tmp_path / "open")[0]
    assert "Termination: user_stop" in item["final_outcome"] and "Reward: 0.0" in item["final_outcome"]
    assert item["reward"] == 0.0


def test_exported_strings_are_inert_markup_on_lines_only_newline_ends(tmp_path: Path) -> None:
    from tau2.domains.mock.tasks import UNPLUGGED
    from tau2.tasks import Suite
    from tau2.testing import Reply, ScriptedOpenAIServer

    hostile = "x</script><img src=x onerror=\"alert(1)\">&amp;\u2028\u2029\x85 'done'"
    named = "x</script><img src=x onerror=\"alert(1)\">&amp; 'done'"  # no task id holds a line break
    suite = tmp_path / "suite.json"
    Suite(name="hostile", domain="mock", tasks=[UNPLUGGED.model_copy(update={"id": f"t{named}"})]).save(suite)
    script = [
        Reply.tool_call("get_account", {"customer": hostile}),
        Reply.tool_call(f"x{hostile}", {}),
        Reply.text(hostile),
        Reply.tool_call("done"),
    ]
    with ScriptedOpenAIServer(script) as server:
        cli(
            "run", "--suite", str(suite), "--mode", "solo", "--out", str(tmp_path / "run"), "-q",
            "--agent-model", "openai/m", "--agent-api-base", server.base_url, "--agent-arg", "api_key=k",
        )  # fmt: skip
    cli("export", "potato", str(tmp_path / "run"), "-o", str(tmp_path / "project"), "--show-outcome")
    data = (tmp_path / "project" / "data" / "simulations.jsonl").read_text(encoding="utf-8")
    assert len(data.splitlines()) == 1, "U+2028, U+2029 and U+0085 are escapes, not line breaks"
    (item,) = read_items(tmp_path / "project")
    text = json.dumps(item, ensure_ascii=False)
    assert not {"<", ">", "&"} & set(text), "no character that opens a tag or an entity"
    inert = "x＜/script＞＜img src=x onerror=\"alert(1)\"＞＆amp;\u2028\u2029\x85 'done'"
    inert_name = "x＜/script＞＜img src=x onerror=\"alert(1)\"＞＆amp; 'done'"
    assert item["id"] == f"t{inert_name}#0"
    assert f'get_account({{"customer": {json.dumps(inert, ensure_ascii=False)}}})' in item["text"]
    assert f"no account for {inert!r}" in item["text"], "the tool result"
    assert f"[Rejected] (agent) → x{inert}" in item["text"], "the tool name"
    assert f"Task: t{inert_name}" in item["task_spec"]


def test_ids_that_collide_once_inert_are_refused(tmp_path: Path) -> None:
    from tau2.domains.mock.tasks import UNPLUGGED
    from tau2.tasks import Suite

    suite = tmp_path / "suite.json"
    tasks = [UNPLUGGED.model_copy(update={"id": task_id}) for task_id in ("a<b", "a＜b")]
    Suite(name="twins", domain="mock", tasks=tasks).save(suite)
    run = str(tmp_path / "run")
    cli("run", "--suite", str(suite), "--agent", "null", "--user", "scripted", "-q", "--out", run)
    result = runner.invoke(app, ["export", "potato", run, "-o", str(tmp_path / "project")])
    assert result.exit_code == 2 and "would share the annotation item 'a＜b#0'" in result.stderr
    assert not (tmp_path / "project").exists()


def test_a_project_exported_before_the_rationale_was_renamed_still_imports(
    run_dir: Path, tmp_path: Path
) -> None:
    state = tmp_path / "annotation_output" / "bob" / "user_state.json"
    state.parent.mkdir(parents=True)
    answers = [
        [{"schema": "task_success", "name": "Failure"}, "Failure"],
        [{"schema": "evaluation_rationale", "name": "text_box"}, "Never checked the account."],
    ]
    state.write_text(
        json.dumps({"instance_id_to_label_to_value": {"unplugged#0": answers}}), encoding="utf-8"
    )
    cli("import", "potato", str(tmp_path), str(run_dir))
    (label,) = json.loads((run_dir / "human_labels.json").read_text(encoding="utf-8"))["labels"]
    assert (label["task_success"], label["rationale"]) == ("Failure", "Never checked the account.")


def _annotated(tmp_path: Path, state: str) -> Path:
    """An annotation folder whose one annotator's state file holds `state`."""
    path = tmp_path / "annotation_output" / "eve" / "user_state.json"
    path.parent.mkdir(parents=True)
    path.write_text(state, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("state", "problem"),
    [
        ("[]", "expected a JSON object (an annotator's state as Potato keeps it)"),
        ('"labels"', "expected a JSON object (an annotator's state as Potato keeps it)"),
        ("42", "expected a JSON object (an annotator's state as Potato keeps it)"),
        ('{"instance_id_to_label_to_value": []}', "instance_id_to_label_to_value: expected an object"),
        (
            '{"instance_id_to_label_to_value": {"unplugged#0": [[{"schema": "x", "name": "y"}, '
            + "7" * 5000
            + "]]}}",
            "invalid JSON at line 1, column 83: an integer of more than 4,300 digits",
        ),
        ('{"instance_id_to_label_to_value": {"unplugged#0\\ud800": []}}', "contains an unpaired UTF-16"),
    ],
)
def test_an_annotation_state_of_another_shape_is_refused_in_one_line(
    run_dir: Path, tmp_path: Path, state: str, problem: str
) -> None:
    path = _annotated(tmp_path, state)
    result = runner.invoke(app, ["import", "potato", str(tmp_path), str(run_dir)])
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: {path}: ") and problem in line, line
    assert not (run_dir / "human_labels.json").exists()


@pytest.mark.parametrize("name", ["\u00b2", "\u0663", "1" * 5000, "0", "6", "-1", " 3"])
def test_a_quality_label_off_the_scale_is_left_out(run_dir: Path, tmp_path: Path, name: str) -> None:
    answers = [
        [{"schema": "conversation_quality", "name": name}, name],
        [{"schema": "conversation_quality", "name": "4"}, "4"],
        [{"schema": "conversation_quality", "name": name}, name],
    ]
    _annotated(tmp_path, json.dumps({"instance_id_to_label_to_value": {"unplugged#0": answers}}))
    cli("import", "potato", str(tmp_path), str(run_dir))
    (label,) = json.loads((run_dir / "human_labels.json").read_text(encoding="utf-8"))["labels"]
    assert label["conversation_quality"] == 4


def _record(task: str, reward: float) -> SimulationRecord:
    return SimulationRecord(
        task_id=task,
        trial=0,
        seed=0,
        mode="interactive",
        reward=reward,
        termination=TerminationReason.USER_STOP,
    )


def _label(task: str, verdict: str) -> HumanLabel:
    return HumanLabel(simulation=f"{task}#0", task_id=task, trial=0, annotator="a", task_success=verdict)


def test_kappa_and_disagreements() -> None:
    records = [_record("a", 1.0), _record("b", 1.0), _record("c", 0.0), _record("d", 0.0)]
    labels = [
        _label("a", "Success"),
        _label("b", "Partial Success"),
        _label("c", "Failure"),
        _label("d", "Failure"),
    ]
    result = label_agreement(labels, records)
    # observed 3/4; chance = 1/4 * 1/2 + 3/4 * 1/2 = 1/2; kappa = (0.75 - 0.5) / 0.5
    assert (result.judgements, result.agreement, result.kappa) == (4, 0.75, 0.5)
    assert [(d.simulation, d.label) for d in result.disagreements] == [("b#0", "Partial Success")]


@given(
    st.lists(st.tuples(st.sampled_from(["Success", "Partial Success", "Failure"]), st.booleans()), min_size=1)
)
def test_label_kappa_is_the_metrics_kappa(pairs: list[tuple[str, bool]]) -> None:
    # One κ in the project: the labels' agreement is `cohen_kappa`, undefined (None) for a single class.
    tasks = [f"t{n}" for n in range(len(pairs))]
    records = [_record(task, float(passed)) for task, (_, passed) in zip(tasks, pairs, strict=True)]
    labels = [_label(task, verdict) for task, (verdict, _) in zip(tasks, pairs, strict=True)]
    human = [verdict == "Success" for verdict, _ in pairs]
    assert label_agreement(labels, records).kappa == cohen_kappa(human, [passed for _, passed in pairs])


@pytest.fixture
def potato(run_dir: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The exported project served by the real Potato server; yields its URL and the project folder."""
    project = tmp_path / "project"
    port = free_port()
    cli("export", "potato", str(run_dir), "-o", str(project), "--port", str(port))
    with potato_server(project, port, tmp_path / "potato.log") as url:
        yield url, project


def _annotator(url: str, name: str) -> urllib.request.OpenerDirector:
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(CookieJar()))
    opener.open(
        f"{url}/auth", data=urllib.parse.urlencode({"action": "login", "email": name}).encode()
    ).close()
    return opener


def _annotate(opener: urllib.request.OpenerDirector, url: str, item: str, answers: dict[str, str]) -> None:
    body = json.dumps({"instance_id": item, "annotations": answers}).encode()
    request = urllib.request.Request(f"{url}/updateinstance", body, {"Content-Type": "application/json"})
    with opener.open(request) as response:
        assert json.loads(response.read())["status"] == "success"


def test_served_project_is_annotated_and_imported(potato: tuple[str, Path], run_dir: Path) -> None:
    url, project = potato
    alice = _annotator(url, "alice")
    with alice.open(f"{url}/annotate") as response:
        page = response.read().decode()
    assert "Partial Success" in page and "Redundant Tool Call" in page and "[Agent] Hi!" in page
    assert 'data-key="1"' in page  # the keyboard shortcut of "Success"
    _annotate(alice, url, "unplugged#0", {
        "task_success:::Failure": "Failure",
        "conversation_quality:::2": "2",
        "tool_use_issues:::Missing Tool Call": "Missing Tool Call",
        "eval_rationale:::text_box": "The agent never looked at the account.",
    })  # fmt: skip
    _annotate(alice, url, "power_cut#0", {"task_success:::Success": "Success"})
    output = cli("import", "potato", str(project), str(run_dir))
    assert "imported 2 labels by 1 annotators" in output
    report = cli("report", str(run_dir))
    assert "Human success labels" in report and "Cohen's kappa" in report
    assert "│ agreement     │ 0.500 │" in report  # 1 of 2 judgements matches the reward
    assert "Disagreeing simulations" in report and "power_cut#0" in report
    labels = json.loads((run_dir / "human_labels.json").read_text(encoding="utf-8"))["labels"]
    first = next(label for label in labels if label["simulation"] == "unplugged#0")
    assert first["conversation_quality"] == 2 and first["tool_use_issues"] == ["Missing Tool Call"]
    assert load_run(run_dir).records  # the run itself is untouched
    again = runner.invoke(app, ["import", "potato", str(project), str(run_dir)])
    assert again.exit_code == 2 and "--replace" in again.stderr


def test_the_outcome_shown_on_request_says_what_each_assertion_observed(tmp_path: Path) -> None:
    from test_view import TELECOM_TASK

    run = str(tmp_path / "run")
    cli(
        "run",
        "--domain",
        "telecom",
        "--agent",
        "null",
        "--user",
        "scripted",
        "-q",
        "--task-ids",
        TELECOM_TASK,
        "--out",
        run,
    )
    cli("export", "potato", run, "-o", str(tmp_path / "project"), "--show-outcome")
    (item,) = read_items(tmp_path / "project")
    assert (
        'Assertion assert_internet_speed({"expected_speed": 200, "expected_desc": "excellent"}): FAILED '
        '(observed {"speed": null, "desc": "No Connection"})'
    ) in item["final_outcome"]
