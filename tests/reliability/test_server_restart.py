"""A model server restarted in the middle of a run, down for a minute in the full suite (a second in the
fast one), with tau2's default retry settings: every simulation is still judged, none is an
infrastructure error. Both transports, a run and an episode."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from reliability.conftest import ReliabilityScale
from test_retry_budget import LATENCY, Provider, Restarter, seat_options
from typer.testing import CliRunner

from tau2.cli import app
from tau2.domains.mock.tasks import BOTH
from tau2.runs import load_run
from tau2.tasks import Suite
from tau2.testing import ScriptedOpenAIServer


@pytest.mark.parametrize("transport", ["native", "litellm"])
def test_a_run_and_an_episode_ride_out_a_server_restart(
    tmp_path: Path, transport: str, reliability_scale: ReliabilityScale
) -> None:
    gap_s = reliability_scale.pick(1, 60)
    suite = tmp_path / "suite.json"
    tasks = [BOTH.model_copy(update={"id": f"case-{number}"}) for number in range(4)]
    Suite(name="restart", domain="mock", tasks=tasks).save(suite)
    out = tmp_path / "run"
    run = ["run", "--suite", str(suite), "--out", str(out), "--concurrency", "4", "--quiet"]
    episode = ["episode", "--suite", str(suite), "--task-id", "case-0", "--json"]
    started = time.monotonic()
    server = ScriptedOpenAIServer(Provider(), latency=LATENCY)
    server.start()
    with Restarter(server, after=6, gap_s=gap_s) as restarter:
        ran = CliRunner().invoke(app, [*run, *seat_options(server.base_url, transport)])
        assert restarter.restarted.is_set()
    server = ScriptedOpenAIServer(Provider(), latency=LATENCY)
    server.start()
    with Restarter(server, after=2, gap_s=gap_s) as restarter:
        played = CliRunner().invoke(app, [*episode, *seat_options(server.base_url, transport)])
        assert restarter.restarted.is_set()
    took_s = time.monotonic() - started
    assert ran.exit_code == 0, ran.output
    records = load_run(out).records
    assert len(records) == len(tasks) and all(record.success for record in records)
    assert played.exit_code == 0, played.output
    assert '"termination":"user_stop"' in played.stdout.replace(" ", "")
    print(
        f"\nRELIABILITY: server restart ({transport}): down {gap_s} s mid-run and mid-episode, "
        f"{len(records)} simulations and the episode judged, 0 infrastructure errors, {took_s:.0f} s in all"
    )
