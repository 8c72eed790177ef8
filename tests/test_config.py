"""The run configuration: every setting declared once with its meaning and default, TOML files read with
one-line errors and written back exactly, settings layered (defaults or a stored run, a file, options)
with errors naming where a value was given, and manifests of the older flat shape still read."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from tau2.config import (
    ActorSpec,
    ConfigLayer,
    EmbedderConfig,
    EpisodeConfig,
    ExecutorConfig,
    ModelSpec,
    ProviderLimit,
    RetrievalConfig,
    RunConfig,
    field_docs,
    layered,
)
from tau2.errors import UserInputError
from tau2.llm import REDACTED
from tau2.runs import MANIFEST_FILE, RunManifest, load_manifest, load_run

FIXTURE_RUNS = Path(__file__).resolve().parent / "fixtures" / "runs"
CONFIG_MODELS: list[type[BaseModel]] = [
    RunConfig,
    ActorSpec,
    ModelSpec,
    EpisodeConfig,
    ExecutorConfig,
    RetrievalConfig,
    EmbedderConfig,
]


@pytest.mark.parametrize("model", CONFIG_MODELS, ids=lambda model: model.__name__)
def test_every_setting_says_what_it_means(model: type[BaseModel]) -> None:
    undocumented = [name for name in model.model_fields if not field_docs(model).get(name)]
    assert undocumented == []


def test_the_example_configuration_reads_as_written(tmp_path: Path) -> None:
    path = tmp_path / "run.toml"
    path.write_text(
        'domain = "telecom"\ntrials = 4\nseed = 7\nmode = "solo"\n'
        'agent = { kind = "llm", model = "openai/gpt-4.1-mini" }\n'
        'user = { kind = "llm", model = "openai/gpt-4.1-mini" }\n'
    )
    config = RunConfig.from_file(path)
    assert (config.domain, config.trials, config.seed, config.mode.value) == ("telecom", 4, 7, "solo")
    assert config.agent == ActorSpec(kind="llm", model=ModelSpec(name="openai/gpt-4.1-mini"))
    assert config.episode == EpisodeConfig(mode="solo")  # type: ignore[arg-type]
    assert config.max_steps == EpisodeConfig().max_steps


def test_a_seat_given_as_a_string_is_its_kind_and_a_model_its_name() -> None:
    config = RunConfig.model_validate({"user": "scripted", "judge": "openai/m", "agent": {"model": "x"}})
    assert config.user == ActorSpec(kind="scripted")
    assert config.judge == ModelSpec(name="openai/m")
    assert config.agent == ActorSpec(kind="llm", model=ModelSpec(name="x"))


def test_relative_paths_in_a_file_are_relative_to_the_file(tmp_path: Path) -> None:
    (tmp_path / "experiments").mkdir()
    path = tmp_path / "experiments" / "run.toml"
    path.write_text('suite = "../suites/s.json"\ndata_dir = "/abs/data"\n')
    config = RunConfig.from_file(path)
    assert config.suite == tmp_path / "experiments" / ".." / "suites" / "s.json"
    assert config.data_dir == Path("/abs/data")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("trials = ", "invalid TOML: "),
        ("max_step = 3", "max_step: Extra inputs are not permitted"),
        ("max_steps = 0", "max_steps: Input should be greater than or equal to 1"),
        ('agent = { kind = "llm", model = { timeout_s = 3 } }', "agent.model.name: Field required"),
        ('executor = { kind = "ray" }', "executor: the ray executor needs the cluster's address"),
        ("trials = 20000", "trials: Input should be less than or equal to 10000"),
        (b"\xff\xfe", "cannot read: not UTF-8 text"),
        ("x = " + "[" * 5000 + "]" * 5000, "TOML nested too deeply to read"),
    ],
)
def test_a_bad_file_is_one_line_naming_file_and_field(
    tmp_path: Path, content: str | bytes, message: str
) -> None:
    path = tmp_path / "run.toml"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(UserInputError) as raised:
        RunConfig.from_file(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_missing_or_directory_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match=r"nope.toml: no such file$"):
        RunConfig.from_file(tmp_path / "nope.toml")
    with pytest.raises(UserInputError, match="is a directory, not a file"):
        RunConfig.from_file(tmp_path)


def test_an_unlimited_retry_budget_is_written_inf_and_read_back_as_none(tmp_path: Path) -> None:
    model = ModelSpec(name="m", retry_budget_s=None, max_retries=4)
    config = RunConfig(agent=ActorSpec(model=model))
    assert "retry_budget_s = inf" in config.to_toml()
    path = tmp_path / "run.toml"
    path.write_text(config.to_toml())
    assert RunConfig.from_file(path).agent.model == model
    assert ModelSpec(name="m", retry_budget_s=math.inf, max_retries=1).retry_budget_s is None


def test_a_null_provider_argument_cannot_be_written() -> None:
    config = RunConfig(judge=ModelSpec(name="m", args={"stop": None}))
    with pytest.raises(UserInputError, match=r"^judge.args.stop: null cannot be written in TOML$"):
        config.to_toml()


names = st.text("abcdefghij/-_.", min_size=1, max_size=12)
json_leaves = st.one_of(st.booleans(), st.integers(-5, 5), st.text("xyz ", max_size=4))
models = st.builds(
    ModelSpec,
    name=names,
    api_base=st.none() | st.just("http://127.0.0.1:8000/v1"),
    args=st.dictionaries(names, json_leaves | st.lists(json_leaves, max_size=2), max_size=2),
    timeout_s=st.floats(0.001, 1e4, allow_nan=False),
    max_retries=st.none() | st.integers(0, 9),
    retry_budget_s=st.floats(0.5, 1e4, allow_nan=False),
    transport=st.sampled_from(["auto", "native", "litellm"]),
)
seats = st.builds(
    ActorSpec,
    kind=st.sampled_from(["llm", "oracle", "scripted"]),
    model=st.none() | models,
    text_tool_calls=st.booleans(),
)
configs = st.builds(
    RunConfig,
    suite=st.none() | st.just(Path("/suites/s.json")),
    domain=st.none() | st.sampled_from(["telecom", "mock"]),
    task_ids=st.none() | st.lists(names, min_size=1, max_size=3, unique=True),
    agent=seats,
    user=seats,
    judge=st.none() | models,
    persona=st.none() | st.just("hard"),
    trials=st.integers(1, 50),
    seed=st.integers(-(2**40), 2**40),
    concurrency=st.integers(1, 512),
    rate_limits=st.dictionaries(names, st.builds(ProviderLimit, max_concurrent=st.integers(1, 9))),
    executor=st.sampled_from([ExecutorConfig(), ExecutorConfig(workers=4), ExecutorConfig(address="auto")]),
    mode=st.sampled_from(["interactive", "solo"]),
    oracle_plan=st.booleans(),
    max_steps=st.integers(1, 500),
    retrieval=st.none()
    | st.builds(
        RetrievalConfig,
        name=names,
        top_k=st.integers(1, 1000),
        embedder=st.none()
        | st.builds(EmbedderConfig, model=names, api_base=st.none() | st.just("http://127.0.0.1:8000/v1")),
    ),
)


@settings(max_examples=60, deadline=None)
@given(config=configs)
def test_toml_round_trips_exactly(tmp_path_factory: pytest.TempPathFactory, config: RunConfig) -> None:
    path = tmp_path_factory.mktemp("config") / "run.toml"
    path.write_text(config.to_toml())
    again = RunConfig.from_file(path)
    assert again == config
    assert again.to_toml() == config.to_toml()


def cli_layer(values: dict[str, Any]) -> ConfigLayer:
    """Settings named as options would name them (a stand-in for the command line's layer)."""
    return ConfigLayer(values, name=lambda path: "--" + "-".join(path), options=True)


def file_layer(values: dict[str, Any]) -> ConfigLayer:
    return ConfigLayer(values, name=lambda path: f"run.toml: {'.'.join(path)}")


def test_upper_layers_override_lower_ones_setting_by_setting() -> None:
    from_file = file_layer(
        {"trials": 3, "agent": {"kind": "llm", "model": {"name": "a", "args": {"temperature": 0}}}}
    )
    options = cli_layer({"trials": 5, "agent": {"model": {"args": {"top_p": 1}}}})
    config = layered([from_file, options])
    assert config.trials == 5
    assert config.agent.model == ModelSpec(name="a", args={"temperature": 0, "top_p": 1})


def test_choosing_afresh_drops_what_is_replaced() -> None:
    base = RunConfig(
        suite=Path("/s.json"),
        domain="mock",
        task_ids=["a"],
        agent=ActorSpec(kind="llm", model=ModelSpec(name="m"), text_tool_calls=True),
        executor=ExecutorConfig(workers=4),
    )
    config = layered([cli_layer({"agent": {"kind": "oracle"}, "split": "test", "domain": "telecom"})], base)
    assert config.agent == ActorSpec(kind="oracle")
    assert (config.split, config.task_ids, config.suite, config.domain) == ("test", None, None, "telecom")
    assert layered([cli_layer({"executor": {"workers": 1}})], base).executor.kind == "local"
    assert layered([cli_layer({"executor": {"address": "auto"}})], base).executor.kind == "ray"
    assert layered([cli_layer({"agent": {"kind": "llm"}})], base).agent == base.agent


def test_errors_name_the_setting_where_it_was_given() -> None:
    with pytest.raises(UserInputError, match=r"^--agent-model-timeout_s: no model to apply them to \(give "):
        layered([cli_layer({"agent": {"model": {"timeout_s": 3.0}}})])
    with pytest.raises(UserInputError, match=r"^run.toml: concurrency: Input should be greater"):
        layered([file_layer({"concurrency": 0}), cli_layer({"trials": 2})])
    with pytest.raises(UserInputError, match=r"^--concurrency: Input should be greater"):
        layered([file_layer({"concurrency": 4}), cli_layer({"concurrency": 0})])
    with pytest.raises(UserInputError, match=r"^judge.api_base: 'x' is not an http"):
        layered([ConfigLayer({"judge": {"name": "m", "api_base": "x"}})])


def test_a_configuration_gives_only_what_was_set_explicitly() -> None:
    config = RunConfig(trials=4, agent=ActorSpec(kind="oracle"))
    assert ConfigLayer.of(config).values == {"trials": 4, "agent": {"kind": "oracle"}}


def keyed(key: str, **args: Any) -> RunConfig:
    return RunConfig(agent=ActorSpec(model=ModelSpec(name="openai/m", args={"api_key": key, **args})))


def test_secrets_keep_their_values_through_the_layers_and_never_reach_toml(tmp_path: Path) -> None:
    config = layered([ConfigLayer.of(keyed("sk-live", temperature=0))])
    assert config.agent.model is not None
    assert config.agent.model.args.for_request() == {"api_key": "sk-live", "temperature": 0}
    written = config.to_toml()
    assert "sk-live" not in written and f'api_key = "{REDACTED}"' in written
    path = tmp_path / "run.toml"
    path.write_text(written)
    again = RunConfig.from_file(path)
    assert again == config  # a key compares as its marker: giving another one is no difference
    assert again.agent.model is not None and again.agent.model.args.withheld() == ["api_key"]


def test_a_resume_gives_keys_again_by_name_over_the_stored_arguments() -> None:
    stored = RunConfig.model_validate_json(keyed("sk-old", temperature=0).model_dump_json())
    assert stored.agent.model is not None and stored.agent.model.args.withheld() == ["api_key"]
    config = layered([cli_layer({"agent": {"model": {"args": {"api_key": "sk-new"}}}})], stored)
    assert config == stored
    assert config.agent.model is not None
    assert config.agent.model.args.for_request() == {"api_key": "sk-new", "temperature": 0}


def test_a_new_retrieval_name_starts_afresh_and_other_settings_adjust() -> None:
    embedder = EmbedderConfig(model="e", api_base="http://127.0.0.1:8000/v1")
    base = RunConfig(retrieval=RetrievalConfig(name="dense", top_k=5, embedder=embedder))
    assert layered([cli_layer({"retrieval": {"top_k": 3}})], base).retrieval == RetrievalConfig(
        name="dense", top_k=3, embedder=embedder
    )
    assert layered([cli_layer({"retrieval": {"embedder": {"model": "f"}}})], base).retrieval == (
        RetrievalConfig(name="dense", top_k=5, embedder=embedder.model_copy(update={"model": "f"}))
    )
    assert layered([cli_layer({"retrieval": {"name": "dense"}})], base) == base
    assert layered([cli_layer({"retrieval": {"name": "bm25"}})], base).retrieval == RetrievalConfig(
        name="bm25"
    )
    with pytest.raises(UserInputError, match=r"^--retrieval-top_k: no retrieval configuration to apply"):
        layered([cli_layer({"retrieval": {"top_k": 3}})])


def test_an_unset_retrieval_is_left_out_of_what_is_written() -> None:
    assert "retrieval" not in RunConfig().model_dump() and "retrieval" not in RunConfig().to_toml()
    assert "retrieval" not in EpisodeConfig().model_dump()
    given = RunConfig(retrieval=RetrievalConfig(name="bm25"))
    assert given.model_dump()["retrieval"] == {"name": "bm25", "top_k": 10, "embedder": None}


@pytest.mark.parametrize("name", sorted(path.name for path in FIXTURE_RUNS.iterdir()))
def test_flat_manifests_read_into_the_configuration(name: str) -> None:
    flat = json.loads((FIXTURE_RUNS / name / MANIFEST_FILE).read_text())
    manifest = load_manifest(FIXTURE_RUNS / name)
    config = manifest.config
    assert (config.trials, config.seed, config.mode.value) == (
        flat["trials"],
        flat["seed"],
        flat["episode"]["mode"],
    )
    assert (
        config.suite == Path(flat["suite_path"]) and config.task_ids == flat["task_ids"] == manifest.task_ids
    )
    assert manifest.agent.model is not None and manifest.agent.model.name == flat["agent"]["model"]["name"]
    assert (manifest.user is None) == (flat["user"] is None)
    assert len(load_run(FIXTURE_RUNS / name).records) > 0
    again = RunManifest.model_validate_json(manifest.model_dump_json())
    assert again == manifest


def test_errors_in_a_flat_manifest_name_its_own_fields(tmp_path: Path) -> None:
    flat = json.loads((FIXTURE_RUNS / "solo" / MANIFEST_FILE).read_text())
    for change, named in [
        ({"trials": 0}, "trials"),
        ({"episode": {**flat["episode"], "max_steps": 0}}, "episode.max_steps"),
        ({"persona_override": 3}, "persona_override"),
    ]:
        (tmp_path / MANIFEST_FILE).write_text(json.dumps({**flat, **change}))
        with pytest.raises(UserInputError, match=rf"{MANIFEST_FILE}: {named}: "):
            load_manifest(tmp_path)
