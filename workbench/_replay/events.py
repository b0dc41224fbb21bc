"""The event log a replay writes: OpenWOP v2 RunEventDocs and every payload (SPEC R18-R22).

:class:`EventLog` gives each event its sequence (from 0), a deterministic id and a logical
timestamp, so the same suite, agent and seed give byte-identical logs (R22); wall-clock time is
used only when the caller asks for it. The functions below build every payload the host writes,
in the order of R19: ``eval.started``, per trial ``agent.invocation-started``, per call
``agent.tool-called`` / ``agent.tool-returned`` (R20: ``outcome`` for a success, ``error`` and no
``outcome`` for a failure), ``agent.decided``, ``agent.invocation-completed``, per task
``eval.scored``, then ``eval.completed`` and ``run.completed``. Tool events carry no suite content
unless the caller asks for it: a served error has a fixed ``error.message`` (R20, RFC 0245
section D) and a success's ``outcome`` says how it was served, not what. ``eval.*`` payloads are
ids, scores and counts; extension figures travel under ``x-`` keys (R21).

Longer than 400 lines: every payload of R19 is built here, beside the log that orders them, so
the one place that says what an event holds stays one place.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from .._common.canonical import jcs_text
from .._common.jsonio import escape_surrogates, write_text_atomic
from .._common.markers import compact_json_line, is_event_log_file
from .._common.toolresult import ToolResult, error_text
from .._common.vocab import FIXTURE_MISS, LIVE_TOOL_ERROR, NEEDS_MODEL, TOOL_ERROR, ServedBy

__all__ = [
    "ERROR_MESSAGES",
    "EventLog",
    "args_hash",
    "decided",
    "eval_completed",
    "eval_scored",
    "eval_started",
    "events_to_jsonl",
    "invocation_completed",
    "invocation_started",
    "run_cancelled",
    "run_completed",
    "run_failed",
    "run_id_for",
    "tool_called",
    "tool_returned",
]

ERROR_MESSAGES: Final[Mapping[str, str]] = {
    TOOL_ERROR: "fixture served a recorded tool error",
    FIXTURE_MISS: "no fixture entry matches this call",
    LIVE_TOOL_ERROR: "live tool call failed",
}
"""The short, fixed ``error.message`` per code: never the payload (R20)."""

_LOGICAL_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
_LOGICAL_DAY = "2026-01-01"
_MS_PER_DAY = 86_400_000
SCHEMA_VERSION = 1


def run_id_for(suite_id: str, suite_version: str, seed: int, salt: str = "") -> str:
    """A deterministic OpenWOP ``runId`` (``workbench/<24 hex>``) for a suite, version and seed."""
    digest = hashlib.sha256(f"{suite_id}\0{suite_version}\0{seed}\0{salt}".encode()).hexdigest()
    return f"workbench/{digest[:24]}"


class EventLog:
    """An append-only list of RunEventDocs with sequence, ids and logical timestamps.

    With ``enabled=False`` nothing is recorded (replays that only want results run faster).
    """

    __slots__ = ("_id_prefix", "_wall_clock", "enabled", "events", "run_id")

    def __init__(self, run_id: str, *, enabled: bool = True, wall_clock: bool = False) -> None:
        self.run_id = run_id
        """The run's id (``tenant/opaque``)."""
        self.enabled = enabled
        """Whether events are recorded."""
        self.events: list[dict[str, Any]] = []
        """The events so far, in sequence order."""
        self._wall_clock = wall_clock
        self._id_prefix = "evt-" + run_id.rsplit("/", 1)[-1]

    def timestamp(self, sequence: int) -> str:
        """The event's timestamp: logical (epoch + sequence ms) unless wall-clock was asked."""
        if not self._wall_clock and 0 <= sequence < _MS_PER_DAY:
            # Fast path: the logical clock's first day, formatted without datetime arithmetic.
            seconds, millis = divmod(sequence, 1000)
            minutes, seconds = divmod(seconds, 60)
            hours, minutes = divmod(minutes, 60)
            return f"{_LOGICAL_DAY}T{hours:02d}:{minutes:02d}:{seconds:02d}.{millis:03d}Z"
        moment = (
            datetime.now(UTC)
            if self._wall_clock
            else _LOGICAL_EPOCH + timedelta(milliseconds=sequence)
        )
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"

    def emit(self, event_type: str, payload: Mapping[str, Any]) -> dict[str, Any] | None:
        """Append one event and return it (``None`` when the log is disabled)."""
        if not self.enabled:
            return None
        sequence = len(self.events)
        event = {
            "eventId": f"{self._id_prefix}-{sequence:08d}",
            "runId": self.run_id,
            "type": event_type,
            "payload": dict(payload),
            "timestamp": self.timestamp(sequence),
            "sequence": sequence,
            "schemaVersion": SCHEMA_VERSION,
        }
        self.events.append(event)
        return event

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.events)

    def to_jsonl(self) -> str:
        """The log as JSONL text (one compact, key-sorted event a line)."""
        return events_to_jsonl(self.events)

    def write(
        self,
        path: str | os.PathLike[str],
        *,
        overwrite: bool = False,
        parents: bool = False,
        inputs: Iterable[str | os.PathLike[str] | None] = (),
    ) -> None:
        """Write the log as JSONL, atomically (an existing file is replaced when it is an event
        log the workbench wrote, or with ``overwrite=True``; see :func:`write_event_log`)."""
        write_event_log(path, self.events, overwrite=overwrite, parents=parents, inputs=inputs)


def events_to_jsonl(events: Iterable[Mapping[str, Any]]) -> str:
    """JSONL text of events: one compact JSON object a line, keys sorted, UTF-8 (a lone
    surrogate in recorded content is written as its JSON escape)."""
    return "".join(escape_surrogates(compact_json_line(e)) for e in events)


def write_event_log(
    path: str | os.PathLike[str],
    events: Iterable[Mapping[str, Any]],
    *,
    overwrite: bool = False,
    parents: bool = False,
    inputs: Iterable[str | os.PathLike[str] | None] = (),
) -> None:
    """Write events as JSONL atomically. The path is checked first: not an input, not a folder,
    device or FIFO; an existing file only if it is an event log the workbench wrote
    (:data:`is_event_log_file`) or with ``overwrite=True``; missing folders only with
    ``parents=True``."""
    write_text_atomic(
        path,
        events_to_jsonl(events),
        overwrite=overwrite,
        parents=parents,
        recognise=is_event_log_file,
        inputs=inputs,
    )


# -- eval and invocation payloads (R19, R21) ----------------------------------------------------


def eval_started(
    suite_id: str,
    suite_version: str,
    task_count: int,
    modes: Sequence[Any],
    seed: int,
    fixture_runs: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """``eval.started``: the suite, how many tasks run, the modes and the run's seed; with
    ``fixture_runs`` (RFC 0252: task id -> the recorded run its fixtures came from), that map
    echoed as ``x-fixtureRuns``. (RFC 0252 names the member ``fixtureRuns``; the vendored
    payload schema predates it and its ``evalStarted`` is closed but for ``x-`` keys.)"""
    payload: dict[str, Any] = {
        "suiteId": suite_id,
        "suiteVersion": suite_version,
        "taskCount": task_count,
        "modes": list(modes),
        "x-seed": seed,
    }
    if fixture_runs:
        payload["x-fixtureRuns"] = dict(fixture_runs)
    return payload


def invocation_started(
    invocation_id: str, agent_id: str, task_id: str, trial: int
) -> dict[str, Any]:
    """``agent.invocation-started``: one trial of one task begins."""
    return {
        "invocationId": invocation_id,
        "agentId": agent_id,
        "source": "run-api",
        "x-taskId": task_id,
        "x-trial": trial,
    }


def decided(
    agent_id: str,
    outcome: str,
    answer: Any,
    include_content: bool,
    model_turns: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """``agent.decided``: the outcome (and the answer only when content is asked for).

    ``model_turns`` (an LLM agent's): ``(recorded, model)`` turn counts, as ``x-modelTurns``.
    Cached and live turns are both ``model``, so a rerun from the model cache writes the same
    bytes as the run that called the model (R41, R22).
    """
    decision: dict[str, Any] = {"outcome": outcome}
    if include_content and answer is not None:
        decision["answer"] = answer
    payload: dict[str, Any] = {"agentId": agent_id, "decision": decision}
    if model_turns is not None:
        payload["x-modelTurns"] = {"recorded": model_turns[0], "model": model_turns[1]}
    return payload


def invocation_completed(invocation_id: str, agent_id: str, outcome: str) -> dict[str, Any]:
    """``agent.invocation-completed``: the trial's invocation ended with ``outcome``.

    ``needs-model`` is not one of RFC 0077's outcomes: it is written as ``failed`` (the
    invocation was ended for want of a model) with ``x-outcome: "needs-model"`` (R41).
    """
    if outcome == NEEDS_MODEL:
        return {
            "invocationId": invocation_id,
            "agentId": agent_id,
            "outcome": "failed",
            "x-outcome": NEEDS_MODEL,
        }
    return {"invocationId": invocation_id, "agentId": agent_id, "outcome": outcome}


def eval_scored(
    task_id: str,
    score: float,
    passed: bool,
    fixture_misses: int,
    trials: int,
    passed_trials: int,
    pass_hat_k: Mapping[str, float],
    needs_model: int = 0,
) -> dict[str, Any]:
    """``eval.scored``: a task's score over its trials; misses and trial figures as ``x-`` keys
    (``x-needsModelCount`` when trials ended ``needs-model``, R41)."""
    payload: dict[str, Any] = {
        "taskId": task_id,
        "score": score,
        "passed": passed,
        "x-fixtureMissCount": fixture_misses,
        "x-trials": {"n": trials, "passed": passed_trials},
        "x-passHatK": dict(pass_hat_k),
    }
    if needs_model:
        payload["x-needsModelCount"] = needs_model
    return payload


def eval_completed(summary: Mapping[str, Any]) -> dict[str, Any]:
    """``eval.completed``: the summary's figures (content-free, R21)."""
    return {
        "aggregateScore": summary["aggregateScore"],
        "passed": summary["passed"],
        "taskCount": summary["taskCount"],
        "passedCount": summary["passedCount"],
        "x-fixtureMissCount": summary["fixtureMissCount"],
        **(
            {"x-needsModelCount": summary["needsModelCount"]}
            if "needsModelCount" in summary
            else {}
        ),
    }


def run_completed(summary: Mapping[str, Any]) -> dict[str, Any]:
    """``run.completed``: the run's outputs, which hold the summary (R19)."""
    return {"outputs": {"evalSummary": summary}}


def run_failed(code: str, message: str) -> dict[str, Any]:
    """``run.failed``: the run ended without a summary (``error`` is ``{code, message}``)."""
    return {"error": {"code": code, "message": message}}


def run_cancelled(reason: str) -> dict[str, Any]:
    """``run.cancelled``: the run was stopped before it finished."""
    return {"reason": reason}


# -- tool payloads (R20) --------------------------------------------------------------------------


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


def args_hash(args: Any, call_key: str | None) -> str:
    """``argsHash``: SHA-256 over the RFC 8785 (JCS) text of the args (RFC 0064).

    ``call_key`` is the args' compact sorted-key JSON when the caller has it (the host computes
    it for matching): that text is the JCS text unless the args hold a float, a non-ASCII or
    non-string key, an integer beyond 2**53 or a lone surrogate (UTF-8 refuses it), in which
    case JCS proper is written.
    """
    data: bytes | None = None
    if call_key is not None and not _needs_canonical(args):
        try:
            data = call_key.encode("utf-8")
        except UnicodeEncodeError:
            data = None
    if data is None:
        data = jcs_text(args).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def tool_called(
    agent_id: str,
    tool: str,
    call_id: str,
    args: Any,
    *,
    include_content: bool,
    pre_post: bool,
    call_key: str | None,
) -> dict[str, Any]:
    """``agent.tool-called``; with ``toolHooks.prePostEvents``, ``argsHash`` and ``transport``."""
    payload: dict[str, Any] = {"agentId": agent_id, "toolName": tool, "callId": call_id}
    if include_content:
        payload["inputs"] = args
    if pre_post:
        payload["argsHash"] = args_hash(args, call_key)
        payload["transport"] = "native"
    return payload


def tool_returned(
    agent_id: str,
    tool: str,
    call_id: str,
    result: ToolResult,
    served_by: ServedBy,
    entry: int | None,
    *,
    include_content: bool,
    pre_post: bool,
) -> dict[str, Any]:
    """``agent.tool-returned`` (R20): ``error`` (a fixed message per code) and no ``outcome`` for
    a failure; ``outcome`` for a success (how it was served, or the result with content)."""
    payload: dict[str, Any] = {"agentId": agent_id, "toolName": tool, "callId": call_id}
    if result.is_error:
        code = result.error_code or TOOL_ERROR
        message = ERROR_MESSAGES.get(code, "tool call failed")
        error: dict[str, Any] = {"code": code, "message": message}
        if include_content:
            error["details"] = {"text": error_text(result.content)}
        payload["error"] = error
    elif include_content:
        payload["outcome"] = result.to_mcp()
    else:
        outcome: dict[str, Any] = {"servedBy": served_by}
        if entry is not None:
            outcome["entry"] = entry
        payload["outcome"] = outcome
    if pre_post:
        payload["status"] = "error" if result.is_error else "ok"
        payload["durationMs"] = 0
    payload["x-servedBy"] = served_by
    return payload
