"""Hypothesis properties of the coding agents' headless streams (SPEC R2, R34, R35, R40).

``claude -p --output-format stream-json`` and ``gemini -p --output-format stream-json`` print
one record a line as things happen. Sub-agents that Claude Code runs at once (parallel ``Task``
calls) write into one stream, so their records interleave in any order that keeps each agent's
own; Gemini CLI answers parallel calls in any order after they are made. Either way the same
calls must load, none lost, none invented, each with its own result, failure flag and agent,
and no problem. The streams are generated here: SYNTHETIC, in the shapes the two CLIs document
(and that ``tests/test_load_claude_subagents.py`` and ``tests/test_realworld_inputs.py`` pin).
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench as wb

TOOLS = st.sampled_from(["Bash", "Read", "Grep", "run_shell_command", "read_file"])
ARGS = st.dictionaries(
    st.sampled_from(["a", "path", "cmd"]), st.integers(0, 9) | st.text(max_size=5)
)
CALL = st.tuples(TOOLS, ARGS, st.booleans())
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
Call = tuple[str, dict[str, Any], bool]
Fact = tuple[str, str, Any, bool, str | None]


def _load(name: str, records: list[Any]) -> wb.LoadResult:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        return wb.load_runs(path, strict=False)


def _merge(streams: list[list[Any]], rng: random.Random) -> list[Any]:
    """The streams interleaved at random, each stream's own order kept."""
    left = [list(reversed(s)) for s in streams if s]
    merged: list[Any] = []
    while left:
        stream = rng.choice(left)
        merged.append(stream.pop())
        if not stream:
            left.remove(stream)
    return merged


def _claude(kind: str, content: Any, parent: str | None) -> dict[str, Any]:
    return {
        "type": kind,
        "message": {"role": kind, "content": content},
        "parent_tool_use_id": parent,
        "session_id": "s1",
    }


def _use(call_id: str, tool: str, args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": tool, "input": args}


def _answer(call_id: str, failed: bool) -> dict[str, Any]:
    text = f"out of {call_id}"
    return {"type": "tool_result", "tool_use_id": call_id, "content": text, "is_error": failed}


@SETTINGS
@given(
    st.lists(st.lists(CALL, min_size=1, max_size=4), min_size=1, max_size=4),
    st.randoms(use_true_random=False),
)
def test_claude_code_sub_agents_interleaved_in_any_order_keep_their_own_calls(
    agents: list[list[Call]], rng: random.Random
) -> None:
    """The main agent spawns every sub-agent at once (parallel ``Task`` calls, one assistant
    message), their records interleave at random, and the ``Task`` results come back after:
    each call loads once, as ``task-<its Task call>``'s, with its own failure flag."""
    tasks = [f"toolu_task{n}" for n in range(len(agents))]
    spawn = [_use(t, "Task", {"prompt": f"job {n}"}) for n, t in enumerate(tasks)]
    records: list[Any] = [
        {"type": "system", "subtype": "init", "session_id": "s1", "tools": ["Task"]},
        _claude("assistant", spawn, None),
    ]
    streams: list[list[Any]] = []
    expected: list[Fact] = [
        (t, "Task", {"prompt": f"job {n}"}, False, "main") for n, t in enumerate(tasks)
    ]
    for n, calls in enumerate(agents):
        task = tasks[n]
        stream: list[Any] = [_claude("user", [{"type": "text", "text": f"job {n}"}], task)]
        for k, (tool, args, failed) in enumerate(calls):
            call_id = f"toolu_{n}_{k}"
            stream.append(_claude("assistant", [_use(call_id, tool, args)], task))
            stream.append(_claude("user", [_answer(call_id, failed)], task))
            expected.append((call_id, tool, args, failed, f"task-{task}"))
        stream.append(_claude("assistant", [{"type": "text", "text": f"done {n}"}], task))
        streams.append(stream)
    records += _merge(streams, rng)
    answers = [_answer(t, False) for t in tasks]
    rng.shuffle(answers)
    records += [_claude("user", [a], None) for a in answers]
    records.append({"type": "result", "subtype": "success", "result": "ok", "session_id": "s1"})
    result = _load("headless.jsonl", records)
    assert result.format == "claude-code" and result.problems == ()
    got = [(b.call_id, b.tool, b.args, b.is_error, b.agent_id) for b in result.boundaries]
    assert sorted(got, key=repr) == sorted(expected, key=repr)
    assert sorted(b.index for b in result.boundaries) == list(range(len(expected)))
    for b in result.boundaries:
        assert f"out of {b.call_id}" in json.dumps(b.response)


def _gemini_use(call_id: str, tool: str, args: Any) -> dict[str, Any]:
    return {"type": "tool_use", "tool_name": tool, "tool_id": call_id, "parameters": args}


def _gemini_result(call_id: str, failed: bool) -> dict[str, Any]:
    record: dict[str, Any] = {
        "type": "tool_result",
        "tool_id": call_id,
        "status": "error" if failed else "success",
        "output": f"out of {call_id}",
    }
    if failed:
        record["error"] = {"type": "tool_error", "message": f"{call_id} failed"}
    return record


@SETTINGS
@given(
    st.lists(st.lists(CALL, min_size=1, max_size=4), min_size=1, max_size=4),
    st.randoms(use_true_random=False),
)
def test_gemini_cli_stream_parallel_calls_answered_in_any_order_keep_their_results(
    turns: list[list[Call]], rng: random.Random
) -> None:
    """Each model turn makes its calls at once and their results come back in any order,
    with the model's streamed text and CLI warnings anywhere between: each call loads once
    with its own result and status, in call order."""
    records: list[Any] = [
        {"type": "init", "session_id": "g1", "model": "gemini-2.5-pro"},
        {"type": "message", "role": "user", "content": "go"},
    ]
    expected: list[Fact] = []
    for n, calls in enumerate(turns):
        ids = [f"call_{n}_{k}" for k in range(len(calls))]
        records.append({"type": "message", "role": "assistant", "content": "ok", "delta": True})
        records += [
            _gemini_use(i, tool, args) for i, (tool, args, _) in zip(ids, calls, strict=True)
        ]
        answers: list[Any] = [
            _gemini_result(i, failed) for i, (_, _, failed) in zip(ids, calls, strict=True)
        ]
        answers.append({"type": "error", "severity": "warning", "message": "slow"})
        rng.shuffle(answers)
        records += answers
        expected += [
            (i, tool, args, failed, None)
            for i, (tool, args, failed) in zip(ids, calls, strict=True)
        ]
    records.append({"type": "result", "status": "success", "stats": {}})
    result = _load("stream.jsonl", records)
    assert result.format == "gemini-cli" and result.problems == ()
    got = [(b.call_id, b.tool, b.args, b.is_error, None) for b in result.boundaries]
    assert got == expected
    for b in result.boundaries:
        assert f"out of {b.call_id}" in json.dumps(b.response) or b.is_error
