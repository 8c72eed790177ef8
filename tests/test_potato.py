"""The Potato round trip: export a run as an annotation project, serve it with the real Potato server on
127.0.0.1, annotate through its HTTP API, import the annotations and read the agreement in the report."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from http.cookiejar import CookieJar
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tau2.cli import app
from tau2.interfaces._agreement import label_agreement
from tau2.interfaces._potato_import import HumanLabel
from tau2.runs._rundir import load_run

runner = CliRunner()
SERVER_START_S = 90


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


def test_project_files_follow_the_design(run_dir: Path, tmp_path: Path) -> None:
    cli("export", "potato", str(run_dir), "-o", str(tmp_path / "project"))
    config = json.loads((tmp_path / "project" / "config.yaml").read_text(encoding="utf-8"))
    schemes = {scheme["name"]: scheme for scheme in config["annotation_schemes"]}
    assert [label["name"] for label in schemes["task_success"]["labels"]] == [
        "Success",
        "Partial Success",
        "Failure",
    ]
    assert [label["key_value"] for label in schemes["task_success"]["labels"]] == ["1", "2", "3"]
    assert schemes["conversation_quality"]["annotation_type"] == "likert"
    assert schemes["conversation_quality"]["size"] == 5
    assert schemes["tool_use_issues"]["labels"] == [
        "Tool Call Error",
        "Wrong Arguments",
        "Missing Tool Call",
        "Redundant Tool Call",
        "Correct Tool Use",
    ]
    assert schemes["evaluation_rationale"]["annotation_type"] == "text"
    items = [json.loads(line) for line in (tmp_path / "project" / "data" / "simulations.jsonl").open()]
    assert len(items) == 5
    assert {"id", "text", "domain", "conversation", "final_outcome"} <= set(items[0])
    assert items[0]["conversation"][0] == "[Agent] Hi! How can I help you today?"
    assert items[0]["conversation"][1].startswith("[User] ")
    transfer = next(item for item in items if item["id"] == "needs_human#0")
    assert '[Tool Call] (agent) transfer_to_human_agents({"summary"' not in transfer["text"]  # null agent
    assert (
        "Termination: user_stop" in items[0]["final_outcome"] and "Reward: 0.0" in items[0]["final_outcome"]
    )


def test_kappa_and_disagreements() -> None:
    from tau2.episode._trajectory import TerminationReason
    from tau2.runs._records import SimulationRecord

    def record(task: str, reward: float) -> SimulationRecord:
        return SimulationRecord(
            task_id=task,
            trial=0,
            seed=0,
            mode="interactive",
            reward=reward,
            termination=TerminationReason.USER_STOP,
        )

    def label(task: str, verdict: str) -> HumanLabel:
        return HumanLabel(simulation=f"{task}#0", task_id=task, trial=0, annotator="a", task_success=verdict)

    records = [record("a", 1.0), record("b", 1.0), record("c", 0.0), record("d", 0.0)]
    labels = [
        label("a", "Success"),
        label("b", "Partial Success"),
        label("c", "Failure"),
        label("d", "Failure"),
    ]
    result = label_agreement(labels, records)
    # observed 3/4; chance = 1/4 * 1/2 + 3/4 * 1/2 = 1/2; kappa = (0.75 - 0.5) / 0.5
    assert (result.judgements, result.agreement, result.kappa) == (4, 0.75, 0.5)
    assert [(d.simulation, d.label) for d in result.disagreements] == [("b#0", "Partial Success")]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def potato_server(run_dir: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The exported project served by the real Potato server; yields its URL and the project folder."""
    pytest.importorskip("potato", reason="the `potato` extra (potato-annotation) is not installed")
    project = tmp_path / "project"
    port = _free_port()
    cli("export", "potato", str(run_dir), "-o", str(project), "--port", str(port))
    command = [sys.executable, "-m", "potato", "start", "config.yaml", "-p", str(port), "--host", "127.0.0.1"]
    command += ["--require-password", "false"]
    log = (tmp_path / "potato.log").open("w")
    server = subprocess.Popen(
        command, cwd=project, stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy()
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            try:
                urllib.request.urlopen(url, timeout=2).close()
                break
            except (urllib.error.URLError, ConnectionError):
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"Potato did not start: {(tmp_path / 'potato.log').read_text()[-2000:]}")
                time.sleep(0.5)
        yield url, project
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()


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


def test_served_project_is_annotated_and_imported(potato_server: tuple[str, Path], run_dir: Path) -> None:
    url, project = potato_server
    alice = _annotator(url, "alice")
    with alice.open(f"{url}/annotate") as response:
        page = response.read().decode()
    assert "Partial Success" in page and "Redundant Tool Call" in page and "[Agent] Hi!" in page
    assert 'data-key="1"' in page  # the keyboard shortcut of "Success"
    _annotate(alice, url, "unplugged#0", {
        "task_success:::Failure": "Failure",
        "conversation_quality:::2": "2",
        "tool_use_issues:::Missing Tool Call": "Missing Tool Call",
        "evaluation_rationale:::text_box": "The agent never looked at the account.",
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
