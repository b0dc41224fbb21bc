"""Where a span sits in its trace, for the OpenTelemetry loader (``otel``): the agent a tool
span runs for (``agent_of``), whether it is the inner side of an MCP call traced on both
sides (``inside_its_call``), and each span once (``once``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .common import RecordTally
from .pairing import CallPairer

__all__ = ["agent_of", "inside_its_call", "once"]

Entry = tuple[str, Mapping[str, Any], dict[str, Any]]
"""A span read: its place, the span, its attributes."""


def once(entries: list[Entry], tally: RecordTally, pairer: CallPairer) -> list[Entry]:
    """The trace's spans, each once: a span exported twice (an exporter's retry, files put
    together: the same span again) is counted as ``span:repeated``, not read as a second call
    (R2); a span exported when it began and again when it ended (the first copy with no end)
    is read from its ended copy, counted as ``span:updated``; another span given the same id
    is a problem at its place, not read (R35)."""
    first: dict[str, int] = {}  # span id -> its place in ``out``
    out: list[Entry] = []
    for entry in entries:
        span_id = entry[1].get("spanId")
        if isinstance(span_id, str) and span_id:
            at = first.get(span_id)
            if at is not None:
                known = out[at]
                if known[1] == entry[1] and known[2] == entry[2]:
                    tally.add("span:repeated")
                elif _ended(entry[1]) and not _ended(known[1]):
                    out[at] = entry  # the ended copy of a span first exported unfinished
                    tally.add("span:updated")
                else:
                    pairer.problem(
                        entry[0], "spanId", f"span id {span_id!r} is {known[0]}'s too: not read"
                    )
                continue
            first[span_id] = len(out)
        out.append(entry)
    return out


def _ended(span: Mapping[str, Any]) -> bool:
    end = span.get("endTimeUnixNano")
    return end not in (None, "", 0, "0")


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
