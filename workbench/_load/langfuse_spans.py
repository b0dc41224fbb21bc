"""Langfuse traces whose frameworks mark a tool run only by a span's name (SPEC R34, R35).

Agno and LangChain's LangGraph (Python and JavaScript) send Langfuse no ``TOOL`` observation: a
tool's run is a ``SPAN`` named after the tool (``duckduckgo_search``, ``Web-Search``,
``get_weather``), its ``input`` what the tool was given and its ``output`` what it gave. Such a
span is told from the graph's other spans (``agent``, ``tools``, ``should_continue``,
``ChannelWrite<...>``) by the model: a ``GENERATION`` before it asked for a call of that
name. ``langfuse_requests`` reads those requests, wherever the framework put the model's reply
(a Chat Completions response, a LangChain message and its ``additional_kwargs``, a serialized
``AIMessage``, or any other reply shape it reads); the span takes the id and the args of the
request it answers, by name in order (its ``input`` may not be the model's args: LangGraph's
Python handler writes Python's repr of them, ``{'query': 'example'}``).

BeeAI writes each event of a tool's run as a span of its own (``tool.<path>.start-<n>``,
``...success-<n>``): :func:`is_lifecycle_span` tells them from Koog's ``tool.<Name>`` runs, so
that none is read as a tool of that name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, NamedTuple, cast

from .._common.jsonio import json_text

__all__ = [
    "SPAN_PREFIX",
    "ToolMessage",
    "is_lifecycle_span",
    "is_named_tool_span",
    "start_key",
    "start_order",
    "tool_message",
    "without_prefix",
]

SPAN_PREFIX = "tool."
"""What Koog names a tool's span: ``tool.<Name>``."""

_LIFECYCLE = re.compile(r"tool\..+\.(?:start|finish|success|error|retry)-\d+")


def is_lifecycle_span(name: str) -> bool:
    """A BeeAI event of a tool's run (``tool.search.wikipedia.start-12``), not a run."""
    return _LIFECYCLE.fullmatch(name) is not None


_STATUSES = {"success": False, "error": True}
"""``ToolMessage.status`` (``Literal["success", "error"]``, ``"success"`` when absent): failed."""


class ToolMessage(NamedTuple):
    """A LangChain ``ToolMessage`` as a tool's span gave it."""

    content: str
    """What the model was sent."""
    failed: bool | None
    """Whether its ``status`` is ``"error"``; ``None`` for one LangChain never writes (R35)."""
    status: Any
    """Its ``status`` as written."""
    place: str
    """Where the status is in the record (``status``; serialized, ``kwargs.status``)."""

    def wrong_status(self) -> str:
        """The problem of a status LangChain never writes (``failed`` is ``None``)."""
        return (
            f'a ToolMessage status must be "success" or "error", not '
            f"{json_text(self.status)[:40]} (read as neither: a wrongly typed status is never "
            "taken for a success)"
        )


def tool_message(output: Any) -> ToolMessage | None:
    """A LangChain ``ToolMessage`` a tool's span gave (as a plain object, or serialized:
    ``{"lc": 1, "type": "constructor", "id": [..., "ToolMessage"], "kwargs": {...}}``): the
    content the model was sent and whether its ``status`` is ``error``; else ``None``."""
    if not isinstance(output, Mapping):
        return None
    kind = output.get("id")
    place = "status"
    if isinstance(kind, list) and kind and kind[-1] == "ToolMessage":
        output, place = output.get("kwargs"), "kwargs.status"
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
    status = output.get("status")
    if status is None:  # (absent: LangChain's default, "success")
        return ToolMessage(content, False, status, place)
    return ToolMessage(
        content, _STATUSES.get(status) if type(status) is str else None, status, place
    )


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
