"""`tau2 rebrand`: write a domain's data and tasks renamed by a delta into a new directory, check that every
renamed reference solution keeps its reward, and report how often the original one fails there."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from tau2.cli.options import DataDir, JsonOutput

if TYPE_CHECKING:
    from tau2.rebrand import Delta, Rebrand
    from tau2.rebrand.check import Check

MAX_LISTED = 20
"""Problems listed at most when a rebrand is refused (their count is always given)."""


def command(
    domain: Annotated[
        str,
        typer.Option(
            "--domain", help="The domain to rebrand (airline, retail, banking_knowledge, telecom, …)."
        ),
    ],
    out: Annotated[
        Path,
        typer.Option("--out", "-o", help="The new directory to write (absent or empty).", show_default=False),
    ],
    delta: Annotated[
        Path | None,
        typer.Option("--delta", help="The rebrand delta, a TOML file (default: the one the domain ships)."),
    ] = None,
    data_dir: DataDir = None,
    suite: Annotated[
        list[Path] | None,
        typer.Option(
            "--suite",
            help="A task file or τ²-bench task folder to rebrand (repeatable; default: those of the data "
            "directory, else the domain's default suite).",
            exists=True,
        ),
    ] = None,
    seed: Annotated[
        int | None, typer.Option("--seed", help="Seed of the new identifiers (default: the delta's).")
    ] = None,
    json_output: JsonOutput = False,
) -> None:
    """Rebrand a domain: write its data files and task files, renamed by a delta, into a new directory laid
    out as the domain's data directory (for `tau2 verify` and `tau2 run --data-dir`). Every renamed reference
    solution must replay to the reward of the original, or nothing is written (exit 1); the memorisation
    check reports the share of tasks that write on which the original reference actions score 0."""
    from tau2.cli._output import say
    from tau2.rebrand import Delta as EmptyDelta
    from tau2.rebrand import declaration_of, load_delta, rebrand, staged_directory
    from tau2.rebrand.check import check_rebrand
    from tau2.tasks import get_domain

    pack = get_domain(domain)
    declaration = declaration_of(pack)
    delta_path = delta or declaration.delta
    chosen = load_delta(delta_path, declaration) if delta_path is not None else EmptyDelta()
    with staged_directory(out) as staging:
        result = rebrand(pack, chosen, staging, seed=seed, source=data_dir, suites=suite or ())
        if not result.world.consistent:
            _refuse(_inconsistencies(result))
        check = check_rebrand(result)
        changed = [task for task in check.tasks if not task.kept]
        if changed:
            _refuse(
                [
                    f"{task.file}: task {task.task_id}: its renamed reference scores {task.rebranded}, "
                    f"the original {task.original}"
                    for task in changed
                ]
            )
    used_seed = chosen.seed if seed is None else seed
    if json_output:
        import json

        document = _document(result, check, out, delta_path, used_seed)
        typer.echo(json.dumps(document, indent=2, ensure_ascii=False))
        return
    for line in _summary(result, check, out, delta_path, used_seed, chosen):
        say(line)


def _refuse(problems: list[str]) -> None:
    """Print why the rebrand is refused (nothing is written) and exit 1."""
    from tau2.cli._output import say

    for problem in problems[:MAX_LISTED]:
        say(problem)
    more = len(problems) - MAX_LISTED
    suffix = f" ({more} more not shown)" if more > 0 else ""
    say(f"rebrand refused, nothing written: {len(problems)} problems{suffix}")
    raise typer.Exit(1)


def _inconsistencies(result: Rebrand) -> list[str]:
    """Every task that did not behave as the image of the original, and every surviving identifier."""
    lines = [
        f"{path.name}: task {task.original.id}: {problem}"
        for path, tasks in result.task_files
        for task in tasks
        for problem in task.problems
    ]
    world = result.world
    lines += [f"an original identifier survives: {where}" for where in world.survivors]
    missing = world.survivor_count - len(world.survivors)
    if missing > 0:
        lines.append(f"… and {missing} more surviving identifiers")
    return lines


def _files(result: Rebrand) -> list[str]:
    """The files written: data files (those of a folder as a count), task files with their task counts."""
    written: list[str] = []
    folders: dict[str, int] = {}
    for relative in result.world.data_files:
        if len(relative.parts) == 1:
            written.append(str(relative))
        else:
            folders[relative.parts[0]] = folders.get(relative.parts[0], 0) + 1
    written += [f"{name}/ ({count} files)" for name, count in folders.items()]
    written += [f"{path.name} ({len(tasks)} tasks)" for path, tasks in result.task_files]
    return written


def _summary(
    result: Rebrand, check: Check, out: Path, delta: Path | None, seed: int, chosen: Delta
) -> list[str]:
    summary = check.summary
    renaming = result.world.renaming
    rules = ", ".join(rule.name for rule in chosen.rules) or "none"
    lines = [
        f"{result.domain.name}: rebranded {result.world.source} into {out} with "
        f"{delta if delta is not None else 'no delta'} (seed {seed})",
        f"renamed {len(renaming.identifiers):,} identifiers; {len(chosen.names):,} names mapped; "
        f"value rules: {rules}",
        f"wrote {', '.join(_files(result))}",
        f"gold: {summary.kept} of {summary.tasks} tasks replay to the reward of the original "
        f"({summary.solved} score 1.0)",
    ]
    share = summary.memorisation_share
    if share is None:
        lines.append("memorisation check: no task writes the records, nothing to check")
    else:
        lines.append(
            f"memorisation check: the original gold actions score 0 on {summary.memorised_fail} of "
            f"{summary.writing} tasks that write ({share:.1%})"
        )
    lines += [f"note: {note}" for note in result.notes]
    setups = [task for task in result.tasks if task.setup is not None]
    lines += [
        f"note: task {task.original.id} cannot be set up on its own data: {task.setup}" for task in setups
    ]
    return lines


def _document(result: Rebrand, check: Check, out: Path, delta: Path | None, seed: int) -> dict[str, Any]:
    summary = check.summary
    return {
        "domain": result.domain.name,
        "source": str(result.world.source),
        "out": str(out),
        "delta": None if delta is None else str(delta),
        "seed": seed,
        "identifiers": len(result.world.renaming.identifiers),
        "data_files": [str(relative) for relative in result.world.data_files],
        "task_files": [{"name": path.name, "tasks": len(tasks)} for path, tasks in result.task_files],
        "summary": {**summary.model_dump(mode="json"), "memorisation_share": summary.memorisation_share},
        "notes": result.notes,
        "tasks": [task.model_dump(mode="json") for task in check.tasks],
    }
