"""Line framing for the SDK's MCP server over stdin/stdout (a stopgap; see docs/mcp.md).

The protocol is the SDK's: this module only moves lines. It reads newline-delimited JSON-RPC
from stdin, hands each message to the SDK's ``Server.run`` through its stream interface, and
writes what the server sends, one line each. It exists because the SDK's own stdio transport
(``mcp.server.stdio.stdio_server``, mcp 2.3) loses data, and it goes when these upstream issues
are fixed:

- modelcontextprotocol/python-sdk#2751 (also TS SDK #2247, fastmcp#1161): a line that is not a
  valid JSON-RPC message is dropped without an answer, so a client waiting on that request's id
  waits forever. Here it gets ``-32700`` (not JSON: invalid UTF-8, lone surrogates, NaN,
  nesting deeper than the SDK's parser takes) or ``-32600`` (not a message, a batch, an id that
  is not a string or an integer, a line over :data:`MAX_MESSAGE_BYTES`), with the request's id
  when one can be read, and the server keeps reading;
- modelcontextprotocol/python-sdk#2678: when stdin closes right after the requests, the SDK
  cancels the requests still being handled, so their answers are lost. Here end of input waits
  (at most ``drain_timeout``) until every request handed to the server is answered;
- SIGTERM kills the SDK's stdio server on the spot, and SIGINT waits until stdin closes (a
  worker thread is blocked reading it). Here both, and SIGHUP, stop the server at once (the SDK
  answers what is still running with ``-32000``) and :func:`serve_stdio` returns, so the caller
  writes its files.

Reading and writing happen on two daemon threads over raw file descriptors (``os.read`` /
``os.write``): a thread blocked in a buffered ``sys.stdin`` read holds its lock at interpreter
exit, which aborts the process ("Fatal Python error: _enter_buffered_busy"). Responses are
encoded with ``json.dumps``: a recorded lone surrogate goes out escaped (``\\ud800``), as the
live server sent it, where the SDK's writer raises and ends the server.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any, Literal

import anyio
import anyio.from_thread
import anyio.lowlevel
import mcp_types as types
import pydantic_core
from mcp.server.lowlevel import Server
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

__all__ = ["MAX_MESSAGE_BYTES", "StopReason", "classify_line", "serve_stdio"]

MAX_MESSAGE_BYTES = 4 * 1024 * 1024
"""The longest line read (the SDK's limit on a streamable-HTTP request body, 4 MiB)."""

StopReason = Literal["eof", "stdout-closed", "SIGTERM", "SIGINT", "SIGHUP"]
"""Why :func:`serve_stdio` returned: the client closed stdin or stdout, or a signal came."""

_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def _error_line(request_id: Any, code: int, message: str) -> bytes:
    body = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return json.dumps(body, separators=(",", ":")).encode("ascii") + b"\n"


def _request_id(value: Any) -> str | int | None:
    """A message's id when it is a valid JSON-RPC id (a string or an integer), else ``None``."""
    if isinstance(value, dict):
        found = value.get("id")
        if isinstance(found, str) or (type(found) is int):
            return found
    return None


def _lenient_id(line: bytes) -> str | int | None:
    """The id of a line the strict parser refused, read by Python's lenient one (which takes
    lone surrogates and NaN), so the client's request is still answered under its id."""
    try:
        value = json.loads(line.decode("utf-8", "replace"), parse_int=_small_int)
    except (ValueError, RecursionError):
        return None
    return _request_id(value)


def _small_int(text: str) -> int:
    """An integer, or 0 for one too long to convert (only the id matters here)."""
    return int(text) if len(text) < 4000 else 0


def classify_line(line: bytes) -> SessionMessage | bytes | None:
    """One input line as a message for the server, an error line to answer, or ``None``.

    ``None`` is a blank line, or a malformed response from the client (nothing to answer).
    """
    if not line.strip():
        return None
    try:
        # Strict UTF-8, no lone surrogates, no NaN/Infinity, the SDK parser's depth limit.
        value = pydantic_core.from_json(line, allow_inf_nan=False)
    except ValueError as exc:
        return _error_line(_lenient_id(line), -32700, f"Parse error: {exc}")
    if isinstance(value, list):
        return _error_line(None, -32600, "Invalid Request: batches are not supported")
    request_id = _request_id(value)
    try:
        message = types.jsonrpc_message_adapter.validate_python(value, by_name=False)
    except ValidationError:
        message = None
    if message is not None and not (
        isinstance(message, types.JSONRPCNotification) and "id" in value
    ):
        return SessionMessage(message)
    if (
        isinstance(value, dict)
        and "method" not in value
        and ("result" in value or "error" in value)
    ):
        return None
    if (
        request_id is not None
        and isinstance(value, dict)
        and value.get("jsonrpc") == "2.0"
        and isinstance(value.get("method"), str)
    ):
        return _error_line(request_id, -32602, "Invalid params: params must be an object")
    return _error_line(request_id, -32600, "Invalid Request")


def encode_message(message: types.JSONRPCMessage) -> bytes:
    """One message as a JSON line (UTF-8; a lone surrogate escaped; a value JSON cannot hold
    turns a response into a ``-32603`` error for its id)."""
    body = message.model_dump(by_alias=True, exclude_unset=True)
    try:
        text = json.dumps(body, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return text.encode("utf-8") + b"\n"
    except UnicodeEncodeError:
        return json.dumps(body, allow_nan=False, separators=(",", ":")).encode() + b"\n"
    except (ValueError, TypeError):
        return _error_line(getattr(message, "id", None), -32603, "result is not valid JSON")


def _lines(fd: int) -> Iterator[bytes | None]:
    """Lines read from ``fd`` (with their ``\\n``); ``None`` for a line over the limit, whose
    rest is skipped."""
    parts: list[bytes] = []
    size = 0
    skipping = False
    while True:
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            if parts and not skipping:
                yield b"".join(parts)
            return
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            if skipping:
                skipping = False
            else:
                parts.append(chunk[start : end + 1])
                yield b"".join(parts)
            parts.clear()
            size = 0
            start = end + 1
        if start < len(chunk) and not skipping:
            parts.append(chunk[start:])
            size += len(chunk) - start
            if size > MAX_MESSAGE_BYTES:
                parts.clear()
                size = 0
                skipping = True
                yield None


class _Writer:
    """A daemon thread writing lines to a file descriptor, so a client that stops reading
    never blocks the event loop (signals are handled there)."""

    def __init__(self, fd: int, on_broken: Callable[[], None]) -> None:
        self.fd = fd
        self.on_broken = on_broken
        self.lines: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.broken = False
        self.done = threading.Event()
        threading.Thread(target=self._run, name="mcp-stdout", daemon=True).start()

    def write(self, data: bytes) -> None:
        self.lines.put(data)

    def close(self, timeout: float) -> None:
        """Write what is queued (at most ``timeout`` seconds), then stop."""
        self.lines.put(None)
        self.done.wait(timeout)

    def _run(self) -> None:
        try:
            while (data := self.lines.get()) is not None:
                if self.broken:
                    continue
                view = memoryview(data)
                try:
                    while view:
                        view = view[os.write(self.fd, view) :]
                except OSError:  # the client closed its end
                    self.broken = True
                    self.on_broken()
        finally:
            self.done.set()


async def serve_stdio(
    server: Server[Any],
    *,
    stdin_fd: int = 0,
    stdout_fd: int = 1,
    drain_timeout: float = 5.0,
) -> StopReason:
    """Serve one client over ``stdin_fd`` / ``stdout_fd`` with the SDK's ``server`` until the
    client closes its end or SIGTERM, SIGINT or SIGHUP arrives; return why it stopped.

    With the process's own stdout (fd 1), the wire moves to a private copy of it and fd 1 is
    pointed at stderr, so a stray ``print`` cannot corrupt the protocol.
    """
    wire = stdout_fd
    if stdout_fd == 1:
        wire = os.dup(1)
        os.dup2(2, 1)
    token = anyio.lowlevel.current_token()
    stop = anyio.Event()
    reason: list[StopReason] = []

    def stopping(why: StopReason) -> None:
        reason.append(why)
        stop.set()

    def on_broken() -> None:
        try:
            anyio.from_thread.run_sync(stopping, "stdout-closed", token=token)
        except Exception:  # the loop has ended already
            return

    writer = _Writer(wire, on_broken)
    read_send, read_recv = anyio.create_memory_object_stream[SessionMessage | Exception](64)
    write_send, write_recv = anyio.create_memory_object_stream[SessionMessage](64)
    pending: set[str | int] = set()
    input_ended = anyio.Event()

    async def deliver(item: SessionMessage) -> None:
        if isinstance(item.message, types.JSONRPCRequest):
            pending.add(item.message.id)
        await read_send.send(item)

    def read() -> None:
        try:
            for line in _lines(stdin_fd):
                got = (
                    _error_line(None, -32600, "Invalid Request: message too large")
                    if line is None
                    else classify_line(line)
                )
                if isinstance(got, bytes):
                    writer.write(got)
                elif got is not None:
                    anyio.from_thread.run(deliver, got, token=token)
            anyio.from_thread.run_sync(input_ended.set, token=token)
        except Exception:  # the loop is gone (the server stopped): nothing left to hand over
            return

    async def write() -> None:
        async with write_recv:
            async for item in write_recv:
                message = item.message
                writer.write(encode_message(message))
                if isinstance(message, types.JSONRPCResponse | types.JSONRPCError):
                    pending.discard(message.id)

    async def end_of_input() -> None:
        await input_ended.wait()
        with anyio.move_on_after(drain_timeout):
            while pending:  # python-sdk#2678: answer what was asked before stopping
                await anyio.sleep(0.002)
        stopping("eof")

    async def signals() -> None:
        with anyio.open_signal_receiver(*_STOP_SIGNALS) as received:
            async for number in received:
                stopping(signal.Signals(number).name)  # type: ignore[arg-type]
                return

    async def stop_server() -> None:
        await stop.wait()
        await read_send.aclose()  # Server.run returns once its read stream ends

    threading.Thread(target=read, name="mcp-stdin", daemon=True).start()
    async with anyio.create_task_group() as outer:
        outer.start_soon(write)  # ends when write_send is closed, after the last answer
        async with anyio.create_task_group() as group:
            for task in (end_of_input, signals, stop_server):
                group.start_soon(task)
            await server.run(read_recv, write_send, server.create_initialization_options())
            group.cancel_scope.cancel()
        await write_send.aclose()
    writer.close(timeout=2.0)
    return reason[0] if reason else "eof"
