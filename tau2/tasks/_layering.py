"""Layering catalog extensions onto a target's catalog: fill each call's parameters from the catalog,
check the filled arguments, and merge groups, stages, precedences, subtasks, facts and intents."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from pydantic import ValidationError

from tau2._jsonfile import field_path
from tau2.errors import UserInputError
from tau2.tasks._catalog import Catalog, Intent, Subtask
from tau2.tasks._extension import CatalogExtension, IntentExtension
from tau2.tasks._parameters import ParameterError, ParameterValue, substitute
from tau2.tasks._task import EnvCall
from tau2.world import ToolTable

Call = TypeVar("Call", bound=EnvCall)


class _EntryError(ValueError):
    """A problem with one entry of an extension, already located within it."""


def extend_catalog(catalog: Catalog, extensions: Sequence[CatalogExtension]) -> Catalog:
    """`catalog` with each extension layered on in turn; its version names every extension
    (`telecom-1+telecom-extended-1`). A problem is one `UserInputError` line naming the extension's file."""
    for extension in extensions:
        catalog = _layer(catalog, extension)
    return catalog


def _layer(catalog: Catalog, extension: CatalogExtension) -> Catalog:
    content = extension.content
    fill = _Filler(catalog.parameters, extension.tools)
    try:
        subtasks = tuple(fill.subtask(subtask) for subtask in content.subtasks)
        extended = [_extend_intent(intent, content.intent_extensions) for intent in catalog.intents]
        unknown = {change.name for change in content.intent_extensions} - {i.name for i in catalog.intents}
        if unknown:
            raise _EntryError(f"extend_intent {sorted(unknown)[0]!r}: the catalog has no such intent")
        intents = (*extended, *(fill.intent(intent) for intent in content.intents))
        facts = _merged_facts(catalog.facts, content.facts)
        return Catalog(
            version=f"{catalog.version}+{content.name}-{content.version}",
            target=catalog.target,
            groups=(*catalog.groups, *content.groups),
            subtasks=(*catalog.subtasks, *subtasks),
            intents=intents,
            preamble=catalog.preamble,
            stages=(*catalog.stages, *content.stages),
            fix_order=(*catalog.fix_order, *content.fix_order),
            injection_order=(*catalog.injection_order, *content.injection_order),
            facts=facts,
            parameters=catalog.parameters,
        )
    except _EntryError as error:
        raise UserInputError(f"{extension.origin}: {error}") from None
    except ValidationError as error:
        message = error.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
        raise UserInputError(f"{extension.origin}: {message}") from None


class _Filler:
    """Fills the parameters of an extension's calls for one target and checks the filled arguments."""

    def __init__(self, parameters: Mapping[str, ParameterValue], tools: ToolTable) -> None:
        self.parameters = parameters
        self.tools = tools

    def subtask(self, subtask: Subtask) -> Subtask:
        entry = f"subtask {subtask.name!r}"
        return subtask.model_copy(
            update={
                "init": self.calls(entry, "init", subtask.init),
                "checks": self.calls(entry, "checks", subtask.checks),
                "solution": self.calls(entry, "solution", subtask.solution),
                "extra_assertions": self.calls(entry, "extra_assertions", subtask.extra_assertions),
                "transfer_assertions": self.calls(entry, "transfer_assertions", subtask.transfer_assertions),
            }
        )

    def intent(self, intent: Intent) -> Intent:
        entry = f"intent {intent.name!r}"
        return intent.model_copy(
            update={
                "setup": self.calls(entry, "setup", intent.setup),
                "success": self.calls(entry, "success", intent.success),
                "failure": self.calls(entry, "failure", intent.failure),
            }
        )

    def calls(self, entry: str, kind: str, calls: tuple[Call, ...]) -> tuple[Call, ...]:
        return tuple(self.call(f"{entry}: {kind}[{index}]", call) for index, call in enumerate(calls))

    def call(self, place: str, call: Call) -> Call:
        try:
            arguments = substitute(call.arguments, self.parameters)
        except ParameterError as error:
            raise _EntryError(f"{place}: {call.name}: {error}") from None
        tool = self.tools.env_function(call.side, call.name)
        assert tool is not None, "checked when the extension loaded"
        try:
            tool.arguments_model.model_validate(arguments)
        except ValidationError as error:
            detail = error.errors(include_url=False)[0]
            location = field_path(detail["loc"]) or "arguments"
            raise _EntryError(f"{place}: {call.name}: {location}: {detail['msg']}") from None
        return call.model_copy(update={"arguments": arguments})


def _extend_intent(intent: Intent, changes: Sequence[IntentExtension]) -> Intent:
    """The intent with the groups and prerequisites the extension appends to it."""
    groups, prerequisites = list(intent.groups), list(intent.prerequisites)
    for change in changes:
        if change.name == intent.name:
            groups.extend(group for group in change.groups if group not in groups)
            prerequisites.extend(group for group in change.prerequisites if group not in prerequisites)
    if (tuple(groups), tuple(prerequisites)) == (intent.groups, intent.prerequisites):
        return intent
    try:
        return Intent.model_validate(
            {**intent.model_dump(), "groups": groups, "prerequisites": prerequisites}
        )
    except ValidationError as error:
        message = error.errors(include_url=False)[0]["msg"].removeprefix("Value error, ")
        raise _EntryError(f"extend_intent {intent.name!r}: {message}") from None


def _merged_facts(facts: Mapping[str, str], added: Mapping[str, str]) -> dict[str, str]:
    """The catalog's constant facts plus the extension's; a fact given two different values is an error."""
    for key, value in added.items():
        if key in facts and facts[key] != value:
            raise _EntryError(f"facts: {key!r} is already {facts[key]!r} in the catalog")
    return {**facts, **added}
