"""mcp-debug's session recordings (``mcp-debug --proxy --record session.jsonl``) as one ``mcp``
run (SPEC R34-R36).

mcp-debug, a Go proxy in front of MCP servers, writes the tool calls passing through it: ``#``
comment lines (``# MCP Recording Session``, ``# Started: ...``), a header line ``{"start_time",
"server_info", "messages": []}``, then a line per message ``{"timestamp", "direction": "request"
| "response", "message_type": "tool_call", "tool_name", "server_name", "message"}``. A
request's ``message`` is mcp-go's ``CallToolRequest`` (``{"method": "tools/call", "params":
{"name", "arguments"}}``), a response's its ``CallToolResult`` (``{"content", "isError"}``,
``isError`` left out when false, as mcp-go's ``NewToolResultError`` sets it).

Neither carries a JSON-RPC id. Calls made at once are recorded interleaved (mcp-go runs each in
its own goroutine), so a response answers the oldest open request of its envelope's
``tool_name`` (which both sides carry; the request's ``params.name`` is the name the client
called, which for a static server's tool is its prefix's, not the envelope's). The call is
``params.name`` (else ``tool_name``) with ``params.arguments``; ``server_name`` and the
envelope's ``tool_name`` are on ``extra``; the two timestamps give its duration. A response
with no open request of its tool, a request never answered, a line that is not such a message
and an ``isError`` that is no boolean are problems naming the line and field. The comment lines
and the header are counted as known non-tool records (``log:comment``, ``log:header``; the
header's ``start_time`` and ``server_info`` are the run's ``metadata.recording``), and a message
of a ``message_type`` other than ``tool_call`` as ``message:<type>``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from .._common.jsonio import json_text
from .common import RecordTally, duration_ms
from .mcp_rpc import call_result, session_run
from .pairing import CallPairer
from .reading import decode_json_lines
from .records import LoadProblem, PromotedRun

__all__ = ["is_mcp_debug_head", "load_mcp_debug", "load_mcp_debug_bytes", "sniff_mcp_debug"]

_HEADER_KEYS = ("start_time", "server_info", "messages")
_DIRECTIONS = ("request", "response")


def _is_header(record: Any) -> bool:
    return (
        isinstance(record, dict)
        and "direction" not in record
        and all(key in record for key in _HEADER_KEYS)
    )


def _is_message(record: Any) -> bool:
    return (
        isinstance(record, dict)
        and record.get("direction") in _DIRECTIONS
        and "message_type" in record
        and "message" in record
    )


def sniff_mcp_debug(heads: Sequence[Any]) -> bool:
    """Whether a JSONL file's first records are mcp-debug's: its header, or a message line."""
    return bool(heads) and (_is_header(heads[0]) or _is_message(heads[0]))


def is_mcp_debug_head(head: bytes) -> bool:
    """Whether a file's first bytes are mcp-debug's recording: ``#`` comment lines, then its
    header or a message line (cut off by the end of ``head``: begun as one)."""
    commented = False
    for raw in head.split(b"\n"):
        line = raw.strip()
        if not line:
            continue
        if line.startswith(b"#"):
            commented = True
            continue
        if not commented:
            return False
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            return line.startswith((b'{"start_time":', b'{"timestamp":')) and len(raw) > 64
        return _is_header(record) or _is_message(record)
    return False


def load_mcp_debug_bytes(data: bytes, file: str) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """A recording as mcp-debug writes it, comment lines and all (line numbers kept)."""
    kept: list[bytes] = []
    comments = 0
    for raw in data.split(b"\n"):
        if raw.strip().startswith(b"#"):
            comments += 1
            kept.append(b"")  # a blank line: the lines after keep their numbers
        else:
            kept.append(raw)
    docs, problems = decode_json_lines(b"\n".join(kept), file)
    runs, more = load_mcp_debug(docs, file, comments=comments)
    return runs, [*problems, *more]


def load_mcp_debug(
    docs: Sequence[tuple[int, Any]], file: str, *, comments: int = 0
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """The decoded lines ``(line number, record)`` of a recording (``comments``: how many
    comment lines it had, counted as known records)."""
    pairer = CallPairer(file)
    tally = RecordTally()
    if comments:
        tally.counts["log:comment"] = comments
    recording: dict[str, Any] = {}
    waiting: dict[str, deque[tuple[str, Any]]] = {}  # tool_name -> open calls, sent at
    for number, record in docs:
        where = f"line {number}"
        if _is_header(record):
            tally.add("log:header")
            _header(record, recording, pairer, where, number)
            continue
        if not isinstance(record, dict):
            pairer.problem(
                where, "", f"a line must be an object, not {json_text(record)[:40]}", number
            )
            continue
        if not _checked(record, pairer, where, number):
            continue
        kind = record["message_type"]
        if kind != "tool_call":
            tally.add(f"message:{kind}")
            continue
        tool_name: str = record["tool_name"]
        queue = waiting.setdefault(tool_name, deque())
        if record["direction"] == "request":
            tally.add("request")
            call_id = f"line-{number}"
            if _call(record, call_id, pairer, where, number):
                queue.append((call_id, record.get("timestamp")))
            continue
        tally.add("response")
        if not queue:
            said = f"a response of {tool_name!r} with no request of that tool waiting for one"
            pairer.problem(where, "tool_name", said, number)
            continue
        call_id, sent = queue.popleft()
        _reply(record, call_id, sent, pairer, where, number)
    boundaries = pairer.finish()
    metadata: dict[str, Any] = {"recorder": "mcp-debug"}
    if recording:
        metadata["recording"] = recording
    metadata.update(tally.to_metadata())
    return [session_run(file, boundaries, metadata)], pairer.problems


def _header(
    record: Mapping[str, Any], recording: dict[str, Any], pairer: CallPairer, where: str, line: int
) -> None:
    """The header line: its start and server on ``recording``. mcp-debug writes its messages
    as lines after it (``messages`` is always ``[]``): any held here are not read, a problem."""
    for key in ("start_time", "server_info"):
        if isinstance(record.get(key), str):
            recording.setdefault(key, record[key])
    messages = record.get("messages")
    if messages is not None and messages != []:
        said = "mcp-debug's header holds no messages (they are the lines after it); not read"
        pairer.problem(where, "messages", said, line)


def _checked(record: Mapping[str, Any], pairer: CallPairer, where: str, line: int) -> bool:
    """Whether a line is a message line of the right shape (else its problem is reported)."""
    direction = record.get("direction")
    if direction not in _DIRECTIONS:
        said = 'a message line needs "direction": "request" or "response"'
        pairer.problem(where, "direction", f"{said}, not {json_text(direction)[:40]}", line)
        return False
    for key in ("message_type", "tool_name"):
        value = record.get(key)
        if not isinstance(value, str) or not value:
            pairer.problem(
                where, key, f"must be a non-empty string, not {json_text(value)[:40]}", line
            )
            return False
    if not isinstance(record.get("message"), dict):
        said = (
            f"must be the recorded message, an object, not {json_text(record.get('message'))[:40]}"
        )
        pairer.problem(where, "message", said, line)
        return False
    return True


def _call(
    record: Mapping[str, Any], call_id: str, pairer: CallPairer, where: str, line: int
) -> bool:
    params = record["message"].get("params")
    if params is not None and not isinstance(params, dict):
        pairer.problem(where, "message.params", "must be an object (name, arguments)", line)
        return False
    params = params or {}
    name = params.get("name", record["tool_name"])
    if not isinstance(name, str) or not name:
        pairer.problem(where, "message.params.name", "must be a non-empty string", line)
        return False
    args = params.get("arguments")
    if args is not None and not isinstance(args, dict):
        said = f"must be an object, not {json_text(args)[:40]}"
        pairer.problem(where, "message.params.arguments", said, line)
        return False
    extra = {"server": record.get("server_name"), "recordedToolName": record["tool_name"]}
    extra.update({k: v for k, v in params.items() if k not in ("name", "arguments")})
    pairer.call(call_id, name, args, where=where, field_name="message", line=line, extra=extra)
    return True


def _reply(
    record: Mapping[str, Any],
    call_id: str,
    sent: Any,
    pairer: CallPairer,
    where: str,
    line: int,
) -> None:
    result = record["message"]
    read = call_result(result, call_id, pairer, where, "message", line)
    if read is None:
        return
    failed, text = read
    took = duration_ms(sent, record.get("timestamp"))
    pairer.result(
        call_id,
        result,
        failed,
        where=where,
        field_name="message",
        line=line,
        error_message=(text or "tool call failed") if failed else None,
        duration_ms=took,
    )
