"""Writing a generation: our native suite file, or a τ²-bench task file."""

from __future__ import annotations

from pathlib import Path

from pydantic import JsonValue

from tau2.generator.options import OutputFormat
from tau2.generator.pipeline import Generation
from tau2.tasks import Suite
from tau2.tau2bench import write_tau2_file


def make_suite(name: str, domain: str, generation: Generation, data_dir: Path | None) -> Suite:
    """A suite of the generated tasks recording the catalog version, the options in effect and the data
    used."""
    options = generation.options
    recorded: dict[str, JsonValue] = {
        **options.recorded(),
        "data_dir": None if data_dir is None else data_dir.as_posix(),
    }
    if generation.extensions:
        recorded["catalog_extensions"] = [record.model_dump(mode="json") for record in generation.extensions]
    return Suite(
        name=name,
        domain=domain,
        catalog_version=generation.catalog_version,
        generator=recorded,
        seed=options.seed,
        tasks=generation.tasks,
    )


def write_generation(
    path: Path,
    output_format: OutputFormat,
    domain: str,
    generation: Generation,
    data_dir: Path | None,
) -> None:
    """Write the tasks to `path` in the chosen format (a native suite is named after the file)."""
    if output_format is OutputFormat.TAU2_BENCH:
        write_tau2_file(path, generation.tasks)
    else:
        make_suite(path.stem, domain, generation, data_dir).save(path)
