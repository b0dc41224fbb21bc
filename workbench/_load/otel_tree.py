"""Where a span sits in its trace, for the OpenTelemetry loader (``otel``): the agent a tool
span runs for (``agent_of``) and whether it is the inner side of an MCP call traced on both
sides (``inside_its_call``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["agent_of", "inside_its_call"]


def inside_its_call(
    span: Mapping[str, Any],
    attrs: Mapping[str, Any],
    by_id: Mapping[Any, tuple[str, Mapping[str, Any], dict[str, Any]]],
) -> bool:
    """Whether an ``execute_tool`` span is the inner side of the call its parent span records:
    the MCP conventions trace one ``tools/call`` as a client span and, nested in it, the
    server's span, both ``execute_tool`` of the same tool (and JSON-RPC request id)."""
    parent_id = span.get("parentSpanId")
    parent = by_id.get(parent_id) if isinstance(parent_id, str) else None
    if parent is None:
        return False
    outer = parent[2]
    if outer.get("gen_ai.operation.name") != "execute_tool":
        return False
    name = attrs.get("gen_ai.tool.name")
    if not isinstance(name, str) or name != outer.get("gen_ai.tool.name"):
        return False
    inner_id, outer_id = attrs.get("jsonrpc.request.id"), outer.get("jsonrpc.request.id")
    return inner_id is None or outer_id is None or inner_id == outer_id


def agent_of(
    span: Mapping[str, Any],
    attrs: Mapping[str, Any],
    by_id: Mapping[Any, tuple[str, Mapping[str, Any], dict[str, Any]]],
) -> str | None:
    """The ``gen_ai.agent.name`` of the span, else of its nearest ``invoke_agent`` ancestor
    (64 levels up at most)."""
    name = attrs.get("gen_ai.agent.name")
    seen = 0
    parent = span.get("parentSpanId")
    while not isinstance(name, str) and isinstance(parent, str) and parent in by_id and seen < 64:
        _, parent_span, parent_attrs = by_id[parent]
        if parent_attrs.get("gen_ai.operation.name") == "invoke_agent":
            name = parent_attrs.get("gen_ai.agent.name")
        parent = parent_span.get("parentSpanId")
        seen += 1
    return name if isinstance(name, str) else None
