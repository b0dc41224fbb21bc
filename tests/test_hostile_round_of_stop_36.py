"""Stop 36's hostile round (SPEC R35): each input here is SYNTHETIC, a small case of what the
round found; each test says what went wrong before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.cli import run_cli

pytest.importorskip("mcp")


@pytest.mark.parametrize("tasks", [["x"], [1, 2]])
def test_serve_mcp_refuses_a_suite_whose_tasks_are_no_objects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tasks: list[object]
) -> None:
    """serve-mcp read the task's id before the suite was checked: a task that is a string or a
    number was an internal error (exit 3, AttributeError)."""
    suite = tmp_path / "x.suite.json"
    suite.write_text(
        json.dumps(
            {"suiteId": "local.x.evals.y", "version": "1.0.0", "modes": ["golden"], "tasks": tasks}
        ),
        encoding="utf-8",
    )
    code, _, err = run_cli(capsys, "serve-mcp", suite)
    assert code == 2
    assert "internal error" not in err
    assert len(err.strip().splitlines()) == 1
    assert "tasks[0]" in err or "name the one to serve" in err


def test_serve_mcp_writes_a_refusal_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A suite the host refuses was written as indented JSON (seven lines); it is one JSON
    line naming the field, as replay writes it."""
    task = {
        "taskId": "t",
        "input": {},
        "fixtures": {"toolResponses": [[]]},
        "grader": {"kind": "exact", "expected": {}},
    }
    suite = tmp_path / "x.suite.json"
    suite.write_text(
        json.dumps(
            {"suiteId": "local.x.evals.y", "version": "1.0.0", "modes": ["golden"], "tasks": [task]}
        ),
        encoding="utf-8",
    )
    code, _, err = run_cli(capsys, "serve-mcp", suite)
    assert code == 2
    (line,) = err.strip().splitlines()
    body = json.loads(line)
    assert body["error"] == "validation_error"
    assert body["details"]["field"].startswith("tasks[0]")
