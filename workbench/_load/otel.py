"""OpenTelemetry GenAI spans exported as OTLP JSON, as promoted runs (SPEC R34-R36).

The file is an OTLP/JSON ``ExportTraceServiceRequest`` (``{"resourceSpans": [{"resource",
"scopeSpans": [{"scope", "spans": [...]}]}]}``), or JSONL of them (the collector's file
exporter writes one a line). A span whose ``gen_ai.operation.name`` is ``execute_tool`` is a
tool call and its result in one: tool ``gen_ai.tool.name``, call id ``gen_ai.tool.call.id``
(else the span id), args ``gen_ai.tool.call.arguments`` (JSON text decoded), result
``gen_ai.tool.call.result``, duration from the span's start and end. It failed when it has an
``error.type`` attribute (the boundary's ``error_code``) or its status code is ERROR (``2`` or
``"STATUS_CODE_ERROR"``; ``status.message`` is the error text). The agent is the
``gen_ai.agent.name`` of the span or of its nearest ``invoke_agent`` ancestor.

Spans are grouped into runs by ``traceId`` (in order of first appearance) and ordered by start
time. Other spans (``chat``, ``invoke_agent``, HTTP, ...) are counted as non-tool records (R35).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from .._common.toolresult import text_content
from .common import RecordTally, json_args
from .pairing import CallPairer
from .records import LoadProblem, PromotedRun

__all__ = ["load_otel", "sniff_otel"]

_ERROR_CODES = (2, "2", "STATUS_CODE_ERROR", "ERROR")


def sniff_otel(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("resourceSpans"), list)


def _value(value: Any) -> Any:
    """An OTLP ``AnyValue`` as plain JSON."""
    if not isinstance(value, dict):
        return None
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        raw = value["intValue"]
        try:
            return int(raw)
        except (TypeError, ValueError):
            return raw
    if "arrayValue" in value:
        items = value["arrayValue"].get("values") if isinstance(value["arrayValue"], dict) else []
        return [_value(v) for v in items] if isinstance(items, list) else []
    if "kvlistValue" in value:
        kv = value["kvlistValue"]
        return _attributes(kv.get("values") if isinstance(kv, dict) else [])
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


_READ_ATTRIBUTES = frozenset(
    {
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        "gen_ai.tool.call.arguments",
        "gen_ai.tool.call.result",
        "gen_ai.operation.name",
        "error.type",
    }
)
"""Span attributes read into the boundary; the others are kept in its ``extra``."""


def _attributes(items: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items if isinstance(items, list) else []:
        if type(item) is dict:
            key = item.get("key")
            if type(key) is str:
                out[key] = _value(item.get("value"))
        elif isinstance(item, dict) and isinstance(item.get("key"), str):
            out[item["key"]] = _value(item.get("value"))
    return out


def _nanos(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def load_otel(
    docs: Sequence[tuple[str, Any]], file: str
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """Runs from OTLP requests ``(where, request)`` (one for a JSON file, one a line for JSONL)."""
    problems: list[LoadProblem] = []
    spans: list[tuple[str, Mapping[str, Any], dict[str, Any]]] = []
    for where, request in docs:
        resources = request.get("resourceSpans") if isinstance(request, dict) else None
        if not isinstance(resources, list):
            problems.append(LoadProblem(file, where, "resourceSpans", "missing or not a list"))
            continue
        for r_index, resource in enumerate(resources):
            scopes = resource.get("scopeSpans") if isinstance(resource, dict) else None
            for s_index, scope in enumerate(scopes if isinstance(scopes, list) else []):
                found = scope.get("spans") if isinstance(scope, dict) else None
                for p_index, span in enumerate(found if isinstance(found, list) else []):
                    place = (
                        f"{where}, resourceSpans[{r_index}].scopeSpans[{s_index}].spans[{p_index}]"
                    )
                    if not isinstance(span, dict):
                        problems.append(LoadProblem(file, place, "", "a span must be an object"))
                        continue
                    spans.append((place, span, _attributes(span.get("attributes"))))
    traces: dict[str, list[tuple[str, Mapping[str, Any], dict[str, Any]]]] = {}
    for entry in spans:
        trace = entry[1].get("traceId")
        traces.setdefault(trace if isinstance(trace, str) else "", []).append(entry)
    runs: list[PromotedRun] = []
    for number, (trace, entries) in enumerate(traces.items()):
        run, found = _trace(trace, entries, file, number, len(traces))
        runs.append(run)
        problems.extend(found)
    return runs, problems


def _trace(
    trace: str,
    entries: list[tuple[str, Mapping[str, Any], dict[str, Any]]],
    file: str,
    number: int,
    total: int,
) -> tuple[PromotedRun, list[LoadProblem]]:
    pairer = CallPairer(file)
    tally = RecordTally()
    by_id = {e[1].get("spanId"): e for e in entries if isinstance(e[1].get("spanId"), str)}
    ordered = sorted(
        enumerate(entries),
        key=lambda pair: (_nanos(pair[1][1].get("startTimeUnixNano")) or 0, pair[0]),
    )
    for _, (where, span, attrs) in ordered:
        operation = attrs.get("gen_ai.operation.name")
        tally.add(f"span:{operation}" if isinstance(operation, str) else "span")
        if operation != "execute_tool":
            continue
        name = attrs.get("gen_ai.tool.name")
        if not isinstance(name, str) or not name:
            span_name = span.get("name")
            name = (
                span_name[len("execute_tool ") :]
                if isinstance(span_name, str) and span_name.startswith("execute_tool ")
                else None
            )
        if not isinstance(name, str) or not name:
            pairer.problem(where, "attributes.gen_ai.tool.name", "missing or not a string")
            continue
        raw_id = attrs.get("gen_ai.tool.call.id")
        call_id = raw_id if isinstance(raw_id, str) and raw_id else str(span.get("spanId") or where)
        args = json_args(attrs.get("gen_ai.tool.call.arguments"))
        agent = _agent(span, attrs, by_id)
        extra = {k: v for k, v in attrs.items() if k not in _READ_ATTRIBUTES}
        extra["spanId"] = span.get("spanId")
        pairer.call(
            call_id,
            name,
            args,
            where=where,
            field_name="attributes.gen_ai.tool.call.id",
            agent_id=agent,
            extra=extra,
        )
        raw_status = span.get("status")
        status: Mapping[str, Any] = raw_status if isinstance(raw_status, dict) else {}
        error_type = attrs.get("error.type")
        failed = error_type is not None or status.get("code") in _ERROR_CODES
        result = attrs.get("gen_ai.tool.call.result")
        if isinstance(result, str):
            response: Any = {"content": text_content(result)}
        elif result is None:
            response = {"content": []}
        else:
            response = {"content": text_content(json.dumps(result, ensure_ascii=False))}
        message = status.get("message") if isinstance(status.get("message"), str) else None
        start, end = _nanos(span.get("startTimeUnixNano")), _nanos(span.get("endTimeUnixNano"))
        pairer.result(
            call_id,
            response,
            failed,
            where=where,
            field_name="attributes.error.type",
            error_code=str(error_type) if error_type is not None else None,
            error_message=(
                message
                or (result if isinstance(result, str) else None)
                or str(error_type or "tool call failed")
            )
            if failed
            else None,
            duration_ms=(end - start) // 1_000_000
            if start is not None and end is not None
            else None,
        )
    boundaries = pairer.finish()
    key = f"trace-{trace[:12]}" if trace else f"trace-{number}"
    run = PromotedRun(
        run_id=trace or key,
        boundaries=boundaries,
        source=file,
        format="otel",
        task_key=key if total > 1 else "trace",
        metadata={"traceId": trace, **tally.to_metadata()},
    )
    return run, pairer.problems


def _agent(
    span: Mapping[str, Any],
    attrs: Mapping[str, Any],
    by_id: Mapping[Any, tuple[str, Mapping[str, Any], dict[str, Any]]],
) -> str | None:
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
