"""Tool spans of the conventions beside OpenTelemetry's GenAI ones, read as GenAI's (R34).

``otel`` reads a tool call from a span of ``gen_ai.operation.name: execute_tool``. Two other
conventions are common in the traces people export, and say the same in other names:

- **OpenInference** (Arize Phoenix's instrumentations: the OpenAI Agents SDK, LangChain,
  LlamaIndex, smolagents, ...): a span of ``openinference.span.kind: TOOL``, the tool
  ``tool.name`` (else the span's name), the arguments ``input.value``, the result
  ``output.value``, the call id ``tool_call.id`` where one is kept; a failure is the span's
  ERROR status.
- **Logfire** (Pydantic's, its OpenAI Agents integration): a span whose
  ``logfire.msg_template`` is ``Function: {name}``, the tool ``name``, the arguments ``input``,
  the result ``output``; a failure is the span's ERROR status (its ``error`` attribute, JSON
  text, beside it).
- **pydantic-ai's own** (its instrumentation before version 3, Logfire's "running tool"): a span
  with ``gen_ai.tool.name`` and ``gen_ai.tool.call.id`` but no ``gen_ai.operation.name``, the
  arguments ``tool_arguments``, the result ``tool_response``; a failure is the span's ERROR
  status.

:func:`as_genai` gives such a span's attributes with GenAI's names added (the originals kept,
less those it read, :data:`READ`), so that the rest of ``otel`` reads one convention.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["READ", "as_genai", "needs_genai"]

READ = frozenset(
    {
        "input.value",
        "output.value",
        "tool.name",
        "tool_call.id",
        "input",
        "output",
        "tool_arguments",
        "tool_response",
    }
)
"""The attributes :func:`as_genai` reads into GenAI's, of a span it reads (not kept twice)."""

_LOGFIRE_TOOL = "Function: {name}"


def needs_genai(attrs: Mapping[str, Any]) -> bool:
    """Whether a span is a tool span of one of these conventions (and not GenAI's already)."""
    return "gen_ai.operation.name" not in attrs and (
        attrs.get("openinference.span.kind") == "TOOL"
        or attrs.get("logfire.msg_template") == _LOGFIRE_TOOL
        or _is_pydantic_ai_tool(attrs)
    )


def _is_pydantic_ai_tool(attrs: Mapping[str, Any]) -> bool:
    """pydantic-ai's tool span before GenAI's operation name (no model call names a tool)."""
    return isinstance(attrs.get("gen_ai.tool.name"), str) and "gen_ai.tool.call.id" in attrs


def as_genai(span: Mapping[str, Any], attrs: dict[str, Any]) -> dict[str, Any]:
    """``attrs`` with GenAI's tool attributes, for an OpenInference or Logfire tool span; the
    same object for any other span (the usual one: one lookup each)."""
    if not needs_genai(attrs):  # GenAI's own (a tool span, a model call, ...), or no tool
        return attrs
    if attrs.get("openinference.span.kind") == "TOOL":
        name = attrs.get("tool.name")
        return _tool(
            attrs,
            name if isinstance(name, str) and name else span.get("name"),
            attrs.get("input.value"),
            attrs.get("output.value"),
            attrs.get("tool_call.id"),
        )
    if _is_pydantic_ai_tool(attrs):  # (its name and id are GenAI's already)
        return _tool(attrs, None, attrs.get("tool_arguments"), attrs.get("tool_response"), None)
    return _tool(attrs, attrs.get("name"), attrs.get("input"), attrs.get("output"), None)


def _tool(attrs: dict[str, Any], name: Any, args: Any, result: Any, call_id: Any) -> dict[str, Any]:
    out = {k: v for k, v in attrs.items() if k not in READ}  # read into GenAI's names below
    out["gen_ai.operation.name"] = "execute_tool"
    if isinstance(name, str) and name and "gen_ai.tool.name" not in attrs:
        out["gen_ai.tool.name"] = name
    if args is not None and "gen_ai.tool.call.arguments" not in attrs:
        out["gen_ai.tool.call.arguments"] = args
    if result is not None and "gen_ai.tool.call.result" not in attrs:
        out["gen_ai.tool.call.result"] = result
    if isinstance(call_id, str) and call_id and "gen_ai.tool.call.id" not in attrs:
        out["gen_ai.tool.call.id"] = call_id
    return out
