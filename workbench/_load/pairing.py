"""Pairing recorded calls with their results (SPEC R2), shared by every loader.

A result pairs with the *open* call (made, not yet answered) that has its id. An id may be reused
once its call has been answered. A result with no open call of its id, a call never answered and
two open calls with the same id are load problems naming the place and the call id field (the
one given with the call, for a call never answered); the boundaries that did pair are kept.
The OpenWOP loader pairs inline by the same rules (it streams large logs; see ``openwop``).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from .problem_cap import MAX_LISTED_PROBLEMS, unlisted
from .records import LoadProblem, ToolBoundary, new_boundary, set_boundary_index

__all__ = ["CallPairer"]


class _OpenCall(NamedTuple):
    """A call made and not yet answered (a tuple: one is built for every call loaded)."""

    order: int
    call_id: str
    tool: str
    args: Any
    location: str
    where: str
    field_name: str
    line: int | None
    agent_id: str | None
    extra: dict[str, Any]


_new_open_call = tuple.__new__


@dataclass(slots=True)
class CallPairer:
    """Collects calls and results in file order and gives boundaries in call order."""

    file: str
    """The file's name, for problems."""
    problems: list[LoadProblem] = field(default_factory=list)
    """Problems found so far."""
    current_line: int | None = None
    """The file line being read (JSONL chat files), used when a call gives no ``line``."""
    terminal_calls: list[dict[str, Any]] = field(default_factory=list)
    """Terminal calls left without a result by design (set by :meth:`finish`, R36)."""
    _open: dict[str, _OpenCall] = field(default_factory=dict)
    _done: list[tuple[int, ToolBoundary]] = field(default_factory=list)
    _calls: int = 0
    _answered_out_of_order: bool = False
    _unlisted: int = 0
    _refused: set[str] = field(default_factory=set)

    def problem(self, where: str, field_name: str, message: str, line: int | None = None) -> None:
        """Record a problem at ``where``; past :data:`MAX_LISTED_PROBLEMS`, only count it (a file of
        millions of broken records is refused as fast as one of ten, in bounded memory)."""
        if len(self.problems) >= MAX_LISTED_PROBLEMS:
            self._unlisted += 1
            return
        line = self.current_line if line is None else line
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
        if line is None:
            line = self.current_line
        opened = self._open
        if call_id in opened:
            first = opened[call_id]
            self.problem(
                where,
                field_name,
                f"call id {call_id!r} is already open (made at {first.where}, not yet answered)",
                line,
            )
            return
        location = f"{self.file}:{line}" if line is not None else f"{self.file}: {where}"
        order = self._calls
        opened[call_id] = _new_open_call(  # _OpenCall(...) without its Python __new__
            _OpenCall,
            (
                order,
                call_id,
                tool,
                args,
                location,
                where,
                field_name,
                line,
                agent_id,
                dict(extra) if extra else {},
            ),
        )
        self._calls = order + 1

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
            if call_id in self._refused:  # its call's problem names it (R35)
                self._refused.discard(call_id)
                return
            self.problem(
                where,
                field_name,
                f"result for call id {call_id!r} has no open call",
                self.current_line if line is None else line,
            )
            return
        order, _, tool, args, location, _, _, _, agent_id, merged = opened
        if extra:
            merged = {**merged, **extra}
        done = self._done
        if done and done[-1][0] > order:
            self._answered_out_of_order = True
        done.append(
            (
                order,
                new_boundary(
                    len(done),  # its index, unless an earlier call is answered later (finish)
                    call_id,
                    tool,
                    args,
                    response,
                    is_error,
                    error_code,
                    error_message,
                    duration_ms,
                    agent_id,
                    location,
                    merged,
                ),
            )
        )

    @property
    def calls_made(self) -> int:
        """How many calls have been made so far (answered or not)."""
        return self._calls

    def refuse(
        self, call_id: str, where: str, field_name: str, message: str, line: int | None = None
    ) -> None:
        """A call that is not made (its arguments, say, are of a type its format never writes:
        R35): a problem at ``where``, and its result, when one comes, is dropped with it rather
        than reported as answering no call."""
        self.problem(where, field_name, message, line)
        self._refused.add(call_id)

    def discard(self, call_id: str) -> None:
        """Forget the open call ``call_id``: its result was a problem, already reported."""
        self._open.pop(call_id, None)

    def is_open(self, call_id: str) -> bool:
        """Whether a call of this id is open (made, not yet answered)."""
        return call_id in self._open

    def open_ids(self) -> list[str]:
        """The ids of the open calls, in call order."""
        return [o.call_id for o in sorted(self._open.values(), key=lambda o: o.order)]

    def finish(
        self,
        terminal: frozenset[str] | Callable[[str], bool] = frozenset(),
        *,
        unfinished: Container[str] = frozenset(),
    ) -> tuple[ToolBoundary, ...]:
        """The paired boundaries in call order, indexed 0..n-1; unanswered calls are problems.

        A call to a tool in ``terminal`` (``finish``, ``submit``; or a tool for which
        ``terminal(name)`` holds) has no result by design (R36): left unanswered, it ends the
        run and is not a problem, unless its id is ``unfinished`` (it began to run and never
        ended: a crash, not the design).
        """
        is_terminal = terminal if callable(terminal) else terminal.__contains__
        for opened in sorted(self._open.values(), key=lambda o: o.order):
            if is_terminal(opened.tool) and opened.call_id not in unfinished:
                self.terminal_calls.append(
                    {"callId": opened.call_id, "tool": opened.tool, "args": opened.args}
                )
                continue
            self.problem(
                opened.where,
                opened.field_name,
                f"call {opened.call_id!r} to {opened.tool!r} is never answered",
                opened.line,
            )
        self._open.clear()
        if self._unlisted:
            self.problems.append(unlisted(self.file, self._unlisted))
            self._unlisted = 0
        if not self._answered_out_of_order:  # answered in call order: indexed as they came
            return tuple([boundary for _, boundary in self._done])
        self._done.sort(key=lambda pair: pair[0])
        out: list[ToolBoundary] = []
        for index, (_, boundary) in enumerate(self._done):
            set_boundary_index(boundary, index)  # the record is fresh and not yet shared
            out.append(boundary)
        return tuple(out)
