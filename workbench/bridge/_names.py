"""Tool names and input schemas for the MCP bridge (no MCP SDK needed here).

**Names.** MCP tool names are ``[A-Za-z0-9._-]{1,128}`` (the MCP specification's tool-name rule,
which the SDK checks). Suite tool ids often are not (``billing:lookup``). The rule, applied to
every tool id of a task, in first-entry order:

1. an id that already is a valid MCP name is its own name;
2. otherwise each character outside ``A-Z a-z 0-9 . _ -`` becomes ``_`` (so ``billing:lookup``
   is served as ``billing_lookup``), and a name longer than 128 characters is cut to 119;
3. if the name so made is empty or already taken (by a valid id, or by an earlier mapped id),
   ``-`` and the first 8 hex digits of the SHA-256 of the id are appended.

The mapping is one-to-one and the same in every process. The event log, the trajectory and the
summary always carry the original id; only the MCP wire uses the mapped name.

**Input schemas.** A tool's ``inputSchema`` comes, first found wins, from a tool catalogue passed
by the caller (a ``tools/list`` result ``{"tools": [...]}`` or a list of tools, keyed by
``name``), from the task's ``x-mcpTools`` member, from the suite's root ``x-mcpTools`` member
(each a list of ``{"name", "description"?, "inputSchema"}`` keyed by the original id), and
otherwise is inferred from the recorded args: an object schema whose properties are the keys the
recorded args use, each typed by the JSON types seen. The inferred schema requires nothing and
allows other keys, so a call with unexpected args still reaches the host and is graded as a miss
(R16) instead of being turned away.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "MCP_TOOL_NAME",
    "ToolSpec",
    "catalogue_tools",
    "infer_input_schema",
    "mcp_tool_names",
    "task_tool_specs",
]

MCP_TOOL_NAME = re.compile(r"[A-Za-z0-9._-]{1,128}")
"""A valid MCP tool name."""

_INVALID = re.compile(r"[^A-Za-z0-9._-]")

ToolSpec = dict[str, Any]
"""An MCP tool definition as JSON: ``name``, ``inputSchema`` and, when known, ``description``."""


def _digest(tool_id: str) -> str:
    return hashlib.sha256(tool_id.encode("utf-8")).hexdigest()[:8]


def mcp_tool_names(tool_ids: Iterable[str]) -> dict[str, str]:
    """``{tool id: MCP name}`` for the ids, by the rule in this module's docstring."""
    ids = list(dict.fromkeys(tool_ids))
    taken = {tool_id for tool_id in ids if MCP_TOOL_NAME.fullmatch(tool_id)}
    names: dict[str, str] = {}
    for tool_id in ids:
        if MCP_TOOL_NAME.fullmatch(tool_id):
            names[tool_id] = tool_id
            continue
        name = _INVALID.sub("_", tool_id)[:119]
        if not name or name in taken:
            name = f"{name}-{_digest(tool_id)}"
        taken.add(name)
        names[tool_id] = name
    return names


_JSON_TYPES: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    ((list, tuple), "array"),
    (Mapping, "object"),
)


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    for kinds, name in _JSON_TYPES:
        if isinstance(value, kinds):
            return name
    return "string"


def infer_input_schema(recorded_args: Iterable[Any]) -> dict[str, Any]:
    """An object schema for the args seen: each key typed by the JSON types it had.

    Nothing is required and other keys are allowed (see the module docstring). Args that are not
    objects add nothing.
    """
    types: dict[str, list[str]] = {}
    for args in recorded_args:
        if not isinstance(args, Mapping):
            continue
        for key, value in args.items():
            seen = types.setdefault(str(key), [])
            kind = _json_type(value)
            if kind == "integer" and "number" in seen:
                continue
            if kind == "number" and "integer" in seen:
                seen.remove("integer")
            if kind not in seen:
                seen.append(kind)
    properties: dict[str, Any] = {}
    for key in sorted(types):
        kinds = sorted(types[key])
        properties[key] = {"type": kinds[0] if len(kinds) == 1 else kinds}
    return {"type": "object", "properties": properties}


def catalogue_tools(catalogue: Any) -> dict[str, dict[str, Any]]:
    """``{name: tool}`` from a tool catalogue: ``{"tools": [...]}`` or a list of tools.

    Raises ``ValueError`` naming the entry when a tool has no string ``name``.
    """
    tools = catalogue.get("tools") if isinstance(catalogue, Mapping) else catalogue
    if not isinstance(tools, list):
        raise ValueError("a tool catalogue is a list of tools or an object with 'tools'")
    found: dict[str, dict[str, Any]] = {}
    for index, tool in enumerate(tools):
        if not isinstance(tool, Mapping) or not isinstance(tool.get("name"), str):
            raise ValueError(f"tools[{index}]: a tool needs a string 'name'")
        found.setdefault(tool["name"], dict(tool))
    return found


def _schema_of(tool: Mapping[str, Any]) -> dict[str, Any] | None:
    schema = tool.get("inputSchema", tool.get("input_schema"))
    return dict(schema) if isinstance(schema, Mapping) else None


def task_tool_specs(
    suite_data: Mapping[str, Any],
    task: Mapping[str, Any],
    *,
    catalogue: Any = None,
    extra_tools: Sequence[str] = (),
) -> tuple[list[ToolSpec], dict[str, str]]:
    """The MCP tools a task serves and ``{MCP name: tool id}``.

    The tools are the task's fixture tools in first-entry order, then ``extra_tools`` (live
    tools for ``onMiss: "live"``) not already listed. Each tool's ``name`` is its MCP name; its
    schema and description come from the first source in the module docstring's order.
    """
    fixtures = task.get("fixtures")
    entries = fixtures.get("toolResponses") if isinstance(fixtures, Mapping) else None
    entries = entries if isinstance(entries, list) else []
    recorded: dict[str, list[Any]] = {}
    for entry in entries:
        if isinstance(entry, Mapping) and isinstance(entry.get("tool"), str):
            args = recorded.setdefault(entry["tool"], [])
            if "args" in entry:
                args.append(entry["args"])
    for tool_id in extra_tools:
        recorded.setdefault(tool_id, [])
    sources: list[dict[str, dict[str, Any]]] = []
    if catalogue is not None:
        sources.append(catalogue_tools(catalogue))
    for holder in (task, suite_data):
        member = holder.get("x-mcpTools")
        if member is not None:
            sources.append(catalogue_tools(member))
    names = mcp_tool_names(recorded)
    specs: list[ToolSpec] = []
    for tool_id, args in recorded.items():
        name = names[tool_id]
        known = next(
            (source.get(tool_id) or source.get(name) for source in sources if tool_id in source
             or name in source),
            None,
        )  # fmt: skip
        schema = _schema_of(known) if known is not None else None
        spec: ToolSpec = {"name": name, "inputSchema": schema or infer_input_schema(args)}
        if known is not None and isinstance(known.get("description"), str):
            spec["description"] = known["description"]
        elif name != tool_id:
            spec["description"] = f"Recorded tool {tool_id!r}."
        specs.append(spec)
    return specs, {names[tool_id]: tool_id for tool_id in recorded}
