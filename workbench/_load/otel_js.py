"""OpenTelemetry spans as JavaScript exporters write them to a file, read as OTLP spans (``otel``).

GitHub Copilot CLI's OpenTelemetry file exporter (``COPILOT_OTEL_FILE_EXPORTER_PATH``) writes a
JSON object a line: ``{"type": "span", "traceId", "spanId", "parentSpanId", "name", "kind",
"startTime": [seconds, nanoseconds], "endTime", "attributes": {...}`` (a plain object),
``"status": {"code": 0 | 1 | 2, "message"}, "events": [{"name", "attributes", "time"}],
"resource", "instrumentationScope"}``, beside ``{"type": "metric"}`` and ``{"type": "log"}``
lines. The JavaScript SDK's own ``ReadableSpan`` turned into JSON keeps the ids in a
``_spanContext`` (or ``spanContext``) object and the parent in ``parentSpanContext`` (2.x) or
``parentSpanId`` (1.x), with the same ``[seconds, nanoseconds]`` times. ``js_span`` gives either
in the shape ``otel`` reads OTLP's in, so one reader serves them all: a span of
``execute_tool`` is a call (``gen_ai.tool.call.arguments`` and ``.result`` when the exporter
captured content; status code 2 or ``error.type``: a failure, another status code a problem; a
Copilot shell command that exited non-zero, as ``copilot_cli`` reads it: ``exit_code:N``). Metric
and log lines are counted (R35).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .copilot_shell import SHELL_EXITED, SHELL_TOOLS
from .otel_values import WrongStatus, otlp_event

__all__ = ["is_js_export", "is_js_record", "is_js_span", "js_span", "not_a_js_span"]

_RECORD_TYPES = frozenset({"metric", "log"})


def is_js_span(value: Any) -> bool:
    """A span as a JavaScript exporter writes it: a ``name``, its ids (at its top, or in its
    span context) and its ``attributes`` a plain object (OTLP's are a list of pairs)."""
    if type(value) is not dict and not isinstance(value, Mapping):
        return False
    if type(value.get("name")) is not str:
        return False
    attributes = value.get("attributes")
    if type(attributes) is not dict and not isinstance(attributes, Mapping):
        return False
    if value.get("type") not in (None, "span"):
        return False
    if type(value.get("traceId")) is str:  # the ids at its top (the usual: _ids, inline)
        return isinstance(value.get("spanId"), str)
    ids = _ids(value)
    return isinstance(ids.get("traceId"), str) and isinstance(ids.get("spanId"), str)


def is_js_record(value: Any) -> bool:
    """A metric or log line of such a file (counted beside its spans)."""
    if not isinstance(value, Mapping):
        return False
    kind = value.get("type")
    return isinstance(kind, str) and kind in _RECORD_TYPES


def is_js_export(heads: list[Any]) -> bool:
    """Whether a JSONL file's first records are a JavaScript exporter's: a span among them, or
    only metric and log lines (an export of a run that made no span yet)."""
    return any(is_js_span(h) or _says_span(h) for h in heads) or (
        bool(heads) and all(is_js_record(h) for h in heads)
    )


def _says_span(value: Any) -> bool:
    """A line that says it is a span, and names its trace (a span the exporter wrote wrong)."""
    return (
        isinstance(value, Mapping)
        and value.get("type") == "span"
        and ("traceId" in value or "_spanContext" in value or "spanContext" in value)
    )


_NOT_A_SPAN = "not a span as a JavaScript exporter writes one (name, ids, attributes an object)"


def not_a_js_span(value: Any) -> str | None:
    """What is wrong with a line that says it is a span (``"type": "span"``) and is not one."""
    if isinstance(value, Mapping) and value.get("type") == "span" and not is_js_span(value):
        return _NOT_A_SPAN
    return None


def _ids(span: Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(span.get("traceId"), str):
        return span
    for key in ("_spanContext", "spanContext"):
        context = span.get(key)
        if isinstance(context, Mapping):
            return context
    return {}


def js_span(span: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The span in OTLP's shape (times in nanoseconds) and its attributes."""
    ids = _ids(span)
    parent = span.get("parentSpanId")
    if not isinstance(parent, str):
        context = span.get("parentSpanContext")
        parent = context.get("spanId") if isinstance(context, Mapping) else None
    events = span.get("events")
    shaped: dict[str, Any] = {
        "traceId": ids.get("traceId"),
        "spanId": ids.get("spanId"),
        "parentSpanId": parent if isinstance(parent, str) else None,
        "name": span.get("name"),
        "startTimeUnixNano": _nanos(
            span["startTime"] if "startTime" in span else span.get("startTimeUnixNano")
        ),
        "endTimeUnixNano": _nanos(
            span["endTime"] if "endTime" in span else span.get("endTimeUnixNano")
        ),
        "status": _status(span.get("status")),
        "events": [otlp_event(e, _nanos(e.get("time"))) for e in events if isinstance(e, Mapping)]
        if type(events) is list and events
        else [],
    }
    return shaped, _attributes(span)


_SAID = "the JavaScript SDK's SpanStatusCode: 0, 1 or 2"


def _status(status: Any) -> dict[str, Any]:
    """The span's status in OTLP's shape (``{code, message}``); a ``code`` other than 0, 1 or 2
    (``true``, ``[2]``, ``"ERROR"``: no JavaScript exporter writes one) is a
    :class:`WrongStatus` (R35: a problem, the call not served)."""
    if type(status) is not dict and not isinstance(status, Mapping):
        return {}  # (no object: it says nothing of the call)
    code = status.get("code")
    if code is not None and (type(code) is not int or code not in (0, 1, 2)):
        return {"code": WrongStatus("status.code", code, _SAID)}
    return {"code": code, "message": status.get("message")}


def _attributes(span: Mapping[str, Any]) -> dict[str, Any]:
    """The span's attributes; Copilot CLI's shell call (``bash``, ``powershell``, ...) that
    exited non-zero, which its span reports a success (the result's text ends ``<shellId: N
    completed with exit code K>``), given ``error.type`` ``exit_code:K`` as its session log's
    reader gives it (R36)."""
    attributes: dict[str, Any] = span["attributes"]  # read, not changed (copied to add to)
    if type(attributes) is not dict:
        attributes = dict(attributes)
    scope = span.get("instrumentationScope")
    tool = attributes.get("gen_ai.tool.name")
    shell = isinstance(tool, str) and tool in SHELL_TOOLS
    if (
        shell
        and (type(scope) is dict or isinstance(scope, Mapping))
        and scope.get("name") == "github.copilot"
    ):
        result = attributes.get("gen_ai.tool.call.result")
        found = SHELL_EXITED.search(result) if isinstance(result, str) else None
        if found and int(found.group(1)) != 0 and "error.type" not in attributes:
            attributes = {**attributes, "error.type": f"exit_code:{found.group(1)}"}
    return attributes


def _nanos(value: Any) -> int | None:
    """``[seconds, nanoseconds]`` (the JavaScript SDK's ``HrTime``), or nanoseconds as a
    number or digits, from 0 to 2**64 - 1; else ``None``."""
    if type(value) is list and len(value) == 2:  # (two type tests: a generator costs more)
        seconds, nanos = value
        if type(seconds) is int and type(nanos) is int and seconds >= 0 <= nanos < 10**9:
            value = seconds * 1_000_000_000 + nanos
            return value if value < 1 << 64 else None  # (an int, not negative: checked)
    if type(value) is str and 0 < len(value) <= 20 and value.isdigit() and value.isascii():
        value = int(value)
    return value if type(value) is int and 0 <= value < 1 << 64 else None
