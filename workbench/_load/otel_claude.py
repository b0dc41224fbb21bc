"""How a Claude Code tool span went, for the OpenTelemetry loader (``otel``).

Claude Code's own spans (scope ``com.anthropic.claude_code.tracing``) name no GenAI operation:
a ``claude_code.tool`` span is a call (tool ``tool_name``, call id ``tool_use_id``; no arguments
recorded, its ``full_command``/``file_path`` attributes kept in ``extra``) whose result is the
``output`` of its ``tool.output`` event (``event_attribute``), and how the tool ran is in its
``claude_code.tool.execution`` child spans (``claude_execution``): ``success: false`` or status
ERROR is a failure, ``error`` its text and ``error_class`` its code. A sub-agent's calls carry
its ``agent_id`` (``agent-<id>``, as in Claude Code's session files).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .common import read_flag
from .otel_values import attributes_of, status_failed
from .pairing import CallPairer

__all__ = ["claude_execution", "event_attribute"]

_CLAUDE_EXECUTION_SPAN = "claude_code.tool.execution"  # a tool span's child: how the tool ran


def event_attribute(span: Mapping[str, Any], event_name: str, key: str) -> Any:
    """The ``key`` attribute of the span's first event named ``event_name``, else ``None``."""
    events = span.get("events")
    for event in events if isinstance(events, list) else []:
        if isinstance(event, dict) and event.get("name") == event_name:
            value = attributes_of(event.get("attributes")).get(key)
            if value is not None:
                return value
    return None


def claude_execution(
    span: Mapping[str, Any],
    children: Mapping[str, list[tuple[str, Mapping[str, Any], dict[str, Any]]]],
    pairer: CallPairer,
) -> tuple[bool, str | None, str | None] | None:
    """How a Claude Code tool call ran, from its ``claude_code.tool.execution`` child spans:
    ``(failed, error text, error class)``, failed when any child says so (the first that does
    gives the text); not failed when it has no such child. ``None`` when a child's ``success``
    is not a boolean, or its status code of a type or value never written (a problem, R35)."""
    span_id = span.get("spanId")
    outcome: tuple[bool, str | None, str | None] = (False, None, None)
    for where, child, attrs in children.get(span_id, []) if isinstance(span_id, str) else []:
        if child.get("name") != _CLAUDE_EXECUTION_SPAN:
            continue
        success = read_flag(attrs.get("success"), pairer, where, "attributes.success", absent=True)
        if success is None:
            return None
        raw_status = child.get("status")
        said_error = status_failed(raw_status, pairer, where)  # R35: a code never written
        if said_error is None:
            return None
        if (success and not said_error) or outcome[0]:
            continue
        error = attrs.get("error")
        status_message = raw_status.get("message") if isinstance(raw_status, dict) else None
        text = error if isinstance(error, str) and error else status_message
        error_class = attrs.get("error_class")
        outcome = (
            True,
            text if isinstance(text, str) and text else None,
            error_class if isinstance(error_class, str) and error_class else None,
        )
    return outcome
