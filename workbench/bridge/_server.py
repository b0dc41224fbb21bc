"""The MCP bridge: a suite task's fixture tools served as an MCP server (SPEC R12-R22, R17).

:class:`McpBridge` opens one trial of one task on a :class:`~workbench.ReplaySession` and serves
its fixture tools over MCP. Each ``tools/call`` is answered by ``host.call`` on the trial's
:class:`~workbench.FixtureHost`, the same code an in-process replay runs: a success entry returns
its ``CallToolResult``; an ``isError`` entry returns ``isError: true`` with its content (a tool
execution error, not a JSON-RPC error); a miss follows ``onMiss`` (R16). A call to a tool the
task does not list is a miss too, answered as a tool error like any miss (the SDK's own
``MCPServer`` also answers an unknown tool with ``isError: true``). The event log is the
session's, so it is the log an in-process replay writes for the same calls (R18-R22); on
shutdown :meth:`McpBridge.finish` scores the trial and builds the summary (with
``fixtureMissCount``).

Transports: stdio and streamable HTTP on 127.0.0.1 unless told otherwise, each in two
implementations that serve calls through the same :meth:`McpBridge.call`: the lean ones
(:meth:`McpBridge.serve_stdio`, ``run_http(impl="lean")``; :mod:`workbench.bridge._lean`), the
default, and the SDK's (:meth:`McpBridge.run_stdio`, ``run_http(impl="sdk")``). Needs the ``mcp``
extra (``pip install workbench[mcp]``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, Literal

import mcp_types as types
import uvicorn
from mcp.server.lowlevel import Server
from pydantic import ValidationError

from .._common.toolresult import ToolResult, text_content
from .._replay.agents import Decision
from .._replay.host import FixtureHost
from .._replay.options import LiveTool
from .._replay.results import ReplayResult
from .._replay.session import ReplaySession
from .._suite.capabilities import HostProfile
from .._suite.model import Suite
from ._lean import LeanHttpApp, LeanProtocol, serve_stdio
from ._names import ToolSpec, task_tool_specs

if TYPE_CHECKING:
    from starlette.applications import Starlette

__all__ = [
    "DEFAULT_AGENT_ID",
    "DEFAULT_TRANSPORT_IMPL",
    "McpBridge",
    "TransportImpl",
    "build_tool_server",
    "call_tool_result_body",
    "to_call_tool_result",
]

DEFAULT_AGENT_ID = "workbench.mcp-agent"
"""The agent id the bridge writes on agent events unless told another."""

ToolCaller = Callable[[str, dict[str, Any]], ToolResult]
"""Serves one call by MCP name and arguments."""

TransportImpl = Literal["lean", "sdk"]
"""How a transport is served: ``"lean"``, the bridge's own handshake-era JSON-RPC loop
(:mod:`workbench.bridge._lean`), or ``"sdk"``, the SDK's low-level ``Server`` and transports."""

DEFAULT_TRANSPORT_IMPL: TransportImpl = "lean"
"""The lean transports by default: the SDK's server costs several times the call itself."""


def to_call_tool_result(result: ToolResult) -> types.CallToolResult:
    """The SDK's ``CallToolResult`` for a host result: content, ``isError``, structured content.

    Content that is not valid MCP content (a recording may hold anything) is sent as one text
    block holding the R17 text, so the client still gets the failure, or the text, it recorded.
    """
    try:
        return types.CallToolResult.model_validate(result.to_mcp())
    except ValidationError:
        text = result.error if result.is_error else result.text
        body: dict[str, Any] = {"content": text_content(text or ""), "isError": result.is_error}
        return types.CallToolResult.model_validate(body)


def call_tool_result_body(result: ToolResult) -> dict[str, Any]:
    """The ``CallToolResult`` JSON body the SDK path sends for a host result (both paths send
    this: the lean transports build it with the same SDK model, so the shapes cannot drift)."""
    return to_call_tool_result(result).model_dump(
        mode="json", by_alias=True, exclude_unset=True, exclude_none=True
    )


def tool_bodies(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """The ``tools/list`` entries as the SDK sends them (validated by the SDK's ``Tool``)."""
    return [
        types.Tool.model_validate(t).model_dump(mode="json", by_alias=True, exclude_none=True)
        for t in tools
    ]


def build_tool_server(
    name: str,
    tools: Sequence[ToolSpec],
    call: ToolCaller,
    *,
    version: str = "",
    instructions: str | None = None,
) -> Server[Any]:
    """A low-level MCP server listing ``tools`` and answering every ``tools/call`` with ``call``."""
    listed = types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in tools])

    async def on_list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listed

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return to_call_tool_result(call(params.name, dict(params.arguments or {})))

    return Server(
        name,
        version=version,
        instructions=instructions,
        on_list_tools=on_list_tools,
        on_call_tool=on_call_tool,
    )


def _first_task_id(suite: Suite) -> str:
    tasks = suite.tasks
    if len(tasks) != 1:
        ids = ", ".join(str(t.get("taskId")) for t in tasks) or "none"
        raise ValueError(f"the suite has {len(tasks)} tasks ({ids}); name the one to serve")
    return str(tasks[0].get("taskId", "task-0"))


class McpBridge:
    """One trial of one task served over MCP, recorded as a replay (see the module docstring).

    ``catalogue`` gives tool definitions (input schemas, descriptions) by tool id or MCP name;
    without it a tool's schema comes from the suite's ``x-mcpTools`` or is inferred from the
    recorded args (:mod:`workbench.bridge._names`). ``agent_id`` is written on the agent events
    (pass the in-process agent's id to compare logs with an in-process replay).
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
        """The MCP tool definitions listed (MCP names)."""
        self.tool_ids: dict[str, str] = ids
        """``{MCP name: tool id}``: how a call's name maps back to the suite's tool id."""
        self.host: FixtureHost = self.session.begin_trial(chosen, trial)
        """The trial's fixture host: every call is served by ``host.call``."""
        self._result: ReplayResult | None = None
        instructions = f"Recorded tools of task {chosen!r} of suite {the_suite.suite_id!r}."
        self.server: Server[Any] = build_tool_server(
            server_name, specs, self.call, version=the_suite.version, instructions=instructions
        )
        """The SDK's low-level MCP server (the ``"sdk"`` transports and in-process clients)."""
        self.protocol = LeanProtocol(
            name=server_name,
            version=the_suite.version,
            instructions=instructions,
            tools=tool_bodies(specs),
            call=self.call,
            shape=call_tool_result_body,
        )
        """The lean transports' JSON-RPC handler: the same tools, the same :meth:`call`."""

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> ToolResult:
        """Serve one call by its MCP name: mapped back to the tool id, served by the host."""
        if self._result is not None:
            return ToolResult.failure("the replay has finished", code="workbench.finished")
        return self.host.call(self.tool_ids.get(name, name), arguments or {})

    @property
    def result(self) -> ReplayResult | None:
        """The replay's result once :meth:`finish` has run."""
        return self._result

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
        """:meth:`finish`, then write the event log (JSONL) and the summary (JSON), atomically
        (``overwrite``: see :meth:`~workbench.ReplayResult.write_events`)."""
        result = self.finish()
        if events is not None:
            result.write_events(events, overwrite=overwrite)
        if summary is not None:
            result.write_summary(summary, overwrite=overwrite)
        return result

    def serve_stdio(self, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None) -> None:
        """Serve over stdin/stdout with the lean transport until the client closes stdin;
        blocking (SIGINT and SIGTERM raise ``KeyboardInterrupt``). The default transport."""
        serve_stdio(
            self.protocol,
            stdin if stdin is not None else sys.stdin.buffer,
            stdout if stdout is not None else sys.stdout.buffer,
        )

    async def run_stdio(self) -> None:
        """Serve over stdin/stdout with the SDK's server and stdio transport until the client
        closes stdin (or the task is cancelled)."""
        from mcp.server.stdio import stdio_server

        async with stdio_server() as (read_stream, write_stream):
            await self.server.run(
                read_stream, write_stream, self.server.create_initialization_options()
            )

    def http_app(
        self,
        *,
        host: str = "127.0.0.1",
        path: str = "/mcp",
        impl: TransportImpl = DEFAULT_TRANSPORT_IMPL,
    ) -> LeanHttpApp | Starlette:
        """The streamable-HTTP ASGI app (JSON responses; DNS-rebinding protection on loopback):
        the lean app by default, the SDK's with ``impl="sdk"``."""
        if impl == "lean":
            return LeanHttpApp(self.protocol, host=host, path=path)
        return self.server.streamable_http_app(
            streamable_http_path=path, json_response=True, host=host
        )

    async def run_http(
        self,
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        path: str = "/mcp",
        on_ready: Callable[[str], Awaitable[None] | None] | None = None,
        impl: TransportImpl = DEFAULT_TRANSPORT_IMPL,
    ) -> None:
        """Serve streamable HTTP on ``host:port`` until SIGINT/SIGTERM; ``on_ready(url)`` is
        called once the socket listens. ``impl`` picks the lean app or the SDK's."""
        config = uvicorn.Config(
            self.http_app(host=host, path=path, impl=impl),
            host=host,
            port=port,
            log_level="warning",
            access_log=False,
            lifespan="on" if impl == "sdk" else "off",
            server_header=impl == "sdk",
            date_header=impl == "sdk",
        )
        server = _QuietExitServer(config)
        if on_ready is None:
            await server.serve()
            return
        import anyio

        async with anyio.create_task_group() as group:
            group.start_soon(server.serve)
            for _ in range(2000):  # bounded: 20 s for the socket to listen
                if server.started:
                    break
                await anyio.sleep(0.01)
            if server.started:
                bound = port
                for srv in getattr(server, "servers", []):
                    for sock in getattr(srv, "sockets", []):
                        bound = sock.getsockname()[1]
                shown = f"[{host}]" if ":" in host else host
                maybe = on_ready(f"http://{shown}:{bound}{path}")
                if maybe is not None:
                    await maybe


class _QuietExitServer(uvicorn.Server):
    """uvicorn's server, except that SIGINT/SIGTERM only stop it: uvicorn re-raises the
    signal after a graceful shutdown, which would end the process before the bridge writes
    its event log and summary."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        handled = (signal.SIGINT, signal.SIGTERM)
        original = {sig: signal.signal(sig, self.handle_exit) for sig in handled}
        try:
            yield
        finally:
            for sig, handler in original.items():
                signal.signal(sig, handler)


def summary_line(result: ReplayResult) -> str:
    """One line for stderr: the task, calls, errors served, misses, pass/fail."""
    summary = result.summary
    task = result.tasks[0] if result.tasks else None
    calls = sum(len(t.calls) for t in task.trials) if task else 0
    errors = sum(t.errors_served for t in task.trials) if task else 0
    verdict = "PASSED" if result.passed else "FAILED"
    return (
        f"workbench serve-mcp: {verdict}: {calls} call(s), {errors} error(s) served, "
        f"fixtureMissCount {summary['fixtureMissCount']}"
    )


def _stderr(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
