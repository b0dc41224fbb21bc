"""OpenAI chat-messages transcripts as promoted runs (SPEC R1-R3, R40).

Assistant ``tool_calls`` paired with ``role: tool`` replies by ``tool_call_id``. The format has no
error flag, so an :class:`~workbench.ErrorRule` decides which tool replies are failures (R3).
The messages themselves are kept as the run's :class:`~workbench.Conversation` (R40), with the
record's ``tools`` and ``model`` when it has them (a logged request body does). A message of a
role the format has not (mini-swe-agent's ``exit``) is kept as it is in the run's
``metadata["otherMessages"]`` (R35, R4).

A tau-bench record of a task that crashed (its ``traj`` empty, its ``info`` holding the
exception's ``error`` text and ``traceback``, as ``tau_bench/run.py`` writes one; or a ``traj``
of messages none of which calls a tool) is a run that ``failed`` with no boundary, its crash
noted in ``metadata["crashedBeforeAnyCall"]`` (R35: a known non-tool record). When no record
of the file holds a tool call, each crash is a problem naming the record and its
``info.error``, so the file is refused for what it holds.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._common.text import cut
from .common import (
    CHAT_ARGUMENTS,
    CallIds,
    is_text_or_parts,
    json_args,
    refuse_result,
    refuse_wrong_args,
)
from .conversation import ConversationBuilder, recorded_tools
from .messages import chat_records, explain_shape, message_text, metadata, place, record_key
from .pairing import CallPairer
from .records import ErrorRule, LoadProblem, PromotedRun

__all__ = ["load_openai_chat"]


def load_openai_chat(
    data: Any,
    file: str,
    error_rule: ErrorRule,
    *,
    lines: Sequence[int] | None = None,
    places: Sequence[Sequence[str]] | None = None,
    terminal: Callable[[str], bool] | None = None,
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """Promoted runs from OpenAI chat messages (``tool_calls`` and ``role: tool`` replies).

    ``lines``: the file line of each record, or of each message of a one-run file (JSONL).
    ``places``: each record's message places, where the records were put together (a
    cassette's exchanges). ``terminal``: the tools whose call, left unanswered, ends the run
    by design (R36), kept as ``metadata["terminalCalls"]``.
    """
    records = chat_records(data)
    if records is None:
        message = explain_shape(data) or "not an OpenAI chat transcript"
        return [], [LoadProblem(file, "(root)", "", message)]
    runs: list[PromotedRun] = []
    problems: list[LoadProblem] = []
    crashes: list[LoadProblem] = []
    for number, (path, record, messages) in enumerate(records):
        pairer = CallPairer(file)
        talk = ConversationBuilder()
        answer: Any = None
        legacy_open: list[str] = []
        ids = CallIds("call")
        named = places[number] if places is not None and not lines and number < len(places) else ()
        other: list[Any] = []  # messages of a role the format has not (R35, R4)
        asked = False  # whether any message calls a tool (a crash after one is no crash here)
        for m_index, message in enumerate(messages):
            if m_index < len(named):  # what place() gives (and no line), without the call
                where = named[m_index]
            else:
                where, pairer.current_line = place(
                    path, number, len(records), m_index, lines, places
                )
            if type(message) is not dict and not isinstance(message, Mapping):
                pairer.problem(where, "", "a message must be an object")
                continue
            role = message.get("role")
            if role == "assistant":
                calls = message.get("tool_calls") or []
                if not isinstance(calls, list):
                    pairer.problem(where, "tool_calls", "must be a list")
                    calls = []
                made: list[dict[str, Any]] = []
                asked = asked or bool(calls)
                for c_index, call in enumerate(calls):
                    read = _openai_call(call, pairer, f"{where}, tool call {c_index}", ids)
                    if read is not None:
                        made.append(read)
                function_call = message.get("function_call")
                if isinstance(function_call, Mapping) and not _blank(function_call):
                    asked = True
                    call_id = f"function-call-{m_index}"
                    legacy_open.append(call_id)
                    name = str(function_call.get("name", ""))
                    raw = function_call.get("arguments")
                    # (refused: the function reply after it answers it, and goes with it)
                    if not refuse_wrong_args(
                        raw, CHAT_ARGUMENTS, pairer, call_id, where, "function_call.arguments"
                    ):
                        args = json_args(raw)
                        pairer.call(call_id, name, args, where=where, field_name="function_call")
                        made.append({"id": call_id, "name": name, "args": args})
                content = message.get("content")
                text = content if type(content) is str else message_text(content)
                talk.assistant(text, made, fresh=True)  # the call dicts were made here
                if text and not calls:
                    answer = text
            elif role == "tool":
                raw_id = message.get("tool_call_id")
                reply_id = ids.for_result(raw_id) if raw_id in _NO_ID else raw_id
                if not isinstance(reply_id, str) or not reply_id:
                    pairer.problem(where, "tool_call_id", "missing or not a string")
                    continue
                _openai_reply(message, reply_id, pairer, where, error_rule, talk)
            elif role == "function":
                if not legacy_open:
                    pairer.problem(where, "name", "function reply with no open function_call")
                    continue
                _openai_reply(message, legacy_open.pop(0), pairer, where, error_rule, talk)
            elif role in ("system", "developer"):
                talk.system(message_text(message.get("content")) or "")
            elif role == "user":
                talk.user(message_text(message.get("content")) or "")
            else:  # mini-swe-agent's "exit" message, holding what the agent submitted
                other.append(message)
        boundaries = pairer.finish(terminal or frozenset())
        crashed = _crash_said(record) if asked else None  # tau-bench: a crash after a call
        if crashed is None:
            problems.extend(pairer.problems)
        else:  # the calls it left open name it (R2, R35)
            problems.extend(_naming_crash(p, crashed) for p in pairer.problems)
        key = record_key(record, number, len(records))
        run_metadata = metadata(record)
        if pairer.terminal_calls:
            run_metadata["terminalCalls"] = pairer.terminal_calls
        if other:
            run_metadata["otherMessages"] = other
        crash = None if asked else _crash(record, path, number, lines, file)
        if crashed is not None:
            run_metadata["crashedAfterCalls"] = crashed
        if crash is not None:
            crashes.append(crash)
            said = crash.message.removeprefix(_CRASHED)
            run_metadata["crashedBeforeAnyCall"] = [f"{crash.where}: {said}"]
        runs.append(
            PromotedRun(
                run_id=key,
                boundaries=boundaries,
                source=file,
                format="openai-chat",
                error_rule=error_rule,
                outcome="completed" if crash is None and crashed is None else "failed",
                answer=answer,
                task_key=key,
                metadata=run_metadata,
                conversation=talk.build(recorded_tools(record.get("tools")), record.get("model")),
            )
        )
    if crashes and not problems and not any(run.boundaries for run in runs):
        problems = crashes  # R35: what the file held, record by record
    return runs, problems


_CRASH_SHOWN = 120
"""Characters of a crash's ``info.error`` a problem or note shows."""
_CRASHED = "the run crashed before any tool call: "


def _crash(
    record: Mapping[str, Any], path: str, number: int, lines: Sequence[int] | None, file: str
) -> LoadProblem | None:
    """The crash of a record with no tool call, as a problem (``None``: it did not crash).

    tau-bench writes a task whose run raised as ``{"traj": [], "info": {"error": str(e),
    "traceback": ...}}``: the run crashed before any tool call was recorded; a ``traj`` that
    holds messages but no call, with ``info.error`` set, crashed before any call too."""
    said = _crash_said(record)
    if said is None:
        return None
    line = lines[number] if lines and path != "(root)" and number < len(lines) else None
    if line is not None:
        where = f"line {line}"
    else:
        where = f"record {number}" if path.startswith("[") else "(root)"
    task, trial = record.get("task_id"), record.get("trial")
    named = [f"task {cut(str(task), 40)}"] if type(task) in (str, int) else []
    named += [f"trial {trial}"] if type(trial) is int else []
    if named:
        where += f" ({', '.join(named)})"
    return LoadProblem(file, where, "", f"{_CRASHED}info.error {said}", line)


def _crash_said(record: Mapping[str, Any]) -> str | None:
    """A tau-bench record's crash as a problem says it (``info.error``, cut, and the exception's
    class from the last line of ``info.traceback``), else ``None``."""
    info = record.get("info")
    if not isinstance(info, Mapping) or info.get("error") is None:
        return None
    error = info["error"]
    text = error if isinstance(error, str) else json.dumps(error, default=str)
    trace = info.get("traceback")
    last = trace.strip().rsplit("\n", 1)[-1] if isinstance(trace, str) else ""
    kind = re.match(r"[A-Za-z_][\w.]*(?=:|$)", last)  # the exception's class, as Python ends
    return repr(cut(text, _CRASH_SHOWN)) + (f" ({kind.group(0)})" if kind else "")


def _naming_crash(problem: LoadProblem, crashed: str) -> LoadProblem:
    """A call's "never answered" problem, saying the run crashed (``crashed``) after it."""
    if not problem.message.endswith(" is never answered"):
        return problem
    said = f"{problem.message}: the run crashed after it: info.error {crashed}"
    return dataclasses.replace(problem, message=said)


def _blank(function_call: Mapping[str, Any]) -> bool:
    """A legacy ``function_call`` that calls nothing: no name and no arguments (Snowflake
    Cortex writes ``{"name": "", "arguments": ""}`` on every message)."""
    return not function_call.get("name") and not function_call.get("arguments")


_FUNCTION_READ = frozenset(("id", "function", "type"))
_CUSTOM_READ = frozenset(("id", "custom"))
"""The members of a call read into its boundary (the rest are kept on it as ``extra``)."""

"""What a call's ``arguments`` may be: JSON text, as the API writes them, or the object that
text decodes to, as some SDK dumps store them; a number, a boolean or a list is neither (R35)."""

_NO_ID = (None, "")
"""A call id some servers leave out or empty (Gemini's and Ollama's OpenAI-compatible APIs): the
call gets a made-up one, and a tool reply with none answers the earliest such call still open."""


def _openai_call(call: Any, pairer: CallPairer, where: str, ids: CallIds) -> dict[str, Any] | None:
    """Pair one ``tool_calls`` entry; the call in the conversation's shape (``None``: invalid).

    A ``function`` call's ``arguments`` are JSON text, decoded; a ``custom`` tool's ``input`` is
    free text, kept as it is (``extra.type`` says which)."""
    if type(call) is not dict and not isinstance(call, Mapping):
        pairer.problem(where, "tool_calls", "a tool call must be an object")
        return None
    raw_id = call.get("id")
    made_up = raw_id in _NO_ID
    call_id = ids.for_call(raw_id) if made_up else raw_id
    if not isinstance(call_id, str) or not call_id:
        pairer.problem(where, "id", "missing or not a string")
        return None
    custom = call.get("custom") if call.get("type") == "custom" else None
    is_custom = custom is not None and (type(custom) is dict or isinstance(custom, Mapping))
    function = custom if is_custom else call.get("function")
    field = "custom" if is_custom else "function"
    if (
        not (type(function) is dict or isinstance(function, Mapping))
        or type(function.get("name")) is not str
    ):
        pairer.problem(where, f"{field}.name", "missing or not a string")
        return None
    read = _CUSTOM_READ if is_custom else _FUNCTION_READ
    extra = {} if call.keys() <= read else {k: v for k, v in call.items() if k not in read}
    if made_up:
        extra["idMadeUp"] = True
    if is_custom:
        args = function.get("input")
    else:
        raw = function.get("arguments")
        if refuse_wrong_args(raw, CHAT_ARGUMENTS, pairer, call_id, where, "function.arguments"):
            return None
        args = json_args(raw)
    name = function["name"]
    pairer.call(call_id, name, args, where=where, field_name="id", extra=extra or None)
    return {"id": call_id, "name": name, "args": args}


def _openai_reply(
    message: Mapping[str, Any],
    call_id: str,
    pairer: CallPairer,
    where: str,
    rule: ErrorRule,
    talk: ConversationBuilder,
) -> None:
    content = message.get("content")
    if content is not None and not is_text_or_parts(content):  # R35: not an empty success
        refuse_result(pairer, call_id, where, "content", "not text or a list of content parts")
        return
    text = (content if type(content) is str else message_text(content)) or ""
    is_error = rule.matches(text)
    name = message.get("name")
    talk.tool(call_id, text, is_error, name if isinstance(name, str) else None)
    pairer.result(
        call_id,
        content,
        is_error,
        where=where,
        field_name="tool_call_id",
        error_message=text if is_error else None,
    )
