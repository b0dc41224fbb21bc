"""AgentDojo results as promoted runs (SPEC R34-R36).

A result file (``runs/<pipeline>/<suite>/<user_task>/<attack>/<injection_task>.json``) is one
object with ``suite_name``, ``pipeline_name``, ``user_task_id``, ``injection_task_id`` and
``messages[]``. An assistant message's ``tool_calls[]`` (``{function, args, id}``) are calls; the
``tool`` message that follows answers by ``tool_call_id`` and failed when ``error`` is a
string (``"ValueError: ..."``; ``null`` on success; any other type is a problem, R35). Models
that return no ids (Gemini) leave every id ``""``: those calls pair with their results in
order. ``content`` is a string, or in newer versions a list of ``{"type": "text", "content"}``
blocks. One file is one run; its metadata keeps ``utility``, ``security`` and the injections.
DRIFT (SaFo-Lab's AgentDojo defence) writes the same results with the messages under
``conversations``. Suites built on AgentDojo's pipeline (agentdojo-L's ``airport_suite`` ...)
keep ``suite_name`` and ``pipeline_name`` but name the task ``task_id`` (with ``condition`` and
``seed``) and the run ``run_id``: the same messages, read the same way.

AgentDojo's tool loop (``ToolsExecutionLoop``) stops after ``max_iters`` rounds (15 by
default): a run that reached it ends with the model's last calls, which were never run (800 of
the 36,472 results of AgentDojo's own ``runs/``, each after 16 model turns). When a result
ends so and records no ``error`` (``null`` or empty; in Invariant Labs' export, under
``metadata`` with the result's other members), those calls are no problem: they are kept on
the run as ``terminalCalls``, each marked ``notRun: "the tool loop's step limit"`` (R36), and
the run's ``metadata.stepLimitReached`` is true. A call left open elsewhere is never
answered (R35), and so are the last calls of a result whose ``error`` is no string (``false``,
``0``: a problem, never read as no error).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._common.toolresult import text_content
from .chat_walk import CallRead, chat_messages, model_turn
from .common import (
    CHAT_ARGUMENTS,
    CallIds,
    RecordTally,
    is_text_or_parts,
    json_args,
    refuse_result,
    refuse_wrong_args,
)
from .conversation import ConversationBuilder
from .pairing import CallPairer
from .records import LoadProblem, PromotedRun

__all__ = ["load_agentdojo", "sniff_agentdojo"]

_ARGS = Mapping
"""What a call's ``args`` may be: AgentDojo's ``FunctionCall.args`` is a mapping."""


def sniff_agentdojo(data: Any) -> bool:
    if not isinstance(data, dict) or _messages_key(data) is None:
        return False
    facts = _facts(data)
    return "suite_name" in facts and ("user_task_id" in facts or "pipeline_name" in facts)


def _facts(data: dict[str, Any]) -> dict[str, Any]:
    """The result's own members (``suite_name``, ``user_task_id``, ...): at its root, or
    under ``metadata`` where Invariant Labs' export of AgentDojo's runs keeps them (its
    records: ``{"index", "messages", "metadata", "annotations"}``)."""
    inner = data.get("metadata")
    if "suite_name" not in data and isinstance(inner, dict) and "suite_name" in inner:
        return inner
    return data


def _messages_key(data: dict[str, Any]) -> str | None:
    """Where a result keeps its messages: ``messages``, or DRIFT's ``conversations``."""
    for key in ("messages", "conversations"):
        if isinstance(data.get(key), list):
            return key
    return None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, dict):
                value = block.get("content", block.get("text"))
                if isinstance(value, str):
                    parts.append(value)
            elif isinstance(block, str):
                parts.append(block)
        return "\n".join(parts)
    return ""


def load_agentdojo(data: Any, file: str) -> tuple[list[PromotedRun], list[LoadProblem]]:
    pairer = CallPairer(file)
    ids = CallIds("agentdojo")
    tally = RecordTally()
    talk = ConversationBuilder()
    answer: Any = None

    def read(call: Any, where: str) -> CallRead | None:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):  # the export's OpenAI-shaped call: {id, type, function}
            name, args = function.get("name"), function.get("arguments")
            if not isinstance(name, str) or not name:
                pairer.problem(where, "function.name", "missing or not a string")
                return None
            call_id = ids.for_call(call.get("id"))
            if refuse_wrong_args(
                args, CHAT_ARGUMENTS, pairer, call_id, where, "function.arguments"
            ):
                return None
            extra = {k: v for k, v in call.items() if k not in ("id", "function", "type")}
            return CallRead(call_id, name, json_args(args), extra)
        if not isinstance(call, dict) or not isinstance(function, str):
            pairer.problem(where, "function", "missing or not a string")
            return None
        call_id, args = ids.for_call(call.get("id")), call.get("args")
        # R35: a FunctionCall's args is a mapping (no member is read as before: no arguments)
        if refuse_wrong_args(args, _ARGS, pairer, call_id, where, "args", null="args" in call):
            return None
        extra = {k: v for k, v in call.items() if k not in ("id", "function", "args")}
        return CallRead(call_id, function, json_args(args), extra)

    def read_kept(call: Any, where: str) -> CallRead | None:
        made = read(call, where)
        if made is not None:
            last_calls.append(made)
        return made

    last_calls: list[CallRead] = []  # the calls of the last message, when the model made it
    key_of_messages = _messages_key(data) or "messages"
    last_place = f"{key_of_messages}[{len(data[key_of_messages]) - 1}]"
    for where, message, role, text in chat_messages(
        data[key_of_messages], key_of_messages, pairer, tally, _text
    ):
        reader = read_kept if where == last_place else read
        made = model_turn(role, text, message, where, pairer, talk, reader)
        if made is not None:  # an assistant turn: its last words, if it made no call
            if made:
                answer = None
            elif text and text != "None":
                answer = text
        elif role == "tool":
            answered = ids.for_result(message.get("tool_call_id"))
            if answered is None:
                pairer.problem(where, "tool_call_id", "no open call to answer")
                continue
            error = message.get("error")
            if error is not None and not isinstance(error, str):
                pairer.problem(where, "error", "must be a string or null")
                pairer.discard(answered)
                continue
            content = message.get("content")
            if content is not None and not is_text_or_parts(content):  # R35: no empty success
                refuse_result(pairer, answered, where, "content", "not text or a list of blocks")
                continue
            failed = bool(error)
            # the text the model was shown, as MCP text (AgentDojo's own blocks are
            # {"type": "text", "content": ...}, not MCP's {"type": "text", "text": ...})
            response = {"content": text_content(text)} if text or failed else {"content": []}
            if failed and not text:
                response = {"content": text_content(error or "")}
            kept = {"tool_call": message["tool_call"]} if "tool_call" in message else None
            pairer.result(
                answered,
                response,
                failed,
                where=where,
                field_name="tool_call_id",
                error_message=error if failed else None,
                extra=kept,
            )
            talk.tool(answered, (error or "") if failed and not text else text, failed)
    facts = _facts(data)  # (Invariant Labs' export keeps the result's error under metadata)
    run_error = facts.get("error")
    if run_error is not None and not isinstance(run_error, str):  # (R35: never a success)
        where = "(root)" if facts is data else "metadata"
        pairer.problem(where, "error", "must be a string or null: the run's calls stay open")
    stopped = run_error is None or run_error == ""  # no error: the loop's step limit, if any
    unrun = [c for c in last_calls if pairer.is_open(c.call_id)] if stopped else []
    for call in unrun:  # the tool loop stopped at its step limit before running them
        pairer.discard(call.call_id)
        said = {"callId": call.call_id, "tool": call.name, "args": call.args}
        pairer.terminal_calls.append({**said, "notRun": "the tool loop's step limit"})
    boundaries = pairer.finish()
    # upstream's task is suite/user task/injection task; a suite built on AgentDojo's
    # pipeline names it suite/task_id/condition and the run (one seed of it) run_id
    task = (
        ("user_task_id", "injection_task_id")
        if "user_task_id" in facts
        else ("task_id", "condition")
    )
    key = "-".join(str(facts[k]) for k in ("suite_name", *task) if facts.get(k) is not None)
    run_id = facts.get("run_id") if "user_task_id" not in facts else None
    metadata = {k: v for k, v in data.items() if k != key_of_messages}
    metadata.update(tally.to_metadata())
    if unrun:
        metadata["stepLimitReached"] = True
        metadata["terminalCalls"] = pairer.terminal_calls
    run = PromotedRun(
        run_id=run_id if isinstance(run_id, str) and run_id else key or "run",
        boundaries=boundaries,
        source=file,
        format="agentdojo",
        outcome="failed" if run_error else "completed",
        answer=answer,
        task_key=key or "run",
        metadata=metadata,
        conversation=talk.build(None, _model(facts.get("pipeline_name", facts.get("model")))),
    )
    return [run], pairer.problems


def _model(pipeline: Any) -> str | None:
    return pipeline if isinstance(pipeline, str) and pipeline else None
