"""Secrets in model settings: redacted wherever settings are serialised, printed or compared; live for the
calls; withheld on resume until given again; scrubbed from provider messages; refused inside a URL.
(`tests/reliability/test_secret_leaks.py` searches every file and output of every command for them.)"""

from __future__ import annotations

import json
import pickle
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.mock.tasks import BOTH
from tau2.episode import ActorSpec
from tau2.errors import UserInputError
from tau2.llm import (
    REDACTED,
    InfrastructureError,
    ModelClient,
    ModelSpec,
    SecretArgs,
    is_secret_name,
    is_secret_value,
)
from tau2.runs import load_manifest
from tau2.tasks import Suite
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer

KEY = "sk-secret-test-5f0c2a91"
MODEL = "openai/tau2-test-model"


@pytest.mark.parametrize(
    "name",
    ["api_key", "x-api-key", "apiKey", "Authorization", "Proxy-Authorization", "Cookie", "auth_token",
     "client_secret", "password", "aws_secret_access_key", "azure_ad_token", "credentials", "apikey",
     "accesstoken", "clientSecret", "XApiKey", "HF_TOKEN", "OPENAI_API_KEY", "auth", "X-Auth",
     "x-auth-token", "X-Goog-Auth-User", "oauth", "bearer", "session", "session_id", "SessionToken",
     "signature", "X-Amz-Signature", "sig", "jwt", "passphrase", "Set-Cookie", "mykeyValue", "key"],
)  # fmt: skip
def test_credential_names_are_secret(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    ["max_tokens", "max_completion_tokens", "maxNewTokens", "temperature", "prompt_cache_key",
     "OpenAI-Organization", "tokenizer", "TOKENIZERS_PARALLELISM", "keyword", "top_logprobs",
     "stop_token_ids", "author", "design", "api_key_env", "extra_headers", "user"],
)  # fmt: skip
def test_ordinary_arguments_are_not_secret(name: str) -> None:
    assert not is_secret_name(name)


JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"


@pytest.mark.parametrize(
    "value",
    ["Bearer abc.def-123456", "bearer 9f8e7d6c5b4a", "Token 0123456789abcdef", "Basic dXNlcjpodW50ZXIy",
     "sk-proj-AbC123dEf456", "sk-ant-api03-abcdefgh", "hf_abcdefghijklmnop", "AKIAIOSFODNN7EXAMPLE",
     "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStU", JWT, "9e107d9d372bb6826bd81d3542a419d6",
     "Xk9pQ2vR7sT4uW1yZ3aB6cD8", "key-Xk9pQ2vR7sT4uW1yZ3aB6cD8"],
)  # fmt: skip
def test_credential_shaped_values_are_secret_whatever_their_name(value: str) -> None:
    assert is_secret_value(value)
    assert SecretArgs({"user": value, "temperature": 0}) == {"user": REDACTED, "temperature": 0}


@pytest.mark.parametrize(
    "value",
    ["gpt-4o-mini-2024-07-18", "meta-llama/Meta-Llama-3.1-70B-Instruct-Turbo", "/tmp/runs/2024/suite.json",
     "550e8400-e29b-41d4-a716-446655440000", "Basic information", "Bearer", "json_object",
     "2024-07-01T12:00:00Z", "aaaaaaaaaaaaaaaaaaaa1111", "You are a helpful agent; answer in one line.",
     "abc123abc123abc123abc1", "5f0c2a915f0c2a91", ""],
)  # fmt: skip
def test_ordinary_values_are_not_secret(value: str) -> None:
    assert not is_secret_value(value)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://h:8000/v1?api-key=QAPIKEY1&api-version=2024-02-01",
         f"http://h:8000/v1?api-key={REDACTED}&api-version=2024-02-01"),
        ("https://h/v1?key=abc&Signature=def&sig=ghi&X-Amz-Security-Token=jkl&alt=json",
         f"https://h/v1?key={REDACTED}&Signature={REDACTED}&sig={REDACTED}&X-Amz-Security-Token={REDACTED}"
         "&alt=json"),
        ("https://h/bot/9e107d9d372bb6826bd81d3542a419d6/v1", f"https://h/bot/{REDACTED}/v1"),
        ("https://h/v1?trace=sk-proj-AbC123dEf456", f"https://h/v1?trace={REDACTED}"),
        ("https://h/v1#access_token=abc", f"https://h/v1#access_token={REDACTED}"),
        ("https://h/v1?stream=true", "https://h/v1?stream=true"),
    ],
)  # fmt: skip
def test_an_api_bases_credentials_are_redacted_and_the_rest_kept(url: str, shown: str) -> None:
    spec = ModelSpec(name=MODEL, api_base=url)
    assert spec.api_base == shown and spec.model_dump()["api_base"] == shown
    assert spec.api_base is not None and spec.api_base.for_request() == url
    assert pickle.loads(pickle.dumps(spec)).api_base.for_request() == url  # type: ignore[union-attr]
    stored = ModelSpec.model_validate_json(spec.model_dump_json())
    assert stored == spec and stored.api_base is not None
    assert stored.api_base.withheld() == (shown != url)


credential_words = st.sampled_from(
    ["auth", "token", "secret", "key", "bearer", "session", "signature", "cookie", "password", "credential",
     "apikey", "jwt", "passphrase"]
)  # fmt: skip
TOKEN_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


@st.composite
def credential_names(draw: st.DrawFn) -> str:
    """A name holding a credential word in any case, with or without separators around it."""
    word = draw(credential_words)
    word = draw(st.sampled_from([word, word.upper(), word.title()]))
    prefix = draw(st.sampled_from(["", "x-", "X_", "my", "api_", "Proxy-", "upstream."]))
    return prefix + word + draw(st.sampled_from(["", "-value", "_header", "Value"]))


@st.composite
def random_tokens(draw: st.DrawFn, length: int = 32) -> str:
    """A generated key: letters and digits drawn at random (at least one of each)."""
    rng = draw(st.randoms(use_true_random=True))
    body = [rng.choice(TOKEN_ALPHABET) for _ in range(length - 2)] + [rng.choice("0123456789"), "k"]
    rng.shuffle(body)
    return "".join(body)


@st.composite
def credential_values(draw: st.DrawFn) -> str:
    """A value shaped like a credential whatever its name: a header's, a prefixed key, a JWT, a random one."""
    token = draw(random_tokens())
    shape = draw(st.sampled_from(["Bearer {}", "Token {}", "sk-{}", "hf_{}", "{}", "eyJ{}.eyJ{}.{}"]))
    return shape.replace("{}", token)


@st.composite
def secret_settings(draw: st.DrawFn) -> tuple[dict[str, Any], str, list[str]]:
    """Provider arguments with secrets given by name (any text) and by shape (under ordinary names), at
    the top and in `extra_headers`; an API base with a key in its query; and every secret given."""
    given: list[str] = []
    args: dict[str, Any] = {"temperature": 0.5}
    headers: dict[str, Any] = {"X-Trace": "plain"}
    for place in (args, headers):
        for _ in range(draw(st.integers(1, 3))):
            value = draw(random_tokens(draw(st.integers(8, 24))))
            place[draw(credential_names())] = value
        place[draw(st.sampled_from(["user", "X-Request-Id", "metadata_note"]))] = draw(credential_values())
    args["extra_headers"] = headers
    given = [value for value in [*args.values(), *headers.values()] if isinstance(value, str)]
    given = [value for value in given if value != "plain"]
    query_name = draw(credential_names())
    query_value = draw(random_tokens(draw(st.integers(8, 24))))
    url = f"http://127.0.0.1:9/v1?{query_name}={query_value}&api-version=2024-02-01"
    return args, url, [*given, query_value]


@settings(max_examples=60, deadline=None)
@given(secret_settings())
def test_no_written_form_of_a_configuration_holds_a_secret(
    drawn: tuple[dict[str, Any], str, list[str]],
) -> None:
    from tau2.config import RunConfig
    from tau2.experiments import ExperimentConfig, redacted

    args, url, secrets = drawn
    spec = ModelSpec(name=MODEL, api_base=url, args=args, transport="native")
    config = RunConfig(agent=ActorSpec(kind="llm", model=spec), judge=spec)
    model = {"name": MODEL, "api_base": url, "args": args}
    experiment = ExperimentConfig(
        name="e",
        baseline="a",
        base={"agent": {"kind": "llm", "model": model}},
        arms=[{"name": "a"}, {"name": "b", "judge": model}],  # type: ignore[list-item]
    )
    written = {
        "manifest's configuration": config.model_dump_json(),
        "--print-config": config.to_toml(),
        "experiment.json": redacted(experiment).model_dump_json(),
        "labels": repr(config) + str(spec.api_base) + json.dumps(spec.args),
    }
    for where, text in written.items():
        leaked = [secret for secret in secrets if secret in text]
        assert leaked == [], f"{where} holds {leaked}"
    assert (
        spec.args.for_request() == args and spec.api_base is not None and spec.api_base.for_request() == url
    )
    arm = experiment.arm_config("b").judge
    assert arm is not None and arm.args.for_request() == args  # the arms' runs get them all
    again = RunConfig.model_validate_json(config.model_dump_json())  # what a resume reads back
    assert again == config and again.agent.model is not None and again.agent.model.args.withheld()


plain = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8))
names = st.sampled_from(["temperature", "top_p", "max_tokens", "seed_hint", "extra_body", "extra_headers"])
secret_names = st.sampled_from(["api_key", "Authorization", "X-Api-Key", "auth_token", "client_secret"])


@st.composite
def arguments(draw: st.DrawFn, depth: int = 0) -> tuple[dict[str, Any], list[str]]:
    """Provider arguments with secrets (distinct canaries) at random names and depths, and the canaries."""
    args: dict[str, Any] = {}
    canaries: list[str] = []
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            canary = f"canary-{draw(st.integers(10**6, 10**7))}-{len(canaries)}"
            args[draw(secret_names)] = canary
        elif depth < 2 and draw(st.booleans()):
            nested, inner = draw(arguments(depth + 1))
            args[draw(names)] = nested
            canaries += inner
        else:
            args[draw(names)] = draw(plain)
    return args, [value for key, value in args.items() if is_secret_name(key)] + canaries


def live_canaries(args: dict[str, Any]) -> list[str]:
    """The canaries `args` still holds after its keys were set (a later key replaces an earlier one)."""
    found: list[str] = []
    for key, value in args.items():
        if is_secret_name(key) and isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            found += live_canaries(value)
    return found


@given(arguments())
def test_no_serialised_or_printed_form_holds_a_secret_and_calls_get_them_all(
    drawn: tuple[dict[str, Any], list[str]],
) -> None:
    args, _ = drawn
    spec = ModelSpec(name=MODEL, args=args)
    seat = ActorSpec(kind="llm", model=spec)
    shown = [
        spec.model_dump_json(),
        seat.model_dump_json(),
        json.dumps(seat.model_dump()),
        json.dumps(spec.args),
        repr(seat),
        str(spec.args),
    ]
    for canary in live_canaries(args):
        assert not any(canary in text for text in shown)
    assert spec.args.for_request() == args
    assert ModelSpec.model_validate(dict(spec)).args.for_request() == args  # copies keep them
    assert pickle.loads(pickle.dumps(spec)).args.for_request() == args  # so do worker processes
    stored = ModelSpec.model_validate_json(spec.model_dump_json())
    assert stored == spec  # the secret's value is no part of the configuration
    assert len(stored.args.withheld()) == len(live_canaries(args))


def test_a_stored_marker_is_withheld_until_given_again() -> None:
    assert dict(SecretArgs({"api_key": KEY})) == {"api_key": REDACTED}  # built directly, still redacted
    stored = SecretArgs({"api_key": REDACTED, "temperature": 0, "extra_headers": {"Cookie": REDACTED}})
    assert stored.withheld() == ["api_key", "extra_headers.Cookie"]
    assert stored.for_request() == {"temperature": 0, "extra_headers": {}}
    again = stored.merged(SecretArgs({"api_key": KEY}))
    assert again == stored and again.withheld() == ["extra_headers.Cookie"]
    assert again.for_request() == {"api_key": KEY, "temperature": 0, "extra_headers": {}}


@pytest.mark.parametrize("transport", ["native", "litellm"])
async def test_a_provider_echoing_the_key_is_scrubbed(transport: str) -> None:
    header = {"Authorization": f"Bearer {KEY}-header"}
    args = {"api_key": KEY, "extra_headers": header} if transport == "native" else {"api_key": KEY}
    echo = f"Incorrect API key provided: {KEY}; header {KEY}-header"
    async with ScriptedOpenAIServer([Reply.error(400, echo)]) as server:
        spec = ModelSpec(name=MODEL, api_base=server.base_url, args=args, transport=transport, max_retries=0)
        with pytest.raises(InfrastructureError) as raised:
            await ModelClient(spec).complete([{"role": "user", "content": "hi"}], seed=None)
    assert KEY not in str(raised.value) and f"Incorrect API key provided: {REDACTED}" in str(raised.value)


def responder(request: ChatRequest) -> Reply:
    """The mock task `both`, played by both seats."""
    user = "end_call" in request.tool_names
    replies = sum(message["role"] == "assistant" for message in request.messages)
    if user:
        script = [Reply.text("My lamp is dark."), Reply.tool_call("plug_in"), Reply.text("Lit.")]
        script.append(Reply.tool_call("end_call"))
    else:
        script = [Reply.tool_call(name, {"customer": "Ada"}) for name in ("get_account", "enable_power")]
        script += [Reply.text("Power is back on."), Reply.text("Resolved.")]
    return script[min(replies if user else replies - 1, 3)]


def authorizations(server: ScriptedOpenAIServer) -> set[str]:
    return {headers.get("Authorization", "") for headers in server.request_headers}


def test_resume_needs_the_key_again_and_takes_it_without_a_configuration_difference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    suite = tmp_path / "suite.json"
    Suite(name="one", domain="mock", tasks=[BOTH]).save(suite)
    out = tmp_path / "run"
    with ScriptedOpenAIServer(responder) as server:
        seats = []
        for seat in ("agent", "user"):
            seats += [f"--{seat}-model", MODEL, f"--{seat}-api-base", server.base_url]
        first = [*seats, "--agent-arg", f"api_key={KEY}", "--agent-arg", "temperature=0.5"]
        result = CliRunner().invoke(app, ["run", "--suite", str(suite), "--out", str(out), *first])
        assert result.exit_code == 0, result.output
        stored = (out / "manifest.json").read_bytes()
        assert KEY.encode() not in stored
        args = json.loads(stored)["config"]["agent"]["model"]["args"]
        assert args == {"api_key": REDACTED, "temperature": 0.5}

        resume = ["run", "--resume", "--out", str(out), "--trials", "2"]
        refused = CliRunner().invoke(app, resume)
        assert refused.exit_code == 2
        assert refused.stderr == (
            f"error: agent seat ({MODEL}): api_key is never stored with a run: give --agent-arg api_key=... "
            "again or set OPENAI_API_KEY\n"
        )
        assert (out / "manifest.json").read_bytes() == stored and len(server.requests) == 8

        changed = CliRunner().invoke(
            app, [*resume, "--agent-arg", f"api_key={KEY}", "--agent-arg", "temperature=1"]
        )
        assert changed.exit_code == 2 and KEY not in changed.output
        assert f'agent.model.args ({{"api_key": "{REDACTED}", "temperature": 0.5}} → ' in changed.stderr

        other = "sk-another-key-77"  # the key is no part of the configuration: another one is fine
        resumed = CliRunner().invoke(app, [*resume, "--agent-arg", f"api_key={other}"])
        assert resumed.exit_code == 0, resumed.output
        assert authorizations(server) == {f"Bearer {KEY}", f"Bearer {other}", ""}
        assert load_manifest(out).trials == 2 and other not in (out / "manifest.json").read_text()

        monkeypatch.setenv("OPENAI_API_KEY", KEY)  # the provider's variable stands in for the argument
        from_environment = CliRunner().invoke(app, ["run", "--resume", "--out", str(out), "--trials", "3"])
        assert from_environment.exit_code == 0, from_environment.output


def test_a_python_run_takes_its_key_from_the_configuration_and_a_resume_takes_it_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tau2
    from tau2.config import RunConfig

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    suite = tmp_path / "suite.json"
    Suite(name="one", domain="mock", tasks=[BOTH]).save(suite)
    out = tmp_path / "run"
    with ScriptedOpenAIServer(responder) as server:

        def keyed(key: str) -> ActorSpec:
            args = {"api_key": key, "temperature": 0.5}
            return ActorSpec(model=ModelSpec(name=MODEL, api_base=server.base_url, args=args))

        user = ActorSpec(model=ModelSpec(name=MODEL, api_base=server.base_url))
        tau2.run(RunConfig(suite=suite, agent=keyed(KEY), user=user), out)
        assert KEY not in (out / "manifest.json").read_text()
        with pytest.raises(UserInputError, match="api_key is never stored with a run"):
            tau2.run(RunConfig(trials=2), out, resume=True)
        again = ActorSpec(model=ModelSpec(name=MODEL, args={"api_key": "sk-again-2c9d"}))
        resumed = tau2.run(RunConfig(trials=2, agent=again), out, resume=True)
    assert resumed.config.trials == 2 and len(list(resumed.records())) == 2
    assert authorizations(server) == {f"Bearer {KEY}", "Bearer sk-again-2c9d", ""}
    stored = resumed.manifest.config.agent.model
    assert stored is not None and stored.args == {"api_key": REDACTED, "temperature": 0.5}


@pytest.mark.parametrize("command", ["run", "check-model"])
def test_credentials_in_an_api_base_are_refused_without_repeating_them(command: str, tmp_path: Path) -> None:
    out = tmp_path / "run"
    arguments = ["--judge-model", MODEL, "--judge-api-base", f"http://me:{KEY}@127.0.0.1:9/v1"]
    if command == "run":
        arguments += ["--suite", str(tmp_path / "unused.json"), "--out", str(out)]
    result = CliRunner().invoke(app, [command, *arguments])
    assert result.exit_code == 2
    assert result.stderr == (
        "error: --judge-api-base: credentials in the URL are not accepted (the URL is stored with the run); "
        "give the key as api_key, or in the provider's environment variable\n"
    )
    assert not out.exists()


def test_an_embeddings_endpoint_with_credentials_in_its_url_is_refused() -> None:
    from pydantic import ValidationError

    from tau2.world import EmbedderConfig

    with pytest.raises(ValidationError, match="credentials in the URL are not accepted") as refused:
        EmbedderConfig(model="m", api_base="https://user:hunter2secret@embeddings.example/v1")
    assert "hunter2secret" not in str(refused.value)
    assert (
        EmbedderConfig(model="m", api_base="http://127.0.0.1:8000/v1").api_base == "http://127.0.0.1:8000/v1"
    )


def test_a_refused_model_spec_does_not_echo_its_input() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError) as refused:
        ModelSpec(name="m", api_base="https://user:hunter2secret@models.example/v1")
    assert "hunter2secret" not in str(refused.value)


@dataclass
class Shared:
    """Every output meant to be kept or shared, from runs and an experiment whose agent got credentials
    every way: in the API base's query, as arguments named like credentials, as a header, and as a value
    shaped like one under an ordinary name."""

    given: dict[str, str]
    outputs: dict[str, str]
    queries: list[dict[str, str]]
    headers: list[dict[str, str]]
    bodies: list[dict[str, Any]]


GIVEN_WAYS = ["query api-key", "query key", "auth", "bearer", "session", "signature", "X-Auth", "shaped"]


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Shared:
    root = tmp_path_factory.mktemp("shared")
    given = {way: f"{way.split()[-1]}-{secrets.token_hex(12)}" for way in GIVEN_WAYS}
    given["shaped"] = f"sk-{secrets.token_hex(12)}"
    suite = root / "suite.json"
    Suite(name="one", domain="mock", tasks=[BOTH]).save(suite)
    args = {name: given[name] for name in ("auth", "bearer", "session", "signature")}
    args |= {"user": given["shaped"], "extra_headers": {"X-Auth": given["X-Auth"]}}
    outputs: dict[str, str] = {}

    def invoke(what: str, arguments: list[str]) -> None:
        result = CliRunner().invoke(app, arguments)
        assert result.exit_code == 0, f"{what}: {result.output}"
        outputs[what] = result.stdout

    with ScriptedOpenAIServer(responder) as server:
        url = f"{server.base_url}?api-key={given['query api-key']}&key={given['query key']}"
        model = {"name": MODEL, "api_base": url, "transport": "native", "args": args}
        user = {"kind": "llm", "model": {"name": MODEL, "api_base": server.base_url, "transport": "native"}}
        seats = {"user": user, "agent": {"kind": "llm", "model": model}}
        (root / "run.toml").write_text(toml_table({"suite": str(suite), **seats}))
        for name, temperature in (("a", "0"), ("b", "0.5")):
            run = ["run", "--config", str(root / "run.toml"), "--out", str(root / name)]
            invoke(f"run {name}", [*run, "--agent-arg", f"temperature={temperature}"])
        invoke("--print-config", ["run", "--config", str(root / "run.toml"), "--print-config"])
        experiment = {
            "name": "e",
            "baseline": "cold",
            "base": {"suite": str(suite), **seats},
            "arms": [
                {"name": "cold"},
                {"name": "warm", "agent": {"model": {"api_base": url, "args": {"temperature": 0.5}}}},
            ],
        }
        (root / "exp.toml").write_text(toml_table(experiment))
        invoke("experiment --print-config", ["experiment", "run", str(root / "exp.toml"), "--print-config"])
        invoke("experiment run", ["experiment", "run", str(root / "exp.toml"), "--out", str(root / "exp")])
    invoke("report --json", ["report", str(root / "a"), "--json"])
    invoke("compare --json", ["compare", str(root / "a"), str(root / "b"), "--json"])
    invoke(
        "compare --html", ["compare", str(root / "a"), str(root / "b"), "--html", str(root / "compare.html")]
    )
    invoke("experiment report --json", ["experiment", "report", str(root / "exp"), "--json"])
    invoke(
        "export tau2bench", ["export", "tau2bench", str(root / "a"), "--out", str(root / "tau2bench.json")]
    )
    for name, path in {
        "run manifest": "a/manifest.json",
        "run records": "a/results.jsonl",
        "experiment.json": "exp/experiment.json",
        "arm manifest": "exp/warm/manifest.json",
        "compare page": "compare.html",
        "tau2bench export": "tau2bench.json",
    }.items():
        outputs[name] = (root / path).read_text(encoding="utf-8")
    agent = [number for number, request in enumerate(server.requests) if "end_call" not in request.tool_names]
    queries, headers = server.request_queries, server.request_headers
    return Shared(
        given,
        outputs,
        queries=[queries[number] for number in agent],
        headers=[headers[number] for number in agent],
        bodies=[server.requests[number].model_extra or {} for number in agent],
    )


def toml_table(settings: dict[str, Any]) -> str:
    import tomli_w

    return tomli_w.dumps(settings)


SHARED_OUTPUTS = [
    "run manifest", "run records", "experiment.json", "arm manifest", "--print-config",
    "experiment --print-config", "report --json", "compare --json", "compare page",
    "experiment report --json", "tau2bench export",
]  # fmt: skip


@pytest.mark.parametrize("output", SHARED_OUTPUTS)
def test_no_output_meant_to_be_kept_or_shared_holds_a_credential(shared: Shared, output: str) -> None:
    text = shared.outputs[output]
    assert [way for way, value in shared.given.items() if value in text] == []
    if output != "run records":  # every other output shows the agent's settings, with the marker
        assert REDACTED in text


def test_the_provider_receives_every_credential_in_the_api_base_the_arguments_and_headers(
    shared: Shared,
) -> None:
    given = shared.given
    assert len(shared.queries) == len(shared.headers) >= 4  # 2 runs and 2 arms, each of one simulation
    for query, headers, body in zip(shared.queries, shared.headers, shared.bodies, strict=True):
        assert query == {"api-key": given["query api-key"], "key": given["query key"]}
        assert headers["X-Auth"] == given["X-Auth"]
        assert {name: body[name] for name in ("auth", "bearer", "session", "signature", "user")} == {
            name: given["shaped" if name == "user" else name]
            for name in ("auth", "bearer", "session", "signature", "user")
        }


def test_a_key_in_the_api_base_is_withheld_on_resume_until_the_url_is_given_again(tmp_path: Path) -> None:
    suite = tmp_path / "suite.json"
    Suite(name="one", domain="mock", tasks=[BOTH]).save(suite)
    out = tmp_path / "run"
    with ScriptedOpenAIServer(responder) as server:
        keyed = f"{server.base_url}?api-key={KEY}"
        seats = ["--user-model", MODEL, "--user-api-base", server.base_url]
        seats += ["--agent-model", MODEL, "--agent-api-base", keyed, "--agent-transport", "native"]
        first = CliRunner().invoke(app, ["run", "--suite", str(suite), "--out", str(out), *seats])
        assert first.exit_code == 0, first.output
        stored = (out / "manifest.json").read_bytes()
        assert KEY.encode() not in stored
        assert (
            json.loads(stored)["config"]["agent"]["model"]["api_base"]
            == f"{server.base_url}?api-key={REDACTED}"
        )

        resume = ["run", "--resume", "--out", str(out), "--trials", "2"]
        refused = CliRunner().invoke(app, resume)
        assert refused.exit_code == 2
        assert refused.stderr == (
            f"error: agent seat ({MODEL}): the key in api_base is never stored with a run: give "
            "--agent-api-base again\n"
        )
        assert (out / "manifest.json").read_bytes() == stored
        again = "sk-another-key-77"  # the key is no part of the configuration: another one is fine
        resumed = CliRunner().invoke(app, [*resume, "--agent-api-base", f"{server.base_url}?api-key={again}"])
        assert resumed.exit_code == 0, resumed.output
        other = CliRunner().invoke(app, [*resume, "--agent-api-base", f"{server.base_url}?api-key=x&v=2"])
        assert other.exit_code == 2 and "agent.model.api_base" in other.stderr  # another URL is
    keys = {query.get("api-key") for query in server.request_queries}
    assert keys == {KEY, again, None}  # None: the user seat's requests
    assert again not in (out / "manifest.json").read_text()


def test_an_embeddings_endpoint_with_a_key_in_its_query_is_refused() -> None:
    from pydantic import ValidationError

    from tau2.world import EmbedderConfig

    with pytest.raises(ValidationError, match="a key in the URL is not accepted") as refused:
        EmbedderConfig(model="m", api_base=f"https://embeddings.example/v1?key={KEY}")
    assert KEY not in str(refused.value)
