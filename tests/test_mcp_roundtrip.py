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
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

from helpers.mcp import (
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
from workbench import load_runs
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
