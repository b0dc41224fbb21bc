"""GitHub Copilot CLI's legacy session files as promoted runs (SPEC R34-R36).

Copilot CLI before its event logs (0.0.3xx, late 2025) kept each session as one JSON document,
``~/.copilot/history-session-state/session_<id>_<ms>.json``:
``{"sessionId", "startTime", "chatMessages": [...], "timeline": [...], "selectedModel"?}``.
``chatMessages`` are the OpenAI chat messages the model was sent (``system``, ``user``,
``assistant`` with ``tool_calls``, ``tool``); ``timeline`` is what the CLI showed, each entry
``{"id", "timestamp", "type", ...}`` of type ``user``, ``copilot`` (a reply's text), ``info``,
``error``, ``tool_call_requested`` or ``tool_call_completed``. The CLI rewrites a call's
``tool_call_requested`` entry in place as its ``tool_call_completed`` once it ran (the schema in
the CLI's own code, 0.0.340), so what is read is:

- a ``tool_call_completed`` entry is a call and its result (``callId``, ``name``, ``arguments``;
  ``result: {"type", "log"}``): ``result.type`` ``failure``, ``rejected`` or ``denied`` is a
  failure (``tool_error``, ``rejected``, ``denied``), a type the CLI has not is a problem (R35);
  a shell call (``bash``, ...) whose ``success`` output ends ``<exited with exit code N>``, N not
  0, fails ``exit_code:N`` (R36), as in the event logs. The response is the ``tool`` chat message
  of the call's id (what the model was sent) when ``chatMessages`` holds one, else ``result.log``;
- a ``tool_call_requested`` entry left so is a call never answered (R2);
- ``user`` and ``copilot`` entries are the conversation (the last reply's text the answer);
  ``info``, ``error`` and the chat messages are known non-tool records, counted (R35); an entry
  of another type is kept whole in ``metadata.otherRecords`` (R4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._common.toolresult import text_content
from .common import StreamRun, json_args, refuse_result, text_of
from .copilot_shell import SHELL_EXITED, SHELL_TOOLS
from .records import LoadProblem, PromotedRun

__all__ = ["load_copilot_history", "sniff_copilot_history"]

_FAILED = {"failure": "tool_error", "rejected": "rejected", "denied": "denied"}
"""The failed result types of the legacy schema, and the ``error_code`` each is read as."""
_READ = frozenset({"type", "id", "callId", "name", "arguments", "result"})
_KNOWN = frozenset({"user", "copilot", "info", "error", "tool_call_requested"})


def sniff_copilot_history(data: Any) -> bool:
    """A legacy Copilot CLI session: an object whose ``sessionId`` is text and whose
    ``chatMessages`` and ``timeline`` are lists (entries with a ``type``)."""
    if not isinstance(data, Mapping) or not isinstance(data.get("sessionId"), str):
        return False
    timeline, chat = data.get("timeline"), data.get("chatMessages")
    if type(timeline) is not list or type(chat) is not list:
        return False
    return all(isinstance(e, Mapping) and isinstance(e.get("type"), str) for e in timeline[:20])


@dataclass(slots=True)
class _Run(StreamRun):
    pass


def load_copilot_history(
    data: Mapping[str, Any], file: str
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """One run from a legacy session document (places ``timeline[N]``)."""
    run = _Run(file)
    counts = run.tally.counts
    told: dict[str, str] = {}
    for message in data["chatMessages"]:
        role = message.get("role") if isinstance(message, Mapping) else None
        counts[f"chatMessage:{role}"] = counts.get(f"chatMessage:{role}", 0) + 1
        if role == "tool" and isinstance(message.get("tool_call_id"), str):
            told[message["tool_call_id"]] = text_of(message.get("content"))
    for index, entry in enumerate(data["timeline"]):
        where = f"timeline[{index}]"
        if not isinstance(entry, Mapping) or not isinstance(entry.get("type"), str):
            run.pairer.problem(where, "type", "missing or not a string")
            continue
        kind = entry["type"]
        if kind in ("tool_call_completed", "tool_call_requested"):
            _call(run, entry, where, told)
            continue
        if kind not in _KNOWN:
            run.tally.other(kind, entry)  # a type newer than this reader: kept (R4)
            continue
        counts[kind] = counts.get(kind, 0) + 1
        text = entry.get("text")
        if kind == "user" and isinstance(text, str):
            run.talk.user(text)
        elif kind == "copilot" and isinstance(text, str):
            run.talk.assistant(text, [], turn=f"turn-{run.turn}")
            run.turn += 1
            run.answer = text
    boundaries = run.pairer.finish()
    session = data["sessionId"]
    model = data.get("selectedModel")
    metadata: dict[str, Any] = {
        "session": {k: v for k, v in data.items() if k not in ("chatMessages", "timeline")},
        **run.tally.to_metadata(),
    }
    promoted = PromotedRun(
        run_id=session or "session-0",
        boundaries=boundaries,
        source=file,
        format="copilot-cli",
        outcome="completed",
        answer=run.answer,
        task_key=f"session-{session[:8]}",
        metadata=metadata,
        conversation=run.talk.build(None, model if isinstance(model, str) else None),
    )
    return [promoted], run.pairer.problems


def _call(run: _Run, entry: Mapping[str, Any], where: str, told: Mapping[str, str]) -> None:
    call_id, name = entry.get("callId"), entry.get("name")
    if not isinstance(call_id, str) or not call_id:
        run.pairer.problem(where, "callId", "missing or not a string")
        return
    if not isinstance(name, str) or not name:
        run.pairer.problem(where, "name", "missing or not a string")
        return
    args = json_args(entry.get("arguments"))
    extra = {k: v for k, v in entry.items() if k not in _READ}
    run.pairer.call(call_id, name, args, where=where, field_name="callId", extra=extra)
    run.talk.assistant(None, [{"id": call_id, "name": name, "args": args}], turn=f"turn-{run.turn}")
    if entry["type"] == "tool_call_requested":
        run.tally.add("tool_call_requested")
        return  # never completed: never answered (R2), said by the pairer
    run.tally.add("tool_call_completed")
    result = entry.get("result")
    kind = result.get("type") if isinstance(result, Mapping) else None
    if not isinstance(kind, str) or (kind != "success" and kind not in _FAILED):
        run.pairer.problem(where, "result.type", "not success, failure, rejected or denied")
        run.pairer.discard(call_id)
        return
    assert isinstance(result, Mapping)
    log = result.get("log")
    if log is not None and not isinstance(log, str):  # R35: its log is text; not a success
        refuse_result(run.pairer, call_id, where, "result.log", "not text")
        return
    log = log if isinstance(log, str) else ""
    text = told.get(call_id, log)
    code = _FAILED.get(kind)
    found = SHELL_EXITED.search(log) if code is None and name in SHELL_TOOLS else None
    if found and int(found.group(1)) != 0:
        code = f"exit_code:{found.group(1)}"
    failed = code is not None
    run.pairer.result(
        call_id,
        {"content": text_content(text) if text else []},
        failed,
        where=where,
        field_name="result.type",
        error_code=code,
        error_message=(text or f"tool call {kind}") if failed else None,
        extra={"result": dict(result)},
    )
    run.talk.tool(call_id, text, failed)
