"""`tau2 run` through each transport against the same scripted server: the manifest records the transport,
and both transports write the same records (malformed tool calls, 429/500 retries, context overflow and
a provider that answers without choices included)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.mock.tasks import BOTH
from tau2.episode import TerminationReason
from tau2.llm import RetryPolicy, call_settings
from tau2.runs import load_manifest, read_records
from tau2.tasks import Suite, UserInstructions
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer

CASES = ["plain", "malformed", "flaky", "overflow", "no-choices"]
CASE = re.compile(r"case (\S+)\.")
AGENT_SCRIPT = [
    Reply.tool_call("get_account", {"customer": "Ada"}, call_id="agent-0"),
    Reply.tool_call("enable_power", {"customer": "Ada"}, call_id="agent-1"),
    Reply.text("Power is back on. Please plug your lamp in."),
    Reply.text("Your issue is resolved."),
]


def user_script(case: str) -> list[Reply]:
    return [
        Reply.text(f"My lamp is dark (case {case}.)"),
        Reply.tool_call("plug_in", call_id="user-1"),
        Reply.text("I plugged it in and it is lit now."),
        Reply.tool_call("end_call", call_id="user-3"),
    ]


class Provider:
    """Plays both seats with fixed call ids (so token estimates do not depend on arrival order); each
    case misbehaves in its own way at the agent's second step."""

    def __init__(self) -> None:
        self.attempts: dict[tuple[str, int], int] = {}

    def __call__(self, request: ChatRequest) -> Reply:
        found = CASE.search(str(request.messages))
        assert found is not None
        case = found.group(1)
        replies = sum(message["role"] == "assistant" for message in request.messages)
        if "end_call" in request.tool_names:
            return user_script(case)[replies]
        step = (
            replies - 1 - sum("not accepted" in str(message.get("content")) for message in request.messages)
        )
        attempt = self.attempts[(case, step)] = self.attempts.get((case, step), 0) + 1
        if step == 1:
            if case == "malformed" and attempt == 1:
                return Reply.tool_call("enable_power", '{"customer": "Ada"', call_id="bad")
            if case == "flaky" and attempt <= 2:
                return Reply.error(429 if attempt == 1 else 500)
            if case == "overflow":
                return Reply.context_overflow()
            if case == "no-choices":
                return Reply.without_choices()
        return AGENT_SCRIPT[step]


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    instructions = BOTH.user_scenario.instructions
    assert isinstance(instructions, UserInstructions)
    tasks = []
    for case in CASES:
        known = instructions.model_copy(update={"known_info": f"You are Ada, case {case}."})
        scenario = BOTH.user_scenario.model_copy(update={"instructions": known})
        tasks.append(BOTH.model_copy(update={"id": case, "user_scenario": scenario}))
    path = tmp_path / "suite.json"
    Suite(name="transports", domain="mock", tasks=tasks).save(path)
    return path


def run(suite: Path, out: Path, transport: str | None, model: str = "openai/tau2-test-model") -> None:
    with ScriptedOpenAIServer(Provider()) as server:
        arguments = ["run", "--suite", str(suite), "--out", str(out), "--concurrency", "5"]
        for seat in ("agent", "user"):
            arguments += [f"--{seat}", "llm", f"--{seat}-model", model, f"--{seat}-api-base", server.base_url]
            arguments += [f"--{seat}-arg", "api_key=sk-test", f"--{seat}-max-retries", "4"]
            if transport is not None:
                arguments += [f"--{seat}-transport", transport]
        with call_settings(retry=RetryPolicy(base_delay_s=0.0, max_delay_s=0.0)):
            result = CliRunner().invoke(app, arguments)
    assert result.exit_code == 0, result.output


def comparable(path: Path) -> dict[str, Any]:
    """Records by task without wall-clock figures, run ids and provider-worded failure details."""
    records, _ = read_records(path / "results.jsonl")
    found: dict[str, Any] = {}
    for record in records:
        data = record.model_dump(mode="json", exclude={"duration_s", "run_id"})
        trajectory = data["trajectory"]
        trajectory.pop("duration_s")
        for entry in trajectory["entries"]:
            entry.pop("elapsed_s")
        if record.termination in {TerminationReason.INFRASTRUCTURE_ERROR, TerminationReason.CONTEXT_OVERFLOW}:
            data.pop("termination_detail")  # stored once: the trajectory leaves it to the record
        found[record.task_id] = data
    return found


@pytest.mark.parametrize("model", ["openai/tau2-test-model", "openai/gpt-4o-mini"])
def test_both_transports_write_identical_records(suite_file: Path, tmp_path: Path, model: str) -> None:
    run(suite_file, tmp_path / "native", "native", model)
    run(suite_file, tmp_path / "litellm", "litellm", model)
    native, litellm = comparable(tmp_path / "native"), comparable(tmp_path / "litellm")
    assert native == litellm
    outcome = {task: record["termination"] for task, record in native.items()}
    assert outcome == {
        "plain": "user_stop",
        "malformed": "user_stop",
        "flaky": "user_stop",
        "overflow": "context_overflow",
        "no-choices": "infrastructure_error",
    }
    kinds = [entry["kind"] for entry in native["malformed"]["trajectory"]["entries"]]
    assert kinds.count("actor_error") == 1


def test_manifest_records_the_transport_auto_resolved_to(suite_file: Path, tmp_path: Path) -> None:
    run(suite_file, tmp_path / "auto", None)
    manifest = load_manifest(tmp_path / "auto")
    seats = [manifest.agent, manifest.user]
    assert [seat.model.transport for seat in seats if seat is not None and seat.model is not None] == [
        "native",
        "native",
    ]
    stored = json.loads((tmp_path / "auto" / "manifest.json").read_text())
    assert stored["config"]["agent"]["model"]["transport"] == "native"


def test_transport_is_refused_for_offline_seats(suite_file: Path, tmp_path: Path) -> None:
    arguments = ["run", "--suite", str(suite_file), "--out", str(tmp_path / "x"), "--agent", "oracle"]
    result = CliRunner().invoke(app, [*arguments, "--user", "scripted", "--agent-transport", "native"])
    assert result.exit_code == 2
    assert "--agent-transport: no model to apply them to" in result.output
