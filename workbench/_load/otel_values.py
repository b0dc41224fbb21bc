"""OTLP's JSON values as plain JSON, for the OpenTelemetry readers (``otel``, ``otel_claude``,
``otel_jaeger``): an ``AnyValue`` (``any_value``), a list of key-value attributes
(``attributes_of``), a time (``span_nanos``), the status codes that mean ERROR, a tool's
recorded result as a boundary's response (``tool_response``), and the failure signals read
strictly (``failure_said``, ``status_failed``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._common.jsonio import json_text
from .._common.toolresult import text_content
from .common import json_args, read_flag
from .pairing import CallPairer

__all__ = [
    "ERROR_CODES",
    "NO_CALL_ID",
    "WrongStatus",
    "any_value",
    "as_any_value",
    "attributes_of",
    "elided",
    "failure_said",
    "first_of",
    "otlp_event",
    "span_exception",
    "span_nanos",
    "status_failed",
    "tool_response",
    "with_details",
]

ERROR_CODES = (2, "2", "STATUS_CODE_ERROR", "ERROR")
"""A span status ``code`` that means ERROR (OTLP's number or enum name, Jaeger's tag)."""
_NOT_ERROR_CODES = (0, 1, "0", "1", "STATUS_CODE_UNSET", "STATUS_CODE_OK", "UNSET", "OK")
"""The other codes written: UNSET and OK (OTLP's numbers or enum names, their short names)."""
_OTLP_CODES = "OTLP's is 0, 1 or 2, or its enum name: STATUS_CODE_ERROR"


@dataclass(frozen=True, slots=True)
class WrongStatus:
    """A span's status as a reader of another export (Jaeger's, an SDK's) found it of a type
    or value that export never writes (R35): its ``field`` in the span and its ``value``, and
    what is written there (``should_be``). Put as the shaped span's status ``code``: no JSON
    value is one, so ``status_failed`` tells it from OTLP's own codes."""

    field: str
    value: Any
    should_be: str


def status_failed(status: Any, pairer: CallPairer, where: str) -> bool | None:
    """Whether a span's ``status`` says ERROR (its ``code`` one of :data:`ERROR_CODES`); not
    when the code is null or absent (or the status no object), UNSET or OK. ``None``, a problem
    at ``status.code`` (or the :class:`WrongStatus`'s field), for a code of another type or
    value: a ``true``, an ``"Error"``, a list (R35: read as neither success nor failure)."""
    code = status.get("code") if isinstance(status, Mapping) else None  # (no object: nothing)
    if code is None:
        return False
    if type(code) is int or type(code) is str:  # (a bool is no code: True == 1)
        if code in ERROR_CODES:
            return True
        if code in _NOT_ERROR_CODES:
            return False
    if isinstance(code, WrongStatus):
        field, value, should_be = code.field, code.value, code.should_be
    else:
        field, value, should_be = "status.code", code, _OTLP_CODES
    pairer.problem(
        where,
        field,
        f"not a span status, {json_text(value)[:40]} ({should_be}; read as neither success "
        "nor failure)",
    )
    return None


def any_value(value: Any) -> Any:
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
        return [any_value(v) for v in items] if isinstance(items, list) else []
    if "kvlistValue" in value:
        kv = value["kvlistValue"]
        return attributes_of(kv.get("values") if isinstance(kv, dict) else [])
    if "bytesValue" in value:
        return value["bytesValue"]
    return None


def attributes_of(items: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in items if isinstance(items, list) else []:
        if type(item) is dict:
            key = item.get("key")
            if type(key) is str:
                out[key] = any_value(item.get("value"))
        elif isinstance(item, dict) and isinstance(item.get("key"), str):
            out[item["key"]] = any_value(item.get("value"))
    return out


def span_nanos(value: Any) -> int | None:
    """A time (OTLP: digits; Jaeger: a number) from 0 to 2**64 - 1, else ``None``."""
    if type(value) is int:  # (a JavaScript or SDK span's, made so by its reader)
        return value if 0 <= value < 1 << 64 else None
    if type(value) is str and 0 < len(value) <= 20 and value.isdigit() and value.isascii():
        value = int(value)
    if type(value) is int and 0 <= value < 1 << 64:
        return value
    return None


def tool_response(result: Any) -> dict[str, Any]:
    """The boundary's response: an MCP ``CallToolResult`` as it is, a list of text blocks
    (Strands' ``[{"text": ...}]``, what the model was sent) as MCP's, other results as text."""
    if type(result) is str and result[:1] != "{":  # plain text (the usual): read as below
        return {"content": text_content(result)}
    tool_result = json_args(result) if isinstance(result, str) and result[:1] == "{" else result
    if isinstance(tool_result, dict) and isinstance(tool_result.get("content"), list):
        return tool_result
    if isinstance(result, list) and result and all(_is_text_block(b) for b in result):
        return {"content": [{"type": "text", "text": block["text"]} for block in result]}
    if isinstance(result, str):
        return {"content": text_content(result)}
    if result is None:
        return {"content": []}
    return {"content": text_content(json_text(result))}


def failure_said(
    response: Mapping[str, Any], error_type: Any, pairer: CallPairer, where: str
) -> bool | None:
    """The result's MCP ``isError`` (read strictly), and ``None`` when it or ``error.type`` is
    of a type the conventions rule out (R35: a problem, and the call read as neither success
    nor failure). ``error.type`` is a string in the OpenTelemetry conventions (a class of
    error, ``timeout``, ``500``, an exception's name): a boolean or a number could mean either."""
    said = read_flag(response.get("isError"), pairer, where, "result.isError")
    if error_type is not None and not isinstance(error_type, str):
        shown = json_text(error_type)[:40]
        pairer.problem(
            where,
            "attributes.error.type",
            f"not text, {shown} (error.type is a string; read as neither success nor failure)",
        )
        return None
    return said


def elided(attrs: Mapping[str, Any], keys: tuple[str, ...]) -> bool:
    """Whether a tool span holds, in place of its content, only Google ADK's ``"{}"`` (the
    GenAI attribute absent): ADK writes it where it does not capture content."""
    return attrs.get(keys[0]) is None and attrs.get(keys[1]) == "{}"


def _is_text_block(block: Any) -> bool:
    return (
        isinstance(block, dict)
        and isinstance(block.get("text"), str)
        and block.keys() <= {"text", "type"}
        and block.get("type", "text") == "text"
    )


DETAILS_EVENT = "gen_ai.client.inference.operation.details"
"""The GenAI conventions' event that holds a call's content when it is captured (Strands)."""
_DETAILS = ("gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.system_instructions")


def with_details(span: Mapping[str, Any], attrs: dict[str, Any]) -> dict[str, Any]:
    """A span's attributes with the messages its :data:`DETAILS_EVENT` events hold, where the
    attributes have none: Strands records a model call's messages, and a tool call's own
    ``tool_call`` and ``tool_call_response``, only there."""
    events = span.get("events")
    for event in events if isinstance(events, list) else ():
        if isinstance(event, dict) and event.get("name") == DETAILS_EVENT:
            for key, value in attributes_of(event.get("attributes")).items():
                if key in _DETAILS:
                    attrs.setdefault(key, value)
    return attrs


NO_CALL_ID = ("<not specified>",)
"""Call ids that are an instrumentation's placeholder for none (Google ADK's)."""


def span_exception(
    span: Mapping[str, Any], kind: Any, message: str | None
) -> tuple[Any, str | None]:
    """A failed span's error type and message, completed from its ``exception`` event (what
    the tool raised: ``exception.type``, ``exception.message``) where they are missing."""
    events = span.get("events")
    for event in events if isinstance(events, list) else []:
        if isinstance(event, dict) and event.get("name") == "exception":
            attrs = attributes_of(event.get("attributes"))
            raised, said = attrs.get("exception.type"), attrs.get("exception.message")
            if kind is None and isinstance(raised, str) and raised:
                kind = raised
            if message is None and isinstance(said, str) and said:
                message = f"{raised}: {said}" if isinstance(raised, str) and raised else said
            break
    return kind, message


def as_any_value(value: Any) -> dict[str, Any]:
    """A plain attribute value as an OTLP ``AnyValue``."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, list):
        return {"arrayValue": {"values": [as_any_value(v) for v in value]}}
    return {"stringValue": value if isinstance(value, str) else str(value)}


def otlp_event(event: Mapping[str, Any], nanos: int | None) -> dict[str, Any]:
    """A span event (``exception``, ``tool.output``) of an SDK's span JSON in OTLP's shape, its
    time (``nanos``) read by the caller: its attributes as OTLP key-value pairs, as ``otel``
    reads them."""
    attributes = event.get("attributes")
    pairs = attributes.items() if isinstance(attributes, Mapping) else ()
    return {
        "name": event.get("name"),
        "timeUnixNano": nanos,
        "attributes": [{"key": key, "value": as_any_value(value)} for key, value in pairs],
    }


def first_of(attrs: Mapping[str, Any], keys: tuple[str, ...]) -> Any:
    """The value of the first of ``keys`` the attributes hold (not null), else ``None``."""
    for key in keys:  # (a loop: a generator costs five times as much for these few keys)
        if (value := attrs.get(key)) is not None:
            return value
    return None
