"""Langfuse traces whose frameworks mark a tool run only by a span's name (SPEC R34, R35).

Agno and LangChain's LangGraph (Python and JavaScript) send Langfuse no ``TOOL`` observation: a
tool's run is a ``SPAN`` named after the tool (``duckduckgo_search``, ``Web-Search``,
``get_weather``), its ``input`` the arguments and its ``output`` what the tool gave. Such a
span is told from the graph's other spans (``agent``, ``tools``, ``should_continue``,
``ChannelWrite<...>``) by the model: a ``GENERATION`` before it asked for a call of that
name. :func:`requested_calls` reads those requests, wherever the framework put the model's
reply (a Chat Completions response, a LangChain message and its ``additional_kwargs``, a
serialized ``AIMessage``); the span takes the id of the request it answers, by name in order.

BeeAI writes each event of a tool's run as a span of its own (``tool.<path>.start-<n>``,
``...success-<n>``): :func:`is_lifecycle_span` tells them from Koog's ``tool.<Name>`` runs, so
that none is read as a tool of that name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, cast

from .._common.jsonio import json_text

__all__ = [
    "SPAN_PREFIX",
    "asked_call",
    "is_lifecycle_span",
    "is_named_tool_span",
    "requested_calls",
    "start_key",
    "start_order",
    "tool_message",
    "without_prefix",
]

SPAN_PREFIX = "tool."
"""What Koog names a tool's span: ``tool.<Name>``."""

_DEPTH = 6
"""How deep in a model's reply tool calls are looked for (a response's ``choices[].message``
is three levels down, a serialized message's ``kwargs`` two)."""
_LIFECYCLE = re.compile(r"tool\..+\.(?:start|finish|success|error|retry)-\d+")


def is_lifecycle_span(name: str) -> bool:
    """A BeeAI event of a tool's run (``tool.search.wikipedia.start-12``), not a run."""
    return _LIFECYCLE.fullmatch(name) is not None


def requested_calls(
    observations: Iterable[Mapping[str, Any]], decoded: Callable[[Any], Any]
) -> dict[str, list[str | None]]:
    """The ids of the tool calls the trace's ``GENERATION`` observations asked for, by tool
    name, in the order given (``observations`` in start order; ``decoded``: an output's JSON
    text decoded); an id ``None`` where the reply gave none."""
    found: dict[str, list[str | None]] = {}
    read: set[Any] = set()  # (an export put together may hold an observation twice)
    for observation in observations:
        if observation.get("type") != "GENERATION":
            continue
        own = observation.get("id")
        if type(own) is str:
            if own in read:
                continue
            read.add(own)
        seen: set[str] = set()
        for name, call_id in _calls(decoded(observation.get("output")), decoded, 0):
            if call_id is not None:
                if call_id in seen:  # the same call twice in one reply (tool_calls, kwargs)
                    continue
                seen.add(call_id)
            found.setdefault(name, []).append(call_id)
    return found


def _calls(value: Any, decoded: Callable[[Any], Any], depth: int) -> Iterable[tuple[str, Any]]:
    """``(name, id)`` of each tool call in a model's reply, found under ``tool_calls``."""
    if depth > _DEPTH:
        return
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key == "tool_calls" and isinstance(item, list):
                for call in item:
                    read = _call(call)
                    if read is not None:
                        yield read
            elif isinstance(item, Mapping | list):
                yield from _calls(item, decoded, depth + 1)
            elif key in ("message", "content") and isinstance(item, str):
                yield from _calls(decoded(item), decoded, depth + 1)  # a reply kept as text
    elif isinstance(value, list):
        for item in value:
            yield from _calls(item, decoded, depth + 1)


def _call(call: Any) -> tuple[str, str | None] | None:
    """A requested call's name and id (LangChain's ``{name, args, id}``, OpenAI's ``{id,
    function: {name, arguments}}``)."""
    if not isinstance(call, Mapping):
        return None
    function = call.get("function")
    name = call.get("name", function.get("name") if isinstance(function, Mapping) else None)
    call_id = call.get("id")
    if not isinstance(name, str) or not name:
        return None
    return name, call_id if isinstance(call_id, str) and call_id else None


def tool_message(output: Any) -> tuple[str, bool] | None:
    """A LangChain ``ToolMessage`` a tool's span gave (as a plain object, or serialized:
    ``{"lc": 1, "type": "constructor", "id": [..., "ToolMessage"], "kwargs": {...}}``): the
    content the model was sent and whether its ``status`` is ``error``; else ``None``."""
    if not isinstance(output, Mapping):
        return None
    kind = output.get("id")
    if isinstance(kind, list) and kind and kind[-1] == "ToolMessage":
        output = output.get("kwargs")
    elif output.get("type") != "tool":
        return None
    if not isinstance(output, Mapping) or "tool_call_id" not in output:
        return None
    content = output.get("content")
    if isinstance(content, list):  # LangChain's content blocks, or any JSON list a tool gave
        texts = [
            text
            for b in content
            if isinstance(b, Mapping)
            and b.get("type") == "text"
            and isinstance(text := b.get("text"), str)
        ]
        # text blocks as their text; any other list as the export that keeps it as text writes it
        whole = bool(content) and len(texts) == len(content)
        content = "\n".join(texts) if whole else json_text(content)
    if not isinstance(content, str):
        return None
    return content, output.get("status") == "error"


def is_named_tool_span(observation: Mapping[str, Any]) -> bool:
    """A ``SPAN`` named ``tool.<Name>`` with what it was given or gave (Koog's tool runs; not
    BeeAI's events of one, ``tool.<path>.start-<n>``)."""
    name = observation.get("name")
    return (
        observation.get("type") == "SPAN"
        and isinstance(name, str)
        and name.startswith(SPAN_PREFIX)
        and len(name) > len(SPAN_PREFIX)
        and not is_lifecycle_span(name)
        and (observation.get("input") is not None or observation.get("output") is not None)
    )


def asked_call(
    observation: Mapping[str, Any], requested: dict[str, list[str | None]]
) -> str | None:
    """For a ``SPAN`` named after a tool the model asked for (``langfuse_spans``), the id of
    the request it answers (the observation's own where the request had none), taken in
    order; else ``None``."""
    name = observation.get("name")
    if observation.get("type") != "SPAN" or not isinstance(name, str):
        return None
    waiting = requested.get(name)
    if not waiting:
        return None
    call_id = waiting.pop(0)
    own = observation.get("id")
    return call_id or (own if isinstance(own, str) else None)


SPAN_PREFIX = "tool."


def without_prefix(name: str, prefixes: tuple[str, ...]) -> str:
    """``name`` less the first of ``prefixes`` it starts with (a loop: a generator costs more
    for a few prefixes, once a tool call)."""
    for prefix in prefixes:
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


def start_order(observations: list[Any], starts: list[Any]) -> list[int]:
    """The observations' places in start order (:func:`start_key`), ties in export order
    (``starts``: each one's ``startTime``, ``None`` for one that is not a dict). Times all
    written alike in UTC (``2025-08-01T13:56:55.541Z``, one length) sort as their text."""
    first = starts[0] if starts else None
    if (
        isinstance(first, str)
        and set(map(type, starts)) == {str}  # (each test a pass in C, no Python loop)
        and set(map(len, starts)) == {len(first)}
        and _all_utc(starts, len(first))
    ):
        at = cast(Callable[[int], str], starts.__getitem__)
        return sorted(range(len(starts)), key=at)  # (stable: ties in order)
    return sorted(range(len(observations)), key=lambda i: (start_key(observations[i]), i))


def _all_utc(starts: list[str], length: int) -> bool:
    """Whether each of ``starts`` (texts of ``length`` characters) is UTC text of
    ``_UTC_TEXT``: ASCII texts by their shape, their digits made zeros (C passes over the texts
    joined, not a match each)."""
    joined = "".join(starts)
    if not joined.isascii():  # (``\d`` is any Unicode digit: such texts are matched)
        return all(map(_UTC_TEXT.fullmatch, starts))
    fraction = f".{'0' * (length - 21)}" if length > 21 else ""
    shape = f"0000-00-00T00:00:00{fraction}Z"  # (no shape of 21 characters: never matches)
    return len(shape) == length and joined.encode().translate(_ZEROS) == shape.encode() * len(
        starts
    )


_UTC_TEXT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z")
_ZEROS = bytes.maketrans(b"123456789", b"000000000")


def start_key(observation: Any) -> tuple[int, float, str]:
    """An observation's place in start order: by its ``startTime`` as a time (a time with no
    zone read as UTC; texts of other precisions or zones compare right), then as text for a
    time that does not read (after those that do)."""
    start = observation.get("startTime") if type(observation) is dict else None
    if not isinstance(start, str):
        return 2, 0.0, ""
    try:
        moment = datetime.fromisoformat(start)
    except ValueError:
        return 1, 0.0, start
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return 0, moment.timestamp(), start
