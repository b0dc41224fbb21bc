"""GitHub Copilot CLI session event logs as promoted runs (SPEC R34-R36).

Copilot CLI writes each session's events to ``~/.copilot/session-state/<id>/events.jsonl``,
and ``copilot -p PROMPT --output-format json`` prints the same events, one JSON object a line:
``{"type": "<area>.<event>", "data": {...}, "id", "timestamp", "parentId"}``, with
``"ephemeral": true`` on streaming pieces and ``agentId`` on a sub-agent's events (the event
schema is the Copilot SDK's ``session-events``). What is read:

- ``session.start`` begins a run (``sessionId``, ``copilotVersion``, ``selectedModel``); a file
  holding several sessions one after another is one run per session;
- ``tool.execution_start`` is a call (``toolCallId``, ``toolName``, ``arguments``; an MCP
  tool's ``mcpServerName`` and ``mcpToolName`` kept on ``extra``), and
  ``tool.execution_complete`` its result: ``success: false`` is a failure whose
  ``error.message`` is served (the events keep no more of what the model was told; ``error.code``
  kept as ``error_code``); a shell
  command that exited non-zero, which the CLI reports a success (its ``shellExecution`` or a
  ``terminal``/``shell_exit`` block of ``result.contents`` says the ``exitCode``, older
  versions only the text's ending), is a failure too (``exit_code:N``, R36). The fixture
  serves the text the model was sent (``result.content``, else the error's message);
- a call an ``assistant.message`` requested (``toolRequests``) whose execution never started
  and yet completed (a permission denied before it ran) is read from the request;
- a sub-agent's calls keep the sub-agent's name (``subagent.started`` names the agent of an
  ``agentId``, and of the ``task`` call that started it, which older versions name on each
  event as ``parentToolCallId``);
- the root agent's ``system.message`` (the system prompt), ``user.message`` (what the model was
  sent: ``transformedContent``, else ``content``), ``assistant.message`` and tool results are the
  run's conversation (R40); its last text with no call is the answer;
- ``result`` (the ``-p`` output's last line) and ``session.shutdown``: a non-zero ``exitCode``
  or a shutdown of type ``error`` makes the run ``failed``.

Every other event is a known non-tool record, counted by type (R35); one of an area the SDK's
schema does not list (newer than this reader) is kept whole in ``metadata.otherRecords`` (R4).
A log whose arguments and results were redacted (``"[REDACTED]"``, as Copilot's own content
exclusion writes them) loads with each such call marked ``extra.contentNotRecorded``: a suite
would serve the placeholder.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from .._common.toolresult import text_content
from .common import StreamRun, json_args, json_kind, promote_runs, text_of
from .copilot_shell import SHELL_TOOLS, WrongExit, exit_code_of
from .records import LoadProblem, PromotedRun

__all__ = ["load_copilot_cli", "sniff_copilot_cli"]

_AREA_NAMES = (
    "session user assistant tool subagent hook skill permission model system external_tool"
    " pending_messages user_input elicitation sampling mcp command commands capabilities"
    " exit_plan_mode auto_mode_switch session_limits_exhausted factory tool_search ui mcp_app"
)
_AREAS = frozenset(_AREA_NAMES.split())
"""The areas of the event types Copilot's SDK schema lists (``tool.execution_start``: ``tool``):
an event of another area (newer than this reader) is kept whole (R4), not only counted."""
_TELLING = frozenset(
    {
        "session.start",
        "session.resume",
        "user.message",
        "assistant.message",
        "assistant.turn_start",
        "tool.execution_start",
        "tool.execution_complete",
    }
)
"""Event types one of which a Copilot log's first records hold."""
_REDACTED = "[REDACTED]"
_START_READ = frozenset({"toolCallId", "toolName", "arguments"})
_REQUEST_READ = frozenset({"toolCallId", "name", "arguments"})
_COMPLETE_READ = frozenset({"toolCallId", "success", "result", "error"})


def sniff_copilot_cli(heads: Sequence[Any]) -> bool:
    """Whether a JSONL file's first records are Copilot CLI events: one of them a session,
    message or tool event, and all but one in ten (one, in a short file) objects whose ``type`` is
    ``<area>.<event>`` and whose ``data`` is an object (the ``-p`` output's ``result`` line
    counts too). An event of an area newer than this reader, or a stray line, is then read as
    what it is (counted, or a problem at its line), not a reason to refuse the file."""
    if not heads:
        return False
    telling = False
    shaped = 0
    for record in heads:
        if not isinstance(record, dict):
            continue
        kind = record.get("type")
        if kind == "result" and "data" not in record:
            shaped += 1
        elif isinstance(kind, str) and "." in kind and isinstance(record.get("data"), dict):
            shaped += 1
            telling = telling or kind in _TELLING
    return telling and shaped >= len(heads) - max(1, len(heads) // 10)


@dataclass(slots=True)
class _Run(StreamRun):
    start: dict[str, Any] = field(default_factory=dict)
    requests: dict[str, tuple[str, Any, dict[str, Any], str, int | None]] = field(
        default_factory=dict
    )
    """Calls the model requested, by id: their tool, arguments, the request as recorded, and
    where (its place and line)."""
    agents: dict[str, str] = field(default_factory=dict)
    """Sub-agent names by their instance id (``agentId``) and by the call that started them."""
    exit_code: Any = None
    failed_shutdown: bool = False
    session_id: Any = None
    """The ``-p`` output's ``result`` line's ``sessionId`` (it has no ``session.start``)."""
    waiting: set[str] = field(default_factory=set)
    """The ids of the calls requested and neither started nor completed since (one still
    waiting at the end never ran; an id may be requested again once its call is answered)."""
    shells: set[str] = field(default_factory=set)
    """The ids of the shell calls (a shell tool's name, or its ``shellToolInfo``)."""
    named: dict[str, int] = field(default_factory=dict)
    """How many sub-agents of each name started (the second of a name is ``<name>-2``)."""
    held: list[str] = field(default_factory=list)
    """User messages before the first reply, put after the system prompt the CLI logs later."""
    replied: bool = False


def load_copilot_cli(
    docs: Sequence[tuple[int, Any]], file: str, *, unit: str = "line"
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """A run per session from the log's records ``(line, record)`` (``unit``: ``item``, for
    the events saved as one JSON array, each numbered by its index)."""
    runs: list[_Run] = []
    run = _Run(file)
    problems: list[LoadProblem] = []
    lines = unit == "line"
    counts, pairer = run.tally.counts, run.pairer
    for number, record in docs:
        line = number if lines else None
        if type(record) is not dict:
            where = f"{unit} {number}"
            problems.append(LoadProblem(file, where, "", "a record must be an object", line))
            continue
        kind = record.get("type")
        if kind == "session.start" and (run.start or counts):
            runs.append(run)
            run = _Run(file)
            counts, pairer = run.tally.counts, run.pairer
        pairer.current_line = line
        if type(kind) is not str:
            pairer.problem(f"{unit} {number}", "type", "missing or not a string")
            continue
        counts[kind] = counts.get(kind, 0) + 1
        if kind == "result" and "data" not in record:  # the -p output's last line
            run.exit_code = record.get("exitCode")
            if run.exit_code is not None and type(run.exit_code) is not int:  # R35
                wrong = f"{json_kind(run.exit_code)}, not an integer: the run's outcome is unknown"
                pairer.problem(f"{unit} {number}", "exitCode", wrong)
            run.session_id = record.get("sessionId")
            continue
        data = record.get("data")
        if type(data) is not dict:
            counts[kind] -= 1  # not an event: a problem, not a record of its type
            if not counts[kind]:
                del counts[kind]
            pairer.problem(f"{unit} {number}", "data", "missing or not an object")
            continue
        if record.get("ephemeral") is True:
            continue  # a streaming piece: its whole is another event
        if kind not in _TELLING and kind.partition(".")[0] not in _AREAS:  # (_TELLING's known)
            run.tally.unknown.append(record)  # an area newer than this reader: kept (R4)
            continue
        where = f"{unit} {number}"
        if kind == "tool.execution_start":
            _start(run, record, data, where)
        elif kind == "tool.execution_complete":
            _complete(run, record, data, where)
        elif kind == "assistant.message":
            _assistant(run, record, data, where)
        elif kind == "user.message":
            if _agent(run, record, data) is None:
                said = data.get("transformedContent")
                run.held.append(said if isinstance(said, str) else text_of(data.get("content")))
                if run.replied:
                    _flush(run)
        elif kind == "system.message":
            if _agent(run, record, data) is None and data.get("role") in (None, "system"):
                run.talk.system(text_of(data.get("content")))
                _flush(run)
        elif kind == "subagent.started":
            name = data.get("agentName")
            if isinstance(name, str) and name:
                count = run.named[name] = run.named.get(name, 0) + 1
                named = name if count == 1 else f"{name}-{count}"  # another of the same kind
                for key in (record.get("agentId"), data.get("toolCallId")):
                    if isinstance(key, str) and key:
                        run.agents[key] = named
        elif kind == "session.start":
            run.start = dict(data)  # the whole start event (its context too: R4)
        elif kind == "session.shutdown":
            run.failed_shutdown = data.get("shutdownType") == "error"
    runs.append(run)
    for each in runs:
        _flush(each)
    return promote_runs(
        runs,
        lambda r: bool(r.start) or bool(r.tally.counts),
        partial(_promoted, file=file),
        problems,
    )


def _flush(run: _Run) -> None:
    """The user messages held back, said (the CLI logs the system prompt after the first)."""
    for text in run.held:
        run.talk.user(text)
        run.turn += 1
    run.held.clear()


def _agent(run: _Run, record: Mapping[str, Any], data: Mapping[str, Any]) -> str | None:
    """The sub-agent an event is of (``None``: the root agent)."""
    if "agentId" not in record and "parentToolCallId" not in data:
        return None  # the usual event: the root agent's
    for key in (record.get("agentId"), data.get("parentToolCallId")):
        if isinstance(key, str) and key:
            return run.agents.get(key, key)
    return None


def _assistant(run: _Run, record: Mapping[str, Any], data: Mapping[str, Any], where: str) -> None:
    requested = data.get("toolRequests")
    calls: list[dict[str, Any]] = []
    for request in requested if isinstance(requested, list) else ():
        if not isinstance(request, dict):
            continue
        call_id, name = request.get("toolCallId"), request.get("name")
        if isinstance(call_id, str) and call_id and isinstance(name, str) and name:
            args = json_args(request.get("arguments"))
            run.requests[call_id] = (name, args, request, where, run.pairer.current_line)
            run.waiting.add(call_id)
            calls.append({"id": call_id, "name": name, "args": args})
    if _agent(run, record, data) is not None:
        return  # a sub-agent's turn: its calls are boundaries, its talk is not the run's
    if run.held:
        _flush(run)
    run.replied = True
    content = data.get("content")
    text = content if isinstance(content, str) else text_of(content)
    run.talk.assistant(text or None, calls, turn=f"turn-{run.turn}", fresh=True)
    if text and not calls:
        run.answer = text
    elif calls:
        run.answer = None


def _start(run: _Run, record: Mapping[str, Any], data: Mapping[str, Any], where: str) -> None:
    call_id, name = data.get("toolCallId"), data.get("toolName")
    if not isinstance(call_id, str) or not call_id:
        run.pairer.problem(where, "data.toolCallId", "missing or not a string")
        return
    if not isinstance(name, str) or not name:
        run.pairer.problem(where, "data.toolName", "missing or not a string")
        return
    run.waiting.discard(call_id)
    if name in SHELL_TOOLS or "shellToolInfo" in data:
        run.shells.add(call_id)
    raw = data.get("arguments")
    if len(data) == 3 and raw is not None:  # the three read (the usual): nothing else kept
        extra = {}
    else:
        extra = {k: v for k, v in data.items() if k not in _START_READ}
    if raw == _REDACTED:
        extra["contentNotRecorded"] = True
    run.pairer.call(
        call_id,
        name,
        json_args(raw),
        where=where,
        field_name="data.toolCallId",
        agent_id=_agent(run, record, data),
        extra=extra,
    )


def _complete(run: _Run, record: Mapping[str, Any], data: Mapping[str, Any], where: str) -> None:
    call_id, success = data.get("toolCallId"), data.get("success")
    if not isinstance(call_id, str) or not call_id:
        run.pairer.problem(where, "data.toolCallId", "missing or not a string")
        return
    waited = call_id in run.waiting
    run.waiting.discard(call_id)
    if waited and not run.pairer.is_open(call_id):
        name, args, request, _, _ = run.requests[call_id]  # requested, never started (denied)
        rest = {k: v for k, v in request.items() if k not in _REQUEST_READ}
        if name in SHELL_TOOLS:
            run.shells.add(call_id)
        run.pairer.call(
            call_id,
            name,
            args,
            where=where,
            field_name="data.toolCallId",
            agent_id=_agent(run, record, data),
            extra={**rest, "executionStarted": False},
        )
    if not isinstance(success, bool):
        run.pairer.problem(where, "data.success", "missing or not true or false")
        run.pairer.discard(call_id)
        return
    result = data.get("result")
    if result is not None and not isinstance(result, dict):  # R35: not an empty success
        run.pairer.problem(where, "data.result", "not an object")
        run.pairer.discard(call_id)
        return
    result = result or {}
    raw_error = data.get("error")  # an object (the usual); a message alone read as one
    error = raw_error if type(raw_error) is dict else {"message": raw_error} if raw_error else {}
    content = result.get("content")
    text = content if isinstance(content, str) else text_of(result.get("contents"))
    failed = not success
    code: str | None = None
    message: str | None = None
    exit_code = exit_code_of(data, result, text, call_id in run.shells)
    if isinstance(exit_code, WrongExit):  # R35: a failure signal of a type never written
        said = f"{json_kind(exit_code.value)}, not an integer"
        run.pairer.problem(where, exit_code.field, said)
        run.pairer.discard(call_id)
        return
    if failed:
        code = error.get("code") if isinstance(error.get("code"), str) else None
        told = error.get("message")
        said = told if isinstance(told, str) and told else text
        message = said or "tool call failed"
        text = said  # what the model was told of the failure (none recorded: served empty)
    elif exit_code not in (None, 0):
        failed, code, message = True, f"exit_code:{exit_code}", text or f"exit code {exit_code}"
    extra = {k: v for k, v in data.items() if k not in _COMPLETE_READ}
    if raw_error is not None and not isinstance(raw_error, dict):
        extra["error"] = raw_error  # kept as recorded (R4): an error of another shape
    if text == _REDACTED or message == _REDACTED:
        extra["contentNotRecorded"] = True
    run.pairer.result(
        call_id,
        {"content": text_content(text) if text else []},
        failed,
        where=where,
        field_name="data.success",
        error_code=code,
        error_message=message,
        extra=extra,
    )
    if _agent(run, record, data) is None:
        if run.held:
            _flush(run)
        run.talk.tool(call_id, text, failed)
        run.turn += 1


def _promoted(run: _Run, number: int, file: str) -> tuple[PromotedRun, list[LoadProblem]]:
    for call_id, (name, args, _, where, line) in run.requests.items():
        if call_id in run.waiting:  # requested and never run: never answered (R2)
            run.pairer.call(call_id, name, args, where=where, field_name="toolRequests", line=line)
    boundaries = run.pairer.finish()
    session = run.start.get("sessionId") or run.session_id
    run_id = session if isinstance(session, str) and session else f"session-{number}"
    metadata: dict[str, Any] = {"session": run.start, **run.tally.to_metadata()}
    blank = sum(1 for b in boundaries if b.extra.get("contentNotRecorded"))
    if blank:
        metadata["records"]["call:contentNotRecorded"] = blank
    failed = run.failed_shutdown or (type(run.exit_code) is int and run.exit_code != 0)
    if run.exit_code is not None:
        metadata["exitCode"] = run.exit_code
    model = run.start.get("selectedModel")
    promoted = PromotedRun(
        run_id=run_id,
        boundaries=boundaries,
        source=file,
        format="copilot-cli",
        outcome="failed" if failed else "completed",
        answer=run.answer,
        task_key=f"session-{run_id[:8]}",
        metadata=metadata,
        conversation=run.talk.build(None, model if isinstance(model, str) else None),
    )
    return promoted, run.pairer.problems
