"""A scripted OpenAI-compatible chat-completions server for tests and benchmarks, run on localhost."""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import inspect
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import TracebackType
from typing import Any, Literal, Self, TypeAlias

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field, model_validator

FinishReason = Literal["stop", "length", "tool_calls", "content_filter"]

_DEFAULT_ERRORS: dict[int, tuple[str, str, str | None]] = {
    400: ("Bad request (scripted).", "invalid_request_error", None),
    401: ("Incorrect API key provided (scripted).", "invalid_request_error", "invalid_api_key"),
    404: ("The model does not exist (scripted).", "invalid_request_error", "model_not_found"),
    429: ("Rate limit reached (scripted).", "requests", "rate_limit_exceeded"),
    500: ("The server had an error processing your request (scripted).", "server_error", None),
    503: ("The engine is currently overloaded (scripted).", "server_error", None),
}
_CONTEXT_OVERFLOW_MESSAGE = (
    "This model's maximum context length is 128000 tokens. However, your messages resulted in "
    "130000 tokens. Please reduce the length of the messages."
)


def estimate_tokens(text: str) -> int:
    """Estimate a token count as characters / 4, rounded up, so default usage is deterministic."""
    return (len(text) + 3) // 4


EMBEDDING_DIMENSIONS = 64


def embedding_of(text: str) -> list[float]:
    """The scripted server's embedding of a text: a bag of its lower-cased words hashed into
    `EMBEDDING_DIMENSIONS` signed buckets, so texts sharing words point the same way (deterministic)."""
    vector = [0.0] * EMBEDDING_DIMENSIONS
    for word in text.lower().split():
        digest = hashlib.sha256(word.encode()).digest()
        vector[digest[0] % EMBEDDING_DIMENSIONS] += 1.0 if digest[1] % 2 else -1.0
    return vector


class ScriptedToolCall(BaseModel):
    """One tool call in a scripted reply; a dict is sent as JSON, a str is sent verbatim."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    arguments: dict[str, Any] | str = Field(default_factory=dict)
    id: str | None = None

    def arguments_json(self) -> str:
        """Return the arguments string exactly as it goes on the wire."""
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)


class ScriptedUsage(BaseModel):
    """Token usage reported for a reply, overriding the characters/4 estimate."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    prompt_tokens: int = Field(ge=0)
    completion_tokens: int = Field(ge=0)


class ErrorDetail(BaseModel):
    """The `error` object of an OpenAI-format error body, so clients classify errors as usual."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    message: str
    type: str
    param: str | None = None
    code: str | None = None


class Reply(BaseModel):
    """One scripted server answer: an assistant message, or an HTTP error, after an optional delay."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    content: str | None = None
    tool_calls: tuple[ScriptedToolCall, ...] = ()
    finish_reason: FinishReason | None = None
    usage: ScriptedUsage | None = None
    status: int = 200
    error_detail: ErrorDetail | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    delay: float = Field(default=0.0, ge=0.0)
    no_choices: bool = False
    """Answer 200 with an empty `choices` list, as a faulty provider sometimes does."""
    body: str | None = None
    """Send this text verbatim as the body (with `status` and `content_type`) instead of a completion:
    broken JSON, an HTML error page, a completion with odd fields."""
    content_type: str = "application/json"
    """The `Content-Type` of a raw `body`."""
    disconnect: bool = False
    """Drop the connection without answering, as a crashed proxy does."""

    @model_validator(mode="after")
    def _check_consistent(self) -> Self:
        """Reject replies that mix a success body with an error status, so scripts stay honest."""
        if self.body is not None or self.disconnect:
            answer = (self.content, self.tool_calls, self.usage, self.finish_reason, self.error_detail)
            if any(answer) or self.no_choices or (self.body is not None and self.disconnect):
                raise ValueError("a raw body or a disconnect replaces the whole answer")
            if not (self.status == 200 or 400 <= self.status <= 599):
                raise ValueError(f"status must be 200 or 400-599, got {self.status}")
            return self
        if self.status == 200:
            if self.error_detail is not None:
                raise ValueError("a status-200 reply cannot carry an error")
        elif 400 <= self.status <= 599:
            if self.error_detail is None:
                raise ValueError(f"a status-{self.status} reply needs an error")
            if self.content is not None or self.tool_calls or self.usage or self.finish_reason:
                raise ValueError("an error reply cannot carry a message, usage or finish_reason")
            if self.no_choices:
                raise ValueError("an error reply has no choices to leave out")
        else:
            raise ValueError(f"status must be 200 or 400-599, got {self.status}")
        return self

    @classmethod
    def text(cls, content: str, *, usage: ScriptedUsage | None = None, delay: float = 0.0) -> Reply:
        """Reply with a plain assistant text message."""
        return cls(content=content, usage=usage, delay=delay)

    @classmethod
    def tool_call(
        cls,
        name: str,
        arguments: Mapping[str, Any] | str | None = None,
        *,
        content: str | None = None,
        call_id: str | None = None,
        usage: ScriptedUsage | None = None,
        delay: float = 0.0,
    ) -> Reply:
        """Reply with one tool call (arguments as a dict or a raw string), optionally with text."""
        args = arguments if isinstance(arguments, str) else dict(arguments or {})
        call = ScriptedToolCall(name=name, arguments=args, id=call_id)
        return cls(content=content, tool_calls=(call,), usage=usage, delay=delay)

    @classmethod
    def parallel_tool_calls(
        cls,
        calls: Sequence[ScriptedToolCall],
        *,
        content: str | None = None,
        usage: ScriptedUsage | None = None,
        delay: float = 0.0,
    ) -> Reply:
        """Reply with several parallel tool calls, optionally with text."""
        return cls(content=content, tool_calls=tuple(calls), usage=usage, delay=delay)

    @classmethod
    def empty(cls, *, delay: float = 0.0) -> Reply:
        """Reply with an assistant message that has neither content nor tool calls."""
        return cls(delay=delay)

    @classmethod
    def without_choices(cls, *, delay: float = 0.0) -> Reply:
        """Reply 200 with a completion whose `choices` list is empty (usage is still reported)."""
        return cls(no_choices=True, delay=delay)

    @classmethod
    def error(
        cls,
        status: int,
        message: str | None = None,
        *,
        error_type: str | None = None,
        code: str | None = None,
        retry_after: int | None = None,
        delay: float = 0.0,
    ) -> Reply:
        """Reply with an HTTP error in OpenAI's error format, plus `Retry-After` seconds if given."""
        default_message, default_type, default_code = _DEFAULT_ERRORS.get(
            status,
            (
                f"Scripted HTTP {status} error.",
                "server_error" if status >= 500 else "invalid_request_error",
                None,
            ),
        )
        detail = ErrorDetail(
            message=default_message if message is None else message,
            type=default_type if error_type is None else error_type,
            code=default_code if code is None else code,
        )
        headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
        return cls(status=status, error_detail=detail, headers=headers, delay=delay)

    @classmethod
    def raw(
        cls, body: str, *, status: int = 200, content_type: str = "application/json", delay: float = 0.0
    ) -> Reply:
        """Reply with `body` sent verbatim, whatever it holds."""
        return cls(body=body, status=status, content_type=content_type, delay=delay)

    @classmethod
    def dropped(cls, *, delay: float = 0.0) -> Reply:
        """Close the connection without sending any answer."""
        return cls(disconnect=True, delay=delay)

    @classmethod
    def context_overflow(cls, message: str | None = None, *, delay: float = 0.0) -> Reply:
        """Reply with OpenAI's 400 `context_length_exceeded` error."""
        detail = ErrorDetail(
            message=_CONTEXT_OVERFLOW_MESSAGE if message is None else message,
            type="invalid_request_error",
            param="messages",
            code="context_length_exceeded",
        )
        return cls(status=400, error_detail=detail, delay=delay)


class ChatRequest(BaseModel):
    """A received chat-completions request body; fields not named here are kept as extras."""

    model_config = ConfigDict(frozen=True, extra="allow")

    model: str
    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]] | None = None
    tool_choice: str | dict[str, Any] | None = None
    seed: int | None = None
    temperature: float | None = None
    stream: bool | None = None

    @property
    def last_message(self) -> dict[str, Any] | None:
        """The last message of the conversation, which responders usually branch on."""
        return self.messages[-1] if self.messages else None

    @property
    def tool_names(self) -> list[str]:
        """Names of the function tools offered in the request, in order."""
        return [str(tool["function"]["name"]) for tool in self.tools or [] if tool.get("type") == "function"]


Responder: TypeAlias = Sequence[Reply] | Callable[[ChatRequest], Reply | Awaitable[Reply]]


def _error_response(status: int, detail: ErrorDetail, headers: Mapping[str, str]) -> web.Response:
    """Build an OpenAI-format JSON error response."""
    return web.json_response({"error": detail.model_dump()}, status=status, headers=headers)


def _server_error(message: str, status: int = 500) -> web.Response:
    """Build a server-error response that makes a misconfigured test fail loudly with the reason."""
    return _error_response(status, ErrorDetail(message=message, type="server_error"), {})


class ScriptedOpenAIServer:
    """A localhost OpenAI-compatible chat-completions server answering from a script or callable.

    It runs its own event loop in a background thread, so it works from sync code and from inside a
    running event loop (`with` or `async with`). `base_url` is the value to pass as `api_base`.
    """

    def __init__(
        self,
        responder: Responder,
        *,
        latency: float = 0.0,
        port: int = 0,
        models: Sequence[Mapping[str, Any]] | None = None,
    ) -> None:
        """Create a stopped server; `latency` seconds are added before every reply.

        `port` 0 lets the OS choose; a given port lets a test restart a server where the old one was.
        `models` are the entries `GET /v1/models` lists (none: the endpoint answers 404, as some servers
        do); vLLM puts `max_model_len` in them, llama.cpp a `meta` object with `n_ctx_train`.
        """
        if latency < 0:
            raise ValueError("latency must be >= 0")
        self._latency = latency
        self._fixed_port = port
        self._models = None if models is None else [dict(model) for model in models]
        self._callable: Callable[[ChatRequest], Reply | Awaitable[Reply]] | None = None
        self._script: deque[Reply] = deque()
        if callable(responder):
            self._callable = responder
        else:
            self._script.extend(responder)
        self._served = 0
        self._lock = threading.Lock()
        self._requests: list[ChatRequest] = []
        self._embedding_requests = 0
        self._headers: list[dict[str, str]] = []
        self._queries: list[dict[str, str]] = []
        self._port: int | None = None
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping = asyncio.Event()

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL, e.g. `http://127.0.0.1:PORT/v1`."""
        if self._port is None:
            raise RuntimeError("server is not running")
        return f"http://127.0.0.1:{self._port}/v1"

    @property
    def port(self) -> int:
        """The port the server listens on."""
        if self._port is None:
            raise RuntimeError("server is not running")
        return self._port

    @property
    def requests(self) -> list[ChatRequest]:
        """A snapshot of every valid request received so far, in arrival order."""
        with self._lock:
            return list(self._requests)

    @property
    def request_headers(self) -> list[dict[str, str]]:
        """The HTTP headers of each request in `requests`, in the same order (what credentials arrived)."""
        with self._lock:
            return [dict(headers) for headers in self._headers]

    @property
    def request_queries(self) -> list[dict[str, str]]:
        """The query parameters of each request's URL in `requests`, in the same order (a key given in
        the API base's query arrives here)."""
        with self._lock:
            return [dict(query) for query in self._queries]

    @property
    def request_count(self) -> int:
        """How many valid requests were received so far."""
        with self._lock:
            return len(self._requests)

    @property
    def pending_replies(self) -> int:
        """How many scripted replies are still unserved (always 0 for a callable responder)."""
        with self._lock:
            return len(self._script)

    def start(self) -> None:
        """Start serving in a background thread and wait until the port is bound."""
        self._launch().result()

    def stop(self) -> None:
        """Stop serving, answer in-flight delayed requests with 503, and join the thread."""
        self._request_stop().join()

    async def astart(self) -> None:
        """Start serving without blocking the caller's event loop."""
        await asyncio.wrap_future(self._launch())

    async def astop(self) -> None:
        """Stop serving without blocking the caller's event loop."""
        await asyncio.to_thread(self._request_stop().join)

    def __enter__(self) -> Self:
        """Start the server for a `with` block."""
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Stop the server at the end of a `with` block."""
        self.stop()

    async def __aenter__(self) -> Self:
        """Start the server for an `async with` block."""
        await self.astart()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Stop the server at the end of an `async with` block."""
        await self.astop()

    def _launch(self) -> concurrent.futures.Future[None]:
        """Spawn the server thread; the returned future resolves once the server listens."""
        if self._thread is not None:
            raise RuntimeError("server was already started")
        started: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._thread = threading.Thread(
            target=asyncio.run,
            args=(self._serve(started),),
            name="scripted-openai-server",
            daemon=True,
        )
        self._thread.start()
        return started

    def _request_stop(self) -> threading.Thread:
        """Signal the server loop to shut down and return the thread to join."""
        thread, loop = self._thread, self._loop
        if thread is None or loop is None:
            raise RuntimeError("server was not started")
        if thread.is_alive():
            loop.call_soon_threadsafe(self._stopping.set)
        return thread

    async def _serve(self, started: concurrent.futures.Future[None]) -> None:
        """Run the aiohttp app on an OS-assigned port until a stop is requested."""
        if not started.set_running_or_notify_cancel():
            return
        self._loop = asyncio.get_running_loop()
        app = web.Application(client_max_size=64 * 1024**2)
        for path in ("/v1/chat/completions", "/chat/completions"):
            app.router.add_post(path, self._handle)
        for path in ("/v1/models", "/models"):
            app.router.add_get(path, self._list_models)
        for path in ("/v1/embeddings", "/embeddings"):
            app.router.add_post(path, self._embeddings)
        runner = web.AppRunner(app, access_log=None, shutdown_timeout=5.0)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            await runner.setup()
            sock.bind(("127.0.0.1", self._fixed_port))
            await web.SockSite(runner, sock, backlog=1024).start()
            self._port = int(sock.getsockname()[1])
            started.set_result(None)
            await self._stopping.wait()
        except Exception as exc:
            if started.done():
                raise
            started.set_exception(exc)
        finally:
            self._port = None
            await runner.cleanup()
            sock.close()

    async def _list_models(self, _: web.Request) -> web.Response:
        """`GET /v1/models`: the scripted model entries, or 404 when none were given."""
        if self._models is None:
            detail = ErrorDetail(message="no /v1/models on this server (scripted)", type="not_found")
            return _error_response(404, detail, {})
        return web.json_response({"object": "list", "data": self._models})

    async def _embeddings(self, http_request: web.Request) -> web.Response:
        """`POST /v1/embeddings`: each input's `embedding_of`, so retrieval tests need no model."""
        try:
            body = await http_request.json()
            texts = body["input"]
            texts = [texts] if isinstance(texts, str) else [str(text) for text in texts]
        except (ValueError, KeyError, TypeError) as exc:
            detail = ErrorDetail(message=f"invalid embeddings request: {exc}", type="invalid_request_error")
            return _error_response(400, detail, {})
        with self._lock:
            self._embedding_requests += 1
        data = [
            {"object": "embedding", "index": index, "embedding": embedding_of(text)}
            for index, text in enumerate(texts)
        ]
        usage = sum(estimate_tokens(text) for text in texts)
        return web.json_response(
            {
                "object": "list",
                "data": data,
                "model": body.get("model"),
                "usage": {"prompt_tokens": usage, "total_tokens": usage},
            }
        )

    @property
    def embedding_requests(self) -> int:
        """How many embeddings requests were answered."""
        with self._lock:
            return self._embedding_requests

    async def _handle(self, http_request: web.Request) -> web.Response:
        """Record a request, ask the responder for a reply, wait its delay and send it."""
        try:
            request = ChatRequest.model_validate(await http_request.json())
        except ValueError as exc:
            detail = ErrorDetail(message=f"invalid request body: {exc}", type="invalid_request_error")
            return _error_response(400, detail, {})
        with self._lock:
            self._requests.append(request)
            self._headers.append(dict(http_request.headers))
            self._queries.append(dict(http_request.query))
            number = len(self._requests)
        if request.stream:
            detail = ErrorDetail(
                message="ScriptedOpenAIServer does not support stream=true; send stream=false.",
                type="invalid_request_error",
                param="stream",
                code="unsupported_parameter",
            )
            return _error_response(400, detail, {})
        reply = await self._next_reply(request, number)
        if isinstance(reply, web.Response):
            return reply
        if not await self._wait(reply.delay + self._latency):
            return _server_error("ScriptedOpenAIServer is shutting down.", status=503)
        if reply.disconnect:
            if http_request.transport is not None:
                http_request.transport.abort()
            return web.Response(status=500)  # never delivered: the connection is gone
        if reply.body is not None:
            return web.Response(
                body=reply.body.encode("utf-8", "surrogatepass"),
                status=reply.status,
                headers={**reply.headers, "Content-Type": reply.content_type},
            )
        if reply.error_detail is not None:
            return _error_response(reply.status, reply.error_detail, reply.headers)
        return web.json_response(_completion_body(request, reply, number), headers=reply.headers)

    async def _next_reply(self, request: ChatRequest, number: int) -> Reply | web.Response:
        """Take the next scripted reply or call the responder, turning mistakes into loud 500s."""
        if self._callable is None:
            with self._lock:
                if self._script:
                    self._served += 1
                    return self._script.popleft()
            return _server_error(
                f"ScriptedOpenAIServer script exhausted: {self._served} replies served, "
                f"request #{number} has no scripted reply."
            )
        try:
            result = self._callable(request)
            reply = await result if inspect.isawaitable(result) else result
        except Exception as exc:
            return _server_error(f"ScriptedOpenAIServer responder raised {exc!r}")
        if not isinstance(reply, Reply):
            return _server_error(f"ScriptedOpenAIServer responder returned {reply!r}, not a Reply")
        return reply

    async def _wait(self, seconds: float) -> bool:
        """Sleep `seconds` unless the server stops first; return whether the sleep completed."""
        if seconds <= 0:
            return True
        try:
            await asyncio.wait_for(self._stopping.wait(), timeout=seconds)
        except TimeoutError:
            return True
        return False


def _completion_body(request: ChatRequest, reply: Reply, number: int) -> dict[str, Any]:
    """Render a successful reply as an OpenAI `chat.completion` object."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id or f"call_{number}_{index}",
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments_json()},
            }
            for index, call in enumerate(reply.tool_calls)
        ]
    usage = reply.usage or ScriptedUsage(
        prompt_tokens=estimate_tokens(json.dumps(request.messages, separators=(",", ":"))),
        completion_tokens=estimate_tokens(
            (reply.content or "") + "".join(call.name + call.arguments_json() for call in reply.tool_calls)
        ),
    )
    return {
        "id": f"chatcmpl-scripted-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.model,
        "choices": []
        if reply.no_choices
        else [
            {
                "index": 0,
                "message": message,
                "finish_reason": reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop"),
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens,
            "total_tokens": usage.prompt_tokens + usage.completion_tokens,
        },
    }
