"""Loaders and promotion against the shapes real recorded runs come in (SPEC R1-R4, R30, R31).

Each test writes one input as a user would bring it, loads it through the public entry point and
checks what the SPEC asks: boundaries kept (nothing dropped silently), failures stay failures,
bad input named by file, place and field, and promoted suites valid with a passing self-test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from helpers.paths import FIXTURES, OFFICIAL
from workbench import ErrorRule, LoadError, load_runs, promote, validate_suite
from workbench._promote.redact import REDACTED, redact
from workbench.cli import main


def _write(tmp_path: Path, name: str, data: Any = None, text: str | None = None) -> Path:
    path = tmp_path / name
    path.write_text(text if text is not None else json.dumps(data), encoding="utf-8")
    return path


def _tc(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _call_msg(*calls: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": list(calls)}


def _promoted_ok(result: Any) -> Any:
    promotion = promote(result)
    assert validate_suite(promotion.suite.data) == []
    assert promotion.self_test is not None and promotion.self_test.passed
    return promotion


def _events(*events: dict[str, Any]) -> str:
    return "".join(json.dumps(e) + "\n" for e in events)


def _ev(seq: int | None, kind: str, payload: dict[str, Any], run: str = "r1") -> dict[str, Any]:
    doc: dict[str, Any] = {"eventId": f"e-{run}-{seq}", "runId": run, "type": kind}
    doc["payload"] = payload
    if seq is not None:
        doc["sequence"] = seq
    return doc


# --- OpenAI chat -------------------------------------------------------------------------------


def test_openai_arguments_already_an_object_are_the_args(tmp_path: Path) -> None:
    """R1: some SDK dumps store ``function.arguments`` decoded; it is taken as the args."""
    path = _write(
        tmp_path,
        "t.json",
        [
            _call_msg(_tc("c1", "lookup", {"id": 7})),
            {"role": "tool", "tool_call_id": "c1", "content": "ok"},
        ],
    )
    (boundary,) = load_runs(path).boundaries
    assert boundary.args == {"id": 7}


def test_openai_tool_reply_with_null_content_promotes_to_empty_content(tmp_path: Path) -> None:
    """R1, R30: ``content: null`` on a tool message is a success with no text, not a crash."""
    path = _write(
        tmp_path,
        "t.json",
        [
            _call_msg(_tc("c1", "f", "{}")),
            {"role": "tool", "tool_call_id": "c1", "content": None},
            {"role": "assistant", "content": "done"},
        ],
    )
    result = load_runs(path)
    assert result.boundaries[0].response is None and not result.boundaries[0].is_error
    promotion = _promoted_ok(result)
    entry = promotion.suite.data["tasks"][0]["fixtures"]["toolResponses"][0]
    assert entry["response"] == {"content": []}


def test_openai_input_text_parts_are_served_as_mcp_text(tmp_path: Path) -> None:
    """R3, R17: a failure whose text sits in ``input_text`` parts replays with that text.

    Before the fix the parts were served as recorded, and R17 error text takes ``text`` blocks
    only, so the replayed failure lost its message.
    """
    parts = [{"type": "input_text", "text": "Error: upstream down"}, {"type": "text", "text": "x"}]
    path = _write(
        tmp_path,
        "t.json",
        [
            _call_msg(_tc("c1", "f", "{}")),
            {"role": "tool", "tool_call_id": "c1", "content": parts},
            {"role": "assistant", "content": "sorry"},
        ],
    )
    result = load_runs(path)
    assert result.boundaries[0].is_error
    promotion = _promoted_ok(result)
    entry = promotion.suite.data["tasks"][0]["fixtures"]["toolResponses"][0]
    assert entry["isError"] is True
    assert [b["type"] for b in entry["response"]["content"]] == ["text", "text"]
    assert entry["response"]["content"][0]["text"] == "Error: upstream down"


def test_openai_tool_name_field_and_empty_tool_calls_are_accepted(tmp_path: Path) -> None:
    """R1, R4: ``name`` on tool messages and ``tool_calls: []`` are ordinary; the answer is the
    last assistant text."""
    path = _write(
        tmp_path,
        "t.json",
        [
            {"role": "assistant", "content": "let me see", "tool_calls": []},
            _call_msg(_tc("c1", "f", "{}")),
            {"role": "tool", "tool_call_id": "c1", "name": "f", "content": "r"},
            {"role": "assistant", "content": "done", "tool_calls": None},
        ],
    )
    run = load_runs(path).run
    assert len(run) == 1 and run.answer == "done"


def test_openai_regex_error_rule_marks_failures(tmp_path: Path) -> None:
    """R3: ``ErrorRule.regex`` decides failures; the rule is recorded on the suite."""
    path = _write(
        tmp_path,
        "t.json",
        [
            _call_msg(_tc("c1", "f", "{}"), _tc("c2", "f", '{"a": 1}')),
            {"role": "tool", "tool_call_id": "c1", "content": "status: FAILED (503)"},
            {"role": "tool", "tool_call_id": "c2", "content": "status: ok"},
        ],
    )
    result = load_runs(path, error_rule=ErrorRule.regex(r"FAILED \(\d+\)"))
    assert [b.is_error for b in result.boundaries] == [True, False]
    promotion = _promoted_ok(result)
    assert promotion.suite.data["x-promotion"]["errorRule"]["kind"] == "regex"


def test_openai_non_ascii_and_long_transcript_round_trip(tmp_path: Path) -> None:
    """R1, R30: non-ASCII args and text survive, and a 2,000-call transcript promotes."""
    messages: list[dict[str, Any]] = []
    for i in range(2000):
        messages.append(_call_msg(_tc(f"c{i}", "搜索", json.dumps({"q": f"日本 {i}"}))))
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"résultat {i}"})
    messages.append({"role": "assistant", "content": "终"})
    result = load_runs(_write(tmp_path, "长.json", messages))
    assert len(result.boundaries) == 2000
    assert result.boundaries[1999].args == {"q": "日本 1999"}
    promotion = _promoted_ok(result)
    assert promotion.suite.data["tasks"][0]["input"]["answer"] == "终"


def test_chat_completion_response_is_refused_with_a_clear_reason(tmp_path: Path) -> None:
    """R2: one completion response holds calls with no results; the error says so."""
    data = {
        "object": "chat.completion",
        "choices": [{"index": 0, "message": _call_msg(_tc("c1", "f", "{}"))}],
    }
    with pytest.raises(LoadError, match=r"one chat completion response .*not a transcript"):
        load_runs(_write(tmp_path, "resp.json", data))


def test_claude_code_s_final_result_alone_says_how_to_record_the_calls(tmp_path: Path) -> None:
    """R35: ``claude -p --output-format json`` writes one ``result`` object (the answer, the
    turn count, the cost) and no call; that is said, with the flag that records them. The
    members are those of real ones (TomOfekKafka/ThePerfectSnake's ``claude-output.json``, no
    licence: not copied); the values here are SYNTHETIC."""
    data = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "duration_ms": 55916,
        "num_turns": 14,
        "result": "**DONE**",
        "session_id": "5f0c1f3e-0000-4000-8000-000000000000",
        "total_cost_usd": 0.42,
    }
    with pytest.raises(LoadError, match=r"Claude Code's final result of a run of 14 turns"):
        load_runs(_write(tmp_path, "claude-output.json", data))
    with pytest.raises(LoadError, match=r"--output-format stream-json --verbose"):
        load_runs(_write(tmp_path, "claude-output.json", data))


def test_jsonl_chat_records_load_one_run_per_line(tmp_path: Path) -> None:
    """R1: a JSONL file of ``{"messages": [...]}`` records (the fine-tuning / eval dataset
    layout) is chat, not an OpenWOP log; before the fix every line was 'event has no type'."""
    record = {
        "messages": [
            _call_msg(_tc("c", "f", "{}")),
            {"role": "tool", "tool_call_id": "c", "content": "x"},
        ]
    }
    path = _write(tmp_path, "data.jsonl", text=_events(record, {"messages": []}, record))
    result = load_runs(path)
    assert result.format == "openai-chat"
    assert [len(run) for run in result.runs] == [1, 0, 1]


def test_jsonl_chat_problem_names_the_line(tmp_path: Path) -> None:
    """R2: in a JSONL chat file a problem names the file's line, the message and the field."""
    good = {
        "messages": [
            _call_msg(_tc("c", "f", "{}")),
            {"role": "tool", "tool_call_id": "c", "content": "x"},
        ]
    }
    bad = {"messages": [{"role": "tool", "tool_call_id": "zz", "content": "x"}]}
    path = _write(tmp_path, "data.jsonl", text=_events(good, bad))
    with pytest.raises(LoadError) as caught:
        load_runs(path)
    (problem,) = caught.value.problems
    assert problem.line == 2 and problem.where == "line 2, message 0"
    assert problem.field == "tool_call_id"


def test_jsonl_of_wrapped_messages_is_one_run(tmp_path: Path) -> None:
    """R1: a JSONL of one run's messages, bare or wrapped as ``{"message": {...}}`` (agent
    session logs), is one Anthropic run."""
    lines = [
        {"type": "user", "message": {"role": "user", "content": "hi"}},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": "t1", "name": "Read", "input": {"path": "a"}}
                ],
            },
        },
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": "text",
                        "is_error": True,
                    }
                ],
            },
        },
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "could not read"}],
            },
        },
    ]
    result = load_runs(_write(tmp_path, "session.jsonl", text=_events(*lines)))
    assert result.format == "anthropic"
    (boundary,) = result.boundaries
    assert boundary.is_error and boundary.location.endswith(":2")
    assert result.run.answer == "could not read"


# --- OpenAI Responses API ------------------------------------------------------------------------


def test_responses_api_items_load_as_their_own_format(tmp_path: Path) -> None:
    """R1: ``function_call`` / ``function_call_output`` items pair by ``call_id``; detected."""
    items = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "function_call", "call_id": "c1", "name": "lookup", "arguments": '{"id": 1}'},
        {"type": "function_call_output", "call_id": "c1", "output": "Error: not found"},
        {"type": "reasoning", "summary": []},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "none"}],
        },
    ]
    result = load_runs(_write(tmp_path, "resp.json", items))
    assert result.format == "openai-responses"
    (boundary,) = result.boundaries
    assert boundary.args == {"id": 1} and boundary.is_error
    assert result.run.answer == "none"
    assert result.run.metadata["otherItems"] == [{"type": "reasoning", "summary": []}]
    _promoted_ok(result)


def test_responses_api_request_and_response_object_and_mcp_call(tmp_path: Path) -> None:
    """R1, R3: ``{input, output}`` is one run; an ``mcp_call`` with ``error`` is a failure."""
    data = {
        "id": "resp_1",
        "input": [
            {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "fine"},
        ],
        "output": [
            {
                "type": "mcp_call",
                "id": "m1",
                "name": "search",
                "arguments": "{}",
                "server_label": "docs",
                "output": None,
                "error": "timeout",
            }
        ],
    }
    result = load_runs(_write(tmp_path, "r.json", data))
    assert [b.is_error for b in result.boundaries] == [False, True]
    assert result.boundaries[1].extra["server_label"] == "docs"
    _promoted_ok(result)


def test_responses_api_unanswered_call_names_item_and_field(tmp_path: Path) -> None:
    """R2: an item problem names the item index and ``call_id``."""
    items = [
        {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c9", "output": "x"},
    ]
    with pytest.raises(LoadError) as caught:
        load_runs(_write(tmp_path, "r.json", items))
    assert [(p.where, p.field) for p in caught.value.problems] == [
        ("item 1", "call_id"),
        ("item 0", "call_id"),
    ]


# --- Anthropic ---------------------------------------------------------------------------------


def _use(call_id: str, name: str = "f") -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": {"n": call_id}}


def test_anthropic_image_beside_text_and_is_error_without_content(tmp_path: Path) -> None:
    """R3, R17: image blocks are kept beside text; ``is_error`` with no content still fails."""
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}}
    data = {
        "system": "be brief",
        "messages": [
            {"role": "assistant", "content": [_use("t1")]},
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": "t1",
                        "content": [{"type": "text", "text": "see"}, image],
                    }
                ],
            },
            {"role": "assistant", "content": [_use("t2"), _use("t3", "g")]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t2", "is_error": True},
                    {"type": "tool_result", "tool_use_id": "t3", "content": "ok"},
                ],
            },
        ],
    }
    result = load_runs(_write(tmp_path, "a.json", data))
    first, second, _third = result.boundaries
    assert first.response["content"][1] == image
    assert second.is_error and second.response == {"content": []}
    assert result.run.metadata["system"] == "be brief"
    promotion = _promoted_ok(result)
    entries = promotion.suite.data["tasks"][0]["fixtures"]["toolResponses"]
    assert [e.get("isError", False) for e in entries] == [False, True, False]


def test_anthropic_messages_response_alone_is_refused_clearly(tmp_path: Path) -> None:
    """R2: a single Messages API response is one turn with unanswered tool_use blocks."""
    data = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "content": [_use("t1")],
        "stop_reason": "tool_use",
    }
    with pytest.raises(LoadError, match="one Anthropic Messages API response"):
        load_runs(_write(tmp_path, "m.json", data))


def test_anthropic_server_tool_use_is_a_boundary_not_dropped(tmp_path: Path) -> None:
    """R2, R4: ``server_tool_use`` + ``web_search_tool_result`` were detected as OpenAI chat
    and silently dropped; they are Anthropic boundaries, an ``*_error`` result a failure."""
    data = [
        {"role": "user", "content": "news?"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "searching"},
                {
                    "type": "server_tool_use",
                    "id": "s1",
                    "name": "web_search",
                    "input": {"query": "q"},
                },
                {
                    "type": "web_search_tool_result",
                    "tool_use_id": "s1",
                    "content": {
                        "type": "web_search_tool_result_error",
                        "error_code": "unavailable",
                    },
                },
                {
                    "type": "server_tool_use",
                    "id": "s2",
                    "name": "web_search",
                    "input": {"query": "q"},
                },
                {
                    "type": "web_search_tool_result",
                    "tool_use_id": "s2",
                    "content": [{"type": "web_search_result", "url": "https://e.x", "title": "t"}],
                },
                {"type": "text", "text": "here it is"},
            ],
        },
    ]
    result = load_runs(_write(tmp_path, "srv.json", data))
    assert result.format == "anthropic"
    failed, ok = result.boundaries
    assert failed.is_error and failed.error_code == "unavailable"
    assert failed.extra["blockType"] == "server_tool_use"
    assert not ok.is_error and ok.response["content"][0]["type"] == "web_search_result"
    assert result.run.answer == "here it is"
    _promoted_ok(result)


# --- OpenWOP -----------------------------------------------------------------------------------


def test_openwop_v1_input_and_result_names_are_read(tmp_path: Path) -> None:
    """R1, R3: v1 hosts write ``input``/``args`` and ``result``; they were left in extras and
    the boundary had no args and no response (promoted as an args-any entry with empty text)."""
    text = _events(
        _ev(0, "agent.toolCalled", {"callId": "c1", "toolName": "f", "input": {"a": 1}}),
        _ev(1, "agent.toolReturned", {"callId": "c1", "toolName": "f", "result": {"ok": 1}}),
        _ev(2, "agent.toolCalled", {"callId": "c2", "toolName": "g", "args": {"b": 2}}),
        _ev(
            3,
            "agent.toolReturned",
            {
                "callId": "c2",
                "toolName": "g",
                "result": {"content": [{"type": "text", "text": "no"}], "isError": True},
            },
        ),
    )
    result = load_runs(_write(tmp_path, "v1.jsonl", text=text))
    first, second = result.boundaries
    assert (first.args, first.response, first.extra) == ({"a": 1}, {"ok": 1}, {})
    assert second.args == {"b": 2} and second.is_error and second.error_message == "no"
    _promoted_ok(result)


def test_openwop_v2_inputs_win_over_v1_names(tmp_path: Path) -> None:
    """R4: when both are present the v2 member is the args and the other is kept in extras."""
    text = _events(
        _ev(
            0,
            "agent.tool-called",
            {"callId": "c1", "toolName": "f", "inputs": {"a": 1}, "input": "raw"},
        ),
        _ev(1, "agent.tool-returned", {"callId": "c1", "outcome": "o", "result": "r"}),
    )
    (boundary,) = load_runs(_write(tmp_path, "x.jsonl", text=text)).boundaries
    assert boundary.args == {"a": 1} and boundary.response == "o"
    assert boundary.extra == {"input": "raw", "returned.result": "r"}


def test_openwop_forbidden_without_error_and_mcp_is_error(tmp_path: Path) -> None:
    """R3: ``status: forbidden`` alone and an MCP ``isError: true`` outcome are failures."""
    text = _events(
        _ev(0, "agent.tool-called", {"callId": "c1", "toolName": "f", "inputs": {}}),
        _ev(1, "agent.tool-returned", {"callId": "c1", "status": "forbidden"}),
        _ev(2, "agent.tool-called", {"callId": "c2", "toolName": "f", "inputs": {}}),
        _ev(
            3,
            "agent.tool-returned",
            {
                "callId": "c2",
                "outcome": {"content": [{"type": "text", "text": "quota"}], "isError": True},
            },
        ),
    )
    result = load_runs(_write(tmp_path, "x.jsonl", text=text))
    assert [(b.is_error, b.error_code, b.error_message) for b in result.boundaries] == [
        (True, "forbidden", "forbidden"),
        (True, None, "quota"),
    ]
    promotion = _promoted_ok(result)
    assert all(e["isError"] for e in promotion.suite.data["tasks"][0]["fixtures"]["toolResponses"])


def test_openwop_events_object_and_interleaved_runs(tmp_path: Path) -> None:
    """R1: ``{"events": [...]}`` loads; interleaved runs are separated by ``runId``."""
    events = [
        _ev(0, "agent.tool-called", {"callId": "c1", "toolName": "f", "inputs": {}}, run="A"),
        _ev(0, "agent.tool-called", {"callId": "c1", "toolName": "g", "inputs": {}}, run="B"),
        _ev(1, "agent.tool-returned", {"callId": "c1", "outcome": "a"}, run="A"),
        _ev(1, "agent.tool-returned", {"callId": "c1", "outcome": "b"}, run="B"),
    ]
    result = load_runs(_write(tmp_path, "log.json", {"events": events}))
    assert [(r.run_id, [b.tool for b in r]) for r in result.runs] == [("A", ["f"]), ("B", ["g"])]
    promotion = _promoted_ok(result)
    assert promotion.task_ids == ("a", "b")


def test_openwop_without_sequence_is_read_in_file_order(tmp_path: Path) -> None:
    """R1, R2: with no ``sequence`` events keep file order (timestamps are not compared); a
    result written before its call is a problem naming the line and ``payload.callId``."""
    text = _events(
        {
            "type": "agent.tool-returned",
            "runId": "r",
            "timestamp": "2024-01-01T00:00:02Z",
            "payload": {"callId": "c1", "outcome": "a"},
        },
        {
            "type": "agent.tool-called",
            "runId": "r",
            "timestamp": "2024-01-01T00:00:01Z",
            "payload": {"callId": "c1", "toolName": "f", "inputs": {}},
        },
    )
    with pytest.raises(LoadError) as caught:
        load_runs(_write(tmp_path, "ts.jsonl", text=text))
    assert [(p.line, p.field) for p in caught.value.problems] == [
        (1, "payload.callId"),
        (2, "payload.callId"),
    ]


def test_zero_boundary_run_promotes_to_a_valid_suite_with_a_note(tmp_path: Path) -> None:
    """R30, R35: a log with only non-tool events loads (strict=False) as one run with no
    boundaries and the problem that says so; promotion refuses it unless allow_empty, and then
    its suite is valid (officially too once extension members go) and says the task has no
    calls."""
    text = _events(_ev(0, "run.started", {}), _ev(1, "run.completed", {}))
    result = load_runs(_write(tmp_path, "quiet.jsonl", text=text), strict=False)
    assert result.run.boundaries == ()
    assert [p.message.split(":")[0] for p in result.problems] == ["no tool call found"]
    with pytest.raises(ValueError, match="record no tool call"):
        promote(result)
    promotion = promote(result, allow_empty=True)
    assert promotion.self_test is not None and promotion.self_test.passed
    assert promotion.empty_tasks == ("run",)
    assert any("recorded no tool call" in line for line in promotion.summary_lines())
    official = json.loads((OFFICIAL / "agent-eval-suite.schema.json").read_text())
    data = promotion.suite.data
    stripped = {k: v for k, v in data.items() if k != "x-promotion"}
    stripped["tasks"] = [
        {"taskId": t["taskId"], "input": t["input"], "expected": t["expected"]}
        for t in data["tasks"]
    ]
    registry_schema = jsonschema.Draft202012Validator(
        official,
        registry=_registry(),
    )
    assert list(registry_schema.iter_errors(stripped)) == []


def _registry() -> Any:
    from referencing import Registry, Resource

    resources = []
    for path in OFFICIAL.glob("*.schema.json"):
        doc = json.loads(path.read_text())
        resources.append((doc["$id"], Resource.from_contents(doc)))
    return Registry().with_resources(resources)


# --- promotion ids, answers, size --------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "My Run.json",
        "123-abc.json",
        "-x.json",
        "日本語.json",
        "UPPER.JSON",
        "___.json",
        ".hidden.json",
        "a..b.json",
    ],
)
def test_suite_id_from_odd_file_names_is_schema_valid(tmp_path: Path, name: str) -> None:
    """R30, R9: the default suite id matches the official ``suiteId`` pattern for any name."""
    data = [_call_msg(_tc("c", "f", "{}")), {"role": "tool", "tool_call_id": "c", "content": "x"}]
    promotion = _promoted_ok(load_runs(_write(tmp_path, name, data)))
    pattern = json.loads((OFFICIAL / "agent-eval-suite.schema.json").read_text())
    assert jsonschema.Draft202012Validator(pattern["properties"]["suiteId"]).is_valid(
        promotion.suite.suite_id
    )


def test_task_ids_from_odd_record_ids_are_valid_and_unique(tmp_path: Path) -> None:
    """R30: record ids with spaces, case, unicode, leading hyphens and duplicates give valid,
    unique task ids."""
    messages = [
        _call_msg(_tc("c", "f", "{}")),
        {"role": "tool", "tool_call_id": "c", "content": "x"},
    ]
    ids: list[Any] = ["A B", "a-b", "日本", "-1", 1, "1", "--"]
    records = [{"task_id": tid, "trial": 0, "traj": messages} for tid in ids]
    promotion = _promoted_ok(load_runs(_write(tmp_path, "recs.json", records)))
    assert len(set(promotion.task_ids)) == len(ids)
    for task_id in promotion.task_ids:
        assert task_id[0].isalnum() and task_id == task_id.lower()


def test_object_answer_and_large_args_promote_and_self_test(tmp_path: Path) -> None:
    """R30: an object answer is the golden value; 1 MB of args promote and replay exactly."""
    big = {"blob": "x" * 1_000_000, "rows": list(range(1000))}
    text = _events(
        _ev(0, "agent.tool-called", {"callId": "c1", "toolName": "f", "inputs": big}),
        _ev(1, "agent.tool-returned", {"callId": "c1", "outcome": {"ok": True}}),
        _ev(
            2,
            "agent.decided",
            {"decision": {"outcome": "completed", "answer": {"refund": 12.5, "ok": True}}},
        ),
    )
    promotion = _promoted_ok(load_runs(_write(tmp_path, "big.jsonl", text=text)))
    task = promotion.suite.data["tasks"][0]
    assert task["expected"]["match"]["value"]["answer"] == {"refund": 12.5, "ok": True}
    assert task["fixtures"]["toolResponses"][0]["args"] == big


# --- redaction ---------------------------------------------------------------------------------


def test_redaction_in_lists_json_text_urls_and_name_value_pairs() -> None:
    """R31: credentials nested in lists, in JSON (also escaped or Python-repr) text, in URL
    query strings and user info, and in HAR-style ``{name, value}`` header lists."""
    value = {
        "items": [{"api_key": "k1"}, [{"password": "p"}]],
        "text": json.dumps({"auth": {"token": "tok_123456"}}),
        "double": json.dumps(json.dumps({"api_key": "abc", "q": "keep"})),
        "repr": "{'client_secret': 'abc12345', 'name': 'bob'}",
        "url": "https://u:hunter2@db.example.com/x?access_token=abc123&code=keep",
        "headers": [
            {"name": "X-Api-Key", "value": "abc"},
            {"name": "Accept", "value": "json"},
            {"name": "token_count", "value": 5},
        ],
    }
    out, found = redact(value)
    flat = json.dumps(out)
    for secret in ("k1", '"p"', "tok_123456", "abc12345", "hunter2", "abc123", '"abc"'):
        assert secret not in flat, secret
    assert "keep" in flat and "bob" in flat and '"json"' in flat and out["headers"][2]["value"] == 5
    assert out["headers"][0]["value"] == REDACTED
    assert {r.path for r in found} >= {
        "items[0].api_key",
        "items[1][0].password",
        "text > auth.token",  # inside the JSON text: the path within it, after ' > '
        "double",
        "repr",
        "url",
        "headers[0].value",
    }


def test_promotion_redacts_nested_credentials_and_self_test_passes(tmp_path: Path) -> None:
    """R31, R30: redaction is applied to args and fixtures alike, so the self-test still
    replays the redacted calls exactly."""
    args = {
        "headers": [{"name": "Authorization", "value": "Bearer abcDEF123456"}],
        "url": "https://api.example.com/v1?api_key=s3cr3t99",
    }
    data = [
        _call_msg(_tc("c", "http", json.dumps(args))),
        {"role": "tool", "tool_call_id": "c", "content": json.dumps({"token": "zz99xx"})},
    ]
    promotion = _promoted_ok(load_runs(_write(tmp_path, "h.json", data)))
    text = json.dumps(promotion.suite.data["tasks"])
    assert "abcDEF123456" not in text and "s3cr3t99" not in text and "zz99xx" not in text
    assert promotion.redactions


# --- CLI ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        (
            "bad.jsonl",
            '{"type": "agent.tool-called", "payload": {"toolName": "f"}}\n',
            "bad.jsonl: line 1 (field payload.callId)",
        ),
        (
            "bad.json",
            json.dumps([{"role": "tool", "tool_call_id": 3}]),
            "bad.json: message 0 (field tool_call_id)",
        ),
        (
            "bad2.json",
            json.dumps(
                {
                    "messages": [
                        {
                            "role": "assistant",
                            "content": [{"type": "tool_use", "name": "f", "input": {}}],
                        }
                    ]
                }
            ),
            "bad2.json: messages[0], block 0 (field id)",
        ),
        (
            "recs.jsonl",
            '{"messages": []}\n{"messages": [{"role": "tool"}]}\n',
            "recs.jsonl: line 2, message 0 (field tool_call_id)",
        ),
        (
            "resp.json",
            json.dumps({"object": "chat.completion", "choices": [{"message": {}}]}),
            "resp.json: (root): this is one chat completion response",
        ),
    ],
)
def test_cli_names_file_place_and_field_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: str, expected: str
) -> None:
    """R2: the CLI's message for bad input names the file, the line/record/message and the
    field, and the exit code is 2."""
    path = _write(tmp_path, name, text=content)
    code = main(["promote", str(path), "-o", str(tmp_path / "out.json")])
    assert code == 2
    assert expected in capsys.readouterr().err


# --- round 5: real recordings in shapes not seen before ------------------------------------------

_TAU2 = FIXTURES / "tau2-bench"


@pytest.mark.parametrize(
    ("name", "runs", "calls", "failed"),
    [
        ("adaptive_agent_airline_list.tasks-13-23-46.json", 3, 17, 1),
        ("adaptive_agent_airline_wrapped.tasks-7-46-48.json", 3, 9, 1),
    ],
)
def test_tau2_leaderboard_submission_containers_load_as_tau2(
    capsys: pytest.CaptureFixture[str], name: str, runs: int, calls: int, failed: int
) -> None:
    """R34, R35: a leaderboard submission's simulations alone (a JSON array, once taken for chat
    records with 742 problems) or in the submitter's own object (once "cannot tell the format")
    load as tau2-bench, a run a simulation, to fixtures/tau2-bench/SOURCE.md's hand counts."""
    result = load_runs(_TAU2 / name)
    assert result.format == "tau2-bench"
    assert (len(result.runs), len(result.boundaries)) == (runs, calls)
    assert sum(b.is_error for b in result.boundaries) == failed
    assert {b.agent_id for b in result.boundaries} == {"assistant"}
    assert main(["boundaries", str(_TAU2 / name)]) == 0
    out = capsys.readouterr().out
    assert f"{calls} tool boundaries in {runs} runs, {failed} failed call" in out


@pytest.mark.parametrize("fmt", ["auto", "tau2-bench"])
def test_a_tau2_simulation_saved_alone_loads_as_that_simulation(tmp_path: Path, fmt: str) -> None:
    """R34, R35: tau2 forks save each simulation as a file of its own (one simulation object,
    no ``simulations`` array). It was read as an OpenAI chat transcript and refused with a
    "function.name missing" problem a call, and ``--format tau2-bench`` said it looked like a
    chat transcript. Each simulation of a real results file, saved alone (indented, as such
    files are), loads as the same run, with places that start at its messages."""
    real = _TAU2 / "blakeelias_tau2_airline_relaxed_grok-3-mini.json"
    whole = load_runs(real)
    assert (len(whole.runs), len(whole.boundaries)) == (4, 16)  # SOURCE.md's hand count
    assert sum(b.is_error for b in whole.boundaries) == 1
    simulations = json.loads(real.read_text(encoding="utf-8"))["simulations"]
    for number, (simulation, run) in enumerate(zip(simulations, whole.runs, strict=True)):
        path = tmp_path / f"simulation-{number}.json"
        path.write_text(json.dumps(simulation, indent=1), encoding="utf-8")
        alone = load_runs(path, format=fmt, strict=False)
        assert alone.format == "tau2-bench"
        assert len(alone.runs) == 1
        got = [(b.call_id, b.tool, b.args, b.is_error) for b in alone.runs[0].boundaries]
        assert got == [(b.call_id, b.tool, b.args, b.is_error) for b in run.boundaries]
        if not got:  # trial 0 makes no call: said so, as for any file with none (R35)
            assert [p.message[:18] for p in alone.problems] == ["no tool call found"]
            continue
        assert not alone.problems
        assert all(b.location.startswith(f"{path}: messages[") for b in alone.boundaries)


def test_tau2_wrapper_names_the_model_and_keeps_a_simulation_with_no_message() -> None:
    """R34, R40: the wrapper's ``model`` is the conversation's model; the simulation that ended in
    ``infrastructure_error`` with no message is a run with no boundary, not a problem."""
    result = load_runs(_TAU2 / "adaptive_agent_airline_wrapped.tasks-7-46-48.json")
    first, *rest = result.runs
    assert (len(first.boundaries), first.metadata["termination_reason"]) == (
        0,
        "infrastructure_error",
    )
    models = {r.conversation.model if r.conversation else None for r in rest}
    assert models == {"claude-opus-4-6"}


def test_tau2_array_sniff_needs_a_simulation_not_any_list_of_records(tmp_path: Path) -> None:
    """R34: a JSON array is tau2 only when its first item is a simulation (``messages`` beside
    ``task_id`` and ``termination_reason``); chat records with messages stay chat."""
    turns = [_call_msg(_tc("c1", "f", "{}")), {"role": "tool", "tool_call_id": "c1"}]
    chat = [{"id": "r1", "messages": turns}]
    assert load_runs(_write(tmp_path, "chat.json", chat)).format == "openai-chat"
    messages: list[dict[str, Any]] = [
        {"role": "assistant", "tool_calls": [{"id": "a", "name": "f", "arguments": {}}]},
        {"role": "tool", "id": "a", "content": "Error: no", "error": True},
    ]
    sim = {"id": "s", "task_id": "1", "termination_reason": "user_stop", "messages": messages}
    result = load_runs(_write(tmp_path, "sims.json", [sim]))
    assert (result.format, [b.is_error for b in result.boundaries]) == ("tau2-bench", [True])


# --- Gemini CLI headless stream-json -----------------------------------------------------------

# The shape of ``gemini -p ... --output-format stream-json`` output as a harness saved it (two
# sessions appended to one transcript, each after the harness's own prompt line, a ``ts`` on
# every record). Written here after a real transcript that has no licence to copy
# (metaphi-agent/figma-eval-010ac575-...-gemini_cli, ``transcript.jsonl``: 68 calls, 4 failed,
# the last never answered; it loaded as "not an OpenAI chat transcript" before this reader).
_GEMINI_STREAM: list[dict[str, Any]] = [
    {"type": "message", "role": "user", "content": "harness prompt", "ts": "t0"},
    {"type": "init", "timestamp": "t", "session_id": "6727b31e-aaaa", "model": "gemini-3-pro"},
    {"type": "message", "role": "user", "content": "Build the page."},
    {"type": "tool_use", "tool_name": "activate_skill", "tool_id": "a-1", "parameters": {"n": 1}},
    {
        "type": "tool_result",
        "tool_id": "a-1",
        "status": "error",
        "output": "Skill not found.",
        "error": {"type": "invalid_tool_params", "message": "Skill not found."},
        "ts": "t1",
    },
    {"type": "message", "role": "assistant", "content": "Reading ", "delta": True},
    {"type": "message", "role": "assistant", "content": "it.", "delta": True},
    {"type": "tool_use", "tool_name": "read_file", "tool_id": "r-1", "parameters": {"p": "a"}},
    {"type": "tool_result", "tool_id": "r-1", "status": "success", "output": ""},
    {"type": "message", "role": "assistant", "content": "Done: ", "delta": True},
    {"type": "message", "role": "assistant", "content": "deployed.", "delta": True},
    {"type": "result", "status": "success", "stats": {"tool_calls": 2}},
    {"type": "message", "role": "user", "content": "harness prompt again"},
    {"type": "init", "session_id": "65b8f8e4-bbbb", "model": "gemini-3-pro"},
    {"type": "tool_use", "tool_name": "run_shell_command", "tool_id": "s-1", "parameters": {}},
]


def test_gemini_cli_stream_json_loads_a_run_per_session(tmp_path: Path) -> None:
    """R34-R36: Gemini CLI's headless stream-json is read as gemini-cli, a run per ``init``;
    ``status: error`` fails with ``error.type`` as the code, the streamed pieces are one text,
    and the call the second session never answered is a problem naming its line (R2, R35)."""
    path = _write(tmp_path, "transcript.jsonl", text=_events(*_GEMINI_STREAM))
    with pytest.raises(LoadError) as raised:
        load_runs(path)
    assert [(p.line, p.field) for p in raised.value.problems] == [(15, "tool_id")]
    result = load_runs(path, strict=False)
    assert result.format == "gemini-cli"
    first, second = result.runs
    assert (first.run_id, second.run_id) == ("6727b31e-aaaa", "65b8f8e4-bbbb")
    assert [(b.tool, b.is_error, b.error_code) for b in first.boundaries] == [
        ("activate_skill", True, "invalid_tool_params"),
        ("read_file", False, None),
    ]
    assert first.boundaries[0].error_message == "Skill not found."
    assert first.answer == "Done: deployed."
    assert first.metadata["result"]["status"] == "success"
    assert first.conversation is not None
    roles = [(m["role"], m["content"]) for m in first.conversation.messages]
    assert roles[:2] == [("user", "harness prompt"), ("user", "Build the page.")]
    assert ("assistant", "Reading it.") in roles
    assert second.boundaries == ()
    assert main(["boundaries", str(path)]) == 2
    assert main(["boundaries", "--skip-problems", str(path)]) == 0


def test_gemini_cli_stream_json_bad_status_names_line_and_field(tmp_path: Path) -> None:
    """R35: a result whose ``status`` is neither success nor error is a problem, not a guess."""
    records = [*_GEMINI_STREAM[1:4], {**_GEMINI_STREAM[4], "status": "failed"}]
    path = _write(tmp_path, "stream.jsonl", text=_events(*records))
    result = load_runs(path, strict=False)
    assert [(p.line, p.field) for p in result.problems] == [(4, "status")]
    assert "unknown status 'failed'" in result.problems[0].message
    _promoted_ok(load_runs(_write(tmp_path, "ok.jsonl", text=_events(*_GEMINI_STREAM[:12]))))
