"""Whatever bytes a task file holds, `tau2 verify` and `tau2 run` answer with one line and exit 2: never a
traceback, never an unexpected error, never a file written."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2.cli import app

runner = CliRunner()
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def _refused_in_one_line(arguments: list[str]) -> None:
    result = runner.invoke(app, arguments)
    assert result.exit_code == 2, result.output
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("error: "), result.stderr
    assert not result.stderr.startswith("error: unexpected ")


@settings(max_examples=60)
@given(content=st.binary(max_size=200))
def test_any_bytes_as_a_task_file(content: bytes, tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / "tasks.json"
    path.write_bytes(content)
    _refused_in_one_line(["verify", str(path)])
    _refused_in_one_line(
        ["run", "--suite", str(path), "--agent", "oracle", "--user", "scripted", "--out", str(folder / "run")]
    )
    assert sorted(item.name for item in folder.iterdir()) == ["tasks.json"]


@settings(max_examples=60)
@given(document=JSON)
def test_any_json_document_as_a_task_file(document: object, tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / "tasks.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    _refused_in_one_line(["verify", str(path)])
