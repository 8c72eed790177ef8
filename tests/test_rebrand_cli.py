"""`tau2 rebrand` end to end: the written directory runs as a data directory, the summary and the JSON
document say what the checks found, and bad input or an inconsistent delta leaves nothing behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from tau2.cli import app
from tau2.tasks import get_domain

runner = CliRunner()
TELECOM_SMALL = Path(get_domain("telecom").default_suite or "").parent / "small.json"


def rebrand(*arguments: str) -> Result:
    return runner.invoke(app, ["rebrand", *arguments])


def test_the_written_directory_runs_and_the_summary_says_what_was_checked(tmp_path: Path) -> None:
    out = tmp_path / "plus"
    result = rebrand("--domain", "airline", "-o", str(out))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("airline: rebranded ") and "(seed 2032)" in lines[0]
    assert lines[2] == "wrote db.json, policy.md, split_tasks.json, tasks.json (5 tasks)"
    assert lines[3] == "gold: 5 of 5 tasks replay to the reward of the original (5 score 1.0)"
    assert (
        lines[4]
        == "memorisation check: the original gold actions score 0 on 3 of 3 tasks that write (100.0%)"
    )
    assert sorted(path.name for path in out.iterdir()) == [
        "db.json",
        "policy.md",
        "split_tasks.json",
        "tasks.json",
    ]
    assert [path.name for path in tmp_path.iterdir()] == ["plus"]  # no staging directory left behind
    suite, data = str(out / "tasks.json"), str(out)
    offline = ["--agent", "oracle", "--user", "scripted", "--out", str(tmp_path / "run")]
    run = runner.invoke(app, ["run", "--suite", suite, "--data-dir", data, *offline])
    assert run.exit_code == 0, run.output
    assert "pass^1: 1.000" in run.stdout


def test_json_reports_every_task(tmp_path: Path) -> None:
    result = rebrand("--domain", "retail", "-o", str(tmp_path / "out"), "--json", "--seed", "5")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["seed"] == 5 and document["domain"] == "retail"
    assert document["summary"] == {
        "tasks": 5,
        "kept": 5,
        "solved": 5,
        "writing": 4,
        "memorised_fail": 4,
        "memorisation_share": 1.0,
    }
    assert {task["task_id"] for task in document["tasks"]} == {
        "cancel_pending",
        "return_shoes",
        "swap_lamp",
        "order_total",
        "new_address",
    }
    assert all(task["rebranded"] == 1.0 for task in document["tasks"])


def test_the_same_seed_writes_the_same_files(tmp_path: Path) -> None:
    small = str(TELECOM_SMALL)
    for name in ("a", "b"):
        assert (
            rebrand(
                "--domain", "telecom", "--suite", small, "-o", str(tmp_path / name), "--seed", "3"
            ).exit_code
            == 0
        )
    for path in (tmp_path / "a").iterdir():
        assert path.read_bytes() == (tmp_path / "b" / path.name).read_bytes(), path.name
    assert (
        rebrand("--domain", "telecom", "--suite", small, "-o", str(tmp_path / "c"), "--seed", "4").exit_code
        == 0
    )
    assert (tmp_path / "a" / "db.toml").read_bytes() != (tmp_path / "c" / "db.toml").read_bytes()


def test_an_inconsistent_delta_writes_nothing(tmp_path: Path) -> None:
    delta = tmp_path / "fares.toml"
    delta.write_text(
        '[[values]]\nname = "fares"\nfactor = 2\nfields = ["prices.*", "price"]\n', encoding="utf-8"
    )
    out = tmp_path / "out"
    result = rebrand("--domain", "airline", "--delta", str(delta), "-o", str(out))
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert any("task book_one_way: reference action 2 of 2 (book_reservation)" in line for line in lines)
    assert lines[-1].startswith("rebrand refused, nothing written: ")
    assert not out.exists() and [path.name for path in tmp_path.iterdir()] == ["fares.toml"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--domain", "airline", "--delta", "{tmp}/missing.toml"], "missing.toml: no such file"),
        (["--domain", "narnia"], "unknown domain 'narnia'"),
        (["--domain", "mock"], "domain 'mock' declares no identifiers"),
        (["--domain", "airline", "--delta", "{tmp}/bad.toml"], "bad.toml: identifiers: no kind 'client'"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, arguments: list[str], message: str) -> None:
    (tmp_path / "bad.toml").write_text('[identifiers]\nclient = "{digits:9}"\n', encoding="utf-8")
    given = [argument.replace("{tmp}", str(tmp_path)) for argument in arguments]
    result = rebrand(*given, "-o", str(tmp_path / "out"))
    assert result.exit_code == 2, result.output
    assert len(result.stderr.splitlines()) == 1 and message in result.stderr, result.stderr
    assert not (tmp_path / "out").exists()


def test_a_non_empty_directory_is_never_overwritten(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine", encoding="utf-8")
    result = rebrand("--domain", "airline", "-o", str(out))
    assert result.exit_code == 2
    assert result.stderr == f"error: {out}: exists and is not an empty directory; refusing to overwrite it\n"
    assert [path.name for path in out.iterdir()] == ["keep.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert rebrand("--domain", "airline", "-o", str(empty)).exit_code == 0
    assert (empty / "db.json").is_file()
