"""Data never drives the terminal: escape sequences and rich markup in task ids and texts are printed as
visible text by `view`, `episode`, `report`, `verify` and in error lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2._display import inert
from tau2.cli import app

runner = CliRunner()
EVIL_ID = "evil\x1b]0;pwned\x07\x1b[2J[bold red]loud[/]\u202e"
"""A task id no task file may hold (control characters), as a run made elsewhere or edited may."""
LOUD_ID = "evil[bold red]loud[/]\u202e"
"""A task id a task file may hold: markup and a bidirectional override, shown literally."""
OFFLINE = ["--agent", "oracle", "--user", "scripted"]


@pytest.fixture(scope="module")
def evil_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A mock suite whose first task has a loud id, and a finished run of it whose records and manifest
    were then edited to give that task an id full of escape sequences."""
    root = tmp_path_factory.mktemp("evil")
    source = Path(__file__).resolve().parents[1] / "domains" / "mock" / "suites" / "examples.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    data["tasks"][0]["id"] = LOUD_ID
    data["tasks"][0]["user_scenario"]["persona_text"] = "calm \x1b[31m"
    suite = root / "suite.json"
    suite.write_text(json.dumps(data), encoding="utf-8")
    out = root / "run"
    result = runner.invoke(app, ["run", "--suite", str(suite), *OFFLINE, "--quiet", "--out", str(out)])
    assert result.exit_code == 0, result.output
    for name in ("manifest.json", "results.jsonl"):
        path = out / name
        escaped = json.dumps(EVIL_ID, ensure_ascii=False)[1:-1]
        path.write_text(path.read_text(encoding="utf-8").replace(LOUD_ID, escaped), encoding="utf-8")
    return suite, out


def _assert_inert(text: str, escaped: str) -> None:
    assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert escaped in text


@pytest.mark.parametrize(
    "arguments",
    [
        ["view", "{run}", "--task", EVIL_ID],
        ["view", "{run}", "--all"],
        ["report", "{run}", "--full"],
        ["episode", "--suite", "{suite}", "--task-id", LOUD_ID, *OFFLINE],
    ],
    ids=["view", "view-all", "report", "episode"],
)
def test_commands_print_hostile_ids_inert(arguments: list[str], evil_run: tuple[Path, Path]) -> None:
    suite, run = evil_run
    filled = [part.format(run=run, suite=suite) if "{" in part[:1] else part for part in arguments]
    result = runner.invoke(app, filled)
    assert result.exit_code in (0, 1), result.output
    _assert_inert(result.stdout, "\\u202e" if arguments[0] == "episode" else "\\x1b")
    assert "[bold red]loud[/]" in result.stdout  # markup shown literally, not interpreted


def test_a_task_file_with_escape_sequences_in_an_id_is_refused_without_printing_them(tmp_path: Path) -> None:
    source = Path(__file__).resolve().parents[1] / "domains" / "mock" / "suites" / "examples.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    data["tasks"][0]["id"] = EVIL_ID
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(data), encoding="utf-8")
    result = runner.invoke(app, ["verify", str(suite)])
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == (
        f"error: {suite}: tasks[0].id: a task id may not hold a control character ('\\x1b' at character 4)\n"
    )


def test_error_lines_are_inert(evil_run: tuple[Path, Path]) -> None:
    suite, _ = evil_run
    result = runner.invoke(
        app, ["run", "--suite", str(suite), *OFFLINE, "--task-ids", "x\x1b[2J", "--out", "unused"]
    )
    assert result.exit_code == 2
    assert "\x1b" not in result.stderr and "\\x1b" in result.stderr


@given(st.text())
def test_inert_output_holds_no_control_characters(text: str) -> None:
    shown = inert(text)
    assert not any(
        (ord(ch) < 0x20 and ch not in "\n\t") or 0x7F <= ord(ch) <= 0x9F or 0xD800 <= ord(ch) <= 0xDFFF
        for ch in shown
    )
    if all(ch.isprintable() or ch in "\n\t" for ch in text):
        assert shown == text


def test_play_shows_the_other_seats_text_inert(tmp_path: Path) -> None:
    """What the other seat says (here the scripted customer's reason for calling) is data too."""
    source = Path(__file__).resolve().parents[1] / "domains" / "mock" / "suites" / "examples.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    data["tasks"][0]["user_scenario"]["instructions"]["reason_for_call"] = "Lamp \x1b[2J[blink]dark[/]"
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(data), encoding="utf-8")
    options = ["--domain", "mock", "--suite", str(suite), "--task-id", "unplugged", "--seat", "agent"]
    options += ["--other", "scripted", "--out", str(tmp_path / "played")]
    result = runner.invoke(app, ["play", *options], input="Your issue is resolved.\n")
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output
    assert "Lamp \\x1b[2J[blink]dark[/]" in result.output
