"""The message walk the benchmark formats share (SPEC R2, R35, R40).

AgentDojo results, Inspect AI samples, tau2-bench simulations and SWE-agent trajectories all
record an agent's run as OpenAI-style chat messages: ``role``, ``content``, an assistant's
``tool_calls[]`` and ``tool`` messages answering them. They differ in the shape of one call
(``{function, args, id}``, ``{id, function, arguments}``, ``{id, name, arguments, requestor}``,
``{id, function: {name, arguments}}``) and in how a tool message says it failed, so each
format module keeps those two readings and this module keeps the walk around them: each
message placed and checked to be an object, its role counted, its text read; each call list
checked, each call placed, read by the format, paired and made a conversation call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from .common import RecordTally
from .conversation import ConversationBuilder
from .pairing import CallPairer

__all__ = ["CallRead", "chat_messages", "model_turn", "read_tool_calls"]


class CallRead(NamedTuple):
    """What a format read from one recorded tool call."""

    call_id: str
    name: str
    args: Any
    extra: dict[str, Any] | None = None
    """Members of the call kept on its boundary (``None``: none)."""
    agent: str | None = None
    """The agent that made the call, when the call names it (else the message's)."""


CallReader = Callable[[Any, str], CallRead | None]
"""Reads one call (the raw item, its place) into a :class:`CallRead`, or reports the problem
on the pairer and returns ``None``."""


def chat_messages(
    messages: Iterable[Any],
    place: str,
    pairer: CallPairer,
    tally: RecordTally,
    text_of: Callable[[Any], str],
) -> Iterator[tuple[str, dict[str, Any], Any, str]]:
    """``(where, message, role, text)`` for each message that is an object, ``where`` being
    ``place[i]``; any other item is a problem (R35). Every role read is counted on ``tally``
    (the format's known records) and ``text_of`` reads the message's ``content``."""
    for index, message in enumerate(messages):
        where = f"{place}[{index}]"
        if not isinstance(message, dict):
            pairer.problem(where, "", "a message must be an object")
            continue
        role = message.get("role")
        tally.add(str(role))
        yield where, message, role, text_of(message.get("content"))


def read_tool_calls(
    message: dict[str, Any],
    where: str,
    pairer: CallPairer,
    read: CallReader,
    *,
    agent: str | None = None,
    member: str = "tool_calls",
) -> list[dict[str, Any]] | None:
    """The message's ``tool_calls`` (or its ``member`` of that name) made calls on the pairer
    (R2), as conversation tool calls ``{"id", "name", "args"}`` (R40); ``None`` when they are
    not a list (a problem). A call the reader refuses is left out; ``agent`` is the agent of
    calls that name none."""
    calls = message.get(member) or []
    if not isinstance(calls, list):
        pairer.problem(where, member, "must be a list")
        return None
    made: list[dict[str, Any]] = []
    for index, call in enumerate(calls):
        call_where = f"{where}.{member}[{index}]"
        got = read(call, call_where)
        if got is None:
            continue
        call_id, name, args, extra, call_agent = got
        pairer.call(
            call_id,
            name,
            args,
            where=call_where,
            field_name="id",
            agent_id=call_agent if call_agent is not None else agent,
            extra=extra or None,
        )
        made.append({"id": call_id, "name": name, "args": args})
    return made


def model_turn(
    role: Any,
    text: str,
    message: dict[str, Any],
    where: str,
    pairer: CallPairer,
    talk: ConversationBuilder,
    read: CallReader,
    *,
    agent: str | None = None,
) -> list[dict[str, Any]] | None:
    """A system, user or assistant message into the conversation (R40), an assistant's calls
    made on the pairer (:func:`read_tool_calls`). Returns the assistant's calls (``[]`` for
    none); ``None`` for any other role, and for an assistant whose call list is a problem."""
    if role == "system":
        talk.system(text)
    elif role == "user":
        talk.user(text)
    elif role == "assistant":
        made = read_tool_calls(message, where, pairer, read, agent=agent)
        if made is not None:
            talk.assistant(text or None, made)
        return made
    return None
