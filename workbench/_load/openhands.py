"""OpenHands event streams as promoted runs (SPEC R34-R36).

An exported session is a JSON array of events ``{id, timestamp, source, message?, action |
observation, args | (content, extras, cause, success), tool_call_metadata?}`` (or an object
holding it under ``events``/``history``). An action event with ``tool_call_metadata``
(``function_name``, ``tool_call_id``) is a call (tool ``function_name``, args ``args``); the
observation event whose ``cause`` is that action's ``id`` is its result. It failed when its
``success`` is false (a non-boolean ``success`` is a problem, R35), when its
``extras.metadata.exit_code`` is non-zero (R36: a coding agent's exit codes; the error code is
``exit_code:N``), or when it is an ``error`` observation. ``finish`` ends the run (R36): it has
no observation by design, and its ``final_thought`` (or ``outputs``) is the answer.

Events without tool metadata (``message`` actions, ``change_agent_state``, state-change and
``null`` observations, user and environment events) are counted as non-tool records (R35).

OpenHands before function calling (CodeAct of 2024) gave no action ``tool_call_metadata``. In
a stream where no action has it, an action of a tool kind (``run``, ``run_ipython``, ``browse``,
``read``, ``write``, ``edit``, ...: any but :data:`_NOT_CALLS`) is a call of the tool its
``action`` names, with a made-up id (``action-<event id>``). It is answered by the observation
whose ``cause`` is its ``id``, or, in the flattened form ``event_to_memory`` wrote (the 2024
resolver's ``output.jsonl``: no ``id``, ``source`` or ``cause``, the args and extras among the
event's own members), by the next observation, in call order. Exit codes are read where those
versions kept them too (``extras.exit_code``, a flattened event's ``exit_code``).

The OpenHands agent SDK's events (OpenHands V1) are read by ``openhands_sdk``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .common import RecordTally, json_args, json_kind, read_flag, refuse_result, text_of
from .conversation import ConversationBuilder
from .openhands_sdk import (
    TERMINAL,
    classic_clipped,
    command_text,
    is_sdk_events,
    load_openhands_sdk,
    session_run,
)
from .pairing import CallPairer
from .records import LoadProblem, PromotedRun

__all__ = ["load_openhands", "openhands_events", "sniff_openhands"]

_NOT_CALLS = frozenset(
    {
        "message",
        "system",
        "null",
        "pause",
        "resume",
        "stop",
        "change_agent_state",
        "recall",
        "condensation",
        "condensation_request",
        "reject",
        "start",
    }
)
"""Action kinds that are no tool call (in a stream whose actions have no tool metadata)."""
_NOT_ANSWERS = frozenset({"null", "agent_state_changed", "recall", "user_rejected"})
"""Observation kinds that answer no call (in the flattened form, which links none)."""


def openhands_events(data: Any) -> list[Any] | None:
    if isinstance(data, dict):
        for key in ("events", "history"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
        else:
            return None
    if not isinstance(data, list) or not data:
        return None
    if all(_is_pair(item) for item in data):  # 2024 evaluations: [[action, observation], ...]
        return [event for number, pair in enumerate(data) for event in _linked(pair, number)]
    return data


def _linked(pair: list[Any], number: int) -> list[Any]:
    """A pair's action and observation, the observation's ``cause`` its action's ``id`` (one
    made up, ``pair-<n>``, where the events have none): each pair's observation answers its own
    action, a ``null`` one none (the action then never answered, not answered by the next)."""
    action, observation = pair
    if observation.get("cause") is not None or observation.get("observation") == "null":
        return pair
    if not _is_key(action.get("id")):
        action = {**action, "id": f"pair-{number}"}
    return [action, {**observation, "cause": action["id"]}]


def _is_pair(item: Any) -> bool:
    return (
        type(item) is list
        and len(item) == 2
        and isinstance(item[0], dict)
        and "action" in item[0]
        and isinstance(item[1], dict)
        and "observation" in item[1]
    )


def sniff_openhands(data: Any) -> bool:
    events = openhands_events(data)
    if events is None:
        return False
    heads = events[:50]
    for event in heads:
        if (
            isinstance(event, dict)
            and "source" in event
            and ("action" in event or "observation" in event)
        ):
            return True
    # the flattened form (event_to_memory): actions and observations apart, and no chat role
    # (SWE-agent's trajectory steps have both an action and an observation, its history roles)
    kinds = [_flat_kind(event) for event in heads]
    return "action" in kinds and "observation" in kinds and None not in kinds


def _flat_kind(event: Any) -> str | None:
    """``action`` or ``observation`` for an event of the flattened form, else ``None`` (a
    message of the task, first in the 2024 resolver's history, has ``action: message``)."""
    if not isinstance(event, dict) or "role" in event:
        return None
    action, observation = event.get("action"), event.get("observation")
    if isinstance(action, str) and observation is None:
        return "action"
    if isinstance(observation, str) and action is None:
        return "observation"
    return None


def load_openhands(data: Any, file: str) -> tuple[list[PromotedRun], list[LoadProblem]]:
    events = openhands_events(data) or []
    if is_sdk_events(events):
        return load_openhands_sdk(events, file)
    pairer = CallPairer(file)
    tally = RecordTally()
    talk = ConversationBuilder()
    by_event: dict[Any, tuple[str, str]] = {}  # action event id -> (call id, tool)
    legacy = not any(
        isinstance(e, dict) and "action" in e and isinstance(e.get("tool_call_metadata"), dict)
        for e in events
    )
    in_order: list[tuple[str, str]] = []  # legacy calls of no event id, answered in order
    answer: Any = None
    model: str | None = None
    outcome = "completed"
    for index, event in enumerate(events):
        where = f"[{index}]"
        if not isinstance(event, dict):
            pairer.problem(where, "", "an event must be an object")
            continue
        meta = event.get("tool_call_metadata")
        if "action" in event:
            kind = f"action:{_name(event.get('action'))}"
            if not isinstance(meta, dict):
                tally.add(kind)
                if legacy and _is_legacy_call(event):
                    answer = _legacy_call(event, index, pairer, talk, by_event, in_order) or answer
                else:
                    _message(event, talk, first=not pairer.calls_made)
                continue
            tally.add(kind)
            name = meta.get("function_name")
            call_id = meta.get("tool_call_id")
            if not isinstance(name, str) or not name:
                pairer.problem(where, "tool_call_metadata.function_name", "missing or not a string")
                continue
            if not isinstance(call_id, str) or not call_id:
                pairer.problem(where, "tool_call_metadata.tool_call_id", "missing or not a string")
                continue
            args = event.get("args")
            extra = {"action": event.get("action"), "eventId": event.get("id")}
            sent = _sent_arguments(meta, call_id)
            if sent is not None:  # what the model asked for (the action's are OpenHands' own)
                extra["actionArgs"] = args
                args = sent
            pairer.call(
                call_id,
                name,
                args,
                where=where,
                field_name="tool_call_metadata.tool_call_id",
                agent_id=_str(event.get("source")),
                extra=extra,
            )
            event_id = event.get("id")
            if _is_key(event_id):  # an id an observation can name as its cause
                by_event[event_id] = (call_id, name)
            thought = args.get("thought") if isinstance(args, dict) else None
            talk.assistant(
                thought if isinstance(thought, str) and thought else None,
                [{"id": call_id, "name": name, "args": args}],
                turn=_response_field(meta, "id"),
            )
            if model is None:
                model = _response_field(meta, "model")
            if name in TERMINAL:
                answer = _final(args)
        elif "observation" in event:
            tally.add(f"observation:{_name(event.get('observation'))}")
            cause = event.get("cause")
            linked = by_event.pop(cause, None) if _is_key(cause) else None
            if (  # the flattened form (legacy): the next call in order
                linked is None
                and in_order
                and cause is None
                and event.get("observation") not in _NOT_ANSWERS
            ):
                linked = in_order.pop(0)
            if linked is None:
                if isinstance(meta, dict):
                    pairer.problem(where, "cause", f"observation of no open call (cause {cause!r})")
                continue
            call_id, name = linked
            success = read_flag(event.get("success"), pairer, where, "success", absent=True)
            if success is None:
                pairer.discard(call_id)
                continue
            if type(event.get("content", "")) is not str:  # R35: an observation's is text
                refuse_result(pairer, call_id, where, "content", "not text")
                continue
            failed = not success
            code: str | None = None
            flat = "extras" not in event and "source" not in event  # (event_to_memory's form)
            extras = _flat_extras(event) if flat else event.get("extras")
            field, exit_code = _exit_code(extras)
            if exit_code is not None and type(exit_code) is not int:  # R35: OpenHands' is int
                at = field if flat else f"extras.{field}"
                pairer.problem(where, at, f"{json_kind(exit_code)}, not an integer")
                pairer.discard(call_id)
                continue
            if exit_code is not None and exit_code != 0:
                failed = True
                code = f"exit_code:{exit_code}"
            if event.get("observation") == "error":
                failed = True
                code = code or "error"
            text = text_of(event.get("content"))
            response = event.get("content")
            said = (
                command_text(text, extras.get("metadata"))
                if event.get("observation") == "run" and isinstance(extras, dict)
                else None
            )
            if said is not None:  # what the model was told of a command (R42), not the stored
                response = text = classic_clipped(said)
            pairer.result(
                call_id,
                response,
                failed,
                where=where,
                field_name="cause",
                error_code=code,
                error_message=(text or "tool call failed") if failed else None,
                extra={"observation": event.get("observation"), "extras": extras}
                | ({"recordedContent": event.get("content")} if said is not None else {}),
            )
            talk.tool(call_id, text, failed, name)
        else:
            tally.other("event", event)
    run = session_run(pairer, tally, talk, file, answer=answer, outcome=outcome, model=model)
    return [run], pairer.problems


def _name(kind: Any) -> str:
    """An action's or observation's name for the record count (a string, else its type)."""
    return kind if isinstance(kind, str) else type(kind).__name__


def _is_key(value: Any) -> bool:
    """Whether an event id (or a ``cause``) can link events: a string or an integer (a list or
    an object cannot, and is not hashable either)."""
    return isinstance(value, str | int) and not isinstance(value, bool)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _sent_arguments(meta: Mapping[str, Any], call_id: str) -> Any:
    """The arguments the model gave the call, from the model response the action came from
    (``tool_call_metadata.model_response.choices[].message.tool_calls[]`` of its id, JSON text
    decoded); ``None`` where the response is not kept. The action's ``args`` are what OpenHands
    made of them (an edit's ``content``, ``impl_source``), not what the model sent."""
    response = meta.get("model_response")
    choices = response.get("choices") if isinstance(response, dict) else None
    for choice in choices if isinstance(choices, list) else ():
        message = choice.get("message") if isinstance(choice, dict) else None
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for call in calls if isinstance(calls, list) else ():
            function = call.get("function") if isinstance(call, dict) else None
            if isinstance(function, dict) and call.get("id") == call_id:
                arguments = function.get("arguments")
                return json_args(arguments) if arguments is not None else None
    return None


def _response_field(meta: Mapping[str, Any], key: str) -> str | None:
    """A member of the model response an action came from (its ``id``, its ``model``)."""
    response = meta.get("model_response")
    value = response.get(key) if isinstance(response, dict) else None
    return value if isinstance(value, str) and value else None


def _message(event: Mapping[str, Any], talk: ConversationBuilder, *, first: bool) -> None:
    """A message action as a turn: the user's or the agent's by its ``source``; in the
    flattened form, which has none, the user's before the first call (the task) and the
    agent's after."""
    if event.get("action") != "message":
        return
    args = event.get("args")
    text = args.get("content") if isinstance(args, dict) else None
    if not isinstance(text, str):
        for key in ("message", "content"):  # (a flattened message keeps its content so)
            if isinstance(event.get(key), str):
                text = event[key]
                break
        else:
            text = ""
    source = event.get("source") if "source" in event else ("user" if first else "agent")
    if source == "user":
        talk.user(text or "")
    elif source == "agent":
        talk.assistant(text or None)


def _is_legacy_call(event: Mapping[str, Any]) -> bool:
    """An action of a tool kind with no tool metadata (OpenHands before function calling)."""
    kind = event.get("action")
    return isinstance(kind, str) and bool(kind) and kind not in _NOT_CALLS


def _legacy_call(
    event: Mapping[str, Any],
    index: int,
    pairer: CallPairer,
    talk: ConversationBuilder,
    by_event: dict[Any, tuple[str, str]],
    in_order: list[tuple[str, str]],
) -> Any:
    """One call of OpenHands before function calling (see the module); its answer, when it is
    ``finish``."""
    name = str(event["action"])
    event_id = event.get("id")
    keyed = _is_key(event_id)
    call_id = f"action-{event_id if keyed else index}"
    args = event.get("args") if "args" in event else _flat_extras(event, "action")
    pairer.call(
        call_id,
        name,
        args,
        where=f"[{index}]",
        field_name="action",
        agent_id=_str(event.get("source")),
        extra={"action": name, "eventId": event_id} if keyed else {"action": name},
    )
    thought = args.get("thought") if isinstance(args, dict) else None
    talk.assistant(
        thought if isinstance(thought, str) and thought else None,
        [{"id": call_id, "name": name, "args": args}],
    )
    if name in TERMINAL:
        return _final(args)
    if keyed:
        by_event[event_id] = (call_id, name)
    else:
        in_order.append((call_id, name))
    return None


def _flat_extras(event: Mapping[str, Any], kind: str = "observation") -> dict[str, Any]:
    """A flattened event's own members, less its kind, the link a pair gave it (``id``,
    ``cause``) and an observation's content."""
    skip = {kind, "id", "cause", "content"} if kind == "observation" else {kind, "id", "cause"}
    return {k: v for k, v in event.items() if k not in skip}


def _exit_code(extras: Any) -> tuple[str, Any]:
    """The exit code's field and value (``None``: none): ``extras.metadata.exit_code`` (0.14
    and later), else ``extras.exit_code`` (earlier, and a flattened event's own)."""
    meta = extras.get("metadata") if isinstance(extras, dict) else None
    if isinstance(meta, dict):
        return "metadata.exit_code", meta.get("exit_code")
    return "exit_code", (extras.get("exit_code") if isinstance(extras, dict) else None)


def _final(args: Any) -> Any:
    keys = ("final_thought", "message", "outputs", "thought") if isinstance(args, dict) else ()
    return next((args[key] for key in keys if args.get(key)), None)
