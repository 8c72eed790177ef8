"""Reports over run directories: one run (`tau2 report`), a paired comparison (`tau2 compare`), the
trajectory viewer (`tau2 view`); terminal, JSON and self-contained HTML. Its public modules (tables,
factors, ablation, frontier, cost, collateral, html) are the shared helpers the experiment report of
`tau2.experiments` builds on."""

from tau2.report.build import auto_pair_by, build_comparison, build_report, read_report
from tau2.report.html import (
    comparison_page,
    comparison_page_parts,
    run_page,
    run_page_parts,
    viewer_page,
    viewer_page_parts,
    write_page,
)
from tau2.report.robustness import profile_against
from tau2.report.schema import (
    SCHEMA_VERSION,
    ComparisonReport,
    Factor,
    RunRef,
    RunReport,
    SimulationRow,
    Totals,
)
from tau2.report.tables import TableData
from tau2.report.terminal import comparison_tables, rich_table, run_tables
from tau2.report.viewer import select_simulations, simulation_view

__all__ = [
    "SCHEMA_VERSION",
    "ComparisonReport",
    "Factor",
    "RunRef",
    "RunReport",
    "SimulationRow",
    "TableData",
    "Totals",
    "auto_pair_by",
    "build_comparison",
    "build_report",
    "comparison_page",
    "comparison_page_parts",
    "comparison_tables",
    "profile_against",
    "read_report",
    "rich_table",
    "run_page",
    "run_page_parts",
    "run_tables",
    "select_simulations",
    "simulation_view",
    "viewer_page",
    "viewer_page_parts",
    "write_page",
]
