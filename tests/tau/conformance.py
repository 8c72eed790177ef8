"""Shared helpers of the airline/retail conformance tests: where τ²-bench's public data is, and how a
tool result compares with the reference's recorded one."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tau2 import ToolResult

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "conformance"


def conformance_dir(domain: str) -> Path:
    """`../shared/conformance/tau2-<domain>` beside the repository; skip when absent (fail on CI)."""
    directory = SHARED / f"tau2-{domain}"
    if not directory.is_dir():
        if os.environ.get("CI") == "true":
            pytest.fail(f"conformance data missing: {directory}")
        pytest.skip(f"conformance data not present at {directory}")
    return directory


def reference_content(result: ToolResult) -> tuple[bool, Any]:
    """Our result as τ²-bench records it: (error flag, content), text parsed as JSON when it is JSON."""
    if result.error is not None:
        return True, f"Error: {result.error.message}"
    content = result.content
    if isinstance(content, str):
        try:
            return False, json.loads(content)
        except ValueError:
            return False, content
    return False, content
