"""The model cache at the transport boundary: a request asked again is answered from the cache without
reaching the server (both transports, judges too), keyed by everything that shapes the answer and nothing
secret, stored whole (one file per key, the first answer kept), and refused in one line when another format
wrote it."""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import JsonValue

from tau2.errors import UserInputError
from tau2.llm import (
    CACHE_FORMAT,
    Completion,
    ModelCache,
    ModelClient,
    ModelSpec,
    Usage,
    call_settings,
)
from tau2.llm._cache import FORMAT_FILE
from tau2.testing import Reply, ScriptedOpenAIServer, ScriptedUsage

PRICED = "openai/gpt-4o-mini"
MESSAGES: list[dict[str, Any]] = [{"role": "user", "content": "Hello"}]
TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object", "properties": {}}}}
]
SECRET = "sk-cache-secret-0042"


def spec(base_url: str = "http://127.0.0.1:1/v1", transport: str = "native", **args: JsonValue) -> ModelSpec:
    return ModelSpec(
        name=PRICED, api_base=base_url, args={"api_key": SECRET, **args}, transport=transport, max_retries=0
    )


def answer(text: str = "Hi", cost: float | None = 0.002) -> Completion:
    return Completion(text=text, usage=Usage(calls=1, prompt_tokens=10, completion_tokens=2, cost=cost))


async def ask(client: ModelClient, cache: ModelCache, seed: int | None = 7) -> Completion:
    with call_settings(cache=cache):
        return await client.complete(MESSAGES, TOOLS, seed=seed)


@pytest.mark.parametrize("transport", ["native", "litellm"])
def test_a_request_asked_again_is_answered_from_the_cache(tmp_path: Path, transport: str) -> None:
    cache = ModelCache.open(tmp_path / "cache")
    usage = ScriptedUsage(prompt_tokens=1_000, completion_tokens=50)
    with ScriptedOpenAIServer([Reply.tool_call("lookup", {}, usage=usage)]) as server:
        client = ModelClient(spec(server.base_url, transport))
        first = asyncio.run(ask(client, cache))
        again = asyncio.run(ask(ModelClient(spec(server.base_url, transport)), cache))
        assert server.request_count == 1
    assert first.usage.cached_calls == 0 and first.usage.cost is not None and first.usage.cost > 0
    assert again.model_copy(update={"usage": first.usage}) == first, "the same answer"
    assert again.usage == first.usage.from_cache()
    assert (again.usage.cached_calls, again.usage.cached_cost, again.usage.spent) == (
        1,
        first.usage.cost,
        0.0,
    )


def test_both_transports_share_the_cache(tmp_path: Path) -> None:
    cache = ModelCache.open(tmp_path / "cache")
    with ScriptedOpenAIServer([Reply.text("Hi")]) as server:
        asyncio.run(ask(ModelClient(spec(server.base_url, "native")), cache))
        asyncio.run(ask(ModelClient(spec(server.base_url, "litellm")), cache))
        assert server.request_count == 1


def test_the_usage_callback_hears_of_a_cached_answer(tmp_path: Path) -> None:
    cache = ModelCache.open(tmp_path / "cache")
    heard: list[Usage] = []
    with ScriptedOpenAIServer([Reply.text("Hi")]) as server:
        client = ModelClient(spec(server.base_url))
        with call_settings(on_usage=lambda label, usage: heard.append(usage)):
            asyncio.run(ask(client, cache))
            asyncio.run(ask(client, cache))
    assert [usage.cached_calls for usage in heard] == [0, 1]


def test_the_key_holds_what_shapes_the_answer_and_nothing_secret() -> None:
    cache = ModelCache(Path("unused"))
    base = cache.key(spec(), MESSAGES, TOOLS, 7)
    same = [
        spec(api_key="sk-another-key"),
        ModelSpec(name=PRICED, api_base="http://127.0.0.1:1/v1", max_retries=0),  # no key at all
        spec(extra_headers={"Authorization": "Bearer x", "X-Trace": "1"}),
        spec("http://127.0.0.2:9/v1"),  # the model's name names it wherever it is served
        spec(transport="litellm"),
        spec().model_copy(update={"timeout_s": 5.0}),
    ]
    assert {cache.key(other, MESSAGES, TOOLS, 7) for other in same} == {base}
    assert cache.key(spec(), MESSAGES, [], 7) == cache.key(spec(), MESSAGES, None, 7)
    different = [
        cache.key(spec(temperature=0.5), MESSAGES, TOOLS, 7),
        cache.key(spec(max_tokens=10), MESSAGES, TOOLS, 7),
        cache.key(spec(extra_body={"top_k": 3}), MESSAGES, TOOLS, 7),
        cache.key(spec().model_copy(update={"name": "openai/gpt-4o"}), MESSAGES, TOOLS, 7),
        cache.key(spec(), [{"role": "user", "content": "Hello!"}], TOOLS, 7),
        cache.key(spec(), MESSAGES, None, 7),
        cache.key(spec(), MESSAGES, TOOLS, 8),
        cache.key(spec(), MESSAGES, TOOLS, None),
    ]
    assert len({base, *different}) == len(different) + 1


def test_no_secret_reaches_the_cache_directory(tmp_path: Path) -> None:
    cache = ModelCache.open(tmp_path / "cache")
    header = "Bearer sk-header-secret-77"
    with ScriptedOpenAIServer([Reply.text("Hi")]) as server:
        client = ModelClient(spec(server.base_url, extra_headers={"Authorization": header}))
        asyncio.run(ask(client, cache))
        assert server.request_headers[0]["Authorization"] == header  # it was sent
    written = [path.read_bytes() for path in (tmp_path / "cache").rglob("*") if path.is_file()]
    assert len(written) == 2  # the format file and one answer
    assert not [data for data in written if SECRET.encode() in data or b"sk-header-secret" in data]
    assert not [data for data in written if b"Hello" in data], "the request is not stored"


def test_the_first_answer_stored_is_the_one_every_writer_gets(tmp_path: Path) -> None:
    cache = ModelCache.open(tmp_path / "cache")
    key = cache.key(spec(), MESSAGES, TOOLS, 7)
    writers = 8
    start = threading.Barrier(writers)
    got: list[Completion] = []

    def put(number: int) -> None:
        start.wait()
        got.append(cache.put(key, answer(f"answer {number}")))

    threads = [threading.Thread(target=put, args=(number,)) for number in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({completion.text for completion in got}) == 1
    assert cache.get(key) == got[0]
    assert not [path for path in (tmp_path / "cache").rglob(".*") if path.is_file()], "no temporary left"


def test_a_damaged_entry_is_a_miss_and_gives_way(tmp_path: Path) -> None:
    cache = ModelCache.open(tmp_path / "cache")
    key = cache.key(spec(), MESSAGES, TOOLS, 7)
    cache.put(key, answer("first"))
    (entry,) = [path for path in (tmp_path / "cache").rglob("*.json") if path.name != FORMAT_FILE]
    entry.write_text('{"text": "cut sho')
    assert cache.get(key) is None
    assert cache.put(key, answer("second")).text == "second"
    assert cache.get(key) == answer("second")


@settings(max_examples=25, deadline=None)
@given(
    text=st.text(),
    cost=st.none() | st.floats(min_value=0, max_value=10, allow_nan=False),
    truncated=st.booleans(),
)
def test_an_answer_comes_back_from_the_cache_as_it_was_stored(
    tmp_path_factory: pytest.TempPathFactory, text: str, cost: float | None, truncated: bool
) -> None:
    cache = ModelCache.open(tmp_path_factory.mktemp("cache"))
    stored = answer(text, cost)
    if truncated:
        stored = stored.model_copy(update={"finish_reason": "length"})
    key = cache.key(spec(), [{"role": "user", "content": text}], None, None)
    assert cache.put(key, stored) == stored
    assert cache.get(key) == stored


def test_a_cache_of_another_format_or_no_cache_is_refused_in_one_line(tmp_path: Path) -> None:
    directory = tmp_path / "cache"
    ModelCache.open(directory)
    assert json.loads((directory / FORMAT_FILE).read_text())["format"] == CACHE_FORMAT
    ModelCache.open(directory)  # opened again as it is
    (directory / FORMAT_FILE).write_text(json.dumps({"format": CACHE_FORMAT + 1, "tau2": "9.0"}))
    with pytest.raises(UserInputError) as refused:
        ModelCache.open(directory)
    assert str(refused.value) == (
        f"{directory}: a model cache of format {CACHE_FORMAT + 1} (written by tau2 9.0); this tau2 reads "
        f"format {CACHE_FORMAT}: give another --cache directory"
    )
    other = tmp_path / "results"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(UserInputError, match=f"not a model cache \\(no {FORMAT_FILE}\\)"):
        ModelCache.open(other)
    (tmp_path / "file").write_text("")
    with pytest.raises(UserInputError, match="not a directory"):
        ModelCache.open(tmp_path / "file")
