"""HTTP cassettes: recorded request/response exchanges, the container of four formats (R34).

Test suites record API traffic as cassettes, and those recordings are what many people have of
an agent's run. Four layouts are read:

- vcrpy (YAML): ``interactions[]`` of ``{request: {method, uri, body | parsed_body}, response:
  {status, body: {string} | parsed_body}}`` (pydantic-ai, most Python projects);
- vcrpy's older layout, ``requests[]`` and ``responses[]`` side by side (langchain), bodies
  often ``!!binary``;
- an HTTP Archive (HAR, JSON): ``log.entries[]`` of ``{request: {method, url, postData}, response:
  {status, content}}`` (Polly.js, browsers' network panels);
- Datadog's test agent's VCR proxy (JSON), one exchange a file: ``{request: {method, url, body},
  response: {status: {code}, body}}`` (dd-trace-py's ``tests/cassettes``).

A body is JSON, or server-sent events (``event:``/``data:`` lines, SSE comments ignored), or
empty. The exchanges feed the OpenAI Responses loader (``responses``), the chat API loader
(``chat_cassettes``) and the MCP loader (``mcp``). YAML is read by ``cassette_yaml``.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .aws_event_stream import stream_events
from .cassette_layouts import NotBase64, cassette_pairs
from .chat_resends import UNSHARED, ResentBodies
from .reading import decode_json

__all__ = [
    "Exchange",
    "cassette_exchanges",
    "cassette_request_json",
    "cassette_requests",
    "other_exchanges",
    "sse_events",
    "with_bodies",
]


@dataclass(frozen=True, slots=True)
class Exchange:
    """One recorded HTTP request and its response."""

    index: int
    """The exchange's place in the cassette (0-based)."""
    uri: str
    method: str
    request: Any
    """The request body as JSON (``None`` when it has none or it is not JSON)."""
    response: Any
    """The response body as JSON, or ``None``."""
    events: tuple[Any, ...] = ()
    """The response's server-sent events' ``data`` as JSON, in order (streamed responses)."""
    status: int | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def where(self) -> str:
        return f"interaction {self.index}"

    @property
    def refused(self) -> bool:
        """Whether the server refused the request (HTTP 400 or more: a rate limit, a bad
        request) or none answered (HAR's status 0: aborted). A refused model call is no turn of
        its conversation."""
        return self.status is not None and (self.status >= 400 or self.status == 0)


class _NewExchange:
    """Builds an :class:`Exchange` by plain slot stores, then becomes one (as
    ``records.new_boundary`` builds boundaries): a cassette holds thousands of exchanges, and the
    frozen dataclass's ``__init__`` stores each field through ``object.__setattr__``. It has the
    exchange's slots in the same order and nothing else, so CPython lets it change class."""

    __slots__ = Exchange.__slots__  # the dataclass made them

    def __init__(
        self,
        index: int,
        uri: str,
        method: str,
        request: Any,
        response: Any,
        events: tuple[Any, ...],
        status: int | None,
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        self.index = index
        self.uri = uri
        self.method = method
        self.request = request
        self.response = response
        self.events = events
        self.status = status
        self.extra: Mapping[str, Any] = {} if extra is None else extra
        self.__class__ = Exchange  # type: ignore[assignment]


_exchange: Callable[[int, str, str, Any, Any, tuple[Any, ...], int | None], Exchange] = _NewExchange  # type: ignore[assignment]  # its instances are Exchange once built


def with_bodies(
    exchange: Exchange, request: Any, response: Any, events: tuple[Any, ...] = ()
) -> Exchange:
    """``dataclasses.replace(exchange, request=..., response=..., events=...)`` by slot stores:
    the readers that write each exchange of a cassette in another API's shape (Converse's,
    the Gemini API's) make one per exchange, and ``replace`` costs several times as much."""
    return _NewExchange(  # type: ignore[return-value]  # an Exchange once built
        exchange.index,
        exchange.uri,
        exchange.method,
        request,
        response,
        events,
        exchange.status,
        exchange.extra,
    )


def sse_events(text: str, found: list[tuple[str, str]] | None = None) -> list[Any]:
    """The JSON ``data`` of each server-sent event in ``text`` (comments, blanks and data that
    is no JSON document, such as OpenAI's ``[DONE]``, skipped). ``found`` collects the events
    whose data looks like JSON and does not decode as a file's JSON would (R35), as
    ``(field, message)``: such a stream is not read whole, and a problem says so."""
    events: list[Any] = []
    data: list[str] = []
    for raw in text.replace("\r\n", "\n").split("\n"):
        if raw.startswith("data:"):
            data.append(raw[5:].lstrip(" "))
        elif not raw.strip() and data:
            events.append(_event(data, len(events), found))
            data = []
    if data:
        events.append(_event(data, len(events), found))
    return [e for e in events if e is not None]


def _event(data: list[str], number: int, found: list[tuple[str, str]] | None) -> Any:
    text = "\n".join(data)
    if not text.lstrip().startswith(("{", "[")) or text.strip() == "[DONE]":
        return None  # a ping, a comment, OpenAI's end of stream
    value, problem = _strict_json(text)
    if problem is not None and found is not None:
        found.append((f"body, event {number}", problem))
    return value


def _strict_json(text: str, resends: ResentBodies | None = None) -> tuple[Any, str | None]:
    """JSON text decoded as strictly as a file's (``reading.decode_json``: R35), and why not.
    ``resends``: a request body, decoded against the cassette's requests before it."""
    try:
        raw = text.encode("utf-8")
    except UnicodeEncodeError:
        return None, "not UTF-8 text (it holds a lone surrogate)"
    if resends is not None:
        shared = resends.body(raw)
        if shared is not UNSHARED:
            return shared, None
    value, problem = decode_json(raw, "")
    if problem is None:
        return value, None
    field = f"{problem.field}: " if problem.field else ""
    return None, f"{field}{problem.message}"


class _Budget:
    """What a cassette's compressed bodies may still inflate to, in all (a gzip bomb is small)."""

    __slots__ = ("left",)

    def __init__(self) -> None:
        self.left = MAX_INFLATED


def _body(
    body: Any,
    budget: _Budget,
    found: list[tuple[str, str]] | None = None,
    resends: ResentBodies | None = None,
) -> tuple[Any, tuple[Any, ...]]:
    """A recorded body as (JSON, SSE events). A body that looks like JSON and does not decode
    as a file's JSON would (R35), an event of such data, and a compressed body past the budget,
    add ``(field, message)`` to ``found``. Bodies that are not JSON (a page, a PDF) are none.
    ``resends``: the body is a request's (``chat_resends``)."""
    if isinstance(body, Mapping) and "string" in body:
        body = body["string"]
    if isinstance(body, NotBase64):
        if found is not None:
            found.append(("body", "not base64, as its encoding says: not read"))
        return None, ()
    if isinstance(body, bytes | bytearray):
        content = _inflated(bytes(body), budget)
        if content is None:
            if found is not None:
                found.append(("body", _BUDGET_MESSAGE))
            return None, ()
        if content[:1] == b"\x00":  # binary frames (no text starts so): an AWS event stream
            return None, _stream_events(content, found)
        try:
            body = content.decode("utf-8")
        except UnicodeDecodeError:
            return None, ()
    if isinstance(body, Mapping | list):
        return body, ()
    if not isinstance(body, str) or not body.strip():
        return None, ()
    stripped = body.lstrip()
    if stripped.startswith(("{", "[")):
        value, problem = _strict_json(body, resends)
        if problem is not None and found is not None:
            found.append(("body", problem))
        return value, ()
    if "data:" in body:
        return None, tuple(sse_events(body, found))
    return None, ()


def _stream_events(data: bytes, found: list[tuple[str, str]] | None) -> tuple[Any, ...]:
    """The events of an AWS event stream (Bedrock's streamed reply), each decoded as strictly
    as a file's JSON (R35); none for bytes that are not one."""
    read = stream_events(data)
    if read is None:
        if found is not None:
            found.append(("body", _NOT_A_STREAM))
        return ()
    texts, errors = read
    if found is not None:
        found += [("body", f"the model's stream failed: {error}") for error in errors]
    events: list[Any] = []
    for number, text in enumerate(texts):
        value, problem = _strict_json(text)
        if problem is not None:
            if found is not None:
                found.append((f"body, event {number}", problem))
            continue
        events.append(value)
    return tuple(events)


_NOT_A_STREAM = (
    "binary frames that are not a whole AWS event stream (a frame cut short, or a checksum "
    "that does not hold): not read"
)

MAX_INFLATED = 32 * 1024 * 1024
"""The most a cassette's compressed bodies may inflate to, in all (32 MiB): the bodies past it
are not read, and a problem names each."""
_BUDGET_MESSAGE = (
    f"a compressed body that would inflate past {MAX_INFLATED >> 20} MiB for the whole cassette "
    "(or is not a whole stream): not read"
)


def _inflated(data: bytes, budget: _Budget) -> bytes | None:
    """A body recorded compressed (``Content-Encoding: gzip`` or ``deflate``, which vcrpy keeps
    as ``!!binary`` unless told to decode it) as its content; any other bytes as they are.
    ``None`` for a body that is not a whole stream or would take the cassette's bodies past
    :data:`MAX_INFLATED` in all."""
    if data.startswith(b"\x1f\x8b"):
        wbits = 31
    elif len(data) > 1 and data[0] == 0x78 and (data[0] << 8 | data[1]) % 31 == 0:
        wbits = 15  # a zlib stream (deflate as HTTP servers send it)
    else:
        return data
    inflate = zlib.decompressobj(wbits=wbits)
    try:
        content = inflate.decompress(data, budget.left + 1)
    except zlib.error:
        return None
    if inflate.unconsumed_tail or not inflate.eof or len(content) > budget.left:
        return None
    budget.left -= len(content)
    return content


def _status(response: Mapping[str, Any]) -> int | None:
    """The response's HTTP status (vcrpy's ``status.code``, HAR's ``status``, go-vcr's ``code``
    beside its ``status: "200 OK"``; digits too)."""
    status = response.get("status")
    code = status.get("code") if type(status) is dict or isinstance(status, Mapping) else status
    if type(code) is str and code.isascii() and code.isdigit() and len(code) <= 3:
        code = int(code)
    if type(code) is not int and type(response.get("code")) is int:
        code = response["code"]
    if type(code) is int:
        return code
    return None


def cassette_request_json(
    request: Mapping[str, Any],
    budget: _Budget | None = None,
    found: list[tuple[str, str]] | None = None,
    *,
    naming: str | None = None,
    resends: ResentBodies | None = None,
) -> Any:
    """The JSON body of one recorded request (its ``parsed_body``, or its ``body`` decoded).

    ``naming``: a sniffer looks for an object with a member of this name, and gets ``None``
    for a body recorded as text that cannot hold one (the text has neither the name nor a
    ``\\u`` escape, which could spell it), without decoding it: a large cassette of other
    traffic was once decoded whole only to find it held none. ``resends``: the cassette's
    requests so far (``chat_resends``), which this one may resend."""
    if "parsed_body" in request:
        return request["parsed_body"]
    body = request.get("body")
    if naming is not None:
        text = body.get("string") if isinstance(body, Mapping) else body
        if type(text) is str and naming not in text and "\\u" not in text:
            return None
    return _body(body, budget or _Budget(), found, resends)[0]


def cassette_requests(data: Any, *, naming: str | None = None) -> Iterator[Any]:
    """The JSON body of each request of a decoded cassette, one at a time (nothing when
    ``data`` is not one): what a sniffer needs, without reading every response. ``naming``:
    as :func:`cassette_request_json`'s."""
    for request, _ in cassette_pairs(data) or ():
        if isinstance(request, Mapping):
            yield cassette_request_json(request, naming=naming)


def cassette_exchanges(data: Any) -> list[Exchange] | None:
    """The exchanges of a decoded cassette, or ``None`` when ``data`` is not one."""
    pairs = cassette_pairs(data)
    if pairs is None:
        return None
    out: list[Exchange] = []
    budget = _Budget()
    resends = ResentBodies()
    for index, (request, response) in enumerate(pairs):
        if type(request) is not dict and not isinstance(request, Mapping):
            continue
        asked: list[tuple[str, str]] = []
        if "parsed_body" in request:  # cassette_request_json's first case, without the call
            request_json = request["parsed_body"]
        else:
            request_json = cassette_request_json(request, budget, asked, resends=resends)
        response_json: Any = None
        events: tuple[Any, ...] = ()
        status = None
        answered: list[tuple[str, str]] = []
        if type(response) is dict or isinstance(response, Mapping):
            if "parsed_body" in response:
                response_json = response["parsed_body"]
            else:
                response_json, events = _body(response.get("body"), budget, answered)
            status = _status(response)
        uri = request.get("uri")
        if not isinstance(uri, str):
            uri = request.get("url")  # go-vcr's name for it
        method = request.get("method")
        exchange = _exchange(
            index,
            uri if isinstance(uri, str) else "",
            method if isinstance(method, str) else "",
            request_json,
            response_json,
            events,
            status,
        )
        if asked or answered:
            broken = [(f"request.{f}", m) for f, m in asked]
            broken += [(f"response.{f}", m) for f, m in answered]
            exchange = replace(exchange, extra={"bodyProblems": broken})
        out.append(exchange)
    return out


def other_exchanges(exchanges: Iterable[Exchange], read: set[int]) -> list[dict[str, Any]]:
    """The exchanges no loader read (``read``: the indexes that were), each as where it is,
    what it called and how it ended: a cassette's known non-tool records (R35)."""
    other: list[dict[str, Any]] = []
    for exchange in exchanges:
        if exchange.index in read:
            continue
        entry: dict[str, Any] = {"interaction": exchange.index, "uri": exchange.uri}
        if exchange.method:
            entry["method"] = exchange.method
        if exchange.status is not None:
            entry["status"] = exchange.status
        if exchange.extra.get("bodyProblems"):
            entry["bodyProblems"] = [f"{f}: {m}" for f, m in exchange.extra["bodyProblems"]]
        other.append(entry)
    return other
