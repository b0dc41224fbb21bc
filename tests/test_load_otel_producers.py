"""OpenTelemetry traces as other producers write them (SPEC R34-R36): Google ADK's span around
parallel calls, and Claude Code's own tool spans. The real traces these shapes come from are in
fixtures/otel/ (kagent v1.0.0-alpha9 recordings, fixtures/otel/SOURCE.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import workbench as wb
from helpers.paths import FIXTURES

TRACE = "cd" * 16


def _attr(key: str, value: Any) -> dict[str, Any]:
    kind = {bool: "boolValue", int: "intValue"}.get(type(value), "stringValue")
    return {"key": key, "value": {kind: str(value) if kind == "intValue" else value}}


def _span(
    span_id: str, name: str, start: int, parent: str | None = None, **attrs: Any
) -> dict[str, Any]:
    span: dict[str, Any] = {
        "traceId": TRACE,
        "spanId": span_id,
        "name": name,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 3_000_000),
        "attributes": [_attr(k.replace("__", "."), v) for k, v in attrs.items()],
    }
    if parent is not None:
        span["parentSpanId"] = parent
    return span


def _load(tmp_path: Path, *spans: dict[str, Any], scope: str = "gcp.vertex.agent") -> Any:
    document = {
        "resourceSpans": [
            {"resource": {}, "scopeSpans": [{"scope": {"name": scope}, "spans": list(spans)}]}
        ]
    }
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return wb.load_runs(path, strict=False)


def _adk_tool(span_id: str, start: int, parent: str, call_id: str) -> dict[str, Any]:
    return _span(
        span_id,
        "execute_tool k8s_get_resources",
        start,
        parent,
        gen_ai__operation__name="execute_tool",
        gen_ai__tool__name="k8s_get_resources",
        gen_ai__tool__call__id=call_id,
        gcp__vertex__agent__tool_call_args='{"resource_type": "pod"}',
        gcp__vertex__agent__tool_response='{"output": "ok"}',
    )


def _adk_merged(span_id: str, start: int, parent: str) -> dict[str, Any]:
    return _span(
        span_id,
        "execute_tool (merged)",
        start,
        parent,
        gen_ai__operation__name="execute_tool",
        gen_ai__tool__name="(merged tools)",
        gcp__vertex__agent__tool_call_args="N/A",
        gcp__vertex__agent__tool_response='{"content": {"parts": []}}',
    )


def test_adk_merged_tools_span_is_not_a_call(tmp_path: Path) -> None:
    """R34, R35: ADK writes ``execute_tool (merged)`` (tool ``(merged tools)``, args ``N/A``)
    around the spans of calls the model made at once (Go ADK) or beside them (ADK Python
    2.10); it is no call of its own but a counted record, in either place."""
    around = _load(
        tmp_path,
        _adk_merged("0a" * 8, 1, "09" * 8),
        _adk_tool("0b" * 8, 2, "0a" * 8, "toolu_1"),
        _adk_tool("0c" * 8, 3, "0a" * 8, "toolu_2"),
    )
    assert [b.call_id for b in around.boundaries] == ["toolu_1", "toolu_2"]
    assert around.run.metadata["records"]["span:execute_tool:merged"] == 1
    beside = _load(
        tmp_path,
        _adk_tool("0b" * 8, 2, "09" * 8, "toolu_1"),
        _adk_tool("0c" * 8, 3, "09" * 8, "toolu_2"),
        _adk_merged("0a" * 8, 4, "09" * 8),
    )
    assert [b.call_id for b in beside.boundaries] == ["toolu_1", "toolu_2"]


def test_real_go_adk_trace_counts_its_two_parallel_calls_once(tmp_path: Path) -> None:
    """The kagent Go ADK trace (fixtures/otel/SOURCE.md): two parallel calls and ADK's merged
    span around them: 2 calls, not 3."""
    result = wb.load_runs(FIXTURES / "otel" / "kagent_alpha9_adk_go_1turn.json.gz")
    assert [(b.tool, b.args) for b in result.boundaries] == [
        ("k8s_get_resources", {"resource_type": "namespace"}),
        ("k8s_get_resources", {"namespace": "kagent", "resource_type": "pod"}),
    ]
