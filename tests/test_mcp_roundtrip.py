"""Record real MCP servers, promote, serve back, replay: every answer as the live server sent it
(SPEC R42, R17, R15, R30).

The reference servers from npm (``@modelcontextprotocol/server-everything``,
``@modelcontextprotocol/server-filesystem``) and PyPI (``mcp-server-time``, ``mcp-server-git``)
are recorded through ``workbench record-mcp`` by a raw JSON-RPC client making succeeding and
failing calls (``isError`` results and JSON-RPC errors, each as the server chose to answer).
The log is promoted with ``workbench promote`` and served with ``workbench serve-mcp``, over
stdio and over streamable HTTP, to the same client making the same calls. Each answer is
compared with the live one: the same members in the same order with the same values, and the
same bytes (the live server's bytes are kept: the recorder writes what it read, the bridge
sends what was recorded). The catalogue is the live one, and a tool the server refused is not
listed.

Then the same round trip with clients nobody here wrote, as a user runs them: the official
Python SDK client (``mcp.Client``, its default ``auto`` mode) and the official TypeScript SDK
client (``@modelcontextprotocol/sdk``, ``tests/interop/ts_client.mjs``) record each server
through ``record-mcp`` and replay the suite through ``serve-mcp``; what each client reads from
the replay (results, ``isError``, JSON-RPC errors, the catalogue) equals what it read from the
live server, modulo the differences docs/mcp.md documents: at 2026-07-28 (which the Python
client lands on with the bridge, and with the Python servers) the envelope members that
revision requires and the ``serverInfo`` stamp in ``_meta`` are the server's own.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

from helpers.mcp import (
    INTEROP,
    Answer,
    RawHttp,
    RawStdio,
    cli_env,
    node_tool,
    ordered,
    python_tool,
    serving_http,
    workbench,
)
from workbench import load_runs, promote
from workbench._suite.schemas import validate_events

Call = tuple[str, Any]


def _git_repo(tmp: Path) -> Path:
    repo = tmp / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    }
    (repo / "notes.txt").write_text("first line\n", encoding="utf-8")
    for args in (["init", "-q", "-b", "main"], ["add", "notes.txt"], ["commit", "-q", "-m", "one"]):
        subprocess.run(["git", *args], cwd=repo, env=env, check=True)
    (repo / "notes.txt").write_text("first line\nsecond línea\n", encoding="utf-8")
    return repo


def _everything(tmp: Path) -> tuple[list[str], list[Call]]:
    command = [str(node_tool("mcp-server-everything")), "stdio"]
    calls: list[Call] = [
        ("echo", {"message": 'hi ünï \u2028 </script> "quoted" \\ \t'}),
        ("get-sum", {"a": 1, "b": 2.5}),
        ("get-sum", {"a": "x", "b": 2}),  # isError: invalid arguments
        ("no-such-tool", {}),  # isError: this SDK answers an unknown tool so
        ("get-tiny-image", {}),
        ("get-annotated-message", {"messageType": "error", "includeImage": True}),
        ("get-structured-content", {"location": "New York"}),
    ]
    return command, calls


def _filesystem(tmp: Path) -> tuple[list[str], list[Call]]:
    root = (tmp / "files").resolve()
    root.mkdir()
    (root / "a.txt").write_text("hello\nwörld\n", encoding="utf-8")
    (root / "sub").mkdir()
    command = [str(node_tool("mcp-server-filesystem")), str(root)]
    calls: list[Call] = [
        ("read_text_file", {"path": str(root / "a.txt")}),
        ("read_text_file", {"path": str(root / "missing.txt")}),  # isError: ENOENT
        ("read_text_file", {"path": "/etc/passwd"}),  # isError: outside the allowed root
        ("list_directory", {"path": str(root)}),
        ("list_allowed_directories", {}),
        ("no-such-tool", {}),
    ]
    return command, calls


def _time(tmp: Path) -> tuple[list[str], list[Call]]:
    command = [python_tool("mcp-server-time"), "--local-timezone", "UTC"]
    calls: list[Call] = [
        ("get_current_time", {"timezone": "Europe/Paris"}),
        ("get_current_time", {"timezone": "Mars/Olympus"}),  # isError
        ("get_current_time", {}),  # isError: a required argument is missing
        (
            "convert_time",
            {"source_timezone": "UTC", "time": "12:30", "target_timezone": "Asia/Tokyo"},
        ),
        ("no-such-tool", {}),  # JSON-RPC -32602
    ]
    return command, calls


def _git(tmp: Path) -> tuple[list[str], list[Call]]:
    repo = _git_repo(tmp)
    command = [python_tool("mcp-server-git"), "--repository", str(repo)]
    calls: list[Call] = [
        ("git_status", {"repo_path": str(repo)}),
        ("git_diff_unstaged", {"repo_path": str(repo)}),
        ("git_log", {"repo_path": str(repo), "max_count": 5}),
        ("git_show", {"repo_path": str(repo), "revision": "deadbeef"}),  # isError
        ("git_status", {"repo_path": str(tmp)}),  # isError: outside the repository
        ("no-such-tool", {}),  # JSON-RPC -32602
    ]
    return command, calls


SERVERS: dict[str, Callable[[Path], tuple[list[str], list[Call]]]] = {
    "server-everything": _everything,
    "server-filesystem": _filesystem,
    "mcp-server-time": _time,
    "mcp-server-git": _git,
}


def _session(client: RawStdio | RawHttp, calls: list[Call]) -> tuple[Answer, list[Answer]]:
    client.initialize()
    listed = client.request("tools/list")
    return listed, [client.call(name, args) for name, args in calls]


def _same(live: Answer, served: Answer, what: str) -> None:
    """Same members, same order, same values, and the same bytes."""
    assert ordered(json.loads(served.member())) == ordered(json.loads(live.member())), what
    assert served.member() == live.member(), what


@pytest.mark.slow
@pytest.mark.parametrize("server", sorted(SERVERS))
def test_recorded_server_is_served_back_as_it_answered(server: str, tmp_path: Path) -> None:
    """R42: record, promote, serve over stdio and HTTP; every answer equals the live one."""
    command, calls = SERVERS[server](tmp_path)
    run = tmp_path / "run.jsonl"
    recorder = RawStdio(
        workbench("record-mcp", "--out", str(run), "--", *command), env=cli_env(), cwd=tmp_path
    )
    live_list, live = _session(recorder, calls)
    assert recorder.close() == 0
    failures = [a for a in live if "error" in a.message or a.result.get("isError") is True]
    assert failures and len(failures) < len(live), "the calls fail and succeed"
    live_names = [tool["name"] for tool in live_list.result["tools"]]
    assert "no-such-tool" not in live_names

    lines = run.read_bytes().split(b"\n")  # not str.splitlines: U+2028 is no line break here
    events = [json.loads(line) for line in lines if line]
    assert validate_events(events) == []
    outcomes = [e["payload"].get("outcome") for e in events if e["type"] == "agent.tool-returned"]
    for answer, outcome in zip(live, outcomes, strict=True):
        if "result" in answer.message:  # the recording keeps the result as sent, order included
            assert ordered(outcome) == ordered(answer.result)
    boundaries = load_runs(run).run.boundaries
    assert [b.is_error for b in boundaries] == [
        "error" in a.message or a.result.get("isError") is True for a in live
    ]

    suite = tmp_path / "suite.json"
    promoted = subprocess.run(
        workbench("promote", str(run), "-o", str(suite)),
        env=cli_env(),
        capture_output=True,
        text=True,
    )
    assert promoted.returncode == 0, promoted.stdout + promoted.stderr

    summary = tmp_path / "summary.json"
    stdio = RawStdio(
        workbench("serve-mcp", str(suite), "--summary", str(summary)), env=cli_env(), cwd=tmp_path
    )
    served_list, served = _session(stdio, calls)
    assert stdio.close() == 0  # passed
    assert json.loads(summary.read_text(encoding="utf-8"))["fixtureMissCount"] == 0
    _same(live_list, served_list, "tools/list over stdio")
    for (name, _), live_answer, answer in zip(calls, live, served, strict=True):
        _same(live_answer, answer, f"{name} over stdio")

    with serving_http(suite) as (url, process):
        http = RawHttp(url)
        http_list, over_http = _session(http, calls)
        http.close()
    assert process.returncode == 0
    assert ordered(http_list.result) == ordered(live_list.result)
    for (name, _), live_answer, answer in zip(calls, live, over_http, strict=True):
        _same(live_answer, answer, f"{name} over HTTP")


# ---- the official SDK clients, recording and replaying -------------------------------------------

SERVER_INFO = "io.modelcontextprotocol/serverInfo"
ENVELOPE = ("resultType", "ttlMs", "cacheScope")


def _wait_finished(run: Path, timeout: float = 60.0) -> None:
    """Until ``record-mcp`` has finished ``run`` (the clients stop it with SIGTERM after
    closing its stdin, and may return before it has written the last events)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if run.exists() and b'"agent.invocation-completed"' in run.read_bytes()[-4096:]:
            return
        time.sleep(0.05)
    raise AssertionError(f"record-mcp did not finish {run}")


def _promoted(run: Path, folder: Path) -> Path:
    _wait_finished(run)
    suite = folder / "suite.json"
    promote(load_runs(run), self_test=False).suite.save(suite)
    return suite


def _without_stamp(value: Any) -> Any:
    """A result as a client read it, without what 2026-07-28 makes the server's own."""
    if not isinstance(value, dict):
        return value
    out = {k: v for k, v in value.items() if k not in ENVELOPE}
    meta = out.get("_meta")
    if isinstance(meta, dict):
        meta = {k: v for k, v in meta.items() if k != SERVER_INFO}
        if meta:
            out["_meta"] = meta
        else:
            del out["_meta"]
    return out


def _python_client(command: list[str], calls: list[Call]) -> tuple[str, Any, list[Any]]:
    """The Python SDK client (``auto``) over stdio: the revision, the catalogue and each call
    as the client reads it (a result, a JSON-RPC error, or what the client raised)."""
    params = StdioServerParameters(command=command[0], args=command[1:], env=cli_env())

    async def main() -> tuple[str, Any, list[Any]]:
        seen: list[Any] = []
        with anyio.fail_after(180):
            async with Client(params) as client:
                listed = await client.list_tools()
                catalogue = [t.model_dump(mode="json", by_alias=True) for t in listed.tools]
                for name, args in calls:
                    try:
                        result = await client.call_tool(name, args)
                    except MCPError as exc:
                        seen.append({"error": [exc.code, exc.message, exc.data]})
                    except Exception as exc:  # a client-side check (the output schema)
                        seen.append({"raised": [type(exc).__name__, str(exc)]})
                    else:
                        body = result.model_dump(mode="json", by_alias=True, exclude_none=True)
                        seen.append({"result": _without_stamp(body)})
                return str(client.protocol_version), catalogue, seen

    return anyio.run(main)


def _typescript_client(target: list[str], calls: list[Call], folder: Path) -> dict[str, Any]:
    plan = folder / "plan.json"
    plan.write_text(json.dumps([{"name": n, "arguments": a} for n, a in calls]), encoding="utf-8")
    done = subprocess.run(
        ["node", str(INTEROP / "ts_client.mjs"), str(plan), "stdio", *target],
        capture_output=True,
        text=True,
        env=cli_env(),
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    last = done.stdout.strip().split("\n")[-1]  # not splitlines: U+2028 is no line break here
    seen: dict[str, Any] = json.loads(last)
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("server", sorted(SERVERS))
def test_sdk_clients_read_the_replay_as_they_read_the_live_server(
    server: str, tmp_path: Path
) -> None:
    """R42, R17: the official Python and TypeScript SDK clients record a reference server
    through record-mcp and replay the promoted suite through serve-mcp; each reads the same
    catalogue, the same results (isError included) and the same JSON-RPC errors."""
    command, calls = SERVERS[server](tmp_path)

    folder = tmp_path / "python"
    folder.mkdir()
    run = folder / "run.jsonl"
    live = _python_client(workbench("record-mcp", "--out", str(run), "--", *command), calls)
    suite = _promoted(run, folder)
    served = _python_client(workbench("serve-mcp", str(suite)), calls)
    assert served[0] == "2026-07-28"  # the bridge speaks the newest revision
    assert served[1] == live[1], "the catalogue, as the Python client reads it"
    for (name, _), live_call, served_call in zip(calls, live[2], served[2], strict=True):
        assert served_call == live_call, f"{name} through the Python SDK client"
    assert any("error" in c or c["result"].get("isError") for c in live[2] if "raised" not in c)

    node_tool("mcp-server-everything")  # the npm packages are there (skip or fail otherwise)
    folder = tmp_path / "typescript"
    folder.mkdir()
    run = folder / "run.jsonl"
    ts_live = _typescript_client(
        workbench("record-mcp", "--out", str(run), "--", *command), calls, folder
    )
    suite = _promoted(run, folder)
    ts_served = _typescript_client(workbench("serve-mcp", str(suite)), calls, folder)
    assert ts_served["protocolVersion"] == ts_live["protocolVersion"] == "2025-11-25"
    assert ts_served["catalogue"] == ts_live["catalogue"]
    for (name, _), live_call, served_call in zip(
        calls, ts_live["calls"], ts_served["calls"], strict=True
    ):
        assert served_call == live_call, f"{name} through the TypeScript SDK client"
    assert "no-such-tool" not in ts_served["tools"]
