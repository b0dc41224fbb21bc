"""Recording a live MCP server (``record-mcp``) and the MCP client agent adapter (R1-R3, R25).

Round trip: a small live MCP server written here with the SDK fails one call; ``record-mcp``
records it behind its stdio proxy; the recording loads as a promoted run, promotes, and served
back through the bridge gives the SDK client the same results, ``isError`` included. JSON-RPC
errors are recorded as failed boundaries with their code, distinct from ``isError`` results.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers.cli import child_env

pytest.importorskip("mcp")

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import TextContent

from workbench import Decision, load_runs, promote, replay
from workbench._suite.schemas import validate_events
from workbench.bridge import McpClientAgent

LIVE_SERVER = """
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp_types import TextContent
import anyio

calls = {"n": 0}

async def list_tools(ctx, params):
    schema = {"type": "object", "properties": {"id": {"type": "string"}}}
    return types.ListToolsResult(tools=[types.Tool(name="lookup", input_schema=schema)])

async def call_tool(ctx, params):
    if params.name != "lookup":
        raise MCPError(code=-32602, message="Unknown tool: " + params.name)
    calls["n"] += 1
    if calls["n"] == 1:
        body = {"content": [{"type": "text", "text": '{"error":"upstream_down"}'}], "isError": True}
    else:
        body = {"content": [{"type": "text", "text": "plan " + params.arguments["id"]}]}
    return types.CallToolResult.model_validate(body)

server = Server("live", on_list_tools=list_tools, on_call_tool=call_tool)

async def main():
    async with stdio_server() as (r, w):
        await server.run(r, w, server.create_initialization_options())

anyio.run(main)
"""


CALLS = [("lookup", {"id": "c-1"}), ("lookup", {"id": "c-1"}), ("lookup", {"id": "c-2"})]


def drive(params: StdioServerParameters, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    async def main() -> list[Any]:
        out: list[Any] = []
        with anyio.fail_after(60):
            async with Client(params) as client:
                for name, args in calls:
                    try:
                        out.append(await client.call_tool(name, args))
                    except MCPError as exc:
                        out.append(exc)
        return out

    return anyio.run(main)


def as_seen(result: Any) -> tuple[bool, list[str]]:
    return (result.is_error, [block.text for block in result.content])


def test_record_load_promote_serve_round_trip(tmp_path: Path) -> None:
    """R1-R3, R30, R15: recorded (one isError result and one JSON-RPC error), loaded as a
    promoted run, promoted, served back: the client sees the same results, isError included."""
    server = tmp_path / "live_server.py"
    server.write_text(LIVE_SERVER, encoding="utf-8")
    run_file = tmp_path / "run.openwop.jsonl"
    record = StdioServerParameters(
        command=sys.executable,
        args=["-m", "workbench.cli", "record-mcp", "--out", str(run_file),
              "--tools-out", str(tmp_path / "tools.json"), "--", sys.executable, str(server)],
        env=child_env(),
        cwd=str(tmp_path),
    )  # fmt: skip
    live = drive(record, [*CALLS, ("missing", {})])
    assert [as_seen(r) for r in live[:3]] == [
        (True, ['{"error":"upstream_down"}']),
        (False, ["plan c-1"]),
        (False, ["plan c-2"]),
    ]
    assert isinstance(live[3], MCPError) and live[3].error.code == -32602

    events = [json.loads(line) for line in run_file.read_text(encoding="utf-8").splitlines()]
    assert validate_events(events) == []
    returned = [e["payload"] for e in events if e["type"] == "agent.tool-returned"]
    assert returned[0]["outcome"]["isError"] is True and returned[0]["status"] == "error"
    assert returned[3]["error"]["code"] == "jsonrpc.-32602" and "outcome" not in returned[3]
    assert json.loads((tmp_path / "tools.json").read_text())["tools"][0]["name"] == "lookup"

    loaded = load_runs(run_file)
    boundaries = loaded.run.boundaries
    assert [b.is_error for b in boundaries] == [True, False, False, True]
    assert boundaries[3].error_code == "jsonrpc.-32602"
    assert boundaries[0].error_code != boundaries[3].error_code

    # serve back only the calls the client makes again (the protocol error is not re-made)
    suite = promote(load_runs(run_file)).suite
    suite_file = tmp_path / "suite.json"
    suite.save(suite_file)
    task_id = suite.tasks[0]["taskId"]
    serve = StdioServerParameters(
        command=sys.executable,
        args=["-m", "workbench.cli", "serve-mcp", str(suite_file), "--task", task_id,
              "--tools", str(tmp_path / "tools.json"), "--summary", str(tmp_path / "s.json")],
        env=child_env(),
        cwd=str(tmp_path),
    )  # fmt: skip
    served = drive(serve, CALLS)
    assert [as_seen(r) for r in served] == [as_seen(r) for r in live[:3]]
    assert json.loads((tmp_path / "s.json").read_text())["fixtureMissCount"] == 0


SUITE = {
    "suiteId": "workbench.evals.mcp-client-agent",
    "version": "1.0.0",
    "modes": ["golden"],
    "tasks": [
        {
            "taskId": "t",
            "input": {"customer": "c-1"},
            "expected": {
                "kind": "golden",
                "match": {
                    "strategy": "json-match",
                    "value": {"outcome": "completed", "answer": "team"},
                },
            },
            "fixtures": {
                "toolResponses": [
                    {"tool": "billing:lookup", "args": {"id": "c-1"}, "isError": True,
                     "response": {"content": [{"type": "text", "text": "upstream_down"}]}},
                    {"tool": "billing:lookup", "args": {"id": "c-1"},
                     "response": {"content": [{"type": "text", "text": "team"}]}},
                ]
            },
        }
    ],
}  # fmt: skip


async def retrying_agent(task_input: Any, client: Client) -> Decision:
    for _ in range(3):
        result = await client.call_tool("billing_lookup", {"id": task_input["customer"]})
        if not result.is_error:
            block = result.content[0]
            assert isinstance(block, TextContent), block
            return Decision("completed", answer=block.text)
    return Decision("failed")


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_mcp_client_agent_replays_in_process(mode: str) -> None:
    """R25: an agent built on the SDK client is replayed in process; it sees the isError
    fixture as ``is_error=True``, retries, and the host records both calls under the suite's
    tool id."""
    agent = McpClientAgent(retrying_agent, mode=mode)
    result = replay(SUITE, agent, trials=2)
    assert result.passed
    trial = result.tasks[0].trials[0]
    assert trial.trajectory == "billing:lookup! > billing:lookup"
    assert trial.agent_error is None


@pytest.mark.parametrize(
    ("stopped", "ending"),
    [
        ("server", "; the server exited with code 1"),
        ("client", "; the client hung up, and the server exited with code 1"),
        ("SIGINT", "; stopped by SIGINT, and the server exited with code 1"),
    ],
)
def test_the_recording_line_says_the_exit_code_is_the_servers(stopped: str, ending: str) -> None:
    """The exit code reported is the server's, whoever ended the session (it read as the
    client's: "the client hung up with code 1")."""
    from workbench.bridge import Recording, recording_text

    recording = Recording([], stopped=stopped, server_failed=True, returncode=1)
    assert recording_text(recording).endswith(ending)
    assert recording_text(Recording([], stopped=stopped)).endswith(
        {"server": "the server exited", "client": "the client hung up"}.get(stopped, "by SIGINT")
    )
