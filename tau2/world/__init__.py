"""The world contract: tools and their results, what an assertion observed, the shared world state of one
episode, the difference between two of its states and the records it touches (with the calls that changed
each, `WriteTracker`), a state's digest (τ²-bench's database hash), a domain's world rules (with the
wording of its offline requests and the declaration of its identifiers) and their conformance checker,
retrieval configurations, and the read-only view reference actors judge the world through. Domains, which
add what tasks need to these rules, and their registry are `tau2.tasks`'."""

from tau2._registry import PLUGIN_GROUP
from tau2.world._change_tracker import ChangeTracker
from tau2.world._checks import check_domain
from tau2.world._customer import CustomerRecord
from tau2.world._digest import same_state, state_digest, state_text
from tau2.world._identifiers import IdentifierKind, Identifiers
from tau2.world._observation import Observation
from tau2.world._phrasing import NEUTRAL_PHRASING, RequestPhrasing
from tau2.world._results import ToolFailure, ToolResult
from tau2.world._retrieval import (
    EmbedderConfig,
    RetrievalConfig,
    RetrievalRecall,
)
from tau2.world._rules import WorldRules, refusal_of
from tau2.world._state_diff import ChangeKind, StateChange, shared_state_changes, state_changes
from tau2.world._state_mark import StateMark
from tau2.world._state_records import RecordPlace, record_name, record_paths
from tau2.world._tools import Side, Tool, ToolKind, ToolSet, ToolTable
from tau2.world._view import Rehearsal, WorldView
from tau2.world._world import World
from tau2.world._write_tracker import RecordWrite, WriteCall, WriteTracker

__all__ = [
    "NEUTRAL_PHRASING",
    "PLUGIN_GROUP",
    "ChangeKind",
    "ChangeTracker",
    "CustomerRecord",
    "EmbedderConfig",
    "IdentifierKind",
    "Identifiers",
    "Observation",
    "RecordPlace",
    "RecordWrite",
    "Rehearsal",
    "RequestPhrasing",
    "RetrievalConfig",
    "RetrievalRecall",
    "Side",
    "StateChange",
    "StateMark",
    "Tool",
    "ToolFailure",
    "ToolKind",
    "ToolResult",
    "ToolSet",
    "ToolTable",
    "World",
    "WorldRules",
    "WorldView",
    "WriteCall",
    "WriteTracker",
    "check_domain",
    "record_name",
    "record_paths",
    "refusal_of",
    "same_state",
    "shared_state_changes",
    "state_changes",
    "state_digest",
    "state_text",
]
