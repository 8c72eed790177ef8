"""The experiment configuration: arms layered over the base, paired settings shared, one-line errors."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tau2.errors import UserInputError
from tau2.experiments import (
    EXPERIMENT_FILE,
    ExperimentConfig,
    ExperimentManifest,
    arm_run_dir,
    load_experiment,
)

EXPERIMENT = """
name = "coordination-cost"
baseline = "solo"
[base]
domain = "telecom"
trials = 4
seed = 7
agent = { kind = "oracle" }
user = { kind = "scripted" }
[[arms]]
name = "solo"
mode = "solo"
[[arms]]
name = "interactive"
mode = "interactive"
max_steps = 60
"""


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "exp.toml"
    path.write_text(text)
    return path


def test_each_arm_is_the_base_with_its_overrides(tmp_path: Path) -> None:
    config = ExperimentConfig.from_file(_write(tmp_path, EXPERIMENT))
    arms = config.arm_configs()
    assert list(arms) == ["solo", "interactive"]
    assert arms["solo"].mode == "solo" and arms["interactive"].mode == "interactive"
    assert arms["interactive"].max_steps == 60
    assert arms["solo"].max_steps != 60
    for arm in arms.values():
        assert (arm.domain, arm.trials, arm.seed, arm.agent.kind) == ("telecom", 4, 7, "oracle")


def test_a_seat_override_changes_only_what_it_names(tmp_path: Path) -> None:
    text = EXPERIMENT.replace(
        'agent = { kind = "oracle" }', 'agent = { kind = "llm", model = { name = "openai/gpt-4.1-mini" } }'
    ).replace("max_steps = 60", "agent = { model = { timeout_s = 5 } }")
    config = ExperimentConfig.from_file(_write(tmp_path, text))
    solo, interactive = config.arm_config("solo"), config.arm_config("interactive")
    assert interactive.agent.model is not None and solo.agent.model is not None
    assert (interactive.agent.kind, interactive.agent.model.name) == ("llm", "openai/gpt-4.1-mini")
    assert (interactive.agent.model.timeout_s, solo.agent.model.timeout_s) == (5, 120)


@pytest.mark.parametrize("setting", ["seed = 8", "trials = 2", 'task_ids = ["a"]', 'domain = "airline"'])
def test_an_arm_cannot_unpair_the_arms(tmp_path: Path, setting: str) -> None:
    path = _write(tmp_path, EXPERIMENT.replace("max_steps = 60", setting))
    with pytest.raises(
        UserInputError, match=r"exp\.toml: arms\.interactive\.\w+: must be the same in every arm"
    ):
        ExperimentConfig.from_file(path)


def test_errors_name_the_file_and_the_arm_setting(tmp_path: Path) -> None:
    path = _write(tmp_path, EXPERIMENT.replace('mode = "interactive"', 'mode = "duet"'))
    with pytest.raises(UserInputError) as error:
        ExperimentConfig.from_file(path)
    assert str(error.value).startswith(f"{path}: arms.interactive.mode:")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('baseline = "solo"', 'baseline = "nobody"'), "baseline 'nobody' is not one of the arms"),
        (('name = "interactive"', 'name = "solo"'), "arm 'solo' is named more than once"),
        (('name = "interactive"', 'name = "../up"'), "arms[1].name: String should match pattern"),
    ],
)
def test_arms_are_named_once_and_safely(tmp_path: Path, change: tuple[str, str], message: str) -> None:
    with pytest.raises(UserInputError, match=re.escape(message)):
        ExperimentConfig.from_file(_write(tmp_path, EXPERIMENT.replace(*change)))


def test_relative_paths_in_the_base_are_relative_to_the_file(tmp_path: Path) -> None:
    text = EXPERIMENT.replace('domain = "telecom"', 'domain = "telecom"\ndata_dir = "data"')
    config = ExperimentConfig.from_file(_write(tmp_path, text))
    assert config.arm_config("solo").data_dir == tmp_path / "data"


def test_the_experiment_file_round_trips(tmp_path: Path) -> None:
    config = ExperimentConfig.from_file(_write(tmp_path, EXPERIMENT))
    manifest = ExperimentManifest(created_at=datetime.now(UTC), config=config)
    (tmp_path / EXPERIMENT_FILE).write_text(manifest.model_dump_json())
    assert load_experiment(tmp_path) == manifest
    assert arm_run_dir(tmp_path, "solo") == tmp_path / "solo"


def test_a_missing_experiment_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(UserInputError, match=r"experiment\.json: no such file"):
        load_experiment(tmp_path)


def test_arms_can_compare_retrieval_configurations(tmp_path: Path) -> None:
    text = (
        EXPERIMENT.replace(
            'domain = "telecom"', 'domain = "banking_knowledge"\nretrieval = { name = "bm25", top_k = 5 }'
        )
        .replace('mode = "solo"', 'retrieval = "grep_only"')
        .replace("max_steps = 60", "")
    )
    config = ExperimentConfig.from_file(_write(tmp_path, text))
    solo, interactive = config.arm_config("solo"), config.arm_config("interactive")
    assert solo.retrieval is not None and interactive.retrieval is not None
    assert (solo.retrieval.name, solo.retrieval.top_k) == ("grep_only", 10)
    assert (interactive.retrieval.name, interactive.retrieval.top_k) == ("bm25", 5)
