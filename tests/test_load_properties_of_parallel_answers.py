"""Hypothesis properties of the loaders of R34 not covered by test_load_properties.py (SPEC R2,
R34, R35): parallel calls answered in any order, with the format's non-tool records anywhere it
allows them, give the same boundaries (none lost, none invented, each with its own result and
failure flag) in call order, and no problem. The recordings are generated here: SYNTHETIC.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench as wb

TOOLS = st.sampled_from(["bash", "read_file", "lookup", "get"])
ARGS = st.dictionaries(st.sampled_from(["a", "b", "cmd"]), st.integers(0, 9) | st.text(max_size=5))
CALLS = st.lists(st.tuples(TOOLS, ARGS, st.booleans()), min_size=1, max_size=8)
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
Calls = list[tuple[str, dict[str, Any], bool]]


def _load(name: str, value: Any, *, lines: bool = False) -> wb.LoadResult:
    text = "\n".join(json.dumps(v) for v in value) + "\n" if lines else json.dumps(value)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_text(text, encoding="utf-8")
        return wb.load_runs(path, strict=False)


def _facts(result: wb.LoadResult) -> list[tuple[str, str, Any, bool]]:
    return [(b.call_id, b.tool, b.args, b.is_error) for b in result.boundaries]


def _expected(calls: Calls, prefix: str) -> list[tuple[str, str, Any, bool]]:
    return [(f"{prefix}{i}", tool, args, failed) for i, (tool, args, failed) in enumerate(calls)]


def _check(result: wb.LoadResult, fmt: str, calls: Calls, prefix: str) -> None:
    assert result.format == fmt
    assert [str(p) for p in result.problems] == []
    assert _facts(result) == _expected(calls, prefix)
    texts = [
        wb.ToolResult.from_response(b.response, is_error=b.is_error).text for b in result.boundaries
    ]
    assert texts == [f"answer {i}" for i in range(len(calls))]  # each its own result


@SETTINGS
@given(CALLS, st.randoms(use_true_random=False))
def test_codex_outputs_and_exec_events_in_any_order_after_the_calls(
    calls: Calls, rng: random.Random
) -> None:
    """Outputs in any order; each ``exec_command_end`` anywhere; ``token_count`` events anywhere."""
    head: list[Any] = [{"type": "session_meta", "payload": {"id": "synthetic"}}]
    for i, (tool, args, _) in enumerate(calls):
        head.append(
            {
                "type": "response_item",
                "payload": {
                    "type": "function_call",
                    "name": tool,
                    "call_id": f"c{i}",
                    "arguments": json.dumps(args),
                },
            }
        )
    tail: list[Any] = []
    for i, (_, _, failed) in enumerate(calls):
        tail.append(
            {
                "type": "response_item",
                "payload": {
                    "type": "function_call_output",
                    "call_id": f"c{i}",
                    "output": f"answer {i}",
                },
            }
        )
        tail.append(
            {
                "type": "event_msg",
                "payload": {
                    "type": "exec_command_end",
                    "call_id": f"c{i}",
                    "exit_code": int(failed),
                },
            }
        )
        tail.append({"type": "event_msg", "payload": {"type": "token_count"}})
    rng.shuffle(tail)
    _check(_load("rollout.jsonl", head + tail, lines=True), "codex", calls, "c")


@SETTINGS
@given(CALLS, st.randoms(use_true_random=False))
def test_openhands_observations_in_any_order_after_their_actions(
    calls: Calls, rng: random.Random
) -> None:
    """An observation names its action by ``cause``; state-change events anywhere."""
    actions: list[Any] = []
    observations: list[Any] = []
    for i, (tool, args, failed) in enumerate(calls):
        meta = {"function_name": tool, "tool_call_id": f"o{i}"}
        actions.append(
            {"id": i, "source": "agent", "action": "run", "args": args, "tool_call_metadata": meta}
        )
        observations.append(
            {
                "id": 100 + i,
                "source": "agent",
                "observation": "run",
                "cause": i,
                "content": f"answer {i}",
                "success": not failed,
                "tool_call_metadata": meta,
            }
        )
        observations.append(
            {"id": 200 + i, "source": "environment", "observation": "agent_state_changed"}
        )
    rng.shuffle(observations)
    _check(_load("events.json", actions + observations), "openhands", calls, "o")


@SETTINGS
@given(CALLS, st.randoms(use_true_random=False))
def test_agentdojo_tool_messages_in_any_order_pair_by_id(calls: Calls, rng: random.Random) -> None:
    tool_calls = [{"function": t, "args": a, "id": f"d{i}"} for i, (t, a, _) in enumerate(calls)]
    answers = [
        {
            "role": "tool",
            "content": f"answer {i}",
            "tool_call_id": f"d{i}",
            "error": "ValueError: no" if failed else None,
        }
        for i, (_, _, failed) in enumerate(calls)
    ]
    rng.shuffle(answers)
    doc: dict[str, Any] = {
        "suite_name": "s",
        "pipeline_name": "p",
        "user_task_id": "u",
        "injection_task_id": None,
        "injections": {},
        "error": None,
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": None, "tool_calls": tool_calls},
            *answers,
        ],
    }
    _check(_load("result.json", doc), "agentdojo", calls, "d")


@SETTINGS
@given(CALLS, st.randoms(use_true_random=False))
def test_inspect_samples_and_tool_messages_in_any_order(calls: Calls, rng: random.Random) -> None:
    """A run per sample whatever the samples' order; tool messages pair by ``tool_call_id``."""
    tool_calls = [
        {"id": f"i{k}", "function": t, "arguments": a, "type": "function"}
        for k, (t, a, _) in enumerate(calls)
    ]
    answers = [
        {
            "role": "tool",
            "tool_call_id": f"i{k}",
            "function": calls[k][0],
            "content": f"answer {k}",
            **({"error": {"type": "timeout", "message": "t"}} if failed else {}),
        }
        for k, (_, _, failed) in enumerate(calls)
    ]
    rng.shuffle(answers)
    messages = [{"role": "assistant", "content": "", "tool_calls": tool_calls}, *answers]
    samples = [{"id": s, "epoch": 1, "messages": messages} for s in (1, 2)]
    rng.shuffle(samples)
    doc = {
        "version": 2,
        "status": "success",
        "eval": {"task": "t", "model": "m"},
        "samples": samples,
    }
    result = _load("log.json", doc)
    assert result.format == "inspect-ai" and result.problems == ()
    assert len(result.runs) == 2
    for run in result.runs:
        assert [(b.call_id, b.tool, b.args, b.is_error) for b in run] == _expected(calls, "i")


@SETTINGS
@given(CALLS, st.randoms(use_true_random=False))
def test_tau2_simulations_in_any_order_keep_their_calls(calls: Calls, rng: random.Random) -> None:
    """Tool messages of a parallel turn in any order (they name their call by ``id``)."""
    tool_calls = [
        {"id": f"x{k}", "name": t, "arguments": a, "requestor": "assistant"}
        for k, (t, a, _) in enumerate(calls)
    ]
    answers = [
        {
            "role": "tool",
            "id": f"x{k}",
            "content": f"answer {k}",
            "error": failed,
            "requestor": "assistant",
        }
        for k, (_, _, failed) in enumerate(calls)
    ]
    rng.shuffle(answers)
    messages = [{"role": "assistant", "content": None, "tool_calls": tool_calls}, *answers]
    sims = [{"id": f"s{k}", "task_id": k, "trial": 0, "messages": messages} for k in range(2)]
    rng.shuffle(sims)
    result = _load("results.json", {"info": {}, "tasks": [], "simulations": sims})
    assert result.format == "tau2-bench" and result.problems == ()
    for run in result.runs:
        assert [(b.call_id, b.tool, b.args, b.is_error) for b in run] == _expected(calls, "x")


@SETTINGS
@given(CALLS, st.randoms(use_true_random=False))
def test_swe_agent_tool_messages_in_any_order_answer_their_ids(
    calls: Calls, rng: random.Random
) -> None:
    """No failure flag: the default rule (``Error:``) reads the observation text."""
    tool_calls = [
        {"id": f"w{k}", "type": "function", "function": {"name": t, "arguments": json.dumps(a)}}
        for k, (t, a, _) in enumerate(calls)
    ]
    answers = [
        {
            "role": "tool",
            "content": f"Error: answer {k}" if failed else f"answer {k}",
            "tool_call_ids": [f"w{k}"],
            "agent": "main",
        }
        for k, (_, _, failed) in enumerate(calls)
    ]
    rng.shuffle(answers)
    history = [
        {"role": "system", "content": "s", "agent": "main"},
        {"role": "assistant", "content": "", "agent": "main", "tool_calls": tool_calls},
        *answers,
    ]
    doc = {"history": history, "trajectory": [], "info": {}, "environment": "e"}
    result = _load("run.traj", doc)
    assert result.format == "swe-agent" and result.problems == ()
    assert _facts(result) == _expected(calls, "w")


@SETTINGS
@given(CALLS, st.randoms(use_true_random=False))
def test_gemini_ui_messages_anywhere_leave_the_calls_alone(
    calls: Calls, rng: random.Random
) -> None:
    """``info``/``error``/``warning`` messages are UI events, not calls, wherever they sit."""
    tool_calls = [
        {
            "id": f"g{k}",
            "name": t,
            "args": a,
            "status": "error" if failed else "success",
            "result": [
                {
                    "functionResponse": {
                        "id": f"g{k}",
                        "name": t,
                        "response": {"error": f"answer {k}"}
                        if failed
                        else {"output": f"answer {k}"},
                    }
                }
            ],
        }
        for k, (t, a, failed) in enumerate(calls)
    ]
    messages: list[Any] = [{"type": "user", "content": [{"text": "go"}]}]
    messages += [{"type": "gemini", "content": "", "toolCalls": [c]} for c in tool_calls]
    for kind in ("info", "error", "warning"):
        messages.insert(rng.randrange(1, len(messages) + 1), {"type": kind, "content": "ui"})
    doc = {"sessionId": "s", "projectHash": "h", "startTime": "t", "messages": messages}
    _check(_load("session.json", doc), "gemini-cli", calls, "g")


@SETTINGS
@given(CALLS, st.randoms(use_true_random=False))
def test_responses_outputs_in_any_order_after_their_calls(calls: Calls, rng: random.Random) -> None:
    """Responses items: ``function_call_output`` items pair by ``call_id``; the error rule
    (``Error:``) marks failures, as the API has no flag."""
    items: list[Any] = [{"type": "message", "role": "user", "content": "go"}]
    items += [
        {"type": "function_call", "call_id": f"r{k}", "name": t, "arguments": json.dumps(a)}
        for k, (t, a, _) in enumerate(calls)
    ]
    outputs = [
        {
            "type": "function_call_output",
            "call_id": f"r{k}",
            "output": f"Error: answer {k}" if failed else f"answer {k}",
        }
        for k, (_, _, failed) in enumerate(calls)
    ]
    rng.shuffle(outputs)
    result = _load("items.json", items + outputs)
    assert result.format == "openai-responses" and result.problems == ()
    assert _facts(result) == _expected(calls, "r")


@SETTINGS
@given(CALLS, st.randoms(use_true_random=False))
def test_openhands_sdk_observations_in_any_order_after_their_actions(
    calls: Calls, rng: random.Random
) -> None:
    """The agent SDK's events: an observation (or an agent error) names its call by
    ``tool_call_id``; state updates anywhere among the results."""
    actions: list[Any] = []
    results: list[Any] = []
    for i, (tool, args, failed) in enumerate(calls):
        call = {"id": f"s{i}", "name": tool, "arguments": json.dumps(args)}
        actions.append(
            {
                "kind": "ActionEvent",
                "source": "agent",
                "tool_name": tool,
                "tool_call_id": f"s{i}",
                "tool_call": call,
                "llm_response_id": "turn",
            }
        )
        text = [{"type": "text", "text": f"answer {i}"}]
        results.append(
            {
                "kind": "ObservationEvent",
                "source": "environment",
                "tool_name": tool,
                "tool_call_id": f"s{i}",
                "observation": {"content": text, "is_error": failed},
            }
        )
        results.append({"kind": "ConversationStateUpdateEvent", "source": "environment"})
    rng.shuffle(results)
    _check(_load("events.json", actions + results), "openhands", calls, "s")


@SETTINGS
@given(CALLS, st.randoms(use_true_random=False), st.booleans())
def test_mcp_stdio_log_replies_in_any_order_pair_by_id_and_direction(
    calls: Calls, rng: random.Random, server_requests: bool
) -> None:
    """A stdio recorder's {dir, msg} log: replies in any order after their requests, and the
    server's own requests reusing the client's ids (answered by the client) pair with nothing
    of the client's."""
    requests: list[Any] = []
    replies: list[Any] = []
    for i, (tool, args, failed) in enumerate(calls):
        params = {"name": tool, "arguments": args}
        requests.append(
            {
                "dir": "c2s",
                "msg": {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params},
            }
        )
        answer = {"content": [{"type": "text", "text": f"answer {i}"}], "isError": failed}
        replies.append({"dir": "s2c", "msg": {"jsonrpc": "2.0", "id": i, "result": answer}})
        if server_requests:
            ping = {"jsonrpc": "2.0", "id": i, "method": "sampling/createMessage"}
            replies.append({"dir": "s2c", "msg": ping})
            replies.append({"dir": "c2s", "msg": {"jsonrpc": "2.0", "id": i, "result": {}}})
    rng.shuffle(replies)
    records = [{"seq": n, **r} for n, r in enumerate(requests + replies)]
    result = _load("session.jsonl", records, lines=True)
    assert result.format == "mcp" and [str(p) for p in result.problems] == []
    facts = [(b.tool, b.args, b.is_error) for b in result.boundaries]
    assert facts == [(tool, args, failed) for tool, args, failed in calls]
    texts = [
        wb.ToolResult.from_response(b.response, is_error=b.is_error).text for b in result.boundaries
    ]
    assert texts == [f"answer {i}" for i in range(len(calls))]


@SETTINGS
@given(CALLS, st.randoms(use_true_random=False))
def test_otel_tempo_batches_in_any_order_give_the_otlp_boundaries(
    calls: Calls, rng: random.Random
) -> None:
    """A trace from Grafana Tempo (batches, instrumentationLibrarySpans), its batches and spans
    in any order, gives the boundaries the same spans give as OTLP, in start-time order."""

    def span(i: int, tool: str, args: dict[str, Any], failed: bool) -> dict[str, Any]:
        attributes = [
            {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
            {"key": "gen_ai.tool.name", "value": {"stringValue": tool}},
            {"key": "gen_ai.tool.call.id", "value": {"stringValue": f"t{i}"}},
            {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": json.dumps(args)}},
            {"key": "gen_ai.tool.call.result", "value": {"stringValue": f"answer {i}"}},
        ]
        return {
            "traceId": "ab" * 16,
            "spanId": f"{i:016x}",
            "name": f"execute_tool {tool}",
            "kind": "SPAN_KIND_INTERNAL",
            "startTimeUnixNano": 1_000 + i,
            "endTimeUnixNano": 2_000 + i,
            "attributes": attributes,
            "status": {"code": "STATUS_CODE_ERROR" if failed else "STATUS_CODE_UNSET"},
        }

    spans = [span(i, *call) for i, call in enumerate(calls)]
    rng.shuffle(spans)
    batches = [
        {
            "resource": {},
            "instrumentationLibrarySpans": [{"instrumentationLibrary": {}, "spans": [s]}],
        }
        for s in spans
    ]
    _check(_load("trace.json", {"batches": batches}), "otel", calls, "t")
