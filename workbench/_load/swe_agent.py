"""SWE-agent trajectories (``.traj``) as promoted runs (SPEC R34-R36).

A ``.traj`` file is one object with ``history[]`` (the model's messages in chat form),
``trajectory[]`` (one step a call: action, observation, thought), ``info`` (``exit_status``,
``submission``, model stats) and ``environment``. In ``history`` an assistant message's
``tool_calls[]`` (OpenAI shape, ``function.arguments`` a JSON string) are the calls, and a
``tool`` message answers each id in its ``tool_call_ids`` list. Ids may be reused once answered
(replayed demonstrations reuse them), which R2 allows.

SWE-agent before 1.0 (and EnIGMA) kept no tool calls in ``history``: the model wrote its
command in the text. Such a file's calls are its ``trajectory`` steps: each step's ``action``
is a call (tool: the action's first word, ``find_file``, ``edit``, ``submit``; args
``{"command": action}``; id ``step-N``) and its ``observation`` the result. A file holding only
``history`` (a demonstration) is read like a whole one.

SWE-agent records no failure flag: an observation is text. So, as for OpenAI chat, the
caller's error rule decides (R36), e.g. ``--error-regex "introduced new syntax error|command
not found"``. ``submit`` ends the run (R36): with no tool message it is not an unanswered call.
One file is one run; the answer is the submission.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .chat_walk import CallRead, chat_messages, model_turn
from .common import RecordTally, is_text_or_parts, json_args, refuse_result, text_of
from .conversation import ConversationBuilder
from .pairing import CallPairer
from .records import ErrorRule, LoadProblem, PromotedRun

__all__ = ["load_swe_agent", "sniff_swe_agent"]

TERMINAL = frozenset({"submit", "exit_forfeit", "exit"})


_MESSAGE_TYPES = frozenset({"system_prompt", "observation", "action", "thought", "demonstration"})


def _is_message_type(value: Any) -> bool:
    return type(value) is str and value in _MESSAGE_TYPES


def sniff_swe_agent(data: Any) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("history"), list):
        return False
    if isinstance(data.get("trajectory"), list) and isinstance(data.get("info"), dict):
        return True
    # a demonstration: history alone, in SWE-agent's own message shape
    return any(
        isinstance(m, dict)
        and "role" in m
        and ("tool_call_ids" in m or _is_message_type(m.get("message_type")))
        for m in data["history"][:50]
    )


def load_swe_agent(
    data: Any, file: str, rule: ErrorRule
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    pairer = CallPairer(file)
    tally = RecordTally()
    talk = ConversationBuilder()

    def read(call: Any, where: str) -> CallRead | None:
        function = call.get("function") if isinstance(call, dict) else None
        call_id = call.get("id") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            pairer.problem(where, "function.name", "missing or not a string")
            return None
        if not isinstance(call_id, str) or not call_id:
            pairer.problem(where, "id", "missing or not a string")
            return None
        return CallRead(call_id, function["name"], json_args(function.get("arguments")))

    history_calls = False  # whether history holds tool calls (SWE-agent 1.x)
    for where, message, role, text in chat_messages(
        data["history"], "history", pairer, tally, text_of
    ):
        agent = message.get("agent") if isinstance(message.get("agent"), str) else None
        if model_turn(role, text, message, where, pairer, talk, read, agent=agent):
            history_calls = True
        if role == "tool":
            call_ids = message.get("tool_call_ids")
            if isinstance(message.get("tool_call_id"), str):
                call_ids = [message["tool_call_id"]]
            if not isinstance(call_ids, list) or not call_ids:
                pairer.problem(where, "tool_call_ids", "missing or not a list of call ids")
                continue
            failed = rule.matches(text)
            wrong = not is_text_or_parts(message.get("content"))  # R35: not an empty success
            for call_id in call_ids:
                if not isinstance(call_id, str):
                    pairer.problem(where, "tool_call_ids", "a call id must be a string")
                    continue
                if wrong:  # (SWE-agent writes text, or content parts beside an image)
                    refuse_result(pairer, call_id, where, "content", "not text or content parts")
                    continue
                pairer.result(
                    call_id,
                    message.get("content"),
                    failed,
                    where=where,
                    field_name="tool_call_ids",
                    error_message=text if failed else None,
                )
                talk.tool(call_id, text, failed)
    steps = data.get("trajectory")
    if not isinstance(steps, list):
        steps = []
    if not history_calls and steps:
        talk = _preamble(data["history"])
        _trajectory_steps(steps, pairer, tally, rule, talk)
    elif history_calls and _last_step_unrecorded(steps, data["history"]):
        # SWE-agent 1.0 ends a run with its submit step out of history: read from the
        # trajectory, as a 0.x step (it was dropped with no record, R35)
        _trajectory_steps(steps, pairer, tally, rule, talk, start=len(steps) - 1)
    boundaries = pairer.finish(TERMINAL)
    info = data.get("info")
    if not isinstance(info, dict):
        info = {}
    metadata: dict[str, Any] = {"info": info, "environment": data.get("environment")}
    metadata.update(tally.to_metadata())
    metadata["trajectorySteps"] = len(steps)
    if pairer.terminal_calls:
        metadata["terminalCalls"] = pairer.terminal_calls
    run = PromotedRun(
        run_id=str(data.get("environment") or "trajectory"),
        boundaries=boundaries,
        source=file,
        format="swe-agent",
        error_rule=rule,
        outcome="completed" if info.get("exit_status") in (None, "submitted") else "failed",
        answer=info.get("submission"),
        task_key="trajectory",
        metadata=metadata,
        conversation=talk.build(None, _model(data)),
    )
    return [run], pairer.problems


def _preamble(history: list[Any]) -> ConversationBuilder:
    """A conversation holding what the model read before its first turn (system prompt,
    demonstration, the issue): the start of a 0.x trajectory's conversation."""
    talk = ConversationBuilder()
    for message in history:
        role = message.get("role") if isinstance(message, dict) else None
        if role == "assistant":
            break
        text = text_of(message.get("content")) if isinstance(message, dict) else ""
        if role == "system":
            talk.system(text)
        elif role == "user":
            talk.user(text)
    return talk


def _trajectory_steps(
    steps: list[Any],
    pairer: CallPairer,
    tally: RecordTally,
    rule: ErrorRule,
    talk: ConversationBuilder,
    start: int = 0,
) -> None:
    """The calls of a trajectory whose history holds none (SWE-agent before 1.0): each step's
    ``action`` and its ``observation``; in the conversation, the step's thought with its call,
    then the observation as the call's result (R40). ``start``: the first step read."""
    for index in range(start, len(steps)):
        step = steps[index]
        where = f"trajectory[{index}]"
        if not isinstance(step, dict):
            pairer.problem(where, "", "a step must be an object")
            continue
        action = step.get("action")
        if not isinstance(action, str):
            pairer.problem(where, "action", "missing or not a string")
            continue
        command = action.strip()
        if not command:
            tally.add("step:empty")  # the model wrote no command (a format error)
            continue
        tally.add("step")
        call_id = f"step-{index}"
        tool = command.split(None, 1)[0]
        args = {"command": command}
        pairer.call(call_id, tool, args, where=where, field_name="action")
        thought = step.get("thought")
        talk.assistant(
            thought.strip() or None if isinstance(thought, str) else None,
            [{"id": call_id, "name": tool, "args": args}],
        )
        observation = step.get("observation")
        if observation is None and tool in TERMINAL:
            continue  # ends the run (R36)
        if not isinstance(observation, str):
            pairer.problem(where, "observation", "missing or not a string")
            pairer.discard(call_id)
            continue
        failed = rule.matches(observation)
        pairer.result(
            call_id,
            observation,
            failed,
            where=where,
            field_name="observation",
            error_message=observation if failed else None,
        )
        talk.tool(call_id, observation, failed)


def _last_step_unrecorded(steps: list[Any], history: list[Any]) -> bool:
    """Whether a 1.x trajectory's last step is a terminal action (``submit``) that its history
    does not hold: more steps than the history's tool calls (one a step in 1.x)."""
    last = steps[-1] if steps else None
    action = last.get("action") if isinstance(last, dict) else None
    if not isinstance(action, str) or action.strip().split(None, 1)[:1] != ["submit"]:
        return False
    made = sum(
        len(m["tool_calls"])
        for m in history
        if isinstance(m, dict) and isinstance(m.get("tool_calls"), list)
    )
    return len(steps) > made


def _model(data: Mapping[str, Any]) -> str | None:
    import json

    config = data.get("replay_config")
    if isinstance(config, str):
        try:
            config = json.loads(config)
        except json.JSONDecodeError:
            return None
    agent = config.get("agent") if isinstance(config, dict) else None
    model = agent.get("model") if isinstance(agent, dict) else None
    name = model.get("name") if isinstance(model, dict) else None
    return name if isinstance(name, str) else None
