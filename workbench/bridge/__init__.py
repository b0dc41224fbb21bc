"""The MCP bridge: serve recorded fixtures over MCP, record live MCP servers, and replay agents
built on the MCP SDK's client (needs the ``mcp`` extra: ``pip install 'workbench[mcp]'``).

The protocol is the official SDK's server (``mcp.server.lowlevel.Server``) on both transports;
the name mapping needs no SDK. Names are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._common.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "DEFAULT_AGENT_ID": "_server",
    "McpBridge": "_server",
    "McpClientAgent": "_client_agent",
    "Recording": "_record",
    "StopReason": "_stdio",
    "bind_socket": "_server",
    "catalogue_tools": "_names",
    "infer_input_schema": "_names",
    "mcp_tool_names": "_names",
    "record_mcp": "_record",
    "recording_text": "_record",
    "summary_line": "_server",
    "task_tool_specs": "_names",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


if TYPE_CHECKING:
    from ._client_agent import (
        McpClientAgent as McpClientAgent,
    )
    from ._names import (
        catalogue_tools as catalogue_tools,
    )
    from ._names import (
        infer_input_schema as infer_input_schema,
    )
    from ._names import (
        mcp_tool_names as mcp_tool_names,
    )
    from ._names import (
        task_tool_specs as task_tool_specs,
    )
    from ._record import (
        Recording as Recording,
    )
    from ._record import (
        record_mcp as record_mcp,
    )
    from ._record import (
        recording_text as recording_text,
    )
    from ._server import (
        DEFAULT_AGENT_ID as DEFAULT_AGENT_ID,
    )
    from ._server import (
        McpBridge as McpBridge,
    )
    from ._server import (
        bind_socket as bind_socket,
    )
    from ._server import (
        summary_line as summary_line,
    )
    from ._stdio import (
        StopReason as StopReason,
    )
