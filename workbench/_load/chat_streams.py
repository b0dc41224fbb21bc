"""Streamed chat API replies put together from their server-sent events (R34).

A cassette keeps a streamed response as its events. The reply they make is the message a
non-streamed call would have returned:

- Chat Completions chunks: the first choice's ``delta``s, ``content`` appended and
  ``tool_calls`` joined by ``index`` (with no ``index``, as Mistral's, Ollama's and Gemini's
  compatible APIs send them, a piece with an id or a name starts a call and any other
  continues the last one);
- Anthropic Messages events: each content block from its ``content_block_start`` and its
  ``content_block_delta``s (``text_delta``, ``thinking_delta``, ``signature_delta``;
  ``input_json_delta`` pieces joined and decoded as the block's ``input``, as call arguments
  are: JSON the workbench refuses in a file stays the text it was).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .common import STREAMED_INPUT, json_args

__all__ = ["anthropic_stream", "openai_stream"]


def openai_stream(events: Sequence[Any]) -> dict[str, Any] | None:
    """A streamed Chat Completions reply: the first choice's deltas joined."""
    text: list[str] = []
    calls: dict[int, _Call] = {}
    seen = False
    for event in events:
        choices = event.get("choices") if isinstance(event, Mapping) else None
        for choice in choices if isinstance(choices, list) else ():
            if not isinstance(choice, Mapping) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if not isinstance(delta, Mapping):
                continue
            seen = True
            if isinstance(delta.get("content"), str):
                text.append(delta["content"])
            parts = delta.get("tool_calls")
            for part in parts if isinstance(parts, list) else ():
                if isinstance(part, Mapping):
                    _add_call_delta(calls, part)
    if not seen:
        return None
    message: dict[str, Any] = {"role": "assistant", "content": "".join(text) or None}
    if calls:
        message["tool_calls"] = [calls[k].message() for k in sorted(calls)]
    return message


class _Call:
    """A streamed tool call put together: its id, and its name and arguments in pieces (joined
    once, at the end: appending to a string copied it for every piece)."""

    __slots__ = ("arguments", "id", "name")

    def __init__(self) -> None:
        self.id: str | None = None
        self.name: list[str] = []
        self.arguments: list[str] = []

    def message(self) -> dict[str, Any]:
        function = {"name": "".join(self.name), "arguments": "".join(self.arguments)}
        return {"id": self.id, "type": "function", "function": function}


def _add_call_delta(calls: dict[int, _Call], part: Mapping[str, Any]) -> None:
    """One streamed piece of a tool call: the call of its ``index``, its name and arguments
    appended (the id and type come with the first piece). Some servers send no ``index``
    (Mistral's, Ollama's and Gemini's OpenAI-compatible APIs): a piece with an id or a name
    then starts a call, and any other piece continues the last one."""
    index = part.get("index")
    function = part.get("function")
    if type(index) is not int:
        starts = part.get("id") or (isinstance(function, Mapping) and function.get("name"))
        index = len(calls) if starts or not calls else next(reversed(calls))
        while starts and index in calls:
            index += 1
    call = calls.get(index)
    if call is None:
        call = calls[index] = _Call()
    if isinstance(part.get("id"), str) and part["id"]:
        call.id = part["id"]
    if isinstance(function, Mapping):
        if isinstance(function.get("name"), str):
            call.name.append(function["name"])
        if isinstance(function.get("arguments"), str):
            call.arguments.append(function["arguments"])


_DELTA_TEXT = {"text_delta": "text", "thinking_delta": "thinking", "signature_delta": "signature"}


def anthropic_stream(events: Sequence[Any]) -> dict[str, Any] | None:
    """A streamed Messages reply: each content block from its start event and its deltas (a
    block's text pieces joined once, at the end; an ``index`` must be an integer, not a
    boolean)."""
    blocks: dict[int, dict[str, Any]] = {}
    pieces: dict[tuple[int, str], list[str]] = {}  # (block, field) -> its text so far
    seen = False
    for event in events:
        if not isinstance(event, Mapping):
            continue
        kind = event.get("type")
        index = event.get("index")
        if kind == "message_start":
            seen = True
        elif kind == "content_block_start" and type(index) is int:
            block = event.get("content_block")
            if isinstance(block, Mapping):
                blocks[index] = dict(block)
        elif kind == "content_block_delta" and type(index) is int and index in blocks:
            delta = event.get("delta")
            if not isinstance(delta, Mapping):
                continue
            delta_kind = delta.get("type")
            field = _DELTA_TEXT.get(delta_kind) if isinstance(delta_kind, str) else None
            if field is not None and isinstance(delta.get(field), str):
                if (index, field) not in pieces:
                    first = blocks[index].get(field)
                    pieces[index, field] = [first] if isinstance(first, str) and first else []
                pieces[index, field].append(delta[field])
            elif delta_kind == "input_json_delta" and isinstance(delta.get("partial_json"), str):
                pieces.setdefault((index, "input"), []).append(delta["partial_json"])
    if not seen:
        return None
    for (index, field), texts in pieces.items():
        joined = "".join(texts)
        if field != "input":
            blocks[index][field] = joined
        elif joined.strip():
            value = json_args(joined)  # JSON R35 refuses stays text
            blocks[index]["input"] = value
            if value is joined:  # (the text as streamed: no input of a wrong type)
                blocks[index][STREAMED_INPUT] = True
    return {"role": "assistant", "content": [blocks[k] for k in sorted(blocks)]}
