"""Small builders of suites, tasks and fixture entries that several test files use."""

from __future__ import annotations

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
