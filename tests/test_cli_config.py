"""The configuration on the command line: `run`, `episode` and `check-model` options derived from the
configuration's fields (names kept, help and default from the field), `--config` files overridden by
options, `--print-config` read back unchanged, and command functions with few parameters."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
import typer
from rich.text import Text
from typer.testing import CliRunner

import tau2
from tau2.cli import app
from tau2.cli._config_options import DerivedOption, default_text
from tau2.cli.check_model import MODEL_OPTIONS
from tau2.cli.episode import EPISODE_OPTIONS
from tau2.cli.run import RUN_OPTIONS
from tau2.config import RunConfig
from tau2.runs import load_manifest

runner = CliRunner()
OFFLINE = ["--agent", "oracle", "--user", "scripted", "--quiet"]
MAX_PARAMETERS = 15

SEAT_OPTIONS = [
    "", "-model", "-api-base", "-arg", "-timeout", "-retry-budget", "-max-retries", "-transport",
    "-text-tool-calls",
]  # fmt: skip
RUN_FLAGS = {
    *(f"--{seat}{suffix}" for seat in ("agent", "user") for suffix in SEAT_OPTIONS),
    *(f"--judge{suffix}" for suffix in SEAT_OPTIONS[1:-2]),
    "--mode", "--oracle-plan", "--max-steps", "--max-errors", "--max-actor-retries", "--policy-variant",
    "--persona", "--suite", "--domain", "--split", "--task-ids", "--trials", "--seed", "--data-dir",
    "--concurrency", "--workers", "--ray", "--rate-limit", "--resume", "--quiet", "--out",
    "--retrieval", "--retrieval-top-k", "--embedding-model", "--embedding-api-base",
}  # fmt: skip
"""The options `tau2 run` has always had: every script and document using them keeps working."""


def command(name: str) -> Any:
    """The click command Typer builds for `tau2 <name>` (Typer carries its own copy of click)."""
    return typer.main.get_command(app).commands[name]  # type: ignore[attr-defined]


def flags(name: str) -> set[str]:
    return {flag for parameter in command(name).params for flag in parameter.opts}


def test_no_function_of_the_command_line_takes_more_than_fifteen_parameters() -> None:
    package = Path(tau2.__file__).parent / "cli"
    crowded = []
    for path in sorted(package.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                arguments = node.args
                count = len(arguments.posonlyargs) + len(arguments.args) + len(arguments.kwonlyargs)
                count += (arguments.vararg is not None) + (arguments.kwarg is not None)
                if count > MAX_PARAMETERS:
                    crowded.append(f"{path.name}:{node.lineno} takes {count}")
    assert crowded == []


def test_run_keeps_every_option_name() -> None:
    assert flags("run") >= RUN_FLAGS
    assert {"--config", "--print-config", "--judge-transport"} <= flags("run")
    assert {"--debug-turn-delay"}.isdisjoint(flags("run"))


def test_episode_and_check_model_take_the_same_seat_and_model_options() -> None:
    run_flags = {option.flag for option in RUN_OPTIONS}
    assert {option.flag for option in EPISODE_OPTIONS} <= run_flags
    assert {option.flag for option in MODEL_OPTIONS} <= run_flags
    assert {"--task-id", "--seed", "--mode", "--agent-text-tool-calls", "--config"} <= flags("episode")
    assert {"--retrieval", "--retrieval-top-k", "--embedding-model", "--embedding-api-base"} <= flags(
        "episode"
    )
    assert {"--agent-retry-budget", "--user-max-retries", "--judge-transport"} <= flags("check-model")


@pytest.mark.parametrize(
    ("name", "options"),
    [("run", RUN_OPTIONS), ("episode", EPISODE_OPTIONS), ("check-model", MODEL_OPTIONS)],
)
def test_each_derived_option_takes_its_help_and_default_from_its_field(
    name: str, options: list[DerivedOption]
) -> None:
    parameters = {parameter.opts[0]: parameter for parameter in command(name).params}
    for option in options:
        parameter = parameters[option.flag]
        description = " ".join(option.description.split())
        shown = Text.from_markup(parameter.help or "").plain  # the help as the screen shows it
        assert description and description in " ".join(shown.split()), option.flag
        assert parameter.default is None, option.flag  # not given: a resume keeps the stored value
        default = default_text(option.field)
        if default is not None:
            assert (parameter.help or "").endswith(f"(default: {default})"), option.flag


BRACKETED = re.compile(r"\\?\[[^\[\]\n]*\]")
"""A bracketed part of a help text (`[redacted]`, `[/RPM]`, `[PERSONA:x]`), written escaped or not."""


def every_command() -> list[tuple[list[str], Any]]:
    """Every command `tau2` has, groups' commands included, by the words that name it."""
    found = []
    for name, built in typer.main.get_command(app).commands.items():  # type: ignore[attr-defined]
        inside = getattr(built, "commands", None)
        found += [([name, sub], command) for sub, command in inside.items()] if inside else [([name], built)]
    return found


def test_no_help_text_loses_a_bracketed_part_to_markup() -> None:
    wide = {"COLUMNS": "400", "TERMINAL_WIDTH": "400"}
    checked: list[str] = []
    for words, command in every_command():
        texts = [
            command.help or "",
            *(p.help or "" for p in command.params if not getattr(p, "hidden", False)),
        ]
        bracketed = [
            " ".join(part.lstrip("\\").split()) for text in texts for part in BRACKETED.findall(text)
        ]
        result = runner.invoke(app, [*words, "--help"], env=wide)
        assert result.exit_code == 0, result.output
        shown = " ".join(result.stdout.replace("│", " ").split())
        assert [part for part in bracketed if part not in shown] == [], words
        checked += bracketed
    assert {"[redacted]", "[PERSONA:x]"} <= set(checked)  # `--judge-arg`, `compare --pair-by`


def test_defaults_in_help_follow_the_fields() -> None:
    wide = {"COLUMNS": "400", "TERMINAL_WIDTH": "400"}
    text = " ".join(runner.invoke(app, ["run", "--help"], env=wide).stdout.split())
    for words in ("Actor turns (both seats together) before the episode is cut off. (default: 100)",
                  "Simulations in flight at once (split evenly between workers). (default: 32)",
                  "before it counts as failed. (default: 120.0)"):  # fmt: skip
        assert words in text


def run(*arguments: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["run", *arguments])
    return result.exit_code, result.stdout, result.stderr


def test_print_config_is_read_back_unchanged(suite_file: Path, tmp_path: Path) -> None:
    given = ["--suite", str(suite_file), *OFFLINE, "--trials", "3", "--max-steps", "40", "--mode", "solo"]
    given += ["--rate-limit", "openai=8/600", "--workers", "2", "--task-ids", "both,power_cut"]
    code, printed, _ = run(*given, "--print-config")
    assert code == 0 and "trials = 3" in printed and "max_steps = 40" in printed
    path = tmp_path / "run.toml"
    path.write_text(printed)
    code, again, _ = run("--config", str(path), "--print-config")
    assert code == 0 and again == printed
    assert RunConfig.from_file(path).executor.kind == "workers"


def test_options_override_the_file_and_the_run_records_the_result(suite_file: Path, tmp_path: Path) -> None:
    path = tmp_path / "run.toml"
    path.write_text(
        f'suite = "{suite_file}"\ntrials = 2\nmax_steps = 40\n'
        'agent = { kind = "oracle" }\nuser = { kind = "scripted" }\n'
    )
    out = tmp_path / "run"
    code, stdout, stderr = run("--config", str(path), "--trials", "3", "--quiet", "--out", str(out))
    assert code == 0, stderr
    assert "5 tasks × 3 trials" in stdout and "pass^1: 1.000" in stdout
    config = load_manifest(out).config
    assert (config.trials, config.max_steps, config.agent.kind) == (3, 40, "oracle")


def test_print_config_on_resume_shows_the_stored_settings(suite_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert run("--suite", str(suite_file), *OFFLINE, "--trials", "2", "--out", str(out))[0] == 0
    code, printed, _ = run("--resume", "--out", str(out), "--trials", "4", "--print-config")
    assert code == 0 and "trials = 4" in printed and 'kind = "oracle"' in printed
    assert load_manifest(out).trials == 2


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("trials = [", "invalid TOML"),
        ("max_step = 3", "max_step: Extra inputs are not permitted"),
        ('mode = "duo"', "mode: Input should be 'interactive' or 'solo'"),
    ],
)
def test_a_bad_config_file_exits_two_with_one_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "run.toml"
    path.write_text(content)
    out = tmp_path / "run"
    code, stdout, stderr = run("--config", str(path), "--out", str(out))
    assert code == 2 and stdout == ""
    assert stderr.startswith(f"error: {path}: ") and message in stderr and stderr.count("\n") == 1
    assert not out.exists()


def test_a_bad_value_from_a_file_is_named_by_the_file(suite_file: Path, tmp_path: Path) -> None:
    path = tmp_path / "run.toml"
    path.write_text('task_ids = ["ghost"]\n')
    code, _, stderr = run(
        "--config", str(path), "--suite", str(suite_file), *OFFLINE, "--out", str(tmp_path / "r")
    )
    assert code == 2
    assert stderr == f"error: {path}: task_ids: not in the suite: ghost\n"


def test_out_is_needed_to_run(suite_file: Path) -> None:
    code, _, stderr = run("--suite", str(suite_file), *OFFLINE)
    assert code == 2 and stderr == "error: missing option --out: the run directory\n"


def test_check_model_names_options_without_a_model() -> None:
    result = runner.invoke(app, ["check-model", "--user-timeout", "3"])
    assert result.exit_code == 2
    assert result.stderr == "error: --user-timeout: no model to apply them to (give --user-model)\n"


def test_episode_takes_a_run_configuration_file(suite_file: Path, tmp_path: Path) -> None:
    path = tmp_path / "run.toml"
    path.write_text(
        f'suite = "{suite_file}"\ntrials = 4\nmode = "solo"\nagent = {{ kind = "oracle" }}\n'
        'user = { kind = "scripted" }\n'
    )
    result = runner.invoke(
        app, ["episode", "--config", str(path), "--task-id", "both", "--mode", "interactive", "--json"]
    )
    assert result.exit_code == 0, result.output
    episode = json.loads(result.stdout)
    assert (episode["reward"], episode["config"]["mode"], episode["user"]) == (1.0, "interactive", "scripted")
