"""Codex rollouts, mcp-recorder cassettes (SPEC R34, R36) on SYNTHETIC files written here.

The files below are made by the tests from the formats' documented shapes and are synthetic,
not recordings. Both formats have real recordings too (fixtures/codex/, fixtures/mcp/, loaded in
tests/test_load_real_recordings.py); the synthetic ones here pin the signals those lack
(exec_command_end before its output, a failed apply_patch, exit 127, a JSON-RPC error reply, a
server's own request whose id is a client request's id).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import workbench as wb
from helpers.paths import FIXTURES


def _rollout(tmp_path: Path, records: list[dict[str, Any]]) -> Path:
    path = tmp_path / "rollout-2026-01-01T00-00-00-synthetic.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def _item(payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": "2026-01-01T00:00:00Z", "type": "response_item", "payload": payload}


def test_codex_exit_codes_from_events_structured_output_and_text_mark_failures(
    tmp_path: Path,
) -> None:
    """R36: exec_command_end exit codes (before or after the output), structured output
    metadata and ``Process exited with code N`` text; custom_tool_call and web_search_call
    are boundaries; bookkeeping records are counted (R35)."""
    records = [
        {"type": "session_meta", "payload": {"id": "synthetic-1", "cli_version": "0.0"}},
        {"type": "turn_context", "payload": {"model": "gpt-x"}},
        _item(
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}
        ),
        _item(
            {
                "type": "function_call",
                "name": "shell",
                "call_id": "c1",
                "arguments": json.dumps({"command": ["false"]}),
            }
        ),
        {
            "type": "event_msg",
            "payload": {"type": "exec_command_end", "call_id": "c1", "exit_code": 1},
        },
        _item({"type": "function_call_output", "call_id": "c1", "output": "boom"}),
        _item({"type": "function_call", "name": "shell", "call_id": "c2", "arguments": "{}"}),
        _item(
            {
                "type": "function_call_output",
                "call_id": "c2",
                "output": json.dumps({"output": "ok", "metadata": {"exit_code": 0}}),
            }
        ),
        _item(
            {
                "type": "custom_tool_call",
                "name": "apply_patch",
                "call_id": "c3",
                "input": "*** Begin Patch\n*** End Patch",
            }
        ),
        _item(
            {
                "type": "custom_tool_call_output",
                "call_id": "c3",
                "output": "Process exited with code 2\nerror: patch failed",
            }
        ),
        _item(
            {
                "type": "web_search_call",
                "id": "ws1",
                "status": "completed",
                "action": {"type": "search", "query": "q"},
            }
        ),
        _item({"type": "function_call", "name": "shell", "call_id": "c4", "arguments": "{}"}),
        _item({"type": "function_call_output", "call_id": "c4", "output": "late"}),
        {
            "type": "event_msg",
            "payload": {"type": "exec_command_end", "call_id": "c4", "exit_code": 127},
        },
        _item(
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "done"}],
            }
        ),
        {"type": "event_msg", "payload": {"type": "token_count"}},
    ]
    result = wb.load_runs(_rollout(tmp_path, records))
    assert result.format == "codex"
    got = [(b.call_id, b.tool, b.is_error, b.error_code) for b in result.boundaries]
    assert got == [
        ("c1", "shell", True, "exit_code:1"),
        ("c2", "shell", False, None),
        ("c3", "apply_patch", True, "exit_code:2"),
        ("ws1", "web_search", False, None),
        ("c4", "shell", True, "exit_code:127"),
    ]
    assert result.run.answer == "done"
    assert result.run.metadata["records"]["event_msg:token_count"] == 1
    assert result.run.conversation is not None and result.run.conversation.model == "gpt-x"
    promotion = wb.promote(result)
    assert promotion.self_test is not None and promotion.self_test.passed


def _frame(seq: int, direction: str, message: Any, **more: Any) -> dict[str, Any]:
    return {"seq": seq, "t": 1776658414.9 + seq / 1000, "dir": direction, "msg": message, **more}


def test_stdio_message_log_pairs_each_reply_with_the_request_sent_the_other_way(
    tmp_path: Path,
) -> None:
    """R2, R35: in a log that says which way each message went, the server's own request (id 7,
    ``sampling/createMessage``) and the client's answer to it do not close the client's
    ``tools/call`` id 7; a batch is read item by item; the recorder's malformed frame and its
    summary are counted records, not problems; a JSON-RPC error reply is a failure (R42)."""
    call = {"name": "search", "arguments": {"q": "x"}}
    frames = [
        _frame(0, "c2s", {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": call}),
        _frame(1, "s2c", {"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage"}),
        _frame(2, "c2s", {"jsonrpc": "2.0", "id": 7, "result": {"content": []}}),
        _frame(3, "c2s", "{not json", malformed=True),
        _frame(
            4,
            "c2s",
            [
                {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": call},
                {"jsonrpc": "2.0", "method": "notifications/progress"},
            ],
        ),
        _frame(5, "s2c", {"jsonrpc": "2.0", "id": 8, "error": {"code": -32000, "message": "down"}}),
        _frame(6, "s2c", {"jsonrpc": "2.0", "id": 7, "result": {"content": [], "isError": True}}),
        {"type": "summary", "requests": 3, "responses": 3, "malformed": 1, "errors": 1},
    ]
    path = tmp_path / "synthetic-session.jsonl"
    path.write_text("".join(json.dumps(f) + "\n" for f in frames), encoding="utf-8")
    result = wb.load_runs(path)
    assert result.format == "mcp" and not result.problems
    assert [(b.tool, b.is_error, b.error_code) for b in result.boundaries] == [
        ("search", True, None),
        ("search", True, "-32000"),
    ]
    records = result.run.metadata["records"]
    assert records["log:summary"] == records["log:malformed-frame"] == records["log:batch"] == 1
    assert records["rpc:sampling/createMessage"] == 1 and records["rpc:response"] == 1
    again = tmp_path / "synthetic-session.json"
    again.write_text(json.dumps(frames), encoding="utf-8")
    as_array = wb.load_runs(again).boundaries
    assert [(b.call_id, b.tool, b.response) for b in as_array] == [
        (b.call_id, b.tool, b.response) for b in result.boundaries
    ]


def test_stdio_message_log_entry_whose_message_is_not_json_rpc_is_a_problem_with_its_line(
    tmp_path: Path,
) -> None:
    """R35: an envelope around something that is not a JSON-RPC message names its line."""
    frames = [
        _frame(
            0, "c2s", {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "a"}}
        ),
        _frame(1, "s2c", {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}),
        _frame(2, "s2c", 5),
    ]
    path = tmp_path / "synthetic-session.jsonl"
    path.write_text("".join(json.dumps(f) + "\n" for f in frames), encoding="utf-8")
    result = wb.load_runs(path, strict=False)
    assert [b.tool for b in result.boundaries] == ["a"]
    assert [str(p) for p in result.problems] == [
        f'{path}: line 3 msg (field jsonrpc): not a JSON-RPC 2.0 message ("jsonrpc": "2.0")'
    ]


def test_mcp_recorder_cassette_json_rpc_error_is_a_failure_kept_whole(tmp_path: Path) -> None:
    """R42: a JSON-RPC error reply is a failure; its error object is kept as the response."""
    cassette = {
        "version": "1.0",
        "metadata": {"server_url": "http://127.0.0.1:1/mcp", "transport_type": "http"},
        "interactions": [
            {
                "type": "jsonrpc_request",
                "request": {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}},
                "response": {"jsonrpc": "2.0", "id": 0, "result": {"capabilities": {}}},
            },
            {
                "type": "notification",
                "request": {"jsonrpc": "2.0", "method": "notifications/initialized"},
                "response": None,
            },
            {
                "type": "jsonrpc_request",
                "request": {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
                },
                "response": {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "result": {"content": [{"type": "text", "text": "3"}], "isError": False},
                },
            },
            {
                "type": "jsonrpc_request",
                "request": {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "tools/call",
                    "params": {"name": "add", "arguments": {"a": "x"}},
                },
                "response": {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "error": {"code": -32602, "message": "Invalid params", "data": {"a": 1}},
                },
            },
            {
                "type": "jsonrpc_request",
                "request": {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "tools/call",
                    "params": {"name": "add", "arguments": {}},
                },
                "response": {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "result": {"content": [], "isError": "true"},
                },
            },
        ],
    }
    path = tmp_path / "synthetic.cassette.json"
    path.write_text(json.dumps(cassette), encoding="utf-8")
    result = wb.load_runs(path, strict=False)
    assert result.format == "mcp"
    assert [(b.tool, b.is_error, b.error_code) for b in result.boundaries] == [
        ("add", False, None),
        ("add", True, "-32602"),
    ]
    assert result.boundaries[1].response == {
        "code": -32602,
        "message": "Invalid params",
        "data": {"a": 1},
    }
    # a wrongly typed isError is a problem, never a success (R35)
    assert [p.field for p in result.problems] == ["response.result.isError"]


def _attr(key: str, value: str) -> dict[str, Any]:
    return {"key": key, "value": {"stringValue": value}}


def _tool_span(span_id: str, start: int, *attrs: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {
        "traceId": "ab" * 16,
        "spanId": span_id,
        "name": "execute_tool lookup",
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 2_000_000),
        "attributes": [_attr("gen_ai.operation.name", "execute_tool"), *attrs],
        **more,
    }


def test_otel_tool_result_that_is_an_mcp_call_tool_result_is_served_as_it_is(
    tmp_path: Path,
) -> None:
    """R36, R42: a result that is an MCP CallToolResult is the response; its isError: true is a
    failure though the span's status is OK (ADK leaves an MCP tool's failure there), Google
    ADK's own attribute names are read in place of the GenAI ones, a non-boolean isError is a
    problem (R35), and the document's GenAI log records are counted records."""
    failed = json.dumps({"content": [{"type": "text", "text": "no such row"}], "isError": True})
    spans = [
        _tool_span(
            "01" * 8,
            1,
            _attr("gcp.vertex.agent.tool_call_args", '{"id": 7}'),
            _attr("gcp.vertex.agent.tool_response", failed),
            status={"code": 0},
        ),
        _tool_span(
            "02" * 8,
            5,
            _attr("gen_ai.tool.call.result", '{"content": [], "isError": "yes"}'),
        ),
        _tool_span("03" * 8, 9, _attr("gen_ai.tool.call.result", '{"rows": 1}')),
    ]
    logs = [{"traceId": "ab" * 16, "eventName": "gen_ai.choice", "body": {}}]
    document = {
        "resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": spans}]}],
        "resourceLogs": [{"resource": {}, "scopeLogs": [{"scope": {}, "logRecords": logs}]}],
    }
    path = tmp_path / "synthetic-trace.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    result = wb.load_runs(path, strict=False)
    assert result.format == "otel"
    first, last = result.boundaries
    assert (first.args, first.is_error, first.error_message) == ({"id": 7}, True, "no such row")
    assert first.response == json.loads(failed)
    assert (last.is_error, last.response) == (
        False,
        {"content": [{"type": "text", "text": '{"rows": 1}'}]},
    )
    assert [p.field for p in result.problems] == ["result.isError"]
    assert result.run.metadata["records"]["log:gen_ai.choice"] == 1


def test_otel_trace_in_grafana_tempo_shape_loads_like_otlp(tmp_path: Path) -> None:
    """R34: Tempo's trace API answers with the names OTLP had before 0.15 (``batches``,
    ``instrumentationLibrarySpans``) and string enums; it is detected and read the same."""
    span = _tool_span("04" * 8, 1, status={"code": "STATUS_CODE_ERROR", "message": "boom"})
    span["kind"] = "SPAN_KIND_INTERNAL"
    otlp = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": [span]}]}]}
    tempo = {
        "batches": [
            {
                "resource": {},
                "instrumentationLibrarySpans": [{"instrumentationLibrary": {}, "spans": [span]}],
            }
        ]
    }
    loaded = []
    for name, document in (("otlp", otlp), ("tempo", tempo)):
        path = tmp_path / f"synthetic-{name}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        result = wb.load_runs(path)
        assert result.format == "otel"
        loaded.append([(b.tool, b.is_error, b.error_message) for b in result.boundaries])
    assert loaded[0] == loaded[1] == [("lookup", True, "boom")]


def _chat_span(span_id: str, start: int, sent: list[Any], said: list[Any]) -> dict[str, Any]:
    return {
        "traceId": "ab" * 16,
        "spanId": span_id,
        "name": "chat gpt-4.1-mini",
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 1_000_000),
        "attributes": [
            _attr("gen_ai.operation.name", "chat"),
            _attr("gen_ai.input.messages", json.dumps(sent)),
            _attr("gen_ai.output.messages", json.dumps(said)),
        ],
    }


def test_otel_calls_only_the_model_calls_record_are_read_from_their_messages(
    tmp_path: Path,
) -> None:
    """R35: an instrumentation of the model client alone traces no tool span; the calls the
    model made (``tool_call`` parts) are still calls, answered by the ``tool_call_response``
    a later model call was sent, failed by the error rule (no flag); a handoff
    (``transfer_to_*``) answered by nothing ends its agent's run (R36). The same in the
    OpenAI instrumentation's older events (``gen_ai.choice``, ``gen_ai.tool.message``)."""
    user = {"role": "user", "parts": [{"type": "text", "content": "weather?"}]}
    calls = {
        "role": "assistant",
        "parts": [
            {
                "type": "tool_call",
                "id": "call_1",
                "name": "get_weather",
                "arguments": {"city": "P"},
            },
            {"type": "tool_call", "id": "call_2", "name": "transfer_to_billing", "arguments": {}},
        ],
    }
    answers = {
        "role": "tool",
        "parts": [{"type": "tool_call_response", "id": "call_1", "response": "Error: no city P"}],
    }
    done = {"role": "assistant", "parts": [{"type": "text", "content": "Sorry."}]}
    spans = [
        _chat_span("01" * 8, 1_000, [user], [calls]),
        _chat_span("02" * 8, 5_000_000, [user, calls, answers], [done]),
    ]
    document = {"resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": spans}]}]}
    path = tmp_path / "synthetic-client-only.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    result = wb.load_runs(path)
    [boundary] = result.boundaries
    assert (boundary.call_id, boundary.args, boundary.is_error) == ("call_1", {"city": "P"}, True)
    assert boundary.extra["contentFrom"] == "gen_ai messages"
    assert result.run.metadata["terminalCalls"] == [
        {"callId": "call_2", "tool": "transfer_to_billing", "args": {}}
    ]

    def event(name: str, body: Any, at: int) -> dict[str, Any]:
        record = {"timeUnixNano": str(at), "traceId": "ab" * 16, "body": body}
        return record | {"attributes": [_attr("event.name", name)]}

    choice = {
        "kvlistValue": {
            "values": [
                {
                    "key": "message",
                    "value": {
                        "kvlistValue": {
                            "values": [
                                {
                                    "key": "tool_calls",
                                    "value": {
                                        "arrayValue": {
                                            "values": [
                                                {
                                                    "kvlistValue": {
                                                        "values": [
                                                            _attr("id", "call_9"),
                                                            {
                                                                "key": "function",
                                                                "value": {
                                                                    "kvlistValue": {
                                                                        "values": [
                                                                            _attr("name", "lookup"),
                                                                            _attr(
                                                                                "arguments",
                                                                                '{"q": 1}',
                                                                            ),
                                                                        ]
                                                                    }
                                                                },
                                                            },
                                                        ]
                                                    }
                                                }
                                            ]
                                        }
                                    },
                                }
                            ]
                        }
                    },
                }
            ]
        }
    }
    tool = {"kvlistValue": {"values": [_attr("id", "call_9"), _attr("content", "found")]}}
    events = [event("gen_ai.choice", choice, 2), event("gen_ai.tool.message", tool, 3)]
    span = _chat_span("03" * 8, 1, [], [])
    document = {
        "resourceSpans": [{"resource": {}, "scopeSpans": [{"scope": {}, "spans": [span]}]}],
        "resourceLogs": [{"resource": {}, "scopeLogs": [{"scope": {}, "logRecords": events}]}],
    }
    path.write_text(json.dumps(document), encoding="utf-8")
    [legacy] = wb.load_runs(path).boundaries
    assert (legacy.tool, legacy.args, legacy.is_error) == ("lookup", {"q": 1}, False)


def _sdk_action(n: int, tool: str, arguments: str) -> dict[str, Any]:
    call = f"call_{n}"
    return {
        "id": f"act-{n}",
        "kind": "ActionEvent",
        "source": "agent",
        "tool_name": tool,
        "tool_call_id": call,
        "tool_call": {"id": call, "name": tool, "arguments": arguments},
        "action": {"command": "x", "kind": "TerminalAction"},
        "thought": [{"type": "text", "text": f"step {n}"}],
        "llm_response_id": f"resp-{n}",
    }


def _sdk_observation(n: int, **observation: Any) -> dict[str, Any]:
    return {
        "kind": "ObservationEvent",
        "source": "environment",
        "tool_name": "terminal",
        "tool_call_id": f"call_{n}",
        "action_id": f"act-{n}",
        "observation": {"content": [{"type": "text", "text": f"out {n}"}], **observation},
    }


def test_openhands_agent_sdk_events_pair_by_tool_call_id_with_their_failure_signals(
    tmp_path: Path,
) -> None:
    """R34, R36: the agent SDK's ActionEvent is a call answered by the event of its
    tool_call_id; is_error, a non-zero exit_code, an AgentErrorEvent and a rejection are
    failures, each with its error code; a non-boolean is_error is a problem (R35); the
    conversation holds the thoughts, the tool messages and the closing answer (R40)."""
    events: list[dict[str, Any]] = [
        {"kind": "SystemPromptEvent", "source": "agent", "system_prompt": {"text": "be brief"}},
        {
            "kind": "MessageEvent",
            "source": "user",
            "llm_message": {"role": "user", "content": [{"type": "text", "text": "go"}]},
        },
        _sdk_action(1, "terminal", '{"command": "ls"}'),
        _sdk_observation(1, is_error=False, exit_code=0),
        _sdk_action(2, "terminal", '{"command": "false"}'),
        _sdk_observation(2, is_error=False, exit_code=1),
        _sdk_action(3, "terminal", '{"command": "boom"}'),
        _sdk_observation(3, is_error=True),
        _sdk_action(4, "terminal", "{not json"),
        {
            "kind": "AgentErrorEvent",
            "source": "agent",
            "tool_name": "terminal",
            "tool_call_id": "call_4",
            "error": "arguments failed validation",
        },
        _sdk_action(5, "terminal", '{"command": "rm -rf /"}'),
        {
            "kind": "UserRejectObservation",
            "tool_name": "terminal",
            "tool_call_id": "call_5",
            "action_id": "act-5",
            "rejection_reason": "no",
            "rejection_source": "hook",
        },
        _sdk_action(6, "terminal", '{"command": "ls"}'),
        _sdk_observation(6, is_error="no"),
        {"kind": "ConversationStateUpdateEvent", "source": "environment", "key": "x"},
        {
            "kind": "MessageEvent",
            "source": "agent",
            "llm_message": {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
        },
    ]
    path = tmp_path / "synthetic-sdk.events.json"
    path.write_text(json.dumps(events), encoding="utf-8")
    result = wb.load_runs(path, strict=False)
    assert result.format == "openhands"
    assert [(b.call_id, b.is_error, b.error_code) for b in result.boundaries] == [
        ("call_1", False, None),
        ("call_2", True, "exit_code:1"),
        ("call_3", True, None),
        ("call_4", True, "agent_error"),
        ("call_5", True, "rejected:hook"),
    ]
    assert result.boundaries[0].args == {"command": "ls"}
    assert result.boundaries[3].error_message == "arguments failed validation"
    assert [p.field for p in result.problems] == ["observation.is_error"]
    run = result.run
    assert run.answer == "done" and run.metadata["records"]["ConversationStateUpdateEvent"] == 1
    assert run.conversation is not None
    roles = [m["role"] for m in run.conversation.messages]
    assert roles[:3] == ["system", "user", "assistant"] and roles[-1] == "assistant"


def _zip_with_zstandard_members(members: list[tuple[str, bytes]]) -> bytes:
    """A zip archive whose members are Zstandard-compressed (method 93), as Inspect AI writes
    .eval logs since 0.3.206; the standard library cannot write that method before 3.14."""
    import struct
    import zlib

    import zstandard

    local, central = b"", b""
    for name, data in members:
        packed = zstandard.ZstdCompressor().compress(data)
        crc, raw_name, offset = zlib.crc32(data), name.encode(), len(local)
        sizes = struct.pack("<III", crc, len(packed), len(data))
        local += (
            struct.pack("<IHHHHH", 0x04034B50, 63, 0, 93, 0, 0x21)
            + sizes
            + struct.pack("<HH", len(raw_name), 0)
            + raw_name
            + packed
        )
        central += (
            struct.pack("<IHHHHHH", 0x02014B50, 63, 63, 0, 93, 0, 0x21)
            + sizes
            + struct.pack("<HHHHHII", len(raw_name), 0, 0, 0, 0, 0, offset)
            + raw_name
        )
    end = struct.pack(
        "<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(local), 0
    )
    return local + central + end


def test_inspect_eval_log_with_zstandard_members_loads_like_its_deflated_original(
    tmp_path: Path,
) -> None:
    """R34: an .eval log whose members are Zstandard-compressed (Inspect >= 0.3.206) loads the
    same boundaries as the deflated original; a corrupt member is a problem naming it (exit 2,
    never a traceback)."""
    import zipfile

    original = FIXTURES / "inspect-ai" / "log_message_deduplication.eval"
    with zipfile.ZipFile(original) as archive:
        members = [(name, archive.read(name)) for name in archive.namelist()]
    path = tmp_path / "synthetic-zstd.eval"
    path.write_bytes(_zip_with_zstandard_members(members))
    with zipfile.ZipFile(path) as archive:
        assert {i.compress_type for i in archive.infolist()} == {93}
    expected = [(b.call_id, b.tool, b.args, b.is_error) for b in wb.load_runs(original).boundaries]
    assert [(b.call_id, b.tool, b.args, b.is_error) for b in wb.load_runs(path).boundaries] == (
        expected
    )
    assert len(expected) == 5
    broken = bytearray(path.read_bytes())
    at = broken.index(b"header.json") + len(b"header.json") + 8  # inside its compressed bytes
    broken[at] ^= 0xFF
    bad = tmp_path / "synthetic-zstd-corrupt.eval"
    bad.write_bytes(bytes(broken))
    with pytest.raises(wb.LoadError) as caught:
        wb.load_runs(bad)
    assert "header.json" in str(caught.value)


def test_real_inspect_log_in_zstandard_reads_and_says_it_holds_no_tool_call() -> None:
    """R35: the real zstd .eval (no tool call) is read, and refused for holding no call."""
    path = FIXTURES / "inspect-ai" / "retry-2-then-success.zstd.eval"
    with pytest.raises(wb.LoadError, match="no tool call found: the file is an Inspect AI"):
        wb.load_runs(path)


def test_agentdojo_block_content_is_served_as_the_text_the_model_was_shown() -> None:
    """R42: newer AgentDojo results write content as {"type": "text", "content"} blocks; the
    response is MCP text of what the model read, and a failed call with empty content serves
    its error (the real Meta-SecAlign run, fixtures/agentdojo/SOURCE.md)."""
    path = (
        FIXTURES
        / "agentdojo"
        / "Meta-SecAlign-70B__slack__user_task_10__important_instructions__injection_task_4.json"
    )
    result = wb.load_runs(path)
    for boundary in result.boundaries:
        blocks = boundary.response["content"]
        assert all(set(b) == {"type", "text"} and b["type"] == "text" for b in blocks)
    failed = [b for b in result.boundaries if b.is_error]
    assert [b.response["content"][0]["text"] for b in failed] == [
        "ValueError: Channel does not exist!",
        "ValueError: User Emma Johnson not found in the users list",
    ]
    assert result.boundaries[0].response["content"][0]["text"].startswith("- general\n- random")


def test_codex_rollout_from_before_the_envelope_loads_like_an_enveloped_one(
    tmp_path: Path,
) -> None:
    """R34, R36: Codex CLI's mid-2025 rollouts (a session line, then bare items between
    record_type state lines) are detected and read as rollouts: calls, their structured
    output's exit code, the state lines counted (R35). SYNTHETIC, after the documented shape."""
    output = json.dumps({"output": "no such file", "metadata": {"exit_code": 2}})
    records: list[dict[str, Any]] = [
        {"id": "0197-legacy", "timestamp": "2025-06-01T10:00:00.000Z", "instructions": None},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "ls"}]},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "function_call",
            "id": "fc_1",
            "name": "shell",
            "arguments": json.dumps({"command": ["bash", "-lc", "ls nope"]}),
            "call_id": "call_1",
        },
        {"type": "function_call_output", "call_id": "call_1", "output": output},
        {"record_type": "state"},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "gone"}],
        },
    ]
    path = tmp_path / "rollout-2025-06-01T10-00-00-synthetic.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    result = wb.load_runs(path)
    assert result.format == "codex"
    (boundary,) = result.boundaries
    assert (boundary.tool, boundary.is_error, boundary.error_code) == ("shell", True, "exit_code:2")
    assert result.run.run_id == "0197-legacy" and result.run.answer == "gone"
    assert result.run.metadata["records"]["state"] == 2


@pytest.mark.parametrize("name", ["empty.json", "empty.jsonl", "empty.yaml"])
def test_an_empty_file_is_refused_as_empty(tmp_path: Path, name: str) -> None:
    """R35: a file of no bytes says so, whatever its name, rather than 'invalid JSON'."""
    path = tmp_path / name
    path.write_bytes(b"")
    with pytest.raises(wb.LoadError, match="the file is empty: nothing to load"):
        wb.load_runs(path)


def test_a_gemini_cli_prompt_log_is_named_with_where_the_session_is(tmp_path: Path) -> None:
    """R35: Gemini CLI's logs.json holds the prompts typed and no tool call; the refusal says
    what it is and where the session with its calls is. SYNTHETIC, in its documented shape."""
    prompts = [
        {"sessionId": "s1", "messageId": n, "type": "user", "message": text, "timestamp": "t"}
        for n, text in enumerate(["hi", "list files"])
    ]
    path = tmp_path / "logs.json"
    path.write_text(json.dumps(prompts), encoding="utf-8")
    with pytest.raises(wb.LoadError, match=r"Gemini CLI prompt log .*chats/session-"):
        wb.load_runs(path)


def test_a_responses_cassette_written_as_json_loads_like_the_yaml_one(tmp_path: Path) -> None:
    """R34: vcrpy's JSON serializer writes the cassette as a JSON document; it is detected as
    an HTTP cassette and gives the boundaries the YAML cassette gives. SYNTHETIC, converted
    from the real YAML cassette in fixtures/openai-responses/."""
    import yaml  # type: ignore[import-untyped]  # no stubs in the test environment

    source = (
        FIXTURES
        / "openai-responses"
        / "test_openai_previous_response_id_seed_auto_chains_through_retries.yaml"
    )
    as_json = tmp_path / "cassette.json"
    as_json.write_text(json.dumps(yaml.safe_load(source.read_text(encoding="utf-8"))))
    facts = [
        [(b.call_id, b.tool, b.args, b.is_error) for b in wb.load_runs(p).boundaries]
        for p in (source, as_json)
    ]
    assert facts[0] == facts[1] and len(facts[0]) == 2
    assert wb.load_runs(as_json).format == "openai-responses"


def test_a_history_resent_by_item_ids_joins_its_conversation_and_repeats_no_hosted_call(
    tmp_path: Path,
) -> None:
    """R2, R34: pydantic-ai (2025-09, image generation) resends a response's items in the next
    request's input by their ids, with no previous_response_id and no call_id: a hosted call
    resent so is the same call, in the same run. SYNTHETIC, shaped on pydantic-ai's cassette
    test_openai_responses_image_generation_tool_without_image_output.yaml (4 MB, not copied)."""

    def exchange(request_input: list[Any], output: list[Any], rid: str) -> dict[str, Any]:
        return {
            "request": {
                "uri": "https://api.openai.com/v1/responses",
                "method": "POST",
                "parsed_body": {"model": "gpt-5", "input": request_input},
            },
            "response": {
                "status": {"code": 200},
                "parsed_body": {"object": "response", "id": rid, "output": output},
            },
        }

    first_output = [
        {"id": "rs_1", "type": "reasoning", "summary": []},
        {"id": "ig_1", "type": "image_generation_call", "status": "completed", "result": None},
        {"id": "msg_1", "type": "message", "role": "assistant", "content": []},
    ]
    resent = [
        {"id": "rs_1", "type": "reasoning", "summary": []},
        {"id": "ig_1", "type": "image_generation_call"},
    ]
    second_input = [
        {"role": "user", "content": "Generate an image of an axolotl."},
        *resent,
        {"id": "msg_1", "type": "message", "role": "assistant", "content": []},
        {"role": "user", "content": "Validation feedback: ... Fix the errors and try again."},
    ]
    second_output = [{"id": "ig_2", "type": "image_generation_call", "status": "completed"}]
    cassette = {
        "interactions": [
            exchange(
                [{"role": "user", "content": "Generate an image of an axolotl."}],
                first_output,
                "r1",
            ),
            exchange(second_input, second_output, "r2"),
        ]
    }
    path = tmp_path / "cassette.json"
    path.write_text(json.dumps(cassette))
    result = wb.load_runs(path)
    assert len(result.runs) == 1
    assert [(b.call_id, b.tool) for b in result.boundaries] == [
        ("ig_1", "image_generation"),
        ("ig_2", "image_generation"),
    ]


def test_agent_vcr_latencies_are_durations_and_a_bad_one_is_none(tmp_path: Path) -> None:
    """agent-vcr's ``latency_ms`` (and mcp-recorder's) is the boundary's duration, rounded; a
    latency that is no finite number is none. Built from agent-vcr's sample recording."""
    source = FIXTURES / "mcp" / "agent_vcr_calculator-errors.vcr"
    assert [b.duration_ms for b in wb.load_runs(source).boundaries] == [4, 2, 6]
    data = json.loads(source.read_text())
    data["session"]["interactions"][1]["latency_ms"] = "fast"
    data["session"]["interactions"][2]["latency_ms"] = True
    path = tmp_path / "calc.vcr"
    path.write_text(json.dumps(data))
    result = wb.load_runs(path)
    assert [b.duration_ms for b in result.boundaries] == [None, None, 6]
    assert result.runs[0].metadata["records"]["session:initialize_request"] == 1


def _vcrpy_text_bodies(bodies: list[str]) -> dict[str, Any]:
    """A vcrpy JSON cassette whose request bodies are recorded as text (its default)."""
    return {
        "interactions": [
            {
                "request": {"method": "POST", "uri": "http://127.0.0.1:1/x", "body": body},
                "response": {"status": {"code": 200}, "body": {"string": "{}"}},
            }
            for body in bodies
        ]
    }


def test_sniffing_for_json_rpc_decodes_no_request_body_that_cannot_hold_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Detection asks whether a cassette holds JSON-RPC traffic. A body recorded as text that
    holds neither ``jsonrpc`` nor a ``\\u`` escape (which could spell it) cannot, and is not
    decoded: a 150 MB chat cassette once spent 0.7 s decoding every body here, then again to
    load them. A body that spells the member with escapes is still found (R34)."""
    from workbench._load import cassettes, mcp

    decoded: list[object] = []
    real_body = cassettes._body

    def counted(body: object, *rest: Any) -> Any:
        decoded.append(body)
        return real_body(body, *rest)

    monkeypatch.setattr(cassettes, "_body", counted)
    chat = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    assert not mcp.sniff_mcp(_vcrpy_text_bodies([chat] * 50))
    assert not mcp.sniff_mcp({"requests": [{"body": chat}] * 50, "responses": [{}] * 50})
    assert decoded == []
    escaped = '{"\\u006asonrpc": "2.0", "id": 1, "method": "tools/list"}'
    assert json.loads(escaped)["jsonrpc"] == "2.0"
    assert mcp.sniff_mcp(_vcrpy_text_bodies([chat, escaped]))
    assert mcp.sniff_mcp({"requests": [{"body": {"string": escaped}}], "responses": [{}]})
    plain = '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}'
    assert mcp.sniff_mcp(_vcrpy_text_bodies([plain]))


def test_an_mcp_log_after_its_header_line_in_frame_envelopes_loads(tmp_path: Path) -> None:
    """Two recorders write the message log a line an envelope after a ``header`` line: deja
    (``msg``, ``t_ms``) and the npm mcp-cassette (``frame``, ``t``, and ``raw`` lines of
    output that was no JSON-RPC). The header and raw lines are counted, not problems; what a
    client put beside the tool's name in ``params`` is kept on the call (R4). The real
    mcp-cassette recording of this shape holds no call, and says what it held."""
    header = {"type": "header", "cassetteVersion": 2, "recorder": "synthetic", "transport": "stdio"}
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}
    lines = [
        header,
        {
            "type": "frame",
            "t": 1,
            "dir": "c2s",
            "frame": call | {"params": {"name": "echo", "arguments": {"m": "x"}}},
        },
        {"type": "raw", "t": 2, "dir": "s2c", "data": "debug: starting"},
        {
            "type": "frame",
            "t": 5,
            "dir": "s2c",
            "frame": {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": True}},
        },
        {
            "type": "frame",
            "dir": "c2s",
            "t_ms": 7,
            "msg": call | {"id": 2, "params": {"name": "fetch", "url": "u"}},
        },
        {
            "type": "frame",
            "dir": "s2c",
            "t_ms": 9,
            "msg": {"jsonrpc": "2.0", "id": 2, "result": {"ok": True}},
        },
    ]
    path = tmp_path / "tape.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    result = wb.load_runs(path)
    assert result.format == "mcp" and result.problems == ()
    assert [(b.tool, b.is_error, b.duration_ms) for b in result.boundaries] == [
        ("echo", True, 4),
        ("fetch", False, 2),
    ]
    assert result.boundaries[1].extra["url"] == "u"
    assert result.run.metadata["records"]["log:header"] == 1
    assert result.run.metadata["records"]["log:raw"] == 1
    real = FIXTURES / "mcp" / "mcp_cassette_tiny_server.golden.cassette.jsonl"
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(real)
    [problem] = refused.value.problems
    assert "no tool call found" in problem.message and "log:header 1" in problem.message


def test_an_mcp_vcr_yaml_transcript_loads_and_other_yaml_is_told_apart(tmp_path: Path) -> None:
    """mcp-vcr writes its transcripts in YAML (``meta``, ``messages`` of ``{t, dir, payload}``):
    read as the message log it is; a YAML document of no format the workbench reads is refused
    as such (it was read as JSON and refused as invalid JSON at line 1)."""
    transcript = """meta:
  version: 1
  server_command: ["npx", "@modelcontextprotocol/server-filesystem", "/tmp"]

messages:
  - t: 30
    dir: c2s
    payload:
      jsonrpc: "2.0"
      id: 3
      method: tools/call
      params:
        name: read_file
        arguments: {path: missing.txt}
  - t: 45
    dir: s2c
    payload:
      jsonrpc: "2.0"
      id: 3
      result:
        content: [{type: text, text: "Error reading file: ENOENT"}]
        isError: true
"""
    path = tmp_path / "tool_call_read_file.yaml"
    path.write_text(transcript, encoding="utf-8")
    [boundary] = wb.load_runs(path).boundaries
    assert (boundary.tool, boundary.args, boundary.is_error) == (
        "read_file",
        {"path": "missing.txt"},
        True,
    )
    assert boundary.duration_ms == 15
    other = tmp_path / "config.yml"
    other.write_text("name: demo\nsteps: [1, 2]\n", encoding="utf-8")
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(other)
    assert "cannot tell the format: a JSON object with members name, steps" in str(refused.value)


@pytest.mark.parametrize(
    "sender", [None, {}, [], "nobody"], ids=["none", "object", "list", "other"]
)
def test_mcp_cassette_message_with_no_sender_is_a_problem_at_its_place(
    tmp_path: Path, sender: object
) -> None:
    """mcp-cassette records say who sent each message; one that does not (or names no one
    with an object or list, which once raised TypeError from a dict lookup) is a problem
    naming it, and the call still pairs. Built from mcp-cassette's sampling example."""
    data = json.loads((FIXTURES / "mcp" / "mcp_cassette_sampling.mcp.json").read_text())
    if sender is None:
        del data["messages"][1]["sender"]
    else:
        data["messages"][1]["sender"] = sender
    path = tmp_path / "s.mcp.json"
    path.write_text(json.dumps(data))
    result = wb.load_runs(path, strict=False)
    assert len(result.boundaries) == 1
    assert [(p.where, p.field) for p in result.problems] == [("messages[1]", "jsonrpc")]


def _metr_sample(tmp_path: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    """METR's real .eval (fixtures/inspect-ai), its epoch-1 sample changed by ``change``,
    written as a .json log."""
    import zipfile

    with zipfile.ZipFile(FIXTURES / "inspect-ai" / "metr_small.eval") as archive:
        header = json.loads(archive.read("header.json"))
        sample = json.loads(archive.read("samples/default_epoch_1.json"))
    change(sample)
    path = tmp_path / "log.json"
    path.write_text(json.dumps({**header, "samples": [sample]}))
    return path


def _tool_events(sample: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in sample["events"] if e.get("event") == "tool"]


def test_inspect_tool_events_answer_open_calls_and_add_the_calls_only_they_hold(
    tmp_path: Path,
) -> None:
    """A call whose tool message is missing is answered by its tool event (failed when the
    event says so); the submit call only the events hold follows the messages' calls."""

    def change(sample: dict[str, Any]) -> None:
        first = _tool_events(sample)[0]
        sample["messages"] = [m for m in sample["messages"] if m.get("tool_call_id") != first["id"]]
        first["error"] = {"type": "timeout", "message": "Command timed out before completing."}

    result = wb.load_runs(_metr_sample(tmp_path, change))
    boundaries = result.boundaries
    assert len(boundaries) == 13 and result.problems == ()
    assert (boundaries[0].is_error, boundaries[0].error_code) == (True, "timeout")
    assert boundaries[-1].tool == "submit" and boundaries[-1].extra["recordedIn"] == "events"


def test_inspect_a_pending_tool_event_leaves_its_call_unanswered(tmp_path: Path) -> None:
    """R2: a tool event that never finished answers nothing, in the messages or only in the
    events: each such call is a call never answered."""

    def change(sample: dict[str, Any]) -> None:
        events = _tool_events(sample)
        sample["messages"] = [
            m for m in sample["messages"] if m.get("tool_call_id") != events[0]["id"]
        ]
        for event in (events[0], events[-1]):
            event["pending"] = True

    result = wb.load_runs(_metr_sample(tmp_path, change), strict=False)
    assert len(result.boundaries) == 11
    assert sorted("never answered" in p.message for p in result.problems) == [True, True]


def test_inspect_a_submit_answered_by_nothing_ends_the_sample(tmp_path: Path) -> None:
    """R36: a sample that stops at the agent's ``submit`` (Control Arena's protocols: no tool
    message, no tool event) ends by design; the call is kept in ``terminalCalls``. Another
    tool left so is still a call never answered (R2)."""

    def change(sample: dict[str, Any], tool: str) -> None:
        submit = _tool_events(sample)[-1]
        sample["events"] = [e for e in sample["events"] if e is not submit]
        call = {"id": "sub-1", "function": tool, "arguments": {"answer": "42"}, "type": "function"}
        sample["messages"].append({"role": "assistant", "content": "", "tool_calls": [call]})

    result = wb.load_runs(_metr_sample(tmp_path, lambda s: change(s, "submit")))
    [run] = result.runs
    assert result.problems == () and len(run.boundaries) == 12
    assert run.metadata["terminalCalls"] == [
        {"callId": "sub-1", "tool": "submit", "args": {"answer": "42"}}
    ]
    other = wb.load_runs(_metr_sample(tmp_path, lambda s: change(s, "bash")), strict=False)
    assert ["never answered" in p.message for p in other.problems] == [True]


def test_an_agentdojo_result_with_its_messages_under_conversations_loads_the_same(
    tmp_path: Path,
) -> None:
    """DRIFT (SaFo-Lab's AgentDojo defence) keeps a result's messages under ``conversations``.
    DERIVED from a real AgentDojo result in fixtures/agentdojo, that member renamed."""
    source = (
        FIXTURES
        / "agentdojo"
        / "gpt-4o-2024-05-13__slack__user_task_5__important_instructions__injection_task_5.json"
    )
    data = json.loads(source.read_text())
    data["conversations"] = data.pop("messages")
    path = tmp_path / "drift.json"
    path.write_text(json.dumps(data))
    facts = [
        [(b.call_id, b.tool, b.args, b.is_error) for b in wb.load_runs(p).boundaries]
        for p in (source, path)
    ]
    assert facts[0] == facts[1] and len(facts[0]) == 9
    assert "conversations" not in wb.load_runs(path).run.metadata


def test_a_result_of_a_suite_built_on_agentdojo_names_its_task_task_id_and_loads_the_same(
    tmp_path: Path,
) -> None:
    """Suites built on AgentDojo's pipeline (Liu-Ruotian's agentdojo-L, its published run
    trajectories) write the same messages but name the task ``task_id`` + ``condition`` + ``seed``
    and the run ``run_id``, with no ``user_task_id``: read as AgentDojo, not as OpenAI chat
    (whose ``function`` is an object: every call a problem). DERIVED from a real AgentDojo
    result in fixtures/agentdojo, its keys renamed as agentdojo-L writes them."""
    source = (
        FIXTURES
        / "agentdojo"
        / "gpt-4o-2024-05-13__slack__user_task_5__important_instructions__injection_task_5.json"
    )
    data = json.loads(source.read_text())
    for gone in ("user_task_id", "injection_task_id", "attack_type", "injections"):
        data.pop(gone, None)
    data.update(run_id="slack_t05_poison_top1_1_33b7c82a", task_id="t05")
    data.update(condition="poison_top1", seed=1)
    path = tmp_path / "seed_1.json"
    path.write_text(json.dumps(data))
    result = wb.load_runs(path)
    assert result.format == "agentdojo" and not result.problems
    expected = [(b.call_id, b.tool, b.args, b.is_error) for b in wb.load_runs(source).boundaries]
    assert [(b.call_id, b.tool, b.args, b.is_error) for b in result.boundaries] == expected
    assert result.run.run_id == "slack_t05_poison_top1_1_33b7c82a"
    assert result.run.task_key == "slack-t05-poison_top1"


def _invariant_export(data: dict[str, Any], index: int) -> dict[str, Any]:
    """An AgentDojo result as Invariant Labs' trace export writes it: the result's members
    under ``metadata``, each assistant call in OpenAI's shape (``{id, type, function: {name,
    arguments}}``), each tool message keeping AgentDojo's ``tool_call`` and ``error``."""
    messages = []
    for message in data["messages"]:
        message = dict(message)
        if message.get("tool_calls"):
            message["tool_calls"] = [
                {
                    "id": call["id"],
                    "type": "function",
                    "function": {"name": call["function"], "arguments": call["args"]},
                }
                for call in message["tool_calls"]
            ]
        messages.append(message)
    facts = {k: v for k, v in data.items() if k != "messages"}
    return {"index": index, "messages": messages, "metadata": facts, "annotations": []}


def test_an_agentdojo_result_in_invariants_export_keeps_its_failures(tmp_path: Path) -> None:
    """A bulk sweep (stop 37) of Invariant Labs' export of AgentDojo's runs (17 pipelines,
    3,298 records; no licence to copy) found every failed call read as a success: the records
    were taken for OpenAI chat, which has no failure flag, and the tool messages' ``error``
    was ignored (781 failed calls). They are AgentDojo results: read as the result they export,
    a JSONL export's header line ``{"metadata": ...}`` kept on the first run. DERIVED from a
    real AgentDojo result in fixtures/agentdojo, rewritten in the export's shape."""
    source = (
        FIXTURES
        / "agentdojo"
        / "gpt-4o-2024-05-13__slack__user_task_5__important_instructions__injection_task_5.json"
    )
    data = json.loads(source.read_text())
    data["messages"][3]["error"] = "ValueError: Channel External_ not found"  # a failed call
    original = tmp_path / "result.json"
    original.write_text(json.dumps(data))
    expected = [(b.call_id, b.tool, b.args, b.is_error) for b in wb.load_runs(original).boundaries]
    assert [fact[3] for fact in expected].count(True) == 2
    exported = tmp_path / "export.json"
    exported.write_text(json.dumps(_invariant_export(data, 0)))
    result = wb.load_runs(exported)
    assert result.format == "agentdojo" and not result.problems
    assert [(b.call_id, b.tool, b.args, b.is_error) for b in result.boundaries] == expected
    assert result.run.task_key == wb.load_runs(original).run.task_key
    lines = tmp_path / "agentdojo-gpt-4o.jsonl"
    header = {"metadata": {"benchmark": "agent-dojo", "name": "gpt-4o"}}
    records = [header, _invariant_export(data, 0), _invariant_export(data, 1)]
    lines.write_text("".join(json.dumps(r) + "\n" for r in records))
    both = wb.load_runs(lines)
    assert both.format == "agentdojo" and len(both.runs) == 2 and not both.problems
    assert [(b.call_id, b.is_error) for b in both.runs[1].boundaries] == [
        (fact[0], fact[3]) for fact in expected
    ]
    assert both.runs[0].metadata["fileHeader"] == {"line": 1, **header}


@pytest.mark.parametrize(
    ("inner_tool", "inner_rpc_id", "boundaries"),
    [
        ("get_stock_price", None, 1),
        ("get_stock_price", "7", 1),
        ("get_stock_price", "8", 2),
        ("other", None, 2),
    ],
)
def test_an_mcp_call_traced_on_both_sides_is_one_call(
    tmp_path: Path, inner_tool: str, inner_rpc_id: str | None, boundaries: int
) -> None:
    """The MCP semantic conventions trace one tools/call as the client's execute_tool span
    and the server's nested in it: one boundary, the outer span's. A nested span of another
    tool, or of another JSON-RPC request, is a call of its own. DERIVED from the real ADK
    trace in fixtures/otel: its tool span gets a request id and a server-side child."""
    data = json.loads((FIXTURES / "otel" / "adk_py_v2_default_S6b.json").read_text())
    spans = data["resourceSpans"][0]["scopeSpans"][0]["spans"]
    tool = next(
        s
        for s in spans
        if any(a["value"].get("stringValue") == "execute_tool" for a in s["attributes"])
    )
    tool["attributes"].append({"key": "jsonrpc.request.id", "value": {"stringValue": "7"}})
    inner = json.loads(json.dumps(tool))
    inner.update({"spanId": "inner0000000000", "parentSpanId": tool["spanId"], "kind": 2})
    inner["attributes"] = [
        a for a in inner["attributes"] if a["key"] not in ("gen_ai.tool.name", "jsonrpc.request.id")
    ]
    inner["attributes"].append({"key": "gen_ai.tool.name", "value": {"stringValue": inner_tool}})
    if inner_rpc_id is not None:
        inner["attributes"].append(
            {"key": "jsonrpc.request.id", "value": {"stringValue": inner_rpc_id}}
        )
    spans.append(inner)
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(data))
    result = wb.load_runs(path)
    assert len(result.boundaries) == boundaries
    assert result.boundaries[0].is_error  # the outer span's failure, as before


def test_codex_tool_search_and_image_generation_items_are_boundaries(tmp_path: Path) -> None:
    """R34-R35: Codex 2026 rollouts record tool_search_call (answered by tool_search_output of
    its call_id; one the server ran has no call id and is hosted) and image_generation_call
    (hosted: call and result in one). SYNTHETIC, shaped by codex-rs's ResponseItem."""
    records: list[dict[str, Any]] = [
        {"type": "session_meta", "payload": {"id": "s"}},
        {
            "type": "response_item",
            "payload": {
                "type": "tool_search_call",
                "call_id": "search-1",
                "execution": "client",
                "arguments": {"query": "calendar create", "limit": 1},
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "tool_search_output",
                "call_id": "search-1",
                "execution": "client",
                "tools": [{"name": "calendar_create"}],
            },
        },
        {
            "type": "response_item",
            "payload": {"type": "tool_search_call", "execution": "server", "arguments": {}},
        },
        {
            "type": "response_item",
            "payload": {"type": "image_generation_call", "id": "ig_1", "status": "failed"},
        },
    ]
    path = tmp_path / "rollout.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    result = wb.load_runs(path)
    assert [(b.call_id, b.tool, b.is_error) for b in result.boundaries] == [
        ("search-1", "tool_search", False),
        ("tool_search-4", "tool_search", False),
        ("ig_1", "image_generation", True),
    ]
    assert "calendar_create" in result.boundaries[0].response_preview
