"""An agent built on the MCP SDK's client, replayed in process and in sweeps (SPEC R25).

:class:`McpClientAgent` wraps an async function ``agent(task_input, client) -> decision`` whose
``client`` is the SDK's :class:`mcp.Client`. For each trial it serves the trial's tool interface
(the :class:`~workbench.FixtureHost`) as an in-process MCP server, the same server the bridge
runs (:func:`~workbench.bridge._server.build_tool_server`), connects a ``Client`` to it, and
awaits the function. Every ``client.call_tool`` is served by ``host.call``, so the trial's event
log, trajectory and grading are those of any in-process replay; an ``isError`` fixture comes
back as a ``CallToolResult`` with ``is_error=True``, exactly as a live server's failure would,
and a recorded JSON-RPC error as a tool error with its message (an in-process agent, R17, R42).

Tool names on the client are the bridge's MCP names (``billing:lookup`` is ``billing_lookup``,
see :mod:`workbench.bridge._names`); the host records the original ids.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import anyio

from .._replay.agents import Decision, ToolInterface, as_decision
from ._names import catalogue_tools, infer_input_schema, mcp_tool_names
from ._server import build_tool_server, result_body

if TYPE_CHECKING:
    from mcp import Client

__all__ = ["McpAgentFunction", "McpClientAgent"]

McpAgentFunction = Callable[[Any, "Client"], Awaitable[Decision | Mapping[str, Any] | Any]]
"""``async def agent(task_input, client) -> Decision`` (or ``{"outcome", "answer"}``)."""


class McpClientAgent:
    """An :class:`~workbench.Agent` whose logic drives an MCP client session (see the module).

    ``mode`` is the SDK client's connect mode: ``"auto"`` (default; in process this dispatches
    directly) or ``"legacy"`` (the initialize handshake and JSON-RPC framing over memory
    streams, as over a real transport). ``catalogue`` gives tool definitions (input schemas) by
    tool id or MCP name; otherwise a tool's schema is an open object schema. ``timeout`` bounds
    each trial, in seconds.
    """

    def __init__(
        self,
        agent: McpAgentFunction,
        *,
        agent_id: str = "workbench.mcp-client-agent",
        mode: str = "auto",
        catalogue: Any = None,
        timeout: float = 60.0,
    ) -> None:
        self.agent = agent
        """The async agent function."""
        self.agent_id = agent_id
        """The id written on the agent events."""
        self.mode = mode
        """The SDK client's connect mode."""
        self.timeout = timeout
        """Seconds a trial may take."""
        self._catalogue = catalogue_tools(catalogue) if catalogue is not None else {}

    def _tools(self, tool_ids: tuple[str, ...]) -> tuple[list[dict[str, Any]], dict[str, str]]:
        names = mcp_tool_names(tool_ids)
        specs: list[dict[str, Any]] = []
        for tool_id in tool_ids:
            name = names[tool_id]
            known = self._catalogue.get(tool_id) or self._catalogue.get(name) or {}
            schema = known.get("inputSchema", known.get("input_schema"))
            spec: dict[str, Any] = {
                "name": name,
                "inputSchema": dict(schema)
                if isinstance(schema, Mapping)
                else infer_input_schema([]),
            }
            if isinstance(known.get("description"), str):
                spec["description"] = known["description"]
            specs.append(spec)
        return specs, {name: tool_id for tool_id, name in names.items()}

    async def _run_async(self, task_input: Any, tools: ToolInterface) -> Any:
        from mcp import Client

        specs, ids = self._tools(tuple(tools.tool_names))

        def call(name: str, arguments: dict[str, Any]) -> Mapping[str, Any]:
            return result_body(tools.call(ids.get(name, name), arguments))

        server = build_tool_server("workbench-replay", specs, call)
        with anyio.fail_after(self.timeout):
            async with Client(server, mode=self.mode, cache=None) as client:
                return await self.agent(task_input, client)

    def run(self, task_input: Any, tools: ToolInterface) -> Decision:
        """Run one trial: the agent function against an MCP client of the trial's tools.

        Called from code that already runs an event loop (a notebook cell), the trial runs on
        a worker thread with its own loop.
        """
        if _loop_running():
            box: dict[str, Any] = {}

            def work() -> None:
                try:
                    box["value"] = anyio.run(self._run_async, task_input, tools)
                except BaseException as exc:  # re-raised on the caller's thread
                    box["error"] = exc

            worker = threading.Thread(target=work, name="mcp-client-agent", daemon=True)
            worker.start()
            worker.join(self.timeout + 5.0)
            if worker.is_alive():
                raise TimeoutError(f"the MCP client agent took more than {self.timeout} s")
            if "error" in box:
                raise box["error"]
            return as_decision(box["value"])
        return as_decision(anyio.run(self._run_async, task_input, tools))


def _loop_running() -> bool:
    import asyncio

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True
