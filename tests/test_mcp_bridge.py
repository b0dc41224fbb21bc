"""The MCP bridge (SPEC R12-R22, R17; RFC 0245): fixtures served over MCP to the SDK's own client.

Over stdio and over streamable HTTP on 127.0.0.1: the RFC 0245 positive example (first call
``isError: true`` with ``upstream_down``, the second a success), the event log identical to the
in-process replay of the same suite, a miss under ``onMiss: "fail"``, and a call to an unknown
tool. Every server a test starts is stopped by that test.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from workbench._jsonio import read_json
from workbench._mcp import mcp_tool_names
from workbench._mcp._names import MCP_TOOL_NAME, infer_input_schema, task_tool_specs
from workbench._mcp._server import McpBridge
from workbench._replay import replay
from workbench._schemas import validate_events

ROOT = Path(__file__).resolve().parents[1]
SCRIPTED = "workbench.scripted-agent"


def text(value: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}]}


RFC_0245 = {
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


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "SYSTEMROOT")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")
    return env


def serve_args(suite: Path, out: Path, *extra: str) -> list[str]:
    return [
        "-m", "workbench.cli", "serve-mcp", str(suite), "--agent-id", SCRIPTED,
        "--events", str(out / "events.jsonl"), "--summary", str(out / "summary.json"), *extra,
    ]  # fmt: skip


async def _calls(client: Client, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    return [await client.call_tool(name, args) for name, args in calls]


def call_stdio(suite: Path, out: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    params = StdioServerParameters(
        command=sys.executable, args=serve_args(suite, out), env=_env(), cwd=str(out)
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
def http_server(suite_file: Path, tmp_path: Path) -> Iterator[str]:
    """``serve-mcp --http`` on a free 127.0.0.1 port; stopped (SIGTERM, then kill) on exit."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, *serve_args(suite_file, tmp_path, "--http", f"127.0.0.1:{port}")],
        env=_env(),
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


def test_stdio_serves_rfc_0245_example_and_logs_as_in_process(
    suite_file: Path, tmp_path: Path
) -> None:
    """R15, R17-R22 / RFC 0245 positive example over stdio: the first call is a tool error
    (``isError: true``, not a JSON-RPC error), the second a success; the event log is
    byte-identical to the in-process replay's and the summary has ``fixtureMissCount`` 0."""
    check_rfc_0245(call_stdio(suite_file, tmp_path, TWICE), tmp_path)


def test_http_serves_rfc_0245_example_and_logs_as_in_process(
    suite_file: Path, tmp_path: Path
) -> None:
    """The same over streamable HTTP on 127.0.0.1 (a free port): the log and the summary are
    written when the server is stopped (SIGTERM), identical to the in-process replay's."""
    with http_server(suite_file, tmp_path) as url:
        results = call_http(url, TWICE)
    check_rfc_0245(results, tmp_path)


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


def test_stdio_unknown_tool_is_a_tool_error_and_a_miss(suite_file: Path, tmp_path: Path) -> None:
    """R16/R17: a tool the task does not list is a miss, answered as ``isError: true`` (as the
    SDK's own MCPServer answers an unknown tool), never a JSON-RPC error; the log keeps it."""
    results = call_stdio(suite_file, tmp_path, [("no_such_tool", {})])
    assert results[0].is_error is True
    assert "no_such_tool" in results[0].content[0].text
    summary = read_json(tmp_path / "summary.json")
    assert summary["fixtureMissCount"] == 1
    events = [json.loads(x) for x in (tmp_path / "events.jsonl").read_text().splitlines()]
    called = [e["payload"] for e in events if e["type"] == "agent.tool-called"]
    assert [p["toolName"] for p in called] == ["no_such_tool"]


def test_http_miss_and_unknown_tool(suite_file: Path, tmp_path: Path) -> None:
    """Over HTTP too: a miss and an unknown tool are tool errors, not protocol errors, and
    both count in ``fixtureMissCount``."""
    with http_server(suite_file, tmp_path) as url:
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
