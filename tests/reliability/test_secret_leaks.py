"""Secrets never reach a file or an output: distinctive fake keys given every way a key can be given
(`--agent-arg`, `--user-arg`, `--judge-arg api_key=…`, an `extra_headers` Authorization, the provider's
environment variable, a `--config` file), echoed back by the provider in its error messages, then carried
through a run, a refused and an accepted resume, `--print-config`, a refused key, reports (terminal, JSON,
HTML), a comparison, the viewer, both exports, an episode and `check-model`. Every file written and every
line printed is searched for every key; the scripted server's request headers show each key did reach the
provider."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from reliability.conftest import ReliabilityScale
from typer.testing import CliRunner, Result

from tau2.cli import app
from tau2.domains.mock.tasks import BOTH
from tau2.llm import REDACTED
from tau2.tasks import Suite
from tau2.testing import ChatRequest, Reply, ScriptedOpenAIServer

MODEL = "openai/tau2-test-model"
AGENT_SCRIPT = [
    Reply.tool_call("get_account", {"customer": "Ada"}),
    Reply.tool_call("enable_power", {"customer": "Ada"}),
    Reply.text("Power is back on. Please plug your lamp in."),
    Reply.text("Your issue is resolved."),
]
USER_SCRIPT = [
    Reply.text("My lamp is dark; my reference is {case} ."),
    Reply.tool_call("plug_in"),
    Reply.text("I plugged it in and it is lit now."),
    Reply.tool_call("end_call"),
]
VERDICT = json.dumps({"results": [{"expectedOutcome": "x", "reasoning": "seen", "metExpectation": True}]})


def canary(way: str) -> str:
    """A key no output could contain by chance."""
    return f"sk-canary-{way}-{secrets.token_hex(8)}"


@dataclass
class Keys:
    """One canary per way of giving a key."""

    agent_arg: str = field(default_factory=lambda: canary("agent-arg"))
    user_arg: str = field(default_factory=lambda: canary("user-arg"))
    judge_arg: str = field(default_factory=lambda: canary("judge-arg"))
    header: str = field(default_factory=lambda: canary("header"))
    environment: str = field(default_factory=lambda: canary("environment"))
    url: str = field(default_factory=lambda: canary("url"))
    config_file: str = field(default_factory=lambda: canary("config-file"))

    def all(self) -> dict[str, str]:
        return dict(vars(self))


class Provider:
    """Plays the mock task `both` for both seats and judges it; the first request of each listed
    (task, seat) is refused with a message echoing that seat's key, as a careless provider would."""

    def __init__(self, echoed: dict[str, str], failing: set[tuple[str, str]]) -> None:
        self.echoed = echoed
        self.failing = set(failing)

    def __call__(self, request: ChatRequest) -> Reply:
        text = " ".join(str(message.get("content") or "") for message in request.messages)
        if "Expected outcomes" in text:
            return Reply.text(VERDICT)
        seat = "user" if "end_call" in request.tool_names else "agent"
        task = next((word for word in text.split() if word.startswith("case-")), "")
        if (task, seat) in self.failing:
            self.failing.discard((task, seat))
            return Reply.error(400, f"Incorrect API key provided: {self.echoed[seat]} (upstream said so)")
        replies = sum(message["role"] == "assistant" for message in request.messages)
        step = replies - 1 if seat == "agent" else replies
        reply = (AGENT_SCRIPT if seat == "agent" else USER_SCRIPT)[min(step, 3)]
        if reply.content is None:
            return reply
        return reply.model_copy(update={"content": reply.content.replace("{case}", task)})


@dataclass
class Leaks:
    """Every output captured, and the search over them and over every file."""

    outputs: list[tuple[str, str]] = field(default_factory=list)
    files_searched: int = 0

    def invoke(self, what: str, arguments: list[str], expect: int = 0) -> Result:
        result = CliRunner().invoke(app, arguments)
        self.outputs.append((f"{what} stdout", result.stdout))
        self.outputs.append((f"{what} stderr", result.stderr))
        assert result.exit_code == expect, f"{what}: exit {result.exit_code}: {result.output[-2000:]}"
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        return result

    def found(self, root: Path, keys: dict[str, str]) -> list[str]:
        """Where any key appears: files under `root` and every captured output."""
        places = []
        for path in sorted(item for item in root.rglob("*") if item.is_file()):
            self.files_searched += 1
            data = path.read_bytes()
            name = path.relative_to(root)
            places += [f"{name} holds {way}" for way, key in keys.items() if key.encode() in data]
        for what, text in self.outputs:
            places += [f"{what} holds {way}" for way, key in keys.items() if key in text]
        return places


def suite(path: Path, cases: int) -> Path:
    """`cases` copies of the mock task `both`, each naming its case in the customer's instructions and
    with a statement for the judge."""
    tasks = []
    for number in range(cases):
        case = f"case-{number}"
        instructions = BOTH.user_scenario.instructions.model_copy(  # type: ignore[union-attr]
            update={"known_info": f"You are Ada; your reference is {case} ."}
        )
        scenario = BOTH.user_scenario.model_copy(update={"instructions": instructions})
        evaluation = BOTH.evaluation.model_copy(update={"nl_assertions": ["The agent restores power."]})
        update = {"id": case, "user_scenario": scenario, "evaluation": evaluation}
        tasks.append(BOTH.model_copy(update=update))
    Suite(name="canaries", domain="mock", tasks=tasks).save(path)
    return path


def seat(name: str, base_url: str, *extra: str) -> list[str]:
    options = [f"--{name}-model", MODEL, f"--{name}-api-base", base_url, *extra]
    return [f"--{name}", "llm", *options] if name != "judge" else options


def snapshot(root: Path) -> dict[str, bytes]:
    return {str(path): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def received(server: ScriptedOpenAIServer) -> Iterator[str]:
    for headers in server.request_headers:
        yield from headers.values()


def config_file(path: Path, tasks: Path, base_url: str, key: str) -> Path:
    """A configuration file giving the agent's key itself (the user seat is scripted)."""
    path.write_text(
        f'suite = {json.dumps(str(tasks))}\nuser = "scripted"\n\n[agent]\nkind = "llm"\n\n'
        f"[agent.model]\nname = {json.dumps(MODEL)}\napi_base = {json.dumps(base_url)}\n"
        f'transport = "native"\nargs = {{ api_key = {json.dumps(key)}, temperature = 0 }}\n',
        encoding="utf-8",
    )
    return path


def test_no_key_reaches_a_file_or_an_output(
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    reliability_scale: ReliabilityScale,
) -> None:
    scale = reliability_scale.pick
    keys = Keys()
    leaks = Leaks()
    monkeypatch.setenv("OPENAI_API_KEY", keys.environment)
    cases = scale(3, 8)
    tasks = suite(tmp_path / "suite.json", cases)
    native, litellm = tmp_path / "native", tmp_path / "litellm"
    header = json.dumps({"Authorization": f"Bearer {keys.header}", "X-Trace": "canary"})
    echoed = {"agent": keys.agent_arg, "user": keys.header}  # the header's credential, without `Bearer`
    failing = {("case-0", "agent"), ("case-1", "user")}
    for workers in ["1", *(["2"] if scale(0, 1) else [])]:
        out = native if workers == "1" else tmp_path / "native-workers"
        with ScriptedOpenAIServer(Provider(echoed, failing)) as server:
            given = [
                *seat("agent", server.base_url, "--agent-arg", f"api_key={keys.agent_arg}"),
                *seat("user", server.base_url, "--user-arg", f"extra_headers={header}"),
                *seat("judge", server.base_url, "--judge-arg", f"api_key={keys.judge_arg}"),
            ]
            run = ["run", "--suite", str(tasks), "--out", str(out), "--workers", workers]
            for name in ("agent", "user"):
                run += [f"--{name}-transport", "native", f"--{name}-max-retries", "0"]
            first = leaks.invoke(f"native run ({workers} workers)", [*run, *given])
            assert "2 infrastructure errors" in first.stdout
            before = snapshot(out)
            refused = leaks.invoke("resume without keys", ["run", "--resume", "--out", str(out)], expect=2)
            assert refused.stderr.count("\n") == 1 and "is never stored with a run: give --" in refused.stderr
            assert snapshot(out) == before, "a refused resume changed the run directory"
            resumed = leaks.invoke("resume with keys", ["run", "--resume", "--out", str(out), *given])
            assert f"{cases}/{cases} judged" in resumed.stdout, resumed.stdout
        seen = list(received(server))
        for key in (keys.agent_arg, keys.header, keys.judge_arg):
            assert f"Bearer {key}" in seen, "a key given never reached the provider"
    assert REDACTED in (native / "manifest.json").read_text()
    printed = leaks.invoke(
        "--print-config of a resume", ["run", "--resume", "--out", str(native), "--print-config"]
    )
    assert f'api_key = "{REDACTED}"' in printed.stdout
    printed = leaks.invoke(
        "--print-config with keys given", ["run", "--suite", str(tasks), *given, "--print-config"]
    )
    assert printed.stdout.count(REDACTED) == 3, printed.stdout

    # A configuration file holding a key, kept outside the searched directory: it holds the key by design.
    with ScriptedOpenAIServer(Provider(echoed, set())) as server:
        holding = config_file(
            tmp_path_factory.mktemp("config") / "run.toml", tasks, server.base_url, keys.config_file
        )
        printed = leaks.invoke(
            "--print-config of a file holding a key", ["run", "--config", str(holding), "--print-config"]
        )
        assert f'api_key = "{REDACTED}"' in printed.stdout
        reread = tmp_path / "printed.toml"
        reread.write_text(printed.stdout, encoding="utf-8")
        withheld = ["run", "--config", str(reread), "--out", str(tmp_path / "from-printed")]
        with monkeypatch.context() as environment:  # else the provider's variable would stand in for it
            environment.delenv("OPENAI_API_KEY")
            refused = leaks.invoke("run from a printed file without the key", withheld, expect=2)
        assert "is never stored with a run: give --agent-arg api_key=... again" in refused.stderr
        from_file = ["run", "--config", str(holding), "--out", str(tmp_path / "from-file"), "--workers", "2"]
        leaks.invoke("run from a file holding a key, on worker processes", from_file)
    assert f"Bearer {keys.config_file}" in list(received(server)), "the file's key never reached the provider"

    with ScriptedOpenAIServer(Provider(echoed, set())) as server:
        run = ["run", "--suite", str(tasks), "--out", str(litellm), "--agent-transport", "litellm"]
        run += [*seat("agent", server.base_url), "--user-transport", "litellm"]
        run += seat("user", server.base_url, "--user-arg", f"api_key={keys.user_arg}")
        leaks.invoke("litellm run", run)
        extra = ["--resume", "--out", str(litellm), "--trials", "2", "--user-arg", f"api_key={keys.user_arg}"]
        leaks.invoke("litellm resume, agent key from the environment", ["run", *extra])
    seen = list(received(server))
    assert f"Bearer {keys.environment}" in seen and f"Bearer {keys.user_arg}" in seen

    refusal = f"Incorrect API key provided: {keys.agent_arg}"
    with ScriptedOpenAIServer(lambda _: Reply.error(401, refusal)) as server:
        refused_run = ["run", "--suite", str(tasks), "--out", str(tmp_path / "refused")]
        refused_run += [*seat("agent", server.base_url, "--agent-arg", f"api_key={keys.agent_arg}")]
        refused_run += ["--user", "scripted"]
        stopped = leaks.invoke("refused key", refused_run, expect=2)
        assert "authentication failed" in stopped.stderr
        checked = ["check-model", "--agent-model", MODEL, "--agent-api-base", server.base_url]
        checked += ["--agent-arg", f"api_key={keys.agent_arg}"]
        leaks.invoke("check-model", checked, expect=1)
    credentials = f"http://canary:{keys.url}@127.0.0.1:9/v1"
    in_url = ["run", "--suite", str(tasks), "--out", str(tmp_path / "in-url")]
    in_url += ["--agent-model", MODEL, "--agent-api-base", credentials]
    url = leaks.invoke("credentials in the URL", in_url, expect=2)
    assert "--agent-api-base: credentials in the URL are not accepted" in url.stderr
    assert not (tmp_path / "in-url").exists()

    with ScriptedOpenAIServer(Provider(echoed, set())) as server:
        episode = ["episode", "--suite", str(tasks), "--task-id", "case-0", "--json"]
        episode += [*seat("agent", server.base_url, "--agent-arg", f"api_key={keys.agent_arg}")]
        episode += [*seat("user", server.base_url, "--user-arg", f"extra_headers={header}")]
        leaks.invoke("episode", episode)

    pages = tmp_path / "pages"
    pages.mkdir()
    for what, arguments in {
        "report": ["report", str(native), "--full"],
        "report --json": ["report", str(native), "--json"],
        "report --html": ["report", str(native), "--html", str(pages / "report.html")],
        "compare": ["compare", str(native), str(litellm), "--full"],
        "compare --json": ["compare", str(native), str(litellm), "--json"],
        "compare --html": ["compare", str(native), str(litellm), "--html", str(pages / "compare.html")],
        "view": ["view", str(native), "--all"],
        "view --html": ["view", str(native), "--all", "--html", str(pages / "view.html")],
        "export tau2bench": ["export", "tau2bench", str(native), "--out", str(pages / "tau2bench.json")],
        "export potato": ["export", "potato", str(native), "--out", str(pages / "potato")],
    }.items():
        leaks.invoke(what, arguments)
    exported = json.loads((pages / "tau2bench.json").read_text())
    assert exported["info"]["agent_info"]["llm_args"] == {"api_key": REDACTED}

    places = leaks.found(tmp_path, keys.all())
    print(
        f"RELIABILITY: secrets: {len(keys.all())} fake keys, one per way of giving one; "
        f"{leaks.files_searched} files and {len(leaks.outputs)} outputs searched; {len(places)} leaks"
    )
    assert places == []
