"""A lean scripted OpenAI-compatible server for benchmarks: it plays both seats of the mock task `both`
with precomputed replies and does next to no work per request, so the runner, not the server, is measured.

Run on its own: `python benchmarks/lean_server.py --latency 0.1 --port 8123`. The benchmarks start it in a
separate process with `LeanServer`. It speaks just enough HTTP/1.1 on a bare asyncio protocol: a web
framework would cost more CPU per request than the runner it measures, on the same cores.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import socket
from multiprocessing.connection import Connection
from typing import Any

import orjson

CALLS_PER_SIMULATION = 8
AGENT_SCRIPT: list[dict[str, Any]] = [
    {"tool": ("get_account", {"customer": "Ada"})},
    {"tool": ("enable_power", {"customer": "Ada"})},
    {"text": "Power is back on. Please plug your lamp in."},
    {"text": "Your issue is resolved."},
]
USER_SCRIPT: list[dict[str, Any]] = [
    {"text": "My lamp is dark."},
    {"tool": ("plug_in", {})},
    {"text": "I plugged it in and it is lit now."},
    {"tool": ("end_call", {})},
]


def _body(step: dict[str, Any], number: int) -> bytes:
    """A complete `chat.completion` answer for one scripted step."""
    message: dict[str, Any] = {"role": "assistant", "content": step.get("text")}
    if "tool" in step:
        name, arguments = step["tool"]
        message["tool_calls"] = [
            {
                "id": f"call_{number}",
                "type": "function",
                "function": {"name": name, "arguments": orjson.dumps(arguments).decode()},
            }
        ]
    return orjson.dumps(
        {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "created": 0,
            "model": "bench",
            "choices": [
                {"index": 0, "message": message, "finish_reason": "tool_calls" if "tool" in step else "stop"}
            ],
            "usage": {"prompt_tokens": 500, "completion_tokens": 20, "total_tokens": 520},
        }
    )


AGENT_BODIES = [_body(step, number) for number, step in enumerate(AGENT_SCRIPT)]
USER_BODIES = [_body(step, 10 + number) for number, step in enumerate(USER_SCRIPT)]

CHAT_TURNS = 3
"""Telecom chat workload: the customer speaks this many times, then hangs up (7 model calls in all)."""
CHAT_AGENT = _body({"text": "Let me look into that for you."}, 20)
CHAT_USER = [_body({"text": f"Here is what I see on my phone, part {turn}."}, 21 + turn) for turn in range(3)]
CHAT_END_CALL = _body({"tool": ("end_call", {})}, 30)
CHAT_STOP = _body({"text": "###STOP###"}, 31)
"""How a τ²-bench simulated user ends the conversation."""


def reply_for(request: dict[str, Any]) -> bytes:
    """The next reply of whichever seat asks, from the seat's tools and the number of assistant messages
    in its transcript. The mock task `both` runs its scripted 8-call solution; any telecom task (tau2's
    or τ²-bench's runner) is a 7-call chat that the customer ends (`end_call` or τ²-bench's stop text)."""
    replies = sum(message.get("role") == "assistant" for message in request["messages"])
    names = [tool["function"]["name"] for tool in request.get("tools") or []]
    if "plug_in" in names:
        return USER_BODIES[replies]
    if "get_account" in names:
        return AGENT_BODIES[replies - 1]
    if "transfer_to_human_agents" in names:
        return CHAT_AGENT
    if replies < CHAT_TURNS:
        return CHAT_USER[replies]
    return CHAT_END_CALL if "end_call" in names else CHAT_STOP


class _Exchange(asyncio.Protocol):
    """One client connection speaking just enough HTTP/1.1 (keep-alive, `Content-Length` bodies) to answer
    chat-completion requests; every request on it gets the scripted reply `latency` seconds later."""

    def __init__(self, latency: float) -> None:
        self._latency = latency
        self._buffer = bytearray()
        self._transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        self._buffer += data
        while (head_end := self._buffer.find(b"\r\n\r\n")) >= 0:
            length = _content_length(bytes(self._buffer[:head_end]))
            body_start = head_end + 4
            if len(self._buffer) < body_start + length:
                return
            body = bytes(self._buffer[body_start : body_start + length])
            del self._buffer[: body_start + length]
            reply = reply_for(orjson.loads(body))
            response = _HEAD % len(reply) + reply
            if self._latency > 0:
                asyncio.get_running_loop().call_later(self._latency, self._send, response)
            else:
                self._send(response)

    def _send(self, response: bytes) -> None:
        if self._transport is not None and not self._transport.is_closing():
            self._transport.write(response)


_HEAD = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"


def _content_length(head: bytes) -> int:
    """The `Content-Length` of a request head (0 when absent)."""
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


async def _serve(latency: float, sock: socket.socket, stop: asyncio.Event) -> None:
    """Answer on `sock` until `stop` is set."""
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: _Exchange(latency), sock=sock, backlog=4096)
    async with server:
        await stop.wait()


def _run(latency: float, connection: Connection) -> None:
    """Serve until the parent sends anything; first send back the base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    connection.send(f"http://127.0.0.1:{sock.getsockname()[1]}/v1")

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_reader(connection.fileno(), stop.set)
        await _serve(latency, sock, stop)

    asyncio.run(main())


class LeanServer:
    """The lean server in a child process, as a context manager yielding its base URL."""

    def __init__(self, latency: float) -> None:
        context = multiprocessing.get_context("spawn")
        self._parent, child = context.Pipe()
        self._process = context.Process(target=_run, args=(latency, child), daemon=True)

    def __enter__(self) -> str:
        self._process.start()
        return str(self._parent.recv())

    def __exit__(self, *_: object) -> None:
        self._parent.send("stop")
        self._process.join(timeout=10)
        if self._process.is_alive():
            self._process.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--port", type=int, default=8123)
    options = parser.parse_args()
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", options.port))
    asyncio.run(_serve(options.latency, sock, asyncio.Event()))


if __name__ == "__main__":
    main()
