"""Codex CLI rollout JSONL as promoted runs (SPEC R34-R36).

A rollout (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``) holds one ``{timestamp, type,
payload}`` record a line. ``response_item`` records carry Responses API items, read by the
same rules as the ``openai-responses`` format: ``function_call`` / ``custom_tool_call`` (e.g.
``apply_patch`` with raw-text input) / ``local_shell_call`` are calls, their ``*_output`` items
the results, ``web_search_call`` a hosted call with its result in one item.

Failures (R36). A shell command failed when its exit code is not 0, read from, in order: the
``exec_command_end`` event of its ``call_id`` (``exit_code``), unless the call's output says the
process is still running (``Process running with session ID N``: the agent saw no failure then,
and the exit code reaches it in a later ``write_stdin`` output, which fails instead; the event's
code is kept as ``laterExitCode``); an output that is a JSON object with ``metadata.exit_code``
(Codex's structured output); an output whose text says ``Process exited with code N`` or ``Exit
code: N``. Its ``error_code`` is ``exit_code:N``. With no exit code, an output Codex itself
wrote failed too: a structured output with ``success: false`` (``failed``), the user's refusal
(``patch rejected by user``, ``exec command rejected by user``: ``rejected:user``) and a command
that could not start (``execution error: ...``: ``execution_error``). Any other output is judged
by the caller's error rule, as for Responses items.

``session_meta``, ``turn_context``, ``compacted`` and the other ``event_msg`` records
(``token_count``, ``agent_message``, ``task_started``, ...) are counted as non-tool records
(R35); ``message`` and ``reasoning`` items make the conversation (R40). One file is one run.

Rollouts of Codex CLI before the ``{timestamp, type, payload}`` envelope (mid-2025) are read
too: a first line ``{id, timestamp, instructions?}`` (the session), then the items themselves
one a line, between ``{"record_type": "state"}`` lines (counted as ``state`` records).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._common.jsonio import json_text
from .codex_outputs import (
    BAD_EXIT,
    MCP_FAILED,
    codex_error,
    exit_events,
    output_text,
    still_running,
)
from .codex_typed import TypedCall, TypedEvent, TypedItem, TypedOutput
from .common import RecordTally, json_args, text_of
from .conversation import ConversationBuilder
from .pairing import CallPairer
from .records import ErrorRule, LoadProblem, PromotedRun

__all__ = ["load_codex", "sniff_codex"]

RECORD_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted", "state"}
)
_CALLS = {
    "function_call": "arguments",
    "custom_tool_call": "input",
    "local_shell_call": "action",
    "tool_search_call": "arguments",
}
_OUTPUTS = frozenset(
    {
        "function_call_output",
        "custom_tool_call_output",
        "local_shell_call_output",
        "tool_search_output",
    }
)
_HOSTED = frozenset({"web_search_call", "image_generation_call"})
_DEFAULT_NAMES = {"local_shell_call": "local_shell", "tool_search_call": "tool_search"}
"""The tool of a call item that names none."""
_READ = frozenset({"type", "call_id", "name"})
_ITEM_TYPES = frozenset({*_CALLS, *_OUTPUTS, *_HOSTED, "message", "reasoning"})
_ITEM_KEYS = {kind: f"response_item:{kind}" for kind in _ITEM_TYPES}
_CALL_KEY, _OUTPUT_KEY = _ITEM_KEYS["function_call"], _ITEM_KEYS["function_call_output"]
_EXIT_KEY = "event_msg:exec_command_end"


def _is_session_line(record: Any) -> bool:
    """The first line of a rollout from before the envelope: the session's id and time."""
    return (
        isinstance(record, dict)
        and "type" not in record
        and "payload" not in record
        and isinstance(record.get("id"), str)
        and isinstance(record.get("timestamp"), str)
    )


def _is_bare_record(record: Any) -> bool:
    if not isinstance(record, dict) or "payload" in record:
        return False
    kind = record.get("type")
    return (type(kind) is str and kind in _ITEM_TYPES) or "record_type" in record


def _enveloped(docs: Sequence[tuple[int, Any]]) -> Sequence[tuple[int, Any]]:
    """A rollout from before the envelope, in the envelope (the records are not changed)."""
    if not docs or not _is_session_line(docs[0][1]):
        return docs
    out: list[tuple[int, Any]] = [(docs[0][0], {"type": "session_meta", "payload": docs[0][1]})]
    for line, record in docs[1:]:
        if _is_bare_record(record):
            kind = "state" if "record_type" in record else "response_item"
            record = {"type": kind, "payload": record}
        out.append((line, record))
    return out


def sniff_codex(heads: Sequence[Any]) -> bool:
    """Whether the first records of a JSONL file look like a Codex rollout."""
    if heads and _is_session_line(heads[0]) and any(_is_bare_record(r) for r in heads[1:]):
        return True  # a rollout from before the envelope
    hits = 0
    for record in heads:
        if not isinstance(record, dict):
            continue
        kind = record.get("type")
        if (
            isinstance(kind, str)
            and kind in RECORD_TYPES
            and isinstance(record.get("payload"), dict)
        ):
            if "eventId" in record or "runId" in record or "sequence" in record:
                return False  # an OpenWOP event
            hits += 1
    return hits > 0


def load_codex(
    docs: Sequence[tuple[int, Any]], file: str, rule: ErrorRule
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    docs = _enveloped(docs)
    pairer = CallPairer(file)
    tally = RecordTally()
    talk = ConversationBuilder()
    exit_codes = exit_events(docs, pairer)  # exec_command_end may come before or after
    session: Mapping[str, Any] = {}
    model: str | None = None
    answer: Any = None
    counts = tally.counts  # counted inline: a call a record adds up over 300,000 records
    for line, record in docs:
        pairer.current_line = line
        if type(record) is TypedEvent:  # exec_command_end, read by exit_events: counted
            counts[_EXIT_KEY] = counts.get(_EXIT_KEY, 0) + 1
            continue
        if type(record) is TypedItem:  # the usual function_call and function_call_output
            item, where = record.payload, f"line {line}"
            key = _CALL_KEY if type(item) is TypedCall else _OUTPUT_KEY
            counts[key] = counts.get(key, 0) + 1
            if type(item) is TypedCall:
                call = _typed_call(item, pairer, where)
                if call is not None:
                    talk.add_new_call(call)
                    answer = None
            elif type(item) is TypedOutput and not item.call_id:
                pairer.problem(where, "payload.call_id", "missing or not a string")
            elif type(item) is TypedOutput:
                _answer(item.call_id, item.output, where, exit_codes, pairer, rule, talk)
            continue
        if type(record) is not dict:
            pairer.problem(f"line {line}", "", "a record must be a JSON object")
            continue
        kind = record.get("type")
        payload = record.get("payload")
        if type(kind) is not str:
            pairer.problem(f"line {line}", "type", "missing or not a string")
            continue
        if type(payload) is not dict:
            pairer.problem(f"line {line}", "payload", "missing or not an object")
            continue
        if kind != "response_item":
            sub = payload.get("type")
            key = f"{kind}:{sub}" if kind == "event_msg" and isinstance(sub, str) else kind
            counts[key] = counts.get(key, 0) + 1
            if kind not in RECORD_TYPES:
                tally.unknown.append(record)
            if kind == "session_meta":
                session = payload
            elif kind == "turn_context" and isinstance(payload.get("model"), str):
                model = model or payload["model"]
            continue
        where = f"line {line}"  # a place for the items read below (events need none)
        item_type = payload.get("type")
        item_key = _ITEM_KEYS.get(item_type) if type(item_type) is str else None
        if item_key is None:
            item_key = f"response_item:{item_type}"
        counts[item_key] = counts.get(item_key, 0) + 1
        if not isinstance(item_type, str):  # no item type (or a list, an object): kept as is
            tally.unknown.append(record)
        elif item_type in _CALLS and (item_type != "tool_search_call" or payload.get("call_id")):
            call = _call(payload, str(item_type), pairer, where)
            if call is not None:
                talk.add_new_call(call)  # calls after a message are that response's turn
                answer = None
        elif item_type in _OUTPUTS:
            call_id = payload.get("call_id")
            if not isinstance(call_id, str) or not call_id:
                pairer.problem(where, "payload.call_id", "missing or not a string")
                continue
            output = payload.get("output")
            if item_type == "tool_search_output" and "output" not in payload:
                output = json_text(payload.get("tools"), sort_keys=True)
            _answer(call_id, output, where, exit_codes, pairer, rule, talk)
        elif item_type in _HOSTED or (
            item_type == "tool_search_call" and not payload.get("call_id")
        ):
            _hosted(payload, item_type, pairer, where, line, talk)
            answer = None
        elif item_type == "message":
            role = payload.get("role")
            text = text_of(payload.get("content"))
            if role == "assistant":
                talk.assistant(text or None)
                answer = text or answer
            elif role == "user":
                talk.user(text)
            elif role in ("developer", "system"):
                talk.system(text)
        elif item_type != "reasoning":
            tally.unknown.append(record)
    boundaries = pairer.finish()
    session_id = session.get("id") if isinstance(session.get("id"), str) else None
    metadata: dict[str, Any] = {"session": dict(session)} if session else {}
    metadata.update(tally.to_metadata())
    run = PromotedRun(
        run_id=session_id or "rollout",
        boundaries=boundaries,
        source=file,
        format="codex",
        error_rule=rule,
        outcome="completed",
        answer=answer,
        task_key=f"rollout-{session_id[:8]}" if session_id else "rollout",
        metadata=metadata,
        conversation=talk.build(None, model),
    )
    return [run], pairer.problems


def _call(
    payload: Mapping[str, Any], kind: str, pairer: CallPairer, where: str
) -> dict[str, Any] | None:
    """The call read into the pairer, as a conversation tool call; ``None`` when refused."""
    call_id = payload.get("call_id")
    name = payload.get("name")
    if name is None:
        name = _DEFAULT_NAMES.get(kind)
    if not isinstance(call_id, str) or not call_id:
        pairer.problem(where, "payload.call_id", "missing or not a string")
        return None
    if not isinstance(name, str) or not name:
        pairer.problem(where, "payload.name", "missing or not a string")
        return None
    key, args = _CALLS[kind], payload.get(_CALLS[kind])
    if kind == "function_call" and type(args) is not str:  # R35: JSON text, as codex-rs writes
        pairer.refuse(call_id, where, "payload.arguments", "missing or not text")
        return None
    args = json_args(args) if key == "arguments" else args
    # type and call_id are there (read above): four members with name and key are all read
    plain = len(payload) == 4 and "name" in payload and key in payload
    extra = {} if plain else {k: v for k, v in payload.items() if k not in _READ | {key}}
    if kind != "function_call":
        extra["itemType"] = kind
    pairer.call(call_id, name, args, where=where, field_name="payload.call_id", extra=extra or None)
    call: dict[str, Any] = {"id": call_id, "name": name, "args": args}
    if kind != "function_call":
        call["x-itemType"] = kind
    return call


def _typed_call(item: TypedCall, pairer: CallPairer, where: str) -> dict[str, Any] | None:
    """:func:`_call` of a typed ``function_call`` (the same checks, boundary and call)."""
    call_id, name = item.call_id, item.name
    if not call_id:
        pairer.problem(where, "payload.call_id", "missing or not a string")
        return None
    if not name:
        pairer.problem(where, "payload.name", "missing or not a string")
        return None
    args = json_args(item.arguments)
    pairer.call(call_id, name, args, where=where, field_name="payload.call_id", extra=item.extra())
    return {"id": call_id, "name": name, "args": args}


def _answer(
    call_id: str,
    output: Any,
    where: str,
    exit_codes: dict[str, list[int]],
    pairer: CallPairer,
    rule: ErrorRule,
    talk: ConversationBuilder,
) -> None:
    read = output_text(output)
    if read is None:  # R35: a problem, and the call is not served
        pairer.problem(where, "payload.output", "not text, content items or an object with content")
        pairer.discard(call_id)
        return
    sent, text, code = read
    event_codes = exit_codes.get(call_id)
    event_code = event_codes.pop(0) if event_codes else None
    if event_code == BAD_EXIT or code == BAD_EXIT:  # (the problem names the exit code's place)
        if code == BAD_EXIT:
            said = "its JSON text's metadata.exit_code is no integer: the call is not served"
            pairer.problem(where, "payload.output", said)
        pairer.discard(call_id)
        return
    if event_code == MCP_FAILED:  # an MCP call whose result or error the events record
        failed = True
        served = {"content": [{"type": "text", "text": sent}]} if sent else {"content": []}
        pairer.result(
            call_id,
            served,
            failed,
            where=where,
            field_name="payload.call_id",
            error_code="mcp_error",
            error_message=text or "tool call failed",
            extra={"output": output} if not isinstance(output, str) else None,
        )
        talk.tool(call_id, sent, failed)
        return
    if event_code is not None and still_running(text):
        # the command outlived the call: the agent saw a running process, and the exit code
        # reaches it through a later ``write_stdin`` output, which is where it fails
        later: int | None = event_code
    else:
        later = None
        code = event_code if event_code is not None else code
    failed = code is not None and code != 0
    own = codex_error(output, text) if code is None else None
    if code is None:
        failed = own is not None or rule.matches(text)
    response: Any = {"content": [{"type": "text", "text": sent}]} if sent else {"content": []}
    extra: dict[str, Any] = {"output": output} if not isinstance(output, str) else {}
    if code is not None:
        extra["exitCode"] = code
    if later is not None:
        extra["laterExitCode"] = later
    pairer.result(
        call_id,
        response,
        failed,
        where=where,
        field_name="payload.call_id",
        error_code=f"exit_code:{code}" if failed and code is not None else own,
        error_message=(text or "tool call failed") if failed else None,
        extra=extra or None,
    )
    talk.tool(call_id, sent, failed)  # what the model was sent: the output as written


def _hosted(
    payload: Mapping[str, Any],
    kind: str,
    pairer: CallPairer,
    where: str,
    line: int,
    talk: ConversationBuilder,
) -> None:
    """A hosted call (``web_search_call``, ``image_generation_call``, a ``tool_search_call``
    the server ran, with no call id): the call and its result in one item (R34)."""
    name = kind.removesuffix("_call")
    raw_id = payload.get("id")
    call_id = raw_id if isinstance(raw_id, str) and raw_id else f"{name}-{line}"
    args = payload.get("action", payload.get("arguments"))
    pairer.call(call_id, name, args, where=where, field_name="payload.id", extra={"itemType": kind})
    failed = payload.get("status") == "failed"
    talk.add_call({"id": call_id, "name": name, "args": args, "x-itemType": kind})
    result = {k: v for k, v in payload.items() if k not in ("type", "id")}
    talk.tool(call_id, json_text(result, sort_keys=True), failed)
    pairer.result(
        call_id,
        {k: v for k, v in payload.items() if k not in ("type", "id")},
        failed,
        where=where,
        field_name="payload.status",
        error_message=f"{name} failed" if failed else None,
    )
