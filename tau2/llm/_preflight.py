"""Offline checks of a model's configuration, made before the first call: a missing key found now costs
one line instead of a failed call per simulation."""

from __future__ import annotations

import os
from typing import Any

from tau2.llm._native import KEY_VARIABLES
from tau2.llm._spec import ModelSpec
from tau2.llm._transports import provider_of, resolve_transport


def missing_credentials(spec: ModelSpec) -> str | None:
    """Why `spec` cannot authenticate, judged from its arguments and the environment alone; None when
    nothing is missing (or nothing can be told without a call).

    The native transport sends a key only when it has one, so only an `openai/` model without an API base
    (api.openai.com) needs one. Through litellm, `validate_environment` names the variables the provider
    reads; only missing `…_API_KEY` variables count (clouds that also take credentials from profiles or
    instance roles would otherwise be refused wrongly).
    """
    if spec.args.for_request().get("api_key"):
        return None
    if resolve_transport(spec) == "native":
        variable = KEY_VARIABLES.get(provider_of(spec.name))
        if spec.api_base is None and variable is not None and not os.environ.get(variable):
            return f"{variable} is not set"
        return None
    report = _litellm_environment(spec)
    if report is None:  # litellm cannot tell for this model: the first call will
        return None
    missing = [str(key) for key in report.get("missing_keys") or [] if str(key).endswith("_API_KEY")]
    if report.get("keys_in_environment") or not missing:
        return None
    local = " (litellm wants one even for a local server: any value will do)" if spec.api_base else ""
    return f"{' or '.join(missing)} is not set{local}"


def withheld_credentials(spec: ModelSpec, option: str) -> str | None:
    """What a resumed run must be given again: the first secret its stored settings withheld (secrets are
    never stored) that is not given now, as one sentence naming the option; None when nothing is missing.
    A withheld `api_key` may also come from the provider's environment variable, as on a first run."""
    if spec.api_base is not None and spec.api_base.withheld():
        return f"the key in api_base is never stored with a run: give --{option}-api-base again"
    for path in spec.args.withheld():
        alternative = ""
        if path == "api_key":
            present, variables = _environment_key(spec)
            if present:
                continue
            alternative = f" or set {' or '.join(variables)}" if variables else ""
        argument = path.split(".", 1)[0]
        return f"{path} is never stored with a run: give --{option}-arg {argument}=... again{alternative}"
    return None


def _environment_key(spec: ModelSpec) -> tuple[bool, list[str]]:
    """Whether the environment holds the key `spec`'s transport would read, and the variables it reads
    (none when that cannot be told offline)."""
    if resolve_transport(spec) == "native":
        variable = KEY_VARIABLES.get(provider_of(spec.name))
        return (variable is not None and bool(os.environ.get(variable))), [variable] if variable else []
    report = _litellm_environment(spec)
    if report is None:
        return False, []
    missing = [str(key) for key in report.get("missing_keys") or []]
    return bool(report.get("keys_in_environment")), missing


def _litellm_environment(spec: ModelSpec) -> dict[str, Any] | None:
    """litellm's `validate_environment` report for `spec`, or None when litellm cannot tell."""
    from tau2.llm._litellm import _litellm

    try:
        report = _litellm().validate_environment(model=spec.name, api_base=spec.api_base)
    except Exception:  # litellm raises for models it does not know
        return None
    return report if isinstance(report, dict) else None
