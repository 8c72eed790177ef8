"""`tau2 lint`: deterministic, offline checks of task files (ours or τ²-bench's), one finding per task and
check; exit 1 when any finding is an error."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer

from tau2.cli._config_options import options_of, with_options
from tau2.cli.options import DataDir, JsonOutput
from tau2.config import RunConfig

LINT_OPTIONS = options_of(RunConfig, only=["policy_variant"])
"""`--policy-variant`, derived from the run setting: the policy the tasks are checked against."""


@with_options(LINT_OPTIONS)
def command(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="Task files or τ²-bench task folders (ours or τ²-bench's); several are also checked for "
            "duplicates across them.",
            show_default=False,
        ),
    ],
    data_dir: DataDir = None,
    domain: Annotated[
        str | None, typer.Option("--domain", help="Domain of the tasks (default: as each file says).")
    ] = None,
    json_output: JsonOutput = False,
    **given: Any,
) -> None:
    """Lint task files: print each finding (task, severity, check, detail), then counts per check; --json
    prints one document instead. Exit 1 when a finding is an error."""
    from tau2.audit import Severity, lint_checks, lint_files
    from tau2.cli._output import say
    from tau2.episode import EpisodeConfig
    from tau2.errors import UserInputError
    from tau2.tau2bench import load_task_file

    loaded = []
    for path in files:
        tasks = load_task_file(path, domain, data_dir=data_dir)
        if not tasks:
            raise UserInputError(f"{path}: the file has no tasks")
        loaded.append((str(path), tasks))
    variant = given[LINT_OPTIONS[0].parameter] or EpisodeConfig().policy_variant
    findings = lint_files(loaded, data_dir, variant)
    checks = lint_checks()
    counts = Counter(finding.check for finding in findings)
    if json_output:
        import json

        document = {
            "files": [{"path": path, "tasks": len(tasks)} for path, tasks in loaded],
            "counts": {name: counts[name] for name in checks},
            "checks": {
                name: check.model_dump(mode="json", exclude={"name"}) for name, check in checks.items()
            },
            "findings": [finding.model_dump(mode="json") for finding in findings],
        }
        typer.echo(json.dumps(document, indent=2, ensure_ascii=False))
    else:
        several = len(loaded) > 1
        for finding in findings:
            subject = finding.task_id or "policy"
            where = f"{finding.file}: " if several and finding.file else ""
            say(f"{where}{subject}: {finding.severity.value} {finding.check}: {finding.detail}")
        total = sum(len(tasks) for _, tasks in loaded)
        flagged = len({(f.file, f.task_id) for f in findings if f.task_id is not None})
        say(f"{total} tasks: {total - flagged} without findings, {flagged} with findings")
        for name, check in checks.items():
            if counts[name]:
                say(f"{counts[name]} {check.severity.value} {name}")
    if any(finding.severity is Severity.ERROR for finding in findings):
        raise typer.Exit(1)
