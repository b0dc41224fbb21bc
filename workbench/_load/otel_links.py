"""Traces that are one conversation: a model client traced alone (for ``otel``).

When only the model client is instrumented and nothing opens a span around the agent's loop,
each model call is a trace of its own: the call the model makes is in one trace's output
messages, and the result it was sent back in the next trace's input messages. Read a run a
trace, every call was "never answered" though the file holds each answer. ``linked`` groups
the traces whose model calls answer each other's calls (a tool call's id made in one, its
``tool_call_response`` or ``gen_ai.tool.message`` in another) into one, in file order. Only
traces with no tool span and no agent span are joined: a trace that traces the agent's loop
is a run of its own, as before.
"""

from __future__ import annotations

import json
from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .common import json_args
from .otel_chat_parts import messages_of, parts_of
from .otel_logs import Event

__all__ = ["linked"]

Entry = tuple[str, Mapping[str, Any], dict[str, Any]]

_INPUT = "gen_ai.input.messages"
_OUTPUT = "gen_ai.output.messages"
_OWN_SPANS = ("execute_tool", "invoke_agent", "create_agent")


def linked(
    traces: dict[str, list[Entry]], events: dict[str, list[Event]]
) -> dict[str, list[Entry]]:
    """The traces with those of one conversation joined under the first's id (their spans and
    events), in the order they first came; ``events`` is changed the same way.

    A trace continues the one that made a call it answers: the nearest earlier trace whose
    model call made a call of that id, with the same tool and arguments where the answering
    trace resends the call (its input messages hold the conversation so far). Unrelated
    conversations that reuse call ids (``call_0``) are not joined."""
    if len(traces) < 2:
        return traces
    order = {trace: index for index, trace in enumerate(traces)}
    # who made each call, in file order: by its id and what it was, and by its id alone (for
    # an answer whose trace does not resend the call); found by bisection, not a scan
    made: dict[tuple[str, Call], list[int]] = {}
    made_id: dict[str, list[int]] = {}
    names = list(traces)
    parent = {trace: trace for trace in traces}

    def root(trace: str) -> str:
        while parent[trace] != trace:
            parent[trace] = parent[parent[trace]]
            trace = parent[trace]
        return trace

    client_only = [t for t, entries in traces.items() if not _traces_own_spans(entries)]
    for trace in client_only:
        for call_id, call in _made(traces[trace], events.get(trace, ())):
            made.setdefault((call_id, call), []).append(order[trace])
            made_id.setdefault(call_id, []).append(order[trace])
    for trace in client_only:
        resent = dict(_message_calls(traces[trace], events.get(trace, ()), _INPUT))
        for call_id in _answered(traces[trace], events.get(trace, ())):
            said = resent.get(call_id)
            makers = made.get((call_id, said), ()) if said is not None else made_id.get(call_id, ())
            at = bisect_left(makers, order[trace])
            if at:  # the nearest earlier trace that made this very call
                maker = names[makers[at - 1]]
                first, second = sorted((root(maker), root(trace)), key=order.__getitem__)
                parent[second] = first
    groups: dict[str, list[Entry]] = {}
    for trace, entries in traces.items():
        top = root(trace)
        groups.setdefault(top, []).extend(entries)
        if top != trace and trace in events:
            events.setdefault(top, []).extend(events.pop(trace))
    return groups


Call = tuple[str, str]
"""A tool call as the model made it: its tool's name and its arguments as canonical JSON (a
name that is no string, as canonical JSON too: a key, whatever the file held)."""


def _call_of(name: Any, arguments: Any) -> Call:
    if isinstance(arguments, str):
        arguments = json_args(arguments)
    named = name if isinstance(name, str) else json.dumps(name, sort_keys=True, default=str)
    return named, json.dumps(arguments, sort_keys=True, default=str)


def _traces_own_spans(entries: Sequence[Entry]) -> bool:
    return any(attrs.get("gen_ai.operation.name") in _OWN_SPANS for _, _, attrs in entries)


def _made(entries: Sequence[Entry], events: Iterable[Event]) -> list[tuple[str, Call]]:
    """The tool calls the trace's model calls made (their output messages), by id."""
    out = _message_calls(entries, events, _OUTPUT)
    for _, _, name, _, body in events:
        message = (
            body.get("message") if name == "gen_ai.choice" and isinstance(body, Mapping) else None
        )
        calls = message.get("tool_calls") if isinstance(message, Mapping) else None
        for call in calls if isinstance(calls, list) else ():
            function = call.get("function") if isinstance(call, Mapping) else None
            if isinstance(call, Mapping) and isinstance(call.get("id"), str):
                said = function if isinstance(function, Mapping) else {}
                out.append((call["id"], _call_of(said.get("name"), said.get("arguments"))))
    return out


def _message_calls(
    entries: Sequence[Entry], events: Iterable[Event], key: str
) -> list[tuple[str, Call]]:
    """The ``tool_call`` parts of the messages the trace's model calls record under ``key``
    (their output: the calls made; their input: the calls sent again), by id."""
    out: list[tuple[str, Call]] = []
    for attrs in _attributes(entries, events):
        for message in messages_of(attrs.get(key)):
            for part in _parts(message, "tool_call"):
                if isinstance(part.get("id"), str):
                    out.append((part["id"], _call_of(part.get("name"), part.get("arguments"))))
    return out


def _answered(entries: Sequence[Entry], events: Iterable[Event]) -> list[str]:
    """The ids of the tool calls whose results the trace's model calls were sent."""
    out: list[str] = []
    for attrs in _attributes(entries, events):
        for message in messages_of(attrs.get(_INPUT)):
            out += [
                p["id"]
                for p in _parts(message, "tool_call_response")
                if isinstance(p.get("id"), str)
            ]
    for _, _, name, _, body in events:
        said = (
            body.get("id") if name == "gen_ai.tool.message" and isinstance(body, Mapping) else None
        )
        if isinstance(said, str):
            out.append(said)
    return out


def _attributes(entries: Sequence[Entry], events: Iterable[Event]) -> list[Mapping[str, Any]]:
    out: list[Mapping[str, Any]] = [attrs for _, _, attrs in entries]
    out += [attrs for _, _, _, attrs, _ in events]
    return out


def _parts(message: Any, kind: str) -> list[Mapping[str, Any]]:
    return [part for part in parts_of(message) if part.get("type") == kind]
