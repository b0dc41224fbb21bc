"""The MCP bridge: serve recorded fixtures over MCP, record live MCP servers, and replay agents
built on the MCP SDK's client (needs the ``mcp`` extra: ``pip install 'workbench[mcp]'``).

The name mapping and the recorder need no SDK; the server and the client agent import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._names import catalogue_tools, infer_input_schema, mcp_tool_names, task_tool_specs
from ._record import Recording, record_mcp

if TYPE_CHECKING:
    from ._client_agent import McpClientAgent
    from ._server import McpBridge

__all__ = [
    "McpBridge",
    "McpClientAgent",
    "Recording",
    "catalogue_tools",
    "infer_input_schema",
    "mcp_tool_names",
    "record_mcp",
    "task_tool_specs",
]


def __getattr__(name: str) -> Any:
    if name == "McpBridge":
        from ._server import McpBridge

        return McpBridge
    if name == "McpClientAgent":
        from ._client_agent import McpClientAgent

        return McpClientAgent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
