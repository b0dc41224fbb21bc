"""What every answer of the HTTP host shares: JSON text, error envelopes, ids on the wire.

- JSON bodies are compact with sorted keys, the text ``workbench replay --events`` writes one
  event a line, so an event fetched over HTTP has the same bytes as its line in that file (R22).
- Every failure is an OpenWOP error envelope ``{"error", "message", "details"?}`` with the status
  the registry (``errors.json``) gives its code; R11's refusal is one of them
  (``validation_error`` naming ``details.field``).
- A run id is ``tenant/opaque`` in bodies and travels in a path as one segment, *projected*:
  every byte outside ``[A-Za-z0-9._-]`` becomes ``~XX`` (``identity.md`` section 5). The host
  writes that form and reads it, the legacy ``%XX`` form and the bound form alike.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from starlette.responses import Response

__all__ = [
    "ERROR_STATUS",
    "OPENWOP_VERSION",
    "WireError",
    "dumps",
    "error_response",
    "json_response",
    "member_path",
    "project_id",
    "unproject_id",
]

OPENWOP_VERSION: Final = "2.0"
"""The protocol version the host speaks, sent as ``OpenWOP-Version`` on every response."""

ERROR_STATUS: Final[Mapping[str, int]] = {
    "validation_error": 400,
    "idempotency_key_invalid": 400,
    "unsupported_stream_mode": 400,
    "unauthenticated": 401,
    "forbidden": 403,
    "not_found": 404,
    "workbench.method_not_allowed": 405,
    "protocol_version_unsupported": 406,
    "idempotency_key_mismatch": 409,
    "idempotency_in_flight": 409,
    "run_state_conflict": 409,
    "run_terminal": 409,
    "payload_too_large": 413,
    "unsupported_media_type": 415,
    "fork_point_invalid": 422,
    "rate_limited": 429,
    "internal_error": 500,
}
"""The HTTP status of each code the host answers with (as ``errors.json`` registers them; the
one vendor code matches its ``vendorCodePattern``)."""


def dumps(value: Any) -> str:
    """Compact JSON with sorted keys, non-ASCII as itself: one event's line in a JSONL log."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class WireError(Exception):
    """A request the host answers with an error envelope; raised anywhere a handler runs."""

    def __init__(
        self,
        code: str,
        message: str,
        details: Mapping[str, Any] | None = None,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        """The registered error code (``validation_error``, ``not_found``, ...)."""
        self.message = message
        """What went wrong, in a sentence."""
        self.details = dict(details) if details is not None else None
        """The envelope's ``details`` (``{"field": ...}`` for a refusal)."""
        self.headers = dict(headers or {})
        """Extra response headers (``WWW-Authenticate``, ``Allow``)."""
        self.status = ERROR_STATUS[code]
        """The HTTP status."""

    @classmethod
    def invalid(cls, field: str, message: str) -> WireError:
        """``400 validation_error`` naming ``field`` (the R11 shape)."""
        return cls("validation_error", message, {"field": field})

    def body(self) -> dict[str, Any]:
        """The error envelope."""
        body: dict[str, Any] = {"error": self.code, "message": self.message}
        if self.details is not None:
            body["details"] = self.details
        return body


def json_response(
    body: Any, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """A JSON response (compact, sorted keys) with the protocol version header."""
    return text_response(dumps(body), status, headers)


def text_response(
    text: str, status: int = 200, headers: Mapping[str, str] | None = None
) -> Response:
    """JSON text already serialized (an event log's lines, a stable summary) as a response."""
    all_headers = {"OpenWOP-Version": OPENWOP_VERSION, **(headers or {})}
    return Response(
        text.encode("utf-8"),
        status_code=status,
        headers=all_headers,
        media_type="application/json",
    )


def error_response(error: WireError) -> Response:
    """The envelope of ``error`` with its status and headers."""
    return json_response(error.body(), error.status, error.headers)


_PASSTHROUGH = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
_ESCAPE = re.compile(r"[~%]([0-9A-Fa-f]{2})")


def project_id(bound: str) -> str:
    """A ``tenant/opaque`` id as one path segment (``workbench/ab`` -> ``workbench~2Fab``)."""
    return "".join(chr(b) if b in _PASSTHROUGH else f"~{b:02X}" for b in bound.encode("utf-8"))


def unproject_id(wire: str) -> str | None:
    """The bound id of a path segment (projected ``~XX`` or legacy ``%XX``), ``None`` when the
    escapes do not decode to UTF-8."""
    out = bytearray()
    pos = 0
    for match in _ESCAPE.finditer(wire):
        out += wire[pos : match.start()].encode("utf-8")
        out.append(int(match.group(1), 16))
        pos = match.end()
    out += wire[pos:].encode("utf-8")
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        return None


_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def member_path(base: str, key: str) -> str:
    """The JSON path of an object member: ``fixtureRuns.t-1``, or ``fixtureRuns["a b"]`` for a
    key that is not a plain name."""
    if _PLAIN_KEY.fullmatch(key):
        return f"{base}.{key}" if base else key
    return f"{base}[{json.dumps(key, ensure_ascii=False)}]"
