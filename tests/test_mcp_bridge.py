"""The MCP bridge (SPEC R12-R22, R17; RFC 0245): fixtures served over MCP to the SDK's own client.

Over stdio and over streamable HTTP on 127.0.0.1, with the lean transports (the default) and the
SDK's (``--transport-impl sdk``): the RFC 0245 positive example (first call ``isError: true``
with ``upstream_down``, the second a success), the event log identical to the in-process replay
of the same suite, a miss under ``onMiss: "fail"``, and a call to an unknown tool. The lean
transports' protocol edges (malformed messages, batches, sessions, GET/DELETE, DNS-rebinding
checks) are pinned on raw JSON-RPC and raw HTTP. Every server a test starts is stopped by that
test.
"""

from __future__ import annotations

import contextlib
import copy
import json
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers.cli import child_env
from helpers.suites import text

pytest.importorskip("mcp")

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from workbench import read_json, replay
from workbench._suite.schemas import validate_events
from workbench.bridge import mcp_tool_names
from workbench.bridge._names import MCP_TOOL_NAME, infer_input_schema, task_tool_specs
from workbench.bridge._server import McpBridge

SCRIPTED = "workbench.scripted-agent"


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


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(RFC_0245), encoding="utf-8")
    return path


def serve_args(suite: Path, out: Path, *extra: str) -> list[str]:
    return [
        "-m", "workbench.cli", "serve-mcp", str(suite), "--agent-id", SCRIPTED,
        "--events", str(out / "events.jsonl"), "--summary", str(out / "summary.json"), *extra,
    ]  # fmt: skip


async def _calls(client: Client, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    return [await client.call_tool(name, args) for name, args in calls]


IMPLS = ["lean", "sdk"]


def call_stdio(
    suite: Path, out: Path, calls: list[tuple[str, dict[str, Any]]], impl: str = "lean"
) -> list[Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=serve_args(suite, out, "--transport-impl", impl),
        env=child_env("SYSTEMROOT"),
        cwd=str(out),
    )

    async def main() -> list[Any]:
        with anyio.fail_after(60):
            async with Client(params) as client:
                return await _calls(client, calls)

    return anyio.run(main)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def http_server(suite_file: Path, tmp_path: Path, impl: str = "lean") -> Iterator[str]:
    """``serve-mcp --http`` on a free 127.0.0.1 port; stopped (SIGTERM, then kill) on exit."""
    port = free_port()
    extra = ("--http", f"127.0.0.1:{port}", "--transport-impl", impl)
    process = subprocess.Popen(
        [sys.executable, *serve_args(suite_file, tmp_path, *extra)],
        env=child_env("SYSTEMROOT"),
        cwd=str(tmp_path),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # bounded wait for the socket
            if process.poll() is not None:
                raise AssertionError(process.stderr.read().decode() if process.stderr else "")
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        else:
            raise AssertionError("serve-mcp --http did not listen within 60 s")
        yield f"http://127.0.0.1:{port}/mcp"
        process.send_signal(signal.SIGTERM)
        process.wait(20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()


def call_http(url: str, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def main() -> list[Any]:
        with anyio.fail_after(30):
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


@pytest.mark.parametrize("impl", IMPLS)
def test_stdio_serves_rfc_0245_example_and_logs_as_in_process(
    suite_file: Path, tmp_path: Path, impl: str
) -> None:
    """R15, R17-R22 / RFC 0245 positive example over stdio: the first call is a tool error
    (``isError: true``, not a JSON-RPC error), the second a success; the event log is
    byte-identical to the in-process replay's and the summary has ``fixtureMissCount`` 0,
    on the lean transport and on the SDK's."""
    check_rfc_0245(call_stdio(suite_file, tmp_path, TWICE, impl), tmp_path)


@pytest.mark.parametrize("impl", IMPLS)
def test_http_serves_rfc_0245_example_and_logs_as_in_process(
    suite_file: Path, tmp_path: Path, impl: str
) -> None:
    """The same over streamable HTTP on 127.0.0.1 (a free port): the log and the summary are
    written when the server is stopped (SIGTERM), identical to the in-process replay's."""
    with http_server(suite_file, tmp_path, impl) as url:
        results = call_http(url, TWICE)
    check_rfc_0245(results, tmp_path)


@pytest.mark.parametrize("impl", IMPLS)
def test_stdio_miss_under_on_miss_fail(suite_file: Path, tmp_path: Path, impl: str) -> None:
    """R16: a call no entry matches is a tool error with the miss text, counted in
    ``fixtureMissCount``; the task cannot pass."""
    results = call_stdio(suite_file, tmp_path, [("billing_lookup", {"id": "c-2"})], impl)
    assert results[0].is_error is True
    assert results[0].content[0].text == "no fixture entry matches this call to 'billing:lookup'"
    summary = read_json(tmp_path / "summary.json")
    assert summary["fixtureMissCount"] == 1 and summary["passed"] is False
    events = [json.loads(x) for x in (tmp_path / "events.jsonl").read_text().splitlines()]
    returned = [e["payload"] for e in events if e["type"] == "agent.tool-returned"]
    assert returned[0]["error"]["code"] == "workbench.fixture_miss"


@pytest.mark.parametrize("impl", IMPLS)
def test_stdio_unknown_tool_is_a_tool_error_and_a_miss(
    suite_file: Path, tmp_path: Path, impl: str
) -> None:
    """R16/R17: a tool the task does not list is a miss, answered as ``isError: true`` (as the
    SDK's own MCPServer answers an unknown tool), never a JSON-RPC error; the log keeps it."""
    results = call_stdio(suite_file, tmp_path, [("no_such_tool", {})], impl)
    assert results[0].is_error is True
    assert "no_such_tool" in results[0].content[0].text
    summary = read_json(tmp_path / "summary.json")
    assert summary["fixtureMissCount"] == 1
    events = [json.loads(x) for x in (tmp_path / "events.jsonl").read_text().splitlines()]
    called = [e["payload"] for e in events if e["type"] == "agent.tool-called"]
    assert [p["toolName"] for p in called] == ["no_such_tool"]


@pytest.mark.parametrize("impl", IMPLS)
def test_http_miss_and_unknown_tool(suite_file: Path, tmp_path: Path, impl: str) -> None:
    """Over HTTP too: a miss and an unknown tool are tool errors, not protocol errors, and
    both count in ``fixtureMissCount``."""
    with http_server(suite_file, tmp_path, impl) as url:
        miss, unknown = call_http(url, [("billing_lookup", {"id": "zz"}), ("nope", {})])
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


def test_input_schema_inferred_unless_the_suite_gives_one() -> None:
    """Schemas are inferred from the recorded args (nothing required) unless ``x-mcpTools``
    or a catalogue gives them."""
    assert infer_input_schema([{"id": "c-1", "n": 1}, {"n": 1.5}]) == {
        "type": "object",
        "properties": {"id": {"type": "string"}, "n": {"type": "number"}},
    }
    suite = copy.deepcopy(RFC_0245)
    task = suite["tasks"][0]
    specs, ids = task_tool_specs(suite, task)
    assert ids == {"billing_lookup": "billing:lookup"}
    assert specs[0]["inputSchema"]["properties"] == {"id": {"type": "string"}}
    given = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
    task["x-mcpTools"] = [{"name": "billing:lookup", "inputSchema": given, "description": "d"}]
    specs, _ = task_tool_specs(suite, task)
    assert specs[0]["inputSchema"] == given and specs[0]["description"] == "d"
    catalogue = {"tools": [{"name": "billing_lookup", "inputSchema": {"type": "object"}}]}
    specs, _ = task_tool_specs(suite, task, catalogue=catalogue)
    assert specs[0]["inputSchema"] == {"type": "object"}


# ---- the lean transports' protocol edges ---------------------------------------------------


def list_tools_stdio(suite: Path, out: Path, impl: str) -> list[dict[str, Any]]:
    params = StdioServerParameters(
        command=sys.executable,
        args=serve_args(suite, out, "--transport-impl", impl),
        env=child_env("SYSTEMROOT"),
        cwd=str(out),
    )

    async def main() -> list[dict[str, Any]]:
        with anyio.fail_after(60):
            async with Client(params) as client:
                listed = await client.list_tools()
                return [
                    t.model_dump(mode="json", by_alias=True, exclude_none=True)
                    for t in listed.tools
                ]

    return anyio.run(main)


def test_tools_list_carries_input_schemas_alike_on_both_transports(
    suite_file: Path, tmp_path: Path
) -> None:
    """``tools/list`` lists the task's tools with their input schemas, and the lean transport
    lists exactly what the SDK's server lists (the same SDK model builds both)."""
    lean = list_tools_stdio(suite_file, tmp_path, "lean")
    sdk = list_tools_stdio(suite_file, tmp_path, "sdk")
    assert lean == sdk
    assert [t["name"] for t in lean] == ["billing_lookup"]
    assert lean[0]["inputSchema"] == {"type": "object", "properties": {"id": {"type": "string"}}}


def lean_bridge() -> McpBridge:
    return McpBridge(copy.deepcopy(RFC_0245), agent_id=SCRIPTED)


def rpc(bridge: McpBridge, line: bytes) -> Any:
    out = bridge.protocol.handle_bytes(line)
    return None if out is None else json.loads(out)


def test_lean_jsonrpc_errors_for_malformed_messages() -> None:
    """JSON-RPC 2.0 errors for what is not a valid request: bytes that are not JSON (-32700,
    id null), a batch (-32600: the handshake-era versions served have no batches), a message
    without ``jsonrpc: "2.0"`` or without a method (-32600), an unknown method or
    ``server/discover`` (-32601), bad params (-32602); notifications get no answer."""
    bridge = lean_bridge()
    parse = rpc(bridge, b"{not json")
    assert parse == {"jsonrpc": "2.0", "id": None, "error": parse["error"]}
    assert parse["error"]["code"] == -32700
    batch = rpc(bridge, b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]')
    assert batch["id"] is None and batch["error"]["code"] == -32600
    assert rpc(bridge, b'{"id":2,"method":"ping"}')["error"]["code"] == -32600
    assert rpc(bridge, b'{"jsonrpc":"2.0","id":3}')["error"]["code"] == -32600
    assert rpc(bridge, b'"ping"')["error"]["code"] == -32600
    unknown = rpc(bridge, b'{"jsonrpc":"2.0","id":4,"method":"resources/list"}')
    assert unknown["id"] == 4 and unknown["error"]["code"] == -32601
    discover = rpc(bridge, b'{"jsonrpc":"2.0","id":5,"method":"server/discover"}')
    assert discover["error"]["code"] == -32601
    no_name = rpc(bridge, b'{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{}}')
    assert no_name["id"] == 6 and no_name["error"]["code"] == -32602
    bad_args = b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":1}}'
    assert rpc(bridge, bad_args)["error"]["code"] == -32602
    assert (
        rpc(bridge, b'{"jsonrpc":"2.0","id":8,"method":"ping","params":[]}')["error"]["code"]
        == -32602
    )
    assert rpc(bridge, b'{"jsonrpc":"2.0","method":"notifications/initialized"}') is None
    assert rpc(bridge, b'{"jsonrpc":"2.0","id":9,"result":{}}') is None
    assert rpc(bridge, b'{"jsonrpc":"2.0","id":10,"method":"ping"}') == {
        "jsonrpc": "2.0",
        "id": 10,
        "result": {},
    }
    assert bridge.finish().fixture_miss_count == 0


def test_lean_initialize_negotiates_a_handshake_version() -> None:
    """``initialize`` answers with the client's version when it is one the lean transports
    speak, else with the latest of them, and names the tools capability and the server."""
    bridge = lean_bridge()
    old = (
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}'
    )
    result = rpc(bridge, old)["result"]
    assert result["protocolVersion"] == "2025-03-26"
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"] == {"name": "workbench-replay", "version": "1.0.0"}
    future = old.replace(b"2025-03-26", b"2999-01-01")
    assert rpc(bridge, future)["result"]["protocolVersion"] == "2025-11-25"
    assert rpc(bridge, b'{"jsonrpc":"2.0","id":2,"method":"initialize"}')["error"]["code"] == -32602


def test_lean_stdio_answers_line_by_line_and_serves_calls_through_the_host() -> None:
    """The lean stdio loop: one response line per request line, nothing for notifications or
    blank lines, and a ``tools/call`` served by the host (an ``isError`` entry comes back as
    ``isError: true`` in a result, not as a JSON-RPC error)."""
    import io

    bridge = lean_bridge()
    call = {"name": "billing_lookup", "arguments": {"id": "c-1"}}
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "x"}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": call},
    ]
    stdin = io.BytesIO(b"\n".join(json.dumps(x).encode() for x in lines) + b"\n\n")
    stdout = io.BytesIO()
    bridge.serve_stdio(stdin, stdout)
    answers = [json.loads(x) for x in stdout.getvalue().splitlines()]
    assert [a["id"] for a in answers] == [1, 2, 3]
    assert answers[1]["result"] == {
        "content": [{"type": "text", "text": '{"error":"upstream_down"}'}],
        "isError": True,
    }
    assert answers[2]["result"]["isError"] is False
    result = bridge.finish()
    assert result.passed and result.fixture_miss_count == 0


async def _asgi(
    app: Any, method: str, body: Any = None, headers: dict[str, str] | None = None
) -> Any:
    import httpx

    sent = {"host": "127.0.0.1:8000", "accept": "application/json, text/event-stream"}
    if body is not None:
        sent["content-type"] = "application/json"
    sent.update(headers or {})
    content = body if isinstance(body, bytes) else None if body is None else json.dumps(body)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as c:
        return await c.request(method, "/mcp", content=content, headers=sent)


INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t"}},
}


def test_lean_http_sessions_notifications_get_and_delete() -> None:
    """Streamable HTTP (2025-11-25): ``initialize`` returns an ``Mcp-Session-Id``; a request
    without it is 400, with an unknown one 404; a notification is 202 with no body; GET is
    405 (no SSE stream offered, as the spec allows); DELETE ends the session, after which its
    id is 404."""
    bridge = lean_bridge()
    app = bridge.http_app()

    async def main() -> None:
        init = await _asgi(app, "POST", INIT)
        assert init.status_code == 200
        assert init.headers["content-type"] == "application/json"
        session = init.headers["mcp-session-id"]
        assert init.json()["result"]["protocolVersion"] == "2025-11-25"
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        assert (await _asgi(app, "POST", ping)).status_code == 400
        unknown = await _asgi(app, "POST", ping, {"mcp-session-id": "nope"})
        assert unknown.status_code == 404
        own = {"mcp-session-id": session}
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        accepted = await _asgi(app, "POST", note, own)
        assert accepted.status_code == 202 and accepted.content == b""
        listed = await _asgi(app, "POST", {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, own)
        assert [t["name"] for t in listed.json()["result"]["tools"]] == ["billing_lookup"]
        get = await _asgi(app, "GET", None, own)
        assert get.status_code == 405 and "GET" not in get.headers["allow"]
        assert (await _asgi(app, "PUT", None, own)).status_code == 405
        assert (await _asgi(app, "DELETE", None)).status_code == 400
        assert (await _asgi(app, "DELETE", None, own)).status_code == 200
        assert (await _asgi(app, "POST", ping, own)).status_code == 404

    anyio.run(main)


def test_lean_http_rejects_malformed_requests_as_the_sdk_does() -> None:
    """Malformed POSTs: not JSON is 400 with -32700, a batch 400 with -32600, an unknown
    method 200 with -32601 (a JSON-RPC error, the request was valid HTTP); a wrong
    Content-Type is 400, an Accept without JSON 406, an ``MCP-Protocol-Version`` it does not
    speak 400 with -32022 and the supported versions; on loopback a foreign Host is 421 and a
    foreign Origin 403 (DNS-rebinding protection); another path is 404."""
    bridge = lean_bridge()
    app = bridge.http_app()

    async def main() -> None:
        own = {"mcp-session-id": (await _asgi(app, "POST", INIT)).headers["mcp-session-id"]}
        parse = await _asgi(app, "POST", b"{oops", own)
        assert parse.status_code == 400 and parse.json()["error"]["code"] == -32700
        batch = await _asgi(app, "POST", [{"jsonrpc": "2.0", "id": 1, "method": "ping"}], own)
        assert batch.status_code == 400 and batch.json()["error"]["code"] == -32600
        unknown = await _asgi(app, "POST", {"jsonrpc": "2.0", "id": 2, "method": "x/y"}, own)
        assert unknown.status_code == 200 and unknown.json()["error"]["code"] == -32601
        ping = {"jsonrpc": "2.0", "id": 3, "method": "ping"}
        wrong_type = await _asgi(app, "POST", ping, {**own, "content-type": "text/plain"})
        assert wrong_type.status_code == 400
        no_json = await _asgi(app, "POST", ping, {**own, "accept": "text/event-stream"})
        assert no_json.status_code == 406
        modern = await _asgi(app, "POST", ping, {**own, "mcp-protocol-version": "2026-07-28"})
        assert modern.status_code == 400
        error = modern.json()["error"]
        assert error["code"] == -32022 and "2025-11-25" in error["data"]["supported"]
        assert (await _asgi(app, "POST", ping, {**own, "host": "evil.test"})).status_code == 421
        origin = {**own, "origin": "http://evil.test"}
        assert (await _asgi(app, "POST", ping, origin)).status_code == 403
        assert (await _asgi(app, "POST", ping, {**own, "origin": "http://localhost:3000"})).json()[
            "result"
        ] == {}

    anyio.run(main)


def test_lean_http_server_answers_get_with_405_over_a_socket(
    suite_file: Path, tmp_path: Path
) -> None:
    """``serve-mcp --http`` (lean, a real socket): GET on the endpoint is 405 and DELETE ends
    the SDK client's session; the summary is still written on shutdown."""
    import httpx

    with http_server(suite_file, tmp_path) as url:
        call_http(url, TWICE[:1])
        with httpx.Client() as client:
            init = client.post(url, json=INIT, headers={"accept": "application/json"})
            session = {"mcp-session-id": init.headers["mcp-session-id"]}
            assert client.get(url, headers=session).status_code == 405
            assert client.delete(url, headers=session).status_code == 200
            ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
            after = client.post(url, json=ping, headers={**session, "accept": "application/json"})
            assert after.status_code == 404
    assert read_json(tmp_path / "summary.json")["fixtureMissCount"] == 0
