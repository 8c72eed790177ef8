"""Human annotation with Potato: a run exported as an annotation project (`tau2 export potato`), the
labels read back (`tau2 import potato`) and their agreement with the assertion reward."""

from tau2.annotation._agreement import LabelAgreement, label_agreement
from tau2.annotation._markup import inert_markup
from tau2.annotation._potato_export import CONFIG_FILE as POTATO_CONFIG_FILE
from tau2.annotation._potato_export import export_project as export_potato_project
from tau2.annotation._potato_import import HumanLabel, load_labels
from tau2.annotation._potato_import import import_annotations as import_potato_annotations

__all__ = [
    "POTATO_CONFIG_FILE",
    "HumanLabel",
    "LabelAgreement",
    "export_potato_project",
    "import_potato_annotations",
    "inert_markup",
    "label_agreement",
    "load_labels",
]
