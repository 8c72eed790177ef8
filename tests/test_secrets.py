"""Secrets in model settings: redacted wherever settings are serialised, printed or compared; live for the
calls; withheld on resume until given again; scrubbed from provider messages; refused inside a URL.
(`tests/reliability/test_secret_leaks.py` searches every file and output of every command for them.)"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.mock.tasks import BOTH
from tau2.episode import ActorSpec
from tau2.errors import UserInputError
from tau2.llm import REDACTED, InfrastructureError, ModelClient, ModelSpec, SecretArgs, is_secret_name
from tau2.runs import load_manifest
from tau2.tasks._suite import Suite
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer

KEY = "sk-secret-test-5f0c2a91"
MODEL = "openai/tau2-test-model"


@pytest.mark.parametrize(
    "name",
    ["api_key", "x-api-key", "apiKey", "Authorization", "Proxy-Authorization", "Cookie", "auth_token",
     "client_secret", "password", "aws_secret_access_key", "azure_ad_token", "credentials", "apikey",
     "accesstoken", "clientSecret", "XApiKey", "HF_TOKEN", "OPENAI_API_KEY"],
)  # fmt: skip
def test_credential_names_are_secret(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    ["max_tokens", "max_completion_tokens", "maxNewTokens", "temperature", "prompt_cache_key",
     "OpenAI-Organization", "tokenizer", "TOKENIZERS_PARALLELISM", "keyword", "top_logprobs"],
)  # fmt: skip
def test_ordinary_arguments_are_not_secret(name: str) -> None:
    assert not is_secret_name(name)


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
