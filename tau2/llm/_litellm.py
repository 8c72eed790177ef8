"""The litellm transport: any provider litellm knows, called with its own retries turned off."""

from __future__ import annotations

import json
from typing import Any

from tau2.llm._ledger import usage_of
from tau2.llm._spec import ModelSpec
from tau2.llm._transports import (
    Completion,
    EmptyChoicesError,
    ModelToolCall,
    TransportName,
    host_keys,
    replied,
)


class LitellmTransport:
    """Sends a seat's requests through `litellm.acompletion`."""

    name: TransportName = "litellm"

    def __init__(self, spec: ModelSpec) -> None:
        assert spec.name is not None
        self._litellm = _litellm()
        self._model = spec.name
        self._request: dict[str, Any] = {
            **spec.args.for_request(),
            "model": spec.name,
            "timeout": spec.timeout_s,
            "num_retries": 0,
            "max_retries": 0,
        }
        if spec.api_base:
            self._request["api_base"] = spec.api_base.for_request()
        self.limit_keys = [*host_keys(spec.api_base), self._provider(spec)]

    def _provider(self, spec: ModelSpec) -> str:
        """litellm's provider name of the model (the name's prefix if litellm cannot resolve it)."""
        model = self._model
        try:
            return str(self._litellm.get_llm_provider(model=model, api_base=spec.api_base)[1])
        except Exception:  # an unresolvable name fails on the request itself, with the provider's reason
            return model.split("/", 1)[0]

    async def send(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, seed: int | None
    ) -> Completion:
        """One `acompletion` call, its response turned into a `Completion`."""
        request = {**self._request, "messages": messages}
        if tools:
            request["tools"] = tools
        if seed is not None:
            request["seed"] = seed
        response = await self._litellm.acompletion(**request)
        return _completion(response, self._model)


def _litellm() -> Any:
    """Import litellm on first use (it is slow to import) with its console banners off."""
    import litellm

    litellm.suppress_debug_info = True
    return litellm


def _completion(response: Any, model: str) -> Completion:
    """Our view of a litellm `ModelResponse`: text, raw tool calls, finish reason and usage."""
    choices = getattr(response, "choices", None) or []
    if not choices:
        raise EmptyChoicesError("the provider answered without any choice")
    usage = usage_of(response, model)
    message = choices[0].message
    calls = [
        ModelToolCall(
            id=call.id or None,
            name=str(call.function.name or ""),
            arguments=_raw_arguments(call.function.arguments),
        )
        for call in message.tool_calls or []
    ]
    content = message.content if isinstance(message.content, str) else None
    finish_reason = choices[0].finish_reason
    return replied(content, calls, finish_reason if isinstance(finish_reason, str) else None, usage)


def _raw_arguments(arguments: Any) -> str:
    """Tool-call arguments as text; a few providers hand back an already decoded object."""
    if isinstance(arguments, str):
        return arguments
    return "" if arguments is None else json.dumps(arguments)
