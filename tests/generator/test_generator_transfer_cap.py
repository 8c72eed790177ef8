"""Capping the share of transfer tasks per (intent, #subtasks, persona) bin, so that transfers do not
dominate a suite drawn from a pool where most compositions hold an unfixable fault."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from math import floor
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from tau2.cli import app
from tau2.generator.assign import Draft
from tau2.generator.compose import Composition
from tau2.generator.sampling import bin_key, capped_sample
from tau2.personas import load_personas
from tau2.tasks import load_suite

runner = CliRunner()
PERSONAS = load_personas(["none", "easy"])


@st.composite
def pools(draw: st.DrawFn) -> tuple[list[Draft], set[int]]:
    """Drafts in a few bins, some of them transfers (by index)."""
    drafts, transfers = [], set()
    for number in range(draw(st.integers(0, 40))):
        size = draw(st.integers(1, 3))
        composition = Composition(
            draw(st.sampled_from(["a", "b"])), tuple(f"s{number}_{i}" for i in range(size))
        )
        drafts.append(Draft(composition, draw(st.sampled_from(PERSONAS))))
        if draw(st.booleans()):
            transfers.add(number)
    return drafts, transfers


@given(pools(), st.one_of(st.none(), st.integers(1, 6)), st.sampled_from([0.0, 0.25, 1 / 3, 0.5, 0.9, 1.0]))
def test_each_bin_keeps_at_most_its_share_of_transfers(
    pool: tuple[list[Draft], set[int]], per_bin: int | None, share: float
) -> None:
    drafts, transfer_numbers = pool
    transfers = {id(drafts[number]) for number in transfer_numbers}

    def is_transfer(draft: Draft) -> bool:
        return id(draft) in transfers

    kept = capped_sample(drafts, per_bin, 7, is_transfer, share)
    assert kept == capped_sample(drafts, per_bin, 7, is_transfer, share), "the seed decides"
    position = {id(draft): index for index, draft in enumerate(drafts)}
    keys = list(dict.fromkeys(bin_key(draft) for draft in kept))
    assert [bin_key(draft) for draft in kept] == sorted(map(bin_key, kept), key=keys.index), "bin by bin"
    for key in keys:
        order = [position[id(draft)] for draft in kept if bin_key(draft) == key]
        assert order == sorted(order), "pool order within a bin"
    for key, count in Counter(bin_key(draft) for draft in kept).items():
        members = [draft for draft in drafts if bin_key(draft) == key]
        chosen = [draft for draft in kept if bin_key(draft) == key]
        assert count <= (per_bin or len(members))
        assert sum(map(is_transfer, chosen)) <= share * count + 1e-9
    cap = Fraction(share).limit_denominator(10**6)
    for key in {bin_key(draft) for draft in drafts}:
        members = [draft for draft in drafts if bin_key(draft) == key]
        size = min(per_bin or len(members), len(members))
        fixable = sum(not is_transfer(draft) for draft in members)
        chosen = [draft for draft in kept if bin_key(draft) == key]
        assert sum(not is_transfer(draft) for draft in chosen) >= min(fixable, size - floor(cap * size))
        if share == 1.0:
            assert len(chosen) == size, "no cap: as many as a plain stratified sample"


def test_the_cli_caps_transfers_and_records_the_cap(tmp_path: Path) -> None:
    output = tmp_path / "suite.json"
    arguments = ["--catalog", "extended", "--intents", "mobile_data_issue", "--personas", "none", "--no-lint"]
    arguments += ["--min-subtasks", "2", "--sample-per-bin", "4", "--seed", "2"]
    result = runner.invoke(app, ["generate", *arguments, "--max-transfer-share", "0.25", "-o", str(output)])
    assert result.exit_code == 0, result.output
    suite = load_suite(output)
    assert suite.generator["max_transfer_share"] == 0.25
    bins: dict[tuple[object, ...], list[bool]] = {}
    for task in suite.tasks:
        bins.setdefault((task.intent, task.num_subtasks, task.persona), []).append(
            task.evaluation.expects_transfer
        )
    assert all(sum(flags) <= 0.25 * len(flags) for flags in bins.values())
    assert sum(len(flags) for flags in bins.values()) == len(suite.tasks) > 0
    uncapped = tmp_path / "uncapped.json"
    result = runner.invoke(app, ["generate", *arguments, "--max-transfer-share", "1", "-o", str(uncapped)])
    assert result.exit_code == 0, result.output
    share = Counter(task.evaluation.expects_transfer for task in load_suite(uncapped).tasks)
    assert share[True] > share[False], "without the cap, transfers dominate the extended pool"


def test_the_extended_catalog_caps_transfers_by_default_and_records_its_share(tmp_path: Path) -> None:
    output = tmp_path / "suite.json"
    arguments = ["--catalog", "extended", "--intents", "mobile_data_issue", "--personas", "none", "--no-lint"]
    arguments += ["--min-subtasks", "2", "--sample-per-bin", "4", "--seed", "2", "-o", str(output)]
    result = runner.invoke(app, ["generate", *arguments])
    assert result.exit_code == 0, result.output
    suite = load_suite(output)
    assert suite.generator["max_transfer_share"] == 0.35
    share = Counter(task.evaluation.expects_transfer for task in suite.tasks)
    assert 0 < share[True] <= 0.35 * len(suite.tasks)


def test_a_share_outside_zero_to_one_is_refused(tmp_path: Path) -> None:
    result = runner.invoke(app, ["generate", "--max-transfer-share", "1.5", "-o", str(tmp_path / "out.json")])
    assert result.exit_code == 2
    assert result.output == "error: --max-transfer-share: Input should be less than or equal to 1\n"
