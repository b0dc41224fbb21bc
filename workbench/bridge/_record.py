"""Recording a live MCP server: a stdio proxy that writes an OpenWOP v2 event log (SPEC R1, R3).

``record_mcp(command, out)`` starts the server ``command`` and passes every JSON-RPC message
between the client (on this process's stdin/stdout) and the server unchanged, line by line. It
watches the ``tools/call`` requests and their responses and writes each answered call as an
``agent.tool-called`` / ``agent.tool-returned`` pair (written when the answer arrives, so a call
the server never answered leaves no half pair for the loader to refuse), so
:func:`workbench.load_runs` reads the recording as one promoted run:

- a result (``isError`` false or true) is kept whole as the event's ``outcome``, the server's
  ``CallToolResult`` as it came (``isError`` passes through unaltered); an ``isError: true``
  result also gets ``status: "error"``, and the loader reads it as a failed boundary (R3);
- a JSON-RPC error (a protocol error: unknown tool, bad params, a server crash) is a failed
  boundary of another kind: ``error`` ``{"code": "jsonrpc.<code>", "message", "details":
  {"jsonrpcCode", "data"?}}`` and ``status: "error"``, no ``outcome``; so the two kinds stay
  distinct on the log and in the boundary table (``error_code``).

The proxy needs no MCP SDK: it reads the wire (newline-delimited JSON-RPC, batches included), so
it records any protocol version. It never changes a message. The last ``tools/list`` result is
kept as the run's tool catalogue (``catalogue`` of :class:`Recording`; the CLI can write it for
``serve-mcp --tools``). Timestamps are wall-clock and ``durationMs`` is measured: a recording is
a record of something that happened, not a deterministic replay.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from .._common.markers import is_event_log_file
from .._common.outputs import check_output
from .._replay.events import EventLog

__all__ = ["RECORDER_AGENT_ID", "Recording", "record_mcp"]

RECORDER_AGENT_ID = "mcp-client"
"""The agent id on a recording's events (the proxy cannot see who the client is)."""


@dataclass(slots=True)
class Recording:
    """What a recording session saw."""

    events: list[dict[str, Any]]
    """The OpenWOP v2 event log written."""
    calls: int = 0
    """``tools/call`` requests answered."""
    tool_errors: int = 0
    """Answers with ``isError: true``."""
    protocol_errors: int = 0
    """JSON-RPC error answers to ``tools/call``."""
    unanswered: int = 0
    """``tools/call`` requests with no answer when the session ended (not written)."""
    catalogue: dict[str, Any] | None = None
    """The server's last ``tools/list`` result (``{"tools": [...]}``), when the client asked."""
    returncode: int | None = None
    """The server process's exit code."""
    problems: list[str] = field(default_factory=list)
    """Lines that were not JSON (passed through, not recorded)."""


class _Recorder:
    def __init__(self, log: EventLog, agent_id: str) -> None:
        self.log = log
        self.agent_id = agent_id
        self.lock = threading.Lock()
        self.pending: dict[str, tuple[str, Any, Any, float]] = {}
        self.list_ids: set[str] = set()
        self.recording = Recording(events=log.events)
        self.invocation = "inv-mcp-0"

    @staticmethod
    def _key(message_id: Any) -> str:
        return json.dumps(message_id, sort_keys=True)

    def client_message(self, message: Any) -> None:
        if not isinstance(message, Mapping) or "id" not in message:
            return
        method = message.get("method")
        key = self._key(message["id"])
        if method == "tools/list":
            with self.lock:
                self.list_ids.add(key)
            return
        if method != "tools/call":
            return
        params = message.get("params")
        params = params if isinstance(params, Mapping) else {}
        tool = params.get("name")
        tool = tool if isinstance(tool, str) and tool else "unknown"
        arguments = params.get("arguments", {})
        with self.lock:
            self.pending[key] = (tool, arguments, message["id"], time.perf_counter())

    def server_message(self, message: Any) -> None:
        if not isinstance(message, Mapping) or "id" not in message or "method" in message:
            return
        key = self._key(message["id"])
        with self.lock:
            if key in self.list_ids:
                self.list_ids.discard(key)
                result = message.get("result")
                if isinstance(result, Mapping) and isinstance(result.get("tools"), list):
                    self.recording.catalogue = {"tools": result["tools"]}
                return
            pending = self.pending.pop(key, None)
            if pending is None:
                return
            tool, arguments, jsonrpc_id, started = pending
            call_id = f"mcp-{self.recording.calls}"
            self.log.emit(
                "agent.tool-called",
                {
                    "agentId": self.agent_id,
                    "toolName": tool,
                    "callId": call_id,
                    "inputs": arguments if arguments is not None else {},
                    "transport": "mcp",
                    "x-jsonrpcId": jsonrpc_id,
                },
            )
            payload: dict[str, Any] = {
                "agentId": self.agent_id,
                "toolName": tool,
                "callId": call_id,
            }
            error = message.get("error")
            if "result" in message and error is None:
                result = message["result"]
                payload["outcome"] = result
                failed = isinstance(result, Mapping) and result.get("isError") is True
                payload["status"] = "error" if failed else "ok"
                if failed:
                    self.recording.tool_errors += 1
            else:
                error = error if isinstance(error, Mapping) else {}
                code = error.get("code")
                text = error.get("message")
                details: dict[str, Any] = {"jsonrpcCode": code}
                if "data" in error:
                    details["data"] = error["data"]
                payload["error"] = {
                    "code": f"jsonrpc.{code}",
                    "message": text if isinstance(text, str) and text else "JSON-RPC error",
                    "details": details,
                }
                payload["status"] = "error"
                self.recording.protocol_errors += 1
            payload["durationMs"] = max(0, round((time.perf_counter() - started) * 1000))
            self.recording.calls += 1
            self.log.emit("agent.tool-returned", payload)

    def finish(self) -> None:
        with self.lock:
            self.recording.unanswered = len(self.pending)
            self.pending.clear()
            self.log.emit(
                "agent.invocation-completed",
                {"invocationId": self.invocation, "agentId": self.agent_id, "outcome": "completed"},
            )


def _messages(line: bytes) -> list[Any] | None:
    try:
        value = json.loads(line)
    except ValueError:
        return None
    return value if isinstance(value, list) else [value]


def _pump(
    source: IO[bytes],
    sink: IO[bytes] | None,
    observe: Any,
    recording: Recording,
    on_eof: Any = None,
) -> None:
    try:
        for line in iter(source.readline, b""):
            if line.strip():
                messages = _messages(line)
                if messages is None:
                    recording.problems.append(line[:200].decode("utf-8", "replace"))
                else:
                    for message in messages:
                        observe(message)
            if sink is not None:
                try:
                    sink.write(line)
                    sink.flush()
                except (BrokenPipeError, ValueError, OSError):
                    sink = None
    finally:
        if on_eof is not None:
            on_eof()


def record_mcp(
    command: Sequence[str],
    out: str | os.PathLike[str] | None = None,
    *,
    stdin: IO[bytes] | None = None,
    stdout: IO[bytes] | None = None,
    agent_id: str = RECORDER_AGENT_ID,
    env: Mapping[str, str] | None = None,
    shutdown_timeout: float = 5.0,
    overwrite: bool = False,
) -> Recording:
    """Run the MCP server ``command`` behind a recording stdio proxy until the client hangs up.

    Messages from ``stdin`` (default: this process's) go to the server and its answers go to
    ``stdout`` (default: this process's); the server's stderr is inherited. When the client
    closes its end, the server's stdin is closed and it gets ``shutdown_timeout`` seconds to
    exit before it is terminated. The event log is written to ``out`` (JSONL, atomically) when
    given, and returned either way. ``out`` is checked before the server starts: an existing
    file that is not an event log the workbench wrote is replaced only with ``overwrite=True``.
    """
    if not command:
        raise ValueError("record-mcp needs the server command to run")
    if out is not None:
        check_output(out, overwrite=overwrite, recognise=is_event_log_file)
    import sys

    client_in = stdin if stdin is not None else sys.stdin.buffer
    client_out = stdout if stdout is not None else sys.stdout.buffer
    started = time.time_ns()
    seed_text = "\0".join(command) + f"\0{started}"
    run_id = "workbench/" + hashlib.sha256(seed_text.encode("utf-8")).hexdigest()[:24]
    log = EventLog(run_id, wall_clock=True)
    recorder = _Recorder(log, agent_id)
    log.emit(
        "agent.invocation-started",
        {
            "invocationId": recorder.invocation,
            "agentId": agent_id,
            "source": "run-api",
            "x-recordedBy": "workbench record-mcp",
            "x-command": list(command),
        },
    )
    process = subprocess.Popen(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=dict(env) if env is not None else None,
        bufsize=0,
    )
    assert process.stdin is not None and process.stdout is not None
    server_in = process.stdin

    def close_server_in() -> None:
        with contextlib.suppress(OSError):
            server_in.close()

    upstream = threading.Thread(
        target=_pump,
        args=(client_in, server_in, recorder.client_message, recorder.recording, close_server_in),
        daemon=True,
    )
    downstream = threading.Thread(
        target=_pump,
        args=(process.stdout, client_out, recorder.server_message, recorder.recording),
        daemon=True,
    )
    upstream.start()
    downstream.start()
    try:
        while upstream.is_alive() and process.poll() is None:
            upstream.join(0.05)
        if process.poll() is None:
            try:
                process.wait(shutdown_timeout)
            except subprocess.TimeoutExpired:
                process.terminate()
                try:
                    process.wait(shutdown_timeout)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        downstream.join(shutdown_timeout)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        recorder.recording.returncode = process.returncode
        recorder.finish()
        if out is not None:
            log.write(out, overwrite=overwrite)
    return recorder.recording


def recording_text(recording: Recording) -> str:
    """A one-line account of a recording, for stderr."""
    text = (
        f"workbench record-mcp: {recording.calls} tools/call answer(s) recorded "
        f"({recording.tool_errors} isError, {recording.protocol_errors} JSON-RPC error)"
    )
    if recording.unanswered:
        text += f", {recording.unanswered} unanswered (not written)"
    return text
