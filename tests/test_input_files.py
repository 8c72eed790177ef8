"""What tau2 reads as input is a regular file, read with a bound: a named pipe or a device given (or linked)
where a file is expected is refused in one line instead of waiting or reading forever; a line of a results
file longer than any record, an integer JSON or TOML cannot hold, a folder that is no task folder are
refused; and the machine refusing to let a file be read exits 3."""

from __future__ import annotations

import errno
import json
import os
import shutil
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.mock.tasks import MOCK_TASKS
from tau2.runs import MANIFEST_FILE, RESULTS_FILE
from tau2.tau2bench import task_to_tau2

runner = CliRunner()
OFFLINE = ["--agent", "oracle", "--user", "scripted", "--quiet"]
MOCK_SUITE = Path(__file__).resolve().parents[1] / "domains" / "mock" / "suites" / "examples.json"
BIG = "1" * 5_000
"""An integer of more digits than Python converts from text (4,300 by default)."""


def outcome(arguments: list[str]) -> tuple[int, str]:
    """The exit code and the one error line of a command that fails."""
    result = runner.invoke(app, arguments)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return result.exit_code, lines[0]


def refused(arguments: list[str]) -> str:
    """The one error line of a command that must exit 2."""
    code, line = outcome(arguments)
    assert code == 2, line
    return line


@pytest.fixture(scope="module")
def good_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "good"
    result = runner.invoke(app, ["run", "--suite", str(MOCK_SUITE), *OFFLINE, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture
def run_copy(good_run: Path, tmp_path: Path) -> Path:
    """A copy of the good run that a test may change."""
    return Path(shutil.copytree(good_run, tmp_path / "run"))


# Named pipes and devices


@contextmanager
def named_pipe(path: Path) -> Iterator[Path]:
    """A named pipe at `path`. A reader that blocks on it is let go within moments (a writer opens and
    closes it, so the reader sees an empty file): a command that waits on the pipe fails its test instead
    of hanging the suite."""
    os.mkfifo(path)
    done = threading.Event()

    def release() -> None:
        while not done.wait(0.1):
            try:
                descriptor = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # nobody is reading it
                continue
            os.close(descriptor)

    thread = threading.Thread(target=release, daemon=True)
    thread.start()
    try:
        yield path
    finally:
        done.set()
        thread.join()


PIPE = "is a named pipe (FIFO), not a regular file"


def _persona(folder: Path, pipe: Path) -> list[str]:
    return ["run", "--suite", str(MOCK_SUITE), *OFFLINE, "--persona", str(pipe), "--out", str(folder / "o")]


def _airline_data(folder: Path, pipe: Path) -> list[str]:
    from tau2 import get_domain

    suite = get_domain("airline").default_suite
    assert suite is not None
    return ["verify", str(suite), "--data-dir", str(pipe.parent)]


def _results(folder: Path, pipe: Path) -> list[str]:
    return ["report", str(pipe.parent)]


def _manifest(folder: Path, pipe: Path) -> list[str]:
    return ["view", str(pipe.parent)]


def _annotations(folder: Path, pipe: Path) -> list[str]:
    return ["import", "potato", str(folder / "annotations"), str(folder / "run")]


PIPE_CASES: dict[str, tuple[str, Callable[[Path, Path], list[str]]]] = {
    "verify a task file": ("tasks.json", lambda folder, pipe: ["verify", str(pipe)]),
    "lint a task file": ("tasks.json", lambda folder, pipe: ["lint", str(pipe)]),
    "run a suite": ("suite.json", lambda folder, pipe: ["run", "--suite", str(pipe), *OFFLINE, "--out", "o"]),
    "run a configuration": ("run.toml", lambda folder, pipe: ["run", "--config", str(pipe), "--out", "o"]),
    "an experiment file": ("exp.toml", lambda folder, pipe: ["experiment", "run", str(pipe), "--out", "o"]),
    "a persona": ("calm.toml", _persona),
    "a domain's data": ("data/db.json", _airline_data),
    "a run's results": ("run/results.jsonl", _results),
    "a run's manifest": ("run/manifest.json", _manifest),
    "τ²-bench results": (
        "results.json",
        lambda folder, pipe: ["import", "tau2bench", str(pipe), "--out", "o"],
    ),
    "Potato annotations": ("annotations/ann/user_state.json", _annotations),
}


@pytest.mark.parametrize("case", PIPE_CASES, ids=list(PIPE_CASES))
def test_a_named_pipe_is_refused_not_waited_on(
    case: str, good_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    name, arguments = PIPE_CASES[case]
    target = tmp_path / name
    if name.startswith("run/"):
        shutil.copytree(good_run, tmp_path / "run")
        target.unlink()
    else:
        if name.startswith("annotations/"):
            shutil.copytree(good_run, tmp_path / "run")
        target.parent.mkdir(parents=True, exist_ok=True)
    with named_pipe(target) as pipe:
        line = refused(arguments(tmp_path, pipe))
    assert line.startswith("error: ") and line.endswith(f"{pipe}: {PIPE}"), line


@pytest.mark.parametrize("command", ["report", "view", "export", "resume"])
def test_a_results_file_linked_to_a_device_is_refused(run_copy: Path, command: str) -> None:
    """/dev/null stands for every device: /dev/zero, refused by the same check, would fill the memory of
    a reader without it."""
    (run_copy / RESULTS_FILE).unlink()
    (run_copy / RESULTS_FILE).symlink_to("/dev/null")
    arguments = {
        "report": ["report", str(run_copy)],
        "view": ["view", str(run_copy)],
        "export": ["export", "tau2bench", str(run_copy), "-o", str(run_copy.parent / "x.json")],
        "resume": ["run", "--resume", "--out", str(run_copy), *OFFLINE],
    }[command]
    assert refused(arguments) == f"error: {run_copy / RESULTS_FILE}: is a device, not a regular file"


def test_a_line_longer_than_any_record_is_refused_naming_the_file_and_line(
    run_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tau2.runs._lines.MAX_RECORD_BYTES", 1 << 16)
    results = run_copy / RESULTS_FILE
    lines = results.read_bytes().count(b"\n")
    with results.open("ab") as file:
        file.write(b"x" * (1 << 17))  # no newline: a reader without a bound would take it all
    line = refused(["report", str(run_copy)])
    assert line == (
        f"error: {results}:{lines + 1}: a line longer than 0 MiB, which no record is (not a run's results "
        "file?); not read"
    )


# The machine refusing: exit 3


@pytest.fixture
def locked(monkeypatch: pytest.MonkeyPatch) -> Callable[[Path], None]:
    """Make opening one path fail as a file of mode 000 does for a user who is not its owner (tests run as
    root here, whom no mode stops)."""

    def lock(path: Path) -> None:
        real_open = os.open

        def refusing_open(file: str | os.PathLike[str], flags: int, *args: int, **kwargs: int) -> int:
            if os.fspath(file) == os.fspath(path):
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(file))
            return real_open(file, flags, *args, **kwargs)

        monkeypatch.setattr(os, "open", refusing_open)

    return lock


def _copy_of(source: Path, name: str) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        target = folder / name
        shutil.copy(source, target)
        return target

    return make


def _config(folder: Path) -> Path:
    path = folder / "run.toml"
    path.write_text(f'suite = "{MOCK_SUITE}"\n', encoding="utf-8")
    return path


def _extension(folder: Path) -> Path:
    source = Path(__file__).resolve().parents[1] / "domains" / "telecom" / "catalogs" / "extended.toml"
    return _copy_of(source, "faults.toml")(folder)


def _persona_file(folder: Path) -> Path:
    source = Path(__file__).resolve().parents[1] / "personas" / "library" / "easy.toml"
    return _copy_of(source, "easy.toml")(folder)


UNREADABLE_CASES: dict[str, tuple[Callable[[Path], Path], Callable[[Path, Path], list[str]]]] = {
    "a task file": (_copy_of(MOCK_SUITE, "suite.json"), lambda folder, path: ["verify", str(path)]),
    "a configuration": (_config, lambda folder, path: ["run", "--config", str(path), "--out", "o"]),
    "a persona": (
        _persona_file,
        lambda folder, path: [
            "run",
            "--suite",
            str(MOCK_SUITE),
            *OFFLINE,
            "--persona",
            str(path),
            "--out",
            "o",
        ],
    ),
    "a catalog extension": (
        _extension,
        lambda folder, path: ["generate", "--catalog-extension", str(path), "-o", str(folder / "g.json")],
    ),
}


@pytest.mark.parametrize("case", UNREADABLE_CASES, ids=list(UNREADABLE_CASES))
def test_a_file_the_machine_will_not_let_be_read_exits_3(
    case: str, tmp_path: Path, locked: Callable[[Path], None], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    make, arguments = UNREADABLE_CASES[case]
    path = make(tmp_path)
    locked(path)
    assert outcome(arguments(tmp_path, path)) == (3, f"error: {path}: permission denied")


def test_a_run_whose_results_cannot_be_read_exits_3(run_copy: Path, locked: Callable[[Path], None]) -> None:
    locked(run_copy / RESULTS_FILE)
    assert outcome(["report", str(run_copy)]) == (3, f"error: {run_copy / RESULTS_FILE}: permission denied")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a file of mode 000")
def test_a_file_of_mode_000_exits_3(tmp_path: Path) -> None:
    path = Path(shutil.copy(MOCK_SUITE, tmp_path / "suite.json"))
    path.chmod(0)
    assert outcome(["verify", str(path)]) == (3, f"error: {path}: permission denied")


# Integers too long to convert


def test_an_integer_of_5000_digits_in_a_task_file_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "suite.json"
    path.write_text(MOCK_SUITE.read_text().replace('"format_version": 1', f'"format_version": {BIG}'))
    line = refused(["verify", str(path)])
    assert line == f"error: {path}: invalid JSON at line 3, column 21: an integer of more than 4,300 digits"


def test_an_integer_of_5000_digits_in_a_configuration_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "run.toml"
    path.write_text(f"trials = 3\nseed = {BIG}\n")
    line = refused(["run", "--config", str(path), "--out", str(tmp_path / "o")])
    assert line == f"error: {path}: invalid TOML: an integer of more than 4,300 digits (at line 2, column 8)"


def test_an_integer_of_5000_digits_in_a_domains_data_is_bad_input(tmp_path: Path) -> None:
    from tau2 import get_domain
    from tau2.domains.telecom import DATA_DIR

    data = Path(shutil.copytree(DATA_DIR, tmp_path / "data"))
    with (data / "user_db.toml").open("a") as file:
        file.write(f"\n[extra]\nbig = {BIG}\n")
    suite = get_domain("telecom").default_suite
    assert suite is not None
    line = refused(["verify", str(suite), "--data-dir", str(data)])
    assert line.startswith(f"error: {data / 'user_db.toml'}: line ")
    assert line.endswith(": invalid TOML: an integer of more than 4,300 digits")


def test_an_integer_of_5000_digits_as_a_provider_argument_is_text(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "run",
            "--suite",
            str(MOCK_SUITE),
            "--agent",
            "oracle",
            "--user",
            "scripted",
            "--agent-arg",
            f"seed={BIG}",
            "--print-config",
        ],
    )
    assert "unexpected" not in result.output
    assert result.exit_code == 2, result.output  # a seat without a model takes no arguments


# Task folders


def test_only_the_task_files_of_a_task_folder_are_hashed(tmp_path: Path) -> None:
    folder = tmp_path / "tasks"
    folder.mkdir()
    for index, task in enumerate(MOCK_TASKS):
        (folder / f"task_{index}.json").write_text(json.dumps(task_to_tau2(task)))
    out = tmp_path / "run"
    arguments = ["run", "--suite", str(folder), "--domain", "mock", *OFFLINE, "--out", str(out)]
    assert runner.invoke(app, arguments).exit_code == 0
    recorded = json.loads((out / MANIFEST_FILE).read_text())["suite_hash"]
    (folder / "notes.txt").write_text("not a task")
    (folder / "old").mkdir()
    (folder / "old" / "task_9.json").write_text("{}")
    resumed = runner.invoke(app, ["run", "--resume", "--out", str(out), *OFFLINE])
    assert resumed.exit_code == 0, resumed.output
    assert json.loads((out / MANIFEST_FILE).read_text())["suite_hash"] == recorded


def test_a_folder_that_is_no_task_folder_is_refused(tmp_path: Path) -> None:
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "a.txt").write_text("x")
    line = refused(["run", "--suite", str(tmp_path / "files"), *OFFLINE, "--out", str(tmp_path / "o")])
    assert line == f"error: {tmp_path / 'files'}: no task files (task_*.json) in the folder"
