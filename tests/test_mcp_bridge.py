"""The MCP bridge (SPEC R12-R22, R17, R42; RFC 0245): fixtures served by the MCP SDK's server.

Over stdio and streamable HTTP on 127.0.0.1: the RFC 0245 positive example (first call
``isError: true`` with ``upstream_down``, the second a success) with the event log identical to
the in-process replay of the same suite, a miss under ``onMiss: "fail"``, and a call to an
unknown tool. Recorded answers go back as they were recorded (R42): results verbatim at every
protocol revision (members, order, ``_meta``, nothing added), recorded JSON-RPC errors as the
same JSON-RPC errors, the catalogue as listed. Hostile input gets JSON-RPC errors on both
transports and never costs the event log; exit codes say what happened. Every server a test
starts is stopped by that test.
"""

from __future__ import annotations

import copy
import json
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers.suites import text

pytest.importorskip("mcp")

import anyio
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from helpers.mcp import RawHttp, RawStdio, cli_env, ordered, serving_http, workbench
from workbench import read_json, replay
from workbench._suite.schemas import validate_events
from workbench.bridge import mcp_tool_names
from workbench.bridge._names import MCP_TOOL_NAME, infer_input_schema, task_tool_specs
from workbench.bridge._server import McpBridge
from workbench.bridge._stdio import classify_line

SCRIPTED = "workbench.scripted-agent"
HANDSHAKE_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
MODERN = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
}


RFC_0245: dict[str, Any] = {
    "suiteId": "workbench.evals.rfc-0245-positive",
    "version": "1.0.0",
    "modes": ["golden"],
    "tasks": [
        {
            "taskId": "fixture-error-replayed",
            "input": {
                "script": [
                    {"tool": "billing:lookup", "args": {"id": "c-1"}, "onError": {"retry": 1}}
                ]
            },
            "expected": {
                "kind": "golden",
                "match": {
                    "strategy": "json-match",
                    "value": {"outcome": "completed", "answer": None},
                },
            },
            "fixtures": {
                "onMiss": "fail",
                "toolResponses": [
                    {
                        "tool": "billing:lookup",
                        "args": {"id": "c-1"},
                        "argsMatch": "exact",
                        "isError": True,
                        "response": text('{"error":"upstream_down"}'),
                    },
                    {
                        "tool": "billing:lookup",
                        "args": {"id": "c-1"},
                        "response": text('{"plan":"team"}'),
                    },
                ],
            },
            "trajectory": {
                "expected": [
                    {"tool": "billing:lookup", "args": {"id": "c-1"}},
                    {"tool": "billing:lookup", "args": {"id": "c-1"}},
                ],
                "match": "strict",
            },
        }
    ],
}

# Synthetic recorded answers, shaped as real servers send them (member order not sorted,
# vendor members, _meta, an explicit null) to pin what R42 keeps.
VERBATIM = {
    "structuredContent": {"b": 2, "a": 1},
    "x-vendor": {"keep": True},
    "content": [{"type": "text", "text": "hi ünï", "annotations": {"priority": 0.5}, "x-c": 1}],
    "_meta": {"z": 1, "a": 2},
}
UNKNOWN_TOOL = {"code": -32602, "message": "Unknown tool: nope"}
WITH_NULL_DATA = {"code": -32603, "message": "upstream crashed", "data": None}


def recorded_suite() -> dict[str, Any]:
    """A suite as promotion writes a recording: a verbatim success, an isError result without
    the flag in its body, and two recorded JSON-RPC errors (one of an unknown tool)."""
    suite = copy.deepcopy(RFC_0245)
    task = suite["tasks"][0]
    task["fixtures"]["toolResponses"] = [
        {"tool": "lookup", "args": {"id": "c-1"}, "response": VERBATIM},
        {"tool": "lookup", "args": {"id": "c-2"}, "isError": True, "response": text("down")},
        {
            "tool": "nope",
            "args": {},
            "isError": True,
            "response": {"content": [], "x-jsonrpcError": UNKNOWN_TOOL},
        },
        {
            "tool": "lookup",
            "args": {"id": "c-3"},
            "isError": True,
            "response": {
                "content": text("upstream crashed")["content"],
                "x-jsonrpcError": WITH_NULL_DATA,
            },
        },
    ]
    del task["trajectory"]
    task["input"] = {"script": []}
    return suite


RECORDED_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("lookup", {"id": "c-1"}),
    ("lookup", {"id": "c-2"}),
    ("nope", {}),
    ("lookup", {"id": "c-3"}),
]


def write_suite(tmp_path: Path, suite: dict[str, Any]) -> Path:
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    return write_suite(tmp_path, RFC_0245)


def serve_args(suite: Path, out: Path, *extra: str) -> list[str]:
    return [
        "serve-mcp",
        str(suite),
        "--agent-id",
        SCRIPTED,
        "--events",
        str(out / "events.jsonl"),
        "--summary",
        str(out / "summary.json"),
        *extra,
    ]


async def _calls(client: Client, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    return [await client.call_tool(name, args) for name, args in calls]


def call_stdio(suite: Path, out: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "workbench.cli", *serve_args(suite, out)],
        env=cli_env(),
        cwd=str(out),
    )

    async def main() -> list[Any]:
        with anyio.fail_after(90):
            async with Client(params) as client:
                return await _calls(client, calls)

    return anyio.run(main)


def call_http(url: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def main() -> list[Any]:
        with anyio.fail_after(60):
            async with Client(url) as client:
                return await _calls(client, calls)

    return anyio.run(main)


def in_process_events(suite: dict[str, Any]) -> str:
    result = replay(suite)
    return "".join(
        json.dumps(e, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
        for e in result.events
    )


TWICE = [("billing_lookup", {"id": "c-1"}), ("billing_lookup", {"id": "c-1"})]


def check_rfc_0245(results: list[Any], out: Path) -> None:
    first, second = results
    assert first.is_error is True
    assert first.content[0].text == '{"error":"upstream_down"}'
    assert second.is_error is False
    assert second.content[0].text == '{"plan":"team"}'
    events_text = (out / "events.jsonl").read_text(encoding="utf-8")
    assert events_text == in_process_events(RFC_0245)
    events = [json.loads(line) for line in events_text.splitlines()]
    assert validate_events(events) == []
    returned = [e["payload"] for e in events if e["type"] == "agent.tool-returned"]
    assert "error" in returned[0] and "outcome" not in returned[0]
    assert "outcome" in returned[1] and "error" not in returned[1]
    assert all(p["toolName"] == "billing:lookup" for p in returned)
    summary = read_json(out / "summary.json")
    assert summary["fixtureMissCount"] == 0 and summary["passed"] is True


@pytest.mark.slow
def test_stdio_serves_rfc_0245_example_and_logs_as_in_process(
    suite_file: Path, tmp_path: Path
) -> None:
    """R15, R17-R22 / RFC 0245 positive example over stdio, with the SDK client (which lands
    on 2026-07-28 with the SDK's server): the first call is a tool error (``isError: true``,
    not a JSON-RPC error), the second a success; the event log is byte-identical to the
    in-process replay's and the summary has ``fixtureMissCount`` 0."""
    check_rfc_0245(call_stdio(suite_file, tmp_path, TWICE), tmp_path)


@pytest.mark.slow
def test_http_serves_rfc_0245_example_and_logs_as_in_process(
    suite_file: Path, tmp_path: Path
) -> None:
    """The same over streamable HTTP on 127.0.0.1: the log and the summary are written when
    the server is stopped (SIGTERM), identical to the in-process replay's; exit 0 (passed)."""
    with serving_http(suite_file, *serve_args(suite_file, tmp_path)[2:]) as (url, process):
        results = call_http(url, TWICE)
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    check_rfc_0245(results, tmp_path)


@pytest.mark.slow
def test_stdio_miss_under_on_miss_fail(suite_file: Path, tmp_path: Path) -> None:
    """R16: a call no entry matches is a tool error with the miss text, counted in
    ``fixtureMissCount``; the task cannot pass."""
    results = call_stdio(suite_file, tmp_path, [("billing_lookup", {"id": "c-2"})])
    assert results[0].is_error is True
    assert results[0].content[0].text == "no fixture entry matches this call to 'billing:lookup'"
    summary = read_json(tmp_path / "summary.json")
    assert summary["fixtureMissCount"] == 1 and summary["passed"] is False
    events = [json.loads(x) for x in (tmp_path / "events.jsonl").read_text().splitlines()]
    returned = [e["payload"] for e in events if e["type"] == "agent.tool-returned"]
    assert returned[0]["error"]["code"] == "workbench.fixture_miss"


@pytest.mark.slow
def test_stdio_unknown_tool_is_a_tool_error_and_a_miss(suite_file: Path, tmp_path: Path) -> None:
    """R16/R17: a tool the task does not have (and that was not recorded) is a miss, answered
    as ``isError: true``, never a JSON-RPC error; the log keeps it."""
    results = call_stdio(suite_file, tmp_path, [("no_such_tool", {})])
    assert results[0].is_error is True
    assert "no_such_tool" in results[0].content[0].text
    assert read_json(tmp_path / "summary.json")["fixtureMissCount"] == 1
    events = [json.loads(x) for x in (tmp_path / "events.jsonl").read_text().splitlines()]
    called = [e["payload"] for e in events if e["type"] == "agent.tool-called"]
    assert [p["toolName"] for p in called] == ["no_such_tool"]


@pytest.mark.slow
def test_http_miss_and_unknown_tool(suite_file: Path, tmp_path: Path) -> None:
    """Over HTTP too: a miss and an unknown tool are tool errors, not protocol errors, and
    both count in ``fixtureMissCount``; the failed trial exits 1."""
    with serving_http(suite_file, *serve_args(suite_file, tmp_path)[2:]) as (url, process):
        miss, unknown = call_http(url, [("billing_lookup", {"id": "zz"}), ("nope", {})])
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 1
    assert miss.is_error is True and unknown.is_error is True
    assert read_json(tmp_path / "summary.json")["fixtureMissCount"] == 2


def test_bridge_in_process_client_sees_what_the_host_serves() -> None:
    """R17: the bridge's own server, driven by the SDK client in process, returns the host's
    result for each call, and finish() builds the summary."""
    bridge = McpBridge(copy.deepcopy(RFC_0245), agent_id=SCRIPTED)

    async def main() -> list[Any]:
        async with Client(bridge.server) as client:
            listed = await client.list_tools()
            assert [t.name for t in listed.tools] == ["billing_lookup"]
            return await _calls(client, TWICE)

    first, second = anyio.run(main)
    assert (first.is_error, second.is_error) == (True, False)
    result = bridge.finish()
    assert result.passed and result.fixture_miss_count == 0
    assert bridge.finish() is result


# ---- names and the catalogue ----------------------------------------------------------------


def test_tool_names_map_invalid_ids_by_one_rule() -> None:
    """A tool id that is not a valid MCP name maps by the documented rule, one-to-one."""
    names = mcp_tool_names(["billing:lookup", "billing_lookup", "ok.tool", "a b", ""])
    assert names["ok.tool"] == "ok.tool"
    assert names["billing_lookup"] == "billing_lookup"
    assert names["billing:lookup"].startswith("billing_lookup-")
    assert names["a b"] == "a_b"
    assert len(set(names.values())) == len(names)
    assert all(MCP_TOOL_NAME.fullmatch(n) for n in names.values())
    assert mcp_tool_names(["billing:lookup"]) == {"billing:lookup": "billing_lookup"}


def test_input_schema_inferred_without_a_catalogue() -> None:
    """Without a catalogue a tool's schema is inferred from the recorded args (nothing
    required, other keys allowed)."""
    assert infer_input_schema([{"id": "c-1", "n": 1}, {"n": 1.5}]) == {
        "type": "object",
        "properties": {"id": {"type": "string"}, "n": {"type": "number"}},
    }
    suite = copy.deepcopy(RFC_0245)
    specs, ids = task_tool_specs(suite, suite["tasks"][0])
    assert ids == {"billing_lookup": "billing:lookup"}
    assert specs == [
        {
            "name": "billing_lookup",
            "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}},
            "description": "Recorded tool 'billing:lookup'.",
        }
    ]


def test_catalogue_is_listed_as_recorded_and_refused_tools_are_not() -> None:
    """R42: with a catalogue the tools listed are the live server's, every field in its order
    (tools never called included); a tool refused as unknown (a JSON-RPC error, or an
    isError answer from a server that answers unknown tools so) is not listed. Without one,
    the tools called successfully or with a tool-level error are listed, and one only ever
    refused with a JSON-RPC error is not."""
    suite = recorded_suite()
    task = suite["tasks"][0]
    task["fixtures"]["toolResponses"].append(
        {"tool": "ghost", "args": {}, "isError": True, "response": text("Tool ghost not found")}
    )
    specs, ids = task_tool_specs(suite, task)
    assert [s["name"] for s in specs] == ["lookup", "ghost"]  # "nope" was refused
    assert ids["nope"] == "nope"
    live = [
        {
            "name": "lookup",
            "title": "Lookup",
            "description": "d",
            "execution": {"x": 1},
            "inputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": True},
            "x-t": 2,
        },
        {"name": "never_called", "inputSchema": {"type": "object", "properties": {}}},
    ]
    task["x-mcpTools"] = copy.deepcopy(live)
    specs, _ = task_tool_specs(suite, task)
    assert ordered(specs) == ordered(live)
    specs, _ = task_tool_specs(suite, task, catalogue={"tools": live[1:]})
    assert [s["name"] for s in specs] == ["never_called", "lookup"]
    bridge = McpBridge(suite)

    async def main() -> list[Any]:
        async with Client(bridge.server) as client:
            return list((await client.list_tools()).tools)

    assert [t.name for t in anyio.run(main)] == ["lookup", "never_called"]
    with pytest.raises(ValueError, match=r"tools\[0\]"):
        McpBridge(suite, catalogue={"tools": [{"name": "x", "inputSchema": 5}]})


# ---- R42: what goes back is what was recorded -------------------------------------------------


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@pytest.mark.slow
@pytest.mark.parametrize("version", HANDSHAKE_VERSIONS)
def test_results_and_errors_are_served_verbatim_at_each_revision(
    tmp_path: Path, version: str
) -> None:
    """R42 over stdio, at every handshake revision: a recorded result goes out with the same
    members in the same order (``_meta`` and vendor members kept, no ``isError`` added); an
    ``isError`` entry whose body lacks the flag gets ``isError: true`` appended; a recorded
    JSON-RPC error is that error (code, message, and ``data`` only when it had one)."""
    suite = write_suite(tmp_path, recorded_suite())
    client = RawStdio(workbench("serve-mcp", str(suite)), env=cli_env())
    assert client.initialize(version).result["protocolVersion"] == version
    answers = [client.call(name, args) for name, args in RECORDED_CALLS]
    assert client.close() == 0  # every call was recorded: the trial passes
    assert answers[0].member() == compact(VERBATIM)
    assert answers[1].member() == compact({**text("down"), "isError": True})
    assert answers[2].member() == compact(UNKNOWN_TOOL)
    assert answers[3].member() == compact(WITH_NULL_DATA)


@pytest.mark.slow
def test_modern_revision_appends_only_the_envelope_it_requires(tmp_path: Path) -> None:
    """At 2026-07-28 the protocol requires ``resultType`` and the SDK stamps ``serverInfo`` in
    ``_meta``: those are added after the recorded members, which keep their order."""
    suite = write_suite(tmp_path, recorded_suite())
    client = RawStdio(workbench("serve-mcp", str(suite)), env=cli_env())
    discovered = client.request("server/discover", {"_meta": MODERN})
    assert discovered.result["supportedVersions"] == ["2026-07-28"]
    answer = client.request(
        "tools/call", {"name": "lookup", "arguments": {"id": "c-1"}, "_meta": MODERN}
    )
    error = client.request("tools/call", {"name": "nope", "arguments": {}, "_meta": MODERN})
    client.close()
    result = answer.result
    assert list(result) == [*VERBATIM, "resultType"]
    assert list(result["_meta"]) == ["z", "a", "io.modelcontextprotocol/serverInfo"]
    assert ordered({k: result[k] for k in VERBATIM if k != "_meta"}) == ordered(
        {k: v for k, v in VERBATIM.items() if k != "_meta"}
    )
    assert error.member() == compact(UNKNOWN_TOOL)


@pytest.mark.slow
def test_recorded_jsonrpc_error_over_http_and_as_an_in_process_tool_error(
    tmp_path: Path,
) -> None:
    """R42, R17: over HTTP a recorded JSON-RPC error is the same JSON-RPC error (the SDK
    client raises it with its code, message and data); in process (the scripted agent's
    tool interface) it is a tool error whose text is the message."""
    twice = recorded_suite()
    entries = twice["tasks"][0]["fixtures"]["toolResponses"]
    entries.extend(copy.deepcopy(entries))  # one set for the raw client, one for the SDK's
    suite = write_suite(tmp_path, twice)
    with serving_http(suite) as (url, _):
        raw = RawHttp(url)
        raw.initialize()
        assert [raw.call(name, args).member() for name, args in RECORDED_CALLS] == [
            compact(VERBATIM),
            compact({**text("down"), "isError": True}),
            compact(UNKNOWN_TOOL),
            compact(WITH_NULL_DATA),
        ]
        raw.close()

        async def main() -> list[Any]:
            out: list[Any] = []
            async with Client(url) as client:
                for name, args in RECORDED_CALLS:
                    try:
                        out.append(await client.call_tool(name, args))
                    except MCPError as exc:
                        out.append(exc)
            return out

        ok, down, unknown, crashed = anyio.run(main)
    assert ok.is_error is False and ok.structured_content == {"b": 2, "a": 1}
    assert down.is_error is True
    assert isinstance(unknown, MCPError) and (unknown.code, unknown.message) == (
        -32602,
        "Unknown tool: nope",
    )
    assert isinstance(crashed, MCPError) and crashed.code == -32603 and crashed.data is None

    data = recorded_suite()
    data["tasks"][0]["input"]["script"] = [
        {"tool": name, "args": args, "onError": "skip"} for name, args in RECORDED_CALLS
    ]
    calls = replay(data).tasks[0].trials[0].calls
    assert [(c.is_error, c.error) for c in calls] == [
        (False, None),
        (True, "down"),
        (True, "Tool call failed"),  # the recorded message: an empty content, so R17's text
        (True, "upstream crashed"),
    ]


# ---- hostile input ------------------------------------------------------------------------------

HOSTILE_LINES = [
    b"hello\n",
    b'{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"\\ud800"}}\n',
    b"[]\n",
    b'[{"jsonrpc":"2.0","id":"b","method":"ping"}]\n',
    b'{"jsonrpc":"2.0","id":true,"method":"ping"}\n',
    b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}\n',
    b'{"jsonrpc":"1.0","id":"c","method":"ping"}\n',
    b'{"jsonrpc":"2.0","id":"d","method":5}\n',
    b'{"jsonrpc":"2.0","id":"e","method":"tools/call","params":[1]}\n',
    b'{"jsonrpc":"2.0","id":"f","method":"tools/call","params":{"name":"x","arguments":{"n":NaN}}}\n',
    b'{"jsonrpc":"2.0","id":"g","method":"tools/call","params":{"name":"\xff\xfe"}}\n',
    b"[" * 100_000 + b"\n",
    b'{"jsonrpc":"2.0","id":"h","method":"ping","params":{"n":' + b"9" * 5000 + b"}}\n",
    b'{"jsonrpc":"2.0","id":"i","method":"tools/call","params":{"name":5}}\n',
    b'{"jsonrpc":"2.0","id":"j","method":"tools/call","params":{"name":"x","arguments":[1]}}\n',
    b'{"jsonrpc":"2.0","id":"k","method":"nope/nope"}\n',
    b'{"jsonrpc":"2.0","id":"l","method":"tools/call","params":{"name":"'
    + b"x" * (5 << 20)
    + b'"}}\n',
]


@pytest.mark.slow
def test_hostile_lines_on_stdio_get_errors_and_never_cost_the_log(tmp_path: Path) -> None:
    """Each hostile line gets a JSON-RPC error (the request's id when it can be read), the
    server answers a ping after each one, a well-formed call still works, and the event log
    and summary are written (python-sdk#2751: the SDK's own transport drops these)."""
    suite = write_suite(tmp_path, RFC_0245)
    client = RawStdio(workbench(*serve_args(suite, tmp_path)), env=cli_env())
    client.initialize()
    for number, line in enumerate(HOSTILE_LINES):
        client.send(line)
        assert client.request("ping").result == {}, line[:80]
        assert len(client.answers) == 1, f"line {number}: {client.answers}"
        ((found, answer),) = client.answers.items()
        client.answers.clear()
        if line.startswith(b'{"jsonrpc":"2.0","id":"') and len(line) < 1 << 20:
            # a readable id is answered under it (an oversized line is skipped unread: id null)
            assert found == line[23:24].decode(), answer.text
        assert answer.error["code"] in (-32700, -32600, -32601, -32602), answer.text
    assert client.call("billing_lookup", {"id": "c-1"}).result["isError"] is True
    assert client.close() in (0, 1)
    events = [json.loads(x) for x in (tmp_path / "events.jsonl").read_bytes().splitlines()]
    assert validate_events(events) == []
    assert read_json(tmp_path / "summary.json")["fixtureMissCount"] == 0


HOSTILE_BODIES = [
    b"hello",
    b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"\\ud800"}}',
    b"[1]",
    b'{"jsonrpc":"2.0","id":true,"method":"ping"}',
    b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":{"n":NaN}}}',
    b"[" * 100_000,
    b'{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x","arguments":{"n":'
    + b"9" * 5000
    + b"}}}",
    b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":5}}',
    b"\xff\xfe",
    b"x" * (5 << 20),
]


@pytest.mark.slow
def test_hostile_http_requests_get_errors_and_never_cost_the_log(tmp_path: Path) -> None:
    """Over HTTP each hostile body gets an error answer (a JSON-RPC error, or 413 for a body
    over 4 MiB), never an empty 202 or a 500; the server keeps answering and writes its files."""
    suite = write_suite(tmp_path, RFC_0245)
    with serving_http(suite, *serve_args(suite, tmp_path)[2:]) as (url, process):
        client = RawHttp(url)
        client.initialize()
        for body in HOSTILE_BODIES:
            response = client.post(body)
            assert response.status_code in (200, 400, 413), (body[:60], response.status_code)
            if response.status_code != 413:
                assert response.json()["error"]["code"] in (-32700, -32600, -32602)
            assert client.request("ping").result == {}
        assert client.call("billing_lookup", {"id": "c-1"}).result["isError"] is True
        client.close()
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) in (0, 1)
    events = [json.loads(x) for x in (tmp_path / "events.jsonl").read_bytes().splitlines()]
    assert validate_events(events) == []
    assert (tmp_path / "summary.json").exists()


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=200), st.text(max_size=200).map(str.encode)))
def test_any_line_is_a_message_an_error_answer_or_nothing(line: bytes) -> None:
    """The framing never raises: any bytes are handed to the server, answered with a
    JSON-RPC error line, or ignored (blank lines, stray responses)."""
    got = classify_line(line)
    if isinstance(got, bytes):
        assert json.loads(got)["error"]["code"] in (-32700, -32600, -32602)


@pytest.mark.slow
def test_end_of_input_right_after_pipelined_requests_answers_them_all(tmp_path: Path) -> None:
    """python-sdk#2678: 40 calls written at once and stdin closed at once all get answers."""
    suite = write_suite(tmp_path, RFC_0245)
    lines = [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "0"},
                },
            }
        )
    ]
    lines.append(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    for number in range(1, 41):
        params = {"name": "billing_lookup", "arguments": {"id": f"c-{number}"}}
        lines.append(
            json.dumps({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params})
        )
    done = subprocess.run(
        workbench("serve-mcp", str(suite)),
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=120,
    )
    ids = [json.loads(line)["id"] for line in done.stdout.splitlines()]
    assert sorted(ids) == list(range(41))


# ---- exit codes ----------------------------------------------------------------------------


@pytest.mark.slow
def test_exit_codes_say_what_happened(suite_file: Path, tmp_path: Path) -> None:
    """2 for a suite that cannot be served, 4 when the client made no call (the files are
    still written), 2 with one line and no files when the port is taken (bad input: the
    ``--http`` address)."""
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    done = subprocess.run(
        workbench("serve-mcp", str(bad)),
        capture_output=True,
        text=True,
        env=cli_env(),
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    done = subprocess.run(
        workbench(*serve_args(suite_file, tmp_path)),
        capture_output=True,
        text=True,
        env=cli_env(),
        stdin=subprocess.DEVNULL,
        timeout=60,
    )
    assert done.returncode == 4, done.stderr
    assert "NO CALL" in done.stderr and (tmp_path / "summary.json").exists()
    (tmp_path / "summary.json").unlink()
    (tmp_path / "events.jsonl").unlink()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            workbench(*serve_args(suite_file, tmp_path, "--http", str(port))),
            capture_output=True,
            text=True,
            env=cli_env(),
            timeout=60,
        )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "could not listen" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "events.jsonl").exists() and not (tmp_path / "summary.json").exists()
