"""What Google's ADK records of a tool run beside a Langfuse observation's input and output
(SPEC R34, R35).

ADK's own OpenTelemetry span of a tool run (``execute_tool <name>``) carries the arguments it
called the tool with and what the tool gave, as JSON text of an object, in attributes of its
own: ``gcp.vertex.agent.tool_call_args`` and ``gcp.vertex.agent.tool_response`` (ADK makes any
result that is no object ``{"result": ...}``). The observation Langfuse makes of that span need
not hold them: in the real export of 2025-08-28 (``fixtures/langfuse``) its ``input`` and
``output`` are both ``{}``, while ``tool_response`` holds ``{"greeting": "Hello Langfuse 👋"}``,
the result the model was sent (the next GENERATION's ``function_response``). So ADK's
attributes are read where present: its response is the run's result, its arguments the run's
args where the model's request for the call is not found (``langfuse_requests``). An
attribute that is no JSON (ADK writes ``<not serializable>`` for a value it cannot write) is
not read: the observation's own input or output is; a response that is JSON of no object, or
opens as JSON and does not decode as strictly as a file, is a problem (R35).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import orjson

from .common import json_kind

__all__ = ["ADK_ARGS", "ADK_RESPONSE", "adk_args", "adk_response"]

ADK_ARGS = "gcp.vertex.agent.tool_call_args"
ADK_RESPONSE = "gcp.vertex.agent.tool_response"


def adk_args(attributes: Mapping[str, Any], decoded: Callable[[Any], Any]) -> Any:
    """The arguments ADK called the tool with (an object), else ``None``."""
    return _object(attributes.get(ADK_ARGS), decoded)


def adk_response(
    attributes: Mapping[str, Any], decoded: Callable[[Any], Any]
) -> tuple[Any, str | None]:
    """What the tool gave ADK (an object), else ``None``; and, for a response ADK never writes
    (JSON of no object, or text opening as JSON that does not decode as strictly as a file:
    ``NaN``, an integer past 64 bits), why it is a problem (R35). Text that is no JSON
    (``<not serializable>``) is no problem: the observation's output is read."""
    raw = attributes.get(ADK_RESPONSE)
    if raw is None:
        return None, None
    value = decoded(raw)
    if isinstance(value, Mapping):
        return value, None
    if type(raw) is str and value is raw:  # text the export's decoding left as it is
        try:
            value = orjson.loads(raw)  # a number, true, false or null: JSON of no object
        except orjson.JSONDecodeError:
            if not raw.lstrip().startswith(("{", "[")):
                return None, None  # no JSON (``<not serializable>``): the output is read
            return None, "JSON text that does not decode strictly (ADK writes an object)"
        if isinstance(value, Mapping):  # (an integer past 64 bits, say: R35)
            return None, "JSON text that does not decode strictly (ADK writes an object)"
    return None, f"JSON of {json_kind(value)}, not an object (ADK writes one)"


def _object(raw: Any, decoded: Callable[[Any], Any]) -> Any:
    if raw is None:
        return None
    value = decoded(raw)
    return value if isinstance(value, Mapping) else None
