"""Recording a live MCP server: a stdio proxy that writes an OpenWOP v2 event log as it goes
(SPEC R1, R3, R42).

``record_mcp(command, out)`` starts the server ``command`` and passes every byte between the
client (on this process's stdin/stdout) and the server unchanged. It reads the JSON-RPC lines
going by (no SDK needed, any protocol revision, batches included) and writes, **as each happens**,
one event line flushed to the file:

- each answered ``tools/call`` as an ``agent.tool-called`` / ``agent.tool-returned`` pair, in one
  write when the answer arrives (a call never answered leaves no half pair for the loader to
  refuse). ``inputs`` are the arguments as sent; a result (``isError`` false or true) is the
  event's ``outcome`` **exactly as the server sent it** (R42: every member, in its order;
  ``isError`` only if the server sent it); an ``isError: true`` result also gets ``status:
  "error"``, and the loader reads it as a failed boundary (R3);
- a JSON-RPC error reply (unknown tool, bad params, a crash) is a failed boundary of another
  kind: ``error`` ``{"code": "jsonrpc.<code>", "message", "details": {"jsonrpcError": <the
  error object as sent>}}`` and ``status: "error"``, no ``outcome``; promotion serves it back as
  the same JSON-RPC error (:func:`~workbench._common.toolresult.jsonrpc_error_response`);
- each ``tools/list`` answer as a ``workbench.mcp-tools-listed`` event (``cursor`` when the
  request had one, ``result`` as sent): promotion makes it the task's catalogue, so the bridge
  lists what the live server listed.

Each line is recorded before it is passed on, so an answer is on disk before the client can
read it. So a SIGKILL keeps everything up to the last event, every answer the client saw
included (the last line at worst torn, which ``load_runs(strict=False)`` reports and skips),
and SIGTERM, SIGINT and SIGHUP finish the file:
the server is stopped, its last answers are drained and recorded, and the log ends with
``agent.invocation-completed``. When the client hangs up, the server's stdin is closed and it
gets ``shutdown_timeout`` seconds to exit before it is terminated. Reading and writing use raw
file descriptors on daemon threads, so no shutdown path can abort the interpreter on a buffered
stream's lock.

Timestamps are wall-clock and ``durationMs`` is measured: a recording is a record of something
that happened, not a deterministic replay. JSON has no ``NaN`` or ``Infinity``: a server sending
them (Python's ``json.dumps`` does) is recorded with ``null`` in their place, as JavaScript and
the SDK send them; a line that is not JSON at all is passed on and reported, not recorded.

Longer than 400 lines because the proxy, the pairing of requests with answers and the shutdown
paths (client hang-up, server exit, each signal, a kill) only make sense together: every one of
them must leave a finished or loadable file, and splitting them would scatter that invariant.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from .._common.markers import is_event_log_file
from .._common.outputs import check_output
from .._promote.promote import MCP_TOOLS_LISTED
from .._replay.events import EventLog

__all__ = ["RECORDER_AGENT_ID", "Recording", "record_mcp", "recording_text"]

RECORDER_AGENT_ID = "mcp-client"
"""The agent id on a recording's events (the proxy cannot see who the client is)."""

_STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
_SIGNAL_GRACE = 1.0  # seconds the server gets after a signal (SDK clients SIGKILL 2 s later)


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
    """The server's last complete ``tools/list`` (``{"tools": [...]}``), when the client asked."""
    returncode: int | None = None
    """The server process's exit code."""
    stopped: str = "client"
    """Why the session ended: ``client`` (it closed stdin), ``server`` (it exited first) or the
    signal's name."""
    server_failed: bool = False
    """Whether the server exited on its own with a failure (non-zero code, or a signal the
    recorder did not send)."""
    problems: list[str] = field(default_factory=list)
    """Lines that were not JSON (passed through, not recorded) and calls not recorded."""


class _EventFile:
    """Events appended to a file as they happen: one JSON line each, written straight to the
    file descriptor (no buffer to lose), members in their order."""

    def __init__(self, log: EventLog, path: str | os.PathLike[str] | None) -> None:
        self.log = log
        self.lock = threading.Lock()
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)
        self.fd = os.open(path, flags, 0o666) if path is not None else None

    @staticmethod
    def _line(event: Mapping[str, Any]) -> bytes:
        try:
            text = json.dumps(event, ensure_ascii=False, separators=(",", ":"))
            return text.encode("utf-8") + b"\n"
        except UnicodeEncodeError:  # a lone surrogate as sent: kept, escaped
            return json.dumps(event, separators=(",", ":")).encode("ascii") + b"\n"

    def emit(self, *events: tuple[str, dict[str, Any]]) -> None:
        """Append the events (in one write: a pair is never split by a crash of this process)."""
        with self.lock:
            lines = b"".join(
                self._line(event)
                for kind, payload in events
                if (event := self.log.emit(kind, payload)) is not None
            )
            if self.fd is not None:
                view = memoryview(lines)
                while view:
                    view = view[os.write(self.fd, view) :]

    def close(self) -> None:
        with self.lock:
            if self.fd is not None:
                with contextlib.suppress(OSError):
                    os.fsync(self.fd)
                os.close(self.fd)
                self.fd = None


class _Recorder:
    """Pairs requests with answers and writes the events (thread-safe)."""

    def __init__(self, out: _EventFile, agent_id: str) -> None:
        self.out = out
        self.agent_id = agent_id
        self.lock = threading.Lock()
        self.pending: dict[str, tuple[str, Any, Any, float]] = {}
        self.lists: dict[str, Any] = {}
        self.recording = Recording(events=out.log.events)
        self.invocation = "inv-mcp-0"
        self._listing: list[Any] | None = None

    @staticmethod
    def _key(message_id: Any) -> str:
        return json.dumps(message_id, sort_keys=True)

    def client_message(self, message: Any) -> None:
        if not isinstance(message, Mapping) or "id" not in message:
            return
        method = message.get("method")
        params = message.get("params")
        params = params if isinstance(params, Mapping) else {}
        key = self._key(message["id"])
        if method == "tools/list":
            with self.lock:
                self.lists[key] = params.get("cursor")
            return
        if method != "tools/call":
            return
        tool = params.get("name")
        if not isinstance(tool, str) or not tool:
            with self.lock:
                self.recording.problems.append(
                    f"tools/call id {key} has no tool name (not recorded)"
                )
            return
        arguments = params.get("arguments", {})
        with self.lock:
            self.pending[key] = (tool, arguments, message["id"], time.perf_counter())

    def server_message(self, message: Any) -> None:
        if not isinstance(message, Mapping) or "id" not in message or "method" in message:
            return
        key = self._key(message["id"])
        with self.lock:
            if key in self.lists:
                self._listed(self.lists.pop(key), message.get("result"))
                return
            pending = self.pending.pop(key, None)
            if pending is None:
                return
            self._answered(pending, message)

    def _listed(self, cursor: Any, result: Any) -> None:
        if not isinstance(result, Mapping) or not isinstance(result.get("tools"), list):
            return
        payload: dict[str, Any] = {"agentId": self.agent_id}
        if cursor is not None:
            payload["cursor"] = cursor
        payload["result"] = result
        self.out.emit((MCP_TOOLS_LISTED, payload))
        if cursor is None or self._listing is None:
            self._listing = []
        self._listing.extend(result["tools"])
        self.recording.catalogue = {"tools": list(self._listing)}

    def _answered(self, pending: tuple[str, Any, Any, float], message: Mapping[str, Any]) -> None:
        tool, arguments, jsonrpc_id, started = pending
        call_id = f"mcp-{self.recording.calls}"
        called = {
            "agentId": self.agent_id,
            "toolName": tool,
            "callId": call_id,
            "inputs": arguments,
            "transport": "mcp",
            "x-jsonrpcId": jsonrpc_id,
        }
        returned: dict[str, Any] = {"agentId": self.agent_id, "toolName": tool, "callId": call_id}
        error = message.get("error")
        if "result" in message and error is None:
            result = message["result"]
            returned["outcome"] = result
            failed = isinstance(result, Mapping) and result.get("isError") is True
            returned["status"] = "error" if failed else "ok"
            if failed:
                self.recording.tool_errors += 1
        else:
            code = error.get("code") if isinstance(error, Mapping) else None
            text = error.get("message") if isinstance(error, Mapping) else None
            returned["error"] = {
                "code": f"jsonrpc.{code}" if type(code) is int else "jsonrpc.invalid",
                "message": text if isinstance(text, str) and text else "JSON-RPC error",
                "details": {"jsonrpcError": error},
            }
            returned["status"] = "error"
            self.recording.protocol_errors += 1
        returned["durationMs"] = max(0, round((time.perf_counter() - started) * 1000))
        self.recording.calls += 1
        self.out.emit(("agent.tool-called", called), ("agent.tool-returned", returned))

    def finish(self) -> None:
        with self.lock:
            self.recording.unanswered = len(self.pending)
            self.pending.clear()
            self.out.emit(
                (
                    "agent.invocation-completed",
                    {
                        "invocationId": self.invocation,
                        "agentId": self.agent_id,
                        "outcome": "completed",
                    },
                )
            )


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _no_constant(name: str) -> None:
    """``NaN``, ``Infinity`` and ``-Infinity`` (which Python's parser takes but JSON has not)
    are recorded as ``null``, as JavaScript's ``JSON.stringify`` and the SDK's pydantic send
    them: the log stays JSON every reader takes."""
    return None


def _finite(text: str) -> float | None:
    """A JSON number as a float; ``null`` for one out of a float's range (``1e999``)."""
    value = float(text)
    return value if math.isfinite(value) else None


def _pump(
    source: int,
    sink: int | None,
    observe: Callable[[Any], None],
    problems: list[str],
    on_eof: Callable[[], None],
) -> None:
    """Copy ``source`` to ``sink`` chunk by chunk, observing each complete JSON line first.

    Observing before forwarding means a request is known before its answer can arrive, and an
    answer is on disk before the client can have read it: a SIGKILL at any moment loses
    nothing the client saw. A sink that fails (its reader is gone) is dropped and reading goes
    on, so what the server still says is recorded.
    """
    parts: list[bytes] = []

    def observe_lines(chunk: bytes) -> None:
        start = 0
        while (end := chunk.find(b"\n", start)) >= 0:
            parts.append(chunk[start:end])
            line = b"".join(parts)
            parts.clear()
            start = end + 1
            if line.strip():
                try:
                    value = json.loads(line, parse_constant=_no_constant, parse_float=_finite)
                except (ValueError, RecursionError):
                    problems.append(line[:200].decode("utf-8", "replace"))
                    continue
                for message in value if isinstance(value, list) else [value]:
                    observe(message)
        if start < len(chunk):
            parts.append(chunk[start:])

    try:
        while True:
            try:
                chunk = os.read(source, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                break
            observe_lines(chunk)
            if sink is not None:
                try:
                    _write_all(sink, chunk)
                except OSError:
                    sink = None
    finally:
        on_eof()


def record_mcp(
    command: Sequence[str],
    out: str | os.PathLike[str] | None = None,
    *,
    stdin_fd: int = 0,
    stdout_fd: int = 1,
    agent_id: str = RECORDER_AGENT_ID,
    env: Mapping[str, str] | None = None,
    shutdown_timeout: float = 5.0,
    overwrite: bool = False,
) -> Recording:
    """Run the MCP server ``command`` behind a recording stdio proxy until the session ends.

    Messages read from ``stdin_fd`` (default: this process's stdin) go to the server and its
    answers to ``stdout_fd``; the server's stderr is inherited. The session ends when the client
    hangs up (the server's stdin is closed; it gets ``shutdown_timeout`` seconds to exit, then
    it is terminated), when the server exits, or on SIGTERM, SIGINT or SIGHUP (the server is
    terminated). Events go to ``out`` (JSONL) as they happen and are returned either way.
    ``out`` is checked before the server starts: an existing file that is not an event log the
    workbench wrote is replaced only with ``overwrite=True``. Raises ``OSError`` when the server
    cannot be started or ``out`` cannot be written (then nothing is left running).
    """
    if not command:
        raise ValueError("record-mcp needs the server command to run")
    if out is not None:
        check_output(out, overwrite=overwrite, recognise=is_event_log_file)
    started_ns = time.time_ns()
    seed_text = "\0".join(command) + f"\0{started_ns}"
    run_id = "workbench/" + hashlib.sha256(seed_text.encode("utf-8")).hexdigest()[:24]
    process = subprocess.Popen(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=dict(env) if env is not None else None,
        bufsize=0,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        events = _EventFile(EventLog(run_id, wall_clock=True), out)
    except OSError:
        process.kill()
        process.wait()
        raise
    recorder = _Recorder(events, agent_id)
    recording = recorder.recording
    events.emit(
        (
            "agent.invocation-started",
            {
                "invocationId": recorder.invocation,
                "agentId": agent_id,
                "source": "run-api",
                "x-recordedBy": "workbench record-mcp",
                "x-command": list(command),
            },
        )
    )
    wake = threading.Event()
    client_done = threading.Event()
    server_done = threading.Event()
    caught: list[str] = []
    server_in = process.stdin.fileno()

    def client_eof() -> None:
        with contextlib.suppress(OSError):
            process.stdin.close()  # type: ignore[union-attr]
        client_done.set()
        wake.set()

    def server_eof() -> None:
        server_done.set()
        wake.set()

    def on_signal(number: int, frame: FrameType | None) -> None:
        caught.append(signal.Signals(number).name)
        wake.set()

    in_main = threading.current_thread() is threading.main_thread()
    previous = {sig: signal.signal(sig, on_signal) for sig in _STOP_SIGNALS} if in_main else {}
    upstream = threading.Thread(
        target=_pump,
        args=(stdin_fd, server_in, recorder.client_message, recording.problems, client_eof),
        name="record-mcp-client",
        daemon=True,
    )
    downstream = threading.Thread(
        target=_pump,
        args=(
            process.stdout.fileno(),
            stdout_fd,
            recorder.server_message,
            recording.problems,
            server_eof,
        ),
        name="record-mcp-server",
        daemon=True,
    )
    upstream.start()
    downstream.start()
    terminated = False
    try:
        deadline: float | None = None
        while not caught:
            wake.wait(0.1)
            wake.clear()
            if process.poll() is not None and (server_done.is_set() or not client_done.is_set()):
                recording.stopped = "client" if client_done.is_set() else "server"
                break
            if client_done.is_set():
                if deadline is None:
                    deadline = time.monotonic() + shutdown_timeout
                elif time.monotonic() >= deadline:
                    recording.stopped = "client"
                    break
        if caught:
            recording.stopped = caught[0]
        if process.poll() is None:
            terminated = True
            process.terminate()
            try:
                process.wait(_SIGNAL_GRACE if caught else shutdown_timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        downstream.join(_SIGNAL_GRACE)  # the server's last answers
    finally:
        if process.poll() is None:
            terminated = True
            process.kill()
            process.wait()
        recording.returncode = process.returncode
        recording.server_failed = not terminated and process.returncode not in (0, None)
        recorder.finish()
        events.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return recording


def recording_text(recording: Recording) -> str:
    """A one-line account of a recording, for stderr."""
    text = (
        f"workbench record-mcp: {recording.calls} tools/call answer(s) recorded "
        f"({recording.tool_errors} isError, {recording.protocol_errors} JSON-RPC error)"
    )
    if recording.unanswered:
        text += f", {recording.unanswered} unanswered (not written)"
    ended = {"client": "the client hung up", "server": "the server exited"}
    text += f"; {ended.get(recording.stopped, 'stopped by ' + recording.stopped)}"
    if recording.server_failed:  # the code is the server's, whoever ended the session
        exited = (
            " with code" if recording.stopped == "server" else ", and the server exited with code"
        )
        text += f"{exited} {recording.returncode}"
    return text
