"""MCP JSON-RPC recordings made by other recorders as promoted runs (SPEC R34-R36, R42).

These shapes are read, each one run:

- **mcp-recorder cassettes** (JSON): ``{"version", "metadata", "interactions": [{"type":
  "jsonrpc_request" | "notification" | "lifecycle", "request", "response", ...}]}``, each
  request beside its response (``latency_ms`` its duration); agent-vcr's ``.vcr`` holds the same
  interactions under ``session``;
- **mcp-cassette recordings** (JSON): ``messages[]`` of ``{"sender": "client" | "server",
  "payload", "t_offset_ms"}``, **mcp-vcr transcripts** (YAML): ``{"meta", "messages": [{"t",
  "dir", "payload"}]}``, and **mcp-arcade receipts** (JSON): ``wire[]`` of ``{"direction": "out"
  | "in", "message"}``, each read as the message log below (a call's duration the offsets');
- **goose's MCP replay files** (``STDIN: <message>`` / ``STDOUT: <message>`` / ``STDERR:
  <text>`` lines), read as the message log below by ``mcp_goose``;
- **HTTP cassettes** (vcrpy YAML, see ``cassettes``) of Streamable-HTTP MCP traffic: the
  JSON-RPC request is the request body, the reply sits in the response body or its
  server-sent events (progress and log notifications beside it are not results);
- **a JSON array or JSONL of JSON-RPC messages** in the order they passed (a proxy's log),
  bare or each in an envelope that says which way it went (``{"seq", "t", "dir": "c2s" |
  "s2c", "msg": {...}}``, as the stdio mcp-recorder of toddegray writes, with a closing
  ``{"type": "summary"}`` record, a frame it could not parse as ``"malformed": true`` and a
  batch as a list; deja's ``{"type": "frame", "dir", "t_ms", "msg"}`` and the npm
  mcp-cassette's ``{"type": "frame", "t", "dir", "frame"}``, each after a ``{"type":
  "header"}`` line).

A ``tools/call`` request (``params.name``, ``params.arguments``) is a call; the response with
its ``id`` is its result. Ids restart per connection, so a cassette's request pairs with the
response recorded beside it, and a message log pairs each response with the open request of
its id (R2), sent the other way when the log says which way each message went (a server's
own requests to the client have ids of their own). It failed when the reply is a JSON-RPC
``error`` (its ``code`` is the boundary's ``error_code``, the error object its response, kept
whole for serving, R42) or the result says
``isError: true`` (a non-boolean ``isError`` is a problem, R35). In a message log, a call its
caller cancelled (``notifications/cancelled`` of its request id, sent the way the call went)
failed, ``error_code`` ``cancelled``, the reason its text; a reply after it is counted, as MCP
has the caller ignore it. Every other method
(``initialize``, ``tools/list``, notifications) is counted as a non-tool record (R35), and an
HTTP exchange that is not JSON-RPC (the model's own API calls in the same cassette) too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from .._common.jsonio import json_text
from .._common.toolresult import text_content
from .cassettes import Exchange, cassette_exchanges, cassette_request_json, cassette_requests
from .common import RecordTally
from .mcp_logs import cassette_messages, is_cassette_log
from .mcp_rpc import RPC, is_mcp_request, is_rpc, milliseconds, rpc_call, rpc_reply, session_run
from .pairing import CallPairer
from .records import LoadProblem, PromotedRun

__all__ = [
    "is_message_envelope",
    "is_message_log_head",
    "load_mcp",
    "load_mcp_messages",
    "sniff_mcp",
    "sniff_mcp_messages",
]


def _is_tools_call(message: Any) -> bool:
    return is_rpc(message) and message.get("method") == "tools/call"


def sniff_mcp(data: Any, exchanges: Sequence[Exchange] | None = None) -> bool:
    """An mcp-recorder, agent-vcr or mcp-cassette recording, or an HTTP cassette holding
    MCP's JSON-RPC traffic (:func:`is_mcp_request`). ``exchanges``: the cassette's, when read
    already: their decoded request bodies are looked at (a loop over the raw interactions
    costs more), unless one has none (mcp-recorder's request is the message itself)."""
    if not isinstance(data, dict):
        return False
    if _vcr_session(data) is not None or is_cassette_log(data):
        return True
    bodies = [e.request for e in exchanges] if exchanges is not None else []
    if bodies and all(type(body) is dict for body in bodies):
        return any(body.get(RPC) == "2.0" and is_mcp_request(body) for body in bodies)
    interactions = data.get("interactions")
    if isinstance(interactions, list):  # one loop: a large cassette of other traffic is common
        for interaction in interactions:
            request = interaction.get("request") if type(interaction) is dict else None
            if not isinstance(request, dict):
                continue
            if request.get(RPC) == "2.0" and is_mcp_request(request):
                return True  # mcp-recorder's cassette: the message itself
            body = request.get("parsed_body", request)  # (the request: no parsed body)
            if body is request:
                body = cassette_request_json(request, naming=RPC)
            if isinstance(body, dict) and body.get(RPC) == "2.0" and is_mcp_request(body):
                return True
        return False
    return any(is_mcp_request(request) for request in cassette_requests(data, naming=RPC))


_ANSWERED_BY = {"c2s": "s2c", "s2c": "c2s", "": ""}
"""The way a reply goes to a request sent each way (``""``: a log that does not say)."""


_MESSAGE_KEYS = ("msg", "frame")
"""Where an envelope holds its message: ``msg`` (toddegray's mcp-recorder, deja), ``frame``
(the npm mcp-cassette's JSONL)."""


def is_message_envelope(record: Any) -> bool:
    """A logged message in its envelope: ``{"dir": "c2s" | "s2c", "msg" | "frame":
    <message>}``."""
    return (
        isinstance(record, dict)
        and "jsonrpc" not in record
        and record.get("dir") in ("c2s", "s2c")
        and any(key in record for key in _MESSAGE_KEYS)
    )


def _enveloped(record: dict[str, Any]) -> Any:
    """The message an envelope holds."""
    return record["msg"] if "msg" in record else record["frame"]


_LOG_RECORDS = frozenset({"summary", "header", "raw"})
"""A message log's own records (no message): toddegray's closing ``summary``, the ``header``
line deja and the npm mcp-cassette start with (recorder, transport, command), and the latter's
``raw`` line (a line of the server's output that was no JSON-RPC)."""


def _is_log_record(record: Any) -> bool:
    kind = record.get("type") if isinstance(record, dict) else None
    return (
        type(kind) is str  # a list or an object names no record type (nor is hashable)
        and kind in _LOG_RECORDS
        and not any(key in record for key in _MESSAGE_KEYS)
    )


def is_message_log_head(heads: Sequence[Any]) -> bool:
    """Whether a JSONL file's first records are a message log's: a JSON-RPC message or an
    envelope, after the recorder's header if any."""
    first = next((r for r in heads if not _is_log_record(r)), None)
    return (isinstance(first, Mapping) and first.get("jsonrpc") == "2.0") or _is_envelope_shaped(
        first
    )


def _is_envelope_shaped(record: Any) -> bool:
    """An envelope around a JSON-RPC message, whatever its ``dir`` says (a wrong one is the
    loader's problem to name, R35)."""
    if not isinstance(record, dict) or "jsonrpc" in record or "dir" not in record:
        return False
    return any(is_rpc(record.get(key)) for key in _MESSAGE_KEYS)


def _logged(record: Any) -> Any:
    return _enveloped(record) if is_message_envelope(record) else record


def sniff_mcp_messages(data: Any) -> bool:
    """A JSON array of JSON-RPC messages, bare or in envelopes, with a ``tools/call``."""
    if not isinstance(data, list) or not data:
        return False
    return all(
        is_rpc(r) or is_message_envelope(r) or _is_envelope_shaped(r) or _is_log_record(r)
        for r in data
    ) and any(_is_tools_call(_logged(r)) for r in data)


def load_mcp(
    data: Mapping[str, Any], file: str, exchanges: list[Exchange] | None = None
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """One run from a cassette (``exchanges``: its HTTP exchanges, when already read)."""
    messages = cassette_messages(data)
    if messages is not None:
        return load_mcp_messages(messages, file)
    pairer = CallPairer(file)
    tally = RecordTally()
    session = _vcr_session(data)
    recording, at = (session, "session.") if session is not None else (data, "")
    recorder = _is_recorder(recording)
    if session is not None:
        for key in ("initialize_request", "initialize_response"):
            if key in session:
                tally.add(f"session:{key}")
    if recorder:
        for index, interaction in enumerate(recording["interactions"]):
            where = f"{at}interactions[{index}]"
            if not isinstance(interaction, dict):
                pairer.problem(where, "", "an interaction must be an object")
                continue
            request = interaction.get("request")
            replies = [interaction.get("response"), *_listed(interaction.get("notifications"))]
            took = milliseconds(interaction.get("latency_ms"))
            _exchange(request, replies, pairer, tally, where, f"mcp-{index}", took)
    else:
        if exchanges is None:
            exchanges = cassette_exchanges(data) or []
        for exchange in exchanges:
            if not is_rpc(exchange.request):
                tally.add("http:other")
                continue
            _exchange(
                exchange.request,
                _replies(exchange),
                pairer,
                tally,
                exchange.where,
                f"mcp-{exchange.index}",
            )
    boundaries = pairer.finish()
    metadata: dict[str, Any] = {}
    if recorder and isinstance(data.get("metadata"), dict):
        metadata["recording"] = data["metadata"]
    metadata.update(tally.to_metadata())
    return [session_run(file, boundaries, metadata)], pairer.problems


def _vcr_session(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """agent-vcr's ``.vcr`` recording: ``{"format_version", "metadata", "session":
    {"initialize_request", "initialize_response", "interactions": [{"request", "response",
    "notifications", "latency_ms"}]}}``, its interactions read as mcp-recorder's."""
    session = data.get("session")
    return session if isinstance(session, dict) and _is_recorder(session) else None


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _is_recorder(data: Mapping[str, Any]) -> bool:
    interactions = data.get("interactions")
    return isinstance(interactions, list) and any(
        isinstance(i, dict) and is_rpc(i.get("request")) for i in interactions
    )


def _replies(exchange: Exchange) -> list[Any]:
    if exchange.response is not None:
        return exchange.response if isinstance(exchange.response, list) else [exchange.response]
    return list(exchange.events)


def _exchange(
    request: Any,
    replies: Sequence[Any],
    pairer: CallPairer,
    tally: RecordTally,
    where: str,
    fallback_id: str,
    took: int | None = None,
) -> None:
    """One request with the messages that came back for it (``took``: its latency, ms)."""
    if not is_rpc(request):
        tally.other("non-json-rpc", request)
        return
    method = request.get("method")
    if method != "tools/call":
        tally.add(f"rpc:{method}" if isinstance(method, str) else "rpc:response")
        return
    tally.add("rpc:tools/call")
    rpc_id = request.get("id")
    reply = next(
        (r for r in replies if is_rpc(r) and "method" not in r and r.get("id") == rpc_id), None
    )
    for other in replies:
        if other is not reply and is_rpc(other):
            tally.add("rpc:notification" if "method" in other else "rpc:response")
    call_id = f"{fallback_id}" if rpc_id is None else f"{fallback_id}:{rpc_id}"
    if not rpc_call(request, call_id, pairer, where):
        return
    if reply is None:
        pairer.problem(where, "response", f"tools/call id {rpc_id!r} has no recorded reply")
        pairer.discard(call_id)
        return
    rpc_reply(reply, call_id, pairer, where, took)


def load_mcp_messages(
    messages: Sequence[tuple[str, Any]], file: str
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """A log of JSON-RPC messages ``(where, message)`` in the order they passed, each bare or
    in its envelope (see the module's docstring)."""
    pairer = CallPairer(file)
    tally = RecordTally()
    log = _MessageLog(pairer, tally)
    for number, (where, record) in enumerate(messages):
        if _is_log_record(record):
            tally.add(f"log:{record['type']}")
            continue
        if not is_message_envelope(record):
            if _is_envelope_shaped(record):  # R35: a way no recorder writes
                said = f'must be "c2s" or "s2c", not {json_text(record["dir"])[:40]}'
                pairer.problem(where, "dir", said)
                continue
            log.message(record, "", where, f"mcp-{number}")
            continue
        direction = record["dir"]
        message = _enveloped(record)
        if record.get("malformed") is True:
            tally.add("log:malformed-frame")  # the recorder's own note of bytes it could not parse
        elif isinstance(message, list):
            tally.add("log:batch")
            for part, item in enumerate(message):
                log.message(item, direction, f"{where} msg[{part}]", f"mcp-{number}.{part}")
        else:
            at = record.get("at", record.get("t_ms"))  # deja's offset; mcp-cassette's ``t``
            at = record.get("t") if at is None and "frame" in record else at
            log.message(message, direction, f"{where} msg", f"mcp-{number}", at)
    boundaries = pairer.finish()
    run = PromotedRun(
        run_id="mcp-session",
        boundaries=boundaries,
        source=file,
        format="mcp",
        task_key="session",
        metadata=tally.to_metadata(),
    )
    return [run], pairer.problems


class _MessageLog:
    """Pairs each logged ``tools/call`` request with the response of its id that came back the
    other way (or of its id alone when the log does not say which way messages went)."""

    __slots__ = ("open_ids", "pairer", "sent_at", "tally")

    def __init__(self, pairer: CallPairer, tally: RecordTally) -> None:
        self.pairer = pairer
        self.tally = tally
        self.open_ids: dict[tuple[str, Any], str] = {}  # (reply's way, rpc id) -> call id
        self.sent_at: dict[str, Any] = {}  # call id -> when its request passed (ms offset)

    def message(self, message: Any, way: str, where: str, call_id: str, at: Any = None) -> None:
        """One message; ``at``: when it passed, in ms from the start (``t_offset_ms``)."""
        if not is_rpc(message):
            self.pairer.problem(where, "jsonrpc", 'not a JSON-RPC 2.0 message ("jsonrpc": "2.0")')
            return
        if "method" in message:
            method = message.get("method")
            if method == "tools/call" and "id" in message:
                self.tally.add("rpc:tools/call")
                if rpc_call(message, call_id, self.pairer, where):
                    key = (_ANSWERED_BY[way], _hashable(message.get("id")))
                    self.open_ids[key] = call_id
                    self.sent_at[call_id] = at
            elif method == "notifications/cancelled":
                self.tally.add("rpc:notifications/cancelled")
                self.cancelled(message, way, where)
            else:
                self.tally.add(f"rpc:{method}" if isinstance(method, str) else "rpc:?")
            return
        answered = self.open_ids.pop((way, _hashable(message.get("id"))), "")
        if not answered:
            self.tally.add("rpc:response")
            return
        sent, got = milliseconds(self.sent_at.pop(answered, None)), milliseconds(at)
        took = got - sent if sent is not None and got is not None and got >= sent else None
        rpc_reply(message, answered, self.pairer, where, took)

    def cancelled(self, message: Mapping[str, Any], way: str, where: str) -> None:
        """MCP's ``notifications/cancelled`` (``params.requestId``, ``params.reason``) sent the
        way the call went: its caller gave up on it (a timeout, the user), and had an error
        where a result would be, the reason its text (``error_code`` ``cancelled``). A reply
        that comes after is no answer: MCP has the caller ignore it, so it is counted."""
        params = message.get("params")
        request_id = params.get("requestId") if isinstance(params, dict) else None
        call_id = self.open_ids.pop((_ANSWERED_BY[way], _hashable(request_id)), "")
        if not call_id:
            return  # another request's cancellation, or a call already answered
        reason = params.get("reason") if isinstance(params, dict) else None
        said = reason if isinstance(reason, str) and reason else "cancelled by the caller"
        self.sent_at.pop(call_id, None)
        self.pairer.result(
            call_id,
            {"content": text_content(said), "isError": True},
            True,
            where=where,
            field_name="params.requestId",
            error_code="cancelled",
            error_message=said,
            extra={"cancelled": params},
        )


def _hashable(value: Any) -> Any:
    return value if isinstance(value, str | int | float | type(None)) else json.dumps(value)
