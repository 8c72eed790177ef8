"""Streaming generation: tasks are verified a run at a time and written as they come, with the same bytes
as a generation held in memory and written whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import JsonValue

from tau2._jsonfile import write_json, write_json_items
from tau2.generator.export import make_suite, write_generation
from tau2.generator.options import GeneratorOptions, OutputFormat, PersonaAssignment, TargetMode
from tau2.generator.pipeline import generate, generate_stream
from tau2.generator.summary import summary_lines
from tau2.tasks import Domain, load_catalog_extension
from tau2.tau2bench import write_tau2_file

JSON: st.SearchStrategy[JsonValue] = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(), children, max_size=3),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None)
@given(st.lists(JSON, max_size=4))
def test_a_list_written_item_by_item_has_the_bytes_of_the_whole_list(
    tmp_path_factory: pytest.TempPathFactory, items: list[JsonValue]
) -> None:
    folder = tmp_path_factory.mktemp("items")
    write_json(folder / "whole.json", items)
    write_json_items(folder / "streamed.json", iter(items))
    assert (folder / "streamed.json").read_bytes() == (folder / "whole.json").read_bytes()


SAMPLE = GeneratorOptions(
    catalog="extended",
    persona_assignment=PersonaAssignment.ROTATE,
    max_subtasks=3,
    sample_per_bin=2,
    seed=4,
    target=TargetMode.SPREAD,
)


@pytest.mark.parametrize("output_format", list(OutputFormat))
def test_a_streamed_generation_writes_the_bytes_of_one_held_in_memory(
    telecom: Domain, tmp_path: Path, output_format: OutputFormat
) -> None:
    held = generate(telecom, SAMPLE)
    whole = tmp_path / "whole.json"
    if output_format is OutputFormat.TAU2_BENCH:
        write_tau2_file(whole, held.tasks)
    else:
        make_suite("streamed", held.domain, held, None).save(whole)
    stream = generate_stream(telecom, SAMPLE)
    streamed = tmp_path / "streamed.json"
    write_generation(streamed, output_format, stream.domain, stream, None)
    assert streamed.read_bytes() == whole.read_bytes()
    assert summary_lines(stream) == summary_lines(held)
    assert stream.tally.tasks == len(held.tasks) > 0


UNFIXED_MMS = """
name = "unfixed"
version = "1"
extends = "telecom"

[[subtask]]
name = "mms_centre_left_broken"
group = "apn_mms"
description = "Its solution only looks at the settings, so every MMS task holding it is rejected."
init = [{ side = "user", name = "break_apn_mms_setting" }]
solution = [{ side = "user", name = "check_apn_settings" }]
"""


def test_tasks_come_out_before_later_runs_are_verified(telecom: Domain, tmp_path: Path) -> None:
    path = tmp_path / "unfixed.toml"
    path.write_text(UNFIXED_MMS, encoding="utf-8")
    extension = load_catalog_extension(path, telecom)
    options = GeneratorOptions(persona_assignment=PersonaAssignment.ROTATE, max_subtasks=2)
    stream = generate_stream(telecom, options, lint=False, extensions=[extension])
    tasks = iter(stream)
    first = next(tasks)
    assert first.intent == "mobile_data_issue" and stream.tally.tasks == 1
    assert stream.rejected == [], "the MMS runs, which hold the rejected tasks, are not verified yet"
    rest = list(tasks)
    assert rest[-1].intent == "mms_issue"
    assert {rejection.reason for rejection in stream.rejected} == {
        "V5: the solution does not satisfy the intent"
    }


def test_a_stream_is_read_once(telecom: Domain) -> None:
    stream = generate_stream(telecom, GeneratorOptions(max_subtasks=1, personas=("none",)))
    assert len(list(stream)) == 21
    with pytest.raises(RuntimeError, match="only once"):
        list(stream)
