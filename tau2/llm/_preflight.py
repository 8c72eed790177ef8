"""Offline checks of a model's configuration, made before the first call: a missing key found now costs
one line instead of a failed call per simulation."""

from __future__ import annotations

import os

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
    if spec.args.get("api_key"):
        return None
    provider = provider_of(spec.name)
    if resolve_transport(spec) == "native":
        variable = KEY_VARIABLES.get(provider)
        if spec.api_base is None and variable is not None and not os.environ.get(variable):
            return f"{variable} is not set"
        return None
    from tau2.llm._litellm import _litellm

    try:
        report = _litellm().validate_environment(model=spec.name, api_base=spec.api_base)
    except Exception:  # litellm cannot tell for this model: the first call will
        return None
    missing = [str(key) for key in report.get("missing_keys") or [] if str(key).endswith("_API_KEY")]
    if report.get("keys_in_environment") or not missing:
        return None
    local = " (litellm wants one even for a local server: any value will do)" if spec.api_base else ""
    return f"{' or '.join(missing)} is not set{local}"
