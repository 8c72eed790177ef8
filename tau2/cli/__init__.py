"""The `tau2` command line: a Typer app with one module per subcommand.

To add a subcommand, write `tau2/cli/<name>.py` defining `command` (its docstring is the help text) and
add the module name to `COMMANDS`. Command modules import heavy dependencies (litellm, …) inside
`command`, so that `tau2 --help` and light commands start fast.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from tau2.errors import UserInputError
from tau2.personas import PersonaError

COMMANDS = ("generate", "verify", "check_model", "episode", "run", "report", "compare", "view", "play")
"""Subcommand modules of `tau2.cli`, in the order `--help` lists them."""
GROUPS = {"export": "exports", "import": "imports"}
"""Subcommand groups (name → module defining a Typer `app` with one command per format)."""


class _Tau2Group(TyperGroup):
    """The root command; it reports errors as one line with our exit codes instead of Typer's panels."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        code = run_reporting_errors(
            lambda: TyperGroup.main(self, args, prog_name, complete_var, False, windows_expand_args, **extra)
        )
        if standalone_mode:
            sys.exit(code)
        return code


app = typer.Typer(
    cls=_Tau2Group,
    name="tau2",
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(given: bool) -> None:
    if given:
        from tau2 import __version__

        typer.echo(f"tau2 {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", is_eager=True, callback=_print_version, help="Print the version and exit."),
    ] = False,
) -> None:
    """Evaluate conversational customer-service agents in a dual-control world."""


for _name in COMMANDS:
    _module = import_module(f"{__name__}.{_name}")
    app.command(name=_name.replace("_", "-"))(_module.command)
for _group, _name in GROUPS.items():
    app.add_typer(import_module(f"{__name__}.{_name}").app, name=_group)


def run_reporting_errors(run: Callable[[], Any]) -> int:
    """Run the parsed command and map every outcome to an exit code, printing errors on one line.

    User errors (bad files, names, arguments) exit 2; unexpected exceptions exit 1, with the traceback
    only when `TAU2_DEBUG=1`.
    """
    try:
        result = run()
    except typer.TyperException as error:  # click's UsageError, BadParameter, … (vendored by Typer)
        context = getattr(error, "ctx", None)
        hint = (
            f" (see '{context.command_path} --help')" if context is not None and error.exit_code == 2 else ""
        )
        return _report(f"{error.format_message()}{hint}", error.exit_code)
    except typer.Abort:
        return _report("aborted", 1)
    except (UserInputError, PersonaError) as error:
        return _report(str(error), 2)
    except Exception as error:
        if os.environ.get("TAU2_DEBUG") == "1":
            traceback.print_exc()
        return _report(f"unexpected {type(error).__name__}: {error} (set TAU2_DEBUG=1 for the traceback)", 1)
    return result if isinstance(result, int) else 0


def _report(message: str, code: int) -> int:
    """Print `error: <message>` as a single line on stderr and return `code`."""
    print(f"error: {' '.join(message.split())}", file=sys.stderr)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Console-script entry point: run the CLI on `argv` (default: the process arguments), return the code."""
    command = typer.main.get_command(app)
    code: int = command.main(args=argv, prog_name="tau2", standalone_mode=False)
    return code
