"""The Python API of runs: start or resume one from a `RunConfig` (`run`, `arun`), read one back
(`load_run_result`), and its results (`RunResult`: the manifest, the records, the report's numbers)."""

from tau2.api._result import RunResult, load_run_result
from tau2.api._run import OpenRun, arun, open_run, run

__all__ = ["OpenRun", "RunResult", "arun", "load_run_result", "open_run", "run"]
