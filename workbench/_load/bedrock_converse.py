"""Amazon Bedrock Converse API traffic in HTTP cassettes, as Messages-shaped exchanges (R34-R36).

The Converse API is stateless as the chat APIs are: each request to
``/model/<model id>/converse`` (or ``/converse-stream``) sends the conversation so far as
``messages`` (``role`` ``user`` or ``assistant``, each a list of content blocks), the reply is
``output.message``. A ``toolUse`` block (``toolUseId``, ``name``, ``input``) is a call, and a
``toolResult`` block (``toolUseId``, ``content``: ``text``/``json`` blocks, ``status``) in a
later user message its result, failed when its ``status`` is ``error`` (the API's own flag).
``as_messages`` writes such an exchange in Anthropic Messages' shape (``tool_use`` and
``tool_result`` blocks, ``is_error``), so that it is grouped into conversations and read as a
Messages cassette is (``chat_conversations``, ``anthropic``); the runs are named
``bedrock-converse``. The request's ``system`` blocks are the system prompt, its
``toolConfig.tools[].toolSpec`` the tool definitions, the model the path's.

A streamed reply (``/converse-stream``: AWS event-stream frames, ``aws_event_stream``) is its
events put together: ``contentBlockStart`` opens a block (a ``toolUse`` with its id and name,
or the ``toolResult`` of a tool the server ran, such as Nova's code interpreter, with its
``status``), each ``contentBlockDelta`` adds text, a piece of the call's input (JSON text,
decoded when the block stops) or the server tool result's content blocks, by
``contentBlockIndex``. Blocks of other kinds (``image``, ``document``,
``reasoningContent``, ...) are kept in the transcript as they are, not read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import unquote

from .._common.jsonio import json_text
from .cassettes import Exchange, with_bodies
from .common import FlagRefused, json_args

__all__ = ["Written", "as_messages", "converse_calls"]

_METHODS = ("/converse", "/converse-stream")


def converse_calls(exchanges: Sequence[Exchange]) -> list[bool]:
    """Whether each exchange is a Converse call the server answered (its path, and a request of
    ``messages``), after a look at the URIs that costs nothing on the usual cassette."""
    if not any("/converse" in e.uri for e in exchanges):
        return [False] * len(exchanges)
    paths: dict[str, bool] = {}  # each URI's path read once (a cassette calls a few)
    out: list[bool] = []
    for exchange in exchanges:
        uri = exchange.uri
        known = paths.get(uri)
        if known is None:
            known = paths[uri] = _converse_path(uri)
        request = exchange.request
        out.append(
            known
            and isinstance(request, Mapping)
            and isinstance(request.get("messages"), list)
            and not exchange.refused
        )
    return out


def _converse_path(uri: str) -> bool:
    path = uri.split("?", 1)[0].rstrip("/")
    return path.endswith(_METHODS) and "/model/" in path


class Written:
    """What :func:`as_messages` wrote for a cassette's requests so far, shared by them: a request
    resends its conversation, whose messages (and tool configuration) the cassette's decoding
    shares (``chat_resends``), so each is written once and the requests share the written
    ones, as the conversations' grouping expects."""

    __slots__ = ("last", "messages", "models", "tools")

    def __init__(self) -> None:
        self.models: dict[str, str] = {}
        """The model each URI names (its path's, unquoted)."""
        self.messages: dict[int, tuple[Any, Any]] = {}
        """Each message written, by the identity of the one read (kept beside it)."""
        self.last: tuple[list[Any], list[Any]] = ([], [])
        """The last request's messages as read, and as written."""
        self.tools: tuple[Any, list[dict[str, Any]]] = (None, [])
        """The last tool configuration read, and its tools written."""


def as_messages(exchange: Exchange, seen: Written | None = None) -> Exchange:
    """The exchange with its request and reply in Anthropic Messages' shape (see the module);
    ``seen``: what was written for the cassette's requests before it (:class:`Written`)."""
    request = exchange.request
    memo = Written() if seen is None else seen
    read: list[Any] = request["messages"]
    before, written_before = memo.last
    count = len(before)
    if count and len(read) >= count and read[:count] == before and before[-1] is read[count - 1]:
        messages = written_before + _written(read[count:], memo.messages)  # the usual request
    else:
        messages = _written(read, memo.messages)
    memo.last = (read, messages)
    body: dict[str, Any] = {"messages": messages}
    model = memo.models.get(exchange.uri)
    if model is None:
        path = exchange.uri.split("?", 1)[0].rstrip("/")
        model = unquote(path.rsplit("/model/", 1)[-1].rsplit("/", 1)[0])
        if len(memo.models) < 1024:
            memo.models[exchange.uri] = model
    if model:
        body["model"] = model
    system = request.get("system")
    texts = (
        [b.get("text") for b in system if isinstance(b, Mapping)]
        if isinstance(system, list)
        else []
    )
    if any(isinstance(t, str) for t in texts):
        body["system"] = "\n".join(t for t in texts if isinstance(t, str))
    config = request.get("toolConfig")
    if config is None or config is not memo.tools[0]:  # (resent, it is the same object)
        memo.tools = (config, _tools(config))
    if memo.tools[1]:
        body["tools"] = memo.tools[1]
    return with_bodies(exchange, body, _reply(exchange))


def _written(read: list[Any], memo: dict[int, tuple[Any, Any]]) -> list[Any]:
    """Messages in Messages' shape, each written once (``memo``, by the identity of the one
    read, kept beside it)."""
    messages: list[Any] = []
    for message in read:
        known = memo.get(id(message))
        if known is not None and known[0] is message:
            messages.append(known[1])
            continue
        if type(message) is not dict and not isinstance(message, Mapping):
            messages.append(message)  # the Messages reader reports what is not an object
            continue
        content = message.get("content")
        blocks = [_block(b) for b in content] if isinstance(content, list) else content
        written = {"role": message.get("role"), "content": blocks}
        memo[id(message)] = (message, written)
        messages.append(written)
    return messages


def _block(block: Any) -> Any:
    """A Converse content block in Messages' shape: text, a call, a result; others as they are."""
    if type(block) is not dict and not isinstance(block, Mapping):
        return block
    text = block.get("text")
    if type(text) is str and len(block) == 1:
        return {"type": "text", "text": text}
    use = block.get("toolUse")
    if type(use) is dict or isinstance(use, Mapping):
        return {
            "type": "tool_use",
            "id": use.get("toolUseId"),
            "name": use.get("name"),
            "input": use.get("input"),
        }
    result = block.get("toolResult")
    if type(result) is dict or isinstance(result, Mapping):
        status = result.get("status")
        # the API's flag: "success" or "error" (absent: success); any other value is a flag
        # the Messages reader refuses at the Converse field (R35)
        known = status is None or (type(status) is str and status in ("success", "error"))
        return {
            "type": "tool_result",
            "tool_use_id": result.get("toolUseId"),
            "content": _result_blocks(result.get("content")),
            "is_error": status == "error"
            if known
            else FlagRefused("toolResult.status", "not success or error"),
            **({"status": status} if status is not None else {}),
        }
    return {"type": "converse-block", "block": dict(block)}


def _result_blocks(content: Any) -> Any:
    """A result's content blocks as Messages' text blocks (a ``json`` block as its JSON text).
    Converse writes a list of blocks (none: no content); anything else, text included, and a
    part that is no block, is handed on as a value the Messages reader refuses (R35: it was
    read as text, or as an empty success)."""
    if not isinstance(content, list):
        return [] if content is None else {"toolResult.content": content}
    out: list[Any] = []
    for part in content:
        if not (type(part) is dict or isinstance(part, Mapping)):
            out.append([part])  # no block: refused
        elif type(text := part.get("text")) is str:
            out.append({"type": "text", "text": text})
        elif "json" in part:
            out.append({"type": "text", "text": json_text(part["json"])})
        else:
            out.append({"type": "converse-block", "block": part})
    return out


def _tools(config: Any) -> list[dict[str, Any]]:
    """The tool specs as Messages tool definitions."""
    tools = config.get("tools") if isinstance(config, Mapping) else None
    out: list[dict[str, Any]] = []
    for tool in tools if isinstance(tools, list) else []:
        spec = tool.get("toolSpec") if isinstance(tool, Mapping) else None
        if isinstance(spec, Mapping) and isinstance(spec.get("name"), str):
            schema = spec.get("inputSchema")
            schema = schema.get("json") if isinstance(schema, Mapping) else None
            out.append(
                {
                    "name": spec["name"],
                    "description": spec.get("description", ""),
                    "input_schema": schema if isinstance(schema, Mapping) else {},
                }
            )
    return out


def _reply(exchange: Exchange) -> dict[str, Any] | None:
    """The model's reply as a Messages response: ``output.message``, or the streamed events put
    together."""
    response = exchange.response
    if type(response) is dict or isinstance(response, Mapping):
        output = response.get("output")
        message = (
            output.get("message") if type(output) is dict or isinstance(output, Mapping) else None
        )
        content = (
            message.get("content")
            if type(message) is dict or isinstance(message, Mapping)
            else None
        )
        if isinstance(content, list):
            return {"type": "message", "role": "assistant", "content": [_block(b) for b in content]}
    if exchange.events:
        return {"type": "message", "role": "assistant", "content": _streamed(exchange.events)}
    return None


_CUT_SHORT = "the stream ended before this result's end: its content is not whole"


def _streamed(events: Sequence[Any]) -> list[Any]:
    """The blocks a ``converse-stream`` reply's events build, in index order. A server tool's
    result whose ``contentBlockStop`` never came (a recording cut short at a frame) is given
    to the Messages reader with a failure flag it refuses: its content is not whole, and was
    read as a success (R35)."""
    blocks: dict[int, dict[str, Any]] = {}
    inputs: dict[int, list[str]] = {}
    pieces_of: dict[tuple[int, str], list[str]] = {}  # text pieces by block and member
    results: dict[int, tuple[dict[str, Any], list[Any]]] = {}  # a server tool's result blocks
    stopped: set[int] = set()  # the indexes of the blocks a contentBlockStop closed
    for event in events:
        if not isinstance(event, Mapping):
            continue
        start = event.get("contentBlockStart")
        delta = event.get("contentBlockDelta")
        stop = event.get("contentBlockStop")
        if isinstance(stop, Mapping):
            if type(closed := stop.get("contentBlockIndex")) is int:
                stopped.add(closed)
        elif isinstance(start, Mapping):
            index = start.get("contentBlockIndex")
            began = start.get("start")
            use = began.get("toolUse") if isinstance(began, Mapping) else None
            result = began.get("toolResult") if isinstance(began, Mapping) else None
            if type(index) is int and isinstance(result, Mapping):  # a server tool's result
                results[index] = (dict(result), [])
                blocks[index] = {}  # written when every piece is in
            elif type(index) is int and isinstance(use, Mapping):
                blocks[index] = {
                    "type": "tool_use",
                    "id": use.get("toolUseId"),
                    "name": use.get("name"),
                    "input": {},
                }
                inputs[index] = []
        elif isinstance(delta, Mapping):
            index = delta.get("contentBlockIndex")
            piece = delta.get("delta")
            if type(index) is not int or not isinstance(piece, Mapping):
                continue
            if isinstance(piece.get("text"), str):
                block = blocks.setdefault(index, {"type": "text", "text": ""})
                if block.get("type") == "text":
                    pieces_of.setdefault((index, "text"), []).append(piece["text"])
            answer = piece.get("toolResult")
            if index in results and isinstance(answer, list):
                results[index][1].extend(answer)
            use = piece.get("toolUse")
            if isinstance(use, Mapping) and isinstance(use.get("input"), str):
                inputs.setdefault(index, []).append(use["input"])
            thought = piece.get("reasoningContent")
            if isinstance(thought, Mapping):  # kept as the plain reply's block (not read)
                block = blocks.setdefault(
                    index, {"type": "converse-block", "block": {"reasoningContent": {}}}
                )
                if block.get("type") == "converse-block":
                    for key, value in thought.items():
                        if isinstance(value, str):
                            pieces_of.setdefault((index, key), []).append(value)
    for (index, key), texts in pieces_of.items():  # each block's pieces joined once
        block = blocks[index]
        if key == "text" and block.get("type") == "text":
            block["text"] = "".join(texts)
        elif block.get("type") == "converse-block":
            block["block"]["reasoningContent"][key] = "".join(texts)
    for index, (began, content) in results.items():
        block = _block({"toolResult": {**began, "content": content}})
        if index not in stopped:  # R35: the stream ended inside it, its content cut short
            block["is_error"] = FlagRefused("contentBlockStop", _CUT_SHORT)
        blocks[index] = block
    for index, pieces in inputs.items():
        opened = blocks.get(index)
        if opened is not None and opened.get("type") == "tool_use":
            text = "".join(pieces)
            opened["input"] = json_args(text) if text else {}
    return [blocks[index] for index in sorted(blocks)]
