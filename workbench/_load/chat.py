"""Chat transcripts as promoted runs: OpenAI chat messages and Anthropic messages (SPEC R1-R3).

Both come as a JSON list of messages, an object with ``messages`` (or ``traj``, as tau-bench
records have), or a list of such records; each record is one run. OpenAI chat has no error flag,
so an :class:`~workbench.ErrorRule` decides which tool replies are failures; Anthropic's
``tool_result`` carries ``is_error``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from .._common.toolresult import result_text, text_content
from .pairing import CallPairer
from .records import ErrorRule, LoadProblem, PromotedRun, RunFormat

__all__ = ["ChatShape", "chat_records", "explain_shape", "load_anthropic", "load_openai_chat"]

ChatShape = Literal["messages", "record", "records"]

_MESSAGE_KEYS = ("messages", "traj")


def chat_records(data: Any) -> list[tuple[str, Mapping[str, Any], list[Any]]] | None:
    """The records of a chat file as ``(path, record, messages)``, or ``None`` if not chat-shaped.

    ``path`` is where the record's messages sit, for problems (``[3].traj``, ``messages``).
    """
    if isinstance(data, Mapping):
        for key in _MESSAGE_KEYS:
            if isinstance(data.get(key), list):
                return [(key, data, data[key])]
        return None
    if not isinstance(data, list):
        return None
    if not data:
        return [("(root)", {}, [])]
    if all(isinstance(m, Mapping) and "role" in m for m in data):
        return [("(root)", {}, data)]
    records: list[tuple[str, Mapping[str, Any], list[Any]]] = []
    for index, item in enumerate(data):
        if not isinstance(item, Mapping):
            return None
        for key in _MESSAGE_KEYS:
            if isinstance(item.get(key), list):
                records.append((f"[{index}].{key}", item, item[key]))
                break
        else:
            return None
    return records


def _record_key(record: Mapping[str, Any], number: int, total: int) -> str:
    task_id = record.get("task_id", record.get("taskId"))
    trial = record.get("trial")
    if task_id is not None and trial is not None:
        return _slug(f"task-{task_id}-trial-{trial}")
    if task_id is not None:
        return _slug(f"task-{task_id}") + (f"-{number}" if total > 1 else "")
    for key in ("id", "run_id", "runId", "conversation_id"):
        if isinstance(record.get(key), str | int):
            return _slug(f"run-{record[key]}")
    return f"run-{number}" if total > 1 else "run"


def _slug(text: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug or "run"


def _place(
    path: str, number: int, total: int, message: int, lines: Sequence[int] | None
) -> tuple[str, int | None]:
    """Where a message is, for problems, and its file line when the file is JSONL.

    ``lines`` gives the line of each record (a file of records) or of each message (a file of
    one run's messages, ``path == "(root)"``).
    """
    if lines is None:
        return _where(path, number, total, message), None
    if path == "(root)" and message < len(lines):
        return f"line {lines[message]}", lines[message]
    if number < len(lines):
        return f"line {lines[number]}, message {message}", lines[number]
    return _where(path, number, total, message), None


def _where(path: str, number: int, total: int, message: int) -> str:
    if total > 1:
        return f"record {number}, message {message}"
    return f"message {message}" if path == "(root)" else f"{path}[{message}]"


def _metadata(record: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in _MESSAGE_KEYS}


def _message_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return result_text([_as_text_block(b) for b in content]) or None
    return None


def _as_text_block(block: Any) -> Any:
    # OpenAI content parts are {"type": "text", "text": ...}; some SDKs use "input_text" or
    # "output_text". Anthropic text blocks are already {"type": "text", "text": ...}.
    if isinstance(block, Mapping) and block.get("type") in ("input_text", "output_text"):
        return {"type": "text", "text": block.get("text")}
    if isinstance(block, str):
        return {"type": "text", "text": block}
    return block


def _openai_args(raw: Any) -> Any:
    """Tool-call ``arguments`` are a JSON string; a string that is not JSON is kept as it is."""
    if isinstance(raw, str):
        try:
            return json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError:
            return raw
    return raw


def load_openai_chat(
    data: Any, file: str, error_rule: ErrorRule, *, lines: Sequence[int] | None = None
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """Promoted runs from OpenAI chat messages (``tool_calls`` and ``role: tool`` replies).

    ``lines``: the file line of each record, or of each message of a one-run file (JSONL).
    """
    records = chat_records(data)
    if records is None:
        message = explain_shape(data) or "not an OpenAI chat transcript"
        return [], [LoadProblem(file, "(root)", "", message)]
    runs: list[PromotedRun] = []
    problems: list[LoadProblem] = []
    for number, (path, record, messages) in enumerate(records):
        pairer = CallPairer(file)
        answer: Any = None
        legacy_open: list[str] = []
        for m_index, message in enumerate(messages):
            where, pairer.current_line = _place(path, number, len(records), m_index, lines)
            if not isinstance(message, Mapping):
                pairer.problem(where, "", "a message must be an object")
                continue
            role = message.get("role")
            if role == "assistant":
                calls = message.get("tool_calls") or []
                if not isinstance(calls, list):
                    pairer.problem(where, "tool_calls", "must be a list")
                    calls = []
                for c_index, call in enumerate(calls):
                    _openai_call(call, pairer, f"{where}, tool call {c_index}")
                function_call = message.get("function_call")
                if isinstance(function_call, Mapping):
                    call_id = f"function-call-{m_index}"
                    legacy_open.append(call_id)
                    pairer.call(
                        call_id,
                        str(function_call.get("name", "")),
                        _openai_args(function_call.get("arguments")),
                        where=where,
                        field_name="function_call",
                    )
                text = _message_text(message.get("content"))
                if text and not calls:
                    answer = text
            elif role == "tool":
                reply_id = message.get("tool_call_id")
                if not isinstance(reply_id, str) or not reply_id:
                    pairer.problem(where, "tool_call_id", "missing or not a string")
                    continue
                _openai_reply(message, reply_id, pairer, where, error_rule)
            elif role == "function":
                if not legacy_open:
                    pairer.problem(where, "name", "function reply with no open function_call")
                    continue
                _openai_reply(message, legacy_open.pop(0), pairer, where, error_rule)
        boundaries = pairer.finish()
        problems.extend(pairer.problems)
        key = _record_key(record, number, len(records))
        runs.append(
            PromotedRun(
                run_id=key,
                boundaries=boundaries,
                source=file,
                format="openai-chat",
                error_rule=error_rule,
                outcome="completed",
                answer=answer,
                task_key=key,
                metadata=_metadata(record),
            )
        )
    return runs, problems


def _openai_call(call: Any, pairer: CallPairer, where: str) -> None:
    if not isinstance(call, Mapping):
        pairer.problem(where, "tool_calls", "a tool call must be an object")
        return
    call_id = call.get("id")
    function = call.get("function")
    if not isinstance(call_id, str) or not call_id:
        pairer.problem(where, "id", "missing or not a string")
        return
    if not isinstance(function, Mapping) or not isinstance(function.get("name"), str):
        pairer.problem(where, "function.name", "missing or not a string")
        return
    extra = {k: v for k, v in call.items() if k not in ("id", "function", "type")}
    pairer.call(
        call_id,
        function["name"],
        _openai_args(function.get("arguments")),
        where=where,
        field_name="id",
        extra=extra or None,
    )


def _openai_reply(
    message: Mapping[str, Any], call_id: str, pairer: CallPairer, where: str, rule: ErrorRule
) -> None:
    content = message.get("content")
    text = _message_text(content) or ""
    is_error = rule.matches(text)
    pairer.result(
        call_id,
        content,
        is_error,
        where=where,
        field_name="tool_call_id",
        error_message=text if is_error else None,
    )


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return text_content(content)
    if isinstance(content, list):
        return [_as_text_block(b) for b in content]
    return []


def load_anthropic(
    data: Any, file: str, *, lines: Sequence[int] | None = None
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """Promoted runs from Anthropic messages (``tool_use`` / ``tool_result`` blocks).

    ``lines``: the file line of each record, or of each message of a one-run file (JSONL).
    """
    records = chat_records(data)
    if records is None:
        message = explain_shape(data) or "not an Anthropic messages transcript"
        return [], [LoadProblem(file, "(root)", "", message)]
    runs: list[PromotedRun] = []
    problems: list[LoadProblem] = []
    for number, (path, record, messages) in enumerate(records):
        pairer = CallPairer(file)
        answer: Any = None
        for m_index, message in enumerate(messages):
            where, pairer.current_line = _place(path, number, len(records), m_index, lines)
            if not isinstance(message, Mapping):
                pairer.problem(where, "", "a message must be an object")
                continue
            content = message.get("content")
            blocks: Sequence[Any] = content if isinstance(content, list) else []
            role = message.get("role")
            texts: list[str] = []
            made_calls = False
            for b_index, block in enumerate(blocks):
                if not isinstance(block, Mapping):
                    continue
                kind = block.get("type")
                block_where = f"{where}, block {b_index}"
                if kind == "tool_use":
                    made_calls = True
                    call_id = block.get("id")
                    name = block.get("name")
                    if not isinstance(call_id, str) or not call_id:
                        pairer.problem(block_where, "id", "missing or not a string")
                        continue
                    if not isinstance(name, str) or not name:
                        pairer.problem(block_where, "name", "missing or not a string")
                        continue
                    pairer.call(
                        call_id, name, block.get("input"), where=block_where, field_name="id"
                    )
                elif kind == "tool_result":
                    call_id = block.get("tool_use_id")
                    if not isinstance(call_id, str) or not call_id:
                        pairer.problem(block_where, "tool_use_id", "missing or not a string")
                        continue
                    result_blocks = _blocks(block.get("content"))
                    is_error = block.get("is_error") is True
                    pairer.result(
                        call_id,
                        {"content": result_blocks},
                        is_error,
                        where=block_where,
                        field_name="tool_use_id",
                        error_message=(result_text(result_blocks) or None) if is_error else None,
                    )
                elif isinstance(kind, str) and kind.endswith("tool_use"):
                    # server_tool_use, mcp_tool_use, ...: a call the API ran for the agent. It
                    # is a tool call the agent made and saw the result of, so it is a boundary.
                    # Its result comes in the same message, and the text after it may be the
                    # answer: text before it is not.
                    texts.clear()
                    _server_call(block, kind, pairer, block_where)
                elif isinstance(kind, str) and kind.endswith("_tool_result"):
                    _server_result(block, kind, pairer, block_where)
                elif kind == "text" and isinstance(block.get("text"), str):
                    texts.append(block["text"])
            # The answer is the last assistant text with no tool call beside it, as for OpenAI
            # chat: text next to a tool_use ("I'll look that up") is not the run's answer.
            if role == "assistant" and not made_calls:
                if isinstance(content, str) and content:
                    answer = content
                elif texts:
                    answer = "\n".join(texts)
        boundaries = pairer.finish()
        problems.extend(pairer.problems)
        key = _record_key(record, number, len(records))
        runs.append(
            PromotedRun(
                run_id=key,
                boundaries=boundaries,
                source=file,
                format="anthropic",
                outcome="completed",
                answer=answer,
                task_key=key,
                metadata=_metadata(record),
            )
        )
    return runs, problems


def _server_call(block: Mapping[str, Any], kind: str, pairer: CallPairer, where: str) -> None:
    call_id = block.get("id")
    name = block.get("name")
    if not isinstance(call_id, str) or not call_id:
        pairer.problem(where, "id", "missing or not a string")
        return
    if not isinstance(name, str) or not name:
        pairer.problem(where, "name", "missing or not a string")
        return
    extra: dict[str, Any] = {"blockType": kind}
    extra.update((k, v) for k, v in block.items() if k not in ("type", "id", "name", "input"))
    pairer.call(call_id, name, block.get("input"), where=where, field_name="id", extra=extra)


def _server_result(block: Mapping[str, Any], kind: str, pairer: CallPairer, where: str) -> None:
    """A server tool's result block (``web_search_tool_result``, ``mcp_tool_result``, ...).

    Its content is kept as recorded: a list of blocks becomes the response's ``content``, any
    other value is the response itself. It failed when it says ``is_error: true`` or its
    content is an error object (a ``type`` ending in ``_error``, e.g.
    ``web_search_tool_result_error``).
    """
    call_id = block.get("tool_use_id")
    if not isinstance(call_id, str) or not call_id:
        pairer.problem(where, "tool_use_id", "missing or not a string")
        return
    content = block.get("content")
    error_type = content.get("type") if isinstance(content, Mapping) else None
    failed = isinstance(error_type, str) and error_type.endswith("_error")
    is_error = block.get("is_error") is True or failed
    code: str | None = None
    message: str | None = None
    response: Any
    if isinstance(content, list):
        response = {"content": _blocks(content)}
        message = result_text(response["content"]) or None
    else:
        response = content
    if failed and isinstance(content, Mapping):
        raw_code = content.get("error_code")
        code = raw_code if isinstance(raw_code, str) else None
        message = code or str(error_type)
    extra = {"resultType": kind}
    pairer.result(
        call_id,
        response,
        is_error,
        where=where,
        field_name="tool_use_id",
        error_code=code,
        error_message=(message or "tool call failed") if is_error else None,
        extra=extra,
    )


def detect_chat_format(data: Any) -> RunFormat | None:
    """``anthropic`` or ``openai-chat`` for chat-shaped data, ``None`` otherwise."""
    records = chat_records(data)
    if records is None:
        return None
    for _, _, messages in records:
        for message in messages:
            if not isinstance(message, Mapping):
                continue
            content = message.get("content")
            if isinstance(content, list) and any(_is_anthropic_block(b) for b in content):
                return "anthropic"
    return "openai-chat"


def _is_anthropic_block(block: Any) -> bool:
    """A content block only Anthropic messages have: a tool use or tool result of any kind."""
    if not isinstance(block, Mapping):
        return False
    kind = block.get("type")
    return isinstance(kind, str) and (kind.endswith("tool_use") or kind.endswith("tool_result"))


def explain_shape(data: Any) -> str | None:
    """Why well-known JSON that is not a transcript cannot be loaded, or ``None``.

    A single API response (an OpenAI chat completion, an Anthropic Messages response) holds one
    assistant turn: its tool calls have no results, so it records no tool boundary.
    """
    if isinstance(data, Mapping):
        choices = data.get("choices")
        if (
            isinstance(choices, list)
            and data.get("object") in ("chat.completion", None)
            and any(isinstance(c, Mapping) and "message" in c for c in choices)
        ):
            return (
                "this is one chat completion response (choices[].message), not a "
                "transcript: its tool calls have no results; save the request's messages "
                "with the reply and the tool messages that answered it"
            )
        if data.get("type") == "message" and data.get("role") == "assistant":
            return (
                "this is one Anthropic Messages API response (type: message), not a "
                "transcript: its tool_use blocks have no results; save the conversation's "
                "messages list (with the user turns holding the tool_result blocks)"
            )
    return None
