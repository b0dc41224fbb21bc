"""The MCP bridge: a suite task's fixture tools served by the official MCP SDK's server
(SPEC R12-R22, R17, R42).

:class:`McpBridge` opens one trial of one task on a :class:`~workbench.ReplaySession` and serves
its tools with the SDK's low-level ``Server`` (``mcp.server.lowlevel``): the SDK does the
protocol (every revision it speaks, 2024-11-05 through 2026-07-28: ``initialize`` and version
negotiation, ``server/discover``, dispatch, params validation, errors). Each ``tools/call`` is
served by ``host.call`` on the trial's :class:`~workbench.FixtureHost`, the same code an
in-process replay runs, and answered with what was recorded, as it was recorded (R42):

- a fixture entry whose response is a ``CallToolResult`` body is sent **verbatim**: every member
  in its order, ``_meta`` and unknown members included, nothing added (``isError: true`` is
  added only when an ``isError`` entry's body lacks it, so a failure never reads as a success);
- an entry holding a recorded JSON-RPC error (``x-jsonrpcError``) is sent as **that JSON-RPC
  error** (code, message, and data when it had one); an in-process agent gets it as a tool
  error with the message (R17);
- a miss (R16), a call to a tool the task does not have, and any other response are tool errors
  or results built from the host's :class:`~workbench.ToolResult` (``content``,
  ``structuredContent``, and ``isError`` only when true).

The SDK would re-shape a handler's result (validate it against its models, re-order and drop
members, add ``isError: false``), so the handler hands the body to :class:`_Verbatim`, a
``ServerMiddleware`` that swaps it in after the SDK's checks have run. At 2026-07-28 the
protocol requires envelope members (``resultType``, cache hints, the ``serverInfo`` stamp), which
are appended after the recorded ones. ``tools/list`` lists the catalogue the live server sent
(:mod:`workbench.bridge._names`), also verbatim.

Transports: stdio (:meth:`McpBridge.run_stdio`, the SDK's ``Server.run`` behind the line
framing of :mod:`workbench.bridge._stdio`) and streamable HTTP (:meth:`McpBridge.run_http`, the
SDK's session manager on Starlette and uvicorn). The event log is the session's, so it is the
log an in-process replay writes for the same calls (R18-R22); :meth:`McpBridge.finish` scores
the trial and builds the summary (with ``fixtureMissCount``). Needs the ``mcp`` extra.

Longer than 400 lines because it holds the one place where recorded bodies meet the SDK: the
verbatim middleware, the bridge that feeds it, and the HTTP wiring around the SDK's app (the
request-id guard, the signal-aware uvicorn server), which only make sense read together.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import os
import signal
import socket
import threading
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import mcp_types as types
import pydantic_core
import uvicorn
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from .._common.toolresult import ToolResult, jsonrpc_error_of, text_content
from .._replay.agents import Decision
from .._replay.events import events_to_jsonl
from .._replay.host import FixtureHost
from .._replay.options import LiveTool
from .._replay.results import ReplayResult
from .._replay.session import ReplaySession
from .._suite.capabilities import HostProfile
from .._suite.model import Suite, task_tool_responses
from ._names import ToolSpec, task_tool_specs
from ._stdio import MAX_MESSAGE_BYTES, StopReason, serve_stdio

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "DEFAULT_AGENT_ID",
    "McpBridge",
    "StopReason",
    "ToolCaller",
    "bind_socket",
    "build_tool_server",
    "recorded_error",
    "result_body",
    "summary_line",
]

DEFAULT_AGENT_ID = "workbench.mcp-agent"
"""The agent id the bridge writes on agent events unless told another."""

ToolCaller = Callable[[str, dict[str, Any]], Mapping[str, Any]]
"""Serves one call by MCP name and arguments: the ``CallToolResult`` body to send as it is, or
raises ``MCPError`` for a JSON-RPC error."""

_MODERN_ENVELOPE = ("resultType", "ttlMs", "cacheScope")
_BODY: contextvars.ContextVar[Mapping[str, Any] | None] = contextvars.ContextVar(
    "workbench_mcp_body", default=None
)
_PLACEHOLDER_CALL = types.CallToolResult(content=[])
_PLACEHOLDER_LIST = types.ListToolsResult(tools=[])


class _Verbatim:
    """A ``ServerMiddleware`` sending the body a handler chose, as it is.

    The SDK runs its checks (the initialize gate, params validation, method lookup) and the
    handler; the handler puts the body it wants sent in :data:`_BODY` and returns a placeholder
    the SDK shapes and validates; this swaps the body in. (The SDK sends a middleware's result
    unchanged: only its handler results are re-shaped.)
    """

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        token = _BODY.set(None)
        try:
            result = await call_next(ctx)
            body = _BODY.get()
        finally:
            _BODY.reset(token)
        if body is None or not isinstance(result, dict):
            return result
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            return dict(body)
        sent = {**body}
        for key in _MODERN_ENVELOPE:  # required by 2026-07-28; appended after the recorded ones
            if key in result and key not in sent:
                sent[key] = result[key]
        stamp = result.get("_meta")
        if isinstance(stamp, Mapping):
            meta = sent.get("_meta")
            sent["_meta"] = {**meta, **stamp} if isinstance(meta, Mapping) else dict(stamp)
        return sent


def result_body(result: ToolResult) -> dict[str, Any]:
    """The ``CallToolResult`` body for a host result that has no recorded body (a miss, a live
    tool, a response that is not an MCP body): ``content``, ``structuredContent`` when there is
    one, and ``isError: true`` for a failure (nothing else added).

    Content that is not valid MCP content (a recording may hold anything) is sent as one text
    block holding the R17 text, so the client still gets the failure, or the text, it recorded.
    """
    body: dict[str, Any] = {"content": result.content}
    if result.structured_content is not None:
        body["structuredContent"] = result.structured_content
    if result.is_error:
        body["isError"] = True
    try:
        types.CallToolResult.model_validate(body)
    except ValidationError:
        text = result.error if result.is_error else result.text
        body = {"content": text_content(text or "")}
        if result.is_error:
            body["isError"] = True
    return body


def recorded_error(error: Mapping[str, Any]) -> MCPError:
    """The SDK error that sends a recorded JSON-RPC error object back: its code, its message and,
    when it had one, its data (``null`` included)."""
    code = int(error["code"])
    message = str(error["message"])
    exc = MCPError(code, message)
    if "data" in error:
        exc.error = types.ErrorData(code=code, message=message, data=error["data"])
    return exc


def _json_problem(value: Any) -> str | None:
    """Why ``value`` cannot go on the event log as JSON (NaN, a lone surrogate, an integer too
    long to write), or ``None``."""
    try:
        json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (ValueError, TypeError, RecursionError) as exc:
        return str(exc).split("\n", 1)[0][:200]
    return None


def build_tool_server(
    name: str,
    tools: Sequence[ToolSpec],
    call: ToolCaller,
    *,
    version: str = "",
    instructions: str | None = None,
) -> Server[Any]:
    """The SDK's low-level server listing ``tools`` (as they are) and answering every
    ``tools/call`` with the body ``call`` gives (as it is).

    Raises ``ValueError`` naming the tool when one is not an MCP ``Tool``.
    """
    for index, tool in enumerate(tools):
        try:
            types.Tool.model_validate(tool)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise ValueError(
                f"tools[{index}] ({tool.get('name')!r}): not an MCP tool: {where}: {first['msg']}"
            ) from None
    listed = {"tools": list(tools)}
    schemas = {
        tool["name"]: tool["inputSchema"]
        for tool in tools
        if isinstance(tool.get("inputSchema"), Mapping)
    }

    async def on_list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        _BODY.set(listed)
        return _PLACEHOLDER_LIST

    async def on_call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        problem = _json_problem([params.name, arguments])
        if problem is not None:
            raise MCPError(-32602, f"Invalid params: not representable as JSON: {problem}")
        _BODY.set(call(params.name, arguments))
        return _PLACEHOLDER_CALL

    server: Server[Any] = Server(
        name,
        version=version,
        instructions=instructions,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
        get_tool_input_schema=schemas.get,
    )
    server.middleware.append(_Verbatim())
    return server


def _first_task_id(suite: Suite) -> str:
    tasks = suite.tasks
    if len(tasks) != 1:
        ids = ", ".join(_task_id(t, "(no id)") for t in tasks) or "none"
        raise ValueError(f"the suite has {len(tasks)} tasks ({ids}); name the one to serve")
    return _task_id(tasks[0])


def _task_id(task: Any, none: str = "task-0") -> str:
    """A task's id as given (``none`` when it has none; a task that is no object has none, and
    the session's validation then names what is wrong with it)."""
    given = task.get("taskId") if isinstance(task, Mapping) else None
    return str(given) if given is not None else none


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``port`` 0: any free port); raises ``OSError``
    (port in use, unknown host) before anything is served or written."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    infos = socket.getaddrinfo(host, port, family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    found_family, kind, proto, _, address = infos[0]
    # The protocol is named (IPPROTO_TCP, not 0): asyncio switches Nagle's algorithm off only
    # on sockets that say they are TCP, and with it on every answer waited ~40 ms for an ACK.
    sock = socket.socket(found_family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
        sock.set_inheritable(True)
    except OSError:
        sock.close()
        raise
    return sock


class McpBridge:
    """One trial of one task served over MCP, recorded as a replay (see the module docstring).

    ``catalogue`` gives the tools to list (a ``tools/list`` result or a list of tools), ahead of
    the suite's ``x-mcpTools``; without either, the tools the recording called are listed with
    schemas inferred from the recorded args (:mod:`workbench.bridge._names`). ``agent_id`` is
    written on the agent events (pass the in-process agent's id to compare logs with an
    in-process replay). Raises ``ValueError`` for a suite or catalogue it cannot serve.
    """

    def __init__(
        self,
        suite: Suite | Mapping[str, Any] | str | os.PathLike[str],
        task_id: str | None = None,
        *,
        trial: int = 0,
        seed: int = 0,
        agent_id: str = DEFAULT_AGENT_ID,
        host_profile: HostProfile | None = None,
        live_tools: Mapping[str, LiveTool] | None = None,
        catalogue: Any = None,
        events: bool = True,
        include_content: bool = False,
        validate: bool = True,
        server_name: str = "workbench-replay",
    ) -> None:
        the_suite = Suite.coerce(suite)
        chosen = task_id if task_id is not None else _first_task_id(the_suite)
        self.session = ReplaySession(
            the_suite,
            tasks=[chosen],
            agent_id=agent_id,
            seed=seed,
            host_profile=host_profile,
            live_tools=live_tools,
            events=events,
            include_content=include_content,
            validate=validate,
        )
        """The replay the calls are served on."""
        self.task_id = chosen
        """The task served."""
        self.trial = trial
        """The trial number served."""
        task = self.session.task(chosen)
        on_miss_live = sorted(live_tools or {}) if live_tools else []
        specs, ids = task_tool_specs(
            the_suite.data, task, catalogue=catalogue, extra_tools=on_miss_live
        )
        self.tools: list[ToolSpec] = specs
        """The MCP tools listed, as ``tools/list`` sends them (MCP names)."""
        self.tool_ids: dict[str, str] = ids
        """``{MCP name: tool id}``: how a call's name maps back to the suite's tool id."""
        self._entries = task_tool_responses(task)
        self._bodies: dict[int, Mapping[str, Any] | None] = {}
        instructions = f"Recorded tools of task {chosen!r} of suite {the_suite.suite_id!r}."
        self.server: Server[Any] = build_tool_server(
            server_name, specs, self.reply, version=the_suite.version, instructions=instructions
        )
        """The SDK's low-level MCP server (both transports, and in-process clients)."""
        self.host: FixtureHost = self.session.begin_trial(chosen, trial)
        """The trial's fixture host: every call is served by ``host.call``."""
        self._result: ReplayResult | None = None
        self._log_fd: int | None = None
        self._logged = 0

    def stream_events(self, path: str | os.PathLike[str]) -> None:
        """Write the event log to ``path`` as it grows: the events so far now, each call's
        events as it is served, the rest at :meth:`write`. A kill keeps every event up to the
        last call; the finished file has the bytes :meth:`write` alone would give. Raises
        ``OSError`` when the file cannot be opened."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)
        self._log_fd = os.open(path, flags, 0o666)
        self._logged = 0
        self._flush_events()

    def _flush_events(self) -> None:
        if self._log_fd is None:
            return
        events = self.session.events
        if self._logged < len(events):
            data = events_to_jsonl(events[self._logged :]).encode("utf-8")
            self._logged = len(events)
            view = memoryview(data)
            while view:
                view = view[os.write(self._log_fd, view) :]

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        """Serve one call by its MCP name: mapped back to the tool id, served by the host."""
        if self._result is not None:
            return ToolResult.failure("the replay has finished", code="workbench.finished")
        return self.host.call(self.tool_ids.get(name, name), arguments or {})

    def reply(self, name: str, arguments: dict[str, Any]) -> Mapping[str, Any]:
        """Serve one call (:meth:`call`) and give what goes on the wire: the recorded body as
        it was recorded, or a body built from the host's result; raises the recorded JSON-RPC
        error as ``MCPError`` (see the module docstring)."""
        before = len(self.host.calls)
        result = self.call(name, arguments)
        self._flush_events()
        if len(self.host.calls) > before:
            record = self.host.calls[-1]
            if record.served_by == "fixture" and record.entry is not None:
                body = self._recorded_body(record.entry)
                if isinstance(body, MCPError):
                    raise body
                if body is not None:
                    return body
        return result_body(result)

    def _recorded_body(self, index: int) -> Mapping[str, Any] | MCPError | None:
        if index in self._bodies:
            return self._bodies[index]
        entry = self._entries[index]
        response = entry.get("response")
        is_error = entry.get("isError") is True
        error = jsonrpc_error_of(response) if is_error else None
        if error is not None:
            return recorded_error(error)
        body: dict[str, Any] | None = None
        if isinstance(response, Mapping) and isinstance(response.get("content"), list):
            try:
                types.CallToolResult.model_validate(response)
            except ValidationError:
                body = None  # not MCP content (another format's blocks): the host's text
            else:
                body = dict(response)
                if is_error and body.get("isError") is not True:
                    body["isError"] = True
                elif not is_error and body.get("isError") is True:
                    body["isError"] = False
        self._bodies[index] = body
        return body

    @property
    def result(self) -> ReplayResult | None:
        """The replay's result once :meth:`finish` has run."""
        return self._result

    @property
    def calls_served(self) -> int:
        """How many ``tools/call`` requests reached the host."""
        return len(self.host.calls)

    def finish(self, decision: Decision | None = None) -> ReplayResult:
        """End the trial (default decision: ``completed``, no answer: the bridge cannot see the
        agent's answer), score the task and build the summary. Idempotent."""
        if self._result is None:
            self._result = self.session.finish(decision)
        return self._result

    def write(
        self,
        events: str | os.PathLike[str] | None = None,
        summary: str | os.PathLike[str] | None = None,
        *,
        overwrite: bool = False,
    ) -> ReplayResult:
        """:meth:`finish`, then write the event log (JSONL; the rest of it, after
        :meth:`stream_events`) and the summary (JSON), each atomically when not streamed
        (``overwrite``: see :meth:`~workbench.ReplayResult.write_events`).

        Raises ``OSError`` or ``ValueError`` when a file cannot be written; the summary is
        still attempted when the event log fails.
        """
        result = self.finish()
        problem: Exception | None = None
        if self._log_fd is not None:
            try:
                self._flush_events()
                os.fsync(self._log_fd)
            except (OSError, ValueError) as exc:
                problem = exc
            finally:
                os.close(self._log_fd)
                self._log_fd = None
        elif events is not None:
            try:
                result.write_events(events, overwrite=overwrite)
            except (OSError, ValueError) as exc:
                problem = exc
        if summary is not None:
            result.write_summary(summary, overwrite=overwrite)
        if problem is not None:
            raise problem
        return result

    async def run_stdio(self, *, stdin_fd: int = 0, stdout_fd: int = 1) -> StopReason:
        """Serve over stdin/stdout until the client closes its end or SIGTERM, SIGINT or SIGHUP
        arrives; returns which. (The SDK's server behind :mod:`workbench.bridge._stdio`.)"""
        return await serve_stdio(self.server, stdin_fd=stdin_fd, stdout_fd=stdout_fd)

    def http_app(self, *, host: str = "127.0.0.1", path: str = "/mcp") -> ASGIApp:
        """The SDK's streamable-HTTP Starlette app (stateful sessions, JSON responses, the SDK's
        DNS-rebinding protection on loopback, request bodies up to 4 MiB) behind
        :class:`_RequestIdGuard`. Serve it with its lifespan on (the session manager runs
        there)."""
        app = self.server.streamable_http_app(
            streamable_http_path=path,
            json_response=True,
            host=host,
            max_request_body_size=MAX_MESSAGE_BYTES,
        )
        return _RequestIdGuard(app, path)

    async def run_http(
        self,
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        path: str = "/mcp",
        sock: socket.socket | None = None,
        on_ready: Callable[[str], Awaitable[None] | None] | None = None,
    ) -> StopReason:
        """Serve streamable HTTP on ``host:port`` (or the listening ``sock``, from
        :func:`bind_socket`) until SIGINT, SIGTERM or SIGHUP; returns which. ``on_ready(url)``
        is called once the socket listens. Raises ``OSError`` when it cannot listen."""
        import anyio

        listening = sock if sock is not None else bind_socket(host, port)
        config = uvicorn.Config(
            self.http_app(host=host, path=path),
            log_level="warning",
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=3,
        )
        server = _QuietExitServer(config)
        bound = listening.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        url = f"http://{shown}:{bound}{path}"

        async def announce() -> None:
            while not server.started and not server.should_exit:
                await anyio.sleep(0.01)
            if server.started and on_ready is not None:
                maybe = on_ready(url)
                if maybe is not None:
                    await maybe

        try:
            async with anyio.create_task_group() as group:
                group.start_soon(announce)
                await server.serve(sockets=[listening])
                group.cancel_scope.cancel()
        finally:
            listening.close()
        return server.stop_reason


class _RequestIdGuard:
    """Answers a POSTed request whose ``id`` is not a string or an integer with ``400`` and
    ``-32600``; everything else goes to the SDK's app untouched.

    The SDK reads such a request as a notification and answers ``202`` with no body, so the
    client waits forever for its answer: the HTTP side of python-sdk#2751 (see
    :mod:`workbench.bridge._stdio`). Goes when that is fixed upstream.
    """

    def __init__(self, app: ASGIApp, path: str) -> None:
        self.app = app
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST" or scope["path"] != self.path:
            await self.app(scope, receive, send)
            return
        received: list[Message] = []
        parts: list[bytes] = []
        size = 0
        more = True
        while more and size <= MAX_MESSAGE_BYTES:
            message = await receive()
            received.append(message)
            if message["type"] != "http.request":
                break
            body = message.get("body", b"")
            parts.append(body)
            size += len(body)
            more = message.get("more_body", False)
        if not more and _has_bad_id(b"".join(parts)):
            error = {"code": -32600, "message": "Invalid Request: id must be a string or integer"}
            body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
            headers = [
                (b"content-type", b"application/json"),
                (b"content-length", b"%d" % len(body)),
            ]
            await send({"type": "http.response.start", "status": 400, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return

        async def replay() -> Message:
            return received.pop(0) if received else await receive()

        await self.app(scope, replay, send)


def _has_bad_id(body: bytes) -> bool:
    """Whether ``body`` is a JSON-RPC request whose ``id`` is there but not a valid id."""
    if b'"id"' not in body:
        return False
    try:
        value = pydantic_core.from_json(body)
    except ValueError:
        return False  # the SDK answers it (-32700)
    if not isinstance(value, dict) or not isinstance(value.get("method"), str) or "id" not in value:
        return False
    found = value["id"]
    return not (isinstance(found, str) or type(found) is int)


class _QuietExitServer(uvicorn.Server):
    """uvicorn's server, except that SIGINT, SIGTERM and SIGHUP only stop it (uvicorn re-raises
    the signal after a graceful shutdown, which would end the process before the bridge writes
    its event log and summary), it remembers which one came, and a second one while it stops is
    ignored (the graceful stop takes 3 s at most)."""

    stop_reason: StopReason = "SIGTERM"

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        handled = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

        def stop(number: int, frame: Any) -> None:
            if self.should_exit:  # a second signal while stopping: uvicorn would force the
                return  # exit and log its lifespan's cancellation as a traceback (3 s at most)
            self.stop_reason = signal.Signals(number).name  # type: ignore[assignment]
            self.handle_exit(number, frame)

        original = {sig: signal.signal(sig, stop) for sig in handled}
        try:
            yield
        finally:
            for sig, handler in original.items():
                signal.signal(sig, handler)


def summary_line(result: ReplayResult, stopped: str | None = None) -> str:
    """One line for stderr: the task, calls, errors served, misses, pass/fail, why it stopped."""
    summary = result.summary
    task = result.tasks[0] if result.tasks else None
    calls = sum(len(t.calls) for t in task.trials) if task else 0
    errors = sum(t.errors_served for t in task.trials) if task else 0
    verdict = "PASSED" if result.passed else "FAILED"
    if calls == 0:
        verdict = "NO CALL"
    text = (
        f"workbench serve-mcp: {verdict}: {calls} call(s), {errors} error(s) served, "
        f"fixtureMissCount {summary['fixtureMissCount']}"
    )
    if stopped is not None:
        text += f" (stopped: {stopped})"
    return text
