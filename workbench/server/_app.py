"""The ASGI app of ``workbench serve-host``: OpenWOP v2's eval subset on Starlette (SPEC R43).

Routes (the official ``openwop-client`` drives every one): discovery and ``/openapi.json``
(no auth); ``POST /runs`` (``mode: "eval"``) and ``GET /runs``; ``GET /runs/{id}``; its
events as SSE (``id:`` is the sequence; resumable with ``Last-Event-ID``; keep-alives) and by
long poll; ``/eval-summary`` (``409`` until the run ends); ``/cancel``; ``:fork`` and
``:diff``. Every answer carries ``OpenWOP-Version: 2.0``; a request asking for another major
is ``406``. Every failure is an error envelope; a handler's crash is ``500 internal_error``
with the traceback in the host's log, never in the body.

``Idempotency-Key`` on ``POST /runs`` and ``:fork``: the same key and body from the same key
holder answers the first ``201`` again (``OpenWOP-Idempotent-Replay: true``), another body is
``409 idempotency_key_mismatch``, and a repeat while the first is still being answered is
``409 idempotency_in_flight``.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import logging
import re
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from ._auth import ApiKey, check_bearer
from ._catalog import AgentRegistry, RecordedRuns, SuiteCatalog
from ._documents import discovery_document, openapi_document
from ._requests import SuiteChecker, parse_create, parse_fork
from ._runs import Run, RunStore, diff_runs, first_difference
from ._wire import (
    OPENWOP_VERSION,
    WireError,
    dumps,
    error_response,
    json_response,
    text_response,
    unproject_id,
)

__all__ = ["HostSettings", "build_app"]

log = logging.getLogger("workbench.server")

TENANT = "workbench"
"""The one tenant of the host (the ``tenant`` part of every run id)."""

_VERSION = re.compile(r"(\d+)\.(\d+)")
_STREAM_MODES = ("debug", "updates")
_RUN_STATUSES = ("pending", "running", "completed", "failed", "cancelled")
_TERMINAL_TYPES = frozenset({"run.completed", "run.failed", "run.cancelled"})


@dataclass(frozen=True, slots=True)
class HostSettings:
    """How the host serves (defaults suit a shared machine; tests shorten the waits)."""

    keepalive_seconds: float = 15.0
    """A ``: keep-alive`` comment after this long without an event (the client's read
    timeout is 30 s)."""
    retry_ms: int = 1000
    """The SSE ``retry:`` the client waits before it resumes a stream."""
    stream_frame_limit: int | None = None
    """Close an event stream after this many frames (a bounded close, RFC 0247): the client
    resumes with ``Last-Event-ID``. ``None``: stream until the terminal event."""
    max_body_bytes: int = 1 << 20
    """A larger request body is ``413 payload_too_large``."""
    fork_wait_seconds: float = 120.0
    """How long a fork waits for its re-run to reach ``fromSeq`` before it answers."""
    idempotency_entries: int = 10_000
    """Idempotency keys remembered (the oldest are forgotten first)."""


@dataclass(slots=True)
class _Host:
    suites: SuiteCatalog
    recorded: RecordedRuns
    agents: AgentRegistry
    store: RunStore
    checker: SuiteChecker
    keys: tuple[ApiKey, ...]
    settings: HostSettings
    idempotent: OrderedDict[tuple[str, str, str], tuple[str, Response | None]]


Handler = Callable[[Request, _Host, ApiKey | None], Awaitable[Response]]


def _endpoint(*, auth: bool = True, write: bool = False) -> Callable[[Handler], Any]:
    """Version check, bearer auth, and envelopes for every failure."""

    def wrap(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        @functools.wraps(handler)
        async def endpoint(request: Request) -> Response:
            host: _Host = request.app.state.host
            try:
                if auth:
                    _check_version(request.headers.get("openwop-version"))
                key = (
                    check_bearer(request.headers.get("authorization"), host.keys, write=write)
                    if auth
                    else None
                )
                return await handler(request, host, key)
            except WireError as error:
                return error_response(error)
            except Exception:
                log.exception("%s %s failed", request.method, request.url.path)
                return error_response(WireError("internal_error", "the host failed; see its log"))

        return endpoint

    return wrap


def _check_version(header: str | None) -> None:
    if header is None:
        return
    match = _VERSION.fullmatch(header.strip())
    if match is None or match.group(1) != OPENWOP_VERSION.split(".")[0]:
        raise WireError(
            "protocol_version_unsupported",
            f"OpenWOP-Version {header!r} is not served here (versions: {OPENWOP_VERSION})",
            {"supported": [OPENWOP_VERSION]},
        )


async def _json_body(request: Request, host: _Host) -> Any:
    limit = host.settings.max_body_bytes
    length = request.headers.get("content-length")
    if length is not None and length.isdigit() and int(length) > limit:
        raise WireError("payload_too_large", f"the body is over {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise WireError("payload_too_large", f"the body is over {limit} bytes")
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        return {}
    media = request.headers.get("content-type", "application/json").split(";")[0].strip()
    if media.lower() != "application/json":
        raise WireError(
            "unsupported_media_type", f"the body must be application/json, not {media!r}"
        )

    def refuse(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    try:
        return json.loads(raw.decode("utf-8"), parse_constant=refuse)
    except (UnicodeDecodeError, ValueError) as exc:
        raise WireError.invalid("body", f"the body is not JSON: {exc}") from None


def _run(request: Request, host: _Host, name: str = "run_id") -> Run:
    bound = unproject_id(request.path_params[name])
    run = host.store.get(bound) if bound is not None else None
    if run is None:
        raise WireError("not_found", "no such run on this host")
    return run


def _links(request: Request, run: Run) -> dict[str, str]:
    base = str(request.base_url).rstrip("/")
    return {
        "eventsUrl": f"{base}/runs/{run.wire_id}/events",
        "statusUrl": f"{base}/runs/{run.wire_id}",
    }


# -- idempotency ---------------------------------------------------------------------------------


async def _idempotent(
    request: Request,
    host: _Host,
    key: ApiKey,
    body: Any,
    answer: Callable[[], Awaitable[Response]],
) -> Response:
    given = request.headers.get("idempotency-key")
    if given is None:
        return await answer()
    if not 1 <= len(given) <= 255 or not given.isprintable():
        raise WireError(
            "idempotency_key_invalid", "an Idempotency-Key is 1 to 255 printable characters"
        )
    slot = (key.subject, f"{request.method} {request.url.path}", given)
    fingerprint = hashlib.sha256(dumps(body).encode()).hexdigest()
    held = host.idempotent.get(slot)
    if held is not None:
        if held[0] != fingerprint:
            raise WireError(
                "idempotency_key_mismatch", "this Idempotency-Key was used with another body"
            )
        if held[1] is None:
            raise WireError(
                "idempotency_in_flight",
                "a request with this Idempotency-Key is still being answered",
            )
        first = held[1]
        headers = {k: v for k, v in first.headers.items() if k.lower() != "content-length"}
        return Response(
            first.body, first.status_code, {**headers, "OpenWOP-Idempotent-Replay": "true"}
        )
    host.idempotent[slot] = (fingerprint, None)
    try:
        response = await answer()
    except BaseException:
        host.idempotent.pop(slot, None)
        raise
    if 200 <= response.status_code < 300:
        host.idempotent[slot] = (fingerprint, response)
        while len(host.idempotent) > host.settings.idempotency_entries:
            host.idempotent.popitem(last=False)
    else:
        host.idempotent.pop(slot, None)
    return response


# -- handlers ------------------------------------------------------------------------------------


@_endpoint(auth=False)
async def discovery(request: Request, host: _Host, key: ApiKey | None) -> Response:
    return json_response(discovery_document(host.store.profile))


@_endpoint(auth=False)
async def openapi(request: Request, host: _Host, key: ApiKey | None) -> Response:
    return json_response(openapi_document())


@_endpoint(write=True)
async def create_run(request: Request, host: _Host, key: ApiKey | None) -> Response:
    assert key is not None
    body = await _json_body(request, host)

    async def answer() -> Response:
        recipe = parse_create(
            body,
            suites=host.suites,
            agents=host.agents,
            recorded=host.recorded,
            checker=host.checker,
            tenant=TENANT,
        )
        run = host.store.create(recipe, host.agents.make(recipe.agent_id), key)
        links = _links(request, run)
        created = {"runId": run.run_id, "status": "pending", **links}
        return json_response(created, 201, {"Location": links["statusUrl"]})

    return await _idempotent(request, host, key, body, answer)


@_endpoint()
async def list_runs(request: Request, host: _Host, key: ApiKey | None) -> Response:
    query = request.query_params
    limit = _query_int(query.get("limit"), "limit", 1, 100, 20)
    status = query.get("status")
    if status is not None and status not in _RUN_STATUSES:
        raise WireError.invalid("status", f"status is one of {', '.join(_RUN_STATUSES)}")
    before: int | None = None
    cursor = query.get("cursor")
    if cursor is not None:
        try:
            before = int(
                base64.urlsafe_b64decode(cursor.encode() + b"==").decode().removeprefix("before:")
            )
        except (ValueError, UnicodeDecodeError):
            raise WireError.invalid("cursor", "this cursor was not minted by this host") from None
    workflow = query.get("workflowId")
    runs = [
        r
        for r in host.store.newest_first()
        if (before is None or r.ordinal < before)
        and (status is None or r.status == status)
        and (workflow is None or workflow == "workbench.eval")
    ]
    page = runs[:limit]
    body: dict[str, Any] = {"runs": [r.snapshot(TENANT) for r in page]}
    if len(runs) > limit:
        token = f"before:{page[-1].ordinal}".encode()
        body["nextCursor"] = base64.urlsafe_b64encode(token).decode().rstrip("=")
    return json_response(body)


@_endpoint()
async def get_run(request: Request, host: _Host, key: ApiKey | None) -> Response:
    return json_response(_run(request, host).snapshot(TENANT))


def _query_int(value: str | None, field: str, low: int, high: int, default: int) -> int:
    if value is None:
        return default
    if not re.fullmatch(r"-?\d{1,12}", value) or not low <= int(value) <= high:
        raise WireError.invalid(field, f"{field} must be an integer from {low} to {high}")
    return int(value)


@_endpoint()
async def poll_events(request: Request, host: _Host, key: ApiKey | None) -> Response:
    run = _run(request, host)
    query = request.query_params
    after = _query_int(query.get("afterSequence"), "afterSequence", 0, 10**12, -1)
    timeout = _query_int(query.get("timeout"), "timeout", 1, 60, 30)
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


@_endpoint()
async def stream_events(request: Request, host: _Host, key: ApiKey | None) -> Response:
    run = _run(request, host)
    query = request.query_params
    wanted = _stream_filter(query.get("streamMode"))
    buffer_ms = query.get("bufferMs")
    batched = buffer_ms is not None and _query_int(buffer_ms, "bufferMs", 0, 5000, 0) >= 0
    last = request.headers.get("last-event-id")
    if last is not None and not re.fullmatch(r"-?\d{1,12}", last.strip()):
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
        await run.wait(count - 1, settings.keepalive_seconds)
        if len(run.events) == count and not run.terminal:
            yield b": keep-alive\n\n"


@_endpoint()
async def eval_summary(request: Request, host: _Host, key: ApiKey | None) -> Response:
    run = _run(request, host)
    text = run.summary_text()
    if text is None:
        raise WireError(
            "run_state_conflict",
            f"the run is {run.status}: a summary exists once it has completed",
            {"runStatus": run.status},
        )
    return text_response(text)


@_endpoint(write=True)
async def cancel_run(request: Request, host: _Host, key: ApiKey | None) -> Response:
    run = _run(request, host)
    if run.terminal:
        raise WireError("run_terminal", f"the run has ended ({run.status})")
    run.cancel_requested = True
    return json_response({"runId": run.run_id, "status": "cancelling"}, 202)


@_endpoint(write=True)
async def fork_run(request: Request, host: _Host, key: ApiKey | None) -> Response:
    assert key is not None
    source = _run(request, host)
    body = await _json_body(request, host)

    async def answer() -> Response:
        if not source.terminal:
            raise WireError(
                "run_state_conflict",
                f"the source run is {source.status}: fork it once it has ended",
                {"runStatus": source.status},
            )
        mode, from_seq, recipe = parse_fork(
            body, source.recipe, len(source.events), checker=host.checker, agents=host.agents
        )
        fork = {"mode": mode, "fromSeq": from_seq, "sourceRunId": source.run_id}
        agent = host.agents.make(recipe.agent_id)
        run = host.store.create(recipe, agent, key, parent=source, fork=fork, register=False)
        # Events before fromSeq are fixed history: the re-run must reproduce them.
        await run.wait(from_seq - 1, host.settings.fork_wait_seconds)
        differs = first_difference(source, run, from_seq)
        if differs is not None:
            run.cancel_requested = True
            raise WireError(
                "fork_point_invalid",
                f"the fork changes event {differs}, before fromSeq {from_seq}: fork from "
                f"{differs} or earlier",
                {"field": "fromSeq", "divergedAtSeq": differs},
            )
        host.store.register(run)
        created = {
            "runId": run.run_id,
            "sourceRunId": source.run_id,
            "mode": mode,
            "fromSeq": from_seq,
            "status": "running" if run.started_at else "pending",
            "eventsUrl": _links(request, run)["eventsUrl"],
        }
        return json_response(created, 201, {"Location": _links(request, run)["statusUrl"]})

    return await _idempotent(request, host, key, body, answer)


@_endpoint()
async def diff(request: Request, host: _Host, key: ApiKey | None) -> Response:
    a = _run(request, host)
    against = request.query_params.get("against")
    if not against:
        raise WireError.invalid("against", "against names the run to compare with")
    bound = unproject_id(against)
    b = host.store.get(bound) if bound is not None else None
    if b is None:
        raise WireError("not_found", "no such run on this host (against)")
    return json_response(diff_runs(a, b))


async def _not_found(request: Request, exc: Exception) -> Response:
    if isinstance(exc, HTTPException) and exc.status_code == 405:
        allow = exc.headers.get("Allow", "") if exc.headers else ""
        return error_response(
            WireError(
                "workbench.method_not_allowed",
                f"{request.method} is not served on {request.url.path}",
                headers={"Allow": allow} if allow else None,
            )
        )
    return error_response(WireError("not_found", f"nothing is served at {request.url.path}"))


def build_app(
    *,
    suites: SuiteCatalog,
    recorded: RecordedRuns,
    agents: AgentRegistry,
    store: RunStore,
    keys: tuple[ApiKey, ...],
    settings: HostSettings,
) -> Starlette:
    """The Starlette app serving ``store``'s runs of ``suites``."""
    routes = [
        Route("/.well-known/openwop", discovery, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
        Route("/runs", create_run, methods=["POST"]),
        Route("/runs", list_runs, methods=["GET"]),
        # ":diff" before "/runs/{run_id}", whose [^/]+ would take "x:diff" whole.
        Route("/runs/{run_id}:diff", diff, methods=["GET"]),
        Route("/runs/{run_id}:fork", fork_run, methods=["POST"]),
        Route("/runs/{run_id}/events/poll", poll_events, methods=["GET"]),
        Route("/runs/{run_id}/events", stream_events, methods=["GET"]),
        Route("/runs/{run_id}/eval-summary", eval_summary, methods=["GET"]),
        Route("/runs/{run_id}/cancel", cancel_run, methods=["POST"]),
        Route("/runs/{run_id}", get_run, methods=["GET"]),
    ]
    app = Starlette(routes=routes, exception_handlers={404: _not_found, 405: _not_found})
    app.state.host = _Host(
        suites=suites,
        recorded=recorded,
        agents=agents,
        store=store,
        checker=SuiteChecker(store.profile),
        keys=keys,
        settings=settings,
        idempotent=OrderedDict(),
    )
    return app
