"""The `tau2` command line: a Typer app with one module per subcommand.

To add a subcommand, write `tau2/cli/<name>.py` defining `command` (its docstring is the help text) and
add the module name to `COMMANDS`. A subcommand's module is imported only when that subcommand is looked
up (to run it, or for `tau2 --help`), and command modules import heavy dependencies (litellm, …) inside
`command`, so that every command starts without loading the others' dependencies.
"""

from __future__ import annotations

from tau2.cli import _signals

_signals.install()  # before the heavy imports below: a signal while starting must not print a traceback

import contextlib  # noqa: E402
import gc  # noqa: E402
import os  # noqa: E402

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
"""Before numpy loads (here and in worker processes, which inherit it): numpy's BLAS starts a thread per
core, about 0.1 s of CPU per command, and nothing tau2 computes multiplies matrices big enough to use them.
A value the user set is kept."""

import signal  # noqa: E402
import sys  # noqa: E402
import traceback  # noqa: E402
from collections.abc import Callable, Iterator, MutableMapping, Sequence  # noqa: E402
from importlib import import_module  # noqa: E402
from typing import Annotated, Any  # noqa: E402

import typer  # noqa: E402
from typer.core import TyperGroup  # noqa: E402

from tau2._display import inert  # noqa: E402
from tau2._jsonfile import has_surrogate  # noqa: E402
from tau2.cli._exit import ExitCode, os_failure  # noqa: E402
from tau2.cli._help import literal_help  # noqa: E402
from tau2.cli._output import help_laid_out  # noqa: E402
from tau2.errors import StorageError, UserInputError  # noqa: E402

COMMANDS = (
    "generate",
    "verify",
    "lint",
    "rebrand",
    "check_model",
    "episode",
    "run",
    "regrade",
    "report",
    "compare",
    "view",
    "play",
)
"""Subcommand modules of `tau2.cli`, in the order `--help` lists them."""
GROUPS = {"experiment": "experiment", "export": "exports", "import": "imports"}
"""Subcommand groups (name → module defining a Typer `app` with one command per format)."""


class _Subcommands(MutableMapping[str, Any]):
    """The root's subcommands by name, each built (its module imported) when it is first looked up: running
    `tau2 report` loads nothing of `tau2 run`. Listing the names, as typo suggestions do, imports nothing."""

    def __init__(self) -> None:
        names = [*(name.replace("_", "-") for name in COMMANDS), *GROUPS]
        self._commands: dict[str, Any] = dict.fromkeys(names)

    def __getitem__(self, name: str) -> Any:
        command = self._commands[name]
        if command is None:
            command = self._commands[name] = _subcommand(name)
        return command

    def __setitem__(self, name: str, command: Any) -> None:
        self._commands[name] = command

    def __delitem__(self, name: str) -> None:
        del self._commands[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._commands)

    def __len__(self) -> int:
        return len(self._commands)


def _subcommand(name: str) -> Any:
    """The click command of subcommand `name`, built by Typer as if registered on the root app itself
    (typed `Any`, like the table's values: Typer keeps its copy of click private), its help shown as
    written."""
    holder = typer.Typer(
        rich_markup_mode=app.rich_markup_mode,
        pretty_exceptions_short=app.pretty_exceptions_short,
        suggest_commands=app.suggest_commands,
    )
    if name in GROUPS:
        holder.add_typer(import_module(f"{__name__}.{GROUPS[name]}").app, name=name)
    else:
        holder.command(name=name)(import_module(f"{__name__}.{name.replace('-', '_')}").command)
    return literal_help(typer.main.get_group(holder).commands[name])


class _Tau2Group(TyperGroup):
    """The root command; it reports errors as one line with our exit codes instead of Typer's panels, and
    loads each subcommand only when it is looked up."""

    def __init__(self, **attributes: Any) -> None:
        super().__init__(**attributes)
        self.commands = _Subcommands()

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        arguments = sys.argv[1:] if args is None else list(args)

        def run() -> Any:
            _refuse_undecodable(arguments)
            with help_laid_out():
                return TyperGroup.main(
                    self, arguments, prog_name, complete_var, False, windows_expand_args, **extra
                )

        code = run_reporting_errors(run)
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
    plugins: Annotated[
        list[str] | None,
        typer.Option(
            "--plugin",
            metavar="REFERENCE|KIND.NAME=REFERENCE",
            help="A reference (module:attribute or file.py:attribute): let task files and runs name this "
            "plugin, which tau2 never imports for a file unless you name it. KIND.NAME=REFERENCE: declare a "
            "plugin for this command as an installed entry point would (lint_check.polite=checks.py:POLITE; "
            "kinds: docs/extending.md). Repeatable.",
        ),
    ] = None,
) -> None:
    """Evaluate conversational customer-service agents in a dual-control world."""
    from tau2._registry import allow_reference, declare_plugin, is_reference

    for plugin in plugins or ():
        if "=" in plugin:
            declare_plugin(plugin)
        elif is_reference(plugin):
            allow_reference(plugin)
        else:
            raise UserInputError(
                f"--plugin {plugin}: neither a module:attribute or file.py:attribute reference "
                "(my_pack.domain:DOMAIN) nor KIND.NAME=REFERENCE (lint_check.polite=my_checks.py:POLITE)"
            )


def run_reporting_errors(run: Callable[[], Any]) -> int:
    """Run the parsed command and map every outcome to an exit code, printing errors on one line.

    User errors (bad files, names, arguments) exit 2; the machine refusing (disk full, permissions, a
    read-only file system) exits 3; a handled signal exits 128 + its number; unexpected exceptions exit 1,
    with the traceback only when `TAU2_DEBUG=1`.
    """
    try:
        with _signals.command_running():
            result = run()
    except _signals.Stopped as stop:
        return _interrupted(stop.signum, stop.note)
    except KeyboardInterrupt as interruption:
        return _interrupted(getattr(interruption, "signum", signal.SIGINT), "stopped")
    except typer.TyperException as error:  # click's UsageError, BadParameter, … (vendored by Typer)
        context = getattr(error, "ctx", None)
        hint = (
            f" (see '{context.command_path} --help')" if context is not None and error.exit_code == 2 else ""
        )
        return _report(f"{error.format_message()}{hint}", error.exit_code)
    except typer.Abort:
        return _report("aborted", 1)
    except UserInputError as error:
        return _report(str(error), ExitCode.BAD_INPUT)
    except StorageError as error:
        return _report(str(error), ExitCode.ENVIRONMENT)
    except BrokenPipeError:
        _silence_stdout()
        return (
            128 + signal.SIGPIPE
        )  # the reader of our output went away (`tau2 ... | head`): end quietly, like SIGPIPE
    except OSError as error:
        return _report(*os_failure(error))
    except RecursionError:
        return _report("the input is nested too deeply to process", ExitCode.BAD_INPUT)
    except Exception as error:
        interrupted = _signals.received()
        if interrupted is not None:  # a library caught the interruption and raised its own error instead
            return _interrupted(interrupted, "stopped")
        from tau2.personas import PersonaError  # here: only a command that loaded personas can raise one

        if isinstance(error, PersonaError):
            return _report(str(error), ExitCode.BAD_INPUT)
        if os.environ.get("TAU2_DEBUG") == "1":
            traceback.print_exc()
        message = f"unexpected {type(error).__name__}: {error} (set TAU2_DEBUG=1 for the traceback)"
        return _report(message, ExitCode.FAILED)
    signum = _signals.received()
    if signum is not None:  # Typer turned the interruption into a bare exit code
        return _interrupted(signum, "stopped")
    return result if isinstance(result, int) else ExitCode.OK


def _interrupted(signum: int, note: str) -> int:
    """One line saying which signal stopped the command and what was kept; the code is 128 + its number."""
    return _report(f"interrupted by {_signals.signal_name(signum)}: {note}", 128 + signum, prefix="")


def _refuse_undecodable(arguments: Sequence[str]) -> None:
    """An argument holding a lone surrogate (bytes that are not UTF-8, or a stray UTF-16 half) cannot name
    a task, file or option, nor be printed; refuse it by position before anything uses it."""
    for position, argument in enumerate(arguments, start=1):
        if has_surrogate(argument):
            raise UserInputError(
                f"argument {position} ({inert(argument)}) is not valid text: it holds bytes that are not "
                "UTF-8 or an unpaired UTF-16 surrogate"
            )


def _report(message: str, code: int, prefix: str = "error: ") -> int:
    """Print `error: <message>` as a single line on stderr, control characters made visible, return `code`."""
    print(f"{prefix}{inert(' '.join(message.split()))}", file=sys.stderr)
    return int(code)


def _no_imports_from_the_working_directory() -> None:
    """A shared folder tau2 runs in (a run directory) may hold `.py` files; none may run. `python -m tau2`
    puts the working directory first on `sys.path` (dropped here, before the command imports anything
    more), and worker processes, started as `python -c …`, would do the same: `PYTHONSAFEPATH`, which
    they inherit, stops that. Code the user means to load is named by `PYTHONPATH` or installed."""
    os.environ["PYTHONSAFEPATH"] = "1"
    if not sys.flags.safe_path and sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]


def _silence_stdout() -> None:
    """Point stdout at the null device, so the interpreter's final flush does not fail on the closed pipe."""
    with contextlib.suppress(OSError, ValueError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI on `argv` (default: the process arguments), return the code."""
    command = typer.main.get_command(app)
    code: int = command.main(args=argv, prog_name="tau2", standalone_mode=False)
    return code


def console() -> int:
    """The `tau2` process (console script and `python -m tau2`): `main` on the process arguments. What is
    still alive when it returns lives until the process exits, so it is frozen out of the interpreter's
    final garbage collection, which would scan every module's objects for nothing (~0.06 s of CPU)."""
    _no_imports_from_the_working_directory()
    code = main()
    gc.freeze()
    return code
