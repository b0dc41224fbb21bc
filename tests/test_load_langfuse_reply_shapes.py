"""Langfuse GENERATIONs whose output is one Chat Completions choice (the OpenTelemetry
``gen_ai.choice`` event's body) or a serialized LangChain AI message are replies like any other
(SPEC R34, R35, R36): their calls are read, and a trace with none says it holds no call."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import workbench as wb
from helpers.paths import FIXTURES

PYDANTIC_AI = FIXTURES / "langfuse" / "pydantic-ai-2025-06-06.trace.json"


def test_a_real_trace_whose_output_is_a_choice_says_it_holds_no_call() -> None:
    """R35: the real pydantic-ai trace (one GENERATION, its output ``{"index": 0, "message":
    {...}}``, no tool) was refused as "not a model's reply"; it is a reply, and the file is
    refused for what it holds: no tool call."""
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(PYDANTIC_AI)
    message = str(refused.value)
    assert "no tool call found" in message and "not a model's reply" not in message
    result = wb.load_runs(PYDANTIC_AI, strict=False)
    (run,) = result.runs
    assert run.metadata["records"] == {"observation:GENERATION": 1, "observation:SPAN": 2}
    assert [str(p) for p in result.problems if "not a model's reply" in str(p)] == []


def _generation(n: int, sent: Any, said: Any) -> dict[str, Any]:
    return {
        "id": f"obs-{n}",
        "traceId": "t1",
        "type": "GENERATION",
        "name": "chat gpt-4o",
        "startTime": f"2026-01-01T00:00:{n:02d}.000Z",
        "endTime": f"2026-01-01T00:00:{n:02d}.500Z",
        "level": "DEFAULT",
        "input": json.dumps(sent),
        "output": json.dumps(said),
    }


def test_calls_in_a_choice_and_in_a_langchain_message_are_read_and_answered(
    tmp_path: Path,
) -> None:
    """R34, R36 (SYNTHETIC shapes): a call in a choice, answered by an error, and a call in a
    LangChain ``AIMessageChunk``, answered by a result, are two calls, the first failed by the
    error rule."""
    first = [{"role": "user", "content": "Read the README."}]
    call = {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    choice = {
        "index": 0,
        "finish_reason": "tool_calls",
        "message": {"role": "assistant", "content": None, "tool_calls": [call]},
    }
    second = [
        *first,
        choice["message"],
        {"role": "tool", "tool_call_id": "c1", "content": "Error: no"},
    ]
    chunk = {
        "type": "AIMessageChunk",
        "content": "",
        "tool_calls": [{"name": "ls", "args": {"path": "."}, "id": "c2", "type": "tool_call"}],
        "additional_kwargs": {},
    }
    asked = {"role": "assistant", "content": "", "tool_calls": [
        {"id": "c2", "type": "function", "function": {"name": "ls", "arguments": '{"path": "."}'}}
    ]}  # fmt: skip
    third = [*second, asked, {"role": "tool", "tool_call_id": "c2", "content": "README.md"}]
    observations = [
        _generation(0, first, choice),
        _generation(1, second, chunk),
        _generation(2, third, {"type": "ai", "content": "It says no.", "tool_calls": []}),
    ]
    path = tmp_path / "trace.json"
    path.write_text(
        json.dumps({"trace": {"id": "t1", "name": "run"}, "observations": observations})
    )
    result = wb.load_runs(path)
    assert result.format == "langfuse"
    assert [(b.call_id, b.tool, b.args, b.is_error) for b in result.boundaries] == [
        ("c1", "read", {}, True),
        ("c2", "ls", {"path": "."}, False),
    ]
    assert result.runs[0].answer == "It says no."


def test_tool_definitions_listed_as_tool_messages_are_the_requests_tools(tmp_path: Path) -> None:
    """R34, R35 (SYNTHETIC, the shape of langfuse/langfuse's seeder trace
    ``google-vertex-tools-langchain-2025-09-19.json``): LangChain's Langfuse handler lists the
    offered tools among the input messages as ``role: tool`` messages holding a function
    definition and no ``tool_call_id``. They were read as results with no call id (the trace
    refused); they are the request's tools, and the call after them loads."""
    weather = {"name": "get_weather", "parameters": {"type": "object", "properties": {}}}
    definition = {"role": "tool", "content": {"type": "function", "function": weather}}
    first = [
        {"role": "system", "content": "Be brief."},
        definition,
        {"role": "user", "content": "Rome?"},
    ]
    call = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
    asked = {"role": "assistant", "content": None, "tool_calls": [call]}
    second = [*first, asked, {"role": "tool", "tool_call_id": "c1", "content": "sunny"}]
    observations = [
        _generation(0, first, asked),
        _generation(1, second, {"role": "assistant", "content": "Sunny."}),
    ]
    path = tmp_path / "trace.json"
    path.write_text(
        json.dumps({"trace": {"id": "t1", "name": "run"}, "observations": observations})
    )
    result = wb.load_runs(path)
    assert [(b.call_id, b.tool, b.is_error) for b in result.boundaries] == [
        ("c1", "get_weather", False)
    ]
    conversation = result.runs[0].conversation
    assert conversation is not None and not conversation.tools_inferred
    assert [t["name"] for t in conversation.tools] == ["get_weather"]
    assert [m["role"] for m in conversation.messages].count("tool") == 1


def test_a_langchain_messages_invalid_tool_calls_are_calls_not_lost(tmp_path: Path) -> None:
    """R34, R35 (SYNTHETIC, LangChain's ``AIMessage`` shape): a call whose arguments did not
    parse is kept in ``invalid_tool_calls``, ``args`` its text. The last reply of a trace made
    one, and it vanished: no boundary, no problem. It is a call like the others, here never
    answered (a problem naming it); answered in the next request, it is a boundary."""
    first = [{"role": "user", "content": "Clean up."}]
    invalid = {"name": "rm", "args": '{"path": ', "id": "c9", "error": None}
    reply = {"type": "ai", "content": "", "tool_calls": [], "invalid_tool_calls": [invalid]}
    path = tmp_path / "trace.json"
    observations = [_generation(0, first, reply)]
    trace = {"trace": {"id": "t1", "name": "run"}, "observations": observations}
    path.write_text(json.dumps(trace))
    result = wb.load_runs(path, strict=False)
    assert [(p.where, p.message) for p in result.problems] == [
        ("observations[0] output, tool call 0", "call 'c9' to 'rm' is never answered")
    ]
    sent = {"id": "c9", "type": "function", "function": {"name": "rm", "arguments": '{"path": '}}
    second = [
        *first,
        {"role": "assistant", "content": "", "tool_calls": [sent]},
        {"role": "tool", "tool_call_id": "c9", "content": "Error: invalid JSON"},
    ]
    observations.append(_generation(1, second, {"type": "ai", "content": "Sorry."}))
    path.write_text(json.dumps(trace))
    (call,) = wb.load_runs(path).boundaries
    assert (call.call_id, call.tool, call.args, call.is_error) == ("c9", "rm", '{"path": ', True)


def test_a_request_whose_tools_are_no_list_is_a_problem_not_dropped(tmp_path: Path) -> None:
    """R35 (SYNTHETIC): a GENERATION's request whose ``tools`` is an object, not the list every
    chat API sends, had it dropped unread when LangChain's definitions were moved there; it
    is a problem naming the GENERATION and field."""
    weather = {"name": "get_weather", "parameters": {"type": "object", "properties": {}}}
    definition = {"role": "tool", "content": {"type": "function", "function": weather}}
    first = [definition, {"role": "user", "content": "Rome?"}]
    call = {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
    asked = {"role": "assistant", "content": None, "tool_calls": [call]}
    tools = {"type": "function", "function": {"name": "other"}}
    observations = [_generation(0, {"messages": first, "tools": tools}, asked)]
    path = tmp_path / "trace.json"
    path.write_text(json.dumps({"trace": {"id": "t1"}, "observations": observations}))
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path)
    (problem,) = refused.value.problems
    assert (problem.where, problem.field) == ("observations[0]", "input.tools"), problem
