"""Gemini CLI session JSON as promoted runs (SPEC R34-R36).

A session (``~/.gemini/tmp/<project>/chats/session-*.json``) is one object with ``sessionId``,
``projectHash`` and ``messages[]``. A ``gemini`` message's ``toolCalls[]`` are the calls, each
carrying its own result (``result[]``: Gemini ``functionResponse`` parts) and ``status``:

- ``success``: it ran. A shell command (``run_shell_command``) whose output reports a non-zero
  ``Exit Code: N`` failed all the same (R36: a coding agent's non-zero exit codes); its
  ``error_code`` is ``exit_code:N``. So did one killed by a signal (a ``Signal: S`` line and no
  exit code: ``signal:S``) and one the CLI stopped at its inactivity timeout (``Command was
  automatically cancelled because it exceeded the timeout ...``: ``timeout``), both reported
  ``success`` by Gemini CLI 0.61.
- ``error``: it failed (``response.error`` is the text); ``cancelled``: the user stopped it, which
  the agent saw as a failure (``error_code`` ``cancelled``).
- any other value, or a status that is not a string, is a problem (R35).

``user`` messages are the conversation's user turns; ``info``, ``error`` and ``warning``
messages are UI events (counted, R35). One file is one run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .._common.jsonio import json_text
from .._common.toolresult import text_content
from .common import RecordTally, refuse_wrong_args, text_of
from .conversation import ConversationBuilder
from .pairing import CallPairer
from .records import LoadProblem, PromotedRun

__all__ = ["TIMED_OUT", "load_gemini_cli", "sniff_gemini_cli"]

_EXIT = re.compile(r"^Exit Code: (-?\d+)\s*$", re.MULTILINE)
_SIGNAL = re.compile(r"^Signal: (\S+)\s*$", re.MULTILINE)
TIMED_OUT = "Command was automatically cancelled because it exceeded the timeout"
"""How Gemini CLI's shell tool starts the text of a command it stopped for printing nothing
for longer than its inactivity timeout (``tools.shell.inactivityTimeout``): status ``success``."""
_STATUSES = {"success": False, "error": True, "cancelled": True}


def sniff_gemini_cli(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and isinstance(data.get("messages"), list)
        and "sessionId" in data
        and ("projectHash" in data or "startTime" in data)
    )


def load_gemini_cli(
    data: Any, file: str, *, lines: Sequence[int] | None = None
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """One run from a session document; ``lines``: each message's line in a JSONL session
    (``gemini_cli_lines``), which then names the places instead of ``messages[i]``."""
    pairer = CallPairer(file)
    tally = RecordTally()
    talk = ConversationBuilder()
    answer: Any = None
    model: str | None = None
    messages = data.get("messages") if isinstance(data, dict) else None
    if not isinstance(messages, list):
        return [], [LoadProblem(file, "(root)", "messages", "not a Gemini CLI session")]
    for m_index, message in enumerate(messages):
        if lines is not None:
            pairer.current_line = lines[m_index]
            where, calls_at = f"line {lines[m_index]}", f"line {lines[m_index]}, toolCalls"
        else:
            where = calls_at = f"messages[{m_index}]"
            calls_at += ".toolCalls"
        if not isinstance(message, dict):
            pairer.problem(where, "", "a message must be an object")
            continue
        kind = message.get("type")
        if not isinstance(kind, str):
            pairer.problem(where, "type", "missing or not a string")
            continue
        tally.add(kind)
        content = message.get("content")
        if kind == "user":
            said = text_of(content)
            if said or not _answers_only(content):  # (the results of calls: told as results)
                talk.user(said)
            continue
        if kind != "gemini":
            if kind not in ("info", "error", "warning"):
                tally.unknown.append(message)
            continue
        model = model or (message["model"] if isinstance(message.get("model"), str) else None)
        calls = message.get("toolCalls") or []
        if not isinstance(calls, list):
            pairer.problem(where, "toolCalls", "must be a list")
            continue
        text = text_of(content) or None
        made: list[dict[str, Any]] = []
        results: list[tuple[str, str, bool]] = []
        for c_index, call in enumerate(calls):
            found = _call(call, pairer, f"{calls_at}[{c_index}]", c_index, m_index)
            if found is not None:
                call_id, name, args, result, failed = found
                made.append({"id": call_id, "name": name, "args": args})
                results.append((call_id, result, failed))
        talk.assistant(text, made)
        for call_id, result, failed in results:
            talk.tool(call_id, result, failed)
        if made:
            answer = None
        elif text:
            answer = text
    boundaries = pairer.finish()
    session = data.get("sessionId")
    key = f"session-{str(session)[:8]}" if isinstance(session, str) and session else "session"
    metadata = {k: v for k, v in data.items() if k != "messages"}
    metadata.update(tally.to_metadata())
    run = PromotedRun(
        run_id=str(session) if session else "session",
        boundaries=boundaries,
        source=file,
        format="gemini-cli",
        outcome="completed",
        answer=answer,
        task_key=key,
        metadata=metadata,
        conversation=talk.build(None, model),
    )
    return [run], pairer.problems


def _call(
    call: Any, pairer: CallPairer, where: str, c_index: int, m_index: int
) -> tuple[str, str, Any, str, bool] | None:
    if not isinstance(call, dict):
        pairer.problem(where, "", "a tool call must be an object")
        return None
    name = call.get("name")
    if not isinstance(name, str) or not name:
        pairer.problem(where, "name", "missing or not a string")
        return None
    raw_id = call.get("id")
    call_id = raw_id if isinstance(raw_id, str) and raw_id else f"gemini-{m_index}-{c_index}"
    status = call.get("status")
    if not isinstance(status, str) or status not in _STATUSES:
        pairer.problem(
            where,
            "status",
            f"unknown status {status!r} (expected success, error or cancelled)",
        )
        return None
    args = call.get("args")
    # (a Record<string, unknown>)
    if refuse_wrong_args(args, Mapping, pairer, call_id, where, "args"):
        return None
    extra = {
        k: v
        for k, v in call.items()
        if k not in ("id", "name", "args", "status", "result", "resultDisplay")
    }
    read = _result(call.get("result"))
    if read is None:  # R35: it was served as an empty success
        pairer.problem(where, "result", "not text, a part or a list of parts (a PartListUnion)")
        return None
    pairer.call(call_id, name, args, where=where, field_name="id", extra=extra or None)
    response, text, error = read
    failed = _STATUSES[status]
    code: str | None = status if failed and status != "error" else None
    if not failed and name == "run_shell_command":
        code = _shell_failure(text)
        failed = code is not None
    message = (error or text or "tool call failed") if failed else None
    pairer.result(
        call_id,
        response,
        failed,
        where=where,
        field_name="status",
        error_code=code,
        error_message=message,
        extra={"status": status, "resultDisplay": call.get("resultDisplay")},
    )
    return call_id, name, args, text or error or "", failed  # what the model was sent


def _shell_failure(text: str) -> str | None:
    """The ``error_code`` of a shell command Gemini CLI reports a success though it failed: a
    non-zero ``Exit Code: N`` (``exit_code:N``), else a ``Signal: S`` line (killed by a signal:
    ``signal:S``), else stopped at the inactivity timeout (``timeout``); ``None`` when it did
    not fail. The text may be inside the ``<untrusted_context>`` wrapper of newer versions."""
    exit_code = _EXIT.search(text)
    if exit_code is not None and int(exit_code.group(1)) != 0:
        return f"exit_code:{exit_code.group(1)}"
    if exit_code is None and (signal := _SIGNAL.search(text)) is not None:
        return f"signal:{signal.group(1)}"
    body = text.removeprefix("<untrusted_context>").lstrip()
    return "timeout" if body.startswith(TIMED_OUT) else None


def _result(parts: Any) -> tuple[Any, str, str | None] | None:
    """The recorded result as MCP content, its text, and the error text if it has one;
    ``None`` for a value of a type Gemini CLI never writes there. Its ``result`` is a
    ``PartListUnion | null``: a part, text, or a list of them (``null``: none recorded)."""
    if parts is None or isinstance(parts, str | dict):
        parts = [] if parts is None else [parts]
    if not isinstance(parts, list) or not all(isinstance(p, str | dict) for p in parts):
        return None
    texts: list[str] = []
    error: str | None = None
    for part in parts:
        if isinstance(part, str):  # a text part written as its text
            texts.append(part)
            continue
        reply = part.get("functionResponse")
        body = reply.get("response") if isinstance(reply, dict) else None
        if isinstance(body, dict):
            if "error" in body:
                error = text_of(body["error"]) or str(body["error"])
                # a call cancelled while it ran keeps the output so far beside the error,
                # and the model is sent both: the response as it was sent
                texts.append(_plain(body) if "output" in body else error)
            elif "output" in body:
                texts.append(text_of(body["output"]) or _plain(body["output"]))
            else:
                texts.append(_plain(body))
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    text = "\n".join(t for t in texts if t)
    return {"content": text_content(text) if text else []}, text, error


def _plain(value: Any) -> str:

    return json_text(value)


def _answers_only(content: Any) -> bool:
    """Whether a user message holds function responses alone (Gemini CLI 0.61 records the
    results it sent the model so, beside the calls' own ``result``): no turn of the user's."""
    return (
        isinstance(content, list)
        and bool(content)
        and all(isinstance(p, dict) and "functionResponse" in p for p in content)
    )
