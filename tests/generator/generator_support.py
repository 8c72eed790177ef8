"""Shared constants of the generator tests."""

from __future__ import annotations

from pathlib import Path

from tau2.generator.options import GeneratorOptions, Order, PersonaAssignment

TAU2_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "tau2-telecom"
"""τ²-bench's telecom data and small task file, kept beside the checkout (absent in some environments)."""

TAU2_OPTIONS = GeneratorOptions(persona_assignment=PersonaAssignment.ROTATE, order=Order.TAU2)
"""The τ²-compatible options (used with the τ²-bench data directory, whose only target is C1001/L1002)."""
