"""`tau2 compare`: paired differences on shared tasks, flips, pairing by composition for persona ablations,
the factor that differs in the title, and refusing runs without shared tasks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fixtures.make_runs import ROAMING, RUNS_DIR
from typer.testing import CliRunner

from tau2.cli import app
from tau2.episode import ActorSpec, EpisodeConfig
from tau2.llm import ModelSpec
from tau2.metrics import PairBy
from tau2.report import SCHEMA_VERSION, ComparisonReport, auto_pair_by
from tau2.report.factors import differing_factors, title
from tau2.runs._rundir import Run, load_run

runner = CliRunner()
WIDE = {"COLUMNS": "200"}


def run_path(name: str) -> str:
    return str(RUNS_DIR / name)


def compare_json(*arguments: str) -> dict[str, Any]:
    """Run `tau2 compare --json` and parse its output."""
    result = runner.invoke(app, ["compare", *arguments, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def with_manifest(run: Run, **changes: object) -> Run:
    """A copy of `run` whose manifest has `changes`."""
    return run.model_copy(update={"manifest": run.manifest.model_copy(update=changes)})


def test_solo_vs_interactive_terminal_comparison() -> None:
    result = runner.invoke(app, ["compare", run_path("interactive"), run_path("solo")], env=WIDE)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Comparison: interactive vs solo" in out
    assert "user" not in out.splitlines()[0], "a solo run's missing user is implied by the mode"
    for value in ["+0.250", "+0.333", "0.625", "0.875", "interactive → solo"]:
        assert value in out
    assert ROAMING in out


def test_comparison_json_schema_and_values() -> None:
    data = compare_json(run_path("interactive"), run_path("solo"))
    assert (data["schema_version"], data["kind"], data["pair_by"]) == (SCHEMA_VERSION, "comparison", "task")
    assert (data["shared"], data["only_a"], data["only_b"]) == (4, 0, 0)
    assert data["title"] == "interactive vs solo"
    assert data["factors"] == [{"name": "mode", "a": "interactive", "b": "solo"}]
    assert list(data["pass_hat_k"]) == ["1", "2", "3", "4"]
    one, four = data["pass_hat_k"]["1"], data["pass_hat_k"]["4"]
    assert set(one) == {"a", "b", "diff", "ci_low", "ci_high", "tasks"}
    assert (one["a"], one["b"], one["diff"]) == (0.625, 0.875, 0.25)
    assert one["ci_low"] <= one["diff"] <= one["ci_high"]
    assert (four["diff"], four["tasks"]) == (pytest.approx(1 / 3), 3)
    assert data["flips"] == {
        "majority": {"gained": [ROAMING], "lost": []},
        "all_trials": {"gained": [ROAMING], "lost": []},
    }
    assert set(data["breakdowns"]) == {"intent", "subtasks", "persona", "mode"}
    toggle = next(a for a in data["actions"] if a["name"] == "toggle_airplane_mode")
    assert toggle["diff"] == pytest.approx(0.875 - 0.6)
    ComparisonReport.model_validate(data)


def test_persona_runs_are_paired_by_composition_automatically() -> None:
    data = compare_json(run_path("persona_easy"), run_path("persona_hard"))
    assert data["title"] == "persona Easy vs Hard"
    assert (data["pair_by"], data["shared"]) == ("composition", 2)
    assert data["pass_hat_k"]["1"]["diff"] == -0.5
    assert data["flips"]["majority"] == {"gained": [], "lost": ["[mobile_data]airplane_mode_on"]}
    assert [g["key"] for g in data["breakdowns"]["persona"]] == ["Easy → Hard"]


def test_pairing_persona_runs_by_task_id_finds_nothing_and_refuses() -> None:
    result = runner.invoke(
        app, ["compare", run_path("persona_easy"), run_path("persona_hard"), "--pair-by", "task"]
    )
    assert result.exit_code == 2
    assert result.stderr.strip().endswith("share no tasks (pairing by task)")


def test_runs_without_shared_tasks_are_refused_on_one_line() -> None:
    result = runner.invoke(app, ["compare", run_path("interactive"), run_path("disjoint")])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.strip() == (
        f"error: {run_path('interactive')} and {run_path('disjoint')} share no tasks (pairing by task)"
    )


def test_comparison_html_is_self_contained_with_plots(tmp_path: Path) -> None:
    page_path = tmp_path / "compare.html"
    arguments = ["compare", run_path("interactive"), run_path("solo"), "--html", str(page_path)]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 0, result.output
    page = page_path.read_text(encoding="utf-8")
    for forbidden in ["http", "src=", "href=", "<script", "<link"]:
        assert forbidden not in page
    assert page.count("<svg") == 7
    assert "tau2 compare: interactive vs solo" in page
    assert "B − A with 95% paired interval" in page


def test_factors_name_what_differs() -> None:
    base = load_run(RUNS_DIR / "interactive")
    assert differing_factors(base, base) == []
    assert title([]) == "replicate (same configuration)"
    other_model = with_manifest(base, agent=ActorSpec(kind="llm", model=ModelSpec(name="gpt-4o")))
    assert title(differing_factors(base, other_model)) == "agent llm:gpt-4o-mini vs llm:gpt-4o"
    warm = ActorSpec(kind="llm", model=ModelSpec(name="gpt-4o-mini", args={"temperature": 1}))
    warmer = with_manifest(base, agent=warm)
    (factor,) = differing_factors(base, warmer)
    assert factor.name == "agent" and '"temperature": 1' in factor.b
    episode = EpisodeConfig(max_steps=5, max_errors=3, policy_variant="solo")
    many = with_manifest(base, seed=1, episode=episode, hashes={})
    assert title(differing_factors(base, many)).endswith("(+2 more)")


def test_auto_pairing_uses_task_ids_when_personas_are_overridden() -> None:
    base = load_run(RUNS_DIR / "interactive")
    easy = with_manifest(base, persona_override="easy")
    hard = with_manifest(base, persona_override="hard")
    assert auto_pair_by(easy, hard, differing_factors(easy, hard)) is PairBy.TASK
    assert title(differing_factors(easy, hard)) == "persona easy vs hard"
    easy_text = with_manifest(easy, hashes={"persona": "sha256:e"})
    hard_text = with_manifest(hard, hashes={"persona": "sha256:h"})
    assert [f.name for f in differing_factors(easy_text, hard_text)] == ["persona"]
    same_persona_new_text = with_manifest(easy, hashes={"persona": "sha256:x"})
    assert [f.name for f in differing_factors(easy_text, same_persona_new_text)] == ["hash persona"]
    assert auto_pair_by(base, hard, differing_factors(base, hard)) is PairBy.COMPOSITION
