"""The bridge's lean transports: handshake-era MCP over stdio and streamable HTTP, by hand.

The SDK's server costs about 0.45 ms a call over stdio (its stdio transport hops to a worker
thread for every read and write, and each request passes its dispatcher, runner and tracing
layers); the bridge's own work per call (one fixture match on the host) is about 15 us. So the
bridge's default transports answer the few methods a fixture server needs directly:

- ``initialize`` (protocol versions 2024-11-05 to 2025-11-25: the client's version when it is one
  of those, else the latest), ``ping``, ``tools/list`` and ``tools/call``;
- notifications and responses from the client are accepted and dropped;
- any other method is ``-32601`` (``server/discover`` too, so a client in ``auto`` mode falls
  back to the ``initialize`` handshake), bad params ``-32602``, a message that is not a JSON-RPC
  request ``-32600``, bytes that are not JSON ``-32700``; a batch (a JSON array) is ``-32600``:
  these protocol versions have no batches.

Every ``tools/call`` goes to the same caller as the SDK path (``McpBridge.call``: the trial's
``FixtureHost``), and its result is the same ``CallToolResult`` the SDK path sends (built by
:func:`~workbench.bridge._server.to_call_tool_result`). Responses that never change
(``initialize``, ``tools/list``) are serialised once.

Over HTTP (:class:`LeanHttpApp`, an ASGI app for uvicorn) one endpoint takes ``POST`` (JSON
responses, never SSE), ``DELETE`` ends a session, and ``GET`` is ``405``: the spec lets a server
that offers no SSE stream answer so. ``initialize`` starts a session and returns its
``Mcp-Session-Id``; any other message without a live session id is ``400`` (missing) or ``404``
(unknown or ended). An ``MCP-Protocol-Version`` header naming another version is ``400`` with
``-32022`` and the supported versions. On a loopback host, ``Host`` and ``Origin`` are checked
as the SDK checks them (DNS-rebinding protection: ``421``, ``403``).

Longer than 400 lines: both transports (stdio and streamable HTTP) with their protocol edges;
the SDK-only bridge replaces this module.
"""

from __future__ import annotations

import json
import re
import signal
import threading
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping, MutableMapping, Sequence
from typing import Any, BinaryIO

import orjson

from .._common.toolresult import ToolResult

__all__ = [
    "HANDSHAKE_VERSIONS",
    "LeanHttpApp",
    "LeanProtocol",
    "serve_stdio",
]

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The protocol versions the lean transports speak (the ``initialize`` handshake era)."""

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
UNSUPPORTED_PROTOCOL_VERSION = -32022

MAX_BODY = 4 * 1024 * 1024
"""The largest HTTP request body taken (the SDK's default limit); larger is ``413``."""

Caller = Callable[[str, dict[str, Any]], ToolResult]
"""Serves one call by MCP name and arguments."""
Shaper = Callable[[ToolResult], Mapping[str, Any]]
"""A host result as a ``CallToolResult`` body."""

# orjson turns an integer beyond 64 bits into a float (``json`` keeps it exact): a message with
# a run of 19 digits is decoded by ``json``, as is any message orjson refuses.
_LONG_NUMBER = re.compile(rb"[0-9]{19}")


def loads(data: bytes) -> Any:
    """Decoded JSON bytes (orjson where it agrees with ``json``); ``ValueError`` if not JSON."""
    if _LONG_NUMBER.search(data) is None:
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return json.loads(data)


def dumps(value: Any) -> bytes:
    """Compact JSON bytes (orjson; ``json`` for what orjson refuses, such as huge integers)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _error(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


class LeanProtocol:
    """Handshake-era MCP JSON-RPC for one fixture server (see the module docstring).

    Transport-free and synchronous: :meth:`handle` takes one decoded message and returns the
    response to send, or ``None`` when there is none (a notification, a client's response).
    """

    def __init__(
        self,
        *,
        name: str,
        version: str,
        instructions: str | None,
        tools: Sequence[Mapping[str, Any]],
        call: Caller,
        shape: Shaper,
    ) -> None:
        self._call = call
        self._shape = shape
        self._info = {"name": name, "version": version}
        self._instructions = instructions
        self.tools_result: dict[str, Any] = {"tools": [dict(t) for t in tools]}
        """The ``tools/list`` result (built once)."""

    def initialize_result(self, requested: Any) -> dict[str, Any]:
        """The ``initialize`` result for a client asking for protocol version ``requested``."""
        chosen = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
        result: dict[str, Any] = {
            "protocolVersion": chosen,
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": self._info,
        }
        if self._instructions is not None:
            result["instructions"] = self._instructions
        return result

    def handle(self, message: Any) -> dict[str, Any] | None:
        """The response to one decoded JSON-RPC message (``None``: nothing to send)."""
        if not isinstance(message, dict):
            if isinstance(message, list):
                return _error(None, INVALID_REQUEST, "Invalid Request: batches are not supported")
            return _error(None, INVALID_REQUEST, "Invalid Request: not a JSON-RPC message")
        request_id = message.get("id")
        method = message.get("method")
        if message.get("jsonrpc") != "2.0" or (
            request_id is not None and not isinstance(request_id, str | int)
        ):
            return _error(
                request_id if isinstance(request_id, str | int) else None,
                INVALID_REQUEST,
                "Invalid Request: not a JSON-RPC 2.0 message",
            )
        if "id" not in message:
            if isinstance(method, str):
                return None  # a notification: nothing to answer
            return _error(None, INVALID_REQUEST, "Invalid Request: no method")
        if method is None and ("result" in message or "error" in message):
            return None  # a response to a request this server never sends
        if not isinstance(method, str) or request_id is None:
            return _error(request_id, INVALID_REQUEST, "Invalid Request: no method or id")
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            return _error(request_id, INVALID_PARAMS, "Invalid params: params must be an object")
        if method == "tools/call":
            name = params.get("name") if params else None
            arguments = params.get("arguments") if params else None
            if not isinstance(name, str) or not isinstance(arguments, dict | None):
                return _error(request_id, INVALID_PARAMS, "Invalid params: tools/call needs a name")
            result: Any = self._shape(self._call(name, arguments or {}))
        elif method == "tools/list":
            result = self.tools_result
        elif method == "ping":
            result = {}
        elif method == "initialize":
            requested = params.get("protocolVersion") if params else None
            if not isinstance(requested, str):
                return _error(
                    request_id, INVALID_PARAMS, "Invalid params: initialize needs protocolVersion"
                )
            result = self.initialize_result(requested)
        else:
            return _error(request_id, METHOD_NOT_FOUND, "Method not found", method)
        return {"jsonrpc": "2.0", "id": request_id, "result": result}

    def handle_bytes(self, data: bytes) -> bytes | None:
        """:meth:`handle` on one message's bytes: the response's bytes, or ``None``."""
        try:
            message = loads(data)
        except ValueError:
            return dumps(_error(None, PARSE_ERROR, "Parse error"))
        response = self.handle(message)
        return None if response is None else dumps(response)


def serve_stdio(protocol: LeanProtocol, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Serve newline-delimited JSON-RPC until ``stdin`` ends (the client hung up).

    Blocking, on the calling thread: one line read, one line written and flushed, no worker
    threads. On the main thread, SIGTERM is turned into ``KeyboardInterrupt`` (as SIGINT is) for
    the duration, so either signal ends the loop and the caller can still write its summary.
    """
    on_main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler) if on_main else None
    try:
        write = stdout.write
        flush = stdout.flush
        for line in stdin:
            if not line.strip():
                continue
            out = protocol.handle_bytes(line)
            if out is not None:
                write(out + b"\n")
                flush()
    finally:
        if on_main:
            signal.signal(signal.SIGTERM, previous)


# ---- streamable HTTP ---------------------------------------------------------------------------

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

_JSON = (b"content-type", b"application/json")
_LOOPBACK = ("127.0.0.1", "localhost", "::1")


def _headers(scope: Scope) -> dict[bytes, bytes]:
    """The request's headers by lower-case name (ASGI gives them lower-cased)."""
    return dict(scope["headers"])


def _text(headers: Mapping[bytes, bytes], name: bytes) -> str | None:
    value = headers.get(name)
    return None if value is None else value.decode("latin-1")


def _allowed(value: str, bases: Iterable[str]) -> bool:
    return any(value == base or value.startswith(base + ":") for base in bases)


class LeanHttpApp:
    """Streamable HTTP for a :class:`LeanProtocol`, as a plain ASGI app (see the module).

    ``host`` is the address served: on a loopback host the ``Host`` and ``Origin`` headers must
    name a loopback address, as the SDK requires there. ``path`` is the one endpoint.
    """

    def __init__(self, protocol: LeanProtocol, *, host: str = "127.0.0.1", path: str = "/mcp"):
        self.protocol = protocol
        """The JSON-RPC handler."""
        self.path = path
        """The endpoint's path."""
        self.sessions: set[str] = set()
        """Live session ids (one per ``initialize``; ``DELETE`` ends one)."""
        self._guard = host in _LOOPBACK
        self._hosts = ("127.0.0.1", "localhost", "[::1]")
        self._origins = ("http://127.0.0.1", "http://localhost", "http://[::1]")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        if scope["path"] != self.path:
            await _respond(send, 404, b"Not Found", [(b"content-type", b"text/plain")])
            return
        method = scope["method"]
        headers = _headers(scope)
        if method == "POST":
            await self._post(headers, receive, send)
            return
        refused = self._refuse(headers, post=False)
        if refused is not None:
            await _respond(send, *refused)
            return
        if method == "DELETE":
            session, failure = self._session(headers)
            if failure is not None:
                await _respond(send, *failure)
                return
            self.sessions.discard(session or "")
            await _respond(send, 200, b"", [_JSON])
            return
        allow = (b"allow", b"POST, DELETE")
        body = dumps(_error(None, INVALID_REQUEST, "Method Not Allowed: no SSE stream here"))
        await _respond(send, 405, body, [_JSON, allow])

    def _refuse(
        self, headers: Mapping[bytes, bytes], *, post: bool
    ) -> tuple[int, bytes, list[Any]] | None:
        """The DNS-rebinding and content-type checks (the SDK's order and statuses)."""
        plain = [(b"content-type", b"text/plain; charset=utf-8")]
        if post:
            content_type = _text(headers, b"content-type") or ""
            if not content_type.lower().startswith("application/json"):
                return 400, b"Invalid Content-Type header", plain
        if self._guard:
            if not _allowed(_text(headers, b"host") or "", self._hosts):
                return 421, b"Invalid Host header", plain
            origin = _text(headers, b"origin")
            if origin and not _allowed(origin, self._origins):
                return 403, b"Invalid Origin header", plain
        return None

    def _session(
        self, headers: Mapping[bytes, bytes]
    ) -> tuple[str | None, tuple[int, bytes, list[Any]] | None]:
        session = _text(headers, b"mcp-session-id")
        if not session:
            body = dumps(_error(None, INVALID_REQUEST, "Bad Request: Missing session ID"))
            return None, (400, body, [_JSON])
        if session not in self.sessions:
            body = dumps(_error(None, INVALID_REQUEST, "Not Found: Invalid or expired session ID"))
            return None, (404, body, [_JSON])
        return session, None

    async def _post(self, headers: Mapping[bytes, bytes], receive: Receive, send: Send) -> None:
        refused = self._refuse(headers, post=True)
        if refused is not None:
            await _drain(receive)
            await _respond(send, *refused)
            return
        accept = [
            part.split(";")[0].strip().lower()
            for part in (_text(headers, b"accept") or "").split(",")
        ]
        if not any(t in ("application/json", "application/*", "*/*") for t in accept):
            await _drain(receive)
            body = dumps(_error(None, INVALID_REQUEST, "Not Acceptable: accept application/json"))
            await _respond(send, 406, body, [_JSON])
            return
        version = _text(headers, b"mcp-protocol-version")
        if version is not None and version not in HANDSHAKE_VERSIONS:
            await _drain(receive)
            data = {"supported": list(HANDSHAKE_VERSIONS), "requested": version}
            body = dumps(
                _error(None, UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", data)
            )
            await _respond(send, 400, body, [_JSON])
            return
        data_bytes = await _read_body(receive)
        if data_bytes is None:
            await _respond(send, 413, b"Request body too large", [(b"content-type", b"text/plain")])
            return
        try:
            message = loads(data_bytes)
        except ValueError:
            await _respond(send, 400, dumps(_error(None, PARSE_ERROR, "Parse error")), [_JSON])
            return
        if isinstance(message, dict) and message.get("method") == "initialize":
            response = self.protocol.handle(message)
            sent = [_JSON]
            if response is not None and "result" in response:
                started = uuid.uuid4().hex
                self.sessions.add(started)
                sent.append((b"mcp-session-id", started.encode("ascii")))
            await _respond(send, 200, dumps(response), sent)
            return
        session, failure = self._session(headers)
        if failure is not None:
            await _respond(send, *failure)
            return
        sent = [_JSON, (b"mcp-session-id", (session or "").encode("latin-1"))]
        response = self.protocol.handle(message)
        if response is None:
            await _respond(send, 202, b"", sent)
        elif "error" in response and response.get("id") is None:
            await _respond(send, 400, dumps(response), sent)
        else:
            await _respond(send, 200, dumps(response), sent)


async def _respond(send: Send, status: int, body: bytes, headers: list[Any]) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _read_body(receive: Receive) -> bytes | None:
    """The request body, or ``None`` once it passes :data:`MAX_BODY` (the rest is drained)."""
    chunks: list[bytes] = []
    size = 0
    more = True
    while more:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            await _drain(receive, more=message.get("more_body", False))
            return None
        chunks.append(chunk)
        more = message.get("more_body", False)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


async def _drain(receive: Receive, *, more: bool = True) -> None:
    while more:
        message = await receive()
        if message["type"] != "http.request":
            return
        more = message.get("more_body", False)
