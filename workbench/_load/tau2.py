"""tau2-bench results as promoted runs (SPEC R34-R36).

A results file is one object with ``info``, ``tasks[]`` and ``simulations[]``; leaderboard
submissions also come as the ``simulations[]`` array alone, or wrapped in a submitter's own object
(``{domain, agent, model, simulations}``), and forks save one simulation a file; all told by
their first (or only) simulation (``messages`` beside
``task_id`` and ``termination_reason``/``reward_info``). Each simulation is a run (task key
``task-<task_id>-trial-<trial>``). In a simulation's ``messages[]`` an
``assistant`` message's ``tool_calls[]`` (``{id, name, arguments, requestor}``) are calls, and a
``user`` message's too: the user simulator has tools in some domains (telecom), and its calls
are boundaries whose ``agent_id`` is ``user`` (the requestor, R34). A ``tool`` message answers
the open call of its ``id`` (tau2 puts the call id in ``id``, not ``tool_call_id``) and failed
when ``error`` is true (a non-boolean ``error`` is a problem, R35). tau2 always writes
``error``; a tool message without it (a submitter's own writer that dropped the member) has no
flag, and the caller's error rule decides (R3; the default ``Error:`` is tau2's own wording for
a tool that raised), recorded as the run's rule. Ids repeat once answered
(``gem_book_reservation_0`` three times in one simulation), which R2 allows.

The run's answer is the last assistant text with no call beside it; its metadata keeps the
simulation's reward and termination reason. The conversation (R40) is the agent's view: system
policy is not recorded in results, user turns are the simulator's texts.

A full-duplex (voice) simulation records ``ticks`` instead of ``messages``; they are read as the
messages tau2 derives from them (:mod:`.tau2_ticks`). The ``results.json`` of a run saved as a
folder (its simulations files in ``simulations/``) holds none and is refused for what it is (R35).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from .chat_walk import CallRead, chat_messages, read_tool_calls
from .common import CallIds, RecordTally, json_args, read_flag, refuse_result, text_of
from .conversation import ConversationBuilder
from .messages import record_key
from .pairing import CallPairer
from .records import DEFAULT_ERROR_RULE, ErrorRule, LoadProblem, PromotedRun
from .tau2_ticks import TICK_CALLS, Step, is_split_results, is_tick_simulation, tick_steps

__all__ = ["load_tau2", "load_tau2_files", "sniff_tau2"]


def sniff_tau2(data: Any) -> bool:
    if isinstance(data, list):  # the simulations alone (a leaderboard submission's file)
        return bool(data) and _is_simulation(data[0])
    if _is_simulation(data):  # one simulation saved on its own
        return True
    if is_split_results(data):  # a folder's results.json: refused for what it is (R35)
        return True
    if not isinstance(data, dict) or not isinstance(data.get("simulations"), list):
        return False
    if "tasks" in data or "info" in data:
        return True
    sims = data["simulations"]  # a submitter's own wrapper: {domain, agent, model, simulations}
    return bool(sims) and _is_simulation(sims[0])


def _is_simulation(value: Any) -> bool:
    """Whether a value is a tau2 simulation: its ``messages`` (or a full-duplex run's ``ticks``)
    and what only tau2 records beside them (the task it ran and how it ended)."""
    return (
        isinstance(value, dict)
        and (isinstance(value.get("messages"), list) or is_tick_simulation(value))
        and "task_id" in value
        and ("termination_reason" in value or "reward_info" in value)
    )


def load_tau2(
    data: Any, file: str, rule: ErrorRule = DEFAULT_ERROR_RULE
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    if _is_simulation(data):  # one simulation on its own: its places start at its messages
        run, found = _simulation(data, "", file, 0, 1, {}, rule)
        return [run], found
    if isinstance(data, list):
        data = {"simulations": data}
    if is_split_results(data):
        message = (
            "a tau2-bench results.json saved as a folder holds no simulation: each is a file "
            "of simulations/ beside it; load the folder (or one of those files)"
        )
        return [], [LoadProblem(file, "(root)", "simulations", message)]
    simulations = data.get("simulations") if isinstance(data, dict) else None
    if not isinstance(simulations, list):
        return [], [LoadProblem(file, "(root)", "simulations", "not a tau2-bench results file")]
    info = data.get("info") if isinstance(data.get("info"), dict) else {}
    if not info and isinstance(data.get("model"), str):  # a wrapper naming the agent's model
        info = {"agent_info": {"llm": data["model"]}}
    runs: list[PromotedRun] = []
    problems: list[LoadProblem] = []
    for s_index, sim in enumerate(simulations):
        where = f"simulations[{s_index}]"
        if not isinstance(sim, dict) or not (
            isinstance(sim.get("messages"), list) or is_tick_simulation(sim)
        ):
            problems.append(LoadProblem(file, where, "messages", "a simulation needs messages"))
            continue
        run, found = _simulation(sim, where, file, s_index, len(simulations), info, rule)
        runs.append(run)
        problems.extend(found)
    return runs, problems


def load_tau2_files(
    simulations: Sequence[tuple[str, Any]], info: Mapping[str, Any], rule: ErrorRule
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """Simulations saved a file each (``simulations/<id>.json`` of a run saved as a folder):
    a run each, placed in its own file, with the run's ``info`` (its ``results.json``)."""
    runs: list[PromotedRun] = []
    problems: list[LoadProblem] = []
    for number, (file, sim) in enumerate(simulations):
        if not _is_simulation(sim):
            problems.append(LoadProblem(file, "(root)", "", "not a tau2-bench simulation"))
            continue
        run, found = _simulation(sim, "", file, number, len(simulations), info, rule)
        runs.append(run)
        problems.extend(found)
    return runs, problems


def _simulation(
    sim: Mapping[str, Any],
    place: str,
    file: str,
    number: int,
    total: int,
    info: Mapping[str, Any],
    rule: ErrorRule,
) -> tuple[PromotedRun, list[LoadProblem]]:
    pairer = CallPairer(file)
    ruled = False  # a tool message had no error flag: the rule decided
    ids = CallIds(f"tau2-{number}")
    tally = RecordTally()
    talk = ConversationBuilder()
    answer: Any = None

    def read(call: Any, where: str) -> CallRead | None:
        if not isinstance(call, dict) or not isinstance(call.get("name"), str):
            pairer.problem(where, "name", "missing or not a string")
            return None
        if not isinstance(call.get("arguments", {}), dict | str):  # R35: tau2 writes an object
            refused = ids.for_call(call.get("id"))  # its result is dropped with it
            pairer.refuse(refused, where, "arguments", "not an object (nor JSON text)")
            return None
        requestor = call.get("requestor")  # a user simulator's call names it
        extra = {k: v for k, v in call.items() if k not in ("id", "name", "arguments")}
        return CallRead(
            ids.for_call(call.get("id")),
            call["name"],
            json_args(call.get("arguments")),
            extra,
            requestor if isinstance(requestor, str) else None,
        )

    prefix = f"{place}." if place else ""
    ticked = is_tick_simulation(sim)
    steps: Iterator[Step] = (
        tick_steps(sim["ticks"], f"{prefix}ticks", pairer, tally)
        if ticked
        else chat_messages(sim["messages"], f"{prefix}messages", pairer, tally, text_of)
    )
    if not ticked and sim.get("ticks"):  # R35: both kept, one read, said so
        said = "not read: the simulation's messages are (tau2 derives them from its ticks)"
        pairer.problem(f"{prefix}ticks", "", said)
    for where, message, role, text in steps:
        if role in ("assistant", "user"):
            member = TICK_CALLS[role] if ticked else "tool_calls"  # (a tick's side: at its tick)
            made = read_tool_calls(message, where, pairer, read, agent=str(role), member=member)
            if made is None:
                continue
            if role == "assistant":
                talk.assistant(text or None, made)
                if made:
                    answer = None
                elif text:
                    answer = text
            elif text or made:
                talk.user(text)
                if made:  # the user simulator's own calls, which the agent does not see
                    talk.messages[-1]["x-toolCalls"] = made
        elif role == "tool":
            answered = ids.for_result(message.get("id"))
            if answered is None:
                pairer.problem(where, "id", "missing or not a string")
                continue
            if "error" in message:
                failed = read_flag(message["error"], pairer, where, "error", null=True)
                if failed is None:
                    pairer.discard(answered)
                    continue
            else:
                failed, ruled = rule.matches(text), True
            content = message.get("content")
            if content is not None and not isinstance(content, str):  # R35: tau2 writes text
                refuse_result(pairer, answered, where, "content", "not text or null")
                continue
            pairer.result(
                answered,
                content,
                failed,
                where=where,
                field_name="id",
                error_message=(text or "tool call failed") if failed else None,
            )
            if message.get("requestor", "assistant") == "assistant":
                talk.tool(answered, text, failed)
        elif role == "system":
            talk.system(text)
    boundaries = pairer.finish()
    record = {"task_id": sim.get("task_id"), "trial": sim.get("trial")}
    key = record_key(record, number, total)
    reward = sim.get("reward_info")
    metadata: dict[str, Any] = {
        k: sim[k] for k in ("id", "task_id", "trial", "termination_reason", "seed") if k in sim
    }
    if isinstance(reward, dict):
        metadata["reward"] = reward.get("reward")
    metadata.update(tally.to_metadata())
    model = _model(info)
    run = PromotedRun(
        run_id=str(sim.get("id") or key),
        boundaries=boundaries,
        source=file,
        format="tau2-bench",
        error_rule=rule if ruled else None,
        outcome="completed",
        answer=answer,
        task_key=key,
        metadata=metadata,
        conversation=talk.build(None, model),
    )
    return run, pairer.problems


def _model(info: Mapping[str, Any]) -> str | None:
    agent = info.get("agent_info")
    llm = agent.get("llm") if isinstance(agent, dict) else None
    return llm if isinstance(llm, str) else None
