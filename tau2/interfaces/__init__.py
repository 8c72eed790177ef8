"""Doors into tau2 besides the runner: RL environments for either seat (`tau2.interfaces.gymnasium_env`,
extra `gym`; `tau2.interfaces.pettingzoo_env`, extra `pettingzoo`), a person playing a seat (`tau2 play`),
human annotation with Potato and τ²-bench results interoperability (`tau2 export` / `tau2 import`).

Importing this package loads none of the optional libraries. It holds the RL action helpers and the
functions behind the export and import commands, for use from Python.
"""

from tau2.interfaces._actions import message_action, parse_action, stop_action, tool_call_action
from tau2.interfaces._agreement import LabelAgreement, label_agreement
from tau2.interfaces._potato_export import export_project as export_potato_project
from tau2.interfaces._potato_import import HumanLabel, load_labels
from tau2.interfaces._potato_import import import_annotations as import_potato_annotations
from tau2.interfaces._tau2bench_export import export_results as export_tau2bench_results
from tau2.interfaces._tau2bench_export import pass_k_percent
from tau2.interfaces._tau2bench_import import Tau2BenchImport, load_import
from tau2.interfaces._tau2bench_import import import_results as import_tau2bench_results

__all__ = [
    "HumanLabel",
    "LabelAgreement",
    "Tau2BenchImport",
    "export_potato_project",
    "export_tau2bench_results",
    "import_potato_annotations",
    "import_tau2bench_results",
    "label_agreement",
    "load_import",
    "load_labels",
    "message_action",
    "parse_action",
    "pass_k_percent",
    "stop_action",
    "tool_call_action",
]
