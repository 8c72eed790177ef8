"""`-` as an output file means stdout; a full disk exits 3 naming the file; seat kinds that cannot work
together are warned about, as the kinds themselves declare it."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tau2.actors import pairing_warning
from tau2.cli import app
from tau2.cli._exit import os_failure
from tau2.episode import ActorSpec
from tau2.llm import ModelSpec

runner = CliRunner()
SUITE = Path(__file__).resolve().parents[1] / "domains" / "mock" / "suites" / "examples.json"
OFFLINE = ["--agent", "oracle", "--user", "scripted", "--quiet"]
FULL_DISK = Path("/dev/full")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("outputs") / "run"
    result = runner.invoke(app, ["run", "--suite", str(SUITE), *OFFLINE, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize(
    "arguments",
    [
        ["report", "{run}", "--html", "-"],
        ["compare", "{run}", "{run}", "--html", "-"],
        ["view", "{run}", "--html", "-"],
    ],
    ids=["report", "compare", "view"],
)
def test_html_dash_prints_the_page_and_writes_no_file(arguments: list[str], run_dir: Path) -> None:
    before = sorted(path.name for path in run_dir.parent.rglob("*"))
    result = runner.invoke(app, [part.format(run=run_dir) for part in arguments])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("<!DOCTYPE html>") and result.stdout.rstrip().endswith("</html>")
    assert sorted(path.name for path in run_dir.parent.rglob("*")) == before
    assert not Path("-").exists()


def test_html_dash_with_json_is_refused(run_dir: Path) -> None:
    result = runner.invoke(app, ["report", str(run_dir), "--html", "-", "--json"])
    assert result.exit_code == 2 and "both write to stdout" in result.stderr


def test_tau2bench_export_to_stdout(run_dir: Path) -> None:
    result = runner.invoke(app, ["export", "tau2bench", str(run_dir), "-o", "-"])
    assert result.exit_code == 0, result.output
    assert len(json.loads(result.stdout)["simulations"]) == 5
    assert result.stderr.startswith("wrote - (5 simulations)")


def test_submission_to_stdout_keeps_messages_off_stdout(run_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    arguments = [
        "export",
        "tau2bench",
        str(run_dir),
        "-o",
        str(out),
        "--submission",
        "-",
        "--organization",
        "o",
        "--custom",  # the mock suite is no official τ²-bench task set
    ]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["model_organization"] == "o"
    assert out.is_file() and "wrote" in result.stderr


def test_generate_to_stdout(tmp_path: Path) -> None:
    arguments = [
        "generate",
        "-o",
        "-",
        "--intents",
        "service_issue",
        "--personas",
        "none",
        "--max-subtasks",
        "1",
    ]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["format"] == "tau2-suite"
    assert "wrote - (native)" in result.stderr


def test_potato_export_to_stdout_is_refused(run_dir: Path) -> None:
    result = runner.invoke(app, ["export", "potato", str(run_dir), "-o", "-"])
    assert result.exit_code == 2 and "is a directory" in result.stderr


@pytest.mark.skipif(not FULL_DISK.exists(), reason="needs /dev/full")
@pytest.mark.parametrize("command", ["report", "view"])
def test_full_disk_exits_3_naming_the_file(command: str, run_dir: Path) -> None:
    result = runner.invoke(app, [command, str(run_dir), "--html", str(FULL_DISK)])
    assert result.exit_code == 3
    assert result.stderr == "error: /dev/full: no space left on the device (disk full)\n"


def test_scripted_user_declares_whom_it_understands() -> None:
    llm = ActorSpec(kind="llm", model=ModelSpec(name="openai/x"))
    assert pairing_warning(ActorSpec(kind="oracle"), ActorSpec(kind="scripted")) is None
    assert pairing_warning(ActorSpec(kind="null"), ActorSpec(kind="scripted")) is None
    warning = pairing_warning(llm, ActorSpec(kind="scripted"))
    assert warning is not None and "'scripted'" in warning and "'llm'" in warning
    assert pairing_warning(llm, ActorSpec(kind="llm", model=ModelSpec(name="openai/x"))) is None
    assert pairing_warning(llm, None) is None


def test_run_warns_about_a_pairing_the_user_kind_rejects(tmp_path: Path) -> None:
    """A plugin agent (here the oracle's factory by reference) is not among the scripted user's partners."""
    out = tmp_path / "run"
    agent = "tau2.actors._registry:_oracle"
    result = runner.invoke(
        app,
        ["run", "--suite", str(SUITE), "--agent", agent, "--user", "scripted", "--quiet", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    assert result.stderr.startswith("warning: actor kind 'scripted' works only with human, null, oracle")
    quiet = runner.invoke(app, ["run", "--suite", str(SUITE), *OFFLINE, "--out", str(tmp_path / "other")])
    assert quiet.stderr == ""


@pytest.mark.parametrize(
    ("number", "code", "reason"),
    [
        (errno.ENOSPC, 3, "no space left on the device (disk full)"),
        (errno.EACCES, 3, "permission denied"),
        (errno.EROFS, 3, "read-only file system"),
        (errno.ENOTDIR, 2, "a part of the path is a file, not a directory"),
        (errno.EISDIR, 2, "is a directory, not a file"),
        (errno.ENOENT, 2, "no such file or directory"),
    ],
)
def test_file_system_errors_map_to_a_line_and_a_code(number: int, code: int, reason: str) -> None:
    assert os_failure(OSError(number, os.strerror(number), "some/file")) == (f"some/file: {reason}", code)


def _refused_write(folder: Path) -> bool:
    """Whether the machine refuses creating a file in `folder` (even for root: a kernel file system)."""
    try:
        (folder / "tau2-probe").write_text("x", encoding="utf-8")
    except OSError as error:
        return error.errno in (errno.EACCES, errno.EPERM, errno.EROFS)
    (folder / "tau2-probe").unlink()
    return False


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_unwritable_place_exits_3(tmp_path: Path) -> None:
    """A place the machine will not let us write (chmod 000 for a normal user; as root, whom permissions do
    not stop, a kernel file system such as /sys) exits 3 naming it, and nothing else is written."""
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        place = locked if _refused_write(locked) else Path("/sys")
        if not _refused_write(place):
            pytest.skip("no unwritable directory on this machine")
        out = place / "run"
        result = runner.invoke(app, ["run", "--suite", str(SUITE), *OFFLINE, "--out", str(out)])
        assert result.exit_code == 3, result.output
        assert result.stderr.startswith(f"error: {out}: ") and len(result.stderr.splitlines()) == 1
    finally:
        locked.chmod(0o700)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_suite_exits_3(tmp_path: Path) -> None:
    suite = tmp_path / "suite.json"
    suite.write_bytes(SUITE.read_bytes())
    suite.chmod(0)
    result = runner.invoke(app, ["verify", str(suite)])
    assert result.exit_code == 3
    assert result.stderr == f"error: {suite}: permission denied\n"


@pytest.mark.parametrize("command", [["report", "{run}", "--full"], ["compare", "{run}", "{run}", "--full"]])
def test_tables_written_to_a_pipe_are_not_cut_to_80_columns(
    command: list[str], run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)  # stdout is no terminal here, as with `| cat`
    result = runner.invoke(app, [part.replace("{run}", str(run_dir)) for part in command])
    assert result.exit_code == 0, result.output
    assert "…" not in result.stdout
    assert max(len(line) for line in result.stdout.splitlines()) > 80
    narrow = runner.invoke(
        app, [part.replace("{run}", str(run_dir)) for part in command], env={"COLUMNS": "60"}
    )
    assert max(len(line) for line in narrow.stdout.splitlines()) <= 60  # a width given is kept
