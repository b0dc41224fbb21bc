"""Pairing recorded calls with their results (SPEC R2), shared by every loader.

A result pairs with the *open* call (made, not yet answered) that has its id. An id may be reused
once its call has been answered. A result with no open call of its id, a call never answered and
two open calls with the same id are load problems; the boundaries that did pair are kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .._boundary import LoadProblem, ToolBoundary

__all__ = ["CallPairer"]


@dataclass(slots=True)
class _OpenCall:
    order: int
    call_id: str
    tool: str
    args: Any
    location: str
    where: str
    line: int | None
    agent_id: str | None
    extra: dict[str, Any]


@dataclass(slots=True)
class CallPairer:
    """Collects calls and results in file order and gives boundaries in call order."""

    file: str
    """The file's name, for problems."""
    problems: list[LoadProblem] = field(default_factory=list)
    """Problems found so far."""
    _open: dict[str, _OpenCall] = field(default_factory=dict)
    _done: list[tuple[int, ToolBoundary]] = field(default_factory=list)
    _calls: int = 0

    def problem(self, where: str, field_name: str, message: str, line: int | None = None) -> None:
        """Record a problem at ``where``."""
        self.problems.append(LoadProblem(self.file, where, field_name, message, line))

    def call(
        self,
        call_id: str,
        tool: str,
        args: Any,
        *,
        where: str,
        field_name: str,
        line: int | None = None,
        agent_id: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        """A call was made."""
        if call_id in self._open:
            first = self._open[call_id]
            self.problem(
                where,
                field_name,
                f"call id {call_id!r} is already open (made at {first.where}, not yet answered)",
                line,
            )
            return
        location = f"{self.file}:{line}" if line is not None else f"{self.file}: {where}"
        self._open[call_id] = _OpenCall(
            self._calls, call_id, tool, args, location, where, line, agent_id, dict(extra or {})
        )
        self._calls += 1

    def result(
        self,
        call_id: str,
        response: Any,
        is_error: bool,
        *,
        where: str,
        field_name: str,
        line: int | None = None,
        error_code: str | None = None,
        error_message: str | None = None,
        duration_ms: int | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        """A result arrived for ``call_id``."""
        opened = self._open.pop(call_id, None)
        if opened is None:
            self.problem(
                where, field_name, f"result for call id {call_id!r} has no open call", line
            )
            return
        merged = opened.extra
        if extra:
            merged = {**merged, **extra}
        boundary = ToolBoundary(
            index=-1,
            call_id=call_id,
            tool=opened.tool,
            args=opened.args,
            response=response,
            is_error=is_error,
            error_code=error_code,
            error_message=error_message,
            duration_ms=duration_ms,
            agent_id=opened.agent_id,
            location=opened.location,
            extra=merged,
        )
        self._done.append((opened.order, boundary))

    def finish(self) -> tuple[ToolBoundary, ...]:
        """The paired boundaries in call order, indexed 0..n-1; unanswered calls are problems."""
        for opened in sorted(self._open.values(), key=lambda o: o.order):
            self.problem(
                opened.where,
                "",
                f"call {opened.call_id!r} to {opened.tool!r} is never answered",
                opened.line,
            )
        self._open.clear()
        self._done.sort(key=lambda pair: pair[0])
        out: list[ToolBoundary] = []
        for index, (_, boundary) in enumerate(self._done):
            out.append(_with_index(boundary, index))
        return tuple(out)


def _with_index(boundary: ToolBoundary, index: int) -> ToolBoundary:
    # dataclasses.replace is slow on large logs; the record is fresh and not yet shared.
    object.__setattr__(boundary, "index", index)
    return boundary
