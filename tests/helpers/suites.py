"""Small builders of suites, tasks and fixture entries that several test files use (synthetic:
written for the tests)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from workbench import Suite


def text(value: str) -> dict[str, Any]:
    """An MCP tool result holding one text block, as a fixture entry's ``response`` has it."""
    return {"content": [{"type": "text", "text": value}]}


def golden(value: Any, strategy: str = "json-match") -> dict[str, Any]:
    """A task's ``expected`` member: a golden grade matching ``value`` by ``strategy`` (R26)."""
    return {"kind": "golden", "match": {"strategy": strategy, "value": value}}


def tool_responses(suite: Suite, index: int = 0) -> list[dict[str, Any]]:
    """Task ``index``'s ``fixtures.toolResponses``: the suite's own list, not a copy.

    Strict on purpose: a task without fixtures is a ``KeyError`` here, not an empty list, so an
    assertion comparing two suites' entries cannot pass on two missing lists.
    """
    entries = suite.tasks[index]["fixtures"]["toolResponses"]
    assert isinstance(entries, list)
    return entries


def three_boundary_suite() -> Suite:
    """One task scripting a (retry once), b (abort on error), c (skip on error); answer "done".

    Every call is served ``ok`` from fixtures (``onMiss: fail``), graded golden on the answer,
    with a superset trajectory of the three calls: the hand-worked sweep of SPEC R32/R33.
    """
    steps = [
        {"tool": "a", "args": {"x": 1}, "onError": {"retry": 1}},
        {"tool": "b", "args": {}, "onError": "abort"},
        {"tool": "c", "args": {}, "onError": "skip"},
    ]
    entries = [{"tool": s["tool"], "args": s["args"], "response": text("ok")} for s in steps]
    task = {
        "taskId": "t",
        "input": {"script": steps, "answer": "done"},
        "expected": golden({"outcome": "completed", "answer": "done"}),
        "fixtures": {"toolResponses": entries, "onMiss": "fail"},
        "trajectory": {
            "expected": [{"tool": s["tool"], "args": s["args"]} for s in steps],
            "match": "superset",
        },
    }
    return Suite(
        {"suiteId": "t.x.evals.three", "version": "1.0.0", "modes": ["golden"], "tasks": [task]}
    )


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
