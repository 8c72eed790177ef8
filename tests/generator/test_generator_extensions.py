"""Catalog extensions as data: a TOML file layered onto a domain's catalog adds subtasks and intents that
`tau2 generate` composes and verifies; a file naming an unknown tool or a wrong argument is refused in
one line naming the file and the entry; packages ship extensions through an entry point."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from generator_mock import mock_catalog, mock_domain
from typer.testing import CliRunner

from tau2.cli import app
from tau2.errors import UserInputError
from tau2.generator.options import GeneratorOptions, Order
from tau2.generator.pipeline import generate
from tau2.generator.workflow import Workflow
from tau2.tasks import CatalogExtension, extend_catalog, get_domain, load_catalog_extension, load_suite

runner = CliRunner()

BY_HAND = """\
name = "by-hand"
version = "1"
extends = "telecom"

[[subtask]]
name = "apn_set_by_hand"
group = "apn"
description = "The APN is broken; the customer types the carrier's APN in by hand."
init = [{ side = "user", name = "break_apn_settings" }]
checks = [{ side = "user", name = "assert_service_status", arguments = { expected_status = "no_service" } }]

[[subtask.solution]]
side = "user"
name = "set_apn_settings"
arguments = { apn_settings = { apn_name = "internet" } }
"""

LAMP = """\
name = "lamp-extra"
version = "2"
extends = "mock"

[[subtask]]
name = "power_cut_by_name"
group = "power"
description = "Power is off on the account; the agent restores it for the customer by name."
init = [{ side = "agent", name = "cut_power" }]
solution = [{ side = "agent", name = "enable_power", arguments = { customer = "{customer}" } }]
texts.ticket = "The account is in the name of {name}."

[[intent]]
name = "account_power"
groups = ["power"]
success = [{ side = "user", name = "assert_lamp_lit", arguments = { expected_status = true } }]
failure = [{ side = "user", name = "assert_lamp_lit", arguments = { expected_status = false } }]

[intent.texts]
purpose = "Power on the account."
reason_for_call = "There is no power."
known_info = "You are {name}. The power is on the account of Ada."
task_instructions = "Do what the agent asks."
ticket = "{name} has no power. The power is on the account of Ada."
transfer_summary = "{name} has no power."
"""


def write(tmp_path: Path, text: str, name: str = "faults.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def lamp_extension(tmp_path: Path, text: str = LAMP) -> CatalogExtension:
    return load_catalog_extension(write(tmp_path, text), get_domain("mock"))


# Layering, on the mock domain: the format is domain-agnostic


def test_an_extension_adds_subtasks_and_intents_with_parameters_filled_per_target(tmp_path: Path) -> None:
    extension = lamp_extension(tmp_path)
    catalog = mock_catalog().model_copy(update={"parameters": {"customer": "Ada"}})
    extended = extend_catalog(catalog, [extension])
    assert extended.version == "mock-1+lamp-extra-2"
    step = extended.subtask("power_cut_by_name").solution[0]
    assert dict(step.arguments) == {"customer": "Ada"}
    assert [intent.name for intent in extended.intents] == ["dark_lamp", "account_power"]
    assert extended.subtasks[: len(catalog.subtasks)] == catalog.subtasks, "the catalog's own come first"
    assert extension.record.sha256 == hashlib.sha256(LAMP.encode()).hexdigest()


def test_a_generation_with_an_extension_verifies_and_records_it(tmp_path: Path) -> None:
    extension = lamp_extension(tmp_path)
    catalog = mock_catalog().model_copy(update={"parameters": {"customer": "Ada"}})
    options = GeneratorOptions(personas=("none",))
    generation = generate(mock_domain(catalog), options, lint=True, extensions=[extension])
    assert generation.rejected == [] and generation.findings == []
    tasks = {task.id: task for task in generation.tasks}
    assert "[account_power]power_cut_by_name[PERSONA:None]" in tasks
    assert "[dark_lamp]power_cut_by_name|switched_off[PERSONA:None]" in tasks
    assert tasks["[account_power]power_cut[PERSONA:None]"].ticket == (
        "Ada has no power. The power is on the account of Ada."
    )
    assert tasks["[account_power]power_cut_by_name[PERSONA:None]"].ticket == (
        "Ada has no power. The power is on the account of Ada. The account is in the name of Ada."
    )
    assert generation.catalog_version == "mock-1+lamp-extra-2"
    assert generation.extensions == (extension.record,)


@pytest.mark.parametrize(
    ("text", "parameters", "message"),
    [
        (
            LAMP,
            {},
            "subtask 'power_cut_by_name': solution[0]: enable_power: unknown parameter 'customer' "
            "(parameters: none)",
        ),
        (
            LAMP.replace('name = "power_cut_by_name"', 'name = "power_cut"'),
            {"customer": "Ada"},
            "subtask 'power_cut' is declared twice",
        ),
        (
            LAMP + '\n[[extend_intent]]\nname = "attic"\ngroups = ["power"]\n',
            {"customer": "Ada"},
            "extend_intent 'attic': the catalog has no such intent",
        ),
        (
            LAMP.replace('groups = ["power"]', 'groups = ["bulb"]'),
            {"customer": "Ada"},
            "intent 'account_power' names unknown groups ['bulb']",
        ),
    ],
)
def test_layering_problems_name_the_file(
    tmp_path: Path, text: str, parameters: dict[str, str], message: str
) -> None:
    extension = lamp_extension(tmp_path, text)
    with pytest.raises(UserInputError) as raised:
        extend_catalog(mock_catalog().model_copy(update={"parameters": parameters}), [extension])
    assert str(raised.value) == f"{tmp_path / 'faults.toml'}: {message}"


def test_an_extension_adds_stages_and_precedences(tmp_path: Path) -> None:
    staged = LAMP.replace('extends = "mock"\n', 'extends = "mock"\nstages = ["account"]\n').replace(
        'arguments = { customer = "{customer}" } }]',
        'arguments = { customer = "{customer}" }, stage = "account" }]',
    )
    staged += '\n[[fix_order]]\nbefore = "account"\nafter = "plug"\nreason = "the account before the lamp"\n'
    catalog = mock_catalog().model_copy(update={"parameters": {"customer": "Ada"}})
    extended = extend_catalog(catalog, [lamp_extension(tmp_path, staged)])
    assert extended.stages == ("plug", "switch", "power", "account")
    subtasks = [extended.subtask("unplugged"), extended.subtask("power_cut_by_name")]
    steps = Workflow(extended).arrange(subtasks, Order.WORKFLOW).steps
    assert [step.name for step in steps] == ["enable_power", "plug_in"]
    unordered = extend_catalog(catalog, [lamp_extension(tmp_path, staged[: staged.index("\n[[fix_order]]")])])
    steps = Workflow(unordered).arrange(subtasks, Order.WORKFLOW).steps
    assert [step.name for step in steps] == ["plug_in", "enable_power"], "a new stage comes last by default"


def test_a_precedence_cycle_from_an_extension_names_the_file(tmp_path: Path) -> None:
    text = LAMP + '\n[[fix_order]]\nbefore = "plug"\nafter = "power"\nreason = "r"\n'
    extension = lamp_extension(tmp_path, text)
    catalog = mock_catalog().model_copy(update={"parameters": {"customer": "Ada"}})
    with pytest.raises(UserInputError, match=r"faults\.toml: fix_order: the precedences form a cycle"):
        generate(mock_domain(catalog), GeneratorOptions(personas=("none",)), extensions=[extension])


# The bar, end to end on telecom


def test_tau2_generate_composes_and_verifies_a_subtask_from_a_file(tmp_path: Path) -> None:
    extension = write(tmp_path, BY_HAND)
    outputs = [tmp_path / "a" / "suite.json", tmp_path / "b" / "suite.json"]
    for output in outputs:
        output.parent.mkdir()
        options = ["--intents", "service_issue", "--max-subtasks", "2", "--personas", "none"]
        result = runner.invoke(
            app, ["generate", "--catalog-extension", str(extension), *options, "-o", str(output)]
        )
        assert result.exit_code == 0, result.output
        assert "tasks rejected" not in result.output and "lint: 0 findings" in result.output
    assert outputs[0].read_bytes() == outputs[1].read_bytes()
    suite = load_suite(outputs[0])
    ids = [task.id for task in suite.tasks]
    assert "[service_issue]apn_set_by_hand[PERSONA:None]" in ids
    assert "[service_issue]apn_set_by_hand|overdue_bill_suspension[PERSONA:None]" in ids
    assert suite.catalog_version == "telecom-1+by-hand-1"
    assert suite.generator["catalog_extensions"] == [
        {"name": "by-hand", "version": "1", "sha256": hashlib.sha256(BY_HAND.encode()).hexdigest()}
    ]
    assert "catalog" not in suite.generator, "the base catalog is not recorded"
    verified = runner.invoke(app, ["verify", str(outputs[0])])
    assert verified.exit_code == 0 and verified.output.strip().endswith(f"{len(ids)} valid, 0 invalid")


ENTRY = "subtask 'apn_set_by_hand'"


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        (
            'name = "set_apn_settings"',
            'name = "set_apn_setting"',
            f"{ENTRY}: solution[0]: no user tool named 'set_apn_setting' (did you mean 'set_apn_settings'?)",
        ),
        (
            'name = "break_apn_settings"',
            'name = "break_apn_setting"',
            f"{ENTRY}: init[0]: no user env function named 'break_apn_setting' (did you mean "
            "'break_apn_settings'?)",
        ),
        (
            'side = "user", name = "break_apn_settings"',
            'side = "agent", name = "break_apn_settings"',
            f"{ENTRY}: init[0]: no agent env function named 'break_apn_settings'",
        ),
        (
            'name = "assert_service_status"',
            'name = "toggle_data"',
            f"{ENTRY}: checks[0]: no user assertion named 'toggle_data'",
        ),
        (
            "arguments = { apn_settings",
            "arguments = { settings",
            f"{ENTRY}: solution[0]: set_apn_settings: unknown argument 'settings' (arguments: apn_settings)",
        ),
        (
            'apn_name = "internet"',
            'apn_name = "wap"',
            f"{ENTRY}: solution[0]: set_apn_settings: apn_settings.apn_name: Input should be 'internet' or "
            "'broken'",
        ),
        (
            'expected_status = "no_service"',
            "expected_status = 0",
            f"{ENTRY}: checks[0]: assert_service_status: expected_status: Input should be 'connected'",
        ),
        (
            'expected_status = "no_service"',
            'expected_status = "{customer_id:>3}"',
            f"{ENTRY}: checks[0]: assert_service_status: expected_status: '{{customer_id:>3}}': a reference "
            "is a parameter's name in braces",
        ),
        ('group = "apn"', 'grop = "apn"', "subtask 'apn_set_by_hand': grop: unknown field"),
        ('extends = "telecom"', 'extends = "mock"', "extends 'mock', not the 'telecom' domain"),
        ('version = "1"', 'version = "1 beta"', "version: '1 beta' must be letters"),
        ("[[subtask.solution]]", "[[subtask.solution]", "line 12, column 19: invalid TOML: Expected ']]'"),
    ],
)
def test_a_bad_file_is_refused_in_one_line_naming_the_file_and_the_entry(
    tmp_path: Path, old: str, new: str, problem: str
) -> None:
    assert old in BY_HAND
    extension = write(tmp_path, BY_HAND.replace(old, new))
    output = tmp_path / "out.json"
    result = runner.invoke(app, ["generate", "--catalog-extension", str(extension), "-o", str(output)])
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {extension}: {problem}"), result.output
    assert result.output.count("\n") == 1
    assert not output.exists()


def test_an_unknown_parameter_is_refused_before_anything_is_verified(tmp_path: Path) -> None:
    extension = write(tmp_path, BY_HAND.replace("{ expected_status", '{ expected_status = "{status}" } }] #'))
    result = runner.invoke(
        app, ["generate", "--catalog-extension", str(extension), "-o", str(tmp_path / "o")]
    )
    assert result.exit_code == 2
    assert result.output.startswith(
        f"error: {extension}: {ENTRY}: checks[0]: assert_service_status: unknown parameter 'status' "
        "(parameters: address_city, address_state, address_street, address_zip_code, allowance_gb, bill_id,"
    )


def test_a_missing_file_or_extension_is_a_one_line_error(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["generate", "--catalog-extension", "no-such-thing", "-o", str(tmp_path / "o")]
    )
    assert result.exit_code == 2
    assert result.output.startswith(
        "error: --catalog-extension: 'no-such-thing' is neither a file nor an installed extension"
    )


def test_an_installed_package_ships_an_extension_through_its_entry_point(tmp_path: Path) -> None:
    site = tmp_path / "site"
    (site / "by_hand_faults").mkdir(parents=True)
    (site / "by_hand_faults" / "faults.toml").write_text(BY_HAND, encoding="utf-8")
    (site / "by_hand_faults" / "__init__.py").write_text(
        "from pathlib import Path\n\nEXTENSION = Path(__file__).with_name('faults.toml')\n", encoding="utf-8"
    )
    info = site / "by_hand_faults-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: by-hand-faults\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        textwrap.dedent(
            """\
            [tau2.plugins]
            catalog_extension.by-hand = by_hand_faults:EXTENSION
            """
        )
    )
    output = tmp_path / "suite.json"
    command = [sys.executable, "-m", "tau2", "generate", "--catalog-extension", "by-hand"]
    arguments = ["--intents", "service_issue", "--max-subtasks", "1", "--personas", "none", "-o", str(output)]
    result = subprocess.run(
        [*command, *arguments],
        env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    suite = json.loads(output.read_text(encoding="utf-8"))
    assert suite["catalog_version"] == "telecom-1+by-hand-1"
    assert "[service_issue]apn_set_by_hand[PERSONA:None]" in [task["id"] for task in suite["tasks"]]


CHECKS_LINE = next(line for line in BY_HAND.splitlines() if line.startswith("checks = "))
TEMPLATE_FORM = "a text template's field is a fact's name in braces, like {customer_name}"


def with_ticket(template: str) -> str:
    """The `BY_HAND` extension with its subtask adding `template` to the ticket."""
    return BY_HAND.replace(CHECKS_LINE, f"{CHECKS_LINE}\ntexts.ticket = {json.dumps(template)}")


@pytest.mark.parametrize(
    "template",
    ["{name.__class__.__init__}", "{name[0]}", "{0}", "{}", "{name!r}", "{name:>2000}", "{name:{name}}"],
)
def test_a_text_template_is_facts_in_braces_and_nothing_more(tmp_path: Path, template: str) -> None:
    """Text templates were Python format strings: `{name.__class__…}` wrote an object's internals (a memory
    address) into the suite, `{0}` crashed the generator, a huge width wrote hundreds of megabytes."""
    extension = write(tmp_path, with_ticket(template))
    output = tmp_path / "out.json"
    result = runner.invoke(app, ["generate", "--catalog-extension", str(extension), "-o", str(output)])
    assert result.exit_code == 2, result.output
    assert result.output == f"error: {extension}: {ENTRY}: texts.ticket: {template!r}: {TEMPLATE_FORM}\n"
    assert not output.exists()


def test_a_text_template_with_an_unclosed_brace_is_refused(tmp_path: Path) -> None:
    extension = write(tmp_path, with_ticket("a {name"))
    result = runner.invoke(
        app, ["generate", "--catalog-extension", str(extension), "-o", str(tmp_path / "o")]
    )
    assert result.exit_code == 2
    assert result.output == (
        f"error: {extension}: {ENTRY}: texts.ticket: malformed field in 'a {{name': expected '}}' before end "
        "of string\n"
    )


def test_a_text_template_fills_facts_and_literal_braces(tmp_path: Path) -> None:
    extension = write(tmp_path, with_ticket("{{{name}}} typed the APN in by hand."))
    output = tmp_path / "out.json"
    options = ["--intents", "service_issue", "--max-subtasks", "1", "--personas", "none"]
    result = runner.invoke(
        app, ["generate", "--catalog-extension", str(extension), *options, "-o", str(output)]
    )
    assert result.exit_code == 0, result.output
    (task,) = [task for task in load_suite(output).tasks if "apn_set_by_hand" in task.id]
    assert task.ticket is not None and task.ticket.endswith(" {Marisol Vega} typed the APN in by hand.")
