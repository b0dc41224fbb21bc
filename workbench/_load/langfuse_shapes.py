"""The shapes a Langfuse trace export comes in, and how it is told from other files (SPEC R34).

A trace downloaded from Langfuse's UI is ``{"trace": {...}, "observations": [...]}`` (the
observations also inside the trace); its public API gives the trace object itself with
``observations``, or observations listed (``{"data": [...], "meta": ...}``, a bare list, the
lines of a JSONL file);
the Python SDK's ``model_dump()`` writes the API's names in snake case. ``langfuse`` reads the
runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["CAMEL", "camel", "is_observation", "observations_of", "sniff_langfuse"]

_TYPES = frozenset(
    {
        "SPAN",
        "GENERATION",
        "EVENT",
        "AGENT",
        "TOOL",
        "CHAIN",
        "RETRIEVER",
        "EVALUATOR",
        "EMBEDDING",
        "GUARDRAIL",
    }
)
"""Langfuse's observation types."""

CAMEL = {
    "trace_id": "traceId",
    "parent_observation_id": "parentObservationId",
    "start_time": "startTime",
    "end_time": "endTime",
    "status_message": "statusMessage",
    "project_id": "projectId",
    "session_id": "sessionId",
    "user_id": "userId",
    "html_path": "htmlPath",
}
"""The Python SDK's ``model_dump()`` names (snake case) and the API's names for them."""


def camel(value: Any) -> Any:
    """An object with the Python SDK's snake-case names renamed as the API names them."""
    if type(value) is dict:
        if value.keys().isdisjoint(CAMEL):  # the usual case: the API's names (C, no loop)
            return value
    elif not isinstance(value, Mapping) or not any(k in value for k in CAMEL):
        return value
    return {CAMEL.get(k, k): v for k, v in value.items()}


def is_observation(value: Any) -> bool:
    """One Langfuse observation: typed as Langfuse types them, with its trace or start."""
    value = camel(value)
    kind = value.get("type") if isinstance(value, Mapping) else None
    return (
        isinstance(value, Mapping)
        and isinstance(kind, str)
        and kind in _TYPES
        and ("traceId" in value or "startTime" in value)
        and "id" in value
    )


def observations_of(data: Any) -> tuple[Mapping[str, Any], list[Any], str] | None:
    """The trace, its observations and where they are, in any of the export's shapes: the
    UI's download, the API's trace (its observations inside), the API's list of observations
    (``{"data": [...], "meta": ...}``) or a bare list of them."""
    if isinstance(data, list):
        return ({}, data, "") if data and is_observation(data[0]) else None
    if not isinstance(data, Mapping):
        return None
    data = camel(data)
    trace = camel(data.get("trace"))
    if isinstance(trace, Mapping):
        if isinstance(data.get("observations"), list):
            return trace, data["observations"], "observations"
        found = trace.get("observations")
        return (trace, found, "trace.observations") if isinstance(found, list) else None
    found = data.get("observations")
    api_trace = isinstance(found, list) and isinstance(data.get("id"), str)
    if api_trace and (not found or is_observation(found[0])):
        return data, found, "observations"  # the public API's trace object
    listed = data.get("data")
    if isinstance(listed, list) and listed and is_observation(listed[0]):
        return {}, listed, "data"
    return None


def sniff_langfuse(data: Any) -> bool:
    """A Langfuse trace export or list of observations (see :func:`observations_of`)."""
    found = observations_of(data)
    if found is None:
        return False
    trace, observations, _ = found
    if observations:
        return is_observation(observations[0])
    return isinstance(trace.get("id"), str) and ("projectId" in trace or "htmlPath" in trace)
