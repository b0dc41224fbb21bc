"""The log records of an OTLP document (``resourceLogs``), for ``otel``: each counted in the run
of its trace (R35), and those that record tool calls or their results (GenAI events holding a
model call's messages, and the OpenAI instrumentation's older message events) kept, with their
times and places, for ``otel_chat_parts``.
"""

from __future__ import annotations

from typing import Any

from .otel_chat_parts import LEGACY_EVENTS, ChatParts
from .otel_values import any_value, attributes_of, span_nanos

__all__ = ["Event", "event_time", "holds_genai_events", "log_records"]

Event = tuple[int, str, str | None, dict[str, Any], Any]
"""A log record that records tool calls or results: time, place, event name, attributes, body."""


def event_time(event: Event) -> int:
    return event[0]


def log_records(
    resources: Any,
    logs: dict[str, list[str]],
    events: dict[str, list[Event]],
    where: str,
) -> None:
    """The event names of a ``resourceLogs`` section's records, by trace (R35: counted), and
    those that record tool calls or their results (``otel_chat_parts``), with their times."""
    for r_index, resource in enumerate(resources if isinstance(resources, list) else []):
        scopes = resource.get("scopeLogs") if isinstance(resource, dict) else None
        for s_index, scope in enumerate(scopes if isinstance(scopes, list) else []):
            records = scope.get("logRecords") if isinstance(scope, dict) else None
            for l_index, record in enumerate(records if isinstance(records, list) else []):
                if not isinstance(record, dict):
                    continue
                attrs = attributes_of(record.get("attributes"))
                name = record.get("eventName")
                if not isinstance(name, str) or not name:
                    name = attrs.get("event.name")  # the older place of the event's name
                trace = record.get("traceId")
                key = trace if isinstance(trace, str) else ""
                logs.setdefault(key, []).append(
                    f"log:{name}" if isinstance(name, str) and name else "log"
                )
                legacy = isinstance(name, str) and name in LEGACY_EVENTS
                if legacy or ChatParts.holds_messages(attrs):
                    at = span_nanos(record.get("timeUnixNano")) or 0
                    place = (
                        f"{where}, resourceLogs[{r_index}].scopeLogs[{s_index}]"
                        f".logRecords[{l_index}]"
                    )
                    body = any_value(record.get("body")) if legacy else None
                    events.setdefault(key, []).append(
                        (at, place, name if legacy else None, attrs, body)
                    )


def holds_genai_events(resources: list[Any]) -> bool:
    """Whether an OTLP logs export's first records are GenAI events (an event name or a
    ``gen_ai.*`` attribute)."""
    for resource in resources[:8]:
        scopes = resource.get("scopeLogs") if isinstance(resource, dict) else None
        for scope in scopes[:8] if isinstance(scopes, list) else ():
            found = scope.get("logRecords") if isinstance(scope, dict) else None
            for record in found[:8] if isinstance(found, list) else ():
                attrs = attributes_of(record.get("attributes")) if isinstance(record, dict) else {}
                name = record.get("eventName") if isinstance(record, dict) else None
                if any(key.startswith("gen_ai.") for key in attrs) or (
                    isinstance(name, str) and name.startswith("gen_ai.")
                ):
                    return True
    return False
