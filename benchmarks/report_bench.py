"""HTML report size and build time for large runs: bytes per 1,000 simulations and seconds per page.

Runs the default telecom suite offline (oracle agent, scripted user, two trials), repeats its records as
further trials up to the requested number of simulations, then builds the report and its HTML page.
Run: `python benchmarks/report_bench.py [--simulations N]`.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from typer.testing import CliRunner

from tau2.cli import app
from tau2.metrics import Bootstrap
from tau2.report import build_report, run_page
from tau2.runs._rundir import RESULTS_FILE, load_run


def offline_run(out: Path) -> None:
    """The default telecom suite, two trials, oracle agent and scripted user."""
    arguments = ["run", "--domain", "telecom", "--agent", "oracle", "--user", "scripted"]
    result = CliRunner().invoke(app, [*arguments, "--trials", "2", "--quiet", "--out", str(out)])
    if result.exit_code != 0:
        raise SystemExit(result.output)


def measure(simulations: int) -> list[str]:
    """Figures for a run of `simulations` records."""
    with tempfile.TemporaryDirectory() as directory:
        out = Path(directory) / "run"
        offline_run(out)
        run = load_run(out)
        base = run.records
        records = [
            base[i % len(base)].model_copy(update={"trial": i // len(base) * 2 + base[i % len(base)].trial})
            for i in range(simulations)
        ]
        run = run.model_copy(
            update={"records": records, "manifest": run.manifest.model_copy(update={"trials": 2})}
        )
        results_bytes = (out / RESULTS_FILE).stat().st_size * simulations / len(base)
        started = time.perf_counter()
        report = build_report(run, Bootstrap(samples=200))
        built = time.perf_counter()
        page = run_page(report, records).encode()
        rendered = time.perf_counter()
    per_thousand = len(page) / simulations * 1000
    return [
        f"simulations: {simulations:,}",
        f"page: {len(page) / 1e6:.2f} MB ({per_thousand / 1e3:,.0f} kB per 1,000 simulations)",
        f"results.jsonl of the same run: {results_bytes / 1e6:.1f} MB",
        f"report metrics: {built - started:.2f} s; page (plots, transcripts): {rendered - built:.2f} s",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--simulations", type=int, default=10_000)
    print("\n".join(measure(parser.parse_args().simulations)))


if __name__ == "__main__":
    main()
