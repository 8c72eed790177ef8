"""τ²-bench results files: one imported as a run directory, each recorded trajectory replayed and
evaluated in our world (`tau2 import tau2bench`), and a run exported as one, with a leaderboard
submission on request (`tau2 export tau2bench`)."""

from tau2.tau2bench_results._export import export_results as export_tau2bench_results
from tau2.tau2bench_results._export import pass_k_percent, refuse_existing
from tau2.tau2bench_results._export import submission as tau2bench_submission
from tau2.tau2bench_results._import import DATA_HINT as TAU2BENCH_DATA_HINT
from tau2.tau2bench_results._import import Tau2BenchImport, load_import
from tau2.tau2bench_results._import import import_results as import_tau2bench_results

__all__ = [
    "TAU2BENCH_DATA_HINT",
    "Tau2BenchImport",
    "export_tau2bench_results",
    "import_tau2bench_results",
    "load_import",
    "pass_k_percent",
    "refuse_existing",
    "tau2bench_submission",
]
