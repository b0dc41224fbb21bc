"""The tool calls a trace's model calls record: for tool spans that do not hold their content,
and for the calls no tool span records.

OpenTelemetry's GenAI conventions put the messages of a model call on its ``chat`` span
(``gen_ai.input.messages``, ``gen_ai.output.messages``: JSON text) or on a GenAI event of it (a
log record whose attributes hold the same messages as structured values). A message's
``tool_call`` parts (``id``, ``name``, ``arguments``) are the calls the model made, and a later
call's ``tool_call_response`` parts (``id``, ``response``) what it was sent back. The older
events of the OpenAI instrumentation say the same in their bodies: ``gen_ai.choice`` (the
reply's ``message.tool_calls``), ``gen_ai.assistant.message`` (a resent reply's
``tool_calls``) and ``gen_ai.tool.message`` (``id``, ``content``: the result).

Google ADK's ``execute_tool`` spans hold ``"{}"`` in place of their arguments and result when
their content is not captured there (its settings that turn its own attributes off), or hold
none (content only in events): the calls' content is then only in those parts. ``ChatParts``
gives each tool span the part of the next call of its tool's name (the model's calls and the
tool spans come in the same order), and ``otel`` reads the part's arguments and response where
the span has none, or only ADK's ``"{}"`` while the model sent arguments. Part ids are the
instrumentation's own (``get_weather_1``), not the span's call id, so calls are matched by name
and order, never by id. A call's response is the ``tool_call_response`` of its id in the message
after the one that makes it, else the one at its place there (ADK numbers a part by its place
in its message, so a call and its response may not share an id).

A call no tool span took (an instrumentation of the model client alone traces no tool; the
OpenAI Agents SDK's handoff is no tool span) is still a call the model made (R35): ``otel``
reads it from its part (:meth:`ChatParts.left`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from typing import Any, NamedTuple

from .._common.toolresult import result_text
from .common import is_output_tool, json_args
from .otel_values import tool_response
from .pairing import CallPairer
from .records import ErrorRule

__all__ = [
    "LEGACY_EVENTS",
    "ChatParts",
    "PartCall",
    "calls_of_messages",
    "ends_the_run",
    "is_handoff",
    "messages_of",
    "own_content",
    "parts_of",
]

_INPUT = "gen_ai.input.messages"
_OUTPUT = "gen_ai.output.messages"
LEGACY_EVENTS = frozenset({"gen_ai.choice", "gen_ai.assistant.message", "gen_ai.tool.message"})
"""The OpenAI instrumentation's older events whose bodies hold tool calls and their results."""


class PartCall(NamedTuple):
    """A call the model made, as its messages record it."""

    part_id: str | None
    name: str
    arguments: Any
    where: str


class ChatParts:
    """A trace's calls by tool name (in the order the model made them) and its results by
    call id."""

    __slots__ = ("_calls", "_made", "_order", "_responses", "_taken", "unread")

    def __init__(self) -> None:
        self._calls: dict[str, deque[PartCall]] = {}
        self._order: list[PartCall] = []
        self._taken: set[int] = set()  # id() of the calls a tool span took
        self._made: set[str] = set()
        self._responses: dict[str, Any] = {}
        self.unread: list[tuple[str, str]] = []
        """Messages recorded as JSON text that does not decode as a file's would (nested past
        the limit, a NaN): their place and attribute, for the loader to name (R35)."""

    @staticmethod
    def holds_messages(attrs: Mapping[str, Any]) -> bool:
        """Whether a span's or an event's attributes record a model call's messages."""
        return _INPUT in attrs or _OUTPUT in attrs

    def add(self, attrs: Mapping[str, Any], where: str) -> None:
        """Read one model call's messages (a ``chat`` span's attributes, or its event's)."""
        for key in (_OUTPUT, _INPUT):
            value = attrs.get(key)
            if (
                isinstance(value, str)
                and value.lstrip().startswith("[")
                and isinstance(json_args(value), str)
            ):  # kept as the text it is: it does not decode
                self.unread.append((where, key))
        for message in messages_of(attrs.get(_OUTPUT)):
            for part in parts_of(message):
                if part.get("type") == "tool_call":
                    arguments = part.get("arguments")  # an object, or its JSON text (pydantic-ai)
                    if isinstance(arguments, str):
                        arguments = json_args(arguments)
                    self._call(part.get("id"), part.get("name"), arguments, where)
        sent = messages_of(attrs.get(_INPUT))
        for index, message in enumerate(sent):
            calls = [p for p in parts_of(message) if p.get("type") == "tool_call"]
            if not calls or index + 1 >= len(sent):
                continue
            answers = _answers(sent, index + 1)
            by_id = {a["id"]: a for a in answers if isinstance(a.get("id"), str)}
            for place, call in enumerate(calls):
                call_id = call.get("id")
                if not isinstance(call_id, str):
                    continue
                answer = by_id.get(call_id)
                if answer is None and len(answers) == len(calls):
                    answer = answers[place]  # ids that do not agree (ADK's: index in message)
                if answer is not None:  # (pydantic-ai writes it as ``result``)
                    said = answer.get("response", answer.get("result"))
                    self._responses.setdefault(call_id, said)

    def add_event(self, name: str, body: Any, where: str) -> None:
        """Read one of the OpenAI instrumentation's older events (:data:`LEGACY_EVENTS`)."""
        if not isinstance(body, Mapping):
            return
        if name == "gen_ai.tool.message":
            call_id = body.get("id")
            if isinstance(call_id, str):
                self._responses.setdefault(call_id, body.get("content"))
            return
        message = body.get("message") if name == "gen_ai.choice" else body
        calls = message.get("tool_calls") if isinstance(message, Mapping) else None
        for call in calls if isinstance(calls, list) else ():
            function = call.get("function") if isinstance(call, Mapping) else None
            if isinstance(function, Mapping):
                arguments = function.get("arguments")
                if isinstance(arguments, str):
                    arguments = json_args(arguments)
                self._call(call.get("id"), function.get("name"), arguments, where)

    def _call(self, part_id: Any, name: Any, arguments: Any, where: str) -> None:
        if not isinstance(name, str) or not name:
            return
        if isinstance(part_id, str):
            if part_id in self._made:  # the same call again: a span and its event, or resent
                return
            self._made.add(part_id)
        call = PartCall(part_id if isinstance(part_id, str) else None, name, arguments, where)
        self._calls.setdefault(name, deque()).append(call)
        self._order.append(call)

    def take(self, tool: str) -> tuple[Any, Any] | None:
        """The arguments and the response of the model's next call of ``tool`` (``None``: no
        call of it is left); the response is ``None`` when no later model call was sent it."""
        queue = self._calls.get(tool)
        if not queue:
            return None
        call = queue.popleft()
        self._taken.add(id(call))
        return call.arguments, self.response(call)

    def response(self, call: PartCall) -> Any:
        """What the model was sent back for ``call`` (``None``: nothing recorded)."""
        return self._responses.get(call.part_id) if call.part_id is not None else None

    def left(self) -> list[PartCall]:
        """The calls no tool span took, in the order the model made them."""
        return [call for call in self._order if id(call) not in self._taken]


def _answers(sent: list[Any], start: int) -> list[Mapping[str, Any]]:
    """The ``tool_call_response`` parts of the messages from ``start`` on that hold them: one
    message of them all, or a message a result (the OpenAI instrumentation writes each result
    of calls made at once as a ``tool`` message of its own)."""
    out: list[Mapping[str, Any]] = []
    for message in sent[start:]:
        found = [p for p in parts_of(message) if p.get("type") == "tool_call_response"]
        if not found:
            break
        out.extend(found)
    return out


def messages_of(value: Any) -> list[Any]:
    """Messages recorded as JSON text (a span attribute) or as a structured list (an event)."""
    if isinstance(value, str):
        value = json_args(value)
    return value if isinstance(value, list) else []


def parts_of(message: Any) -> list[Mapping[str, Any]]:
    parts = message.get("parts") if isinstance(message, Mapping) else None
    return [p for p in parts if isinstance(p, Mapping)] if isinstance(parts, list) else []


def own_content(attrs: Mapping[str, Any], call_id: str) -> tuple[Any, Any]:
    """A tool span's own call and result as its messages record them (Strands' tool spans:
    a ``tool_call`` part in ``gen_ai.input.messages``, a ``tool_call_response`` part in
    ``gen_ai.output.messages``; of ``call_id`` when a part has an id): ``(arguments,
    response)``, ``None`` for what they do not hold."""
    found: list[Any] = [None, None]
    for slot, key, kind, member in (
        (0, _INPUT, "tool_call", "arguments"),
        (1, _OUTPUT, "tool_call_response", "response"),
    ):
        for message in messages_of(attrs.get(key)):
            part = next(
                (
                    p
                    for p in parts_of(message)
                    if p.get("type") == kind and p.get("id", call_id) == call_id
                ),
                None,
            )
            if part is not None:
                value = part.get(member)
                found[slot] = json_args(value) if slot == 0 and isinstance(value, str) else value
                break
    return found[0], found[1]


def ends_the_run(tool: str) -> bool:
    """A call nothing answers by design (R36): a handoff, or pydantic-ai's output tool (which
    has no tool span: the run ends with its arguments)."""
    return is_handoff(tool) or is_output_tool(tool)


def is_handoff(tool: str) -> bool:
    """A handoff to another agent (the OpenAI Agents SDK's ``transfer_to_<agent>``, Google ADK's
    ``transfer_to_agent``): the run goes on in that agent, and no result may come back (R36)."""
    return tool.startswith("transfer_to_")


def calls_of_messages(
    parts: ChatParts, spanned: set[str], pairer: CallPairer, rule: ErrorRule
) -> None:
    """The calls the model's messages record that no tool span took: each a boundary,
    answered by the result a later model call was sent (none recorded: a call never answered,
    R2, or a handoff); failed as ``rule`` says (the messages have no flag). ``spanned``: the
    call ids the tool spans gave, read once."""
    for number, call in enumerate(parts.left()):
        call_id = call.part_id or f"message-call-{number}"
        if call_id in spanned:
            continue  # a tool span gave it under another name: read once
        extra = {"contentFrom": "gen_ai messages"}
        where = f"{call.where} (gen_ai.output.messages)"
        pairer.call(call_id, call.name, call.arguments, where=where, field_name="id", extra=extra)
        result = parts.response(call)
        if result is None:
            continue
        response = tool_response(result)
        text = result_text(response["content"])
        failed = rule.matches(text)
        pairer.result(
            call_id,
            response,
            failed,
            where=where,
            field_name="tool_call_response",
            error_message=text if failed else None,
        )
