"""An MCP message log's envelope with a way no recorder writes is named, not "cannot tell the
format" (SPEC R35; ``_load/mcp``).

A stdio recorder logs each message as ``{"dir": "c2s" | "s2c", "msg": <message>}``. One
envelope of another ``dir`` on the first line made the file unrecognisable ("cannot tell the
format"), naming neither the field nor the value. It is now the log it is, with a problem at
that line's ``dir``. The log is the real ``fixtures/mcp/echo-session.jsonl`` with one value
changed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import workbench as wb
from helpers.paths import FIXTURES
from workbench.cli import main

_LOG = FIXTURES / "mcp" / "echo-session.jsonl"


def _records() -> list[dict[str, Any]]:
    return [json.loads(line) for line in _LOG.read_text().splitlines()]


@pytest.mark.parametrize("way", ["sideways", 5, None, ""])
@pytest.mark.parametrize("number", [0, 2], ids=["first-line", "a-call"])
def test_an_envelope_of_another_way_is_a_problem_at_its_dir(
    tmp_path: Path, way: Any, number: int, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: one problem at that line's ``dir``, the rest of the log loaded; exit 2 with one
    line naming the field."""
    records = _records()
    records[number]["dir"] = way
    path = tmp_path / "session.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    result = wb.load_runs(path, strict=False)
    assert result.format == "mcp"
    (problem,) = result.problems
    assert (problem.where, problem.field) == (f"line {number + 1}", "dir"), problem
    assert json.dumps(way) in problem.message
    calls = len(wb.load_runs(_LOG).boundaries)
    assert len(result.boundaries) == calls - (number == 2)  # the call's envelope is not read
    assert main(["boundaries", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "(field dir)" in err, err


def test_a_json_array_of_envelopes_names_the_item(tmp_path: Path) -> None:
    """R35: the same log saved as one JSON array is read as one too, the item named."""
    records = _records()
    records[0]["dir"] = "up"
    path = tmp_path / "session.json"
    path.write_text(json.dumps(records))
    result = wb.load_runs(path, strict=False)
    (problem,) = result.problems
    assert (result.format, problem.where, problem.field) == ("mcp", "[0]", "dir"), problem
