"""A third-party tau2 pack: the library domain (a lending desk and a member's e-reader), its example tasks,
its subtask catalog and a catalog extension, the `library-desk` actor kind, a lint check, a simulated-user
check, an experiment statistic, a retrieval engine and a perturbation kind.

tau2 finds all of it through the entry points in this pack's pyproject.toml; without installing the pack,
`--domain library_pack:DOMAIN` and `--agent library_pack:DESK` name the same objects.
"""

from pathlib import Path

from tau2.tasks import Domain
from tau2.world import ToolTable

from .catalog import LibraryCatalog
from .checks import CARD_NEVER_GIVEN, CARD_NOT_STATED, FLIP_SHARE
from .desk import DESK
from .domain import SUITE, LibraryState, desk, load_state, policy, reader
from .engines import TITLES
from .hurry import HURRIED_MEMBER

DOMAIN: Domain[LibraryState] = Domain(
    name="library",
    description="A public library's lending desk and a member's e-reader: the e-book will not open.",
    tools=ToolTable(desk, reader),
    load_state=load_state,
    policy=policy,
    transfer_tool="transfer_to_librarian",
    catalog=LibraryCatalog(),
    default_suite=SUITE,
)

EXTRA_FAULTS = Path(__file__).with_name("extra_faults.toml")
"""The catalog extension the pack installs as `library-extra`."""

__all__ = [
    "CARD_NEVER_GIVEN",
    "CARD_NOT_STATED",
    "DESK",
    "DOMAIN",
    "EXTRA_FAULTS",
    "FLIP_SHARE",
    "HURRIED_MEMBER",
    "TITLES",
]
