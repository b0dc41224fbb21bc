"""One MCP ``tools/call`` as the workbench reads it from any recorder (``mcp``): whether a
message is JSON-RPC 2.0 (``is_rpc``) and calls one of MCP's methods (``is_mcp_request``), the
request made a call on the pairer (``rpc_call``: tool ``params.name``, args ``params.arguments``,
its ``rpcId`` and ``_meta`` on ``extra``), and the reply its result (``rpc_reply``: a JSON-RPC
``error`` is a failure, its ``code`` the ``error_code``; a ``result`` is the ``CallToolResult``,
failed by ``isError: true``); and a recorded latency in milliseconds (``milliseconds``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .._common.toolresult import result_text
from .common import is_block_list, read_flag, refuse_result, refuse_wrong_args
from .pairing import CallPairer
from .records import PromotedRun, ToolBoundary

__all__ = [
    "RPC",
    "call_result",
    "is_mcp_request",
    "is_rpc",
    "milliseconds",
    "rpc_call",
    "rpc_reply",
    "session_run",
]


RPC = "jsonrpc"
"""The member every JSON-RPC 2.0 message has."""


def is_rpc(message: Any) -> bool:
    return isinstance(message, dict) and message.get(RPC) == "2.0"


_MCP_METHODS = ("initialize", "ping")
_MCP_METHOD_FAMILIES = (
    "tools/",
    "resources/",
    "prompts/",
    "notifications/",
    "logging/",
    "completion/",
    "sampling/",
    "roots/",
    "elicitation/",
)
"""MCP's request and notification methods. Other protocols speak JSON-RPC 2.0 too: A2A's
``message/send``, ``message/stream`` and ``tasks/get`` are not MCP traffic."""


def is_mcp_request(message: Any) -> bool:
    """A JSON-RPC message that calls one of MCP's methods."""
    if not is_rpc(message):
        return False
    method = message.get("method")
    return isinstance(method, str) and (
        method in _MCP_METHODS or method.startswith(_MCP_METHOD_FAMILIES)
    )


def milliseconds(value: Any) -> int | None:
    """A recorded latency in whole milliseconds (``None`` for anything but a finite number)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 1e12:
        return None
    return round(value)


def rpc_call(request: Mapping[str, Any], call_id: str, pairer: CallPairer, where: str) -> bool:
    params = request.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    if not isinstance(name, str) or not name:
        pairer.problem(where, "request.params.name", "missing or not a string")
        return False
    args = params.get("arguments") if isinstance(params, dict) else None
    if refuse_wrong_args(args, Mapping, pairer, call_id, where, "request.params.arguments"):
        return False  # R35: MCP's CallToolRequest sends an object
    extra = {"rpcId": request.get("id")}
    if isinstance(params, dict):  # _meta, and what a client put beside the name (R4)
        extra.update({k: v for k, v in params.items() if k not in ("name", "arguments")})
    pairer.call(call_id, name, args, where=where, field_name="request.id", extra=extra)
    return True


def rpc_reply(
    reply: Mapping[str, Any], call_id: str, pairer: CallPairer, where: str, took: int | None = None
) -> None:
    error = reply.get("error")
    if error is not None:
        code = error.get("code") if isinstance(error, dict) else None
        message = error.get("message") if isinstance(error, dict) else None
        pairer.result(
            call_id,
            error,
            True,
            where=where,
            field_name="response.error",
            error_code=str(code) if code is not None else None,
            error_message=message if isinstance(message, str) else json.dumps(error)[:200],
            duration_ms=took,
            extra={"jsonrpcError": error},
        )
        return
    result = reply.get("result")
    if not isinstance(result, dict):
        pairer.problem(where, "response.result", "a tools/call reply needs a result or an error")
        pairer.discard(call_id)
        return
    read = call_result(result, call_id, pairer, where, "response.result")
    if read is None:
        return
    failed, text = read
    pairer.result(
        call_id,
        result,
        failed,
        where=where,
        field_name="response.id",
        error_message=(text or "tool call failed") if failed else None,
        duration_ms=took,
    )


def call_result(
    result: Mapping[str, Any],
    call_id: str,
    pairer: CallPairer,
    where: str,
    field: str,
    line: int | None = None,
) -> tuple[bool, str] | None:
    """A ``CallToolResult``'s failure flag (``isError``, strictly: R35) and its content's text;
    ``None`` when either is of a type MCP never writes (the problem reported at ``field``, the
    call discarded: never served as an empty success). No ``content`` at all is read (2024
    servers answered ``toolResult``)."""
    failed = read_flag(result.get("isError"), pairer, where, f"{field}.isError")
    if failed is None:
        pairer.discard(call_id)
        return None
    content = result.get("content")
    if "content" in result and not is_block_list(content):
        said = "not a list of content blocks"
        refuse_result(pairer, call_id, where, f"{field}.content", said, line)
        return None
    return failed, result_text(content) if isinstance(content, list) else ""


def session_run(
    file: str, boundaries: tuple[ToolBoundary, ...], metadata: dict[str, Any]
) -> PromotedRun:
    """An MCP session's one run (a recorder's cassette or log): named ``mcp-session``."""
    return PromotedRun(
        run_id="mcp-session",
        boundaries=boundaries,
        source=file,
        format="mcp",
        task_key="session",
        metadata=metadata,
    )
