"""MCP message logs that recorders keep inside a document of their own (SPEC R34): the
messages, each with the way it went, made into the envelopes ``mcp`` reads as a message log."""

from __future__ import annotations

from typing import Any

from .mcp_rpc import is_rpc

__all__ = ["cassette_messages", "is_cassette_log"]

_SENDERS = {"client": "c2s", "server": "s2c"}


def cassette_messages(data: Any) -> list[tuple[str, Any]] | None:
    """mcp-cassette's recording (``{"format_version", "transport", "messages": [{"seq",
    "sender": "client" | "server", "kind", "method", "msg_id", "payload"}]}``), an mcp-vcr
    transcript (``{"meta", "messages": [{"t", "dir": "c2s" | "s2c", "payload"}]}``, in YAML) or
    an mcp-arcade receipt (``{"schema_id": "mcp-arcade.bout/v1", "wire": [{"seq", "direction":
    "out" | "in", "method", "rpc_id", "message"}]}``), as the message log it is, each message in
    an envelope of the way it went; ``None`` for another shape."""
    found = _cassette_log(data)
    if found is None:
        return None
    member, payload = found
    return [
        (
            f"{member}[{index}]",
            {"dir": way, "msg": m[payload], "at": m.get("t_offset_ms", m.get("t"))}
            if isinstance(m, dict) and (way := _way(m)) is not None and payload in m
            else m,
        )
        for index, m in enumerate(data[member])
    ]


_LOGS = (("messages", "payload"), ("wire", "message"))
"""Where a recording keeps its messages, and each message's member holding the JSON-RPC one."""
_DIRECTIONS = {"out": "c2s", "in": "s2c"}
"""mcp-arcade's ways: ``out`` from its client to the server, ``in`` back."""


def _way(message: dict[str, Any]) -> str | None:
    """The way a message went, from its ``sender`` (mcp-cassette), its ``dir`` (mcp-vcr) or its
    ``direction`` (mcp-arcade) (``None``: none, or not one of these: the message is then a
    problem, as one with no envelope)."""
    sender = message.get("sender")
    if type(sender) is str:
        return _SENDERS.get(sender)
    direction = message.get("direction")
    if type(direction) is str:
        return _DIRECTIONS.get(direction)
    way = message.get("dir")
    return way if way in ("c2s", "s2c") else None


def _cassette_log(data: Any) -> tuple[str, str] | None:
    """Where ``data`` keeps a recorded message log (its member, and each message's payload
    member): some message is JSON-RPC with the way it went (what the sniff asks, without
    building the log); ``None`` for another shape."""
    if not isinstance(data, dict):
        return None
    for member, payload in _LOGS:
        messages = data.get(member)
        if isinstance(messages, list) and any(
            isinstance(m, dict) and _way(m) is not None and is_rpc(m.get(payload)) for m in messages
        ):
            return member, payload
    return None


def is_cassette_log(data: Any) -> bool:
    """Whether ``data`` is one of the recordings :func:`cassette_messages` reads."""
    return _cassette_log(data) is not None
