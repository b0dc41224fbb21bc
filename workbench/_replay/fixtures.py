"""A task's fixture entries prepared for serving, and what each entry serves (SPEC R12-R15).

:class:`TaskFixtures` groups a task's ``fixtures.toolResponses`` by tool and canonicalises their
args once, so matching a call (R12) and consuming the first candidate (R13) costs little per call;
each entry's result is prepared once and shared by every trial. A success entry serves a success
(R14), an ``isError`` entry a tool error with the entry's response as its content (R15).
"""

from __future__ import annotations

import json
import json.encoder
from bisect import insort
from collections.abc import Mapping, Sequence
from typing import Any

from .._common.canonical import args_match, json_equal
from .._common.toolresult import ToolResult
from .._common.vocab import LIVE_TOOL_ERROR, TOOL_ERROR, OnMiss
from .._suite.model import task_on_miss, task_tool_responses

__all__ = ["UNSET", "TaskFixtures", "fast_key", "live_result"]

UNSET: Any = "\0unset"
"""Marks a lazily computed key not computed yet (no JSON text starts with a NUL)."""


class TaskFixtures:
    """A task's fixture entries prepared once for serving: grouped by tool, args canonicalised.

    Shared by every trial of the task (each trial has its own consumption state).
    """

    __slots__ = ("_by_tool", "_keys", "_modes", "_results", "entries", "on_miss", "tool_names")

    def __init__(self, task: Mapping[str, Any]) -> None:
        self.entries: list[dict[str, Any]] = task_tool_responses(task)
        """The task's ``fixtures.toolResponses``."""
        self.on_miss: OnMiss = task_on_miss(task)
        """The task's ``fixtures.onMiss`` (R6)."""
        by_tool: dict[str, list[int]] = {}
        modes: list[str] = []
        for index, entry in enumerate(self.entries):
            by_tool.setdefault(str(entry.get("tool")), []).append(index)
            modes.append(entry.get("argsMatch", "exact") if "args" in entry else "any")
        self._by_tool = by_tool
        self._modes = modes
        # Computed on first use (a replay usually looks at each entry once): the fast key of an
        # exact entry's args and the prepared result of each entry.
        self._keys: list[str | None] = [UNSET] * len(modes)
        self._results: list[ToolResult | None] = [None] * len(modes)
        self.tool_names: tuple[str, ...] = tuple(by_tool)
        """The tools with entries, in first-entry order."""

    def replaced(self, index: int, new_entries: Sequence[Mapping[str, Any]]) -> TaskFixtures:
        """These fixtures with entry ``index`` replaced by ``new_entries`` (none, one or several),
        prepared from this one's groups instead of from scratch (a sweep makes thousands of
        variants of one task, each differing at one boundary). The result is what
        ``TaskFixtures`` of the edited entry list would be."""
        grown = len(new_entries) - 1
        new = TaskFixtures.__new__(TaskFixtures)
        new.entries = [*self.entries[:index], *new_entries, *self.entries[index + 1 :]]  # type: ignore[list-item]
        new.on_miss = self.on_miss
        by_tool: dict[str, list[int]] = {}
        for tool, indices in self._by_tool.items():
            kept = [i if i < index else i + grown for i in indices if i != index]
            if kept:
                by_tool[tool] = kept
        for offset, entry in enumerate(new_entries):
            tool = str(entry.get("tool"))
            indices = by_tool.setdefault(tool, [])
            position = index + offset
            insort(indices, position)
        new._by_tool = by_tool
        new._modes = [
            *self._modes[:index],
            *(e.get("argsMatch", "exact") if "args" in e else "any" for e in new_entries),
            *self._modes[index + 1 :],
        ]
        new._keys = [*self._keys[:index], *([UNSET] * len(new_entries)), *self._keys[index + 1 :]]
        new._results = [None] * len(new.entries)
        # Tools in first-entry order, as the constructor gives them.
        first = {tool: indices[0] for tool, indices in by_tool.items()}
        new.tool_names = tuple(sorted(first, key=first.__getitem__))
        return new

    def match(
        self,
        tool: str,
        args: Any,
        consumed: Sequence[bool],
        skip: dict[str, int] | None = None,
        call_key: str | None = UNSET,
    ) -> int | None:
        """The index of the first unconsumed entry matching the call (R12, R13), or ``None``.

        ``exact`` compares the compact sorted-key JSON texts first (equal texts are equal
        values, so that is a sure match) and falls back to canonical JSON equality
        (``json_equal``: ``1`` equals ``1.0``) only when they differ.
        """
        indices = self._by_tool.get(tool)
        if not indices:
            return None
        start = 0
        if skip is not None:
            # ``skip[tool]``: how many of the tool's entries, from the first, are consumed
            # (so in-order serving does not rescan them: amortised O(1) per call).
            start = skip.get(tool, 0)
            count = len(indices)
            while start < count and consumed[indices[start]]:
                start += 1
            skip[tool] = start
        modes = self._modes
        for position in range(start, len(indices)):
            index = indices[position]
            if consumed[index]:
                continue
            mode = modes[index]
            if mode == "any":
                return index
            if mode == "exact":
                if call_key is UNSET:
                    call_key = fast_key(args)
                entry_key = self._keys[index]
                if entry_key is UNSET:
                    entry_key = self._keys[index] = fast_key(self.entries[index]["args"])
                if call_key is not None and call_key == entry_key:
                    return index
                if json_equal(self.entries[index]["args"], args):
                    return index
            elif args_match(self.entries[index].get("args"), args, "subset"):
                return index
        return None

    def result(self, index: int) -> ToolResult:
        """The prepared result of entry ``index`` (read-only; shared between trials)."""
        result = self._results[index]
        if result is None:
            entry = self.entries[index]
            is_error = entry.get("isError") is True
            result = self._results[index] = _result_from(
                entry.get("response"),
                is_error=is_error,
                error_code=TOOL_ERROR if is_error else None,
                meta={"servedBy": "fixture", "entry": index},
            )
        return result


def _no_default(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not a JSON value")


# The C encoder, made once: ``json.dumps`` builds a new one per call, which costs about as much
# as the encoding itself for small args. Not in typeshed, hence the getattr.
_MAKE_C_ENCODER: Any = getattr(json.encoder, "c_make_encoder", None)
_C_ENCODER: Any = (
    _MAKE_C_ENCODER(
        None, _no_default, json.encoder.encode_basestring, None, ":", ",", True, False, False
    )
    if _MAKE_C_ENCODER is not None
    else None
)
_PY_ENCODER = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
)


def fast_key(value: Any) -> str | None:
    """Compact sorted-key JSON of ``value`` (C encoder), or ``None`` when it cannot be written.

    Two values with equal keys are equal JSON values. The converse needs canonical JSON
    (``1`` vs ``1.0``), which the matcher falls back to when keys differ.
    """
    try:
        if _C_ENCODER is not None:
            return "".join(_C_ENCODER(value, 0))
        return _PY_ENCODER.encode(value)
    except (TypeError, ValueError):
        return None


_CALL_TOOL_RESULT_KEYS = frozenset({"content", "isError", "structuredContent", "_meta"})


def _is_call_tool_result(value: Any) -> bool:
    """Whether ``value`` is an MCP ``CallToolResult`` body: a mapping with ``content``, or a
    non-empty mapping whose keys are all ``CallToolResult`` members (content may be absent)."""
    if not isinstance(value, Mapping):
        return False
    return "content" in value or (bool(value) and _CALL_TOOL_RESULT_KEYS.issuperset(value))


def _result_from(
    response: Any, *, is_error: bool, error_code: str | None, meta: Mapping[str, Any]
) -> ToolResult:
    """A fixture response as the agent receives it (R14, R15, R17).

    A ``CallToolResult`` body with no ``content`` (e.g. only ``structuredContent``) has no
    content blocks, so a failure's error text is ``Tool call failed`` (R17) rather than the
    body's JSON; every other response is read by :meth:`ToolResult.from_response`.
    """
    if type(response) is dict and "content" in response:  # the common MCP body: fast path
        return ToolResult(
            response["content"],
            is_error,
            response.get("structuredContent"),
            error_code,
            dict(meta),
        )
    if (
        isinstance(response, Mapping)
        and "content" not in response
        and _is_call_tool_result(response)
    ):
        return ToolResult(
            content=[],
            is_error=is_error,
            structured_content=response.get("structuredContent"),
            error_code=error_code,
            meta=dict(meta),
        )
    return ToolResult.from_response(response, is_error=is_error, error_code=error_code, meta=meta)


def live_result(value: Any) -> ToolResult:
    """What a live tool returned, as a :class:`~workbench.ToolResult`.

    An MCP ``CallToolResult`` body is read as one: ``isError: true`` is a failure, with or
    without ``content`` (R17: a result that says it failed never reads as a success). A string
    or any other JSON is a success.
    """
    if isinstance(value, ToolResult):
        return value
    if _is_call_tool_result(value) or (isinstance(value, Mapping) and value.get("isError") is True):
        is_error = value.get("isError") is True
        return ToolResult(
            content=value.get("content", []),
            is_error=is_error,
            structured_content=value.get("structuredContent"),
            error_code=LIVE_TOOL_ERROR if is_error else None,
            meta={"servedBy": "live"},
        )
    return ToolResult.from_response(value, is_error=False, meta={"servedBy": "live"})
