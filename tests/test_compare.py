"""`tau2 compare`: paired differences on shared tasks, flips, pairing by composition for persona ablations,
the factor that differs in the title, and refusing runs without shared tasks."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from fixtures.make_runs import ROAMING, RUNS_DIR, many_trials_run
from typer.testing import CliRunner

from tau2.cli import app
from tau2.episode import ActorSpec, EpisodeConfig
from tau2.errors import UserInputError
from tau2.llm import ModelSpec
from tau2.metrics import Bootstrap, PairBy
from tau2.report import SCHEMA_VERSION, ComparisonReport, auto_pair_by, build_comparison, plots
from tau2.report.factors import differing_factors, title
from tau2.report.fmt import short_id
from tau2.runs import Run, RunManifest, load_run

runner = CliRunner()
SCREEN = {"COLUMNS": "120", "LINES": "40"}


def run_path(name: str) -> str:
    return str(RUNS_DIR / name)


def compare_json(*arguments: str) -> dict[str, Any]:
    """Run `tau2 compare --json` and parse its output."""
    result = runner.invoke(app, ["compare", *arguments, "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def with_manifest(run: Run, **changes: Any) -> Run:
    """A copy of `run` whose manifest has `changes`: provenance fields, settings, or a whole `episode`."""
    manifest = run.manifest
    provenance = {name: value for name, value in changes.items() if name in RunManifest.model_fields}
    settings = {name: value for name, value in changes.items() if name not in provenance}
    if "episode" in settings:
        settings.update(dict(settings.pop("episode")), seed=settings.get("seed", manifest.seed))
    config = manifest.config.model_copy(update=settings)
    return run.model_copy(update={"manifest": manifest.model_copy(update={**provenance, "config": config})})


def test_solo_vs_interactive_terminal_comparison_fits_a_screen_and_says_what_guiding_costs() -> None:
    result = runner.invoke(app, ["compare", run_path("interactive"), run_path("solo")], env=SCREEN)
    assert result.exit_code == 0, result.output
    out = result.stdout
    lines = out.splitlines()
    assert len(lines) <= 40 and max(len(line) for line in lines) <= 120
    assert lines[0] == "Comparison: interactive vs solo"
    assert lines[1].startswith("A = interactive (run-interactive) · B = solo (run-solo) · paired by task")
    for value in ["+0.250", "+0.333", "0.625", "0.875", "A: interactive", "B: solo"]:
        assert value in out
    assert re.search(r"user +messages +1\.0 +-1\.0", out), "solo has no user: nothing on its side"
    assert re.search(r"user +tokens +550 +-550", out)
    assert re.search(r"user_stop +1\.000 +0\.000 +-1\.000", out), "how simulations end, per reason"
    assert ROAMING not in out, "flipping tasks are listed with --full only"


def test_full_terminal_comparison_lists_breakdowns_actions_and_flipping_tasks() -> None:
    result = runner.invoke(app, ["compare", run_path("interactive"), run_path("solo"), "--full"], env=SCREEN)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "interactive → solo" in out and "By fault (B − A)" in out
    assert short_id(ROAMING) in out
    assert re.search(r"toggle_airplane_mode +user +0\.625 +0\.875 +\+0\.250", out)


def test_comparison_json_schema_and_values() -> None:
    data = compare_json(run_path("interactive"), run_path("solo"))
    assert (data["schema_version"], data["kind"], data["pair_by"]) == (SCHEMA_VERSION, "comparison", "task")
    assert (data["shared"], data["only_a"], data["only_b"]) == (4, 0, 0)
    assert data["title"] == "interactive vs solo"
    assert data["factors"] == [{"name": "mode", "a": "interactive", "b": "solo"}]
    assert list(data["pass_hat_k"]) == ["1", "2", "3", "4"]
    one, four = data["pass_hat_k"]["1"], data["pass_hat_k"]["4"]
    assert set(one) == {"a", "b", "diff", "ci_low", "ci_high", "tasks", "a_low", "a_high", "b_low", "b_high"}
    assert one["a_low"] < one["a"] < one["a_high"] and one["b_low"] < one["b"] <= one["b_high"]
    assert (one["a"], one["b"], one["diff"]) == (0.625, 0.875, 0.25)
    assert one["ci_low"] <= one["diff"] <= one["ci_high"]
    assert (four["diff"], four["tasks"]) == (pytest.approx(1 / 3), 3)
    assert data["flips"] == {
        "majority": {"gained": [ROAMING], "lost": []},
        "all_trials": {"gained": [ROAMING], "lost": []},
    }
    assert set(data["breakdowns"]) == {"intent", "fault", "subtasks", "resolution", "persona", "mode"}
    assert [a["side"] for a in data["actions"]] == ["agent", "user"], "actions are grouped by seat"
    toggle = next(a for a in data["actions"] if a["name"] == "toggle_airplane_mode")
    assert (toggle["a"], toggle["b"]) == (0.625, 0.875), "per-task shares averaged over tasks"
    assert toggle["ci_low"] < toggle["diff"] < toggle["ci_high"] and toggle["tasks"] == 4
    effort = {(m["seat"], m["measure"]): m for m in data["effort"]}
    assert (effort["both", "turns"]["a"], effort["both", "turns"]["diff"]) == (6, 0)
    assert (effort["user", "messages"]["a"], effort["user", "messages"]["b"]) == (1, 0)
    assert effort["user", "cost"]["tasks"] == 0, "the user seat of A is unpriced"
    assert effort["agent", "cost"]["diff"] == pytest.approx(0.0)
    errors = effort["user", "tool errors"]
    assert errors["a"] == pytest.approx((0 + 0.5 + 1 + 0) / 4) and errors["b"] == 0
    ends = {m["measure"]: m for m in data["terminations"]}
    assert set(ends) == {"user_stop", "agent_stop", "max_steps"}
    assert (ends["user_stop"]["a"], ends["user_stop"]["b"]) == (1, 0)
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


def test_runs_without_shared_tasks_are_refused_as_such_even_when_one_would_pair_ambiguously() -> None:
    easy, hard = load_run(RUNS_DIR / "persona_easy"), load_run(RUNS_DIR / "persona_hard")
    both_personas = easy.model_copy(update={"records": [*easy.records, *hard.records]})
    disjoint = load_run(RUNS_DIR / "disjoint")
    with pytest.raises(UserInputError) as refused:
        build_comparison(both_personas, disjoint, PairBy.COMPOSITION, Bootstrap(samples=10))
    assert str(refused.value).endswith("share no tasks (pairing by composition)")


def test_comparison_html_is_self_contained_with_plots(tmp_path: Path) -> None:
    page_path = tmp_path / "compare.html"
    arguments = ["compare", run_path("interactive"), run_path("solo"), "--html", str(page_path)]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 0, result.output
    page = page_path.read_text(encoding="utf-8")
    for fetching in ['src="http', 'href="http', "<script src", "<link", "url(http"]:
        assert fetching not in page
    assert "tau2 compare: interactive vs solo" in page
    assert "A = interactive" in page and "B = solo" in page and "e1439d95d25b" not in page
    if plots.available():
        titles = re.findall(r'<figure class="plot" aria-label="([^"]*)">', page)
        assert titles[:4] == [
            "pass^k of interactive and solo (95% intervals)",
            "pass^k: solo − interactive (95% paired interval)",
            "Turns, messages, tool calls and errors per simulation: solo − interactive",
            "Reference actions performed: solo − interactive, by seat",
        ]
        assert "A: interactive" in page and "B: solo" in page, "the legend names the factor"
        assert page.count("<svg") == len(titles)
    assert "What it costs, per simulation (solo − interactive)" in page


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
    easy = with_manifest(base, persona="easy")
    hard = with_manifest(base, persona="hard")
    assert auto_pair_by(easy, hard, differing_factors(easy, hard)) is PairBy.TASK
    assert title(differing_factors(easy, hard)) == "persona easy vs hard"
    easy_text = with_manifest(easy, hashes={"persona": "sha256:e"})
    hard_text = with_manifest(hard, hashes={"persona": "sha256:h"})
    assert [f.name for f in differing_factors(easy_text, hard_text)] == ["persona"]
    same_persona_new_text = with_manifest(easy, hashes={"persona": "sha256:x"})
    assert [f.name for f in differing_factors(easy_text, same_persona_new_text)] == ["hash persona"]
    assert auto_pair_by(base, hard, differing_factors(base, hard)) is PairBy.COMPOSITION


def test_comparison_html_links_each_task_that_flips_to_its_transcripts_in_both_runs(tmp_path: Path) -> None:
    page_path = tmp_path / "compare.html"
    arguments = ["compare", run_path("interactive"), run_path("solo"), "--html", str(page_path)]
    assert runner.invoke(app, arguments).exit_code == 0
    page = page_path.read_text(encoding="utf-8")
    flips = page[page.index("<h2>Tasks that flip</h2>") : page.index('<section id="simulations">')]
    rows = re.findall(
        r"<tr><td>(\w+)</td><td>(\w+)</td><td>(.*?)</td><td>(.*?)</td><td>(.*?)</td></tr>", flips
    )
    assert [(rule, way, task.replace("<wbr>", "")) for rule, way, task, *_ in rows] == [
        ("majority", "gained", short_id(ROAMING)),
        ("all_trials", "gained", short_id(ROAMING)),
    ], "every flipping task, one row per way of counting"
    links = [
        re.findall(r'<a href="#sim-(\d+)" class="badge (\w+)">trial (\d): \w+</a>', cell)
        for cell in rows[0][3:]
    ]
    assert links == [
        [("1", "pass", "0"), ("2", "fail", "1"), ("3", "pass", "2"), ("4", "fail", "3")],
        [("5", "pass", "0"), ("6", "pass", "1"), ("7", "pass", "2"), ("8", "pass", "3")],
    ], "run A's trials of the task, then run B's, each linked to its place in the viewer"
    data = json.loads(re.findall(r'<script type="application/json" id="tau2-rows">(.*?)</script>', page)[0])
    run, task = data["fields"].index("run"), data["fields"].index("task")
    assert [(row[run], row[task]) for row in data["rows"]] == [("A", ROAMING)] * 4 + [("B", ROAMING)] * 4
    assert "<h2>Simulations of the tasks that flip</h2>" in page


def test_compare_shows_pass_hat_k_up_to_8_unless_more_is_asked_for(tmp_path: Path) -> None:
    a, b = many_trials_run(tmp_path / "a", 12, passing=3), many_trials_run(tmp_path / "b", 10, passing=5)
    assert list(compare_json(a, b)["pass_hat_k"]) == [str(k) for k in range(1, 9)]
    more = compare_json(a, b, "--max-k", "20")
    assert list(more["pass_hat_k"]) == [str(k) for k in range(1, 11)], "up to the fewer trials of the two"
    assert list(more["breakdowns"]["intent"][0]["pass_hat_k"]) == [str(k) for k in range(1, 11)]
    assert more["pass_hat_k"]["1"]["diff"] == pytest.approx(8 / 10 - 8 / 12)
