"""httprr traces (Go's ``rsc.io/httprr``, copied into langchaingo and adk-go) as a cassette.

A trace is the line ``httprr trace v1``, then one record an exchange: a line of two byte
counts, ``<request> <response>``, followed by that many bytes of the request as Go writes it to
the wire (its request line, its headers, a blank line and the body) and then that many bytes of
the response (its status line, headers and body; a body sent in chunks is joined). ``trace``
gives the records in vcrpy's shape (``{"interactions": [{"request", "response"}]}``, bodies as
bytes, which the cassette reader decodes, inflating a compressed one), so a trace is read as any
HTTP cassette. A malformed record is refused with its line.
"""

from __future__ import annotations

import re
from typing import Any

from .records import LoadError, LoadProblem

__all__ = ["HEADER", "trace"]

HEADER = b"httprr trace v1\n"


def trace(data: bytes, file: str) -> dict[str, Any]:
    """The trace's exchanges in vcrpy's cassette shape (see the module)."""
    interactions: list[dict[str, Any]] = []
    at = len(HEADER)
    line = 2
    while at < len(data):
        end = data.find(b"\n", at)
        counts = data[at:end].split(b" ") if end >= 0 else []
        if len(counts) != 2 or not all(c.isdigit() and len(c) <= 12 for c in counts):
            raise _refused(file, line, "a record must start with two byte counts")
        asked, answered = int(counts[0]), int(counts[1])
        start = end + 1
        if start + asked + answered > len(data):
            raise _refused(file, line, "a record is cut short (fewer bytes than it counts)")
        request = _message(data[start : start + asked], file, line, "request")
        response = _message(data[start + asked : start + asked + answered], file, line, "response")
        line += 1 + data.count(b"\n", start, start + asked + answered)
        at = start + asked + answered
        interactions.append({"request": _request(request), "response": _response(response)})
    return {"interactions": interactions}


def _message(raw: bytes, file: str, line: int, side: str) -> tuple[bytes, dict[str, str], bytes]:
    """An HTTP message's first line, headers (names lower-cased) and body."""
    head, blank, body = raw.partition(b"\r\n\r\n")
    if not blank:
        raise _refused(file, line, f"the {side} has no blank line after its headers")
    first, *fields = head.split(b"\r\n")
    headers: dict[str, str] = {}
    for field in fields:
        name, colon, value = field.partition(b":")
        if colon:
            headers[name.strip().lower().decode("latin-1")] = value.strip().decode("latin-1")
    if headers.get("transfer-encoding", "").lower() == "chunked":
        body = _unchunked(body, file, line)
    return first, headers, body


def _unchunked(body: bytes, file: str, line: int) -> bytes:
    """A chunked body's content. Each chunk's size is hexadecimal digits; a size that is not
    (``-6``), a chunk past the body's end, or a body with no last (empty) chunk is refused: the
    loop always moves forward, so no body can hold it (a negative size once did, for ever)."""
    parts: list[bytes] = []
    at = 0
    while True:
        end = body.find(b"\r\n", at)
        if end < 0:
            raise _refused(file, line, "a chunked body ends before its last chunk")
        size_text = body[at:end].split(b";", 1)[0].strip()
        if not _HEX_SIZE.fullmatch(size_text):
            raise _refused(file, line, "a chunked body's chunk has no size")
        size = int(size_text, 16)
        if size == 0:
            return b"".join(parts)
        if end + 2 + size > len(body):
            raise _refused(file, line, "a chunked body's chunk runs past the body's end")
        parts.append(body[end + 2 : end + 2 + size])
        at = end + 2 + size + 2


_HEX_SIZE = re.compile(rb"[0-9A-Fa-f]{1,15}")
"""A chunk's size: hexadecimal digits (no sign, no spaces; fifteen at most, under 2**60)."""


def _request(message: tuple[bytes, dict[str, str], bytes]) -> dict[str, Any]:
    first, headers, body = message
    words = first.decode("latin-1").split(" ")
    method = words[0] if words else ""
    target = words[1] if len(words) > 1 else ""
    if target.startswith("/"):  # the path alone: the host is its header's
        target = f"https://{headers.get('host', '')}{target}"
    return {"uri": target, "method": method, "body": {"string": body}}


def _response(message: tuple[bytes, dict[str, str], bytes]) -> dict[str, Any]:
    first, _, body = message
    words = first.decode("latin-1").split(" ")
    code = int(words[1]) if len(words) > 1 and words[1].isdigit() and len(words[1]) <= 3 else None
    return {"status": {"code": code}, "body": {"string": body}}


def _refused(file: str, line: int, message: str) -> LoadError:
    problem = LoadProblem(file, f"line {line}", "", f"not an httprr trace: {message}", line)
    return LoadError([problem])
