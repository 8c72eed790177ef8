"""Scenario set-up and task domains in catalogs: an intent's set-up calls open every task of the intent
and V1 is checked after them; an extension may name a richer domain its tasks run in (`runs_in`), whose
tools its calls may use."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from generator_mock import INTENT, mock_catalog, mock_domain
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.mock.domain import MockState
from tau2.errors import UserInputError
from tau2.generator.options import GeneratorOptions
from tau2.generator.pipeline import generate
from tau2.tasks import EnvCall, Intent, load_catalog_extension, load_suite, register_domain
from tau2.world import Side, ToolKind, ToolSet, ToolTable

runner = CliRunner()
NONE = GeneratorOptions(personas=("none",))


def with_setup(*setup: EnvCall) -> Intent:
    """The lamp intent, its tasks opening with `setup`."""
    return INTENT.model_copy(update={"setup": setup})


def test_an_intents_setup_opens_each_of_its_tasks_and_is_verified_under() -> None:
    power_on = EnvCall(side=Side.AGENT, name="enable_power", arguments={"customer": "Ada"})
    catalog = mock_catalog().model_copy(update={"intents": (with_setup(power_on),)})
    generation = generate(mock_domain(catalog), NONE)
    assert generation.rejected == [] and generation.tasks
    assert {task.initialization[0].name for task in generation.tasks} == {"enable_power"}
    assert {len(task.initialization) for task in generation.tasks if task.num_subtasks == 1} == {2}


def test_v1_is_checked_once_the_setup_has_run() -> None:
    unplugged = EnvCall(side=Side.USER, name="unplug")
    catalog = mock_catalog().model_copy(update={"intents": (with_setup(unplugged),)})
    generation = generate(mock_domain(catalog), NONE)
    assert generation.tasks == []
    assert {rejection.reason for rejection in generation.rejected} == {
        "V1: before the faults are planted u.assert_lamp_lit(expected_status=True) returned False, "
        "expected True"
    }


def test_a_failing_setup_call_rejects_the_intents_tasks() -> None:
    stranger = EnvCall(side=Side.AGENT, name="enable_power", arguments={"customer": "Bo"})
    catalog = mock_catalog().model_copy(update={"intents": (with_setup(stranger),)})
    generation = generate(mock_domain(catalog), NONE)
    assert generation.tasks == [] and len(generation.rejected) > 0
    assert {rejection.reason for rejection in generation.rejected} == {
        "V2: set-up: init call a.enable_power(customer='Bo') failed: no account for 'Bo'"
    }


ANNEX_TOOLS = ToolSet(Side.AGENT)


@ANNEX_TOOLS.tool(ToolKind.WRITE)
def reset_breaker(state: MockState) -> str:
    """Reset the breaker, which restores power to the account."""
    state.account.power_enabled = True
    return "The breaker is reset."


def annex_domain() -> str:
    """A richer mock domain: the lamp domain's tools plus a breaker the agent can reset."""
    mock = mock_domain()
    sides = [ToolSet(side, {f.name: f for f in mock.tools.env_functions(side)}) for side in Side]
    register_domain(dataclasses.replace(mock, name="mock_annex", tools=ToolTable(*sides, ANNEX_TOOLS)))
    return "mock_annex"


BREAKER = """\
name = "breaker"
version = "1"
extends = "mock"
{runs_in}

[[subtask]]
name = "breaker_tripped"
group = "power"
description = "The breaker tripped; resetting it restores power."
init = [{{ side = "agent", name = "cut_power" }}]
solution = [{{ side = "agent", name = "reset_breaker" }}]
"""


def test_an_extension_runs_its_tasks_in_the_richer_domain_it_names(tmp_path: Path) -> None:
    name = annex_domain()
    path = tmp_path / "breaker.toml"
    path.write_text(BREAKER.format(runs_in=f'runs_in = "{name}"'), encoding="utf-8")
    extension = load_catalog_extension(path, mock_domain())
    generation = generate(mock_domain(), NONE, extensions=[extension])
    assert generation.rejected == [] and generation.domain == name
    assert {task.domain for task in generation.tasks} == {name}
    breaker = next(task for task in generation.tasks if task.subtasks == ["breaker_tripped"])
    assert [step.name for step in breaker.evaluation.solution] == ["reset_breaker"]


def test_without_runs_in_the_richer_domains_tools_are_unknown(tmp_path: Path) -> None:
    annex_domain()
    path = tmp_path / "breaker.toml"
    path.write_text(BREAKER.format(runs_in=""), encoding="utf-8")
    with pytest.raises(UserInputError, match="solution\\[0\\]: no agent tool named 'reset_breaker'"):
        load_catalog_extension(path, mock_domain())


def test_extensions_running_in_different_domains_cannot_be_layered(tmp_path: Path) -> None:
    name = annex_domain()
    first, second = tmp_path / "a.toml", tmp_path / "b.toml"
    first.write_text(BREAKER.format(runs_in=f'runs_in = "{name}"'), encoding="utf-8")
    own_tools = BREAKER.format(runs_in='runs_in = "mock"').replace("breaker_tripped", "tripped_again")
    own_tools = own_tools.replace(
        'name = "reset_breaker"', 'name = "enable_power", arguments = { customer = "Ada" }'
    )
    second.write_text(own_tools, encoding="utf-8")
    layers = [load_catalog_extension(first, mock_domain()), load_catalog_extension(second, mock_domain())]
    with pytest.raises(UserInputError, match="the catalog extensions run in different domains"):
        generate(mock_domain(), NONE, extensions=layers)


def test_an_unknown_runs_in_domain_is_the_files_error(tmp_path: Path) -> None:
    path = tmp_path / "breaker.toml"
    path.write_text(BREAKER.format(runs_in='runs_in = "attic"'), encoding="utf-8")
    with pytest.raises(UserInputError, match=f"^{path}: runs_in: unknown domain 'attic'"):
        load_catalog_extension(path, mock_domain())


def test_tau2_generate_writes_the_suite_for_the_domain_its_tasks_run_in(tmp_path: Path) -> None:
    name = annex_domain()
    register_domain(dataclasses.replace(mock_domain(mock_catalog()), name="mock_lamps"))
    extension = tmp_path / "breaker.toml"
    extension.write_text(
        BREAKER.format(runs_in=f'runs_in = "{name}"').replace('extends = "mock"', 'extends = "mock_lamps"'),
        encoding="utf-8",
    )
    output = tmp_path / "suite.json"
    arguments = ["--domain", "mock_lamps", "--catalog-extension", str(extension), "--personas", "none"]
    result = runner.invoke(app, ["generate", *arguments, "-o", str(output)])
    assert result.exit_code == 0, result.output
    suite = load_suite(output)
    assert suite.domain == name and {task.domain for task in suite.tasks} == {name}
    verified = runner.invoke(app, ["verify", str(output)])
    assert verified.exit_code == 0, verified.output
