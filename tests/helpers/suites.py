"""Hand-built scripted suites for sweep and recovery tests (synthetic: written for the tests)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from workbench import Suite


def ok(text: str = "ok") -> dict[str, Any]:
    """An MCP text response."""
    return {"content": [{"type": "text", "text": text}]}


def entry(tool: str, args: Any = None, *, error: bool = False, text: str = "ok") -> dict[str, Any]:
    """A fixture entry (``isError`` only when it fails, as promotion writes it)."""
    found: dict[str, Any] = {"tool": tool, "args": args if args is not None else {}}
    if error:
        found["isError"] = True
    found["response"] = ok(text)
    return found


def scripted_task(
    task_id: str,
    steps: Sequence[Mapping[str, Any]],
    entries: Sequence[Mapping[str, Any]],
    *,
    answer: Any = "done",
    trajectory: str | None = "superset",
) -> dict[str, Any]:
    """A task the scripted agent runs: ``steps`` as its script, ``entries`` as its fixtures; the
    golden expectation is a completed run with ``answer``; the expected trajectory (when
    ``trajectory`` is a mode) is the script's calls."""
    task: dict[str, Any] = {
        "taskId": task_id,
        "input": {"script": [dict(s) for s in steps], "answer": answer},
        "expected": {
            "kind": "golden",
            "match": {
                "strategy": "json-match",
                "value": {"outcome": "completed", "answer": answer},
            },
        },
        "fixtures": {"toolResponses": [dict(e) for e in entries], "onMiss": "fail"},
    }
    if trajectory is not None:
        task["trajectory"] = {
            "expected": [{"tool": s["tool"], "args": s.get("args", {})} for s in steps],
            "match": trajectory,
        }
    return task


def suite_of(*tasks: Mapping[str, Any], suite_id: str = "t.x.evals.hand") -> Suite:
    """A suite of the tasks given."""
    return Suite(
        {"suiteId": suite_id, "version": "1.0.0", "modes": ["golden"], "tasks": list(tasks)}
    )
