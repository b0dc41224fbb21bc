"""The fixture host: serves a task's recorded fixtures to an agent (SPEC R12-R17, RFC 0245).

Matching (R12): candidates are the unconsumed entries for the call's tool whose args match under
the entry's ``argsMatch``. Consumption (R13): the first candidate in array order is served and
consumed. A success entry is returned as a success (R14); an ``isError`` entry as a tool error,
exactly as a live failing call would be, and never sent to a live tool (R15). A call matching no
entry is a miss (R16): under ``onMiss: "fail"`` (or ``"live"`` with no live tool registered) the
agent gets a ``workbench.fixture_miss`` tool error; under ``"live"`` the registered Python
callable answers. Every path reads one :class:`~workbench.ToolResult` (R17).
"""

from __future__ import annotations

import hashlib
import json
import json.encoder
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .._common.canonical import args_match, jcs_text, json_equal
from .._common.toolresult import ToolResult, error_text, text_content
from .._suite.model import OnMiss, task_on_miss, task_tool_responses
from .agents import TaskContext
from .events import (
    ERROR_MESSAGES,
    FIXTURE_MISS,
    LIVE_TOOL_ERROR,
    TOOL_ERROR,
    EventLog,
)

__all__ = [
    "CallRecord",
    "FixtureHost",
    "LiveTool",
    "ServedBy",
    "TaskFixtures",
    "live_result",
]

LiveTool = Callable[[Any], Any]
"""A live tool for ``onMiss: "live"``: called with the call's args; returns a
:class:`~workbench.ToolResult`, an MCP ``CallToolResult`` body (``content``, ``isError``), a
string, or any JSON (a success). An exception it raises is a tool error."""

ServedBy = Literal["fixture", "miss", "live"]


@dataclass(frozen=True, slots=True)
class CallRecord:
    """One tool call of a trial, as made and as answered: the trajectory's step."""

    step: int
    """0-based position of the call in the trial."""
    call_id: str
    """The call's id (as on the event log)."""
    tool: str
    """The tool called."""
    args: Any
    """The args the agent passed."""
    result: ToolResult
    """What the agent received."""
    served_by: ServedBy
    """``fixture`` (an entry was served), ``miss`` (no entry matched) or ``live``."""
    entry: int | None = None
    """The index of the fixture entry served, for ``fixture``."""

    @property
    def is_error(self) -> bool:
        """Whether the agent received a failure."""
        return self.result.is_error

    @property
    def error(self) -> str | None:
        """The R17 error text of a failure, ``None`` for a success."""
        return self.result.error

    def as_call(self) -> dict[str, Any]:
        """``{"tool", "args"}``, as trajectory grading reads it (R27)."""
        return {"tool": self.tool, "args": self.args}


_UNSET: Any = "\0unset"
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
        self._keys: list[str | None] = [_UNSET] * len(modes)
        self._results: list[ToolResult | None] = [None] * len(modes)
        self.tool_names: tuple[str, ...] = tuple(by_tool)
        """The tools with entries, in first-entry order."""

    def match(
        self,
        tool: str,
        args: Any,
        consumed: Sequence[bool],
        skip: dict[str, int] | None = None,
        call_key: str | None = _UNSET,
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
                if call_key is _UNSET:
                    call_key = _fast_key(args)
                entry_key = self._keys[index]
                if entry_key is _UNSET:
                    entry_key = self._keys[index] = _fast_key(self.entries[index]["args"])
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


def _fast_key(value: Any) -> str | None:
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


_SCALARS = (str, int, bool, type(None))


_MAX_SAFE = 2**53


def _needs_canonical(value: Any) -> bool:
    """Whether ``value``'s compact sorted-key JSON may differ from its JCS text (RFC 8785): it
    holds a float (``1.0`` is ``1``, ``1e-05`` is ``0.00001``), a non-string key (refused), a
    non-ASCII key (JCS sorts keys by UTF-16 code units, not code points) or an integer beyond
    2**53 (JCS writes the double it reads as). Other JSON values have the same text both ways
    (lone surrogates aside, which the caller catches when encoding)."""
    kind = type(value)
    items: Iterable[Any]
    if kind is dict:
        for key in value:
            if type(key) is not str or not key.isascii():
                return True
        items = value.values()
    elif kind is list or kind is tuple:
        items = value
    elif kind is int:
        return not -_MAX_SAFE <= value <= _MAX_SAFE
    else:
        return kind not in _SCALARS
    for item in items:
        if type(item) not in _SCALARS:
            if _needs_canonical(item):
                return True
        elif type(item) is int and not -_MAX_SAFE <= item <= _MAX_SAFE:
            return True
    return False


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


class FixtureHost:
    """Serves one trial of one task: the agent's tool interface and the direct Python path.

    ``host.call(tool, args)`` is the one way a call is served, whether the agent makes it
    through its tool interface or a caller makes it directly: both get the same
    :class:`~workbench.ToolResult`, and both are recorded on :attr:`calls` and the event log.
    """

    __slots__ = (
        "_agent_id",
        "_call_prefix",
        "_consumed",
        "_fixtures",
        "_include_content",
        "_live_tools",
        "_log",
        "_pre_post",
        "_skip",
        "calls",
        "context",
        "errors_served",
        "live_calls",
        "misses",
    )

    def __init__(
        self,
        fixtures: TaskFixtures,
        context: TaskContext,
        *,
        live_tools: Mapping[str, LiveTool] | None = None,
        log: EventLog | None = None,
        agent_id: str = "workbench.agent",
        call_prefix: str = "call-",
        pre_post_events: bool = True,
        include_content: bool = False,
    ) -> None:
        self._fixtures = fixtures
        self._consumed = [False] * len(fixtures.entries)
        self._skip: dict[str, int] = {}
        self._live_tools = dict(live_tools or {})
        self._log = log if log is not None and log.enabled else None
        self._agent_id = agent_id
        self._call_prefix = call_prefix
        self._pre_post = pre_post_events
        self._include_content = include_content
        self.context = context
        """The task, trial and seed served."""
        self.calls: list[CallRecord] = []
        """Every call served so far, in order."""
        self.misses = 0
        """How many calls matched no entry (R16: ``fixtureMissCount``)."""
        self.errors_served = 0
        """How many failures the agent received (served errors, misses, live failures)."""
        self.live_calls = 0
        """How many calls went to a live tool."""

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The tools the task has fixtures for."""
        return self._fixtures.tool_names

    @property
    def unconsumed(self) -> list[int]:
        """Indices of fixture entries not served yet."""
        return [i for i, used in enumerate(self._consumed) if not used]

    def call(self, tool: str, args: Any = None) -> ToolResult:
        """Serve one call (R12-R17) and record it."""
        if args is None:
            args = {}
        step = len(self.calls)
        call_id = f"{self._call_prefix}{step}"
        log = self._log
        call_key: str | None = _UNSET
        if log is not None:
            call_key = self._emit_called(log, tool, args, call_id)
        index = self._fixtures.match(tool, args, self._consumed, self._skip, call_key)
        entry: int | None = None
        served_by: ServedBy
        if index is not None:
            self._consumed[index] = True
            result = self._fixtures.result(index)
            served_by = "fixture"
            entry = index
        else:
            self.misses += 1
            live = self._live_tools.get(tool) if self._fixtures.on_miss == "live" else None
            if live is not None:
                self.live_calls += 1
                served_by = "live"
                try:
                    result = live_result(live(args))
                except Exception as exc:  # a live tool's failure is the agent's tool error
                    message = f"{type(exc).__name__}: {exc}"
                    result = ToolResult(text_content(message), True, error_code=LIVE_TOOL_ERROR)
            else:
                served_by = "miss"
                result = ToolResult(
                    text_content(f"no fixture entry matches this call to {tool!r}"),
                    True,
                    error_code=FIXTURE_MISS,
                    meta={"servedBy": "miss"},
                )
        if result.is_error:
            self.errors_served += 1
        self.calls.append(CallRecord(step, call_id, tool, args, result, served_by, entry))
        if log is not None:
            self._emit_returned(log, tool, call_id, result, served_by, entry)
        return result

    def _emit_called(self, log: EventLog, tool: str, args: Any, call_id: str) -> str | None:
        """Emit ``agent.tool-called``; return the call's fast key when it was computed."""
        payload: dict[str, Any] = {"agentId": self._agent_id, "toolName": tool, "callId": call_id}
        if self._include_content:
            payload["inputs"] = args
        call_key: str | None = _UNSET
        if self._pre_post:
            call_key = _fast_key(args)
            # argsHash is SHA-256 over the RFC 8785 (JCS) text of the args (RFC 0064). The fast
            # key is that text unless the args hold a float, a non-ASCII or non-string key, an
            # integer beyond 2**53 or a lone surrogate (UTF-8 refuses it): then JCS proper.
            data: bytes | None = None
            if call_key is not None and not _needs_canonical(args):
                try:
                    data = call_key.encode("utf-8")
                except UnicodeEncodeError:
                    data = None
            if data is None:
                data = jcs_text(args).encode("utf-8")
            payload["argsHash"] = hashlib.sha256(data).hexdigest()
            payload["transport"] = "native"
        log.emit("agent.tool-called", payload)
        return call_key

    def _emit_returned(
        self,
        log: EventLog,
        tool: str,
        call_id: str,
        result: ToolResult,
        served_by: ServedBy,
        entry: int | None,
    ) -> None:
        payload: dict[str, Any] = {"agentId": self._agent_id, "toolName": tool, "callId": call_id}
        if result.is_error:
            code = result.error_code or TOOL_ERROR
            message = ERROR_MESSAGES.get(code, "tool call failed")
            error: dict[str, Any] = {"code": code, "message": message}
            if self._include_content:
                error["details"] = {"text": error_text(result.content)}
            payload["error"] = error
        elif self._include_content:
            payload["outcome"] = result.to_mcp()
        else:
            outcome: dict[str, Any] = {"servedBy": served_by}
            if entry is not None:
                outcome["entry"] = entry
            payload["outcome"] = outcome
        if self._pre_post:
            payload["status"] = "error" if result.is_error else "ok"
            payload["durationMs"] = 0
        payload["x-servedBy"] = served_by
        log.emit("agent.tool-returned", payload)
