"""OpenCode sessions as promoted runs (SPEC R34-R36, R40).

OpenCode (``sst/opencode``) keeps a session as messages, each ``{"info": {...}, "parts":
[...]}``: ``info`` gives the role (``user`` or ``assistant``), the agent that wrote it
(``agent``, ``mode``: ``build``, ``plan``, ``general``, ...) and the model (``modelID``,
``providerID``); ``parts`` are what the message holds, in order: ``text``, ``reasoning``,
``tool``, ``step-start`` and ``step-finish`` (a model call's bounds), ``patch``, ``file``,
``subtask``, ``agent``, ``compaction``, ... Two recordings of it are read:

- **an export**: ``opencode export <session>``, ``{"info": <the session>, "messages":
  [message, ...]}`` (the Entire CLI commits an OpenCode session's transcript so), or the
  messages alone, a list (the server's ``GET /session/{id}/message``); one run;
- **the events of** ``opencode run --format json``: a JSON object a line, ``{"type":
  "tool_use" | "text" | "reasoning" | "step_start" | "step_finish" | "error", "timestamp",
  "sessionID", "part": <a part>}``: the parts of the session's assistant messages as they
  finished (a run per session; a part's ``messageID`` puts it in its message).

**Calls.** A ``tool`` part is a call and its result at once: ``callID`` (else the part's
``id``), ``tool``, ``state.input``, and ``state.status``: ``completed`` (``state.output`` is the
text the model was sent; ``state.title``, ``state.metadata`` and ``state.attachments`` kept on
the call's ``extra``), ``error`` (``state.error`` is the text the model was sent), or
``pending``/``running`` (a call never answered, R2). The call and its result are paired inside
the part, never across parts: ids repeat (Entire writes ``"REDACTED"`` for some), and an id
answered already may be used again (R2). ``state.time`` gives the duration.

**Failures** (R36): ``status: error`` (``tool_error``; ``Tool execution aborted``, which
OpenCode writes for a call it stopped, is ``aborted``), and a ``bash`` call whose
``state.metadata.exit`` is not 0 (``exit_code:N``), though its status says ``completed``, or
is ``null``: OpenCode stopped the command (``timeout`` past its time limit, ``aborted`` by the
user, as its output's last lines say; else ``killed``). A status of another value, or an
``exit`` that is no integer, is a problem (R35).

Every other part is counted by type (``part:<type>`` in ``metadata.records``), and a message
that is no ``user``/``assistant`` one is kept in ``metadata.otherMessages``. A run whose
stream holds an ``error`` event, or whose export has a message with ``info.error`` (a model
call that failed), ended ``failed``, those errors on ``metadata.errors``. The run's agent of
each call is its message's agent; the session's ``info`` is kept as ``metadata.session``. The
conversation (R40): user text, each assistant message's text and calls, each result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._common.toolresult import text_content
from .common import RecordTally
from .conversation import ConversationBuilder
from .pairing import CallPairer
from .records import LoadProblem, PromotedRun

__all__ = [
    "load_opencode",
    "load_opencode_events",
    "load_opencode_session",
    "sniff_opencode",
    "sniff_opencode_events",
]

EVENT_TYPES = frozenset({"tool_use", "text", "reasoning", "step_start", "step_finish", "error"})
"""The event types ``opencode run --format json`` prints."""
_STATUSES = frozenset({"completed", "error", "pending", "running"})
_SHELL_TOOLS = frozenset({"bash"})
_ABORTED = "Tool execution aborted"
_NO_SESSION_YET = object()
"""The session of the events before the first (none: a first event with no ``sessionID`` is
filed under ``""`` as any other such event)."""
_KEPT = ("title", "metadata", "attachments")
"""The members of a tool part's state kept on its call's ``extra``."""


def _is_message(value: Any) -> bool:
    """One OpenCode message: ``info`` naming its role, and its ``parts``."""
    if type(value) is not dict or type(value.get("parts")) is not list:
        return False
    info = value.get("info")
    return type(info) is dict and type(info.get("role")) is str


def sniff_opencode(data: Any) -> bool:
    """An OpenCode export (``{"info", "messages"}``) or its messages alone (a list)."""
    if type(data) is dict:
        messages = data.get("messages")
        if type(data.get("info")) is not dict or type(messages) is not list:
            return False
    elif type(data) is list:
        messages = data
    else:
        return False
    return bool(messages) and all(_is_message(m) for m in messages[:8])


def sniff_opencode_events(heads: Sequence[Any]) -> bool:
    """Whether the first records of a JSONL file are ``opencode run --format json`` events."""
    return any(
        type(record) is dict
        and type(record.get("type")) is str
        and record["type"] in EVENT_TYPES
        and type(record.get("part")) is dict
        and type(record.get("sessionID")) is str
        for record in heads[:8]
    )


def _events_as_messages(
    docs: Sequence[tuple[int, Any]], file: str
) -> tuple[list[tuple[str, list[tuple[str, Any]]]], list[LoadProblem]]:
    """The events of ``opencode run --format json`` as each session's messages (in the order
    their first parts came), each message's parts' lines under ``_lines``; an ``error`` event
    (the session's error, no part of a message) is kept as a message of its own."""
    sessions: dict[Any, dict[str, dict[str, Any]]] = {}
    problems: list[LoadProblem] = []
    messages: dict[str, dict[str, Any]] = {}
    key: Any = _NO_SESSION_YET
    for line, event in docs:
        if type(event) is not dict:
            problems.append(LoadProblem(file, f"line {line}", "", "an event must be an object"))
            continue
        session = event.get("sessionID")
        if session != key:  # (a run's events are of one session: looked up once)
            key = session
            messages = sessions.setdefault(session if type(session) is str else "", {})
        part = event.get("part")
        if type(part) is not dict:
            role = f"event:{event.get('type')}"
            messages[f"line-{line}"] = {
                "info": {"role": role},
                "parts": [],
                "event": event,
                "_lines": [line],
            }
            continue
        name = part.get("messageID")
        if type(name) is not str:
            name = f"line-{line}"
        message = messages.get(name)
        if message is None:
            info = {"role": "assistant", "id": name}
            message = messages[name] = {"info": info, "parts": [part], "_lines": [line]}
        else:
            message["parts"].append(part)
            message["_lines"].append(line)
    out = [(key, [("", m) for m in listed.values()]) for key, listed in sessions.items()]
    return out, problems


def load_opencode_events(
    docs: Sequence[tuple[int, Any]], file: str
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """A run for each session the events of ``opencode run --format json`` hold."""
    sessions, problems = _events_as_messages(docs, file)
    runs: list[PromotedRun] = []
    for key, messages in sessions:
        run, found = _session({"id": key} if key else {}, messages, file)
        runs.append(run)
        problems.extend(found)
    return runs, problems


def load_opencode(data: Any, file: str) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """One run from an export (``{"info", "messages"}``) or its messages alone (a list)."""
    if type(data) is dict:
        info, listed, base = data.get("info"), data.get("messages"), "messages"
    else:
        info, listed, base = {}, data, ""
    if type(listed) is not list:  # (the sniffer saw to it)
        return [], [LoadProblem(file, "(root)", "messages", "not a list of messages")]
    messages = [(f"{base}[{index}]", message) for index, message in enumerate(listed)]
    run, problems = _session(info if type(info) is dict else {}, messages, file)
    return [run], problems


def load_opencode_session(
    info: Mapping[str, Any], messages: list[tuple[str, Any]], file: str
) -> tuple[PromotedRun, list[LoadProblem]]:
    """One session's run: its ``info`` and its messages, each with its place (an export's
    ``messages[3]``, a database's ``message msg_...``)."""
    return _session(info, messages, file)


def _session(
    info: Mapping[str, Any], messages: list[tuple[str, Any]], file: str
) -> tuple[PromotedRun, list[LoadProblem]]:
    pairer = CallPairer(file)
    tally = RecordTally()
    talk = ConversationBuilder()
    other: list[Any] = []
    answer: str | None = None
    model: str | None = None
    counts = tally.counts  # counted inline: a session holds a few parts a call
    errors: list[Any] = []  # what ended the run in an error (its outcome then ``failed``)
    for where, message in messages:
        if not _is_message(message):
            pairer.problem(where, "", "a message needs an info object with a role, and parts")
            continue
        role = message["info"]["role"]
        lines = message.get("_lines")  # the events' lines (run --format json)
        if role not in ("user", "assistant"):
            event = message.get("event", message)
            other.append(event)
            if role == "event:error":  # the run's error (run --format json)
                errors.append(event.get("error") if type(event) is dict else event)
            continue
        if message["info"].get("error") is not None:  # a model call that failed (an export)
            errors.append(message["info"]["error"])
        tally.add(f"message:{role}")
        texts: list[str] = []
        calls: list[dict[str, Any]] = []
        results: list[tuple[str, str, bool]] = []
        agent = _agent(message["info"])
        for index, part in enumerate(message["parts"]):
            kind = part.get("type") if type(part) is dict else None
            if kind == "tool":
                if lines:
                    pairer.current_line = lines[index]
                    at = f"line {lines[index]}"
                else:
                    at = f"{where}.parts[{index}]"
                read = _tool(part, at, pairer, agent)
                if read is not None:
                    calls.append(read[0])
                    results.append(read[1])
                continue
            if type(kind) is not str:  # (a part that is no object, or of no type)
                at = f"line {lines[index]}" if lines else f"{where}.parts[{index}]"
                pairer.problem(at, "type", "a part must be an object with a type")
                continue
            name = f"part:{kind}"
            counts[name] = counts.get(name, 0) + 1
            if kind == "text" and type(part.get("text")) is str and not part.get("synthetic"):
                texts.append(part["text"])
        text = "\n".join(texts) or None
        if role == "user":
            if text:
                talk.user(text)
            continue
        if model is None and type(message["info"].get("modelID")) is str:
            model = message["info"]["modelID"]
        if text or calls:
            talk.assistant(text, calls, fresh=True)
        for call_id, said, failed in results:
            talk.tool(call_id, said, failed)
        if text and not calls:
            answer = text
        elif calls:
            answer = None
    boundaries = pairer.finish()
    session_id = info.get("id") if type(info.get("id")) is str else None
    metadata: dict[str, Any] = {"session": dict(info)} if info else {}
    metadata.update(tally.to_metadata())
    if other:
        metadata["otherMessages"] = other
    if errors:
        metadata["errors"] = errors
    key = session_id or "session"
    run = PromotedRun(
        run_id=key,
        boundaries=boundaries,
        source=file,
        format="opencode",
        outcome="failed" if errors else "completed",
        answer=answer,
        task_key=f"session-{key[-8:]}" if session_id else key,
        metadata=metadata,
        conversation=talk.build(None, model),
    )
    return run, pairer.problems


def _agent(info: Mapping[str, Any]) -> str | None:
    for name in ("agent", "mode"):
        value = info.get(name)
        if type(value) is str and value:
            return value
    return None


def _tool(
    part: Mapping[str, Any], where: str, pairer: CallPairer, agent: str | None
) -> tuple[dict[str, Any], tuple[str, str, bool]] | None:
    """Pair one ``tool`` part (see the module); the call in the conversation's shape and its
    result as the model read it, or ``None`` (a problem, or a call never answered)."""
    tool = part.get("tool")
    if type(tool) is not str or not tool:
        pairer.problem(where, "tool", "missing or not a string")
        return None
    call_id = part.get("callID")
    if type(call_id) is not str or not call_id:
        call_id = part.get("id")
    if type(call_id) is not str or not call_id:
        pairer.problem(where, "callID", "missing or not a string")
        return None
    state = part.get("state")
    if type(state) is not dict:
        pairer.problem(where, "state", "missing or not an object")
        return None
    status = state.get("status")
    if type(status) is not str or status not in _STATUSES:
        pairer.problem(where, "state.status", "not one of completed, error, pending, running")
        return None
    if status in ("pending", "running"):  # never answered (R2); its id is not left open for
        # another part of the same id (Entire's "REDACTED") to answer
        message = f"call {call_id!r} to {tool!r} is never answered (its part is still {status})"
        pairer.problem(where, "state.status", message)
        return None
    said_in = "error" if status == "error" else "output"
    if said_in in state and type(state[said_in]) is not str:  # R35: OpenCode writes text
        pairer.problem(where, f"state.{said_in}", "not text (OpenCode writes a string)")
        return None
    args = state.get("input")
    extra = {k: state[k] for k in _KEPT if k in state}
    part_id = part.get("id")
    if type(part_id) is str and part_id != call_id:
        extra["partId"] = part_id
    pairer.call(call_id, tool, args, where=where, field_name="callID", agent_id=agent, extra=extra)
    call = {"id": call_id, "name": tool, "args": args}
    if status == "error":
        said = state.get("error")
        text = said if type(said) is str else ""
        code: str | None = "aborted" if text == _ABORTED else "tool_error"
        failed = True
    else:
        output = state.get("output")
        text = output if type(output) is str else ""
        code, failed = None, False
        if tool in _SHELL_TOOLS:
            meta = state.get("metadata")
            exit_code = meta.get("exit") if type(meta) is dict else None
            if exit_code is not None and (type(exit_code) is not int):
                pairer.problem(where, "state.metadata.exit", "not an integer")
                pairer.discard(call_id)
                return None
            if exit_code:
                code, failed = f"exit_code:{exit_code}", True
            elif exit_code is None and type(meta) is dict and "exit" in meta:
                code, failed = _killed(text), True  # no exit code: it was stopped
    pairer.result(
        call_id,
        {"content": text_content(text)},
        failed,
        where=where,
        field_name="state.status",
        error_code=code,
        error_message=(text or "tool call failed") if failed else None,
        duration_ms=_duration(state["time"]) if "time" in state else None,
    )
    return call, (call_id, text, failed)


def _killed(output: str) -> str:
    """Why a shell command that has no exit code (``exit: null``) was stopped: OpenCode kills a
    command past its timeout, or when the user aborts it, and says so at the output's end
    (1.2: ``<bash_metadata>bash tool terminated command after exceeding timeout N ms``;
    1.18: ``<shell_metadata>shell tool ...``; ``User aborted the command``)."""
    tail = output[-2000:]
    if "terminated command after exceeding timeout" in tail:
        return "timeout"
    if "User aborted the command" in tail:
        return "aborted"
    return "killed"


def _duration(time: Any) -> int | None:
    if type(time) is not dict:
        return None
    start, end = time.get("start"), time.get("end")
    if type(start) is int and type(end) is int and 0 <= end - start < 1 << 53:
        return end - start
    return None
