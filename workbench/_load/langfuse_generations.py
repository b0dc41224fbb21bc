"""Langfuse traces of a model client traced alone: the calls its GENERATIONs hold (R34, R40).

An application that traces only its model client (Langfuse's OpenAI or Anthropic integration, an
instrumented SDK call) leaves no ``TOOL`` observation: its tool calls are in the model's replies,
a ``GENERATION``'s ``output``, and their results in the messages of the next model call, a later
``GENERATION``'s ``input``. That is a chat API's traffic, as a cassette records it, so such a
trace is read as one (``chat_cassettes``): each ``GENERATION`` an exchange, in ``startTime``
order, its input the request and its output the response. The exchanges make the
conversation(s) they are, read by the API's own loader (``anthropic``, ``openai_chat``): a
failed call is a ``tool_result`` with ``is_error`` (Anthropic), else the error rule; a call in
the last reply is never answered (R2) unless it is an output tool. Places name the observation
(``observations[3] output, block 2``).

What a ``GENERATION`` holds, in the shapes integrations write:

- **input**: the request body (``{"messages": [...], "model", "tools", ...}``), or the messages
  alone (a list, as Langfuse's OpenAI integration keeps them);
- **output**: the response body (a Chat Completions ``choices`` object, an Anthropic
  ``message``), or the reply alone (``{"role": "assistant", ...}``, a list of that one
  message, or its text): Anthropic's when its ``content`` is a list of blocks with a
  ``tool_use`` (or the request's messages carry Anthropic blocks), else Chat Completions'; one
  Chat Completions choice (``{"index", "message", "finish_reason"}``, the OpenTelemetry
  ``gen_ai.choice`` event's body, as pydantic-ai's traces give Langfuse); or a LangChain
  message as LangChain serializes it (``{"type": "ai" | "AIMessage" | "AIMessageChunk",
  "content", "tool_calls": [{"name", "args", "id"}]}``, then its ``invalid_tool_calls``, whose
  ``args`` is the text that did not parse), read as the assistant message it is.

LangChain's handler lists the tools the model was offered among the input messages, each a
``{"role": "tool", "content": {"type": "function", "function": {...}}}`` with no
``tool_call_id``: those are the request's tool definitions, not results.

A ``GENERATION`` with ``level: ERROR`` is a model call that failed: a request with no reply,
whose messages still answer the calls before it (its API the one the trace's other
GENERATIONs call, when its messages do not tell). One with no output, a level Langfuse has not,
input text that is no JSON or an output that is no reply is a problem naming that field; a
GENERATION listed twice (exports put together) is read once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from .._common.jsonio import json_text
from .cassettes import Exchange
from .chat_cassettes import chat_apis_of, chat_cassette_apis, load_chat_exchanges
from .records import ErrorRule, LoadProblem, PromotedRun

__all__ = ["LEVELS", "generation_runs", "trace_runs"]


LEVELS = frozenset({"DEBUG", "DEFAULT", "WARNING", "ERROR"})
"""Langfuse's observation levels."""


def generation_runs(
    observations: Sequence[tuple[int, Any]],
    decoded: Callable[[Any], Any],
    base: str,
    file: str,
    rule: ErrorRule,
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """The runs the ``GENERATION`` observations hold (each with its index in the export, in
    start order), one a conversation of each chat API they call; none when no exchange is a
    chat API call. ``decoded``: how the export's input and output text is decoded; ``base``:
    where the observations are. The runs are the chat loader's, their places renamed; the
    caller names and files them."""
    exchanges: list[Exchange] = []
    found: list[LoadProblem] = []
    failed: set[int] = set()  # the exchanges of GENERATIONs of level ERROR
    seen: set[str] = set()
    for index, observation in observations:
        if not isinstance(observation, Mapping) or observation.get("type") != "GENERATION":
            continue
        observation_id = observation.get("id")
        if type(observation_id) is str:
            if observation_id in seen:
                continue  # the same GENERATION twice (exports put together): read once
            seen.add(observation_id)
        exchange, problem = _exchange(index, observation, decoded, f"{base}[{index}]", file)
        if problem is not None:
            found.append(problem)
        if exchange is not None:
            exchanges.append(exchange)
            if observation.get("level") == "ERROR":
                failed.add(index)
    kinds = chat_apis_of(exchanges)
    if failed and any(kind is None for kind in kinds):
        # a failed call whose messages do not say its API (a first request of plain text):
        # the API the trace's other GENERATIONs call
        apis = chat_cassette_apis(kinds)
        if apis:
            path = "/v1/messages" if apis[0] == "anthropic" else _API_PATH
            exchanges = [
                replace(e, uri=path) if e.index in failed and kind is None else e
                for e, kind in zip(exchanges, kinds, strict=True)
            ]
            kinds = chat_apis_of(exchanges)
    apis = chat_cassette_apis(kinds)
    if not apis:
        return [], found
    runs: list[PromotedRun] = []
    problems: list[LoadProblem] = list(found)
    for api in apis:  # a client may call two APIs (an agent switching providers)
        more_runs, more = load_chat_exchanges(exchanges, kinds, file, rule, api)
        runs.extend(more_runs)
        problems.extend(p for p in more if not _said_of(p, failed))
    rename = _Places(file, base)
    return (
        [
            replace(
                run,
                boundaries=tuple(
                    replace(b, location=rename.location(b.location)) for b in run.boundaries
                ),
            )
            for run in runs
        ],
        [replace(p, where=rename.where(p.where)) for p in problems],
    )


def trace_runs(
    chats: list[PromotedRun], key: str, task_key: str, metadata: dict[str, Any]
) -> list[PromotedRun]:
    """The conversations of a trace's GENERATIONs as its runs: named after the trace (``key``,
    ``task_key``; and the conversation, when there are several), the trace's facts
    (``metadata``) beside the chat's, ``callsFrom: GENERATION`` saying where the calls were
    read."""
    runs: list[PromotedRun] = []
    for number, chat in enumerate(chats):
        one = len(chats) == 1
        name = key if one else f"{key}/conversation-{number}"
        facts = {k: v for k, v in chat.metadata.items() if k != "id"}
        runs.append(
            replace(
                chat,
                run_id=name,
                format="langfuse",
                task_key=task_key if one else f"{task_key}-conversation-{number}",
                metadata={**metadata, **facts, "callsFrom": "GENERATION"},
            )
        )
    return runs


def _said_of(problem: LoadProblem, failed: set[int]) -> bool:
    """Whether a problem is the chat loader's "no response" of a GENERATION of level ERROR
    (its model call failed: there is no reply to record, and its request still counts)."""
    if problem.field != "response" or not problem.where.startswith("interaction "):
        return False
    number = problem.where[len("interaction ") :]
    return number.isdigit() and int(number) in failed


def _exchange(
    index: int,
    observation: Mapping[str, Any],
    decoded: Callable[[Any], Any],
    where: str,
    file: str,
) -> tuple[Exchange | None, LoadProblem | None]:
    """A ``GENERATION`` as the chat call it records (``None``: it sends no messages), and the
    problem of one that is broken: a level Langfuse has not, input text that is no JSON, an
    output that is no response, no output at all (R35). One of level ``ERROR`` (its model call
    failed) is a request with no reply: its messages still answer the calls before it."""
    level = observation.get("level")
    if level is not None and (type(level) is not str or level not in LEVELS):
        message = "not one of DEBUG, DEFAULT, WARNING, ERROR"
        return None, LoadProblem(file, where, "level", message)
    raw = observation.get("input")
    sent = decoded(raw)
    if type(sent) is list:
        request: Any = {"messages": sent}
    elif isinstance(sent, Mapping) and type(sent.get("messages")) is list:
        request = sent
    else:
        if type(raw) is str and type(sent) is str and raw.lstrip()[:1] in ("{", "["):
            message = "JSON text that does not decode (as strictly as a file, R35)"
            return None, LoadProblem(file, where, "input", message)
        return None, None  # no chat request (a completion's prompt): counted, not a call
    tools = request.get("tools")
    if tools is not None and type(tools) is not list:  # R35: they were dropped unread
        return None, LoadProblem(file, where, "input.tools", "not a list of tool definitions")
    request = _definitions_apart(request)
    messages = request["messages"]
    uri = "/v1/messages" if any(_anthropic_blocks(_content(m)) for m in messages) else ""
    if level == "ERROR":  # its API: its messages', else the trace's (generation_runs)
        exchange = Exchange(index=index, uri=uri, method="POST", request=request, response=None)
        return exchange, None
    output = observation.get("output")
    if output is None:
        message = "no response recorded for this model call"
        return None, LoadProblem(file, where, "output", message)
    response = _response(decoded(output), messages)
    if not _is_response(response):
        message = "not a model's reply (a Chat Completions or Messages response or message)"
        return None, LoadProblem(file, where, "output", message)
    return Exchange(
        index=index, uri=uri, method="POST", request=request, response=response, status=200
    ), None


_API_PATH = "/v1/chat/completions"
"""The path a failed GENERATION's exchange is given when its messages are not Anthropic's:
with no response, its path alone says which API it called."""


def _definitions_apart(request: Mapping[str, Any]) -> Mapping[str, Any]:
    """The request with the tool definitions LangChain's Langfuse handler lists among the
    messages (``{"role": "tool", "content": {"type": "function", "function": {...}}}``, no
    ``tool_call_id``: Langfuse's own tool extraction reads them so) moved to its ``tools``."""
    messages = request["messages"]
    definitions = [m["content"] for m in messages if _is_definition(m)]
    if not definitions:
        return request
    tools = request.get("tools")
    return {
        **request,
        "messages": [m for m in messages if not _is_definition(m)],
        "tools": [*(tools or []), *definitions],
    }


def _is_definition(message: Any) -> bool:
    if not isinstance(message, Mapping) or message.get("role") != "tool":
        return False
    content = message.get("content")
    return (
        "tool_call_id" not in message
        and isinstance(content, Mapping)
        and content.get("type") == "function"
        and isinstance(content.get("function"), Mapping)
        and type(content["function"].get("name")) is str
    )


def _is_response(response: Any) -> bool:
    return isinstance(response, Mapping) and (
        response.get("type") == "message" or type(response.get("choices")) is list
    )


def _response(said: Any, messages: list[Any]) -> Any:
    """A response body from what a ``GENERATION``'s output holds (see the module); a list of
    several assistant messages is the choices of one call (``n`` > 1), of which a client
    carries on the first."""
    if type(said) is list and len(said) > 1 and all(_is_reply(m) for m in said):
        choices = [{"index": i, "message": m} for i, m in enumerate(said)]
        return {"object": "chat.completion", "choices": choices}
    if type(said) is list and len(said) == 1:
        said = said[0]
    if type(said) is str:  # the reply's text alone
        said = {"role": "assistant", "content": said}
    if not isinstance(said, Mapping):
        return said
    if _is_response(said):
        return said  # a response body as the API sent it
    if "role" not in said and _is_reply(said.get("message")):  # one choice (gen_ai.choice)
        return {"object": "chat.completion", "choices": [{"index": 0, **said}]}
    kind = said.get("type")
    if type(kind) is str and kind in _LANGCHAIN_AI and "role" not in said:
        said = _langchain_reply(said)
    if said.get("role") != "assistant":
        return said
    content = said.get("content")
    if _anthropic_blocks(content) or any(_anthropic_blocks(_content(m)) for m in messages):
        blocks = [{"type": "text", "text": content}] if type(content) is str else content
        return {"type": "message", "role": "assistant", "content": blocks}
    return {"object": "chat.completion", "choices": [{"index": 0, "message": said}]}


_LANGCHAIN_AI = frozenset({"ai", "AIMessage", "AIMessageChunk"})
"""The ``type`` a serialized LangChain message of the model has."""


def _langchain_reply(said: Mapping[str, Any]) -> dict[str, Any]:
    """A LangChain AI message as the Chat Completions message it stands for: its content, and
    its ``tool_calls`` (``{"name", "args", "id"}``) then its ``invalid_tool_calls`` (calls whose
    arguments did not parse, ``args`` their text) as function calls, as LangChain's OpenAI
    client sends them back."""
    reply: dict[str, Any] = {"role": "assistant", "content": said.get("content")}
    calls = [
        *(said["tool_calls"] if type(said.get("tool_calls")) is list else ()),
        *(said["invalid_tool_calls"] if type(said.get("invalid_tool_calls")) is list else ()),
    ]
    if calls:
        reply["tool_calls"] = [
            {
                "id": call.get("id"),
                "type": "function",
                "function": {"name": call.get("name"), "arguments": _arguments(call.get("args"))},
            }
            if isinstance(call, Mapping)
            else call  # (the chat loader names what is wrong with it)
            for call in calls
        ]
    return reply


def _arguments(args: Any) -> str:
    """A LangChain call's ``args`` as Chat Completions' ``arguments`` text: an invalid call's
    text as it is, a valid call's object as JSON."""
    return args if type(args) is str else json_text(args)


def _is_reply(message: Any) -> bool:
    return isinstance(message, Mapping) and message.get("role") == "assistant"


def _content(message: Any) -> Any:
    return message.get("content") if isinstance(message, Mapping) else None


_ANTHROPIC_BLOCKS = frozenset({"tool_use", "tool_result"})


def _anthropic_blocks(content: Any) -> bool:
    return type(content) is list and any(
        isinstance(block, Mapping)
        and type(block.get("type")) is str
        and block["type"] in _ANTHROPIC_BLOCKS
        for block in content
    )


class _Places:
    """The chat loader's places (``interaction 3, response, block 2``) as a trace's
    (``observations[3] output, block 2``)."""

    _INTERACTION = re.compile(r"\binteraction (\d+)(, response|, request message)?")

    def __init__(self, file: str, base: str) -> None:
        self.prefix = f"{file}: "
        self.base = base

    def where(self, where: str) -> str:
        return self._INTERACTION.sub(self._renamed, where)

    def location(self, location: str) -> str:
        if not location.startswith(self.prefix):
            return location
        return self.prefix + self.where(location[len(self.prefix) :])

    def _renamed(self, found: re.Match[str]) -> str:
        side = {", response": " output", ", request message": " input message"}
        return f"{self.base}[{found.group(1)}]{side.get(found.group(2) or '', '')}"
