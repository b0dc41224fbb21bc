"""OpenTelemetry tool spans as three frameworks write their content (SPEC R34-R36), found by the
world round of stop 36 in real traces (the agentic-otel 0.1.0 sdist, fixtures/otel/SOURCE.md):

- Strands records a tool call's arguments and result only in its span's
  ``gen_ai.client.inference.operation.details`` events, as GenAI messages;
- pydantic-ai's own tool span (``running tool``) has no ``gen_ai.operation.name`` and keeps its
  content in ``tool_arguments`` and ``tool_response``; its messages answer a call with
  ``result``, not ``response``;
- OpenLLMetry's LangChain instrumentation records the callback's input and output, a
  serialized ``ToolMessage`` among them, not the call.

The real traces are checked against their hand counts by tests/test_real_recordings.py; these
tests check what each call serves, and the failure signals no real trace here shows, on small
SYNTHETIC traces written in the same shapes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import workbench as wb
from helpers.paths import FIXTURES

TRACE = "ab" * 16


def _attr(key: str, value: Any) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def _span(span_id: str, name: str, start: int, **attrs: Any) -> dict[str, Any]:
    return {
        "traceId": TRACE,
        "spanId": span_id,
        "name": name,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 1_000_000),
        "status": {"code": 0},
        "attributes": [_attr(k.replace("__", "."), v) for k, v in attrs.items()],
    }


def _load(tmp_path: Path, *spans: dict[str, Any]) -> wb.LoadResult:
    document = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": list(spans)}]}]}
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return wb.load_runs(path, strict=False)


def _texts(boundary: wb.ToolBoundary) -> list[str]:
    return [block["text"] for block in boundary.response["content"]]


# --- Strands: the content in span events ----------------------------------------------------


def test_strands_tool_calls_serve_the_text_their_events_record() -> None:
    """R34: each call's arguments are its event's ``tool_call`` part, and its response the text
    blocks of its ``tool_call_response`` part, what the model was sent (not "no content")."""
    loaded = wb.load_runs(FIXTURES / "otel" / "agentic-otel_framework_strands.json")
    first, second, third = loaded.boundaries
    assert [b.tool for b in loaded.boundaries] == [
        "lookup_formulary",
        "check_coverage",
        "render_decision",
    ]
    assert first.call_id == "tooluse_LCo5ejOCl3jZRXW2sHDTrR"
    assert first.args == {"drug_name": "lisinopril"}
    assert second.args == {"member_id": "MEM-001", "drug_name": "lisinopril"}
    assert json.loads(_texts(first)[0])["status"] == "covered"
    assert json.loads(_texts(third)[0])["decision"] == "APPROVED"
    assert not any(b.extra.get("contentNotRecorded") for b in loaded.boundaries)
    assert all("gen_ai.input.messages" not in b.extra for b in loaded.boundaries)


def _strands_tool(span_id: str, start: int, status: str) -> dict[str, Any]:
    span = _span(
        span_id,
        "execute_tool lookup",
        start,
        gen_ai__operation__name="execute_tool",
        gen_ai__tool__name="lookup",
        gen_ai__tool__call__id=f"call-{span_id}",
        gen_ai__tool__status=status,
    )
    call = {"type": "tool_call", "name": "lookup", "id": f"call-{span_id}", "arguments": {"q": 1}}
    answer = {"type": "tool_call_response", "id": f"call-{span_id}", "response": [{"text": "no"}]}
    span["events"] = [
        {
            "name": "gen_ai.client.inference.operation.details",
            "attributes": [
                _attr("gen_ai.input.messages", json.dumps([{"role": "tool", "parts": [call]}]))
            ],
        },
        {
            "name": "gen_ai.client.inference.operation.details",
            "attributes": [
                _attr("gen_ai.output.messages", json.dumps([{"role": "tool", "parts": [answer]}]))
            ],
        },
    ]
    return span


def test_a_strands_tool_status_error_is_a_failure(tmp_path: Path) -> None:
    """R36: Strands marks a tool that failed ``gen_ai.tool.status: error``."""
    loaded = _load(
        tmp_path, _strands_tool("a1", 1_000, "success"), _strands_tool("a2", 2_000, "error")
    )
    assert [(b.call_id, b.is_error) for b in loaded.boundaries] == [
        ("call-a1", False),
        ("call-a2", True),
    ]
    assert [_texts(b) for b in loaded.boundaries] == [["no"], ["no"]]


# --- pydantic-ai's own tool spans -----------------------------------------------------------


def test_pydantic_ai_running_tool_spans_are_calls() -> None:
    """R34: a ``running tool`` span is a call; its ``tool_response`` is what it served."""
    loaded = wb.load_runs(FIXTURES / "otel" / "agentic-otel_framework_pydantic_ai.json")
    first = loaded.boundaries[0]
    assert (first.call_id, first.tool) == ("tooluse_R0rLncFt7zANMJ7LetQfhZ", "lookup_formulary")
    assert first.args == {"ctx": {}, "drug_name": "lisinopril"}
    assert json.loads(_texts(first)[0])["status"] == "covered"
    assert "tool_response" not in first.extra and "tool_arguments" not in first.extra


def test_pydantic_ai_messages_answer_a_call_with_result(tmp_path: Path) -> None:
    """R35: with no tool span, a call the model's messages record is answered by the
    ``tool_call_response`` part's ``result`` (pydantic-ai's member), not left open."""
    call = {"type": "tool_call", "id": "c1", "name": "lookup", "arguments": {"q": 1}}
    answer = {"type": "tool_call_response", "id": "c1", "name": "lookup", "result": "found"}
    first = _span(
        "b1",
        "chat m",
        1_000,
        gen_ai__operation__name="chat",
        gen_ai__output__messages=json.dumps([{"role": "assistant", "parts": [call]}]),
    )
    sent = [
        {"role": "user", "parts": [{"type": "text", "content": "go"}]},
        {"role": "assistant", "parts": [call]},
        {"role": "user", "parts": [answer]},
    ]
    second = _span(
        "b2",
        "chat m",
        2_000,
        gen_ai__operation__name="chat",
        gen_ai__input__messages=json.dumps(sent),
    )
    loaded = _load(tmp_path, first, second)
    assert loaded.problems == ()
    (boundary,) = loaded.boundaries
    assert (boundary.call_id, boundary.args, _texts(boundary)) == ("c1", {"q": 1}, ["found"])


# --- OpenLLMetry's LangChain records ----------------------------------------------------------


def _langchain_tool(span_id: str, start: int, status: str) -> dict[str, Any]:
    given = {
        "input_str": "{'q': 1}",
        "tags": ["seq:step:1"],
        "metadata": {"langgraph_node": "tools"},
        "inputs": {"q": 1},
        "kwargs": {"color": "green", "name": None, "tool_call_id": f"toolu_{span_id}"},
    }
    message = {
        "lc": 1,
        "type": "constructor",
        "id": ["langchain", "schema", "messages", "ToolMessage"],
        "kwargs": {
            "content": "Error: not found" if status == "error" else "found",
            "type": "tool",
            "name": "lookup",
            "tool_call_id": f"toolu_{span_id}",
            "status": status,
        },
    }
    return _span(
        span_id,
        "execute_tool lookup",
        start,
        gen_ai__operation__name="execute_tool",
        gen_ai__tool__name="lookup",
        gen_ai__tool__call__arguments=json.dumps(given),
        gen_ai__tool__call__result=json.dumps({"output": message, "kwargs": {"tags": []}}),
    )


def test_langchain_records_are_read_as_the_call_the_model_made(tmp_path: Path) -> None:
    """R34, R36: the arguments are the callback's ``inputs``, the call id the ToolMessage's,
    the response its content (what the model was sent), and ``status: error`` a failure."""
    loaded = _load(
        tmp_path, _langchain_tool("c1", 1_000, "success"), _langchain_tool("c2", 2_000, "error")
    )
    assert [(b.call_id, b.args, _texts(b), b.is_error) for b in loaded.boundaries] == [
        ("toolu_c1", {"q": 1}, ["found"], False),
        ("toolu_c2", {"q": 1}, ["Error: not found"], True),
    ]


def test_the_real_langchain_trace_serves_each_tool_message_s_content() -> None:
    loaded = wb.load_runs(FIXTURES / "otel" / "agentic-otel_framework_langchain.json.gz")
    first = loaded.boundaries[0]
    assert first.call_id == "toolu_bdrk_01St7yWoRfdRM8h8UpJcBcZo"
    assert first.args == {"drug_name": "lisinopril"}
    assert json.loads(_texts(first)[0])["source"] == "formulary-db"
    assert len(loaded.runs) == 2  # the second trace holds no tool span


def test_a_langchain_record_without_a_tool_message_serves_its_output(tmp_path: Path) -> None:
    """A tool that gave text, not a ToolMessage, is recorded ``{"output": "...", "kwargs":
    {...}}``: the text is served, not the record (a review of stop 36 found the record)."""
    span = _langchain_tool("d1", 1_000, "success")
    for pair in span["attributes"]:
        if pair["key"] == "gen_ai.tool.call.result":
            pair["value"]["stringValue"] = json.dumps({"output": "covered", "kwargs": {"tags": []}})
    (boundary,) = _load(tmp_path, span).boundaries
    assert (boundary.call_id, boundary.args, _texts(boundary)) == (
        "toolu_d1",
        {"q": 1},
        ["covered"],
    )
