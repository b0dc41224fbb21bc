"""A run's events over HTTP: SSE and long poll (SPEC R18, R22, R43).

SSE frames are ``id: <sequence>``, ``event: <type>``, ``data: <the event's JSONL line>``, so
``Last-Event-ID`` resumes at the next sequence (RFC 0247); with ``bufferMs`` the events at hand
go out as one ``event: batch`` frame. ``streamMode`` ``debug`` (the default) is every event,
``updates`` leaves out ``agent.*``. While nothing happens a ``: keep-alive`` comment is sent
(the client's read timeout is 30 s); the stream ends after the run's terminal event. The poll
body is written by hand so that its events are the JSONL lines byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from ._auth import ApiKey
from ._http import HostSettings, HostState, endpoint, query_int, run_of
from ._runs import Run
from ._wire import OPENWOP_VERSION, WireError, dumps, text_response

__all__ = ["poll_events", "stream_events"]

_STREAM_MODES = ("debug", "updates")
_TERMINAL_TYPES = frozenset({"run.completed", "run.failed", "run.cancelled"})


@endpoint()
async def poll_events(request: Request, host: HostState, key: ApiKey | None) -> Response:
    run = run_of(request, host)
    query = request.query_params
    after = query_int(query.get("afterSequence"), "afterSequence", -1, 10**12, -1)
    timeout = query_int(query.get("timeout"), "timeout", 1, 60, 30)
    if len(run.events) <= after + 1 and not run.terminal:
        await run.wait(after + 1, float(timeout))
    count = len(run.events)
    lines = ",".join(run.line(s) for s in range(after + 1, count))
    # Keys in sorted order, the events as their JSONL lines: the bytes `workbench replay` writes.
    text = (
        f'{{"events":[{lines}],"isTerminal":{"true" if run.terminal else "false"},'
        f'"lastSequence":{count - 1},"runId":{dumps(run.run_id)},"status":{dumps(run.status)}}}'
    )
    return text_response(text)


def _stream_filter(value: str | None) -> Callable[[str], bool]:
    if value is None or value == "":
        return lambda _: True
    modes = value.split(",")
    unknown = [m for m in modes if m not in _STREAM_MODES]
    if unknown:
        raise WireError(
            "unsupported_stream_mode",
            f"stream mode {unknown[0]!r} is not served (modes: {', '.join(_STREAM_MODES)})",
            {"supported": list(_STREAM_MODES)},
        )
    if "debug" in modes:
        return lambda _: True
    return lambda event_type: not event_type.startswith("agent.")


@endpoint()
async def stream_events(request: Request, host: HostState, key: ApiKey | None) -> Response:
    run = run_of(request, host)
    query = request.query_params
    wanted = _stream_filter(query.get("streamMode"))
    buffer_ms = query.get("bufferMs")
    batched = buffer_ms is not None and query_int(buffer_ms, "bufferMs", 0, 5000, 0) >= 0
    last = request.headers.get("last-event-id")
    # A sequence this host sent (or -1: from the start, as afterSequence); a negative index
    # would count from the end of the log.
    if last is not None and not re.fullmatch(r"-1|\d{1,12}", last.strip()):
        raise WireError.invalid("Last-Event-ID", "Last-Event-ID is a sequence this host sent")
    start = int(last) + 1 if last is not None else 0
    settings = host.settings
    return StreamingResponse(
        _frames(run, start, wanted, batched, settings),
        media_type="text/event-stream",
        headers={
            "OpenWOP-Version": OPENWOP_VERSION,
            "Cache-Control": "no-cache",
            "X-Accel-Buffering": "no",
        },
    )


async def _frames(
    run: Run, start: int, wanted: Callable[[str], bool], batched: bool, settings: HostSettings
) -> AsyncIterator[bytes]:
    """The SSE frames of a run from ``start``: each event as ``id: <sequence>``, ``event:
    <type>``, ``data: <its JSONL line>``; batched as ``event: batch`` when asked; keep-alive
    comments while nothing happens; the stream ends after the terminal event."""
    yield f"retry: {settings.retry_ms}\n\n".encode()
    sent = 0
    position = start
    while True:
        count = len(run.events)
        if position < count:
            chosen = [s for s in range(position, count) if wanted(run.events[s]["type"])]
            position = count
            if batched and chosen:
                items = ",".join(run.line(s) for s in chosen)
                yield f"id: {chosen[-1]}\nevent: batch\ndata: [{items}]\n\n".encode()
                sent += 1
            else:
                for s in chosen:
                    event_type = run.events[s]["type"]
                    yield f"id: {s}\nevent: {event_type}\ndata: {run.line(s)}\n\n".encode()
                    sent += 1
                    limit = settings.stream_frame_limit
                    if limit is not None and sent >= limit and event_type not in _TERMINAL_TYPES:
                        return  # a bounded close: the client resumes from here
            continue
        if run.terminal:
            return
        await run.wait(count, settings.keepalive_seconds)
        if len(run.events) == count and not run.terminal:
            yield b": keep-alive\n\n"
