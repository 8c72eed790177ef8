"""Peak memory and time of `tau2 import tau2bench` on a large results file, against reading the same file
whole (`json.load` into the results model, as the importer once did).

Writes a results file of about `--size-mb` megabytes by repeating the simulations of a smaller one as
further trials (by default an export of an offline run of τ²-bench's 50 airline tasks on its data: oracle
agent, scripted user), then runs each reader in its own process under `/usr/bin/time -v` and prints its
peak resident memory and wall time. Run from the repository root:

    python benchmarks/import_bench.py [--size-mb 200] [--data-dir DIR] [--source FILE]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
DATA_DIR = REPO.parent / "shared" / "conformance" / "tau2-airline"
READ_WHOLE = """
import json, sys
from tau2.tau2bench_results._format import Results
with open(sys.argv[1], encoding="utf-8") as handle:
    results = Results.model_validate(json.load(handle))
print(len(results.simulations))
"""


def exported_run(data_dir: Path, directory: Path) -> Path:
    """A results file of one offline run of the tasks in `data_dir`, exported by `tau2 export tau2bench`."""
    run, out = directory / "source-run", directory / "source.json"
    offline = ["--agent", "oracle", "--user", "scripted", "--quiet"]
    tau2 = [sys.executable, "-m", "tau2"]
    suite = ["--suite", str(data_dir / "tasks.json"), "--data-dir", str(data_dir)]
    subprocess.run([*tau2, "run", *suite, *offline, "--out", str(run)], check=True, capture_output=True)
    subprocess.run([*tau2, "export", "tau2bench", str(run), "-o", str(out)], check=True, capture_output=True)
    return out


def write_large(source: Path, out: Path, size: int) -> int:
    """A results file of at least `size` bytes: the source's simulations again and again, each copy as
    new trials of its task; returns the number of simulations."""
    document: dict[str, Any] = json.loads(source.read_text(encoding="utf-8"))
    simulations = document.pop("simulations")
    per_copy = max(simulation["trial"] for simulation in simulations) + 1
    head = json.dumps(document, indent=2)[:-2]  # the object without its closing brace
    written = copies = 0
    with out.open("w", encoding="utf-8") as handle:
        written += handle.write(head + ',\n  "simulations": [\n')
        while written < size:
            for simulation in simulations:
                copy = {**simulation, "id": f"{simulation['id']}-{copies}"}
                copy["trial"] = simulation["trial"] + copies * per_copy
                written += handle.write(
                    ("" if written <= len(head) + 22 else ",\n") + json.dumps(copy, indent=2)
                )
            copies += 1
        handle.write("\n  ]\n}\n")
    return copies * len(simulations)


def measured(command: list[str]) -> tuple[float, str]:
    """Peak resident memory (MB) and wall-clock time of `command`, from GNU time."""
    completed = subprocess.run(["/usr/bin/time", "-v", *command], capture_output=True, text=True, check=False)
    if completed.returncode != 0:
        raise SystemExit(completed.stderr[-2000:])
    peak = re.search(r"Maximum resident set size \(kbytes\): (\d+)", completed.stderr)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", completed.stderr)
    assert peak is not None and wall is not None
    return int(peak.group(1)) / 1024, wall.group(1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--source", type=Path, help="A results file to repeat (default: an offline run's).")
    parser.add_argument("--data-dir", type=Path, default=DATA_DIR)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        big = Path(directory) / "results.json"
        source = options.source or exported_run(options.data_dir, Path(directory))
        count = write_large(source, big, options.size_mb * 1_000_000)
        size = big.stat().st_size / 1e6
        print(f"results file: {size:.0f} MB, {count:,} simulations")
        whole, whole_time = measured([sys.executable, "-c", READ_WHOLE, str(big)])
        ratio = whole / size
        print(f"read whole (json.load + model): peak {whole:,.0f} MB ({ratio:.1f}× the file), {whole_time}")
        command = [sys.executable, "-m", "tau2", "import", "tau2bench", str(big), "--out", f"{directory}/run"]
        peak, wall = measured([*command, "--data-dir", str(options.data_dir)])
        print(f"tau2 import tau2bench: peak {peak:,.0f} MB ({peak / size:.1f}× the file), {wall}")


if __name__ == "__main__":
    main()
