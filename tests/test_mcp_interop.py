"""Clients nobody here wrote see recorded failures as failures (SPEC R17, R42, R15; issue 14).

The official Python SDK client (``auto``, which lands on 2026-07-28, and ``legacy``, 2025-11-25),
fastmcp's client, the official TypeScript SDK client (``@modelcontextprotocol/sdk``) and the MCP
Inspector CLI drive ``workbench serve-mcp`` over stdio and streamable HTTP. Each replays the
same three calls of a synthetic recorded task (written here, shaped as ``record-mcp`` and
``promote`` write a recording): an ``isError`` result, a success, and a JSON-RPC error the live
server sent for an unknown tool. Each client reports the first as a tool failure, the second as
the recorded result, and the third as a JSON-RPC error with the recorded code and message.

The npm packages come from ``tests/interop`` (``npm ci``), the Python ones from the ``interop``
extra; ``.ci/run`` installs both. Outside CI a missing one skips its test; in CI it fails.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from helpers.mcp import INTEROP, cli_env, need, node_tool, serving_http, workbench

pytestmark = pytest.mark.slow

UPSTREAM_DOWN = '{"error":"upstream_down"}'
SUITE: dict[str, Any] = {
    "suiteId": "workbench.evals.mcp-interop",
    "version": "1.0.0",
    "modes": ["golden"],
    "tasks": [
        {
            "taskId": "interop",
            "input": {},
            "expected": {
                "kind": "golden",
                "match": {
                    "strategy": "json-match",
                    "value": {"outcome": "completed", "answer": None},
                },
            },
            "x-mcpTools": [
                {
                    "name": "lookup",
                    "title": "Billing lookup",
                    "inputSchema": {
                        "type": "object",
                        "properties": {"id": {"type": "string"}},
                        "required": ["id"],
                    },
                }
            ],
            "fixtures": {
                "onMiss": "fail",
                "toolResponses": [
                    {
                        "tool": "lookup",
                        "args": {"id": "c-1"},
                        "isError": True,
                        "response": {
                            "content": [{"type": "text", "text": UPSTREAM_DOWN}],
                            "isError": True,
                        },
                    },
                    {
                        "tool": "lookup",
                        "args": {"id": "c-1"},
                        "response": {
                            "content": [{"type": "text", "text": "team"}],
                            "structuredContent": {"plan": "team"},
                            "_meta": {"x-trace": "t-1"},
                        },
                    },
                    {
                        "tool": "nope",
                        "args": {},
                        "isError": True,
                        "response": {
                            "content": [{"type": "text", "text": "Unknown tool: nope"}],
                            "x-jsonrpcError": {"code": -32602, "message": "Unknown tool: nope"},
                        },
                    },
                ],
            },
        }
    ],
}
PLAN = [("lookup", {"id": "c-1"}), ("lookup", {"id": "c-1"}), ("nope", {})]


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(SUITE), encoding="utf-8")
    return path


def serve_command(suite: Path) -> list[str]:
    return workbench("serve-mcp", str(suite))


# ---- the official Python SDK client ------------------------------------------------------------


async def _python_sdk(client: Client) -> list[Any]:
    out: list[Any] = [[tool.name for tool in (await client.list_tools()).tools]]
    for name, args in PLAN:
        try:
            out.append(await client.call_tool(name, args))
        except MCPError as exc:
            out.append(exc)
    return out


def _check_python_sdk(seen: list[Any]) -> None:
    tools, failed, ok, refused = seen
    assert tools == ["lookup"]
    assert failed.is_error is True and failed.content[0].text == UPSTREAM_DOWN
    assert ok.is_error is False and ok.content[0].text == "team"
    assert ok.structured_content == {"plan": "team"}
    assert isinstance(refused, MCPError)
    assert (refused.code, refused.message) == (-32602, "Unknown tool: nope")


@pytest.mark.parametrize(("mode", "version"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_python_sdk_client_over_stdio(suite: Path, mode: str, version: str) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=serve_command(suite)[1:], env=cli_env()
    )

    async def main() -> list[Any]:
        with anyio.fail_after(120):
            async with Client(params, mode=mode) as client:
                assert client.protocol_version == version
                return await _python_sdk(client)

    _check_python_sdk(anyio.run(main))


@pytest.mark.parametrize(("mode", "version"), [("auto", "2026-07-28"), ("legacy", "2025-11-25")])
def test_python_sdk_client_over_http(suite: Path, mode: str, version: str) -> None:
    with serving_http(suite) as (url, _):

        async def main() -> list[Any]:
            with anyio.fail_after(120):
                async with Client(url, mode=mode) as client:
                    assert client.protocol_version == version
                    return await _python_sdk(client)

        _check_python_sdk(anyio.run(main))


# ---- fastmcp's client --------------------------------------------------------------------------


def _fastmcp(transport: Any) -> None:
    import fastmcp
    from fastmcp.exceptions import ToolError

    async def main() -> list[Any]:
        out: list[Any] = []
        with anyio.fail_after(120):
            async with fastmcp.Client(transport) as client:
                out.append([tool.name for tool in await client.list_tools()])
                try:
                    await client.call_tool("lookup", {"id": "c-1"})
                except ToolError as exc:
                    out.append(exc)
                out.append(await client.call_tool("lookup", {"id": "c-1"}))
                try:
                    await client.call_tool("nope", {})
                except MCPError as exc:
                    out.append(exc)
        return out

    tools, failed, ok, refused = anyio.run(main)
    assert tools == ["lookup"]
    assert isinstance(failed, ToolError) and str(failed) == UPSTREAM_DOWN
    assert ok.is_error is False and ok.structured_content == {"plan": "team"}
    assert isinstance(refused, MCPError) and refused.code == -32602


def _need_fastmcp() -> None:
    try:
        import fastmcp  # noqa: F401
    except ImportError:
        need(False, "fastmcp (PyPI, the interop extra)")


def test_fastmcp_client_over_stdio(suite: Path) -> None:
    _need_fastmcp()
    from fastmcp.client.transports import StdioTransport

    command = serve_command(suite)
    _fastmcp(StdioTransport(command=command[0], args=command[1:], env=cli_env(), keep_alive=False))


def test_fastmcp_client_over_http(suite: Path) -> None:
    _need_fastmcp()
    from fastmcp.client.transports import StreamableHttpTransport

    with serving_http(suite) as (url, _):
        _fastmcp(StreamableHttpTransport(url))


# ---- the official TypeScript SDK client ---------------------------------------------------------


def _typescript(tmp_path: Path, *target: str) -> dict[str, Any]:
    node_tool("mcp-inspector")  # the npm packages are there (skip or fail otherwise)
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps([{"name": n, "arguments": a} for n, a in PLAN]), encoding="utf-8")
    done = subprocess.run(
        ["node", str(INTEROP / "ts_client.mjs"), str(plan), *target],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    seen: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["tools"] == ["lookup"]
    failed, ok, refused = seen["calls"]
    assert failed["result"]["isError"] is True
    assert failed["result"]["content"] == [{"type": "text", "text": UPSTREAM_DOWN}]
    assert "isError" not in ok["result"]  # the recording had none: nothing added
    assert ok["result"]["structuredContent"] == {"plan": "team"}
    assert ok["result"]["_meta"] == {"x-trace": "t-1"}
    assert (
        refused["error"]["code"] == -32602 and "Unknown tool: nope" in refused["error"]["message"]
    )
    return seen


def test_typescript_sdk_client_over_stdio(suite: Path, tmp_path: Path) -> None:
    _typescript(tmp_path, "stdio", *serve_command(suite))


def test_typescript_sdk_client_over_http(suite: Path, tmp_path: Path) -> None:
    with serving_http(suite) as (url, _):
        seen = _typescript(tmp_path, "http", url)
    assert seen["protocolVersion"] == "2025-11-25"


# ---- the MCP Inspector CLI ----------------------------------------------------------------------


def _inspect(
    target: list[str], name: str, args: dict[str, Any]
) -> subprocess.CompletedProcess[str]:
    """One ``mcp-inspector --cli`` run calling ``name`` (0.15 takes ``--tool-arg k=v`` pairs and
    converts each by the tool's listed input schema)."""
    command = [str(node_tool("mcp-inspector")), "--cli", *target]
    command += ["--method", "tools/call", "--tool-name", name]
    if args:
        command += ["--tool-arg", *(f"{key}={value}" for key, value in args.items())]
    return subprocess.run(
        command, capture_output=True, text=True, env=cli_env(), timeout=180, cwd=INTEROP
    )


def _check_inspector(runs: list[subprocess.CompletedProcess[str]]) -> None:
    """The Inspector prints an isError result (exit 0) and the success, and fails (exit 1) on
    the JSON-RPC error, naming its code and message."""
    failed, ok, refused = runs
    assert failed.returncode == 0, failed.stderr
    assert json.loads(failed.stdout)["isError"] is True
    assert json.loads(failed.stdout)["content"] == [{"type": "text", "text": UPSTREAM_DOWN}]
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["structuredContent"] == {"plan": "team"}
    assert refused.returncode == 1
    assert "MCP error -32602: Unknown tool: nope" in refused.stderr


def test_inspector_cli_over_stdio(suite: Path) -> None:
    """Each Inspector run starts its own server, so each run is a fresh trial: the plan's
    second call (the success) is made on a suite whose first entry is that success."""
    data = json.loads(suite.read_text(encoding="utf-8"))
    data["tasks"][0]["fixtures"]["toolResponses"].pop(0)
    second = suite.with_name("second.json")
    second.write_text(json.dumps(data), encoding="utf-8")
    targets = [serve_command(suite), serve_command(second), serve_command(suite)]
    _check_inspector(
        [_inspect(target, name, args) for target, (name, args) in zip(targets, PLAN, strict=True)]
    )


def test_inspector_cli_over_http(suite: Path) -> None:
    """Over HTTP the three runs share the one served trial, in order."""
    node_tool("mcp-inspector")
    with serving_http(suite) as (url, _):
        _check_inspector([_inspect([url, "--transport", "http"], n, a) for n, a in PLAN])
