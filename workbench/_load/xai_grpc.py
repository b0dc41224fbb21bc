"""xAI (Grok) gRPC traffic as pydantic-ai records it: ``*.xai.yaml`` cassettes (R34-R36).

The xAI SDK speaks gRPC, which HTTP cassettes cannot record, so pydantic-ai's tests keep their
own YAML cassette (``tests/models/xai_proto_cassettes.py``): ``{version: 1, interactions:
[...]}``, each interaction one of

- ``request_sample`` / ``response_sample`` (``chat.sample()``): each ``{json, raw}``, ``json``
  the protobuf message as ``MessageToDict`` writes it, ``raw`` the same message's protobuf
  bytes (YAML ``!!binary``);
- ``request_stream`` / ``response_stream`` (``chat.stream()``): the request as above, the
  reply as ``chunks_json`` (``[{chunk: {outputs: [{index, delta}]}}]``) and ``chunks_raw``;
- ``collections_method`` (an upload to a collection): no model call, kept as a known non-tool
  record (``metadata["otherExchanges"]``, R35).

Only the ``json`` members are read (the protobuf bytes, at those places, are dropped as the
file is decoded: :func:`drop_raw`). A request is the conversation so far (``messages``:
``role`` ``ROLE_SYSTEM``, ``ROLE_USER``, ``ROLE_ASSISTANT``, ``ROLE_TOOL``, each ``content`` a
list of parts, ``{text}``, ``{image_url}``, ``{file}``, ...), so ``as_exchanges`` writes each
interaction in Anthropic Messages' shape and the conversations are grouped and read as a
Messages cassette's (``chat_conversations``, ``anthropic``); the runs are named ``xai``. A
reply is its ``outputs`` in ``index`` order (a streamed one: each output's ``delta`` pieces
joined, its ``tool_calls`` gathered by id), one assistant turn.

Calls and results (``ToolCall``: ``id``, ``type``, ``status``, ``function.name``/``arguments``,
``error_message``; protobuf's JSON leaves out a member at its zero value, so no ``status``
is ``TOOL_CALL_STATUS_IN_PROGRESS`` and no ``type`` ``TOOL_CALL_TYPE_INVALID``):

- A ``TOOL_CALL_TYPE_CLIENT_SIDE_TOOL`` call (or one of no type) is the agent's: it is
  answered by a ``ROLE_TOOL`` message of a later request, by its ``tool_call_id`` when the
  message has one, else (older recordings have none) by place: the ``n``-th ``ROLE_TOOL``
  message after an assistant turn answers its ``n``-th client call not yet answered
  (pydantic-ai sends the results in the order of the calls). A tool message has no failure
  flag: the caller's error rule is applied to its text (R36; pydantic-ai's retry prompt ends
  ``Fix the errors and try again.``).
- Any other type is a tool the server runs (web search, X search, code execution, collections
  or attachment search, MCP, ...): its call comes in a ``ROLE_ASSISTANT`` output and its result
  in a ``ROLE_TOOL`` output of the same reply (the call again, with its ``status``, the output's
  ``content`` its text; a result of no status is a success). A call the reply carries no
  result of is answered by its own status when it has ended (``COMPLETED``: a success whose
  output was not recorded); one still in progress is a call never answered (R2).
  ``TOOL_CALL_STATUS_FAILED`` and ``_INCOMPLETE`` are failures (the ``error_message`` kept);
  any other status, or ``tool_calls`` that are no list of objects, a problem (R35). A server
  call resent in a later request is the reply's (a block kept, not read).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .cassettes import Exchange
from .common import FlagRefused, json_args
from .records import ErrorRule, LoadProblem

__all__ = ["as_exchanges", "drop_raw", "is_xai_cassette"]

_REQUESTS = ("request_sample", "request_stream")
_KINDS = (*_REQUESTS, "collections_method")
_RAW = {kind: ("raw",) for kind in ("request_sample", "request_stream", "response_sample")}
_RAW |= {"response_stream": ("chunks_raw",), "collections_method": ("response_raw",)}
_NO_STATUS = FlagRefused("status", "not a value the API has")  # (a status never written)
_CLIENT = ("TOOL_CALL_TYPE_CLIENT_SIDE_TOOL", "TOOL_CALL_TYPE_INVALID", None)
_ENDED = {
    "TOOL_CALL_STATUS_COMPLETED": False,
    "TOOL_CALL_STATUS_FAILED": True,
    "TOOL_CALL_STATUS_INCOMPLETE": True,
}
_URI = "xai-grpc:/xai_api.Chat/"


def is_xai_cassette(value: Any) -> bool:
    """Whether a decoded file is pydantic-ai's xAI cassette: ``interactions`` of which one of
    the first is a model call of its kinds (``request_sample``, ``request_stream``) and none
    an HTTP cassette's (``request``)."""
    items = value.get("interactions") if isinstance(value, Mapping) else None
    if type(items) is not list or not items:
        return False
    heads = [i for i in items[:16] if isinstance(i, Mapping)]
    return any(k in i for i in heads for k in _REQUESTS) and not any("request" in i for i in heads)


def drop_raw(value: Any) -> None:
    """The protobuf bytes of an xAI cassette (``raw``, ``chunks_raw``, ``response_raw``), which
    JSON has not and the ``json`` members say again, taken out of the decoded value; bytes
    anywhere else are left for the loader to refuse (R35)."""
    if not is_xai_cassette(value):
        return
    for item in value["interactions"]:
        for key, members in _RAW.items():
            part = item.get(key) if isinstance(item, Mapping) else None
            if not isinstance(part, dict):
                continue
            for member in members:
                held = part.get(member)
                if isinstance(held, bytes) or (
                    type(held) is list and all(isinstance(b, bytes) for b in held)
                ):
                    del part[member]


def as_exchanges(
    value: Mapping[str, Any], file: str, rule: ErrorRule
) -> tuple[list[Exchange], list[bool], list[LoadProblem]]:
    """Each interaction as an exchange in Messages' shape, whether it is a model call, and the
    problems of interactions that cannot be read (each names its place)."""
    exchanges: list[Exchange] = []
    calls: list[bool] = []
    problems: list[LoadProblem] = []
    memo = _Written()
    for index, item in enumerate(value["interactions"]):
        where = f"interaction {index}"
        kind = next((k for k in _KINDS if isinstance(item, Mapping) and k in item), None)
        if kind is None or kind == "collections_method":
            if kind is None:
                said = "an object of request_sample, request_stream or collections_method"
                problems.append(LoadProblem(file, where, "", f"not {said}"))
            block = item.get(kind) if kind and isinstance(item, Mapping) else None
            method = block.get("method") if isinstance(block, Mapping) else None
            uri = f"xai-grpc:/collections/{method if isinstance(method, str) else '?'}"
            exchanges.append(Exchange(index, uri, "POST", None, None))
            calls.append(False)
            continue
        stream = kind == "request_stream"
        sent = item[kind]
        request = sent.get("json") if isinstance(sent, Mapping) else None
        if not isinstance(request, Mapping) or not isinstance(request.get("messages"), list):
            said = "no request messages (the protobuf bytes are not read)"
            problems.append(LoadProblem(file, where, f"{kind}.json.messages", said))
            exchanges.append(Exchange(index, _URI + "GetCompletion", "POST", None, None))
            calls.append(False)
            continue
        answer = item.get("response_stream" if stream else "response_sample")
        outputs = _streamed(answer) if stream else _outputs(answer)
        reply = None if outputs is None else _reply(outputs)
        odd = sum(b.get("id", "") is None for b in reply["content"]) if reply else 0
        if odd:  # a tool_calls item that is no object (R35)
            said = f"{odd} tool call(s) that are no object"
            problems.append(LoadProblem(file, f"{where}, response", "tool_calls", said))
        body = _request(request, rule, memo)
        uri = _URI + ("GetCompletionChunk" if stream else "GetCompletion")
        exchanges.append(Exchange(index, uri, "POST", body, reply, status=None))
        calls.append(True)
    return exchanges, calls, problems


def _outputs(answer: Any) -> list[Any] | None:
    response = answer.get("json") if isinstance(answer, Mapping) else None
    outputs = response.get("outputs") if isinstance(response, Mapping) else None
    if not isinstance(outputs, list):
        return None
    indexed = [(_index(o, n), o) for n, o in enumerate(outputs)]
    return [o for _, o in sorted(indexed, key=lambda pair: pair[0])]


def _index(output: Any, default: int) -> int:
    found = output.get("index", 0) if isinstance(output, Mapping) else default
    return found if type(found) is int else default


def _streamed(answer: Any) -> list[Any] | None:
    """The outputs a streamed reply's chunks build: each index's deltas joined (``content``,
    ``reasoning_content``, ``encrypted_content`` pieces; ``tool_calls`` by id, a later copy's
    members over an earlier's), its last ``role``."""
    chunks = answer.get("chunks_json") if isinstance(answer, Mapping) else None
    if not isinstance(chunks, list):
        return None
    built: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        inner = chunk.get("chunk") if isinstance(chunk, Mapping) else None
        outputs = inner.get("outputs") if isinstance(inner, Mapping) else None
        for output in outputs if isinstance(outputs, list) else ():
            delta = output.get("delta") if isinstance(output, Mapping) else None
            if not isinstance(delta, Mapping):
                continue
            message = built.setdefault(_index(output, 0), {"tool_calls": {}})
            for key in ("content", "reasoning_content", "encrypted_content"):
                if isinstance(delta.get(key), str):
                    message[key] = message.get(key, "") + delta[key]
            if isinstance(delta.get("role"), str):
                message["role"] = delta["role"]
            for call in _calls(delta):
                made = message["tool_calls"]
                if not isinstance(call, Mapping):  # kept: the reply's reader reports it (R35)
                    made[len(made)] = call
                    continue
                slot = call.get("id") if isinstance(call.get("id"), str) else len(made)
                made[slot] = {**made.get(slot, {}), **call}
    out = []
    for index in sorted(built):
        message = built[index]
        message["tool_calls"] = list(message["tool_calls"].values())
        out.append({"index": index, "message": message})
    return out


def _reply(outputs: list[Any]) -> dict[str, Any]:
    """The outputs as one Messages reply: text, thinking, calls and the server's results."""
    blocks: list[Any] = []
    made: dict[str, dict[str, Any]] = {}  # the server calls made, by id
    answered: set[str] = set()
    for output in outputs:
        message = output.get("message") if isinstance(output, Mapping) else None
        if not isinstance(message, Mapping):
            continue
        tool = message.get("role") == "ROLE_TOOL"
        _thinking(message, blocks)
        text = message.get("content")
        if isinstance(text, str) and text and not tool:
            blocks.append({"type": "text", "text": text})
        for call in _calls(message):
            if not isinstance(call, Mapping):
                blocks.append({"type": "xai-not-a-call", "id": None, "call": call})
                continue
            block = _call(call)
            call_id = block.get("id")
            if block["type"] == "tool_use":
                blocks.append(block)
            elif not tool:
                if isinstance(call_id, str) and call_id not in made:
                    made[call_id] = dict(call)
                    blocks.append(block)
            else:
                if not (isinstance(call_id, str) and call_id in made):
                    blocks.append(block)  # a result whose call the reply did not send apart
                blocks.append(_result(call, text, "content"))
                if isinstance(call_id, str):
                    answered.add(call_id)
    for call_id, call in made.items():  # a server call no output answers: its status, if done
        if call_id not in answered and call.get("status") is not None:
            at = next(n for n, b in enumerate(blocks) if b.get("id") == call_id)
            blocks.insert(at + 1, {**_result(call, None, "status"), "x-xaiResult": "status"})
    return {"type": "message", "role": "assistant", "content": blocks}


def _thinking(message: Mapping[str, Any], blocks: list[Any]) -> None:
    thought = message.get("reasoning_content")
    signature = message.get("encrypted_content")
    if thought or signature:
        blocks.append({"type": "thinking", "thinking": thought or "", "signature": signature})


def _call(call: Mapping[str, Any]) -> dict[str, Any]:
    function = call.get("function")
    function = function if isinstance(function, Mapping) else {}
    kind = call.get("type")
    block: dict[str, Any] = {
        "type": "tool_use" if kind in _CLIENT else "server_tool_use",
        "id": call.get("id"),
        "name": function.get("name"),
        "input": json_args(function.get("arguments", "")) if "arguments" in function else {},
    }
    if kind not in _CLIENT:
        block["x-xaiToolType"] = kind
    return block


def _result(call: Mapping[str, Any], text: Any, field: str) -> dict[str, Any]:
    """A server call's result block: ``text`` its output; failed by its ``status``."""
    status = call.get("status")
    error = call.get("error_message")
    said = text if isinstance(text, str) else ""
    if not said and isinstance(error, str):
        said = error
    failed: Any = _ENDED.get(status) if isinstance(status, str) else None
    if failed is None:  # not a status the API has (or still in progress, with a result)
        failed = False if status is None and field == "content" else _NO_STATUS
    return {
        "type": "xai_tool_result",
        "tool_use_id": call.get("id"),
        "content": [{"type": "text", "text": said}] if said else [],
        "is_error": failed,
        **({"x-errorMessage": error} if isinstance(error, str) and error else {}),
    }


class _Written:
    """The last request's messages as read, and what was written of them (with the pairing's
    state after them): a request resends the one before it, whose part is not written again
    (compared in C), so the conversations' grouping also finds the same objects."""

    __slots__ = ("read", "state", "tools")

    def __init__(self) -> None:
        self.read: list[Any] = []
        self.state: tuple[list[str], list[Any], list[str], bool] = ([], [], [], False)
        self.tools: tuple[Any, list[dict[str, Any]]] = (None, [])


def _request(request: Mapping[str, Any], rule: ErrorRule, memo: _Written) -> dict[str, Any]:
    """The request as a Messages request: system text, messages, model and tools."""
    read: list[Any] = request["messages"]
    count = len(memo.read)
    if count and len(read) >= count and read[:count] == memo.read:
        known = memo.state
        systems, messages, pending, open_turn = (
            list(known[0]),
            list(known[1]),
            list(known[2]),
            known[3],
        )
    else:
        count = 0
        systems, messages, pending, open_turn = [], [], [], False
    # pending: the client calls of the last assistant turn not yet answered; open_turn: whether
    # the messages since the last non-assistant one are one turn
    for message in read[count:]:
        if not isinstance(message, Mapping):
            messages.append(message)  # the Messages reader reports what is not an object
            continue
        role = message.get("role")
        parts = message.get("content")
        blocks = [_part(p) for p in parts] if isinstance(parts, list) else []
        if role in ("ROLE_SYSTEM", "ROLE_DEVELOPER") and not messages:
            systems.extend(b["text"] for b in blocks if b.get("type") == "text")
            continue
        if role == "ROLE_ASSISTANT":
            if not open_turn:
                pending = []
            open_turn = True
            _thinking(message, blocks)
            calls = [_resent(c) for c in _calls(message)]
            pending += [c["id"] for c in calls if c["type"] == "tool_use"]
            blocks = [b for b in blocks if b.get("text") != ""]
            messages.append({"role": "assistant", "content": blocks + calls})
            continue
        open_turn = False
        if role in ("ROLE_TOOL", "ROLE_FUNCTION"):
            given = message.get("tool_call_id")
            if isinstance(given, str) and given:
                call_id = given
                pending = [p for p in pending if p != given]
            else:
                call_id = pending.pop(0) if pending else ""
            text = "".join(b["text"] for b in blocks if b.get("type") == "text")
            result = {
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": blocks,
                "is_error": rule.matches(text),
            }
            messages.append({"role": "user", "content": [result]})
            continue
        messages.append({"role": "user" if role != "ROLE_SYSTEM" else "system", "content": blocks})
    memo.read, memo.state = read, (systems, messages, pending, open_turn)
    body: dict[str, Any] = {"messages": messages}
    if isinstance(request.get("model"), str):
        body["model"] = request["model"]
    if systems:
        body["system"] = "\n".join(systems)
    given = request.get("tools")
    if given != memo.tools[0]:
        memo.tools = (given, _tools(given))
    tools = memo.tools[1]
    if tools:
        body["tools"] = tools
    return body


def _calls(message: Mapping[str, Any]) -> list[Any]:
    """A message's ``tool_calls``; a value that is no list is a call that is no object (R35)."""
    calls = message.get("tool_calls")
    return [] if calls is None else calls if isinstance(calls, list) else [None]


def _resent(call: Any) -> dict[str, Any]:
    """A call an assistant message of a request resends: the agent's as a call; the server's
    as a block the reader keeps and does not read (its result is never resent: the reply that
    made it holds the call, and a cassette that lacks that reply never recorded its result)."""
    if not isinstance(call, Mapping):  # a call of no id: the reader reports it (R35)
        return {"type": "tool_use", "id": None, "name": None, "input": call}
    block = _call(call)
    return {"type": "xai-server-call", "call": call} if block["type"] != "tool_use" else block


def _part(part: Any) -> dict[str, Any]:
    if isinstance(part, Mapping) and type(part.get("text")) is str and len(part) == 1:
        return {"type": "text", "text": part["text"]}
    return {"type": "xai-content", "part": part}


def _tools(tools: Any) -> list[dict[str, Any]]:
    """Function tools as Messages tool definitions (``parameters``: JSON text); a server tool
    (``{web_search: {...}}``) as its kind."""
    out: list[dict[str, Any]] = []
    for tool in tools if isinstance(tools, Sequence) and not isinstance(tools, str) else ():
        function = tool.get("function") if isinstance(tool, Mapping) else None
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            schema = json_args(function.get("parameters", "{}"))
            out.append(
                {
                    "name": function["name"],
                    "description": function.get("description", ""),
                    "input_schema": schema if isinstance(schema, Mapping) else {},
                }
            )
        elif isinstance(tool, Mapping) and len(tool) == 1:
            kind = next(iter(tool))
            out.append({"type": kind, "name": kind})
    return out
