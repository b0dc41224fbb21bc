"""The ASGI app of ``workbench serve-host``: OpenWOP v2's eval subset on Starlette (SPEC R43).

Routes (the official ``openwop-client`` drives every one): discovery and ``/openapi.json``
(no auth); ``POST /runs`` (``mode: "eval"``) and ``GET /runs``; ``GET /runs/{id}``; its
events as SSE (``id:`` is the sequence; resumable with ``Last-Event-ID``; keep-alives) and by
long poll; ``/eval-summary`` (``409`` until the run ends); ``/cancel``; ``:fork`` and
``:diff``. Every answer carries ``OpenWOP-Version: 2.0``; a request asking for another major
is ``406``. Every failure is an error envelope; a handler's crash is ``500 internal_error``
with the traceback in the host's log, never in the body. The plumbing (auth, bodies,
idempotency) is ``_http``'s; the event routes are ``_events``'.
"""

from __future__ import annotations

import base64
import re
from collections import OrderedDict
from typing import Any
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from ._auth import ApiKey
from ._catalog import AgentRegistry, RecordedRuns, SuiteCatalog
from ._diff import diff_runs, first_difference
from ._documents import discovery_document, openapi_document
from ._events import poll_events, stream_events
from ._fork import parse_fork
from ._http import (
    TENANT,
    HostSettings,
    HostState,
    endpoint,
    idempotent,
    json_body,
    links,
    query_int,
    run_of,
)
from ._requests import SuiteChecker, parse_create
from ._runs import RunStore
from ._wire import WireError, error_response, json_response, text_response, unproject_id

__all__ = ["build_app"]

_RUN_STATUSES = ("pending", "running", "completed", "failed", "cancelled")


# -- handlers ------------------------------------------------------------------------------------


@endpoint(auth=False)
async def discovery(request: Request, host: HostState, key: ApiKey | None) -> Response:
    return json_response(discovery_document(host.store.profile))


@endpoint(auth=False)
async def openapi(request: Request, host: HostState, key: ApiKey | None) -> Response:
    return json_response(openapi_document())


@endpoint(write=True)
async def create_run(request: Request, host: HostState, key: ApiKey | None) -> Response:
    assert key is not None
    body = await json_body(request, host)

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
        urls = links(request, run)
        created = {"runId": run.run_id, "status": "pending", **urls}
        return json_response(created, 201, {"Location": urls["statusUrl"]})

    return await idempotent(request, host, key, body, answer)


@endpoint()
async def list_runs(request: Request, host: HostState, key: ApiKey | None) -> Response:
    query = request.query_params
    limit = query_int(query.get("limit"), "limit", 1, 100, 20)
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


@endpoint()
async def get_run(request: Request, host: HostState, key: ApiKey | None) -> Response:
    return json_response(run_of(request, host).snapshot(TENANT))


@endpoint()
async def eval_summary(request: Request, host: HostState, key: ApiKey | None) -> Response:
    run = run_of(request, host)
    text = run.summary_text()
    if text is None:
        raise WireError(
            "run_state_conflict",
            f"the run is {run.status}: a summary exists once it has completed",
            {"runStatus": run.status},
        )
    return text_response(text)


@endpoint(write=True)
async def cancel_run(request: Request, host: HostState, key: ApiKey | None) -> Response:
    run = run_of(request, host)
    if run.terminal:
        raise WireError("run_terminal", f"the run has ended ({run.status})")
    run.cancel_requested = True
    return json_response({"runId": run.run_id, "status": "cancelling"}, 202)


@endpoint(write=True)
async def fork_run(request: Request, host: HostState, key: ApiKey | None) -> Response:
    assert key is not None
    source = run_of(request, host)
    body = await json_body(request, host)

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
            "eventsUrl": links(request, run)["eventsUrl"],
        }
        return json_response(created, 201, {"Location": links(request, run)["statusUrl"]})

    return await idempotent(request, host, key, body, answer)


@endpoint()
async def diff(request: Request, host: HostState, key: ApiKey | None) -> Response:
    a = run_of(request, host)
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


class _LegacyIds:
    """Route a legacy percent-encoded run id (``workbench%2Fab``) as its projected form: the
    server decodes ``%2F`` to ``/`` before routing, which would split the id's segment."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw = scope.get("raw_path") if scope["type"] == "http" else None
        if raw and b"%2f" in raw.lower():
            projected = re.sub(rb"%2[Ff]", b"~2F", raw.split(b"?", 1)[0])
            scope = {**scope, "path": unquote(projected.decode("latin-1"))}
        await self.app(scope, receive, send)


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
    app = Starlette(
        routes=routes,
        exception_handlers={404: _not_found, 405: _not_found},
        middleware=[Middleware(_LegacyIds)],
    )
    app.state.host = HostState(
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
