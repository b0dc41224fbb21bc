"""OpenTelemetry spans as the SDK writes them, read as OTLP spans (``otel``).

The OpenTelemetry SDK's own JSON of a span (``ReadableSpan.to_json``: what its console exporter
prints, an indented object a span, and what tests dump from its in-memory exporter) is not
OTLP: ``{"name", "context": {"trace_id": "0x...", "span_id": "0x..."}, "kind", "parent_id",
"start_time", "end_time"`` (ISO 8601 times), ``"status": {"status_code": "ERROR",
"description"}, "attributes": {...}`` (a plain object), ``"events", "links", "resource"}``.
``sdk_span`` gives one in the shape ``otel`` reads OTLP's in, so one reader serves both: a
file of such spans (a JSON array, JSONL, or the console's indented objects one after another)
loads as a trace of OTLP spans would (its events, an ``exception``'s type and message, too).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from .otel_js import is_js_record, is_js_span, js_span
from .otel_values import WrongStatus, otlp_event
from .records import LoadProblem

__all__ = ["is_sdk_span", "sdk_span", "sdk_spans"]

_NOT_A_SPAN = "not a span as the OpenTelemetry SDK writes one (name, context, attributes)"


def is_sdk_span(value: Any) -> bool:
    """A span as the SDK's ``to_json`` writes it (its ``context`` holds the ids)."""
    if not isinstance(value, Mapping) or not isinstance(value.get("name"), str):
        return False
    context = value.get("context")
    return (
        isinstance(context, Mapping)
        and isinstance(context.get("trace_id"), str)
        and isinstance(context.get("span_id"), str)
        and "attributes" in value
        and ("start_time" in value or "parent_id" in value)
    )


def sdk_spans(
    request: Any, where: str, problems: list[LoadProblem], file: str, counted: list[str]
) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """One span as an SDK writes it (Python's, ``sdk_span``; or a JavaScript exporter's,
    ``otel_js``), or a JSON array of them, each in OTLP's shape with its place. An item of the
    array that is a JavaScript exporter's metric or log is counted in ``counted`` (R35); one that
    is no span is a problem at its place."""
    if not isinstance(request, list):
        return [(where, *(js_span(request) if is_js_span(request) else sdk_span(request)))]
    out: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    for index, span in enumerate(request):
        if is_sdk_span(span):
            out.append((f"{where}[{index}]", *sdk_span(span)))
        elif is_js_span(span):  # a JavaScript exporter's
            out.append((f"{where}[{index}]", *js_span(span)))
        elif is_js_record(span):
            counted.append(str(span["type"]))
        else:
            problems.append(LoadProblem(file, f"{where}[{index}]", "", _NOT_A_SPAN))
    return out


def sdk_span(span: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The span in OTLP's shape (ids without ``0x``, times in nanoseconds, the status as a
    code) and its attributes."""
    context = span.get("context")
    ids = context if isinstance(context, Mapping) else {}
    attributes = span.get("attributes")
    shaped: dict[str, Any] = {
        "traceId": _hex(ids.get("trace_id")),
        "spanId": _hex(ids.get("span_id")),
        "parentSpanId": _hex(span.get("parent_id")),
        "name": span.get("name"),
        "startTimeUnixNano": _nanos(span.get("start_time")),
        "endTimeUnixNano": _nanos(span.get("end_time")),
        "status": _status(span.get("status")),
        "events": [
            otlp_event(event, _nanos(event.get("timestamp")))
            for event in events
            if isinstance(event, Mapping)
        ]
        if isinstance(events := span.get("events"), list)
        else [],
    }
    return shaped, dict(attributes) if isinstance(attributes, Mapping) else {}


_STATUS_CODES = ("UNSET", "OK", "ERROR")
"""What ``to_json`` writes as ``status_code``: the ``StatusCode``'s name."""


def _status(status: Any) -> dict[str, Any]:
    """The span's status in OTLP's shape: ERROR, with its ``description``, when its
    ``status_code`` is ``"ERROR"``; a ``status_code`` of another type or value (``true``,
    ``"error"``) is a :class:`WrongStatus` (R35: a problem, the call not served)."""
    if not isinstance(status, Mapping):
        return {}  # (no object: it says nothing of the call)
    code = status.get("status_code")
    if code is not None and (type(code) is not str or code not in _STATUS_CODES):
        return {"code": WrongStatus("status.status_code", code, _SAID)}
    return {"code": "ERROR", "message": status.get("description")} if code == "ERROR" else {}


_SAID = 'the SDK writes {"status_code": "UNSET", "OK" or "ERROR"}'


def _hex(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("0x"):
        return value[2:]
    return value


def _nanos(value: Any) -> int | None:
    """An ISO 8601 time (``2025-01-01T00:00:00.123456Z``) in nanoseconds since the epoch."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    whole = int(moment.timestamp())
    nanos = whole * 1_000_000_000 + moment.microsecond * 1000
    return nanos if 0 <= nanos < 1 << 64 else None
