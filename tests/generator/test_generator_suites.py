"""The shipped telecom suites equal a fresh run of the command documented for each, byte for byte."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.telecom.catalog import DEFAULT_SUITE, EXTENDED_SUITE
from tau2.tasks import get_domain, load_suite

SUITES = DEFAULT_SUITE.parent
REPO = Path(__file__).resolve().parents[2]


def documented_commands() -> dict[str, list[str]]:
    """The `tau2 generate` commands of the suites' README, by the file each writes."""
    commands = {}
    for line in (SUITES / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("tau2 generate "):
            words = shlex.split(line)[1:]
            commands[Path(words[words.index("-o") + 1]).name] = words
    return commands


def test_every_shipped_suite_is_documented() -> None:
    assert sorted(documented_commands()) == sorted(path.name for path in SUITES.glob("*.json"))
    docs = (REPO / "docs" / "generator.md").read_text(encoding="utf-8")
    for words in documented_commands().values():
        assert shlex.join(["tau2", *words]) in docs


@pytest.mark.parametrize("name", ["small.json", "base.json", "extended.json"])
def test_a_shipped_suite_equals_a_fresh_generation(name: str, tmp_path: Path) -> None:
    words = documented_commands()[name]
    output = tmp_path / name
    words[words.index("-o") + 1] = str(output)
    result = CliRunner().invoke(app, words)
    assert result.exit_code == 0, result.output
    assert output.read_bytes() == (SUITES / name).read_bytes()


def test_the_default_suite_is_base_and_loads() -> None:
    assert get_domain("telecom").default_suite == SUITES / "base.json"
    suite = load_suite(DEFAULT_SUITE)
    assert suite.name == "base" and suite.domain == "telecom" and suite.catalog_version == "telecom-1"
    assert suite.generator["sample_per_bin"] == 3 and suite.seed == 7
    assert {task.persona for task in suite.tasks} == {"None", "Easy", "Hard"}
    assert len({task.metadata["target"] for task in suite.tasks}) == 7


def test_the_extended_domains_default_suite_holds_the_extended_catalogs_tasks() -> None:
    assert get_domain("telecom_extended").default_suite == EXTENDED_SUITE == SUITES / "extended.json"
    suite = load_suite(EXTENDED_SUITE)
    assert suite.domain == "telecom_extended" and suite.catalog_version == "telecom-1+telecom-extended-2"
    transfers = sum(task.evaluation.expects_transfer for task in suite.tasks)
    assert 0 < transfers <= 0.35 * len(suite.tasks), "the extension's transfer cap"
    assert {task.intent for task in suite.tasks} >= {"billing_issue", "household_issue"}
