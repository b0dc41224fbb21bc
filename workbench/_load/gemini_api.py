"""Gemini API traffic (``generateContent``) in HTTP cassettes, as Messages-shaped exchanges.

The Gemini API is stateless as the chat APIs are: each request to
``/models/<model>:generateContent`` (or ``:streamGenerateContent``) sends the conversation so
far as ``contents`` (``role`` ``user`` or ``model``, each a list of ``parts``), the reply is
``candidates[0].content``. A ``functionCall`` part (``name``, ``args``) is a call, and a
``functionResponse`` part (``name``, ``response``) in a later user content its result, failed
when its ``response`` holds an ``error`` and no ``output`` (the API's own convention for a
function's failure). ``as_messages`` writes such an exchange in Anthropic Messages' shape
(``tool_use`` and ``tool_result`` blocks, ``is_error``), so that it is grouped into
conversations and read as a Messages cassette is (``chat_conversations``, ``anthropic``);
``chat_cassettes`` names the runs ``gemini-api``.

Ids: a ``functionCall`` often has none, and a client may resend it with one of its own, so
every call gets its place as id, ``gemini-<turn>-<n>`` (the ``n``-th call of the conversation's
``turn``-th model content), the same in the reply and in each resent copy (an id the API gave,
as Gemini 3 does, kept on the boundary's ``extra["x-geminiCallId"]``); each
``functionResponse`` of the user content after a model content answers that content's call
of its ``id`` when they share one, else the next call of its name. The server's code
execution (an ``executableCode`` part, then its ``codeExecutionResult``) is a server tool call
(see ``_code_block``; code no result answers, as Gemini's file search writes its query, is
kept as it is). A streamed reply (server-sent events, or a JSON array of chunks) is its
chunks' parts joined. Other parts (``inlineData``, ...) are kept in the transcript as they
are, not read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from .._common.jsonio import json_text
from .cassettes import Exchange, with_bodies
from .common import FlagRefused

__all__ = ["as_messages", "gemini_calls", "is_error_response", "is_gemini_call", "member"]

_METHODS = (":generateContent", ":streamGenerateContent")


def gemini_calls(exchanges: Sequence[Exchange]) -> list[bool]:
    """:func:`is_gemini_call` of each exchange that the server answered, after a look at the
    URIs that costs nothing on the usual cassette (no Gemini call)."""
    if not any("enerateContent" in e.uri for e in exchanges):
        return [False] * len(exchanges)
    return [is_gemini_call(e) and not e.refused for e in exchanges]


def is_gemini_call(exchange: Exchange) -> bool:
    """Whether an exchange is a Gemini API model call (its path, and a request of
    ``contents``)."""
    path = exchange.uri.split("?", 1)[0].rstrip("/")
    request = exchange.request
    return (
        path.endswith(_METHODS)
        and isinstance(request, Mapping)
        and isinstance(request.get("contents"), list)
    )


def as_messages(exchange: Exchange) -> Exchange:
    """The exchange in Anthropic Messages' shape (see the module)."""
    request: Mapping[str, Any] = exchange.request
    contents = [c for c in request["contents"]]
    messages: list[Any] = []
    turn = 0
    # the last model content's calls not answered yet, (name, id, our id): the user contents
    # after it answer them, in one content or one a response (crewAI sends each on its own);
    # model contents one after another are one turn's (pydantic-ai writes another provider's
    # parallel calls a content each), and the answers after them answer any of their calls
    calls: list[tuple[str, str | None, str]] = []
    in_row = False  # the content before was a model content
    for content in contents:
        if not isinstance(content, Mapping):
            messages.append(content)  # the Messages reader reports what is not an object
            in_row = False
            continue
        if content.get("role") == "model":
            blocks, made = _model_blocks(content.get("parts"), turn)
            calls = [*calls, *made] if in_row else made
            in_row = True
            messages.append({"role": "assistant", "content": blocks})
            turn += 1
        else:
            messages.append({"role": "user", "content": _user_blocks(content.get("parts"), calls)})
            in_row = False
    body: dict[str, Any] = {"messages": messages}
    model = exchange.uri.split("/models/", 1)[-1].split(":", 1)[0]
    if model:
        body["model"] = model
    system = _text_of(member(request, "systemInstruction"))
    if system:
        body["system"] = system
    tools = _tools(request.get("tools"))
    if tools:
        body["tools"] = tools
    return with_bodies(exchange, body, _reply(exchange, turn))


def _model_blocks(parts: Any, turn: int) -> tuple[list[Any], list[tuple[str, str | None, str]]]:
    blocks: list[Any] = []
    calls: list[tuple[str, str | None, str]] = []
    ran: list[tuple[str | None, str]] = []  # the code this content ran, (its id, ours)
    done: set[str] = set()  # (ours, of the code a result answered)
    parts = parts if isinstance(parts, list) else []
    answered = _answered_code(parts)
    for index, part in enumerate(parts):
        call = member(part, "functionCall") if isinstance(part, Mapping) else None
        code = (
            _code_block(part, turn, ran, done)
            if isinstance(part, Mapping)
            and (index in answered or not isinstance(member(part, "executableCode"), Mapping))
            else None
        )
        if code is not None:
            blocks.append(code)
        elif isinstance(call, Mapping):
            ours = f"gemini-{turn}-{len(calls)}"
            name = call.get("name")
            given = call.get("id")
            calls.append((str(name), given if isinstance(given, str) else None, ours))
            block = {"type": "tool_use", "id": ours, "name": name, "input": call.get("args")}
            if isinstance(given, str) and given:  # Gemini 3 gives ids: kept on the boundary
                block["x-geminiCallId"] = given
            blocks.append(block)
        else:
            blocks.append(_plain_block(part))
    return blocks, calls


_OUTCOMES = frozenset({"OUTCOME_OK", "OUTCOME_FAILED", "OUTCOME_DEADLINE_EXCEEDED"})


def _answered_code(parts: list[Any]) -> set[int]:
    """The places of the ``executableCode`` parts a ``codeExecutionResult`` of the same
    content answers (by ``id``, else the last code not answered yet). Code with no result is
    no code execution: Gemini's file search writes its query so (``file_search.query(...)``)
    and returns what it found as the reply's grounding, not as a part."""
    waiting: list[tuple[int, Any]] = []
    answered: set[int] = set()
    for index, part in enumerate(parts):
        if not isinstance(part, Mapping):
            continue
        code = member(part, "executableCode")
        if isinstance(code, Mapping):
            waiting.append((index, code.get("id")))
            continue
        result = member(part, "codeExecutionResult")
        if isinstance(result, Mapping) and waiting:
            given = result.get("id")
            match = next((w for w in waiting if given is not None and w[1] == given), waiting[-1])
            waiting.remove(match)
            answered.add(match[0])
    return answered


def _code_block(
    part: Mapping[str, Any], turn: int, ran: list[tuple[str | None, str]], done: set[str]
) -> Any:
    """The server's code execution (R34): an ``executableCode`` part as a ``server_tool_use``
    of ``code_execution`` (id ``gemini-<turn>-code-<n>``, the API's own kept as
    ``x-geminiCallId``), and the ``codeExecutionResult`` part after it as its result (by
    ``id`` when both have one, else the last code run not answered yet), failed when its
    ``outcome`` is ``OUTCOME_FAILED`` or ``OUTCOME_DEADLINE_EXCEEDED`` (its ``output`` the
    message); an outcome the API has not is a problem. ``None`` for any other part."""
    code = member(part, "executableCode")
    if isinstance(code, Mapping):
        given = code.get("id") if isinstance(code.get("id"), str) else None
        ours = f"gemini-{turn}-code-{len(ran)}"
        ran.append((given, ours))
        block = {
            "type": "server_tool_use",
            "id": ours,
            "name": "code_execution",
            "input": {k: v for k, v in code.items() if k != "id"},
        }
        if given:
            block["x-geminiCallId"] = given
        return block
    result = member(part, "codeExecutionResult")
    if not isinstance(result, Mapping):
        return None
    given = result.get("id")
    waiting = [r for r in ran if r[1] not in done]
    match = next((r for r in waiting if given is not None and r[0] == given), None)
    match = match or (waiting[-1] if waiting else None)
    if match is not None:
        done.add(match[1])
    outcome, output = result.get("outcome"), result.get("output")
    known = isinstance(outcome, str) and outcome in _OUTCOMES  # (a list is no key: no crash)
    answer: dict[str, Any] = {
        "type": "code_execution_tool_result",
        "tool_use_id": match[1] if match else f"gemini-{turn}-code-result",
        "content": [{"type": "text", "text": output if isinstance(output, str) else ""}],
        "is_error": known and outcome != "OUTCOME_OK",
        "x-errorCode": outcome,
    }
    if not known:  # (a flag the reader reports, neither success nor failure)
        answer["is_error"] = FlagRefused("codeExecutionResult.outcome", "not a value the API has")
    return answer


def _user_blocks(parts: Any, waiting: list[tuple[str, str | None, str]]) -> list[Any]:
    """A user content's parts as blocks; a ``functionResponse`` answers a call of ``waiting``
    (by id, else by name), which it takes off the list."""
    blocks: list[Any] = []
    for part in parts if isinstance(parts, list) else []:
        answer = member(part, "functionResponse") if isinstance(part, Mapping) else None
        if not isinstance(answer, Mapping):
            blocks.append(_plain_block(part))
            continue
        given, name = answer.get("id"), answer.get("name")
        match = next((c for c in waiting if given is not None and c[1] == given), None)
        match = match or next((c for c in waiting if c[0] == name), None)
        if match is not None:
            waiting.remove(match)
        response = answer.get("response")
        failed = is_error_response(response)
        text = json_text(response)
        # the API's response is an object (a Struct, which the API refuses text for): text, a
        # number, a boolean or a list is handed on as a value the reader refuses (R35), never
        # a success
        odd = isinstance(response, str | bool | int | float | list)
        blocks.append(
            {
                "type": "tool_result",
                # no call of its name open: an id of its own, which the reader says answers none
                "tool_use_id": match[2] if match is not None else f"gemini-response-{name}",
                "content": {"functionResponse.response": response}
                if odd
                else [{"type": "text", "text": text}],
                "is_error": failed,
            }
        )
    return blocks


def member(value: Mapping[str, Any], name: str) -> Any:
    """A request member by its JSON name (``functionCall``), else by its proto name
    (``function_call``): the API reads both, and clients write either (llm-gemini the second)."""
    if name in value:
        return value[name]
    snake = _SNAKES.get(name)
    if snake is None:
        snake = _SNAKES[name] = _SNAKE.sub(lambda m: "_" + m.group(0).lower(), name)
    return value.get(snake)


_SNAKE = re.compile(r"[A-Z]")
_SNAKES: dict[str, str] = {}
"""The proto name of each JSON name asked for (a few dozen, each made once)."""


def is_error_response(response: Any) -> TypeGuard[Mapping[str, Any]]:
    """A function response that says the function failed: an ``error`` that is not null and no
    ``output`` or ``result`` (the Gemini API's convention, which ADK's error callback follows)."""
    return (
        isinstance(response, Mapping)
        and response.get("error") is not None
        and "output" not in response
        and "result" not in response
    )


def _plain_block(part: Any) -> Any:
    """A part that is no call or result: text as a text block, any other as it is."""
    if isinstance(part, Mapping) and isinstance(part.get("text"), str) and not part.get("thought"):
        return {"type": "text", "text": part["text"]}
    return {"type": "gemini-part", "part": part}


def _reply(exchange: Exchange, turn: int) -> dict[str, Any] | None:
    """The model's reply as a Messages response: the first candidate's parts, of the body or
    of each streamed chunk, joined."""
    chunks: list[Any] = list(exchange.events)
    if not chunks and exchange.response is not None:
        chunks = exchange.response if isinstance(exchange.response, list) else [exchange.response]
    parts: list[Any] = []
    for chunk in chunks:
        candidates = chunk.get("candidates") if isinstance(chunk, Mapping) else None
        first = candidates[0] if isinstance(candidates, list) and candidates else None
        content = first.get("content") if isinstance(first, Mapping) else None
        more = content.get("parts") if isinstance(content, Mapping) else None
        for part in more if isinstance(more, list) else []:
            last = parts[-1] if parts else None
            if _is_text(part) and isinstance(last, Mapping) and _is_text(last):
                parts[-1] = {"text": last["text"] + part["text"]}  # a streamed text, joined
            else:
                parts.append(part)
    if not chunks:
        return None
    blocks, _ = _model_blocks(parts, turn)
    return {"type": "message", "role": "assistant", "content": blocks}


def _is_text(part: Any) -> bool:
    return isinstance(part, Mapping) and isinstance(part.get("text"), str) and len(part) == 1


def _text_of(content: Any) -> str:
    parts = content.get("parts") if isinstance(content, Mapping) else None
    texts = (
        [p.get("text") for p in parts if isinstance(p, Mapping)] if isinstance(parts, list) else []
    )
    return "\n".join(text for text in texts if isinstance(text, str))


def _tools(tools: Any) -> list[dict[str, Any]]:
    """The function declarations as Messages tool definitions."""
    out: list[dict[str, Any]] = []
    for tool in tools if isinstance(tools, list) else []:
        declarations = member(tool, "functionDeclarations") if isinstance(tool, Mapping) else None
        for declared in declarations if isinstance(declarations, list) else []:
            if isinstance(declared, Mapping) and isinstance(declared.get("name"), str):
                schema = declared.get("parameters") or member(declared, "parametersJsonSchema")
                out.append(
                    {
                        "name": declared["name"],
                        "description": declared.get("description", ""),
                        "input_schema": schema if isinstance(schema, Mapping) else {},
                    }
                )
    return out
