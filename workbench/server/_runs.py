"""The host's runs: ids, execution on worker threads, the event log as it grows, diffs.

A run is a :class:`~workbench.ReplaySession` driven by :meth:`ReplaySession.run`, the loop
``workbench replay`` runs, on a worker thread; so its events and summary are those of
``workbench replay`` with the same suite, agent, seed and trials, byte for byte (R22). The first
run of a suite, version and seed gets the id ``workbench replay`` writes; a later one (the same
suite run again, or a fork) gets that id salted with its ordinal, so ids stay unique.

State is changed on the event loop's thread only; a worker appends events to its session's log
(a list: appends are atomic) and tells the loop through ``call_soon_threadsafe``. Readers wait
on :meth:`Run.wait` and read :attr:`Run.events`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final, Literal

from .._common.jsonio import dumps_stable
from .._replay.events import run_id_for
from .._replay.options import LiveTool, ReplayOptions
from .._replay.results import ReplayResult
from .._replay.session import ReplaySession, agent_id_for
from .._suite.capabilities import HostProfile
from ._auth import ApiKey
from ._requests import RunRecipe
from ._wire import WireError, dumps, project_id

__all__ = ["TERMINAL", "Run", "RunStore"]

log = logging.getLogger("workbench.server")

Status = Literal["pending", "running", "completed", "failed", "cancelled"]
TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})
_TERMINAL_TYPES: Final[Mapping[str, Status]] = {
    "run.completed": "completed",
    "run.failed": "failed",
    "run.cancelled": "cancelled",
}
WORKFLOW_ID: Final = "workbench.eval"
"""The ``workflowId`` an eval run's snapshot carries (the snapshot requires one)."""


class _Cancelled(Exception):
    pass


def _now() -> str:
    moment = datetime.now(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


class Run:
    """One run on the host: its recipe, session, status and readers."""

    def __init__(
        self,
        ordinal: int,
        recipe: RunRecipe,
        session: ReplaySession,
        agent: Any,
        owner: ApiKey,
        *,
        parent: Run | None = None,
        fork: Mapping[str, Any] | None = None,
    ) -> None:
        self.ordinal = ordinal
        self.recipe = recipe
        self.session = session
        self.agent = agent
        self.owner = owner
        self.run_id: str = session.run_id
        self.parent_run_id: str | None = parent.run_id if parent is not None else None
        self.fork = dict(fork) if fork is not None else None
        self.wire_id = project_id(self.run_id)
        self.created_at = _now()
        self.started_at: str | None = None
        self.completed_at: str | None = None
        self.result: ReplayResult | None = None
        self.cancel_requested = False
        self._lines: list[str] = []
        self._changed = asyncio.Event()

    # -- the log -----------------------------------------------------------------------------

    @property
    def events(self) -> list[dict[str, Any]]:
        """The event log so far (the session's own list)."""
        return self.session.events

    def line(self, sequence: int) -> str:
        """Event ``sequence`` as its JSONL line's text (serialized once)."""
        lines = self._lines
        events = self.session.events
        while len(lines) <= sequence:
            lines.append(dumps(events[len(lines)]))
        return lines[sequence]

    @property
    def status(self) -> Status:
        """From the log: its terminal event's kind, else running once started, else pending."""
        events = self.session.events
        if events:
            terminal = _TERMINAL_TYPES.get(events[-1].get("type", ""))
            if terminal is not None:
                return terminal
        return "running" if self.started_at is not None else "pending"

    @property
    def terminal(self) -> bool:
        """Whether the log has its terminal event."""
        return self.status in TERMINAL

    def summary(self) -> dict[str, Any] | None:
        """The summary of a completed run (``run.completed``'s ``outputs.evalSummary``)."""
        if self.status != "completed":
            return None
        summary: dict[str, Any] = self.session.events[-1]["payload"]["outputs"]["evalSummary"]
        return summary

    def summary_text(self) -> str | None:
        """The summary as ``workbench replay --summary`` writes it (stable JSON)."""
        summary = self.summary()
        return dumps_stable(summary) if summary is not None else None

    def wake(self) -> None:
        """Tell every waiter the log or the status changed (loop thread only)."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait(self, known: int, timeout: float) -> None:
        """Return when the log has more than ``known`` events, the run ended, or ``timeout``
        seconds passed. Workers wake waiters after each trial; a short tick picks up events
        written mid-trial (a slow agent's calls)."""
        deadline = time.monotonic() + timeout
        while len(self.session.events) <= known and not self.terminal:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            changed = self._changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), min(remaining, 0.1))

    # -- the snapshot ------------------------------------------------------------------------

    def snapshot(self, tenant: str) -> dict[str, Any]:
        """The ``RunSnapshot`` (``run-snapshot.schema.json``)."""
        recipe = self.recipe
        status = self.status
        snap: dict[str, Any] = {
            "runId": self.run_id,
            "workflowId": WORKFLOW_ID,
            "status": status,
            "owner": {
                "tenant": tenant,
                "subject": {
                    "issuer": "urn:workbench:serve-host",
                    "subjectId": self.owner.subject,
                    "tenant": tenant,
                    "lane": "api-key",
                    "kind": "user",
                },
            },
            "eventLogSchemaVersion": 3,
            "engineVersion": 1,
        }
        if self.started_at is not None:
            snap["startedAt"] = self.started_at
        if status in TERMINAL and self.completed_at is not None:
            snap["completedAt"] = self.completed_at
        if status == "failed":
            error = self.session.events[-1]["payload"]["error"]
            snap["error"] = {"code": error["code"], "message": error["message"]}
        if recipe.tags is not None:
            snap["tags"] = list(recipe.tags)
        if recipe.metadata is not None:
            snap["metadata"] = dict(recipe.metadata)
        if recipe.configurable is not None:
            snap["configurable"] = dict(recipe.configurable)
        if self.parent_run_id is not None:
            snap["parentRunId"] = self.parent_run_id
        extension: dict[str, Any] = {
            "evalSuiteRef": recipe.suite_ref,
            "suiteId": recipe.suite.suite_id,
            "suiteVersion": recipe.suite.version,
            "suiteOrigin": recipe.origin,
            "agentId": recipe.agent_id,
            "seed": recipe.seed,
            "trials": recipe.trials,
            "includeContent": recipe.include_content,
            "eventCount": len(self.session.events),
        }
        if recipe.fixture_runs:
            extension["fixtureRuns"] = dict(recipe.fixture_runs)
        if recipe.faults:
            extension["faults"] = [dict(f) for f in recipe.faults]
        if self.fork is not None:
            extension["fork"] = dict(self.fork)
        snap["extensions"] = {"workbench.eval": extension}
        return snap


class RunStore:
    """Every run of one host: ids, creation, execution, lookup, eviction."""

    def __init__(
        self,
        profile: HostProfile,
        *,
        live_tools: Mapping[str, LiveTool] | None = None,
        workers: int = 4,
        max_runs: int = 10_000,
        max_unfinished: int = 1000,
    ) -> None:
        self.profile = profile
        self.live_tools = dict(live_tools or {})
        self.max_runs = max_runs
        self.max_unfinished = max_unfinished
        self._unfinished = 0
        self._runs: OrderedDict[str, Run] = OrderedDict()
        self._issued: dict[str, int] = {}
        self._ordinal = 0
        self._pool = concurrent.futures.ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="workbench-run"
        )
        self._tasks: set[asyncio.Future[None]] = set()

    def __len__(self) -> int:
        return len(self._runs)

    def get(self, run_id: str) -> Run | None:
        """The run with that (bound) id."""
        return self._runs.get(run_id)

    def newest_first(self) -> list[Run]:
        """Every run, the newest first."""
        return list(reversed(self._runs.values()))

    def _allocate(self, recipe: RunRecipe) -> str:
        base = run_id_for(recipe.suite.suite_id, recipe.suite.version, recipe.seed)
        count = self._issued.get(base, 0) + 1
        self._issued[base] = count
        if count == 1:
            return base
        return run_id_for(recipe.suite.suite_id, recipe.suite.version, recipe.seed, f"#{count}")

    def create(
        self,
        recipe: RunRecipe,
        agent: Any,
        owner: ApiKey,
        *,
        parent: Run | None = None,
        fork: Mapping[str, Any] | None = None,
        register: bool = True,
    ) -> Run:
        """A new run of ``recipe`` (``eval.started`` written), started on a worker;
        ``429 rate_limited`` while ``max_unfinished`` runs are waiting or running."""
        if self._unfinished >= self.max_unfinished:
            raise WireError(
                "rate_limited",
                f"{self._unfinished} runs are waiting or running here; "
                "create again when some have finished",
                headers={"Retry-After": "1"},
            )
        options = ReplayOptions(
            trials=recipe.trials,
            seed=recipe.seed,
            host_profile=self.profile,
            live_tools=self.live_tools or None,
            include_content=recipe.include_content,
            validate=False,  # checked at create (R11)
        )
        session = ReplaySession(
            recipe.suite,
            options,
            agent_id=agent_id_for(getattr(agent, "agent_id", None)),
            run_id=self._allocate(recipe),
            fixture_runs=recipe.fixture_runs or None,
        )
        self._ordinal += 1
        run = Run(self._ordinal, recipe, session, agent, owner, parent=parent, fork=fork)
        self._unfinished += 1
        if register:
            self.register(run)
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(self._pool, self._execute, run, loop)
        task = asyncio.ensure_future(future)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return run

    def register(self, run: Run) -> None:
        """Make a run visible (and forget the oldest finished ones beyond ``max_runs``)."""
        self._runs[run.run_id] = run
        while len(self._runs) > self.max_runs:
            oldest = next((r for r in self._runs.values() if r.terminal), None)
            if oldest is None:
                break
            del self._runs[oldest.run_id]

    def _execute(self, run: Run, loop: asyncio.AbstractEventLoop) -> None:
        """On a worker thread: run the session to its end; always leave a terminal event."""

        def tell(callback: Any, *args: Any) -> None:
            # A loop already closed (the host stopped) has no reader left to tell.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(callback, *args)

        tell(_started, run)
        session = run.session

        def on_trial(_: Any) -> None:
            tell(run.wake)
            if run.cancel_requested:
                raise _Cancelled

        result: ReplayResult | None = None
        try:
            if run.cancel_requested:
                raise _Cancelled
            result = session.run(run.agent, on_trial=on_trial)
        except _Cancelled:
            session.stop("cancelled", "cancelled", "cancelled by request")
        except BaseException as exc:  # whatever happens, the log gets its terminal event
            log.exception("run %s failed", run.run_id)
            session.stop("failed", "internal_error", f"the run failed: {type(exc).__name__}")
        tell(self._finished, run, result)

    def _finished(self, run: Run, result: ReplayResult | None) -> None:
        self._unfinished -= 1
        _finished(run, result)

    def close(self) -> None:
        """Stop taking work; running runs finish on their threads."""
        for run in self._runs.values():
            run.cancel_requested = True
        self._pool.shutdown(wait=False, cancel_futures=True)


def _started(run: Run) -> None:
    run.started_at = _now()
    run.wake()


def _finished(run: Run, result: ReplayResult | None) -> None:
    run.result = result
    run.completed_at = _now()
    run.wake()
