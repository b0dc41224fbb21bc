"""Jaeger's JSON export read as OTLP spans, for the OpenTelemetry loader (``otel``).

Jaeger's UI and API give a trace as ``{"data": [{"traceID", "spans": [{"spanID",
"operationName", "references", "startTime", "duration", "tags"}]}]}``: its tags are the span's
attributes, its ``CHILD_OF`` reference the parent, ``otel.status_code`` and ``error`` the
status (``_status``), times in microseconds; one trace out of ``data`` (``{"traceID", "spans",
"processes"}``) is read the same. ``jaeger_spans`` gives each span in the shape ``otel`` reads
OTLP's in, so one reader serves both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .otel_values import WrongStatus, span_nanos
from .records import LoadProblem

__all__ = ["is_jaeger", "jaeger_spans"]


def is_jaeger(data: Mapping[str, Any]) -> bool:
    """A Jaeger JSON export: ``data`` a list of traces, each with ``traceID`` and ``spans``, or
    one such trace alone (as taken out of ``data``, with its ``processes``)."""
    if _is_trace(data) and isinstance(data.get("processes"), dict):
        return True
    traces = data.get("data")
    return isinstance(traces, list) and bool(traces) and all(_is_trace(t) for t in traces)


def _is_trace(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("traceID"), str) and "spans" in value


def _traces(request: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """Each trace and the place its spans are named from (``data[0].``, or none alone)."""
    if "data" not in request and _is_trace(request):
        return [("", request)]
    return [(f"data[{t_index}].", trace) for t_index, trace in enumerate(request["data"])]


def jaeger_spans(
    request: Mapping[str, Any], where: str, problems: list[LoadProblem], file: str
) -> list[tuple[str, Mapping[str, Any], dict[str, Any]]]:
    """A Jaeger export's spans in the shape OTLP's are read in: the span's ids, name, parent
    (its ``CHILD_OF`` reference), times in nanoseconds and status; its tags as attributes."""
    out: list[tuple[str, Mapping[str, Any], dict[str, Any]]] = []
    for prefix, trace in _traces(request):
        found = trace.get("spans")
        for s_index, span in enumerate(found if isinstance(found, list) else []):
            place = f"{where}, {prefix}spans[{s_index}]"
            if not isinstance(span, dict):
                problems.append(LoadProblem(file, place, "", "a span must be an object"))
                continue
            attrs: dict[str, Any] = {}
            tags, references = span.get("tags"), span.get("references")
            for tag in tags if isinstance(tags, list) else ():
                if isinstance(tag, dict) and isinstance(tag.get("key"), str):
                    attrs[tag["key"]] = tag.get("value")
            parent = next(
                (
                    ref.get("spanID")
                    for ref in (references if isinstance(references, list) else ())
                    if isinstance(ref, dict) and ref.get("refType") == "CHILD_OF"
                ),
                None,
            )
            start, duration = span_nanos(span.get("startTime")), span_nanos(span.get("duration"))
            message = attrs.get("otel.status_description")
            shaped: dict[str, Any] = {
                "traceId": span.get("traceID", trace.get("traceID")),
                "spanId": span.get("spanID"),
                "parentSpanId": parent,
                "name": span.get("operationName"),
                "startTimeUnixNano": start * 1000 if start is not None else None,
                "endTimeUnixNano": (start + duration) * 1000
                if start is not None and duration is not None
                else None,
                "status": _status(attrs, message),
            }
            out.append((place, shaped, attrs))
    return out


_STATUS_CODES = ("OK", "ERROR", "UNSET")
"""``otel.status_code``'s values: what OpenTelemetry's exporters write (``UNSET`` is written as
none), read in any case, as the OpenTelemetry Collector's Jaeger receiver reads them."""
_ERROR_FLAGS = {"true": True, "false": False}
"""The ``error`` tag as text: Envoy and OpenTracing clients that write tags as text give
``"true"``, which Jaeger's UI shows as an error (its Zipkin receiver reads any case)."""


def _status(attrs: Mapping[str, Any], message: Any) -> dict[str, Any]:
    """The span's status in OTLP's shape: ERROR when its ``error`` tag is ``true`` (the
    OpenTracing convention Jaeger follows: a bool, or its text) or its ``otel.status_code`` is
    ``ERROR``. Other text in ``error`` is not the status (Zipkin's error message; an OpenTelemetry
    attribute of that name, such as Claude Code's): the OpenTelemetry Collector, too, reads only a
    bool there. A tag of another type (a number, a list) or an ``otel.status_code`` of another
    value is a :class:`WrongStatus` (R35: a problem, the call not served)."""
    flag, code = attrs.get("error"), attrs.get("otel.status_code")
    if type(flag) is str:
        flag = _ERROR_FLAGS.get(flag.lower())  # (other text: not a flag, see above)
    elif flag is not None and type(flag) is not bool:
        return {"code": WrongStatus("tags.error", flag, "Jaeger's error tag is a bool")}
    said = code.upper() if type(code) is str else code
    if said is not None and said not in _STATUS_CODES:
        should_be = 'OpenTelemetry writes "OK" or "ERROR"'
        return {"code": WrongStatus("tags.otel.status_code", code, should_be)}
    if flag is True or said == "ERROR":
        return {"code": "ERROR", "message": message}
    return {}
