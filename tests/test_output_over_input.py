"""An output never lands on an input: an `--html` page (or `generate -o`) whose path is one of the files
the command reads, by a symbolic or a hard link, is refused before anything is written, and the run's
records stay as they were; a page written earlier into a run directory may be written again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from fixtures.experiments import experiment, write_experiment
from typer.testing import CliRunner

from tau2.cli import app
from tau2.runs import MANIFEST_FILE, RESULTS_FILE

runner = CliRunner()
OFFLINE = ["--agent", "oracle", "--user", "scripted", "--quiet"]
REPO = Path(__file__).resolve().parents[1]
MOCK_SUITE = REPO / "domains" / "mock" / "suites" / "examples.json"


def refused(arguments: list[str]) -> str:
    """The one error line of a command that must exit 2."""
    result = runner.invoke(app, arguments)
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
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


LINKS = {
    "symbolic link": lambda link, target: link.symlink_to(target),
    "hard link": lambda link, target: link.hardlink_to(target),
}


@pytest.mark.parametrize("link", LINKS)
@pytest.mark.parametrize("target", [RESULTS_FILE, MANIFEST_FILE])
@pytest.mark.parametrize("command", ["report", "view", "compare"])
def test_an_html_page_is_never_written_over_a_file_of_the_run(
    run_copy: Path, good_run: Path, tmp_path: Path, link: str, target: str, command: str
) -> None:
    before = {path.name: path.read_bytes() for path in run_copy.iterdir()}
    page = tmp_path / "page.html"
    LINKS[link](page, run_copy / target)
    runs = [str(good_run), str(run_copy)] if command == "compare" else [str(run_copy)]
    line = refused([command, *runs, "--html", str(page)])
    assert line == (
        f"error: --html {page}: is the same file as {run_copy / target}, a file this command reads; "
        "choose another path"
    )
    assert {path.name: path.read_bytes() for path in run_copy.iterdir()} == before


def test_a_page_the_run_holds_is_written_again(run_copy: Path) -> None:
    page = run_copy / "report.html"
    for _ in range(2):
        result = runner.invoke(app, ["report", str(run_copy), "--html", str(page)])
        assert result.exit_code == 0, result.output
    assert page.read_text().startswith("<!DOCTYPE html>")


@pytest.mark.parametrize("link", LINKS)
def test_an_experiment_page_is_never_written_over_an_arms_records(tmp_path: Path, link: str) -> None:
    config = experiment(
        "links",
        "oracle",
        {"suite": str(MOCK_SUITE), "user": {"kind": "scripted"}},
        oracle={"agent": {"kind": "oracle"}},
        transfer={"agent": {"kind": "transfer"}},
    )
    directory = write_experiment(tmp_path / "exp", config)
    records = directory / "transfer" / RESULTS_FILE
    before = records.read_bytes()
    page = tmp_path / "page.html"
    LINKS[link](page, records)
    line = refused(["experiment", "report", str(directory), "--html", str(page)])
    assert line.startswith(f"error: --html {page}: is the same file as ")
    assert line.endswith(f"{RESULTS_FILE}, a file this command reads; choose another path")
    assert records.read_bytes() == before


def test_generate_never_writes_over_its_catalog_extension(tmp_path: Path) -> None:
    extension = Path(shutil.copy(REPO / "domains" / "telecom" / "catalogs" / "extended.toml", tmp_path))
    before = extension.read_bytes()
    output = tmp_path / "suite.json"
    output.hardlink_to(extension)
    line = refused(["generate", "--catalog-extension", str(extension), "-o", str(output)])
    assert line == (
        f"error: --output {output}: is the same file as {extension}, a file this command reads; "
        "choose another path"
    )
    assert extension.read_bytes() == before


def test_standard_output_sent_into_a_runs_records_is_refused(run_copy: Path) -> None:
    """`tau2 report RUN --json >> RUN/results.jsonl` would append the report to the records."""
    results = run_copy / RESULTS_FILE
    before = results.read_bytes()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with results.open("ab") as appended:
        done = subprocess.run(
            [sys.executable, "-m", "tau2", "report", str(run_copy), "--json"],
            stdout=appended,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
            timeout=300,
            check=False,
        )
    assert done.returncode == 2
    assert done.stderr == f"error: standard output is {results}, a file this command reads; write elsewhere\n"
    assert results.read_bytes() == before
