"""Paths to the repository's fixtures and vendored schemas, for every test that reads them."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository's root (the folder holding ``pyproject.toml``)."""

FIXTURES = ROOT / "fixtures"
SAMPLES = FIXTURES / "samples"
BILLING = FIXTURES / "billing-support.openwop.jsonl"
"""The synthetic billing-support OpenWOP log: 12 tool calls, one recorded error (index 3)."""
HOSTILE = SAMPLES / "hostile-payload.openwop.jsonl"
"""An OpenWOP log whose recorded text is markup and control characters (escaping tests)."""
TAU_BENCH = FIXTURES / "tau-bench"
TAU_FULL = TAU_BENCH / "tau-bench-airline-gpt-4o-tasks-0-4.json"
"""The real tau-bench airline results file (tasks 0-4; source notes in its folder)."""
TAU_DEMO = TAU_BENCH / "tau-bench-airline-task-3-trial-0.json"
OFFICIAL = ROOT / "workbench" / "schemas" / "openwop"
"""The vendored official OpenWOP schema files (byte-identical to the shared copy)."""
NOTEBOOK_DIR = ROOT / "notebooks"
