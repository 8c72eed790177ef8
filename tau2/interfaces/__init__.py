"""Doors into tau2 besides the runner: RL environments for either seat (`tau2.interfaces.gymnasium_env`,
extra `gym`; `tau2.interfaces.pettingzoo_env`, extra `pettingzoo`), a person playing a seat (`tau2 play`),
human annotation with Potato and τ²-bench results interoperability (`tau2 export` / `tau2 import`).

Importing this package loads none of the optional libraries. It holds the RL action helpers and the
functions behind the export and import commands, for use from Python.
"""

from tau2.interfaces._actions import message_action, parse_action, stop_action, tool_call_action
from tau2.interfaces._agreement import LabelAgreement, label_agreement
from tau2.interfaces._markup import inert_markup
from tau2.interfaces._play import choose_setup as choose_play_setup
from tau2.interfaces._play import play as play_session
from tau2.interfaces._play import record as record_play
from tau2.interfaces._potato_export import CONFIG_FILE as POTATO_CONFIG_FILE
from tau2.interfaces._potato_export import export_project as export_potato_project
from tau2.interfaces._potato_import import HumanLabel, load_labels
from tau2.interfaces._potato_import import import_annotations as import_potato_annotations
from tau2.interfaces._report_sections import extra_sections, imported_tables
from tau2.interfaces._runs import check_new_run_dir
from tau2.interfaces._tau2bench_export import export_results as export_tau2bench_results
from tau2.interfaces._tau2bench_export import pass_k_percent, refuse_existing
from tau2.interfaces._tau2bench_export import submission as tau2bench_submission
from tau2.interfaces._tau2bench_import import DATA_HINT as TAU2BENCH_DATA_HINT
from tau2.interfaces._tau2bench_import import Tau2BenchImport, load_import
from tau2.interfaces._tau2bench_import import import_results as import_tau2bench_results
from tau2.interfaces._terminal import SessionEnded, Terminal

__all__ = [
    "POTATO_CONFIG_FILE",
    "TAU2BENCH_DATA_HINT",
    "HumanLabel",
    "LabelAgreement",
    "SessionEnded",
    "Tau2BenchImport",
    "Terminal",
    "check_new_run_dir",
    "choose_play_setup",
    "export_potato_project",
    "export_tau2bench_results",
    "extra_sections",
    "import_potato_annotations",
    "import_tau2bench_results",
    "imported_tables",
    "inert_markup",
    "label_agreement",
    "load_import",
    "load_labels",
    "message_action",
    "parse_action",
    "pass_k_percent",
    "play_session",
    "record_play",
    "refuse_existing",
    "stop_action",
    "tau2bench_submission",
    "tool_call_action",
]
