"""SWE-agent trajectories (``.traj``) as promoted runs (SPEC R34-R36).

A ``.traj`` file is one object with ``history[]`` (the model's messages in chat form),
``trajectory[]`` (one step a call: action, observation, thought), ``info`` (``exit_status``,
``submission``, model stats) and ``environment``. In ``history`` an assistant message's
``tool_calls[]`` (OpenAI shape, ``function.arguments`` a JSON string) are the calls, and a
``tool`` message answers each id in its ``tool_call_ids`` list. Ids may be reused once answered
(replayed demonstrations reuse them), which R2 allows.

SWE-agent records no failure flag: an observation is text. So, as for OpenAI chat, the
caller's error rule decides (R36), e.g. ``--error-regex "introduced new syntax error|command
not found"``. ``submit`` ends the run (R36): with no tool message it is not an unanswered call.
One file is one run; the answer is the submission.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .chat_walk import CallRead, chat_messages, model_turn
from .common import RecordTally, json_args, text_of
from .conversation import ConversationBuilder
from .pairing import CallPairer
from .records import ErrorRule, LoadProblem, PromotedRun

__all__ = ["load_swe_agent", "sniff_swe_agent"]

TERMINAL = frozenset({"submit", "exit_forfeit", "exit"})


def sniff_swe_agent(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and isinstance(data.get("history"), list)
        and isinstance(data.get("trajectory"), list)
        and isinstance(data.get("info"), dict)
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

    for where, message, role, text in chat_messages(
        data["history"], "history", pairer, tally, text_of
    ):
        agent = message.get("agent") if isinstance(message.get("agent"), str) else None
        model_turn(role, text, message, where, pairer, talk, read, agent=agent)
        if role == "tool":
            call_ids = message.get("tool_call_ids")
            if isinstance(message.get("tool_call_id"), str):
                call_ids = [message["tool_call_id"]]
            if not isinstance(call_ids, list) or not call_ids:
                pairer.problem(where, "tool_call_ids", "missing or not a list of call ids")
                continue
            failed = rule.matches(text)
            for call_id in call_ids:
                if not isinstance(call_id, str):
                    pairer.problem(where, "tool_call_ids", "a call id must be a string")
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
    boundaries = pairer.finish(TERMINAL)
    info = data["info"]
    metadata: dict[str, Any] = {"info": info, "environment": data.get("environment")}
    metadata.update(tally.to_metadata())
    metadata["trajectorySteps"] = len(data["trajectory"])
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
