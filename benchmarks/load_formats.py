"""Loading each recording format: boundaries per second on a large synthetic file of it.

One line per format (issue 10: none below 50,000 boundaries/s). Each file is SYNTHETIC, written
here in the format's shape with ``--calls`` tool calls (one failure in ten) and the bookkeeping
each format carries beside its calls; it is loaded by ``workbench.load_runs`` ``--repeats``
times in this process and the median is reported, beside the floor: the bare decode of the same
file (``orjson.loads`` of each line or of the document, ``vcr_yaml`` for a YAML cassette,
the collector paused as in the loaders), which no loader can beat, as a ratio that a busy
machine moves less than the rate. CPU times (``time.process_time``) are given because the build
machine is shared. Run from the repository root::

    python benchmarks/load_formats.py [--calls 100000] [--repeats 3] [--only codex,otel]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parents[1]
FLOOR = 50_000


def _lines(path: Path, records: Iterator[Any]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, separators=(",", ":")) + "\n")


def _doc(path: Path, value: Any) -> None:
    path.write_text(json.dumps(value, indent=1), encoding="utf-8")


def _claude(n: int) -> Iterator[Any]:
    yield {"type": "summary", "summary": "synthetic", "leafUuid": "u0"}
    for i in range(n):
        yield {
            "type": "assistant",
            "uuid": f"a{i}",
            "parentUuid": f"u{i}",
            "sessionId": "S",
            "isSidechain": False,
            "message": {
                "id": f"m{i}",
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {"command": "ls"}}
                ],
            },
        }
        yield {
            "type": "user",
            "uuid": f"u{i + 1}",
            "parentUuid": f"a{i}",
            "sessionId": "S",
            "isSidechain": False,
            "message": {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": f"t{i}",
                        "content": "a.txt\nb.txt",
                        "is_error": i % 10 == 0,
                    }
                ],
            },
            "toolUseResult": {"stdout": "a.txt"},
        }


def _codex(n: int) -> Iterator[Any]:
    yield {"type": "session_meta", "payload": {"id": "synthetic"}}
    for i in range(n):
        yield {
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "shell",
                "call_id": f"c{i}",
                "arguments": '{"command":["ls"]}',
            },
        }
        yield {
            "type": "event_msg",
            "payload": {
                "type": "exec_command_end",
                "call_id": f"c{i}",
                "exit_code": 1 if i % 10 == 0 else 0,
            },
        }
        yield {
            "type": "response_item",
            "payload": {
                "type": "function_call_output",
                "call_id": f"c{i}",
                "output": "a.txt\nb.txt",
            },
        }


def _codex_desktop(n: int) -> Iterator[Any]:
    """The same rollout as Codex Desktop 0.145 writes its items: each with an ``id`` and the
    turn it belongs to (``internal_chat_message_metadata_passthrough``)."""
    turn = {"turn_id": "019f815e-1320-7600-be45-9d31c1ac342d"}
    for number, record in enumerate(_codex(n)):
        if record["type"] == "response_item":
            payload = {"type": record["payload"]["type"], "id": f"fc_{number:08x}{'ab' * 16}"}
            payload |= {k: v for k, v in record["payload"].items() if k != "type"}
            payload["internal_chat_message_metadata_passthrough"] = turn
            record = {**record, "payload": payload}
        yield record


def _chat_messages(n: int, call: Callable[[int], Any], tool: Callable[[int], Any]) -> list[Any]:
    out: list[Any] = [{"role": "user", "content": "go"}]
    for i in range(n):
        out.append(call(i))
        out.append(tool(i))
    return out


def _gemini(n: int) -> Any:
    calls = [
        {
            "id": f"g{i}",
            "name": "run_shell_command",
            "args": {"command": "ls"},
            "status": "success",
            "result": [
                {
                    "functionResponse": {
                        "id": f"g{i}",
                        "name": "run_shell_command",
                        "response": {
                            "output": "Output: a\nExit Code: " + ("1" if i % 10 == 0 else "0")
                        },
                    }
                }
            ],
        }
        for i in range(n)
    ]
    return {
        "sessionId": "s",
        "projectHash": "h",
        "startTime": "t",
        "messages": [
            {"type": "user", "content": [{"text": "go"}]},
            *(
                {"type": "gemini", "content": "", "toolCalls": calls[i : i + 10]}
                for i in range(0, n, 10)
            ),
        ],
    }


def _gemini_lines(n: int) -> Iterator[Any]:
    """The same session as Gemini CLI's JSONL log: each gemini message written when it starts
    (no calls yet) and again with its finished calls, a ``$set`` after each."""
    session = _gemini(n)
    yield {k: v for k, v in session.items() if k != "messages"}
    for number, message in enumerate(session["messages"]):
        message = {"id": f"m{number}", **message}
        if message["type"] == "gemini":
            yield {**message, "toolCalls": []}
        yield message
        yield {"$set": {"lastUpdated": f"t{number}"}}


def _openhands_output(n: int) -> Iterator[Any]:
    """An OpenHands evaluation's output.jsonl: 100 instances a file, their events in history."""
    per = max(1, n // 100)
    events = _openhands(n)
    for start in range(0, n, per):
        history = events[2 * start : 2 * (start + per)]
        yield {"instance_id": f"task-{start}", "instruction": "fix it", "history": history}


def _tau2(n: int) -> Any:
    msgs = _chat_messages(
        n,
        lambda i: {
            "role": "assistant",
            "tool_calls": [
                {"id": f"x{i}", "name": "get", "arguments": {"id": i}, "requestor": "assistant"}
            ],
        },
        lambda i: {
            "role": "tool",
            "id": f"x{i}",
            "content": "ok",
            "error": i % 10 == 0,
            "requestor": "assistant",
        },
    )
    per = 100
    return {
        "info": {},
        "tasks": [],
        "simulations": [
            {
                "id": f"s{k}",
                "task_id": k,
                "trial": 0,
                # each its task's message, then its calls and their answers (a call and its
                # answer in one simulation: a slice of the shared list split one, never answered)
                "messages": [msgs[0], *msgs[1 + k * 2 * per : 1 + (k + 1) * 2 * per]],
            }
            for k in range(n // per)
        ],
    }


def _inspect(n: int) -> Any:
    msgs = _chat_messages(
        n,
        lambda i: {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": f"i{i}", "function": "bash", "arguments": {"cmd": "ls"}, "type": "function"}
            ],
        },
        lambda i: {
            "role": "tool",
            "tool_call_id": f"i{i}",
            "function": "bash",
            "content": "ok",
            **({"error": {"type": "timeout", "message": "t"}} if i % 10 == 0 else {}),
        },
    )
    return {
        "version": 2,
        "status": "success",
        "eval": {"task": "t", "model": "m"},
        "samples": [{"id": 1, "epoch": 1, "messages": msgs}],
    }


def _swe(n: int) -> Any:
    msgs = _chat_messages(
        n,
        lambda i: {
            "role": "assistant",
            "content": "",
            "agent": "main",
            "tool_calls": [
                {
                    "id": f"w{i}",
                    "type": "function",
                    "function": {"name": "bash", "arguments": '{"command":"ls"}'},
                }
            ],
        },
        lambda i: {
            "role": "tool",
            "content": "Error: x" if i % 10 == 0 else "ok",
            "tool_call_ids": [f"w{i}"],
            "agent": "main",
        },
    )
    return {
        "history": msgs,
        "trajectory": [],
        "info": {"exit_status": "submitted"},
        "environment": "e",
    }


def _openhands(n: int) -> Any:
    events: list[Any] = []
    for i in range(n):
        meta = {"function_name": "execute_bash", "tool_call_id": f"o{i}"}
        events.append(
            {
                "id": 2 * i,
                "source": "agent",
                "action": "run",
                "args": {"command": "ls"},
                "tool_call_metadata": meta,
            }
        )
        events.append(
            {
                "id": 2 * i + 1,
                "source": "agent",
                "observation": "run",
                "cause": 2 * i,
                "content": "ok",
                "success": i % 10 != 0,
                "tool_call_metadata": meta,
                "extras": {"metadata": {"exit_code": 1 if i % 10 == 0 else 0}},
            }
        )
    return events


def _agentdojo(n: int) -> Any:
    msgs = _chat_messages(
        n,
        lambda i: {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"function": "get", "args": {"id": i}, "id": f"d{i}"}],
        },
        lambda i: {
            "role": "tool",
            "content": "ok",
            "tool_call_id": f"d{i}",
            "error": "ValueError: x" if i % 10 == 0 else None,
        },
    )
    return {
        "suite_name": "s",
        "pipeline_name": "p",
        "user_task_id": "u",
        "injection_task_id": None,
        "attack_type": None,
        "injections": {},
        "messages": msgs,
        "error": None,
    }


def _mcp(n: int) -> Any:
    return {
        "version": "1.0",
        "metadata": {},
        "interactions": [
            {
                "type": "jsonrpc_request",
                "request": {
                    "jsonrpc": "2.0",
                    "id": i,
                    "method": "tools/call",
                    "params": {"name": "add", "arguments": {"a": i}},
                },
                "response": {
                    "jsonrpc": "2.0",
                    "id": i,
                    "result": {"content": [{"type": "text", "text": "ok"}], "isError": i % 10 == 0},
                },
            }
            for i in range(n)
        ],
    }


def _mcp_debug(n: int) -> Iterator[str]:
    """mcp-debug's ``--record`` session file: its comment lines and header, then a request
    and its response a call (one in ten ``isError``), as mcp-debug 1.1.0 writes them."""
    yield "# MCP Recording Session\n# Started: 2026-12-06T19:05:29Z\n"
    header = {"start_time": "2026-12-06T19:05:29Z", "server_info": "Dynamic MCP Proxy v1.0.0"}
    yield json.dumps({**header, "messages": []}) + "\n"
    for i in range(n):
        seconds = f"2026-12-06T19:{i // 60 % 60:02d}:{i % 60:02d}.{i % 1000:03d}Z"
        line = {"timestamp": seconds, "message_type": "tool_call", "tool_name": "fs_read"}
        call = {"name": "fs_read", "arguments": {"path": f"/tmp/f{i}.txt"}}
        result = {"content": [{"type": "text", "text": f"text {i}"}], "isError": i % 10 == 0}
        request = {**line, "direction": "request", "server_name": "fs"}
        yield json.dumps({**request, "message": {"method": "tools/call", "params": call}}) + "\n"
        yield json.dumps({**line, "direction": "response", "server_name": "fs", "message": result})
        yield "\n"


def _otel(n: int) -> Any:
    spans = [
        {
            "traceId": "t",
            "spanId": f"s{i}",
            "name": "execute_tool add",
            "startTimeUnixNano": str(i),
            "endTimeUnixNano": str(i + 1),
            "status": {"code": 2 if i % 10 == 0 else 0},
            "attributes": [
                {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
                {"key": "gen_ai.tool.name", "value": {"stringValue": "add"}},
                {"key": "gen_ai.tool.call.id", "value": {"stringValue": f"c{i}"}},
            ],
        }
        for i in range(n)
    ]
    return {"resourceSpans": [{"resource": {}, "scopeSpans": [{"spans": spans}]}]}


def _langfuse(n: int) -> Any:
    """A Langfuse trace download: a GENERATION before each TOOL observation, input and output
    kept as JSON text (as the export writes them), every tenth call at level ERROR."""
    observations: list[Any] = []
    for i in range(n):
        second = f"2026-01-01T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}"
        common = {"traceId": "t", "parentObservationId": "agent", "metadata": {}}
        observations.append(
            {
                **common,
                "id": f"g{i}",
                "type": "GENERATION",
                "name": "chat",
                "startTime": f"{second}.000Z",
                "endTime": f"{second}.400Z",
                "level": "DEFAULT",
                "input": json.dumps([{"role": "user", "content": "go"}]),
                "output": json.dumps({"role": "assistant", "content": None}),
            }
        )
        observations.append(
            {
                **common,
                "id": f"o{i}",
                "type": "TOOL",
                "name": "lookup",
                "startTime": f"{second}.500Z",
                "endTime": f"{second}.600Z",
                "level": "ERROR" if i % 10 == 0 else "DEFAULT",
                "statusMessage": "not found" if i % 10 == 0 else None,
                "input": json.dumps({"id": i}),
                "output": json.dumps({"found": i % 10 != 0}),
            }
        )
    return {"trace": {"id": "t", "projectId": "p", "name": "run"}, "observations": observations}


def _said(i: int) -> str:
    """A call's output text: one in ten failed, as the default error rule reads it."""
    return "Error: not found" if i % 10 == 0 else "ok"


def _exchanges(n: int) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """``n`` chained ``/v1/responses`` exchanges: each request carries only the new output."""
    previous = None
    for i in range(n):
        request: dict[str, Any] = {
            "model": "m",
            "input": []
            if i == 0
            else [{"type": "function_call_output", "call_id": f"r{i - 1}", "output": _said(i - 1)}],
        }
        if previous:
            request["previous_response_id"] = previous
        response: dict[str, Any] = {
            "object": "response",
            "id": f"resp{i}",
            "output": [
                {"type": "function_call", "call_id": f"r{i}", "name": "get", "arguments": "{}"}
            ],
        }
        if i == n - 1:
            response["output"] = [{"type": "web_search_call", "id": "ws", "status": "completed"}]
        previous = f"resp{i}"
        yield request, response


def _responses(n: int) -> Iterator[str]:
    """The exchanges as a vcrpy YAML cassette (pydantic-ai's ``parsed_body`` serializer)."""
    yield "interactions:\n"
    for request, response in _exchanges(n):
        yield (
            "- request:\n    uri: https://api.openai.com/v1/responses\n    method: POST\n"
            f"    parsed_body: {json.dumps(request)}\n  response:\n"
            f"    status: {{code: 200}}\n    parsed_body: {json.dumps(response)}\n"
        )


def _responses_json(n: int) -> Any:
    """The same exchanges as a JSON cassette (vcrpy's ``json`` serializer shape)."""
    return {
        "interactions": [
            {
                "request": {
                    "uri": "https://api.openai.com/v1/responses",
                    "method": "POST",
                    "parsed_body": request,
                },
                "response": {"status": {"code": 200}, "parsed_body": response},
            }
            for request, response in _exchanges(n)
        ]
    }


_CHAT_CALLS_A_CONVERSATION = 5
"""Calls in each conversation of a chat cassette: every request resends the conversation, so
the file grows with its square; the real cassettes seen hold 1 to 10 calls a conversation."""


def _chat_cassette(n: int, api: str, per: int = _CHAT_CALLS_A_CONVERSATION) -> Any:
    """Chat Completions or Anthropic Messages traffic as a JSON cassette: conversations of
    ``per`` calls, one call a model turn, each request resending the conversation so far
    (parsed bodies, as pydantic-ai's serializer keeps them)."""
    interactions: list[Any] = []
    for c in range((n + per - 1) // per):
        calls = min(per, n - c * per)
        if api == "anthropic":
            messages: list[Any] = [
                {"role": "user", "content": [{"type": "text", "text": f"task {c}"}]}
            ]
        else:
            messages = [
                {"role": "system", "content": "You help."},
                {"role": "user", "content": f"task {c}"},
            ]
        for t in range(calls + 1):
            k = c * per + t
            if t < calls and api == "anthropic":
                reply: Any = {
                    "role": "assistant",
                    "content": [
                        {"type": "tool_use", "id": f"t{k}", "name": "lookup", "input": {"id": k}}
                    ],
                }
                answer: Any = {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": f"t{k}",
                            "content": "found",
                            "is_error": k % 10 == 0,
                        }
                    ],
                }
                body: Any = {"type": "message", "role": "assistant", "content": reply["content"]}
            elif t < calls:
                call = {
                    "id": f"c{k}",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": json.dumps({"id": k})},
                }
                reply = {"role": "assistant", "content": None, "tool_calls": [call]}
                text = "Error: not found" if k % 10 == 0 else "found"
                answer = {"role": "tool", "tool_call_id": f"c{k}", "content": text}
                body = {"object": "chat.completion", "choices": [{"index": 0, "message": reply}]}
            elif api == "anthropic":
                reply, answer = None, None
                body = {
                    "type": "message",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "done"}],
                }
            else:
                reply, answer = None, None
                body = {
                    "object": "chat.completion",
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": "done"}}],
                }
            uri = (
                "https://api.anthropic.com/v1/messages"
                if api == "anthropic"
                else ("https://api.openai.com/v1/chat/completions")
            )
            interactions.append(
                {
                    "request": {
                        "uri": uri,
                        "method": "POST",
                        "parsed_body": {"model": "m", "messages": list(messages)},
                    },
                    "response": {"status": {"code": 200}, "parsed_body": body},
                }
            )
            if reply is not None:
                messages += [reply, answer]
    return {"interactions": interactions}


def _as_text_bodies(cassette: Any) -> Any:
    """The same cassette with each body recorded as JSON text, as vcrpy itself records them
    (``body: {string: ...}``; pydantic-ai's serializer keeps ``parsed_body``): every body is
    then a JSON document of its own, decoded by the loader one at a time."""
    for interaction in cassette["interactions"]:
        for side in ("request", "response"):
            record = interaction[side]
            record["body"] = {"string": json.dumps(record.pop("parsed_body"))}
    return cassette


def _copilot(n: int) -> Iterator[Any]:
    """A Copilot CLI session log: a reply requesting a call, its start and completion (one in
    ten failed; a shell exit code on the others), the streaming pieces a -p output has."""
    yield {"type": "session.start", "data": {"sessionId": "s", "copilotVersion": "1.0"}, "id": "e"}
    for i in range(n):
        call = {"toolCallId": f"c{i}", "name": "bash", "arguments": {"command": "ls"}}
        yield {"type": "assistant.message_delta", "data": {"deltaContent": "x"}, "ephemeral": True}
        yield {"type": "assistant.message", "data": {"content": "", "toolRequests": [call]}}
        start = {"toolCallId": f"c{i}", "toolName": "bash", "arguments": {"command": "ls"}}
        yield {"type": "tool.execution_start", "data": start, "id": f"s{i}"}
        done: dict[str, Any] = {"toolCallId": f"c{i}", "success": i % 10 != 0}
        if i % 10 == 0:
            done["error"] = {"message": "denied", "code": "denied"}
        else:
            done["result"] = {"content": "a.txt\n<exited with exit code 0>"}
            done["shellExecution"] = {"exitCode": 0}
        yield {"type": "tool.execution_complete", "data": done, "id": f"d{i}"}


def _copilot_history(n: int) -> Any:
    """A legacy Copilot CLI session document (0.0.3xx): a timeline of completed calls (one in
    ten a failure; a shell's exit code in the others' logs), the replies between them."""
    timeline: list[Any] = [{"type": "user", "id": "u", "timestamp": "t", "text": "go"}]
    for i in range(n):
        failed = i % 10 == 0
        result = {
            "type": "failure" if failed else "success",
            "log": "a.txt\n<exited with exit code 0>",
        }
        timeline.append({"type": "copilot", "id": f"r{i}", "timestamp": "t", "text": "Listing."})
        timeline.append(
            {
                "type": "tool_call_completed",
                "id": f"e{i}",
                "timestamp": "t",
                "callId": f"c{i}",
                "name": "bash",
                "toolTitle": "bash",
                "arguments": {"command": "ls", "description": "list"},
                "result": result,
            }
        )
    return {"sessionId": "s", "startTime": "t", "chatMessages": [], "timeline": timeline}


def _adk(n: int) -> Any:
    """A Google ADK session: a model event calling a tool, the tool event answering it (one in
    ten an error response)."""
    events: list[Any] = []
    for i in range(n):
        call = {"functionCall": {"id": f"adk-{i}", "name": "lookup", "args": {"id": i}}}
        answer = {"error": "not found"} if i % 10 == 0 else {"result": "found"}
        response = {"functionResponse": {"id": f"adk-{i}", "name": "lookup", "response": answer}}
        for parts, role in (([call], "model"), ([response], "user")):
            events.append(
                {
                    "content": {"parts": parts, "role": role},
                    "author": "agent",
                    "invocationId": "e-1",
                    "actions": {},
                    "id": f"ev{len(events)}",
                    "timestamp": 1.0 + len(events),
                }
            )
    return {"id": "s", "appName": "app", "userId": "u", "state": {}, "events": events}


def _opencode_messages(n: int) -> list[Any]:
    """An OpenCode session's messages: a user prompt, then assistant messages of two tool
    parts each between a step's bounds and its reasoning (one call in ten failed: an error
    status, or a bash exit code of 1), as OpenCode 1.2 exports them."""
    messages: list[Any] = [
        {
            "info": {"id": "msg_u", "sessionID": "ses_b", "role": "user"},
            "parts": [{"id": "prt_u", "type": "text", "text": "go"}],
        }
    ]
    for m in range(0, n, 2):
        parts: list[Any] = [
            {"id": f"prt_s{m}", "type": "step-start"},
            {"id": f"prt_r{m}", "type": "reasoning", "text": "next"},
        ]
        for i in range(m, min(m + 2, n)):
            state: dict[str, Any] = {"status": "completed", "input": {"filePath": f"/f{i}"}}
            if i % 10 == 0:
                state = {"status": "error", "input": state["input"], "error": "Error: not found"}
            else:
                state |= {"output": "found", "title": "f", "metadata": {"exit": 0}}
            state["time"] = {"start": 1000 + i, "end": 1010 + i}
            tool = "bash" if i % 2 else "read"
            parts.append(
                {
                    "id": f"prt_{i}",
                    "type": "tool",
                    "callID": f"c{i}",
                    "tool": tool,
                    "state": state,
                    "sessionID": "ses_b",
                    "messageID": f"msg_{m}",
                }
            )
        parts.append({"id": f"prt_f{m}", "type": "step-finish", "reason": "tool-calls"})
        info = {"id": f"msg_{m}", "sessionID": "ses_b", "role": "assistant", "agent": "build"}
        messages.append({"info": info, "parts": parts})
    return messages


def _opencode(n: int) -> Any:
    """``opencode export``'s document."""
    return {"info": {"id": "ses_b", "title": "bench"}, "messages": _opencode_messages(n)}


def _opencode_events(n: int) -> Iterator[Any]:
    """The same session's parts as ``opencode run --format json`` prints them."""
    kinds = {"tool": "tool_use", "step-start": "step_start", "step-finish": "step_finish"}
    for message in _opencode_messages(n)[1:]:
        for part in message["parts"]:
            kind = kinds.get(part["type"], part["type"])
            placed = {**part, "sessionID": "ses_b", "messageID": message["info"]["id"]}
            yield {"type": kind, "timestamp": 1, "sessionID": "ses_b", "part": placed}


def _opencode_db(path: Path, n: int, per: int = 50) -> None:
    """The same calls in OpenCode's own SQLite database: sessions of ``per`` calls, a row a
    session, message and part (the columns the reader takes; OpenCode's have more)."""
    import sqlite3

    db = sqlite3.connect(path)
    db.executescript(
        "CREATE TABLE session (id TEXT PRIMARY KEY, title TEXT, time_created INTEGER);"
        "CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, data TEXT);"
        "CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, data TEXT);"
    )
    messages = _opencode_messages(n)[1:]
    for first in range(0, len(messages), per // 2):
        session = f"ses_{first:09d}"
        db.execute("INSERT INTO session VALUES (?, 'bench', 1)", (session,))
        for message in messages[first : first + per // 2]:
            info = {k: v for k, v in message["info"].items() if k not in ("id", "sessionID")}
            said = (message["info"]["id"], session, json.dumps(info))
            db.execute("INSERT INTO message VALUES (?, ?, ?)", said)
            for part in message["parts"]:
                data = {k: v for k, v in part.items() if k not in ("id", "sessionID", "messageID")}
                row = (part["id"], message["info"]["id"], session, json.dumps(data))
                db.execute("INSERT INTO part VALUES (?, ?, ?, ?)", row)
    db.commit()
    db.close()


def _opencode_storage(path: Path, n: int, per: int = 50) -> None:
    """The same calls in OpenCode's storage folder before its database: a JSON file a session,
    message and part (``session/<project>/<id>.json``, ``message/<session>/<id>.json``,
    ``part/<message>/<id>.json``), sessions of ``per`` calls."""

    def write(key: list[str], value: Any) -> None:
        file = path.joinpath(*key).with_suffix(".json")
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps(value), encoding="utf-8")

    messages = _opencode_messages(n)[1:]
    for first in range(0, len(messages), per // 2):
        session = f"ses_{first:09d}"
        write(["session", "prj", session], {"id": session, "projectID": "prj", "title": "b"})
        for message in messages[first : first + per // 2]:
            info = {**message["info"], "sessionID": session}
            write(["message", session, info["id"]], info)
            for part in message["parts"]:
                placed = {**part, "sessionID": session, "messageID": info["id"]}
                write(["part", info["id"], part["id"]], placed)


def _otel_js(n: int) -> Iterator[Any]:
    """Copilot CLI's OpenTelemetry file export: a JavaScript span a line, metric lines beside."""
    for i in range(n):
        yield {
            "type": "span",
            "traceId": "t",
            "spanId": f"s{i}",
            "parentSpanId": "root",
            "name": "execute_tool bash",
            "kind": 0,
            "startTime": [1700000000 + i, 0],
            "endTime": [1700000000 + i, 500],
            "attributes": {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "bash",
                "gen_ai.tool.call.id": f"c{i}",
                "gen_ai.tool.call.arguments": '{"command": "ls"}',
                "gen_ai.tool.call.result": "a.txt",
            },
            "status": {"code": 2 if i % 10 == 0 else 0},
            "events": [],
            "resource": {"attributes": {"service.name": "github-copilot"}},
            "instrumentationScope": {"name": "github.copilot"},
        }
        if i % 100 == 0:
            yield {"type": "metric", "name": "gen_ai.client.operation.duration"}


def _converse_cassette(n: int, per: int = _CHAT_CALLS_A_CONVERSATION) -> Any:
    """Bedrock Converse traffic as a JSON cassette, conversations of ``per`` calls as the chat
    cassettes' (each request resending the conversation so far)."""
    interactions: list[Any] = []
    for c in range((n + per - 1) // per):
        calls = min(per, n - c * per)
        messages: list[Any] = [{"role": "user", "content": [{"text": f"task {c}"}]}]
        for t in range(calls + 1):
            k = c * per + t
            if t < calls:
                use = {"toolUse": {"toolUseId": f"t{k}", "name": "lookup", "input": {"id": k}}}
                reply: Any = {"role": "assistant", "content": [use]}
                status = "error" if k % 10 == 0 else "success"
                result = {"toolUseId": f"t{k}", "content": [{"text": "found"}], "status": status}
                answer: Any = {"role": "user", "content": [{"toolResult": result}]}
            else:
                reply = {"role": "assistant", "content": [{"text": "done"}]}
                answer = None
            interactions.append(
                {
                    "request": {
                        "uri": "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse",
                        "method": "POST",
                        "parsed_body": {"messages": list(messages)},
                    },
                    "response": {
                        "status": {"code": 200},
                        "parsed_body": {"output": {"message": reply}, "stopReason": "tool_use"},
                    },
                }
            )
            if answer is not None:
                messages += [reply, answer]
    return {"interactions": interactions}


def _xai_cassette(n: int, per: int = _CHAT_CALLS_A_CONVERSATION) -> Any:
    """pydantic-ai's xAI gRPC cassette (``.xai.yaml``'s shape, its protobuf bytes left out),
    saved as JSON (YAML that is not vcrpy's is read up to 32 MiB): conversations of ``per``
    client calls, each request resending the conversation so far, each result a ``ROLE_TOOL``
    message with no id (answered by place; one in ten ``Error:``, the default rule's)."""
    interactions: list[Any] = []
    tools = [{"function": {"name": "lookup", "parameters": '{"type": "object"}'}}]
    for c in range((n + per - 1) // per):
        calls = min(per, n - c * per)
        messages: list[Any] = [{"content": [{"text": f"task {c}"}], "role": "ROLE_USER"}]
        for t in range(calls + 1):
            k = c * per + t
            if t < calls:
                call = {
                    "id": f"call_{k}",
                    "type": "TOOL_CALL_TYPE_CLIENT_SIDE_TOOL",
                    "status": "TOOL_CALL_STATUS_COMPLETED",
                    "function": {"name": "lookup", "arguments": f'{{"id": {k}}}'},
                }
                reply: Any = {"role": "ROLE_ASSISTANT", "tool_calls": [call]}
                text = "Error: not found" if k % 10 == 0 else "found"
                answer: Any = {"content": [{"text": text}], "role": "ROLE_TOOL"}
            else:
                reply = {"content": "done", "role": "ROLE_ASSISTANT"}
                answer = None
            interactions.append(
                {
                    "request_sample": {
                        "json": {"messages": list(messages), "model": "grok-4", "tools": tools}
                    },
                    "response_sample": {
                        "json": {"id": f"r{k}", "outputs": [{"message": reply}], "model": "grok-4"}
                    },
                }
            )
            if answer is not None:
                resent = {"content": [{"text": ""}], **reply}
                messages += [resent, answer]
    return {"version": 1, "interactions": interactions}


def _cline(n: int) -> list[Any]:
    """A Cline task history: a task message, then an assistant message of one ``tool_use`` a
    call, answered by a result text block and the environment details (one call in ten failed:
    Cline's tool error wording), as Cline's native tool calling writes it."""
    env = {
        "type": "text",
        "text": "<environment_details>\n# Current Mode\nACT MODE\n</environment_details>",
    }
    out: list[Any] = [
        {"role": "user", "content": [{"type": "text", "text": "<task>\nGo.\n</task>"}, env]}
    ]
    for i in range(n):
        use = {
            "type": "tool_use",
            "id": f"toolu_{i}",
            "name": "read_file",
            "input": {"path": f"f{i}"},
        }
        out.append({"role": "assistant", "content": [use], "modelInfo": {"modelId": "m"}})
        said = (
            "The tool execution failed with the following error:\n<error>\nno such file\n</error>"
            if i % 10 == 9
            else f"line {i}"
        )
        result = {"type": "text", "text": f"[read_file for 'f{i}'] Result:\n{said}"}
        out.append({"role": "user", "content": [result, env]})
    return out


FORMATS: dict[str, tuple[str, Callable[[Path, int], object]]] = {
    "claude-code": ("session.jsonl", lambda p, n: _lines(p, _claude(n))),
    "codex": ("rollout.jsonl", lambda p, n: _lines(p, _codex(n))),
    "codex-desktop": ("rollout.jsonl", lambda p, n: _lines(p, _codex_desktop(n))),
    "gemini-cli": ("session.json", lambda p, n: _doc(p, _gemini(n))),
    "gemini-cli-jsonl": ("session.jsonl", lambda p, n: _lines(p, _gemini_lines(n))),
    "tau2-bench": ("results.json", lambda p, n: _doc(p, _tau2(n))),
    "inspect-ai": ("log.json", lambda p, n: _doc(p, _inspect(n))),
    "swe-agent": ("run.traj", lambda p, n: _doc(p, _swe(n))),
    "openhands": ("events.json", lambda p, n: _doc(p, _openhands(n))),
    "openhands-output": ("output.jsonl", lambda p, n: _lines(p, _openhands_output(n))),
    "agentdojo": ("result.json", lambda p, n: _doc(p, _agentdojo(n))),
    "mcp": ("cassette.json", lambda p, n: _doc(p, _mcp(n))),
    "mcp-debug": ("session.jsonl", lambda p, n: p.write_text("".join(_mcp_debug(n)))),
    "otel": ("trace.json", lambda p, n: _doc(p, _otel(n))),
    "langfuse": ("trace.json", lambda p, n: _doc(p, _langfuse(n))),
    "copilot-cli": ("events.jsonl", lambda p, n: _lines(p, _copilot(n))),
    "copilot-cli-history": ("session.json", lambda p, n: _doc(p, _copilot_history(n))),
    "google-adk": ("session.json", lambda p, n: _doc(p, _adk(n))),
    "otel-js": ("otel.jsonl", lambda p, n: _lines(p, _otel_js(n))),
    "opencode": ("session.json", lambda p, n: _doc(p, _opencode(n))),
    "cline": ("api_conversation_history.json", lambda p, n: _doc(p, _cline(n))),
    "opencode-run-json": ("run.jsonl", lambda p, n: _lines(p, _opencode_events(n))),
    "opencode-db": ("opencode.db", _opencode_db),
    "opencode-storage": ("storage", _opencode_storage),
    "bedrock-converse": ("converse.json", lambda p, n: _doc(p, _converse_cassette(n))),
    "xai": ("grok.xai.json", lambda p, n: _doc(p, _xai_cassette(n))),
    "openai-responses": ("cassette.yaml", lambda p, n: p.write_text("".join(_responses(n)))),
    "openai-responses-json": ("responses.json", lambda p, n: _doc(p, _responses_json(n))),
    "openai-chat-cassette": ("chat.json", lambda p, n: _doc(p, _chat_cassette(n, "openai-chat"))),
    "anthropic-cassette": ("messages.json", lambda p, n: _doc(p, _chat_cassette(n, "anthropic"))),
    "openai-chat-text-bodies": (
        "chat.json",
        lambda p, n: _doc(p, _as_text_bodies(_chat_cassette(n, "openai-chat"))),
    ),
    # longer conversations (an agent's task of 20 tool calls): the history resent grows with
    # the square of the length, which the loader decodes once (chat_resends)
    "openai-chat-20-calls": (
        "chat.json",
        lambda p, n: _doc(p, _chat_cassette(n, "openai-chat", per=20)),
    ),
}


_FORMAT_OF = {
    "copilot-cli-history": "copilot-cli",
    "mcp-debug": "mcp",
    "otel-js": "otel",
    "codex-desktop": "codex",
    "opencode-run-json": "opencode",
    "opencode-db": "opencode",
    "opencode-storage": "opencode",
    "gemini-cli-jsonl": "gemini-cli",
    "openhands-output": "openhands",
    "openai-responses-json": "openai-responses",
    "openai-chat-cassette": "openai-chat",
    "anthropic-cassette": "anthropic",
    "openai-chat-text-bodies": "openai-chat",
    "openai-chat-20-calls": "openai-chat",
}
"""The format a line's file loads as, where the line names a shape of it."""


def _bare(path: Path, *, text_bodies: bool = False) -> None:
    """The floor: decode the file and keep nothing (what every loader does first), with the
    cyclic collector paused as the loaders pause it (else a large document's decode is
    mostly the collector's passes over it, and the floor flatters the loader).
    ``text_bodies``: each body of the cassette is JSON text, decoded too."""
    gc.disable()
    try:
        _decode(path, text_bodies)
    finally:
        gc.enable()


def _decode(path: Path, text_bodies: bool) -> None:
    if path.is_dir():  # a folder of records: each file read and decoded
        for file in sorted(path.rglob("*.json")):
            orjson.loads(file.read_bytes())
        return
    if path.suffix == ".db":  # the rows read, each JSON column decoded
        import sqlite3

        with closing(sqlite3.connect(path)) as db:
            for table in ("message", "part"):
                for (data,) in db.execute(f"SELECT data FROM {table}"):
                    orjson.loads(data)
        return
    data = path.read_bytes()
    if path.suffix == ".jsonl":
        for line in data.split(b"\n"):
            if line and line[0] != 35:  # mcp-debug's comment lines start with "#"
                orjson.loads(line)
    elif path.suffix == ".yaml":  # the fastest YAML decoder here (libyaml's: 25 times slower)
        from workbench._load.vcr_yaml import load_vcr_yaml

        load_vcr_yaml(data.decode("utf-8"))
    elif text_bodies:
        for interaction in orjson.loads(data)["interactions"]:
            orjson.loads(interaction["request"]["body"]["string"])
            orjson.loads(interaction["response"]["body"]["string"])
    else:
        orjson.loads(data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated formats (default: all)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from workbench import load_runs

    names = [n for n in args.only.split(",") if n] or list(FORMATS)
    unknown = [n for n in names if n not in FORMATS]
    if unknown:
        parser.error(
            f"--only: unknown format(s) {', '.join(unknown)}; choose from {', '.join(FORMATS)}"
        )
    print(
        f"{args.calls:,} calls a file; repeats {args.repeats}; {os.cpu_count()} cores; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(
        f"{'format':22s} {'MB':>7s} {'wall s':>9s} {'cpu s':>7s} {'per cpu-s':>13s}"
        f" {'bare cpu s':>10s} {'x bare':>7s}  target {FLOOR:,} boundaries/s"
    )
    worst = float("inf")
    with tempfile.TemporaryDirectory(prefix="wb-formats-") as folder:
        for name in names:
            file_name, write = FORMATS[name]
            path = Path(folder) / file_name
            write(path, args.calls)
            times = []
            count = 0
            cpus = []
            bares = []
            for _ in range(args.repeats):
                cpu = time.process_time()
                _bare(path, text_bodies=name.endswith("-text-bodies"))
                bares.append(time.process_time() - cpu)
                start, cpu = time.perf_counter(), time.process_time()
                result = load_runs(path, strict=False)
                times.append(time.perf_counter() - start)
                cpus.append(time.process_time() - cpu)
                count = len(result.boundaries)
                assert result.format == _FORMAT_OF.get(name, name), (name, result.format)
                del result
            wall = statistics.median(times)
            cpu_s = statistics.median(cpus)
            bare = statistics.median(bares)
            rate = count / cpu_s
            worst = min(worst, rate)
            verdict = "met" if rate >= FLOOR else "NOT met"
            files = path.rglob("*") if path.is_dir() else [path]
            size = sum(f.stat().st_size for f in files if f.is_file()) / 1e6
            print(
                f"{name:22s} {size:7.1f} {wall:9.2f} {cpu_s:7.2f} {rate:13,.0f}"
                f" {bare:10.2f} {cpu_s / bare:6.1f}x  {verdict}"
            )
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    print(f"load average {os.getloadavg()[0]:.1f} after")
    return 0 if worst >= FLOOR else 1


if __name__ == "__main__":
    sys.exit(main())
