"""Chat transcripts: the shapes OpenAI chat and Anthropic messages files share (SPEC R1, R2).

Both come as a JSON list of messages, an object with ``messages`` (or ``traj``, as tau-bench
records have), or a list of such records; each record is one run. This module finds the records,
names places in them, and tells the two formats (and single API responses) apart by content.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from .._common.toolresult import result_text
from .._common.vocab import RunFormat

__all__ = [
    "ChatShape",
    "as_text_block",
    "chat_records",
    "detect_chat_format",
    "explain_shape",
    "message_text",
    "metadata",
    "place",
    "record_key",
    "where",
]

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
    if all((type(m) is dict or isinstance(m, Mapping)) and "role" in m for m in data):
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


def record_key(record: Mapping[str, Any], number: int, total: int) -> str:
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


def place(
    path: str,
    number: int,
    total: int,
    message: int,
    lines: Sequence[int] | None,
    places: Sequence[Sequence[str]] | None = None,
) -> tuple[str, int | None]:
    """Where a message is, for problems, and its file line when the file is JSONL.

    ``lines`` gives the line of each record (a file of records) or of each message (a file of
    one run's messages, ``path == "(root)"``). ``places`` names each message of each record
    where the records were put together from elsewhere (a cassette's exchanges).
    """
    if places is not None and number < len(places) and message < len(places[number]):
        return places[number][message], None
    if lines is None:
        return where(path, number, total, message), None
    if path == "(root)" and message < len(lines):
        return f"line {lines[message]}", lines[message]
    if number < len(lines):
        return f"line {lines[number]}, message {message}", lines[number]
    return where(path, number, total, message), None


def where(path: str, number: int, total: int, message: int) -> str:
    if total > 1:
        return f"record {number}, message {message}"
    return f"message {message}" if path == "(root)" else f"{path}[{message}]"


def metadata(record: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in _MESSAGE_KEYS}


def message_text(content: Any) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return result_text([as_text_block(b) for b in content]) or None
    return None


def as_text_block(block: Any) -> Any:
    # OpenAI content parts are {"type": "text", "text": ...}; some SDKs use "input_text" or
    # "output_text". Anthropic text blocks are already {"type": "text", "text": ...}.
    if (type(block) is dict or isinstance(block, Mapping)) and block.get("type") in (
        "input_text",
        "output_text",
    ):
        return {"type": "text", "text": block.get("text")}
    if isinstance(block, str):
        return {"type": "text", "text": block}
    return block


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
        if (
            data.get("type") == "result"
            and isinstance(data.get("session_id"), str)
            and ("num_turns" in data or "subtype" in data)
        ):
            turns = data.get("num_turns")
            held = f" of a run of {turns} turns" if type(turns) is int else ""
            return (
                f"this is Claude Code's final result{held} (claude -p --output-format json, "
                "or the Agent SDK's result message): it holds the answer only, and no tool "
                "call was written; record the run with --output-format stream-json --verbose"
            )
        if data.get("type") == "message" and data.get("role") == "assistant":
            return (
                "this is one Anthropic Messages API response (type: message), not a "
                "transcript: its tool_use blocks have no results; save the conversation's "
                "messages list (with the user turns holding the tool_result blocks)"
            )
    if (
        isinstance(data, list)
        and data
        and all(
            isinstance(e, Mapping) and "sessionId" in e and "messageId" in e and "message" in e
            for e in data[:20]
        )
    ):
        return (
            "this is a Gemini CLI prompt log (logs.json: the prompts typed, no tool calls); "
            "the session with its tool calls is the chats/session-*.json file beside it"
        )
    return None
