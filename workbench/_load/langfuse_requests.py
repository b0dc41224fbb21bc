"""The tool calls a Langfuse trace's model asked for, and the tool runs they match (SPEC R34).

A tool run's observation holds what the framework handed the tool, which is not always what
the model sent: the Claude Agent SDK's integration wraps it (``{"input": {"city": "Berlin"}}``
for the model's ``{"city": "Berlin"}``), LangGraph's Python handler writes Python's repr of it
(``{'query': 'example'}``), ADK's export writes ``{}`` for the input. A suite's fixtures are
matched on a call's tool and args as an agent sends them at replay, so a call's args are the
model's where the model's request for it is found: a ``GENERATION`` whose ``output`` holds the
call, in any of the shapes integrations write:

- Chat Completions ``tool_calls`` (``{"id", "function": {"name", "arguments"}}``, ``arguments``
  JSON text or, as Langfuse's seeder keeps it, an object), also where a framework put such
  calls as text of a message's ``content`` (Koog); LangChain's ``{"name", "args", "id"}``;
- Anthropic ``tool_use`` blocks (``{"id", "name", "input"}``);
- OpenTelemetry GenAI message parts ``{"type": "tool_call", "id", "name", "arguments"}``
  (pydantic-ai, Microsoft's Agent Framework, Microsoft.Extensions.AI; an id may be a list,
  whose last is the call's, as in ``gen_ai.tool.call.id``);
- Gemini's ``function_call`` / ``functionCall`` (``{"name", "args", "id"?}``, ADK);
- OpenAI Responses ``{"type": "function_call", "call_id", "name", "arguments"}``;
- the Vercel AI SDK's ``{"toolCallId", "toolName", "input" | "args"}``.

A run matches the first request of its call id where it carries one (and a request has it),
else the first request of its tool's name not yet matched (of those with no id, when the run
has one), preferring those made under the run's parent; only a request made before the run (in
start order) is matched, and only one whose args **agree** with what the run's own record holds
(:func:`agrees`: the same value, the value wrapped as ``{"input": ...}``, or Python's repr of
it; a run that recorded nothing agrees with any). So calls of one tool made at once and run in
another order, a run whose clock is ahead of its GENERATION, or an id used again in a later reply
each take their own request, or none: a run no request agrees with keeps its own record's args.
A request whose reply gives its id and name alone gives the run no args (they are read as if no
request matched). Requests of one id and args listed twice (the Vercel AI SDK's
``ai.generateText`` and its ``doGenerate`` both hold the reply) are one request.

A request's args of a type its shape never holds (a number, a boolean or a list where Chat
Completions, Responses, Anthropic, LangChain and Gemini hold an object or its JSON text; an
OpenTelemetry part's and the Vercel AI SDK's may be any value) are a problem naming the
GENERATION (:attr:`ModelCalls.problems`), and that request is not read (R35).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .common import CHAT_ARGUMENTS, gen_ai_call_id, json_args, wrong_typed_args
from .langfuse_adk import ADK_ARGS, adk_args

__all__ = ["ModelCall", "ModelCalls", "agrees", "model_calls", "run_args"]

_DEPTH = 8
"""How deep in a model's reply calls are looked for (a Chat Completions response's call is
five levels down: ``choices``, a choice, ``message``, ``tool_calls``, a call)."""
_MARKED = re.compile("function|tool_call|tool_use|toolCallId").search
"""Whether a text holds what an output kept as JSON text holds if it holds a call (a reply
without it is not decoded; one C search)."""
_TEXTS = ("message", "content")
"""The keys whose text may be a reply's calls as JSON text (Koog's ``content``)."""
_GEMINI_KEYS = frozenset({"function_call", "functionCall"})
_UNSAID: Any = object()
"""The args of a request whose reply gives none (a call id and name alone): not read."""
_REPR_LIMIT = 65_536
"""The longest text read as Python's repr of a request's args (``ast.literal_eval``)."""


@dataclass(slots=True)
class ModelCall:
    """One tool call a model's reply asked for."""

    name: str
    """The tool the model named."""
    call_id: str | None
    """The call's id in the reply (``None`` where it gave none)."""
    args: Any
    """The arguments the model sent (JSON text decoded; text that is no JSON kept), as
    :attr:`said` says."""
    rank: int
    """The place of the GENERATION that holds it, in the trace's start order."""
    generation: str | None
    """That GENERATION's id."""
    parent: str | None
    """That GENERATION's parent's id."""
    matched: bool = False
    """Whether a tool run has answered it."""

    @property
    def said(self) -> bool:
        """Whether the reply gave the call's args (not its id and name alone)."""
        return self.args is not _UNSAID


class ModelCalls:
    """The requests of a trace's GENERATIONs, matched to its tool runs (see the module)."""

    __slots__ = ("_by_id", "_by_name", "_first", "problems")

    def __init__(
        self, calls: Iterable[ModelCall], problems: Sequence[tuple[int, str]] = ()
    ) -> None:
        self.problems = tuple(problems)
        """``(place, message)``: each request refused for its args' type, at ``place`` in the
        observations."""
        self._by_name: dict[str, list[ModelCall]] = {}
        self._by_id: dict[str, list[ModelCall]] = {}
        self._first: dict[str, int] = {}
        """Where each name's first request not yet matched is (its list in start order: a
        trace of many calls of one tool is not walked from its start once a call)."""
        for call in calls:
            self._by_name.setdefault(call.name, []).append(call)
            if call.call_id is not None:
                self._by_id.setdefault(call.call_id, []).append(call)

    def __bool__(self) -> bool:
        """Whether any reply asked for a call."""
        return bool(self._by_name)

    def asked(
        self, observation: Mapping[str, Any], rank: int, decoded: Callable[[Any], Any]
    ) -> ModelCall | None:
        """For a ``SPAN`` named after a tool the model asked for (Agno's and LangGraph's tool
        runs, ``langfuse_spans``), the request it answers, by name in order among those its
        input agrees with, else the first; else ``None``."""
        name = observation.get("name")
        if observation.get("type") != "SPAN" or type(name) is not str or name not in self._by_name:
            return None
        parent = observation.get("parentObservationId")
        given = decoded(observation.get("input"))
        # (a span is a run by its name: one whose input agrees with no request still answers
        # the first, its args then its input's)
        return self.match(name, None, rank, parent, given) or self.match(name, None, rank, parent)

    def match(
        self, name: str, call_id: str | None, rank: int, parent: Any, given: Any = None
    ) -> ModelCall | None:
        """The request a run of ``name`` (its call id ``call_id``, if it carries one; at
        ``rank`` in start order, under ``parent``; ``given``: the args its own record holds)
        answers, marked matched; else ``None``."""
        found: ModelCall | None = None
        if call_id is not None:
            found = _agreeing(
                (c for c in self._by_id.get(call_id, ()) if _open(c, name, rank)), given
            )
        if found is None:
            waiting = [c for c in self._before(name, rank) if call_id is None or c.call_id is None]
            near = [c for c in waiting if parent is not None and parent in (c.generation, c.parent)]
            found = _agreeing(near, given) or _agreeing(waiting, given)
        if found is None:
            return None
        found.matched = True
        if found.call_id is not None:  # the same request listed twice: matched once
            for copy in self._by_id[found.call_id]:
                if _open(copy, name, rank) and (copy.args == found.args):
                    copy.matched = True
        return found

    def _before(self, name: str, rank: int) -> Iterator[ModelCall]:
        """The requests of ``name`` not yet matched that were made before ``rank``."""
        calls = self._by_name.get(name, ())
        first = self._first.get(name, 0)
        while first < len(calls) and calls[first].matched:
            first += 1
        self._first[name] = first
        for call in calls[first:]:
            if call.rank >= rank:
                return
            if not call.matched:
                yield call


def run_args(
    attributes: Mapping[str, Any], given: Any, decoded: Callable[[Any], Any]
) -> tuple[Any, str]:
    """The args of a tool run no request of the model matches, and where they were read: ADK's
    record of them (``gcp.vertex.agent.tool_call_args``), else the observation's input
    (``given``)."""
    args = adk_args(attributes, decoded) if attributes else None
    if args is not None:
        return args, ADK_ARGS
    return decoded(given), "input"


def _open(call: ModelCall, name: str, rank: int) -> bool:
    return not call.matched and call.name == name and call.rank < rank


def _agreeing(calls: Iterable[ModelCall], given: Any) -> ModelCall | None:
    """The first of ``calls`` whose args agree with ``given``."""
    return next((c for c in calls if not c.said or agrees(c.args, given)), None)


def agrees(args: Any, given: Any) -> bool:
    """Whether a request's ``args`` can be what a tool run's own record holds (``given``):
    nothing recorded (``None``, ``""``, ``{}``: ADK's input), the same value, the value wrapped
    as ``{"input": args}`` (the Claude Agent SDK's integration), or Python's repr of it as text
    (LangGraph's Python handler; read by ``ast.literal_eval``, which evaluates literals only)."""
    if given is None or given == "" or given == {} or args == given:
        return True
    if type(given) is dict and len(given) == 1 and "input" in given and given["input"] == args:
        return True
    if type(given) is str and len(given) <= _REPR_LIMIT and given.lstrip()[:1] in ("{", "["):
        try:
            return bool(ast.literal_eval(given) == args)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return False
    return False


def model_calls(
    observations: Sequence[Any], ordered: Sequence[int], decoded: Callable[[Any], Any]
) -> ModelCalls:
    """The requests the ``GENERATION`` observations' outputs hold (``ordered``: the places of
    ``observations`` in start order; ``decoded``: how the export's output text is decoded). A
    GENERATION listed twice is read once, a call listed twice in one reply (LangChain's
    ``tool_calls`` beside the client's ``additional_kwargs``) once."""
    calls: list[ModelCall] = []
    problems: list[tuple[int, str]] = []
    read: set[str] = set()
    for rank, place in enumerate(ordered):
        observation = observations[place]
        if type(observation) is not dict or observation.get("type") != "GENERATION":
            continue
        output = observation.get("output")
        if type(output) is str and _MARKED(output) is None:
            continue  # (a reply of text alone, not decoded)
        own = observation.get("id")
        if type(own) is str:
            if own in read:
                continue
            read.add(own)
        parent = observation.get("parentObservationId")
        seen: set[str] = set()
        for name, call_id, args in _calls(decoded(output), decoded, 0, ""):
            if type(args) is _WrongArgs:
                problems.append((place, f"the call of {name!r} asks with {args}"))
                continue
            if call_id is not None:
                if call_id in seen:
                    continue
                seen.add(call_id)
            calls.append(
                ModelCall(
                    name,
                    call_id,
                    args,
                    rank,
                    own if type(own) is str else None,
                    parent if type(parent) is str else None,
                )
            )
    return ModelCalls(calls, problems)


def _calls(
    value: Any, decoded: Callable[[Any], Any], depth: int, key: str
) -> Iterator[tuple[str, str | None, Any]]:
    """``(name, id, args)`` of each call in a model's reply (``key``: the key it is under)."""
    if depth > _DEPTH:
        return
    if isinstance(value, Mapping):
        call = _call(value, key)
        if call is not None:
            yield call
            return
        for inner, item in value.items():
            if isinstance(item, Mapping | list):
                yield from _calls(item, decoded, depth + 1, inner if type(inner) is str else "")
            elif inner in _TEXTS and type(item) is str and _MARKED(item) is not None:
                yield from _calls(decoded(item), decoded, depth + 1, "")  # as text (Koog)
    elif isinstance(value, list):
        for item in value:
            yield from _calls(item, decoded, depth + 1, key)


def _call(value: Mapping[str, Any], key: str) -> tuple[str, str | None, Any] | None:
    """A call in one of the shapes of the module's list (its args :data:`_UNSAID` where the
    reply gives none, a :class:`_WrongArgs` where they are of a type the shape never holds),
    else ``None``."""
    kind = value.get("type")
    function = value.get("function")
    # whether the shape's args are an object (or, as a layer such as Langfuse's may keep them,
    # its JSON text): else any JSON value (OpenTelemetry's parts, the Vercel AI SDK's input)
    typed = True
    if isinstance(function, Mapping) and _named(function) and _asked(function, value):
        name, args, call_id = function["name"], function.get("arguments", _UNSAID), value.get("id")
    elif key in _GEMINI_KEYS and _named(value):  # (and Chat Completions' old function_call)
        name, call_id = value["name"], value.get("id")
        args = value["args"] if "args" in value else value.get("arguments", _UNSAID)
    elif key in ("tool_calls", "toolCalls") and _named(value):  # LangChain's {name, args, id}
        name, args, call_id = value["name"], value.get("args", _UNSAID), value.get("id")
    elif kind == "tool_use" and _named(value):
        name, args, call_id = value["name"], value.get("input", _UNSAID), value.get("id")
    elif kind == "tool_call" and _named(value):  # OpenTelemetry's part: any value
        name, args, call_id = value["name"], value.get("arguments", _UNSAID), value.get("id")
        typed = False
    elif kind == "function_call" and _named(value):
        name, args, call_id = value["name"], value.get("arguments", _UNSAID), value.get("call_id")
    elif type(value.get("toolName")) is str and value["toolName"] and "toolCallId" in value:
        name, call_id = value["toolName"], value["toolCallId"]
        args = value["input"] if "input" in value else value.get("args", _UNSAID)
        typed = False
    else:
        return None
    if args is _UNSAID:
        return name, gen_ai_call_id(call_id), args
    if typed and wrong_typed_args(args, CHAT_ARGUMENTS):
        return (
            name,
            gen_ai_call_id(call_id),
            _WrongArgs(
                f"arguments of type {type(args).__name__}, not an object nor JSON text of one"
            ),
        )
    return name, gen_ai_call_id(call_id), json_args(args)


class _WrongArgs(str):
    """Why a request's args are of a type its shape never holds (a problem, R35)."""

    __slots__ = ()


def _asked(function: Mapping[str, Any], call: Mapping[str, Any]) -> bool:
    """A Chat Completions call, not a tool's definition (``{"type": "function", "function":
    {"name", "parameters"}}``): it has arguments or an id."""
    return "arguments" in function or "id" in call


def _named(value: Mapping[str, Any]) -> bool:
    name = value.get("name")
    return type(name) is str and bool(name)
