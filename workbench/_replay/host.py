"""The fixture host: serves one trial of a task to an agent (SPEC R12-R17, RFC 0245).

Matching (R12) and consumption (R13) are :class:`~workbench.TaskFixtures`'; a success entry is
returned as a success (R14), an ``isError`` entry as a tool error, exactly as a live failing call
would be, and never sent to a live tool (R15). A call matching no entry is a miss (R16): under
``onMiss: "fail"`` (or ``"live"`` with no live tool registered) the agent gets a
``workbench.fixture_miss`` tool error; under ``"live"`` the registered Python callable answers.
Every path reads one :class:`~workbench.ToolResult` (R17) and is recorded once, as a
:class:`CallRecord` and on the event log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .._common.step import Step, args_text
from .._common.toolresult import ToolResult, text_content
from .._common.vocab import FIXTURE_MISS, LIVE_TOOL_ERROR, ServedBy
from . import events
from .agents import TaskContext
from .events import EventLog
from .fixtures import UNSET, TaskFixtures, fast_key, live_result
from .options import ReplayOptions

__all__ = ["CallRecord", "FixtureHost"]


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

    def to_step(self) -> Step:
        """The call as a trajectory :class:`~workbench.Step` (args as canonical JSON)."""
        return Step(
            self.tool, args_text(self.args), self.is_error, self.served_by, self.error or ""
        )


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
        options: ReplayOptions | None = None,
        *,
        log: EventLog | None = None,
        agent_id: str = "workbench.agent",
        call_prefix: str = "call-",
    ) -> None:
        the_options = options if options is not None else ReplayOptions()
        live_tools = the_options.live_tools
        pre_post_events = the_options.profile.pre_post_events
        include_content = the_options.include_content
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

    def preload(
        self,
        calls: Sequence[CallRecord],
        entries: Sequence[int] | None = None,
        counts: tuple[int, int, int] | None = None,
    ) -> None:
        """Take ``calls`` as served already, in order: their entries consumed, their failures
        and misses counted, no events written.

        A sweep resumes a variant-trial from the baseline's prefix with it: the calls a
        baseline trial made before a fault could matter, served by entries this host's
        fixtures hold at the same indices (the caller guarantees that). ``entries`` (the
        fixture entries those calls consumed) and ``counts`` (their misses, failures and live
        calls) save reading them off the calls again.
        """
        consumed = self._consumed
        if entries is None:
            entries = [r.entry for r in calls if r.entry is not None]
        for entry in entries:
            consumed[entry] = True
        if counts is None:
            counts = (
                sum(r.entry is None for r in calls),
                sum(r.is_error for r in calls),
                sum(r.served_by == "live" for r in calls),
            )
        self.misses += counts[0]
        self.errors_served += counts[1]
        self.live_calls += counts[2]
        self.calls.extend(calls)

    def call(self, tool: str, args: Any = None) -> ToolResult:
        """Serve one call (R12-R17) and record it."""
        if args is None:
            args = {}
        step = len(self.calls)
        call_id = f"{self._call_prefix}{step}"
        log = self._log
        call_key: str | None = UNSET
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
        call_key: str | None = UNSET
        if self._pre_post:
            call_key = fast_key(args)
        log.emit(
            "agent.tool-called",
            events.tool_called(
                self._agent_id,
                tool,
                call_id,
                args,
                include_content=self._include_content,
                pre_post=self._pre_post,
                call_key=call_key,
            ),
        )
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
        log.emit(
            "agent.tool-returned",
            events.tool_returned(
                self._agent_id,
                tool,
                call_id,
                result,
                served_by,
                entry,
                include_content=self._include_content,
                pre_post=self._pre_post,
            ),
        )
