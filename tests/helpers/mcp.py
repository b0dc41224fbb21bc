"""MCP test helpers: raw JSON-RPC clients that keep the bytes each answer came in, the command
lines of the workbench and of the third-party clients and servers, and a rule for tools that are
not installed (skipped outside CI, a failure in CI, where ``.ci/run`` installs them)."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pytest

from helpers.paths import ROOT

INTEROP = ROOT / "tests" / "interop"
"""The npm project of the interop tests (``.ci/run`` installs it with ``npm ci``)."""
NODE_BIN = INTEROP / "node_modules" / ".bin"
HANDSHAKE = "2025-11-25"
"""The protocol version the raw clients offer."""


def need(found: object, what: str) -> None:
    """Skip the test when ``found`` is falsy, unless this is CI (``CI=true``, or
    ``WORKBENCH_REQUIRE_INTEROP=1``, which ``.ci/run`` sets): then fail it, since CI installs
    every tool the tests use."""
    if found:
        return
    if os.environ.get("CI") == "true" or os.environ.get("WORKBENCH_REQUIRE_INTEROP") == "1":
        pytest.fail(f"{what} is missing, and .ci/run should have installed it", pytrace=False)
    pytest.skip(f"{what} is not installed (bash .ci/run installs it)")


def node_tool(name: str) -> Path:
    """An npm package's command from ``tests/interop/node_modules/.bin`` (skip or fail)."""
    path = NODE_BIN / name
    need(shutil.which("node") and path.exists(), f"node and {name} (npm, tests/interop)")
    return path


def python_tool(name: str) -> str:
    """A console script installed beside this interpreter (skip or fail)."""
    path = Path(sys.executable).parent / name
    found = str(path) if path.exists() else shutil.which(name)
    need(found, f"{name} (PyPI, the interop extra)")
    assert found is not None
    return found


def cli_env(**extra: str) -> dict[str, str]:
    """The environment for a ``python -m workbench.cli`` child: this checkout first."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.update(extra)
    return env


def workbench(*args: str) -> list[str]:
    """The command line of ``workbench ARGS...`` with this interpreter."""
    return [sys.executable, "-m", "workbench.cli", *args]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def member_span(text: str, name: str) -> str | None:
    """The exact text of the top-level member ``name`` of the JSON object ``text``."""
    decoder = json.JSONDecoder()
    scan = vars(decoder)["scan_once"]
    index = text.index("{") + 1

    def skip(at: int) -> int:
        while at < len(text) and text[at] in " \t\r\n":
            at += 1
        return at

    while True:
        index = skip(index)
        if text[index] == "}":
            return None
        key, index = scan(text, index)
        index = skip(index)
        assert text[index] == ":"
        start = skip(index + 1)
        _, end = scan(text, start)
        if key == name:
            return text[start:end]
        index = skip(end)
        if text[index] == ",":
            index += 1


def ordered(value: Any) -> Any:
    """``value`` with every object as a list of ``(name, value)`` pairs: equal only when the
    members and their order are equal."""
    if isinstance(value, Mapping):
        return [(key, ordered(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [ordered(item) for item in value]
    return value


@dataclass(frozen=True)
class Answer:
    """One JSON-RPC answer: the line (or body) it came in and the message read from it."""

    text: str
    message: dict[str, Any]

    def member(self) -> str:
        """The exact text of the answer's ``result`` or ``error`` member."""
        name = "error" if "error" in self.message else "result"
        span = member_span(self.text, name)
        assert span is not None, self.text
        return span

    @property
    def result(self) -> Any:
        return self.message.get("result")

    @property
    def error(self) -> Any:
        return self.message.get("error")


class RawStdio:
    """A raw JSON-RPC client of a stdio MCP server: lines out, lines in, nothing parsed twice.

    The child's stderr goes to ``stderr`` (a file) so it can be read after it exits.
    """

    def __init__(
        self,
        command: Sequence[str],
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        stderr: IO[bytes] | int | None = subprocess.DEVNULL,
    ) -> None:
        self.process = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=dict(env) if env is not None else None,
            cwd=cwd,
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.answers: dict[Any, Answer] = {}
        self.other: list[Answer] = []
        self._next = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in iter(self.process.stdout.readline, b""):
            self.lines.put(line)
        self.lines.put(b"")

    def send(self, message: Mapping[str, Any] | bytes) -> None:
        data = message if isinstance(message, bytes) else json.dumps(message).encode() + b"\n"
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def wait_for(self, request_id: Any, timeout: float = 60.0) -> Answer:
        """The answer to ``request_id`` (other lines are kept in :attr:`other`)."""
        deadline = time.monotonic() + timeout
        while request_id not in self.answers:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no answer to id {request_id!r} in {timeout} s")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if not line:
                self.lines.put(b"")
                raise EOFError(f"the server closed stdout before answering id {request_id!r}")
            text = line.decode("utf-8")
            answer = Answer(text, json.loads(text))
            if "id" in answer.message and "method" not in answer.message:
                self.answers[answer.message["id"]] = answer
            else:
                self.other.append(answer)
        return self.answers.pop(request_id)

    def request(
        self, method: str, params: Mapping[str, Any] | None = None, timeout: float = 60.0
    ) -> Answer:
        self._next += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next, "method": method}
        if params is not None:
            message["params"] = dict(params)
        self.send(message)
        return self.wait_for(self._next, timeout)

    def initialize(self, version: str = HANDSHAKE) -> Answer:
        answer = self.request(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "workbench-tests", "version": "0"},
            },
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def call(self, name: str, arguments: Any) -> Answer:
        return self.request("tools/call", {"name": name, "arguments": arguments})

    def close(self, timeout: float = 60.0) -> int:
        """Close stdin and wait for the server to exit; its exit code."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise

    def signal(self, number: signal.Signals) -> None:
        self.process.send_signal(number)


class RawHttp:
    """A raw JSON-RPC client of a streamable-HTTP MCP server answering with JSON bodies."""

    def __init__(self, url: str) -> None:
        import httpx

        self.url = url
        self.client = httpx.Client(timeout=60.0)
        self.headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        self._next = 0

    def post(self, body: Mapping[str, Any] | bytes) -> Any:
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        return self.client.post(self.url, headers=self.headers, content=content)

    def request(self, method: str, params: Mapping[str, Any] | None = None) -> Answer:
        self._next += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next, "method": method}
        if params is not None:
            message["params"] = dict(params)
        response = self.post(message)
        session = response.headers.get("mcp-session-id")
        if session:
            self.headers["Mcp-Session-Id"] = session
        return Answer(response.text, response.json())

    def initialize(self, version: str = HANDSHAKE) -> Answer:
        answer = self.request(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "workbench-tests", "version": "0"},
            },
        )
        self.headers["MCP-Protocol-Version"] = answer.message["result"]["protocolVersion"]
        self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return answer

    def call(self, name: str, arguments: Any) -> Answer:
        return self.request("tools/call", {"name": name, "arguments": arguments})

    def close(self) -> None:
        self.client.close()


@contextmanager
def serving_http(
    suite: Path, *extra: str, env: Mapping[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """``workbench serve-mcp SUITE --http 0 ...`` running: yields its URL and process. Stopped
    with SIGTERM at the end, unless the test stopped it."""
    process = subprocess.Popen(
        workbench("serve-mcp", str(suite), "--http", "127.0.0.1:0", *extra),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(env) if env is not None else cli_env(),
    )
    assert process.stderr is not None
    line = process.stderr.readline()
    if "serving http" not in line:
        process.kill()
        raise AssertionError(f"serve-mcp did not start: {line}{process.stderr.read()}")
    url = line.rsplit(" ", 1)[-1].strip()
    try:
        yield url, process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


LIVE_SERVER = '''
"""A small live MCP server (synthetic, written for the tests) on the SDK's own stdio transport.

lookup(id) fails with isError on its first call, then answers "plan <id>"; crash() ends the
process at once (exit 3); any other tool is a JSON-RPC -32602. With LINGER=S in the
environment it keeps running S seconds after stdin closes, like a server slow to shut down.
"""
import os, time
import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

calls = {"n": 0}

async def list_tools(ctx, params):
    schema = {"type": "object", "properties": {"id": {"type": "string"}}}
    return types.ListToolsResult(tools=[types.Tool(name="lookup", input_schema=schema),
                                        types.Tool(name="crash", input_schema={"type": "object"})])

async def call_tool(ctx, params):
    if params.name == "crash":
        os._exit(3)
    if params.name != "lookup":
        raise MCPError(code=-32602, message="Unknown tool: " + params.name)
    calls["n"] += 1
    if calls["n"] == 1:
        body = {"content": [{"type": "text", "text": '{"error":"upstream_down"}'}], "isError": True}
    else:
        body = {"content": [{"type": "text", "text": "plan " + str(params.arguments.get("id"))}]}
    return types.CallToolResult.model_validate(body)

server = Server("live", on_list_tools=list_tools, on_call_tool=call_tool)

async def main():
    async with stdio_server() as (r, w):
        await server.run(r, w, server.create_initialization_options())
    time.sleep(float(os.environ.get("LINGER", "0")))

anyio.run(main)
'''


def live_server(folder: Path) -> Path:
    """Write :data:`LIVE_SERVER` into ``folder``; its path."""
    path = folder / "live_server.py"
    path.write_text(LIVE_SERVER, encoding="utf-8")
    return path


def read_log(path: Path) -> list[dict[str, Any]]:
    """The events of a JSONL log (split at ``\\n`` only: U+2028 is no line break in JSONL)."""
    return [json.loads(line) for line in path.read_bytes().split(b"\n") if line.strip()]
