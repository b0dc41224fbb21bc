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


def _claude_tool(span_id: str, start: int, call_id: str, tool: str, **more: Any) -> dict[str, Any]:
    span = _span(
        span_id,
        "claude_code.tool",
        start,
        "0f" * 8,
        span__type="tool",
        tool_name=tool,
        tool_use_id=call_id,
        gen_ai__tool__call__id=call_id,
        **more,
    )
    span["events"] = [
        {"name": "tool.output", "attributes": [_attr("output", f"{tool} said hello")]}
    ]
    return span


def _claude_execution(span_id: str, start: int, parent: str, **attrs: Any) -> dict[str, Any]:
    span = _span(span_id, "claude_code.tool.execution", start + 1, parent, **attrs)
    if attrs.get("success") is False:
        span["status"] = {"code": 2, "message": "Shell command failed"}
    return span


def test_claude_code_tool_spans_are_calls_and_their_execution_says_how_they_ran(
    tmp_path: Path,
) -> None:
    """R34-R36: Claude Code's own spans name no GenAI operation; a ``claude_code.tool`` span is
    a call (``tool_name``, ``tool_use_id``, the ``tool.output`` event its result), its child
    ``claude_code.tool.execution`` says whether it failed (``error``, ``error_class``), a
    sub-agent's call carries its ``agent_id``, and a non-boolean ``success`` is a problem."""
    scope = "com.anthropic.claude_code.tracing"
    spans = [
        _claude_tool("01" * 8, 10, "toolu_a", "Bash", full_command="kubectl get ns"),
        _claude_execution(
            "02" * 8,
            10,
            "01" * 8,
            success=False,
            error="Shell command failed",
            error_class="ShellError",
        ),
        _claude_tool("03" * 8, 20, "toolu_b", "Read", agent_id="a7bea65c"),
        _claude_execution("04" * 8, 20, "03" * 8, success=True),
        _claude_tool("05" * 8, 30, "toolu_c", "Bash"),
        _claude_execution("06" * 8, 30, "05" * 8, success="no"),
    ]
    result = _load(tmp_path, *spans, scope=scope)
    assert [
        (b.call_id, b.tool, b.is_error, b.error_code, b.error_message, b.agent_id)
        for b in result.boundaries
    ] == [
        ("toolu_a", "Bash", True, "ShellError", "Shell command failed", None),
        ("toolu_b", "Read", False, None, None, "agent-a7bea65c"),
    ]
    assert result.boundaries[0].response == {
        "content": [{"type": "text", "text": "Bash said hello"}]
    }
    assert result.boundaries[0].extra["full_command"] == "kubectl get ns"
    assert [p.field for p in result.problems] == ["attributes.success"]
    # a collector that adds gen_ai.operation.name leaves the failure on the child span
    for span in spans:
        if span["name"] == "claude_code.tool":
            span["attributes"].append(_attr("gen_ai.operation.name", "execute_tool"))
    again = _load(tmp_path, *spans, scope=scope)
    assert [(b.call_id, b.is_error) for b in again.boundaries] == [
        ("toolu_a", True),
        ("toolu_b", False),
    ]


def test_claude_code_tool_span_edge_cases_name_their_own_fields(tmp_path: Path) -> None:
    """R35 (review of 2a80d68): a ``claude_code.tool`` span with no ``tool_name`` is a problem
    naming that attribute; a non-string ``agent_id`` is a problem and the call is still read;
    of two execution children, one that failed fails the call, whichever comes first."""
    scope = "com.anthropic.claude_code.tracing"
    nameless = _claude_tool("01" * 8, 10, "toolu_a", "Bash")
    nameless["attributes"] = [a for a in nameless["attributes"] if a["key"] != "tool_name"]
    spans = [
        nameless,
        _claude_tool("03" * 8, 20, "toolu_b", "Read", agent_id=7),
        _claude_tool("05" * 8, 30, "toolu_c", "Bash"),
        _claude_execution("06" * 8, 30, "05" * 8, success=True),
        _claude_execution("07" * 8, 31, "05" * 8, success=False, error="second try failed"),
    ]
    result = _load(tmp_path, *spans, scope=scope)
    assert [(b.call_id, b.is_error, b.error_message) for b in result.boundaries] == [
        ("toolu_b", False, None),
        ("toolu_c", True, "second try failed"),
    ]
    assert [p.field for p in result.problems] == ["attributes.tool_name", "attributes.agent_id"]


def test_real_claude_code_traces_load_every_call_and_failure() -> None:
    """The kagent Claude harness traces (fixtures/otel/SOURCE.md): Claude Code's own spans with a
    sub-agent (27 calls, 6 failed; once "no tool call found"), and the same spans after the
    collector recipe added execute_tool (10 calls, 3 failed; once 0 failed)."""
    native = wb.load_runs(FIXTURES / "otel" / "kagent_alpha9_claude_native_1turn_subagent.json.gz")
    assert (len(native.boundaries), sum(b.is_error for b in native.boundaries)) == (27, 6)
    assert sum(b.agent_id == "agent-a7bea65c412e08285" for b in native.boundaries) == 22
    recipe = wb.load_runs(FIXTURES / "otel" / "kagent_alpha9_claude_recipe_2turn.json.gz")
    assert [b.tool for b in recipe.boundaries if b.is_error] == ["Bash", "Bash", "Bash"]
    assert len(recipe.boundaries) == 10
