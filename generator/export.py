"""Writing a generation: our native suite file, or a τ²-bench task file, one task at a time."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from pydantic import JsonValue

from tau2.files import write_json_parts
from tau2.generator.options import OutputFormat
from tau2.generator.pipeline import Generation
from tau2.generator.stream import TaskStream
from tau2.tasks import Suite, Task
from tau2.tau2bench import write_tau2_file


def make_suite(name: str, domain: str, generation: Generation, data_dir: Path | None) -> Suite:
    """A suite of the generated tasks recording the catalog version, the options in effect and the data
    used."""
    return _suite(name, domain, generation, data_dir, generation.tasks)


def write_generation(
    path: Path,
    output_format: OutputFormat,
    domain: str,
    generation: Generation | TaskStream,
    data_dir: Path | None,
) -> None:
    """Write the tasks to `path` in the chosen format (a native suite is named after the file), each as it
    comes: a stream is read (verified) while it is written, so no more than one task is held at a time."""
    tasks: Iterable[Task] = generation.tasks if isinstance(generation, Generation) else generation
    if output_format is OutputFormat.TAU2_BENCH:
        write_tau2_file(path, tasks)
        return
    header = _suite(path.stem, domain, generation, data_dir, []).model_dump(mode="json")
    items: Iterator[dict[str, Any]] = (task.model_dump(mode="json") for task in tasks)
    write_json_parts(path, [(key, items if key == "tasks" else value) for key, value in header.items()])


def _suite(
    name: str, domain: str, generation: Generation | TaskStream, data_dir: Path | None, tasks: list[Task]
) -> Suite:
    """A suite of `tasks` recording how `generation` made them."""
    recorded: dict[str, JsonValue] = {
        **generation.options.recorded(),
        "data_dir": None if data_dir is None else data_dir.as_posix(),
    }
    if generation.extensions:
        recorded["catalog_extensions"] = [record.model_dump(mode="json") for record in generation.extensions]
    return Suite(
        name=name,
        domain=domain,
        catalog_version=generation.catalog_version,
        generator=recorded,
        seed=generation.options.seed,
        tasks=tasks,
    )
