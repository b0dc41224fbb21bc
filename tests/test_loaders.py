"""Loading promoted runs: the three formats, detection, pairing and load problems (SPEC R1-R4).

The tau-bench file is real data (``fixtures/tau-bench/SOURCE.md``); everything else is built here,
so each test states exactly what it feeds the loader. Expected counts on real data are derived
from the raw JSON as well as pinned, so a loader that drops or invents boundaries cannot pass.
"""

from __future__ import annotations

import json
import random
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench as wb
from helpers.openwop import write_json, write_jsonl
from helpers.paths import BILLING, SAMPLES, TAU_FULL
from workbench import ErrorRule, LoadError, ToolBoundary


def event(
    seq: int, kind: str, payload: dict[str, Any], run: str = "acme/run-1", **extra: Any
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "eventId": f"evt-{run}-{seq}",
        "runId": run,
        "type": kind,
        "sequence": seq,
        "timestamp": "2026-11-03T14:07:32.000Z",
        "schemaVersion": 1,
        "payload": payload,
    }
    doc.update(extra)
    return doc


def called(seq: int, call_id: str, tool: str, inputs: Any = None, **kw: Any) -> dict[str, Any]:
    payload = {"agentId": "agent-1", "toolName": tool, "callId": call_id, "inputs": inputs or {}}
    return event(seq, "agent.tool-called", payload, **kw)


def returned(seq: int, call_id: str, **payload: Any) -> dict[str, Any]:
    run = payload.pop("run", "acme/run-1")
    return event(seq, "agent.tool-returned", {"callId": call_id, **payload}, run=run)


def oa_call(call_id: str, tool: str, args: Any) -> dict[str, Any]:
    arguments = args if isinstance(args, str) else json.dumps(args)
    return {"id": call_id, "type": "function", "function": {"name": tool, "arguments": arguments}}


def oa_assistant(*calls: dict[str, Any], content: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = list(calls)
    return message


def oa_tool(call_id: str, content: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


def facts(b: ToolBoundary) -> tuple[Any, ...]:
    """Everything a boundary records except where it was read from."""
    return (
        b.index,
        b.call_id,
        b.tool,
        json.dumps(b.args, sort_keys=True),
        json.dumps(b.response, sort_keys=True),
        b.is_error,
        b.error_code,
        b.error_message,
        b.duration_ms,
        b.agent_id,
        json.dumps(dict(b.extra), sort_keys=True),
    )


# --- tau-bench: real OpenAI-chat data (R1b, R2, R3) ----------------------------------------------


def test_tau_bench_loads_all_twenty_records_with_every_tool_boundary() -> None:
    """R1(b): a list of ``{traj}`` records loads as one run per record; R2: nothing is dropped."""
    raw = json.loads(TAU_FULL.read_text(encoding="utf-8"))
    result = wb.load_runs(TAU_FULL)
    assert result.format == "openai-chat"
    assert result.problems == ()
    assert len(result.runs) == len(raw) == 20
    for run, record in zip(result.runs, raw, strict=True):
        calls = [
            c for m in record["traj"] if m["role"] == "assistant" for c in m.get("tool_calls") or []
        ]
        assert [b.call_id for b in run.boundaries] == [c["id"] for c in calls]
        assert [b.tool for b in run.boundaries] == [c["function"]["name"] for c in calls]
        assert [b.args for b in run.boundaries] == [
            json.loads(c["function"]["arguments"]) for c in calls
        ]
        assert run.task_key == f"task-{record['task_id']}-trial-{record['trial']}"
    assert len(result.boundaries) == 182


def test_tau_bench_error_replies_are_failed_boundaries_under_the_error_rule() -> None:
    """R3: OpenAI chat has no error flag; the default rule (content starts ``Error:``) marks the
    16 recorded ``Error:`` replies as failures, and no other reply."""
    result = wb.load_runs(TAU_FULL)
    failed = [b for b in result.boundaries if b.is_error]
    assert len(failed) == 16
    for b in result.boundaries:
        assert b.is_error == b.response.startswith("Error:")
        assert (b.error_message is not None) == b.is_error
    assert all(run.error_rule == ErrorRule.prefix("Error:") for run in result.runs)


def test_tau_bench_with_no_error_rule_has_no_failures() -> None:
    """R3: the error rule is the caller's; with none, nothing in an unflagged format fails."""
    result = wb.load_runs(TAU_FULL, error_rule=ErrorRule.none())
    assert len(result.boundaries) == 182
    assert not any(b.is_error for b in result.boundaries)


def test_tau_bench_reused_call_ids_load_as_separate_boundaries() -> None:
    """R2: ids reused after their call was answered are legal (10 of the 20 records do it), and
    the boundary rows stay unique by index."""
    result = wb.load_runs(TAU_FULL)
    reusing = [run for run in result.runs if len({b.call_id for b in run}) < len(run)]
    assert len(reusing) == 10
    for run in result.runs:
        assert [b.index for b in run] == list(range(len(run)))
        frame = run.to_frame()
        assert frame["index"].is_unique


# --- OpenWOP event logs (R1a, R3, R4) ------------------------------------------------------------


def outcome_log() -> list[dict[str, Any]]:
    """One run with every failure shape R3 names, and one success."""
    return [
        called(0, "c1", "billing:lookup", {"id": "c-1"}),
        returned(1, "c1", error={"code": "upstream_down", "message": "billing is down"}),
        called(2, "c2", "billing:refund"),
        returned(3, "c2", status="forbidden"),
        called(4, "c3", "billing:refund"),
        returned(5, "c3", status="rate_limited"),
        called(6, "c4", "crm:get"),
        returned(
            7, "c4", outcome={"content": [{"type": "text", "text": "no such"}], "isError": True}
        ),
        called(8, "c5", "crm:get"),
        returned(9, "c5", status="error", outcome={"content": []}),
        called(10, "c6", "crm:get"),
        returned(
            11,
            "c6",
            status="ok",
            outcome={"content": [{"type": "text", "text": "ok"}]},
            durationMs=7,
        ),
    ]


@pytest.mark.parametrize("form", ["jsonl", "array"])
def test_openwop_failure_outcomes_are_failed_boundaries(tmp_path: Path, form: str) -> None:
    """R3: ``error``, ``status`` error/forbidden/rate_limited and an MCP ``isError`` outcome are
    failures; a plain outcome is a success."""
    log = outcome_log()
    path = (
        write_jsonl(tmp_path / "x.jsonl", log)
        if form == "jsonl"
        else write_json(tmp_path / "x.json", log)
    )
    result = wb.load_runs(path)
    assert result.format == "openwop"
    b = result.run.boundaries
    assert [x.is_error for x in b] == [True, True, True, True, True, False]
    assert (b[0].error_code, b[0].error_message) == ("upstream_down", "billing is down")
    assert b[1].error_code == "forbidden"
    assert b[2].error_code == "rate_limited"
    assert b[3].error_message == "no such"
    assert b[5].duration_ms == 7
    assert b[5].response == {"content": [{"type": "text", "text": "ok"}]}
    assert all(x.agent_id == "agent-1" for x in b)


def test_openwop_v1_type_names_are_normalised(tmp_path: Path) -> None:
    """R1: v1 names (``agent.toolCalled`` / ``agent.toolReturned``) load as their v2 events."""
    v1 = [
        event(0, "agent.toolCalled", {"toolName": "a", "callId": "c1", "inputs": {"k": 1}}),
        event(1, "agent.toolReturned", {"callId": "c1", "outcome": {"v": 1}}),
        event(2, "agent.tool-called", {"toolName": "b", "callId": "c2", "inputs": {}}),
        event(3, "agent.toolReturned", {"callId": "c2", "error": {"code": "x", "message": "y"}}),
    ]
    run = wb.load_runs(write_jsonl(tmp_path / "v1.jsonl", v1)).run
    assert [(b.tool, b.args, b.is_error) for b in run] == [("a", {"k": 1}, False), ("b", {}, True)]


def test_openwop_runs_are_grouped_by_run_id(tmp_path: Path) -> None:
    """R1: a file holding interleaved events of two runs gives two runs, each in its own order."""
    log = [
        called(0, "c1", "a", run="acme/r-1"),
        called(0, "c1", "b", run="acme/r-2"),
        returned(1, "c1", outcome="from b", run="acme/r-2"),
        returned(1, "c1", outcome="from a", run="acme/r-1"),
        called(2, "c2", "c", run="acme/r-1"),
        returned(3, "c2", outcome="from c", run="acme/r-1"),
    ]
    result = wb.load_runs(write_jsonl(tmp_path / "two.jsonl", log))
    assert [r.run_id for r in result.runs] == ["acme/r-1", "acme/r-2"]
    assert [(b.tool, b.response) for b in result.runs[0]] == [("a", "from a"), ("c", "from c")]
    assert [(b.tool, b.response) for b in result.runs[1]] == [("b", "from b")]
    with pytest.raises(ValueError, match="2 runs"):
        _ = result.run


def test_openwop_unknown_fields_and_events_are_carried(tmp_path: Path) -> None:
    """R4: unknown fields on tool events and unknown event types are kept, never fatal."""
    log = [
        event(0, "acme.custom-thing", {"anything": [1, 2]}),
        event(1, "agent.tool-called", {"toolName": "a", "callId": "c1", "inputs": {}, "x-cost": 3}),
        event(2, "agent.tool-returned", {"callId": "c1", "outcome": "ok", "x-cache": "hit"}),
        event(3, "agent.decided", {"decision": {"outcome": "completed", "answer": "done"}}),
    ]
    run = wb.load_runs(write_jsonl(tmp_path / "u.jsonl", log)).run
    (boundary,) = run.boundaries
    assert boundary.extra["x-cost"] == 3
    assert any(v == "hit" for k, v in boundary.extra.items() if k.endswith("x-cache"))
    other = run.metadata["otherEvents"]
    assert [e["type"] for e in other] == ["acme.custom-thing", "agent.decided"]
    assert other[0]["payload"] == {"anything": [1, 2]}
    assert (run.outcome, run.answer) == ("completed", "done")


def test_billing_fixture_loads_its_recorded_error_and_retry() -> None:
    """R1, R3: the bundled billing log: 12 calls, boundary 3 the recorded failure, 4 its retry."""
    run = wb.load_runs(BILLING).run
    assert len(run) == 12
    assert [b.index for b in run if b.is_error] == [3]
    assert run.boundaries[3].error_code == "upstream_down"
    assert run.boundaries[4].tool == run.boundaries[3].tool
    assert not run.boundaries[4].is_error


# --- OpenAI chat (R1b, R3) -----------------------------------------------------------------------


def chat_messages() -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "be helpful"},
        {"role": "user", "content": "refund order 7"},
        oa_assistant(oa_call("a", "get_order", {"id": 7}), oa_call("b", "get_user", {"u": "x"})),
        oa_tool("b", [{"type": "text", "text": "Error: user locked"}]),
        oa_tool("a", '{"status": "shipped"}'),
        oa_assistant(oa_call("c", "refund", "{not json")),
        oa_tool("c", "refunded"),
        oa_assistant(content="Refunded order 7."),
    ]


def expected_chat(b: Sequence[ToolBoundary]) -> None:
    assert [(x.index, x.call_id, x.tool) for x in b] == [
        (0, "a", "get_order"),
        (1, "b", "get_user"),
        (2, "c", "refund"),
    ]
    assert b[0].args == {"id": 7}
    assert b[2].args == "{not json"  # invalid JSON arguments are kept as the recorded string
    assert [x.is_error for x in b] == [False, True, False]
    assert b[1].error_message == "Error: user locked"


@pytest.mark.parametrize(
    "shape",
    ["list", "messages", "traj", "records"],
)
def test_openai_chat_shapes_load_the_same_boundaries(tmp_path: Path, shape: str) -> None:
    """R1(b): a list of messages, ``{messages}``, ``{traj}`` and a list of records all load;
    parallel calls keep call order, content may be a list of parts, arguments are JSON strings."""
    messages = chat_messages()
    data: Any = {
        "list": messages,
        "messages": {"messages": messages},
        "traj": {"traj": messages, "task_id": 4},
        "records": [{"traj": messages, "task_id": 4, "trial": 1}, {"messages": messages}],
    }[shape]
    result = wb.load_runs(write_json(tmp_path / "chat.json", data))
    assert result.format == "openai-chat"
    for run in result.runs:
        expected_chat(run.boundaries)
        assert run.answer == "Refunded order 7."
    assert len(result.runs) == (2 if shape == "records" else 1)
    if shape == "records":
        assert result.runs[0].task_key == "task-4-trial-1"


def test_openai_sample_fixture_loads_with_its_error_reply() -> None:
    """R1(b), R3: the bundled sample: two parallel calls and one ``Error:`` reply."""
    run = wb.load_runs(SAMPLES / "openai-chat-refund.json").run
    assert len(run) == 5
    assert [b.is_error for b in run] == [False, False, False, True, False]


def test_openai_error_rule_is_the_callers(tmp_path: Path) -> None:
    """R3: a custom rule decides; the rule is kept on the run for promotion to record."""
    path = write_json(tmp_path / "c.json", chat_messages())
    rule = ErrorRule.regex(r"shipped")
    run = wb.load_runs(path, error_rule=rule).run
    assert [b.is_error for b in run] == [True, False, False]
    assert run.error_rule == rule


# --- Anthropic messages (R1c, R3) ----------------------------------------------------------------


def anthropic_messages() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "check order 9"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "t1", "name": "get_order", "input": {"id": 9}},
                {"type": "tool_use", "id": "t2", "name": "get_user", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "t2",
                    "content": "timeout",
                    "is_error": True,
                },
                {
                    "type": "tool_result",
                    "tool_use_id": "t1",
                    "content": [{"type": "text", "text": "shipped"}],
                },
            ],
        },
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t2", "name": "get_user", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "u-1"}],
        },
        {"role": "assistant", "content": [{"type": "text", "text": "It shipped."}]},
    ]


def test_anthropic_tool_use_and_tool_result_blocks_load(tmp_path: Path) -> None:
    """R1(c), R3: ``is_error: true`` is a failure; content may be a string or blocks; R2: ``t2``
    is reused after its answer."""
    result = wb.load_runs(write_json(tmp_path / "a.json", {"messages": anthropic_messages()}))
    assert result.format == "anthropic"
    run = result.run
    assert [(b.index, b.call_id, b.tool, b.args, b.is_error) for b in run] == [
        (0, "t1", "get_order", {"id": 9}, False),
        (1, "t2", "get_user", {}, True),
        (2, "t2", "get_user", {}, False),
    ]
    assert run.boundaries[0].response == {"content": [{"type": "text", "text": "shipped"}]}
    assert run.boundaries[1].response == {"content": [{"type": "text", "text": "timeout"}]}
    assert run.boundaries[1].error_message == "timeout"
    assert run.answer == "It shipped."


def test_anthropic_answer_is_not_text_beside_a_tool_call(tmp_path: Path) -> None:
    """The recorded answer is final assistant text, not the preamble next to a ``tool_use``."""
    messages = anthropic_messages()[:5]
    run = wb.load_runs(write_json(tmp_path / "a.json", messages)).run
    assert run.answer is None


def test_anthropic_sample_fixture_loads() -> None:
    """R1(c): the bundled sample: one ``is_error`` result and a retry of the same call."""
    run = wb.load_runs(SAMPLES / "anthropic-refund.json").run
    assert len(run) == 5
    assert [b.is_error for b in run] == [False, False, True, False, False]
    assert run.boundaries[3].tool == run.boundaries[2].tool


# --- format detection (R1) -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "make", "expected"),
    [
        ("log.jsonl", lambda p: write_jsonl(p, outcome_log()), "openwop"),
        ("log.json", lambda p: write_json(p, outcome_log()), "openwop"),
        ("log.json", lambda p: write_json(p, {"events": outcome_log()}), "openwop"),
        ("chat.json", lambda p: write_json(p, chat_messages()), "openai-chat"),
        ("chat.json", lambda p: write_json(p, {"traj": chat_messages()}), "openai-chat"),
        ("claude.json", lambda p: write_json(p, {"messages": anthropic_messages()}), "anthropic"),
        ("claude.json", lambda p: write_json(p, anthropic_messages()), "anthropic"),
    ],
)
def test_auto_detection_picks_each_format(
    tmp_path: Path, name: str, make: Any, expected: str
) -> None:
    """R1: ``format="auto"`` tells the three formats apart by content."""
    path = make(tmp_path / name)
    assert wb.load_runs(path, format="auto").format == expected
    assert wb.load_runs(path, format=expected).format == expected


def test_auto_detection_on_bundled_files() -> None:
    """R1: the real and sample files are detected as what they are."""
    assert wb.load_runs(TAU_FULL).format == "openai-chat"
    assert wb.load_runs(BILLING).format == "openwop"
    assert wb.load_runs(SAMPLES / "openai-chat-refund.json").format == "openai-chat"
    assert wb.load_runs(SAMPLES / "anthropic-refund.json").format == "anthropic"


def test_undetectable_file_is_a_load_error_that_says_so(tmp_path: Path) -> None:
    path = write_json(tmp_path / "odd.json", {"hello": 1})
    with pytest.raises(LoadError, match=r"odd\.json.*cannot tell the format"):
        wb.load_runs(path)


def test_unknown_format_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown format"):
        wb.load_runs(write_json(tmp_path / "c.json", []), format="yaml")


# --- load problems (R2) --------------------------------------------------------------------------


def only_problem(path: Path) -> wb.LoadProblem:
    with pytest.raises(LoadError) as info:
        wb.load_runs(path)
    result = wb.load_runs(path, strict=False)
    assert result.problems == info.value.problems
    assert len(result.problems) == 1, result.problems
    return result.problems[0]


def test_result_with_no_open_call_names_file_line_and_field(tmp_path: Path) -> None:
    """R2: an OpenWOP result whose call id is not open is a load error at its line and field."""
    log = [called(0, "c1", "a"), returned(1, "c1", outcome="x"), returned(2, "c9", outcome="y")]
    path = write_jsonl(tmp_path / "orphan.jsonl", log)
    problem = only_problem(path)
    assert (problem.where, problem.line, problem.field) == ("line 3", 3, "payload.callId")
    assert str(problem).startswith(f"{path}: line 3 (field payload.callId): ")
    assert "'c9'" in problem.message


def test_answered_twice_is_a_result_with_no_open_call(tmp_path: Path) -> None:
    """R2: once answered, a call is closed; a second result for it has no open call."""
    log = [called(0, "c1", "a"), returned(1, "c1", outcome="x"), returned(2, "c1", outcome="y")]
    problem = only_problem(write_jsonl(tmp_path / "twice.jsonl", log))
    assert (problem.line, problem.field) == (3, "payload.callId")


def test_call_never_answered_names_file_and_line(tmp_path: Path) -> None:
    """R2: a call with no result is a load error at the call's line."""
    log = [called(0, "c1", "a"), returned(1, "c1", outcome="x"), called(2, "c2", "lonely")]
    path = write_jsonl(tmp_path / "open.jsonl", log)
    problem = only_problem(path)
    assert (problem.where, problem.line) == ("line 3", 3)
    assert str(problem).startswith(f"{path}: line 3")
    assert "'c2'" in problem.message and "never answered" in problem.message


def test_openwop_call_never_answered_names_the_field(tmp_path: Path) -> None:
    """R2: the never-answered problem names the call id field, like every other problem."""
    log = [called(0, "c2", "lonely")]
    problem = only_problem(write_jsonl(tmp_path / "open.jsonl", log))
    assert problem.field == "payload.callId"


@pytest.mark.parametrize("fmt", ["openai-chat", "anthropic"])
def test_chat_call_never_answered_names_the_field(tmp_path: Path, fmt: str) -> None:
    """R2: the never-answered problem names the call id field in chat formats too."""
    messages: list[dict[str, Any]] = (
        [oa_assistant(oa_call("a", "t", {}))]
        if fmt == "openai-chat"
        else [{"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "t"}]}]
    )
    problem = only_problem(write_json(tmp_path / "open.json", messages))
    assert "never answered" in problem.message
    assert problem.field == "id"


def test_two_open_calls_with_one_id_name_the_second_call(tmp_path: Path) -> None:
    """R2: a call whose id is already open is a load error at the second call's line and field."""
    log = [called(0, "c1", "a"), called(1, "c1", "b"), returned(2, "c1", outcome="x")]
    path = write_jsonl(tmp_path / "dup.jsonl", log)
    result = wb.load_runs(path, strict=False)
    first = result.problems[0]
    assert (first.where, first.line, first.field) == ("line 2", 2, "payload.callId")
    assert "already open" in first.message
    with pytest.raises(LoadError, match=r"dup\.jsonl: line 2 \(field payload\.callId\)"):
        wb.load_runs(path)


def test_invalid_json_line_names_file_and_line(tmp_path: Path) -> None:
    """R2: a line that is not valid JSON is a load error naming its line."""
    path = tmp_path / "broken.jsonl"
    lines = [
        json.dumps(called(0, "c1", "a")),
        "{not json",
        json.dumps(returned(1, "c1", outcome="x")),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    problem = only_problem(path)
    assert (problem.where, problem.line) == ("line 2", 2)
    assert "invalid JSON" in problem.message
    assert str(problem).startswith(f"{path}: line 2")


def test_invalid_json_file_names_line_and_column(tmp_path: Path) -> None:
    """R2: a JSON (not JSONL) file that does not parse names the line and column."""
    path = tmp_path / "chat.json"
    path.write_text('{"messages": [\n  {"role": "user",,}\n]}\n', encoding="utf-8")
    problem = only_problem(path)
    assert problem.line == 2 and problem.where.startswith("line 2, column")


def test_chat_problems_name_record_message_and_field(tmp_path: Path) -> None:
    """R2: in a list of records, problems name the record, the message and the field."""
    good = chat_messages()
    bad = [oa_assistant(oa_call("a", "t", {})), oa_tool("zz", "x")]
    path = write_json(tmp_path / "recs.json", [{"traj": good}, {"traj": bad}])
    result = wb.load_runs(path, strict=False)
    wheres = sorted(p.where for p in result.problems)
    assert wheres == ["record 1, message 0, tool call 0", "record 1, message 1"]
    orphan = next(p for p in result.problems if p.where == "record 1, message 1")
    assert orphan.field == "tool_call_id"
    assert all(str(p).startswith(f"{path}: record 1, message ") for p in result.problems)
    assert len(result.runs[0]) == 3 and len(result.runs[1]) == 0


def test_anthropic_problem_names_message_block_and_field(tmp_path: Path) -> None:
    """R2: an Anthropic ``tool_result`` with no open ``tool_use`` names message, block, field."""
    messages = [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9", "content": "x"}]}
    ]
    problem = only_problem(write_json(tmp_path / "a.json", {"messages": messages}))
    assert (problem.where, problem.field) == ("messages[0], block 0", "tool_use_id")


def test_non_strict_load_keeps_every_valid_boundary(tmp_path: Path) -> None:
    """R2: ``strict=False`` returns every problem and keeps every boundary that paired."""
    path = tmp_path / "mixed.jsonl"
    lines = [
        json.dumps(called(0, "c1", "a")),
        json.dumps(returned(1, "c1", outcome="one")),
        "{oops",
        json.dumps(returned(2, "ghost", outcome="?")),
        json.dumps(called(3, "c2", "b")),
        json.dumps(called(4, "c2", "b-again")),
        json.dumps(returned(5, "c2", outcome="two")),
        json.dumps(called(6, "c3", "never")),
        json.dumps(called(7, "c4", "c")),
        json.dumps(returned(8, "c4", error={"code": "e", "message": "m"})),
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = wb.load_runs(path, strict=False)
    assert [(b.index, b.call_id, b.tool, b.is_error) for b in result.boundaries] == [
        (0, "c1", "a", False),
        (1, "c2", "b", False),
        (2, "c4", "c", True),
    ]
    assert sorted(p.line or 0 for p in result.problems) == [3, 4, 6, 8]
    with pytest.raises(LoadError) as info:
        wb.load_runs(path)
    assert len(info.value.problems) == 4
    assert "and 3 more problems" in str(info.value)


def test_missing_file_is_a_load_error_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "nope.jsonl"
    with pytest.raises(LoadError, match=r"nope\.jsonl.*cannot read"):
        wb.load_runs(path)


# --- properties (Hypothesis) ---------------------------------------------------------------------

TOOLS = st.sampled_from(["lookup", "refund", "billing:get", "crm.search", "send_mail"])
JSON_LEAF = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=12)
JSON_VALUE = st.recursive(
    JSON_LEAF,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
ARGS = st.dictionaries(st.text(min_size=1, max_size=8), JSON_VALUE, max_size=4)
REPLY = st.text(max_size=30).filter(lambda t: not t.lstrip().startswith("Error:"))
ID_POOL = [f"call_{i}" for i in range(4)]


@st.composite
def chat_transcripts(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]]]:
    """A well-formed transcript (turns of parallel calls, replies in any order, ids reused after
    their answer, some ``Error:`` replies, some list-of-parts content) and its boundaries."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": draw(st.text(max_size=20))}]
    expected: list[tuple[Any, ...]] = []
    for _ in range(draw(st.integers(0, 5))):
        width = draw(st.integers(1, 3))
        ids = draw(st.permutations(ID_POOL))[:width]
        calls = []
        turn: list[tuple[Any, ...]] = []
        for call_id in ids:
            tool, args = draw(TOOLS), draw(ARGS)
            failed = draw(st.booleans())
            text = "Error: " + draw(st.text(max_size=10)) if failed else draw(REPLY)
            calls.append(oa_call(call_id, tool, args))
            turn.append((call_id, tool, args, failed, text))
        messages.append(oa_assistant(*calls, content=draw(st.none() | st.just(""))))
        for position in draw(st.permutations(range(width))):
            call_id, _, _, _, text = turn[position]
            as_parts = draw(st.booleans())
            content: Any = [{"type": "text", "text": text}] if as_parts else text
            messages.append(oa_tool(call_id, content))
        expected.extend(turn)
    messages.append(oa_assistant(content="bye"))
    return messages, expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chat_transcripts())
def test_random_chat_transcripts_load_to_exactly_their_boundaries(
    case: tuple[list[dict[str, Any]], list[tuple[Any, ...]]],
) -> None:
    """R1(b), R2, R3: any well-formed transcript loads to exactly its calls, in call order, with
    indices 0..n-1, ids reused after their answer, and ``Error:`` replies as failures."""
    messages, expected = case
    with tempfile.TemporaryDirectory() as folder:
        loaded = wb.load_runs(write_json(Path(folder) / "t.json", messages), strict=False)
    run = loaded.run
    # R35: a transcript with no tool call loads as nothing only with that said
    assert [p.message.startswith("no tool call found") for p in loaded.problems] == (
        [] if expected else [True]
    )
    assert [b.index for b in run] == list(range(len(expected)))
    got = [(b.call_id, b.tool, b.args, b.is_error) for b in run]
    assert got == [(c, t, a, f) for c, t, a, f, _ in expected]
    for b, (_, _, _, _, text) in zip(run, expected, strict=True):
        response_text = b.response if isinstance(b.response, str) else b.response[0]["text"]
        assert response_text == text


@st.composite
def openwop_logs(draw: st.DrawFn) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]]]:
    """Events of one run in sequence order (calls that overlap, results in any order, ids reused
    after their answer, other events between) and the boundaries they hold, in call order."""
    events: list[dict[str, Any]] = []
    expected: list[list[Any]] = []
    open_calls: dict[str, int] = {}
    free = list(ID_POOL)
    for _ in range(draw(st.integers(0, 24))):
        choice = draw(st.sampled_from(["call", "return", "other"]))
        seq = len(events)
        if choice == "call" and free:
            call_id = free.pop(draw(st.integers(0, len(free) - 1)))
            tool, args = draw(TOOLS), draw(ARGS)
            open_calls[call_id] = len(expected)
            expected.append([call_id, tool, args, None])
            events.append(called(seq, call_id, tool, args))
        elif choice == "return" and open_calls:
            call_id = draw(st.sampled_from(sorted(open_calls)))
            expected[open_calls.pop(call_id)][3] = (kind := draw(st.sampled_from(OUTCOMES))) != "ok"
            free.append(call_id)
            events.append(returned(seq, call_id, **draw(OUTCOME_BODIES[kind])))
        else:
            events.append(event(seq, "acme.note", {"n": seq}))
    for call_id, position in open_calls.items():
        expected[position][3] = False
        events.append(returned(len(events), call_id, outcome="late"))
    return events, [tuple(e) for e in expected]


OUTCOMES = ("ok", "error", "status", "mcp")
OUTCOME_BODIES: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "ok": st.builds(lambda v: {"outcome": v}, JSON_VALUE),
    "error": st.builds(lambda m: {"error": {"code": "e", "message": m}}, st.text(max_size=8)),
    "status": st.builds(
        lambda s: {"status": s}, st.sampled_from(["forbidden", "rate_limited", "error"])
    ),
    "mcp": st.just({"outcome": {"content": [{"type": "text", "text": "x"}], "isError": True}}),
}


def _load_events(events: list[dict[str, Any]], form: str) -> wb.LoadResult:
    """Load the events; a log with no tool call is a R35 problem and nothing else."""
    with tempfile.TemporaryDirectory() as folder:
        if form == "jsonl":
            result = wb.load_runs(write_jsonl(Path(folder) / "e.jsonl", events), strict=False)
        elif form == "array-lines":  # one event a line, as jq and hand-written arrays are
            path = Path(folder) / "e.json"
            lines = ",\n".join(json.dumps(e, separators=(",", ":")) for e in events)
            path.write_text(f"[\n{lines}\n]\n" if events else "[\n]\n", encoding="utf-8")
            result = wb.load_runs(path, strict=False)
        else:
            path = write_json(Path(folder) / "e.json", events)
            result = wb.load_runs(path, format="openwop", strict=False)
    empty_file = form == "jsonl" and not events  # nothing written at all
    expected = (
        [] if result.boundaries else ["the file is empty" if empty_file else "no tool call found"]
    )
    assert [p.message[:17] for p in result.problems] == [e[:17] for e in expected]
    return result


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(openwop_logs(), st.randoms(use_true_random=False))
def test_openwop_file_order_does_not_matter_only_sequence(
    case: tuple[list[dict[str, Any]], list[tuple[Any, ...]]], rng: random.Random
) -> None:
    """R1, R2, R3: events are ordered by ``sequence``: a shuffled file loads exactly like the
    ordered one, and both hold exactly the generated boundaries in call order."""
    events, expected = case
    shuffled = list(events)
    rng.shuffle(shuffled)
    ordered = _load_events(events, "jsonl")
    mixed = _load_events(shuffled, "jsonl")
    assert [facts(b) for b in mixed.boundaries] == [facts(b) for b in ordered.boundaries]
    got = [(b.call_id, b.tool, b.args, b.is_error) for b in ordered.boundaries]
    assert got == expected
    assert [b.index for b in ordered.boundaries] == list(range(len(expected)))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(openwop_logs())
def test_openwop_jsonl_and_array_forms_give_the_same_boundaries(
    case: tuple[list[dict[str, Any]], list[tuple[Any, ...]]],
) -> None:
    """R1: the JSONL and JSON-array forms of one log are the same run."""
    events, expected = case
    as_lines = _load_events(events, "jsonl")
    as_array = _load_events(events, "array")
    assert [facts(b) for b in as_lines.boundaries] == [facts(b) for b in as_array.boundaries]
    assert [b.index for b in as_array.boundaries] == list(range(len(expected)))
    # the array with one event a line is found to be an array (it once read as a JSONL log
    # whose lines were all broken but the last)
    one_a_line = _load_events(events, "array-lines")
    assert [facts(b) for b in one_a_line.boundaries] == [facts(b) for b in as_array.boundaries]


@pytest.mark.parametrize("tail", ["", "\n", "\r\n", "\n\n  \n"])
def test_a_document_on_one_line_is_decoded_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tail: str
) -> None:
    """The OpenWOP sniff reads a file's first line; when that line is the whole file (one
    JSON document), the document is loaded from it rather than decoded a second time."""
    from workbench._load.reading import decode_json as real

    source = json.loads((SAMPLES / "openai-chat-refund.json").read_text())
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(source) + tail)
    expected = wb.load_runs(SAMPLES / "openai-chat-refund.json").run.boundaries
    decoded: list[int] = []

    def counting(data: bytes, file: str) -> Any:
        decoded.append(len(data))
        return real(data, file)

    monkeypatch.setattr("workbench._load.loader.decode_json", counting)
    result = wb.load_runs(path)
    assert result.format == "openai-chat"
    assert [b.args for b in result.run.boundaries] == [b.args for b in expected]
    assert [b.is_error for b in result.run.boundaries] == [b.is_error for b in expected]
    assert decoded == [len(json.dumps(source))]


def test_a_log_of_one_line_and_a_document_of_two_still_load_as_before(tmp_path: Path) -> None:
    """Only a file that is one line is taken whole from the sniff: a second line (a second
    event, or a document that goes on) takes the usual paths."""
    one_event = tmp_path / "one.json"
    one_event.write_text(json.dumps(event(1, "run.started", {})) + "\n")
    with pytest.raises(LoadError, match="no tool call"):
        wb.load_runs(one_event)
    two_lines = tmp_path / "two.json"
    source = json.loads((SAMPLES / "openai-chat-refund.json").read_text())
    two_lines.write_text(json.dumps(source)[:-1] + "\n}")
    assert wb.load_runs(two_lines).format == "openai-chat"


_REFUSED_IN_ARGUMENTS = ["NaN", "Infinity", "123456789012345678901234567890", '"\\ud800"']


@pytest.mark.parametrize("inner", _REFUSED_IN_ARGUMENTS)
def test_arguments_whose_json_the_workbench_refuses_stay_text_and_promote(
    tmp_path: Path, inner: str
) -> None:
    """R35: a model may write ``{"x": NaN}`` as a call's arguments. Decoded, it could not be
    written to a suite (nor read back exactly by other JSON tools), so the arguments stay the
    string the model wrote, and the promoted suite serves and replays it as recorded."""
    arguments = '{"x": ' + inner + "}"
    messages = [
        {"role": "user", "content": "hi"},
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        {"role": "assistant", "content": "done"},
    ]
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(messages), encoding="utf-8")
    (boundary,) = wb.load_runs(path).boundaries
    assert boundary.args == arguments
    promoted = wb.promote(wb.load_runs(path))
    assert promoted.self_test is not None and promoted.self_test.passed
    assert promoted.suite.tasks[0]["fixtures"]["toolResponses"][0]["args"] == arguments
    promoted.suite.to_json()  # strict JSON: no NaN, no lone surrogate


def test_an_assistant_turn_of_many_records_joins_its_texts_once() -> None:
    """A turn written as 20,000 records (OpenHands' thoughts of one response, Claude Code's
    blocks): its texts are joined at the end, not copied at each record (quadratic: 16,000
    records of a 10 MB thought took over 20 s)."""
    import time

    from workbench._load.conversation import ConversationBuilder

    talk = ConversationBuilder()
    talk.assistant("x" * 1_000_000, turn="r1")
    start = time.process_time()
    for n in range(20_000):
        talk.assistant(str(n), turn="r1")
    conversation = talk.build()
    assert time.process_time() - start < 5
    assert conversation is not None
    (message,) = conversation.messages
    assert message["content"] == "\n".join(["x" * 1_000_000, *map(str, range(20_000))])


@pytest.mark.parametrize("compressed", [False, True], ids=["streamed", "read-whole"])
def test_a_jsonl_file_of_records_in_no_format_is_one_problem_saying_so(
    tmp_path: Path, compressed: bool
) -> None:
    """R35: a JSONL file of records that are neither of a format nor OpenWOP events (an app's
    log) is one problem at its first record, saying that and what the record is; read as an
    OpenWOP log it was a problem a line (``event has no string type``), which said nothing of
    the file. Told ``--format openwop``, each line is still its own problem."""
    import gzip

    lines = "\n" + "".join(json.dumps({"ts": i, "level": "info"}) + "\n" for i in range(300))
    path = tmp_path / ("app.jsonl.gz" if compressed else "app.jsonl")
    path.write_bytes(gzip.compress(lines.encode()) if compressed else lines.encode())
    [problem] = wb.load_runs(path, strict=False).problems
    assert (problem.where, problem.line) == ("line 2", 2)
    assert problem.message.startswith(
        "cannot tell the format: no record is of a format the workbench reads, nor an OpenWOP "
        "event (runId, type, payload); the first is a JSON object with members ts, level;"
    )
    told = wb.load_runs(path, format="openwop", strict=False).problems
    assert len(told) == 300
    assert told[0].message == "event has no string type"
    # a header with no type before an OpenWOP event, or a line that cannot be read, is a
    # broken log or a broken file: a problem a line, as before (not "nor an OpenWOP event")
    event = {"runId": "x", "type": "agent.tool-called", "sequence": 1, "payload": {"callId": "c"}}
    for second in (json.dumps(event), '{"ts": 1, "level": "info"'):
        mixed = tmp_path / ("mixed.jsonl.gz" if compressed else "mixed.jsonl")
        text = lines + second + "\n"
        mixed.write_bytes(gzip.compress(text.encode()) if compressed else text.encode())
        problems = wb.load_runs(mixed, strict=False).problems
        assert len(problems) == 301 and "event has no string type" in {p.message for p in problems}
        assert not any(p.message.startswith("cannot tell") for p in problems)


def test_a_jsonl_file_in_no_known_format_says_so_not_that_it_is_an_openwop_log(
    tmp_path: Path,
) -> None:
    """R35: a JSONL file no format tells itself in is read as OpenWOP (its problems then name
    lines), but when none of its records has an OpenWOP envelope, the message says the file is
    in no format the workbench reads, not that it is an OpenWOP log; a real OpenWOP log without
    a tool call keeps the plain message."""
    unknown = tmp_path / "other.jsonl"
    unknown.write_text('{"type": "item", "data": 1}\n{"type": "done"}\n')
    [problem] = wb.load_runs(unknown, strict=False).problems
    assert problem.message.startswith(
        "no tool call found: the file is in no format the workbench reads (see docs/formats.md)"
    )
    log = tmp_path / "log.jsonl"
    event = {"runId": "r", "type": "run.started", "payload": {}, "sequence": 0, "eventId": "e"}
    log.write_text(json.dumps(event) + "\n")
    [problem] = wb.load_runs(log, strict=False).problems
    assert problem.message.startswith("no tool call found: the file is an OpenWOP event log")


def test_the_mcp_sniff_told_the_exchanges_agrees_with_the_raw_sniff() -> None:
    """``sniff_mcp`` told a cassette's exchanges (the cassette loader's way, which reads their
    decoded bodies) says what it says alone of every cassette fixture, MCP's among them, and of
    an mcp-recorder cassette, whose requests are the messages themselves."""
    import gzip

    from helpers.paths import FIXTURES
    from workbench._load.cassette_yaml import load_yaml
    from workbench._load.cassettes import cassette_exchanges
    from workbench._load.mcp import sniff_mcp

    seen = {True: 0, False: 0}
    for path in sorted(FIXTURES.rglob("*")):
        name = path.name.removesuffix(".gz")
        if not name.endswith((".yaml", ".yml", ".json")):
            continue
        data = path.read_bytes()
        data = gzip.decompress(data) if path.name.endswith(".gz") else data
        try:
            value = load_yaml(data, str(path)) if name.endswith(("yaml", "yml")) else None
            value = json.loads(data) if value is None else value
        except (wb.LoadError, ValueError):
            continue
        exchanges = cassette_exchanges(value)
        if not exchanges:
            continue
        said = sniff_mcp(value)
        assert sniff_mcp(value, exchanges) == said, path
        seen[said] += 1
    recorder = {
        "interactions": [
            {
                "request": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {}},
                "response": {"jsonrpc": "2.0", "id": 1, "result": {}},
            }
        ]
    }
    assert sniff_mcp(recorder, cassette_exchanges(recorder) or []) is True
    assert seen[True] >= 3 and seen[False] >= 50, seen
