"""`tau2 play` end to end, fed through stdin: the guided menu, help and validation that send nothing,
full telecom tasks played from either seat, and the recorded run read by `tau2 report` and `tau2 view`."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from tau2.actors import RESOLVED_PHRASE, format_request
from tau2.cli import app
from tau2.play import Terminal
from tau2.play._terminal import PAGE
from tau2.runs import load_run
from tau2.stepping import load_tasks
from tau2.tasks import Task, available_domains
from tau2.world import Side

runner = CliRunner()


def play(stdin: list[str], *options: str) -> tuple[int, str]:
    result = runner.invoke(app, ["play", *options], input="\n".join(stdin) + "\n")
    return result.exit_code, result.output


def telecom_task() -> Task:
    """A telecom task whose reference solution needs both seats."""
    return next(
        task
        for task in load_tasks("telecom", "small")
        if {step.side for step in task.evaluation.solution} == {Side.AGENT, Side.USER}
    )


def test_guided_menu_help_and_validation_then_a_recorded_win(tmp_path: Path) -> None:
    out = tmp_path / "played"
    stdin = [
        str(available_domains().index("mock") + 1),  # domain: mock
        "",  # suite: the default
        "3",  # task: both
        "1",  # seat: agent
        "",  # customer: scripted (the default)
        "/help",
        '/call enable_power {"customer": 3}',  # invalid: refused before sending
        "/call",
        "2",  # enable_power
        "",  # required: asked again
        "Ada",
        format_request("plug_in", {}),
        RESOLVED_PHRASE,
    ]
    code, output = play(stdin, "--out", str(out))
    assert code == 0, output
    assert "Commands (nothing here is sent to the other seat)" in output
    assert "enable_power(customer: string) — Turn power on" in output
    assert "Not sent: invalid arguments for enable_power" in output
    assert "customer is required." in output
    assert "reward: 1.0" in output
    run = load_run(out)
    (record,) = run.records
    assert (record.task_id, record.reward, run.manifest.agent.kind, run.manifest.user.kind) == (
        "both",
        1.0,
        "human",
        "scripted",
    )
    texts = [entry.text for entry in record.trajectory.entries if entry.text]  # type: ignore[union-attr]
    assert "/help" not in texts and not any('customer": 3' in text for text in texts)
    report = runner.invoke(app, ["report", str(out)])
    assert report.exit_code == 0 and "human" in report.output
    view = runner.invoke(app, ["view", str(out)])
    assert view.exit_code == 0 and "enable_power" in view.output


def test_a_full_telecom_task_played_as_the_agent(tmp_path: Path) -> None:
    task = telecom_task()
    stdin = []
    for step in task.evaluation.solution:
        if step.side is Side.AGENT:
            stdin.append(f"/call {step.name} {json.dumps(step.arguments)}")
        else:
            stdin.append(format_request(step.name, step.arguments))
    stdin.append(RESOLVED_PHRASE)
    options = ["--domain", "telecom", "--suite", "small", "--task-id", task.id, "--seat", "agent"]
    code, output = play(stdin, *options, "--other", "scripted", "--out", str(tmp_path / "r"))
    assert code == 0, output
    assert "Your brief" in output and "Your tools" in output
    assert load_run(tmp_path / "r").records[0].reward == 1.0


def test_a_full_telecom_task_played_as_the_customer(tmp_path: Path) -> None:
    task = telecom_task()
    stdin = ["Mobile data on my phone is not working properly."]
    for step in task.evaluation.solution:
        if step.side is Side.USER:
            stdin += [f"/call {step.name} {json.dumps(step.arguments)}", "Done, what next?"]
    stdin.append("/stop Thanks, bye!")
    options = ["--domain", "telecom", "--suite", "small", "--task-id", task.id, "--seat", "user"]
    code, output = play(stdin, *options, "--other", "oracle", "--out", str(tmp_path / "r"))
    assert code == 0, output
    assert "You are the customer." in output and "Why you are calling:" in output
    run = load_run(tmp_path / "r")
    assert run.records[0].reward == 1.0
    assert (run.manifest.agent.kind, run.manifest.user.kind) == ("oracle", "human")
    assert run.records[0].user_findings == [], "the person's seat is audited when the session is recorded"


def test_leaving_records_nothing_and_is_no_failure(tmp_path: Path) -> None:
    options = ["--domain", "mock", "--task-id", "unplugged", "--seat", "agent", "--other", "scripted"]
    for stdin in (["/quit"], ["Hello."]):  # /quit, and the end of the input (Ctrl-D) mid-conversation
        code, output = play(stdin, *options, "--out", str(tmp_path / "r"))
        assert code == 0, output
        assert "Left the session; nothing was recorded." in output
        assert not (tmp_path / "r").exists()


def test_ctrl_c_stops_play_with_130_and_records_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(prompt: str) -> str:
        raise KeyboardInterrupt  # Ctrl-C while the person types

    monkeypatch.setattr(Terminal.__init__, "__defaults__", (interrupted, None))
    options = ["--domain", "mock", "--task-id", "unplugged", "--seat", "agent", "--other", "scripted"]
    result = runner.invoke(app, ["play", *options, "--out", str(tmp_path / "r")])
    assert result.exit_code == 130
    assert result.stderr.strip().splitlines() == ["interrupted by SIGINT: nothing was recorded"]
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--seat", "boss"], "--seat 'boss': expected agent or customer"),
        (["--domain", "nowhere", "--task-id", "x", "--seat", "agent"], "unknown domain 'nowhere'"),
    ],
)
def test_bad_options_fail_on_one_line(options: list[str], message: str, tmp_path: Path) -> None:
    result = runner.invoke(app, ["play", *options, "--out", str(tmp_path / "r")], input="")
    assert result.exit_code == 2 and message in result.stderr


def test_seat_customer_is_the_customer_seat(tmp_path: Path) -> None:
    """`--seat customer`, the word the menu and the docs use (`user` is kept as an alias)."""
    stdin = ["My lamp is dark.", "/call plug_in {}", "Done.", "/stop Bye!"]
    for word in ("customer", "user"):
        options = ["--domain", "mock", "--task-id", "unplugged", "--seat", word, "--other", "oracle"]
        code, output = play(stdin, *options, "--out", str(tmp_path / word))
        assert code == 0, output
        assert "You are the customer." in output
        assert load_run(tmp_path / word).manifest.user.kind == "human"  # type: ignore[union-attr]


def menu_terminal(answers: list[str]) -> tuple[Terminal, io.StringIO]:
    """A terminal reading `answers` and printing into the returned buffer."""
    lines, out = iter(answers), io.StringIO()
    return Terminal(read=lambda prompt: next(lines), console=Console(file=out, width=200)), out


def test_a_long_menu_lists_a_page_and_words_narrow_it() -> None:
    options = [(f"task {n} {'blue' if n % 5 == 0 else 'red'} lamp", n) for n in range(1, 60)]
    term, out = menu_terminal(["Blue LAMP", "nothing like this", "45"])
    assert term.choose("Task", options) == 45
    listed = [
        line.split(".")[0].strip() for line in out.getvalue().splitlines() if line.strip()[:1].isdigit()
    ]
    assert listed[:PAGE] == [str(n) for n in range(1, PAGE + 1)]
    assert f"and {59 - PAGE} more: type words" in out.getvalue()
    assert listed[PAGE:] == [str(n) for n in range(5, 60, 5)]  # narrowed, numbered as first shown
    assert "No option holds nothing like this" in out.getvalue()


def test_a_short_menu_is_listed_whole_and_takes_numbers_labels_and_the_default() -> None:
    options = [("agent", "a"), ("customer", "c")]
    term, out = menu_terminal(["3", "²", "customer", ""])
    assert term.choose("Seat", options) == "c"
    assert "Give a number from 1 to 2." in out.getvalue()
    assert "No option holds ²" in out.getvalue()  # a digit character that is no number narrows, finding none
    assert "narrow the list" not in out.getvalue()
    assert term.choose("Seat", options, default=1) == "c"


def test_the_telecom_task_menu_shows_one_page(tmp_path: Path) -> None:
    tasks = load_tasks("telecom", "base")
    options = ["--domain", "telecom", "--suite", "base", "--out", str(tmp_path / "r")]
    result = runner.invoke(app, ["play", *options], input="")  # the input ends at the task menu
    code, output = result.exit_code, result.output
    assert code == 0 and "left before the episode started" in output
    assert len(tasks) > PAGE and f"and {len(tasks) - PAGE} more" in output
    assert sum(1 for line in output.splitlines() if line.strip()[:1].isdigit()) == PAGE
