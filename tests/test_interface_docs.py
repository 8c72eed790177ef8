"""The random-policy loops of the RL interface pages run as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[1] / "docs"


def first_python_block(page: str) -> str:
    match = re.search(r"```python\n(.*?)```", (DOCS / page).read_text(encoding="utf-8"), re.DOTALL)
    assert match is not None, f"{page} has no python example"
    return match.group(1)


@pytest.mark.parametrize(("page", "extra"), [("gymnasium.md", "gymnasium"), ("pettingzoo.md", "pettingzoo")])
def test_random_policy_example_runs(page: str, extra: str, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip(extra, reason=f"the {extra} extra is not installed")
    exec(compile(first_python_block(page), page, "exec"), {})
    printed = capsys.readouterr().out.split()
    assert printed[-2] in {"0.0", "1.0"}  # the loop reached the end of an episode: reward, termination
