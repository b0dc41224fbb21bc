"""Tool names and the tools the MCP bridge lists (no MCP SDK needed here).

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

**Which tools are listed** (SPEC R42: what the live server listed, as it listed it):

- the tools of the **catalogue**, every field as recorded and in its order: a catalogue passed
  by the caller (a ``tools/list`` result ``{"tools": [...]}`` or a list of tools), the task's
  ``x-mcpTools`` member (promotion writes the catalogue ``record-mcp`` recorded there) and the
  suite's root ``x-mcpTools`` member, first found wins per name; a tool whose name is not a
  valid MCP name is listed under its mapped name (the only change made);
- with **no catalogue**, each fixture tool the recording called **successfully or with a
  tool-level error** (``isError``), with an inferred schema: an object schema whose properties
  are the keys the recorded args use, each typed by the JSON types seen; it requires nothing and
  allows other keys, so a call with unexpected args still reaches the host and is graded as a
  miss (R16) instead of being turned away;
- and the live tools registered for ``onMiss: "live"`` (inferred schemas) not listed already.

So a call the live server answered as an unknown tool, whether with a JSON-RPC error or (as the
TypeScript SDK's servers do) with ``isError``, is not listed when the catalogue is known.

A tool the recording only ever called with a JSON-RPC error in reply (the server refused it as
unknown, or its params) is never listed. Every call is served whether its tool is listed or
not: a recorded one as recorded, any other as a miss.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .._common.toolresult import jsonrpc_error_of

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
"""An MCP tool definition as JSON (a ``tools/list`` entry): ``name``, ``inputSchema`` and
whatever else the catalogue gives."""


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


def _is_served(entry: Mapping[str, Any]) -> bool:
    """Whether a fixture entry is a call the server answered with a result (success or isError),
    not with a JSON-RPC error."""
    return not (entry.get("isError") is True and jsonrpc_error_of(entry.get("response")))


def task_tool_specs(
    suite_data: Mapping[str, Any],
    task: Mapping[str, Any],
    *,
    catalogue: Any = None,
    extra_tools: Sequence[str] = (),
) -> tuple[list[ToolSpec], dict[str, str]]:
    """The MCP tools a task lists (module docstring) and ``{MCP name: tool id}`` for every
    fixture tool (listed or not) and every extra tool.

    Raises ``ValueError`` naming the entry when a catalogue is not a list of tools with names.
    """
    fixtures = task.get("fixtures")
    entries = fixtures.get("toolResponses") if isinstance(fixtures, Mapping) else None
    entries = entries if isinstance(entries, list) else []
    recorded: dict[str, list[Any]] = {}
    served: set[str] = set()
    for entry in entries:
        if isinstance(entry, Mapping) and isinstance(entry.get("tool"), str):
            args = recorded.setdefault(entry["tool"], [])
            if "args" in entry:
                args.append(entry["args"])
            if _is_served(entry):
                served.add(entry["tool"])
    for tool_id in extra_tools:
        recorded.setdefault(tool_id, [])
        served.add(tool_id)
    listed: dict[str, dict[str, Any]] = {}
    sources: list[Any] = [catalogue] if catalogue is not None else []
    sources += [h["x-mcpTools"] for h in (task, suite_data) if h.get("x-mcpTools") is not None]
    for source in sources:
        for name, tool in catalogue_tools(source).items():
            listed.setdefault(name, tool)
    names = mcp_tool_names([*recorded, *listed])
    specs: list[ToolSpec] = []
    seen: set[str] = set()
    for name, tool in listed.items():
        wire = names[name]
        if wire in seen:
            continue
        seen.add(wire)
        specs.append(tool if wire == name else {**tool, "name": wire})
    for tool_id, args in recorded.items():
        name = names[tool_id]
        if tool_id not in served or name in seen or (listed and tool_id not in extra_tools):
            continue
        seen.add(name)
        spec: ToolSpec = {"name": name, "inputSchema": infer_input_schema(args)}
        if name != tool_id:
            spec["description"] = f"Recorded tool {tool_id!r}."
        specs.append(spec)
    return specs, {names[tool_id]: tool_id for tool_id in (*listed, *recorded)}
