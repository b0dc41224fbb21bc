"""OpenWOP v2 event logs (JSONL or a JSON array of RunEventDocs) as promoted runs (SPEC R1-R4).

Events are grouped by ``runId`` (a file may hold several runs), ordered by ``sequence``, and v1
type names are normalised to v2. ``agent.tool-called`` / ``agent.tool-returned`` pairs become tool
boundaries; every other event is carried opaquely on the run's metadata (R4).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._boundary import LoadProblem, PromotedRun
from .._toolresult import error_text
from ._pairing import CallPairer

__all__ = ["V1_TO_V2", "load_openwop", "normalise_type", "parse_openwop_text"]

# v1 event type names and their v2 names, read off the official payload schema's two type
# indexes (``$defs._typeIndex`` is v1, the root ``_typeIndex`` is v2: same $def, other name).
V1_TO_V2: dict[str, str] = {
    "agent.toolCalled": "agent.tool-called",
    "agent.toolReturned": "agent.tool-returned",
    "agent.invocation.started": "agent.invocation-started",
    "agent.invocation.completed": "agent.invocation-completed",
    "agent.reasoning.delta": "agent.reasoning-delta",
    "agent.promptResolved": "agent.prompt-resolved",
    "agent.memory.consolidated": "agent.memory-consolidated",
    "run.resuming": "run.resume-started",
    "run.dead_lettered": "run.dead-lettered",
    "replay.divergedAtRefusal": "replay.diverged-at-refusal",
    "model.capability.substituted": "model.capability-substituted",
    "model.capability.insufficient": "model.capability-insufficient",
    "envelope.retry.attempted": "envelope.retry-attempted",
    "envelope.retry.exhausted": "envelope.retry-exhausted",
    "envelope.nlToFormat.engaged": "envelope.nl-to-format-engaged",
    "envelope.recovery.applied": "envelope.recovery-applied",
    "runOrchestrator.decided": "orchestrator.decided",
    "core.dispatch.fanOut": "dispatch.fanned-out",
    "core.dispatch.join": "dispatch.joined",
    "core.workflowChain.event": "workflow-chain.event",
    "core.workflowChain.confidence-escalated": "workflow-chain.confidence-escalated",
    "connector.auth_expired": "connector.auth-expired",
    "deployment.canary.adjusted": "deployment.canary-adjusted",
    "deployment.state.changed": "deployment.state-changed",
    "roster.run.initiated": "roster.run-initiated",
    "tool.session.opened": "tool.session-opened",
    "tool.session.closed": "tool.session-closed",
    "trigger.subscription.state.changed": "trigger.subscription-state-changed",
    "trigger.delivery.attempted": "trigger.delivery-attempted",
    "budget.threshold.crossed": "budget.threshold-crossed",
    "voice.speech_start": "voice.speech-start",
    "voice.endpoint_candidate": "voice.endpoint-candidate",
    "voice.turn_commit": "voice.turn-commit",
    "voice.synthesis_chunk": "voice.synthesis-chunk",
    "voice.barge_in": "voice.barge-in",
    "compensation.manual_intervention_required": "compensation.manual-intervention-required",
}

TOOL_CALLED = "agent.tool-called"
TOOL_RETURNED = "agent.tool-returned"
_FAILED_STATUSES = frozenset({"error", "forbidden", "rate_limited"})
_CALLED_KNOWN = frozenset({"agentId", "toolName", "callId", "inputs"})
_RETURNED_KNOWN = frozenset(
    {"agentId", "toolName", "callId", "outcome", "error", "status", "durationMs"}
)
_ENVELOPE_KNOWN = frozenset(
    {"eventId", "runId", "type", "payload", "timestamp", "sequence", "schemaVersion"}
)


def normalise_type(event_type: str) -> str:
    """The v2 name of an event type (v1 names normalised, R1; unknown names kept as they are)."""
    return V1_TO_V2.get(event_type, event_type)


@dataclass(slots=True)
class _Event:
    position: int
    where: str
    line: int | None
    doc: dict[str, Any]


@dataclass(slots=True)
class _RunEvents:
    run_id: str
    events: list[_Event] = field(default_factory=list)


def _iter_jsonl(text: str, file: str, problems: list[LoadProblem]) -> Iterator[_Event]:
    loads = json.loads
    for lineno, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            doc = loads(raw)
        except json.JSONDecodeError as exc:
            problems.append(
                LoadProblem(file, f"line {lineno}", "", f"invalid JSON: {exc.msg}", lineno)
            )
            continue
        if not isinstance(doc, dict):
            problems.append(
                LoadProblem(file, f"line {lineno}", "", "an event must be a JSON object", lineno)
            )
            continue
        yield _Event(lineno, f"line {lineno}", lineno, doc)


def _iter_array(items: Iterable[Any], file: str, problems: list[LoadProblem]) -> Iterator[_Event]:
    for index, doc in enumerate(items):
        if not isinstance(doc, dict):
            problems.append(LoadProblem(file, f"item {index}", "", "an event must be an object"))
            continue
        yield _Event(index, f"item {index}", None, doc)


def parse_openwop_text(text: str, file: str) -> tuple[list[_Event], list[LoadProblem]]:
    """Decode an OpenWOP log (JSONL, or a JSON array when the text starts with ``[``)."""
    problems: list[LoadProblem] = []
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as exc:
            where = f"line {exc.lineno}, column {exc.colno}"
            problems.append(LoadProblem(file, where, "", f"invalid JSON: {exc.msg}", exc.lineno))
            return [], problems
        return list(_iter_array(items, file, problems)), problems
    return list(_iter_jsonl(text, file, problems)), problems


def load_openwop(
    events: list[_Event] | list[Any],
    file: str,
    problems: list[LoadProblem] | None = None,
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """Promoted runs from decoded events (``_Event`` records, or raw event dicts of an array)."""
    problems = list(problems or [])
    if events and not isinstance(events[0], _Event):
        events = list(_iter_array(events, file, problems))
    runs: dict[str, _RunEvents] = {}
    for event in events:
        assert isinstance(event, _Event)
        run_id = event.doc.get("runId")
        key = run_id if isinstance(run_id, str) else ""
        bucket = runs.get(key)
        if bucket is None:
            bucket = runs[key] = _RunEvents(key)
        bucket.events.append(event)
    out: list[PromotedRun] = []
    for number, bucket in enumerate(runs.values()):
        run, run_problems = _build_run(bucket, file, number, len(runs))
        out.append(run)
        problems.extend(run_problems)
    return out, problems


def _sequence_key(event: _Event) -> tuple[int, int]:
    seq = event.doc.get("sequence")
    if isinstance(seq, int) and not isinstance(seq, bool):
        return (seq, event.position)
    return (event.position, event.position)


def _build_run(
    bucket: _RunEvents, file: str, number: int, total: int
) -> tuple[PromotedRun, list[LoadProblem]]:
    pairer = CallPairer(file)
    events = sorted(bucket.events, key=_sequence_key)
    other: list[dict[str, Any]] = []
    outcome = "completed"
    answer: Any = None
    invocation_outcome: str | None = None
    for event in events:
        doc = event.doc
        raw_type = doc.get("type")
        if not isinstance(raw_type, str):
            pairer.problem(event.where, "type", "event has no string type", event.line)
            continue
        event_type = V1_TO_V2.get(raw_type, raw_type)
        if event_type == TOOL_CALLED:
            _read_call(doc, event, pairer)
        elif event_type == TOOL_RETURNED:
            _read_return(doc, event, pairer)
        else:
            other.append(doc)
            payload = doc.get("payload")
            if not isinstance(payload, Mapping):
                continue
            if event_type == "agent.decided":
                decision = payload.get("decision")
                if isinstance(decision, Mapping) and (
                    "answer" in decision or "outcome" in decision
                ):
                    answer = decision.get("answer")
                    if isinstance(decision.get("outcome"), str):
                        outcome = decision["outcome"]
                else:
                    answer = decision
            elif event_type == "agent.invocation-completed":
                value = payload.get("outcome")
                if isinstance(value, str):
                    invocation_outcome = value
            elif event_type == "run.failed":
                invocation_outcome = invocation_outcome or "failed"
    if invocation_outcome is not None:
        outcome = invocation_outcome
    boundaries = pairer.finish()
    run_id = bucket.run_id or f"run-{number}"
    task_key = _task_key(bucket.run_id, number, total)
    metadata: dict[str, Any] = {"otherEvents": other}
    run = PromotedRun(
        run_id=run_id,
        boundaries=boundaries,
        source=file,
        format="openwop",
        outcome=outcome,
        answer=answer,
        task_key=task_key,
        metadata=metadata,
    )
    return run, pairer.problems


def _task_key(run_id: str, number: int, total: int) -> str:
    if not run_id:
        return f"run-{number}"
    opaque = run_id.rsplit("/", 1)[-1]
    return opaque if total > 1 else "run"


def _payload(doc: Mapping[str, Any], event: _Event, pairer: CallPairer) -> Mapping[str, Any] | None:
    payload = doc.get("payload")
    if not isinstance(payload, Mapping):
        pairer.problem(event.where, "payload", "tool event has no payload object", event.line)
        return None
    return payload


def _call_id(payload: Mapping[str, Any], event: _Event, pairer: CallPairer) -> str | None:
    call_id = payload.get("callId")
    if not isinstance(call_id, str) or not call_id:
        pairer.problem(event.where, "payload.callId", "missing or not a string", event.line)
        return None
    return call_id


def _extras(
    doc: Mapping[str, Any], payload: Mapping[str, Any], known: frozenset[str]
) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    for key in payload:
        if key not in known:
            extra[key] = payload[key]
    for key in doc:
        if key not in _ENVELOPE_KNOWN:
            extra[f"envelope.{key}"] = doc[key]
    return extra


def _has_extras(doc: Mapping[str, Any], payload: Mapping[str, Any], known: frozenset[str]) -> bool:
    return not (known.issuperset(payload.keys()) and _ENVELOPE_KNOWN.issuperset(doc.keys()))


def _read_call(doc: Mapping[str, Any], event: _Event, pairer: CallPairer) -> None:
    payload = _payload(doc, event, pairer)
    if payload is None:
        return
    call_id = _call_id(payload, event, pairer)
    tool = payload.get("toolName")
    if not isinstance(tool, str) or not tool:
        pairer.problem(event.where, "payload.toolName", "missing or not a string", event.line)
        return
    if call_id is None:
        return
    agent = payload.get("agentId")
    extra = (
        _extras(doc, payload, _CALLED_KNOWN) if _has_extras(doc, payload, _CALLED_KNOWN) else None
    )
    pairer.call(
        call_id,
        tool,
        payload.get("inputs"),
        where=event.where,
        field_name="payload.callId",
        line=event.line,
        agent_id=agent if isinstance(agent, str) else None,
        extra=extra,
    )


def _read_return(doc: Mapping[str, Any], event: _Event, pairer: CallPairer) -> None:
    payload = _payload(doc, event, pairer)
    if payload is None:
        return
    call_id = _call_id(payload, event, pairer)
    if call_id is None:
        return
    error = payload.get("error")
    status = payload.get("status")
    outcome = payload.get("outcome")
    mcp_error = isinstance(outcome, Mapping) and outcome.get("isError") is True
    is_error = error is not None or status in _FAILED_STATUSES or mcp_error
    code: str | None = None
    message: str | None = None
    response: Any = outcome
    if is_error:
        if isinstance(error, Mapping):
            code = error.get("code") if isinstance(error.get("code"), str) else None
            message = error.get("message") if isinstance(error.get("message"), str) else None
        elif isinstance(error, str):
            message = error
        if code is None and isinstance(status, str) and status != "error":
            code = status
        if outcome is None or not isinstance(outcome, Mapping):
            # The failure's payload is the error object itself (or the status, when the tool
            # never ran): keep it whole so promotion can serve exactly what was recorded.
            response = error if error is not None else {"status": status}
            if outcome is not None:
                response = {"error": error, "outcome": outcome}
        if message is None:
            content = outcome.get("content") if isinstance(outcome, Mapping) else None
            message = error_text(content) if content is not None else (code or "tool call failed")
    duration = payload.get("durationMs")
    extra = (
        _extras(doc, payload, _RETURNED_KNOWN)
        if _has_extras(doc, payload, _RETURNED_KNOWN)
        else None
    )
    pairer.result(
        call_id,
        response,
        is_error,
        where=event.where,
        field_name="payload.callId",
        line=event.line,
        error_code=code,
        error_message=message,
        duration_ms=duration
        if isinstance(duration, int) and not isinstance(duration, bool)
        else None,
        extra={f"returned.{k}": v for k, v in extra.items()} if extra else None,
    )
