"""Signals and crashes never cost a recording or a replay's log (SPEC R42, R18; issue 14).

``record-mcp`` writes each event as it happens: SIGTERM, SIGINT and SIGHUP finish the file (it
ends with ``agent.invocation-completed`` and loads strictly), SIGKILL leaves every event up to
the last one (it loads with ``strict=False``), and neither a server slow to exit (which the
official SDK client SIGTERMs 2 s after closing stdin) nor a server that dies first costs the
session or aborts the interpreter. ``serve-mcp`` writes its event log and summary on SIGTERM,
SIGINT and SIGHUP on both transports, and after a SIGKILL its streamed log holds every call
served. The live server is a small synthetic one written for these tests
(``helpers.mcp.LIVE_SERVER``).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from helpers.mcp import RawHttp, RawStdio, cli_env, live_server, read_log, serving_http, workbench
from workbench import LoadError, load_runs, promote
from workbench._suite.schemas import validate_events

pytestmark = pytest.mark.slow

CALLS = [("lookup", {"id": "c-1"}), ("lookup", {"id": "c-2"}), ("nope", {})]
NO_ABORT = ("Fatal Python error", "Traceback", "_enter_buffered_busy")


def _record(tmp_path: Path, **env: str) -> tuple[RawStdio, Path]:
    out = tmp_path / "run.jsonl"
    command = workbench(
        "record-mcp", "--out", str(out), "--", sys.executable, str(live_server(tmp_path))
    )
    stderr = (tmp_path / "stderr.txt").open("wb")
    client = RawStdio(command, env=cli_env(**env), cwd=tmp_path, stderr=stderr)
    client.initialize()
    client.request("tools/list")
    for name, args in CALLS:
        client.call(name, args)
    return client, out


def _stderr(tmp_path: Path) -> str:
    return (tmp_path / "stderr.txt").read_text(encoding="utf-8", errors="replace")


def _calls_of(events: list[dict[str, Any]]) -> list[str]:
    return [e["payload"]["toolName"] for e in events if e["type"] == "agent.tool-returned"]


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_record_mcp_finishes_the_file_on_a_signal(tmp_path: Path, sig: signal.Signals) -> None:
    """A signal while the client is still connected: the server is stopped, the file ends
    with ``agent.invocation-completed``, loads strictly, and the exit is clean (0)."""
    client, out = _record(tmp_path)
    started = time.monotonic()
    client.signal(sig)
    assert client.process.wait(30) == 0
    assert time.monotonic() - started < 10
    events = read_log(out)
    assert validate_events(events) == []
    assert events[-1]["type"] == "agent.invocation-completed"
    assert _calls_of(events) == ["lookup", "lookup", "nope"]
    assert len(load_runs(out).run.boundaries) == 3
    stderr = _stderr(tmp_path)
    assert not any(word in stderr for word in NO_ABORT), stderr
    assert f"stopped by {sig.name}" in stderr


def test_record_mcp_killed_keeps_every_event_up_to_the_last(tmp_path: Path) -> None:
    """SIGKILL: nothing is finished, yet every answered call is on disk and loads with
    ``strict=False`` (and strictly: pairs are written whole)."""
    client, out = _record(tmp_path)
    client.signal(signal.SIGKILL)
    client.process.wait(30)
    events = read_log(out)
    assert events[-1]["type"] == "agent.tool-returned"
    assert _calls_of(events) == ["lookup", "lookup", "nope"]
    loaded = load_runs(out, strict=False)
    assert [b.is_error for b in loaded.run.boundaries] == [True, False, True]
    assert len(load_runs(out).run.boundaries) == 3


def test_record_mcp_survives_the_sdk_clients_shutdown_of_a_slow_server(tmp_path: Path) -> None:
    """The official SDK client closes stdin, waits 2 s and SIGTERMs the process group: with a
    server that takes 10 s to exit, the recording is still complete."""
    out = tmp_path / "run.jsonl"
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "workbench.cli",
            "record-mcp",
            "--out",
            str(out),
            "--",
            sys.executable,
            str(live_server(tmp_path)),
        ],
        env=cli_env(LINGER="10"),
        cwd=str(tmp_path),
    )

    async def main() -> None:
        with anyio.fail_after(90):
            async with Client(params, mode="legacy") as client:
                for name, args in CALLS[:2]:
                    await client.call_tool(name, args)

    started = time.monotonic()
    anyio.run(main)
    assert time.monotonic() - started < 60
    events = read_log(out)
    assert events[-1]["type"] == "agent.invocation-completed"
    assert _calls_of(events) == ["lookup", "lookup"]
    assert validate_events(events) == []


def test_record_mcp_when_the_server_dies_first(tmp_path: Path) -> None:
    """The server exits in the middle of a call (exit 3): the calls before it are recorded,
    the unanswered one is not, the file is finished, and record-mcp exits 1 saying so."""
    client, out = _record(tmp_path)
    client.send(
        {
            "jsonrpc": "2.0",
            "id": 99,
            "method": "tools/call",
            "params": {"name": "crash", "arguments": {}},
        }
    )
    assert client.process.wait(30) == 1
    events = read_log(out)
    assert events[-1]["type"] == "agent.invocation-completed"
    assert _calls_of(events) == ["lookup", "lookup", "nope"]
    stderr = _stderr(tmp_path)
    assert "the server exited with code 3" in stderr and "1 unanswered" in stderr
    assert not any(word in stderr for word in NO_ABORT), stderr


@pytest.fixture(scope="module")
def promoted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One recording of the live server, promoted (shared: each CLI start costs seconds)."""
    folder = tmp_path_factory.mktemp("promoted")
    client, out = _record(folder)
    assert client.close() == 0
    suite = folder / "suite.json"
    done = subprocess.run(
        workbench("promote", str(out), "-o", str(suite)),
        env=cli_env(),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return suite


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP])
def test_serve_mcp_stdio_writes_its_files_on_a_signal(
    tmp_path: Path, promoted: Path, sig: signal.Signals
) -> None:
    """serve-mcp over stdio, stdin still open: a signal ends it at once, with the event log
    and summary written and the trial graded (exit 0: every recorded call was made)."""
    suite = promoted
    events, summary = tmp_path / "served.jsonl", tmp_path / "summary.json"
    client = RawStdio(
        workbench("serve-mcp", str(suite), "--events", str(events), "--summary", str(summary)),
        env=cli_env(),
    )
    client.initialize()
    answers = [client.call(name, args) for name, args in CALLS]
    assert "error" in answers[2].message
    started = time.monotonic()
    client.signal(sig)
    assert client.process.wait(30) == 0
    assert time.monotonic() - started < 10
    log = read_log(events)
    assert log[-1]["type"] == "run.completed" and validate_events(log) == []
    assert json.loads(summary.read_text(encoding="utf-8"))["fixtureMissCount"] == 0


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_serve_mcp_killed_keeps_every_call_served(
    tmp_path: Path, promoted: Path, transport: str
) -> None:
    """SIGKILL: no summary, but the streamed event log holds every call served so far."""
    suite = promoted
    events = tmp_path / "served.jsonl"
    if transport == "stdio":
        client = RawStdio(
            workbench("serve-mcp", str(suite), "--events", str(events)), env=cli_env()
        )
        client.initialize()
        for name, args in CALLS:
            client.call(name, args)
        client.signal(signal.SIGKILL)
        client.process.wait(30)
    else:
        with serving_http(suite, "--events", str(events)) as (url, process):
            http = RawHttp(url)
            http.initialize()
            for name, args in CALLS:
                http.call(name, args)
            http.close()
            process.kill()
            process.wait(30)
    log = read_log(events)
    assert _calls_of(log) == ["lookup", "lookup", "nope"]
    assert validate_events(log) == []


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_serve_mcp_http_writes_its_files_on_a_signal(
    tmp_path: Path, promoted: Path, sig: signal.Signals
) -> None:
    """serve-mcp over HTTP stops on SIGTERM or SIGINT with its files written (exit 0)."""
    suite = promoted
    events, summary = tmp_path / "served.jsonl", tmp_path / "summary.json"
    with serving_http(suite, "--events", str(events), "--summary", str(summary)) as (url, proc):
        http = RawHttp(url)
        http.initialize()
        for name, args in CALLS:
            http.call(name, args)
        http.close()
        proc.send_signal(sig)
        assert proc.wait(30) == 0
        assert proc.stderr is not None and f"stopped: {sig.name}" in proc.stderr.read()
    assert read_log(events)[-1]["type"] == "run.completed"
    assert json.loads(summary.read_text(encoding="utf-8"))["passed"] is True


def test_serve_mcp_http_stops_quietly_on_a_second_ctrl_c(tmp_path: Path, promoted: Path) -> None:
    """Two SIGINTs 50 ms apart (Ctrl-C pressed twice): uvicorn forced its exit and logged its
    lifespan's cancellation as a traceback (hostile round of stop 36); the second is ignored
    while the first stops it, and its files are written as after one."""
    events = tmp_path / "served.jsonl"
    with serving_http(promoted, "--events", str(events)) as (url, proc):
        http = RawHttp(url)
        http.initialize()
        http.close()
        proc.send_signal(signal.SIGINT)
        time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        proc.wait(30)
        assert proc.stderr is not None
        err = proc.stderr.read()
    assert "Traceback" not in err and "stopped: SIGINT" in err
    assert read_log(events)[-1]["type"] == "run.completed"


HOSTILE_SERVER = r'''
"""A synthetic MCP server (written for this test) answering with what JSON cannot hold."""
import json, sys

BODIES = {
    "ok": b'{"content":[{"type":"text","text":"fine"}]}',
    "nan": b'{"content":[{"type":"text","text":"n"}],'
    b'"structuredContent":{"v":NaN,"w":-Infinity,"x":1e999}}',
    "surrogate": b'{"content":[{"type":"text","text":"\\ud800 kept"}]}',
    "badutf8": b'{"content":[{"type":"text","text":"\xff\xfe"}]}',
    "deep": b"[" * 100000,
}
for raw in sys.stdin.buffer:
    message = json.loads(raw)
    if "id" not in message:
        continue
    head = b'{"jsonrpc":"2.0","id":%d,"result":' % message["id"]
    if message["method"] == "initialize":
        body = (b'{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},'
                b'"serverInfo":{"name":"hostile","version":"0"}}')
    else:
        body = BODIES[message["params"]["name"]]
    sys.stdout.buffer.write(head + body + b"}\n")
    sys.stdout.buffer.flush()
'''


def test_record_mcp_keeps_a_loadable_log_when_the_server_sends_what_json_cannot_hold(
    tmp_path: Path,
) -> None:
    """NaN, Infinity and 1e999 are recorded as null (as JSON.stringify and the SDK send them),
    a lone surrogate is recorded as sent (escaped; the loader then names it), and an answer that
    is not JSON at all (invalid UTF-8, 100 000-deep nesting) is passed on but not recorded: the
    log is valid, every other call loads, and the promoted suite serves them back."""
    server = tmp_path / "hostile_server.py"
    server.write_text(HOSTILE_SERVER, encoding="utf-8")
    out = tmp_path / "run.jsonl"
    requests = [{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}]
    names = ["nan", "badutf8", "surrogate", "deep", "ok"]
    for number, name in enumerate(names, 1):
        params = {"name": name, "arguments": {}}
        requests.append({"jsonrpc": "2.0", "id": number, "method": "tools/call", "params": params})
    done = subprocess.run(
        workbench("record-mcp", "--out", str(out), "--", sys.executable, str(server)),
        input=b"".join(json.dumps(r).encode() + b"\n" for r in requests),
        capture_output=True,
        env=cli_env(),
        timeout=120,
    )
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 0, stderr
    assert not any(marker in stderr for marker in NO_ABORT), stderr
    assert done.stdout.count(b"\n") == 6  # every answer reached the client, as sent
    events = read_log(out)
    assert validate_events(events) == []
    assert events[-1]["type"] == "agent.invocation-completed"
    with pytest.raises(LoadError, match="lone surrogate"):  # the loader names it (strict)
        load_runs(out)
    loaded = load_runs(out, strict=False)  # every other call is there
    assert [b.tool for b in loaded.run.boundaries] == ["nan", "ok"]
    outcomes = {
        e["payload"]["toolName"]: e["payload"]["outcome"]
        for e in events
        if e["type"] == "agent.tool-returned"
    }
    assert outcomes["nan"]["structuredContent"] == {"v": None, "w": None, "x": None}
    assert outcomes["surrogate"]["content"][0]["text"] == "\ud800 kept"

    suite = tmp_path / "suite.json"
    promote(loaded, self_test=False).suite.save(suite)
    log = tmp_path / "served.jsonl"
    command = workbench("serve-mcp", str(suite), "--events-content", "--events", str(log))
    client = RawStdio(command, env=cli_env(), cwd=tmp_path)
    client.initialize()
    assert '"v":null' in client.call("nan", {}).text
    assert client.call("ok", {}).result == {"content": [{"type": "text", "text": "fine"}]}
    assert client.close() == 0  # the recorded calls, made again: passed
    assert validate_events(read_log(log)) == []
