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
attribute that is no object (ADK writes ``<not serializable>`` for a value it cannot write) is
not read: the observation's own input or output is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["ADK_ARGS", "ADK_RESPONSE", "adk_args", "adk_response"]

ADK_ARGS = "gcp.vertex.agent.tool_call_args"
ADK_RESPONSE = "gcp.vertex.agent.tool_response"


def adk_args(attributes: Mapping[str, Any], decoded: Callable[[Any], Any]) -> Any:
    """The arguments ADK called the tool with (an object), else ``None``."""
    return _object(attributes.get(ADK_ARGS), decoded)


def adk_response(attributes: Mapping[str, Any], decoded: Callable[[Any], Any]) -> Any:
    """What the tool gave ADK (an object), else ``None``."""
    return _object(attributes.get(ADK_RESPONSE), decoded)


def _object(raw: Any, decoded: Callable[[Any], Any]) -> Any:
    if raw is None:
        return None
    value = decoded(raw)
    return value if isinstance(value, Mapping) else None
