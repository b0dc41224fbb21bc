"""The plumbing every route of the host shares (SPEC R43): its settings and state, the
endpoint wrapper (``OpenWOP-Version``, bearer auth, an envelope for every failure), bodies,
run lookup by wire id, links, and idempotency keys.

``Idempotency-Key`` on ``POST /runs`` and ``:fork``: the same key and body from the same key
holder answers the first ``201`` again (``OpenWOP-Idempotent-Replay: true``), another body is
``409 idempotency_key_mismatch``, and a repeat while the first is still being answered is
``409 idempotency_in_flight``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import math
import re
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from ._auth import ApiKey, check_bearer
from ._catalog import AgentRegistry, RecordedRuns, SuiteCatalog
from ._requests import SuiteChecker
from ._runs import Run, RunStore
from ._wire import OPENWOP_VERSION, WireError, dumps, error_response, unproject_id

__all__ = [
    "TENANT",
    "HostSettings",
    "HostState",
    "endpoint",
    "idempotent",
    "json_body",
    "links",
    "query_int",
    "run_of",
]

log = logging.getLogger("workbench.server")

TENANT = "workbench"
"""The one tenant of the host (the ``tenant`` part of every run id)."""

_VERSION = re.compile(r"(\d+)\.(\d+)")
_MAX_DIGITS = 100
"""The longest integer a body may hold (Python refuses over 4300 digits with a hint about its
own settings; no member of a request needs more than an int64's 19)."""


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
    max_unfinished_runs: int = 1000
    """Runs waiting or running at once; one more create or fork is ``429 rate_limited``
    (``Retry-After: 1``) until some finish. Every run's log is held in memory, so a flood of
    creates must not queue without end."""


@dataclass(slots=True)
class HostState:
    """What every handler reads: the catalog, the runs, the keys, the settings."""

    suites: SuiteCatalog
    recorded: RecordedRuns
    agents: AgentRegistry
    store: RunStore
    checker: SuiteChecker
    keys: tuple[ApiKey, ...]
    settings: HostSettings
    idempotent: OrderedDict[tuple[str, str, str], tuple[str, Response | None]]


Handler = Callable[[Request, HostState, ApiKey | None], Awaitable[Response]]


def endpoint(*, auth: bool = True, write: bool = False) -> Callable[[Handler], Any]:
    """Version check, bearer auth, and envelopes for every failure."""

    def wrap(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        @functools.wraps(handler)
        async def endpoint(request: Request) -> Response:
            host: HostState = request.app.state.host
            try:
                if auth:
                    check_version(request.headers.get("openwop-version"))
                key = (
                    check_bearer(request.headers.get("authorization"), host.keys, write=write)
                    if auth
                    else None
                )
                return await handler(request, host, key)
            except WireError as error:
                return error_response(error)
            except ClientDisconnect:
                # The client left while sending its body: nobody reads the answer.
                log.info("%s %s: the client disconnected", request.method, request.url.path)
                return Response(status_code=400)
            except Exception:
                log.exception("%s %s failed", request.method, request.url.path)
                return error_response(WireError("internal_error", "the host failed; see its log"))

        return endpoint

    return wrap


def check_version(header: str | None) -> None:
    if header is None:
        return
    match = _VERSION.fullmatch(header.strip())
    if match is None or match.group(1) != OPENWOP_VERSION.split(".")[0]:
        raise WireError(
            "protocol_version_unsupported",
            f"OpenWOP-Version {header!r} is not served here (versions: {OPENWOP_VERSION})",
            {"supported": [OPENWOP_VERSION]},
        )


async def json_body(request: Request, host: HostState) -> Any:
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

    def integer(digits: str) -> int:
        if len(digits.lstrip("-")) > _MAX_DIGITS:
            raise ValueError(f"an integer has more than {_MAX_DIGITS} digits")
        return int(digits)

    def number(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):
            raise ValueError(f"{text} is out of a double's range")
        return value

    try:
        return json.loads(
            raw.decode("utf-8"), parse_constant=refuse, parse_int=integer, parse_float=number
        )
    except UnicodeDecodeError as exc:
        byte = exc.object[exc.start]
        raise WireError.invalid(
            "body", f"the body is not UTF-8 text (byte 0x{byte:02x} at offset {exc.start})"
        ) from None
    except ValueError as exc:
        raise WireError.invalid("body", f"the body is not JSON: {exc}") from None
    except RecursionError:
        raise WireError.invalid("body", "the body is nested too deeply") from None


def run_of(request: Request, host: HostState, name: str = "run_id") -> Run:
    bound = unproject_id(request.path_params[name])
    run = host.store.get(bound) if bound is not None else None
    if run is None:
        raise WireError("not_found", "no such run on this host")
    return run


def links(request: Request, run: Run) -> dict[str, str]:
    base = str(request.base_url).rstrip("/")
    return {
        "eventsUrl": f"{base}/runs/{run.wire_id}/events",
        "statusUrl": f"{base}/runs/{run.wire_id}",
    }


# -- idempotency ---------------------------------------------------------------------------------


async def idempotent(
    request: Request,
    host: HostState,
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


def query_int(value: str | None, field: str, low: int, high: int, default: int) -> int:
    if value is None:
        return default
    if not re.fullmatch(r"-?\d{1,12}", value) or not low <= int(value) <= high:
        raise WireError.invalid(field, f"{field} must be an integer from {low} to {high}")
    return int(value)
