"""Conformance: every task of the public τ²-bench telecom small set verifies on its own data."""

from __future__ import annotations

from pathlib import Path

import pytest

from tau2.cli import main

CONFORMANCE = Path(__file__).resolve().parents[1].parent / "shared" / "conformance" / "tau2-telecom"


@pytest.mark.skipif(
    not (CONFORMANCE / "tasks_small.json").exists(),
    reason=f"τ²-bench conformance data not found at {CONFORMANCE}",
)
def test_tau2_telecom_small_set_verifies(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["verify", str(CONFORMANCE / "tasks_small.json"), "--data-dir", str(CONFORMANCE)])
    captured = capsys.readouterr()
    assert captured.out == "20 tasks: 20 valid, 0 invalid\n", captured.out + captured.err
    assert code == 0
