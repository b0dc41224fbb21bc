"""A command imports what it needs when it needs it (issue 16: every command took ~2 s).

``workbench --help`` and ``workbench boundaries`` load neither pandas, jsonschema nor Altair;
validating commands load jsonschema but not rfc3987-syntax's grammar (1.4 s), which no
workbench schema uses, and the ``iri`` format check still works when something asks for it.
The times themselves are measured in benchmarks/startup.py, not asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "fixtures" / "samples" / "anthropic-refund.json"
HEAVY = (
    "pandas",
    "jsonschema",
    "altair",
    "vl_convert",
    "numpy",
    "rfc3987_syntax",
    # the LLM agent's clients, Dask and the MCP SDK: only the commands and options using them
    "openai",
    "anthropic",
    "httpx",
    "distributed",
    "mcp",
)


def modules_after(*argv: str) -> set[str]:
    """The top-level modules loaded by running ``workbench ARGV`` in a fresh interpreter."""
    code = (
        "import contextlib, io, json, sys\n"
        "from workbench.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main({list(argv)!r})\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
        "sys.exit(code)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.splitlines()[-1]))


@pytest.mark.parametrize(
    "argv",
    [
        ("--help",),
        ("--version",),
        ("replay", "--help"),
        ("sweep", "--help"),
        ("boundaries", str(SMALL)),
        ("boundaries", str(SMALL), "--json"),
    ],
)
def test_help_and_boundaries_load_no_heavy_library(argv: tuple[str, ...]) -> None:
    loaded = modules_after(*argv)
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_validate_loads_jsonschema_but_not_the_iri_grammar(tmp_path: Path) -> None:
    from workbench import load_runs, promote

    suite = tmp_path / "s.json"
    promote(load_runs(ROOT / "fixtures" / "billing-support.openwop.jsonl")).suite.save(suite)
    loaded = modules_after("validate", str(suite))
    assert "jsonschema" in loaded
    assert "rfc3987_syntax" not in loaded


def test_a_deferred_module_loads_on_first_use() -> None:
    """The iri checker jsonschema registered still answers; rfc3987-syntax loads then."""
    code = (
        "import sys\n"
        "import workbench._suite.schemas\n"
        "assert 'rfc3987_syntax' not in sys.modules\n"
        "from jsonschema import FormatChecker\n"
        "checker = FormatChecker()\n"
        "print(checker.conforms('http://example.com/ü', 'iri'), checker.conforms('a b', 'iri'))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    pytest.importorskip("rfc3987_syntax")
    assert proc.stdout.split() == ["True", "False"]
