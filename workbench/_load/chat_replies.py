"""What the model said in a recorded chat API exchange, and what the client sent back of it.

``model_reply`` is an exchange's reply as an assistant message: the response body's (a Chat
Completions ``choices[0].message``, an Anthropic message's ``content``), or the one its
server-sent events make (``chat_streams``). ``merged_reply`` puts it beside the copy the next
request resends: clients trim what they resend (crewAI keeps one of five parallel calls;
Mirascope drops a turn's server tool blocks; the OpenAI Agents SDK resends a handoff turn
without its call), and a call the model made is a call, whatever is resent (R2, R35).
``resent_length`` and ``joined_reply`` read a reply a client resends split in several
assistant messages (its text, then its calls; a message a call) as the one it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .cassettes import Exchange
from .chat_prints import role_of
from .chat_streams import anthropic_stream, openai_stream
from .common import CHAT_ARGUMENTS, STREAMED_INPUT, wrong_typed_args

__all__ = [
    "answered_ids",
    "joined_reply",
    "merged_reply",
    "model_reply",
    "reply_call_ids",
    "resent_length",
]


def model_reply(exchange: Exchange, api: str) -> dict[str, Any] | None:
    """The reply's assistant message, from the response body or its streamed events."""
    response = exchange.response
    body = type(response) is dict or isinstance(response, Mapping)
    if api == "anthropic":
        if body and isinstance(response.get("content"), list):
            return {"role": "assistant", "content": list(response["content"])}
        return anthropic_stream(exchange.events)
    if body and isinstance(response.get("choices"), list):
        for choice in response["choices"]:  # the first choice: what the client carried on
            if type(choice) is not dict and not isinstance(choice, Mapping):
                continue
            message = choice.get("message")
            if type(message) is dict or isinstance(message, Mapping):
                return dict(message)
        return None
    return openai_stream(exchange.events)


def merged_reply(sent: Any, said: Mapping[str, Any]) -> Any:
    """The reply as the next request sent it back, with what the model said that the client
    left out: calls (answered later, or never: then a problem says so) and server tool blocks.
    Clients trim their history (one of five parallel calls kept; a server tool's blocks, or a
    handoff's call, dropped), and a call the model made is a call, whatever is resent."""
    if type(sent) is not dict and not isinstance(sent, Mapping):
        return sent
    said_calls = said.get("tool_calls")
    if isinstance(said_calls, list):  # Chat Completions
        calls = sent.get("tool_calls")
        if calls == said_calls and _all_have_ids(said_calls):  # resent as said: none missing
            return sent
        return _merged_calls(sent, calls, said_calls)
    blocks = said.get("content")
    if not isinstance(blocks, list):
        return sent
    content = sent.get("content")
    if content == blocks:  # resent as said (the usual case): equal blocks have equal keys
        return sent
    return _merged_blocks(sent, content, blocks)


def _merged_calls(sent: Mapping[str, Any], calls: Any, said_calls: list[Any]) -> Any:
    """The resent Chat Completions reply (its ``tool_calls``) with the calls of the reply as
    said that it left out."""
    kept = list(calls) if isinstance(calls, list) else []
    have = {_call_key(call) for call in kept}
    missing = [call for call in said_calls if _call_key(call) not in have]
    # what the model sent, though the client resent it mended (R35)
    wrong = {_call_key(call): call for call in said_calls if _wrong_arguments(call)}
    if not missing and not wrong:
        return sent
    return {**sent, "tool_calls": [wrong.get(_call_key(c), c) for c in kept] + missing}


def _merged_blocks(sent: Mapping[str, Any], content: Any, blocks: list[Any]) -> Any:
    """The resent Anthropic reply (its ``content``) with the call and result blocks of the
    reply as said (``blocks``) that it left out."""
    kept = list(content) if isinstance(content, list) else []
    if isinstance(content, str) and content:
        kept = [{"type": "text", "text": content}]
    have = {_block_key(block) for block in kept}
    have.discard(None)
    missing = [b for b in blocks if (key := _block_key(b)) is not None and key not in have]
    # what the model sent, though the client resent it mended (R35)
    wrong = {_block_key(b): b for b in blocks if _wrong_input(b)}
    if not missing and not wrong:
        return sent
    return {**sent, "content": [wrong.get(_block_key(b), b) for b in kept] + missing}


def _wrong_arguments(call: Any) -> bool:
    """Whether a Chat Completions call's ``function.arguments`` are there and neither JSON text
    nor an object (``openai_chat``): the reader refuses them (R35), and a resent copy must not
    hide them."""
    function = call.get("function") if isinstance(call, Mapping) else None
    raw = function.get("arguments") if isinstance(function, Mapping) else None
    return wrong_typed_args(raw, CHAT_ARGUMENTS)


def _wrong_input(block: Any) -> bool:
    """Whether a ``tool_use`` block's ``input`` is there and no object (see
    :func:`_wrong_arguments`)."""
    if not isinstance(block, Mapping) or block.get("type") != "tool_use":
        return False
    if STREAMED_INPUT in block:  # JSON text streamed that did not decode: kept as text
        return False
    return wrong_typed_args(block.get("input"), Mapping)


def _all_have_ids(calls: list[Any]) -> bool:
    """Whether every call is an object with an id (its key, which an equal call shares)."""
    for call in calls:
        if type(call) is not dict:
            return False
        call_id = call.get("id")
        if type(call_id) is not str or not call_id:
            return False
    return True


def _call_key(call: Any) -> Any:
    """A Chat Completions call: its id, or (no id) its name and arguments."""
    if type(call) is not dict and not isinstance(call, Mapping):
        return repr(call)
    call_id = call.get("id")
    if isinstance(call_id, str) and call_id:
        return call_id
    function = call.get("function")
    return (
        repr(function)
        if not isinstance(function, Mapping)
        else (
            str(function.get("name")),
            str(function.get("arguments")),
        )
    )


def _block_key(block: Any) -> Any:
    """An Anthropic call or result block's id (``None``: not a call or result)."""
    if type(block) is not dict and not isinstance(block, Mapping):
        return None
    kind = block.get("type")
    if not isinstance(kind, str):
        return None
    if kind.endswith("tool_use") and isinstance(block.get("id"), str):
        return ("call", block["id"])
    if kind.endswith("tool_result") and isinstance(block.get("tool_use_id"), str):
        return ("result", block["tool_use_id"])
    return None


def reply_call_ids(message: Any) -> list[str]:
    """The ids of the calls an assistant message makes (Chat Completions ``tool_calls``,
    Anthropic ``tool_use`` blocks)."""
    if type(message) is not dict and not isinstance(message, Mapping):
        return []
    calls = message.get("tool_calls")
    content = message.get("content")
    items = calls if isinstance(calls, list) else content if isinstance(content, list) else []
    return [
        item["id"]
        for item in items
        if (type(item) is dict or isinstance(item, Mapping))
        and isinstance(item.get("id"), str)
        and item["id"]
        and (calls is items or item.get("type") == "tool_use")
    ]


def answered_ids(message: Any) -> list[str]:
    """The call ids a message answers (a ``role: tool`` message, ``tool_result`` blocks)."""
    if type(message) is not dict and not isinstance(message, Mapping):
        return []
    if message.get("role") == "tool":
        call_id = message.get("tool_call_id")
        return [call_id] if isinstance(call_id, str) and call_id else []
    content = message.get("content")
    return [
        block["tool_use_id"]
        for block in (content if isinstance(content, list) else ())
        if (type(block) is dict or isinstance(block, Mapping))
        and block.get("type") == "tool_result"
        and isinstance(block.get("tool_use_id"), str)
    ]


def resent_length(messages: list[Any], at: int, made: list[str], said: Any) -> int:
    """How many messages from ``at`` on are the last reply sent back: one, unless the client
    split it, as simonw/llm resends a streamed turn (its text, then a message of its calls) and
    some clients resend parallel calls (a message a call). Then it is the assistant messages
    from ``at`` to the last that makes one of the calls the reply ``made``, each making only
    calls of the reply, none twice, and their text together the text the model ``said``:
    a client's own message before the reply is not part of it."""
    if not made:
        return 1
    wanted = set(made)
    seen: set[str] = set()
    end = at + 1
    for index in range(at, len(messages)):
        message = messages[index]
        if role_of(message) != "assistant":
            break
        calls = set(reply_call_ids(message))
        if calls - wanted or calls & seen:
            break  # a call of its own, or one already resent: another turn
        if calls:
            seen |= calls
            end = index + 1
        if seen == wanted:
            break
    if end - at == 1 or not seen:
        return 1
    if said_text(joined_reply(messages[at:end])) != said_text(said):
        return 1
    return end - at


def said_text(message: Any) -> str:
    """The text of a message: its string content, or its text blocks' together."""
    content = message.get("content") if isinstance(message, Mapping) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            block["text"]
            for block in content
            if isinstance(block, Mapping)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        )
    return ""


def joined_reply(messages: list[Any]) -> Any:
    """A reply the client resent split in several assistant messages (:func:`resent_length`)
    as the one message the model sent: the last one with the text and calls of all."""
    if len(messages) == 1 or not all(isinstance(m, Mapping) for m in messages):
        return messages[-1]
    contents = [m.get("content") for m in messages]
    if all(c is None or isinstance(c, str) for c in contents):
        text = "".join(c for c in contents if c)
        joined = {**messages[-1], "content": text or contents[-1]}
        calls = [
            c for m in messages if isinstance(m.get("tool_calls"), list) for c in m["tool_calls"]
        ]
        if calls:
            joined["tool_calls"] = calls
        return joined
    blocks: list[Any] = []
    for content in contents:
        if isinstance(content, list):
            blocks.extend(content)
        elif isinstance(content, str) and content:
            blocks.append({"type": "text", "text": content})
    return {**messages[-1], "content": blocks}
