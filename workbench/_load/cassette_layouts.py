"""The layouts of HTTP cassettes, each read as vcrpy's ``(request, response)`` pairs.

``cassette_pairs`` gives a decoded cassette's records in vcrpy's shape, whatever its layout
(``cassettes`` lists them): vcrpy's ``interactions[]``, its older ``requests[]`` and
``responses[]`` side by side, Ruby's VCR's and R's vcr's ``http_interactions[]``, an HTTP
Archive's ``log.entries[]`` (and one HAR entry saved alone), one exchange of Datadog's test
agent, or the Azure SDKs' test proxy's ``Entries[]``. A body recorded base64-encoded (HAR's
``encoding: base64``, the agent's ``base64:`` prefix; Polly.js's JSON array of base64 chunks,
or of hex chunks before its version 6) is its bytes, or a :class:`NotBase64` that the body
reader reports.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterable, Mapping
from itertools import zip_longest
from typing import Any

__all__ = ["NotBase64", "cassette_pairs"]


def cassette_pairs(data: Any) -> Iterable[tuple[Any, Any]] | None:
    """A decoded cassette's (request, response) records, lazily, or ``None`` when ``data`` is
    not one (vcrpy's ``interactions``, or parallel ``requests`` and ``responses`` lists)."""
    if not isinstance(data, Mapping):
        return None
    if isinstance(data.get("interactions"), list):
        return (
            (i.get("request"), i.get("response"))
            if type(i) is dict or isinstance(i, Mapping)
            else (None, None)
            for i in data["interactions"]
        )
    if isinstance(data.get("http_interactions"), list):  # Ruby's VCR, and R's vcr
        return (_http_interaction(i) for i in data["http_interactions"])
    if isinstance(data.get("requests"), list) and isinstance(data.get("responses"), list):
        # a request with no response is still read (what it sent); one is no exchange
        return zip_longest(data["requests"], data["responses"])
    log = data.get("log")
    if isinstance(log, Mapping) and isinstance(log.get("entries"), list):
        return (_har_pair(entry) for entry in log["entries"])
    if isinstance(data.get("Entries"), list):  # the Azure SDKs' test proxy
        return (_test_proxy_pair(entry) for entry in data["Entries"])
    request, response = data.get("request"), data.get("response")
    if not isinstance(request, Mapping) or not isinstance(response, Mapping):
        return None
    url = request.get("url")
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        return None  # a recording names the server it called (a mock's mapping need not)
    if "postData" in request or "content" in response:
        return iter((_har_pair(data),))  # one HAR entry, saved on its own
    if "status" in response and ("body" in request or "body" in response):
        return iter((_proxy_pair(request, response),))
    return None


def _http_interaction(interaction: Any) -> tuple[Any, Any]:
    """A cassette of Ruby's VCR (``ruby_llm``) or R's vcr (``ellmer``): ``http_interactions[]`` of
    ``{request: {method, uri, body: {encoding, string}}, response: {status: {code, message} |
    code, body}}``, a binary body as ``base64_string``; in vcrpy's shape."""
    if not isinstance(interaction, Mapping):
        return None, None
    sides = []
    for side in (interaction.get("request"), interaction.get("response")):
        body = side.get("body") if isinstance(side, Mapping) else None
        if isinstance(body, Mapping) and "base64_string" in body and "string" not in body:
            side = {**side, "body": {"string": _base64(body["base64_string"])}}  # type: ignore[dict-item]
        sides.append(side)
    return sides[0], sides[1]


def _proxy_pair(request: Mapping[str, Any], response: Mapping[str, Any]) -> tuple[Any, Any]:
    """A cassette of Datadog's test agent (``ddapm-test-agent``'s VCR proxy, dd-trace-py's
    ``tests/cassettes/<provider>/*.json``): one exchange a file, ``{request: {method, url,
    headers, body}, response: {status: {code, message}, headers, body}}``, each body its text,
    or ``base64:`` and its bytes base64-encoded; in vcrpy's shape."""
    return (
        {"uri": request["url"], "method": request.get("method"), "body": _proxy_body(request)},
        {"status": response["status"], "body": {"string": _proxy_body(response)}},
    )


def _proxy_body(record: Mapping[str, Any]) -> Any:
    body = record.get("body")
    if isinstance(body, str) and body.startswith("base64:"):
        return _base64(body[7:])
    return body


def _test_proxy_pair(entry: Any) -> tuple[Any, Any]:
    """A recording of the Azure SDKs' test proxy (every Azure SDK's, and OpenAI's .NET
    library's ``tests/SessionRecords``): ``{"Entries": [{RequestUri, RequestMethod,
    RequestBody, StatusCode, ResponseBody, ...}], "Variables"}``, a JSON body kept as JSON, a
    text body as its text, a streamed one as its list of lines; in vcrpy's shape."""
    if not isinstance(entry, Mapping):
        return None, None
    request = {"uri": entry.get("RequestUri"), "method": entry.get("RequestMethod")}
    response = {"status": {"code": entry.get("StatusCode")}}
    return {**request, **_test_proxy_body(entry.get("RequestBody"))}, {
        **response,
        **_test_proxy_body(entry.get("ResponseBody")),
    }


def _test_proxy_body(body: Any) -> dict[str, Any]:
    if isinstance(body, list) and body and all(isinstance(line, str) for line in body):
        return {"body": {"string": "".join(body)}}  # text lines, each with its line break
    if isinstance(body, dict | list):
        return {"parsed_body": body}
    return {"body": {"string": body}}


class NotBase64:
    """A body recorded as base64 that is not: the body reader (``cassettes``) reports it."""


def _base64(text: Any) -> bytes | NotBase64:
    """The bytes of a body recorded base64-encoded (HAR's ``encoding: base64``, the Datadog
    agent's ``base64:`` prefix), or a :class:`NotBase64` when the text is none."""
    try:
        return base64.b64decode(text, validate=True) if isinstance(text, str) else NotBase64()
    except (ValueError, binascii.Error):
        return NotBase64()


def _har_pair(entry: Any) -> tuple[Any, Any]:
    """An HTTP Archive (HAR 1.2) entry in vcrpy's shape: Polly.js and browsers record
    ``{request: {method, url, postData: {text}}, response: {status, content: {text, encoding}}}``
    (a ``base64`` content is its bytes, read as vcrpy's ``!!binary`` is)."""
    if not isinstance(entry, Mapping):
        return None, None
    raw_request, raw_response = entry.get("request"), entry.get("response")
    request: dict[str, Any] | None = None
    if isinstance(raw_request, Mapping):
        post = raw_request.get("postData")
        request = {
            "uri": raw_request.get("url"),
            "method": raw_request.get("method"),
            "body": post.get("text") if isinstance(post, Mapping) else None,
        }
    response: dict[str, Any] | None = None
    if isinstance(raw_response, Mapping):
        content = raw_response.get("content")
        text = content.get("text") if isinstance(content, Mapping) else None
        if isinstance(content, Mapping) and text is not None:
            if content.get("encoding") == "base64":
                text = _chunked(text, _base64)
            elif content.get("_isBinary") is True:  # Polly.js before 6: hex
                text = _chunked(text, _hex)
        response = {"status": {"code": raw_response.get("status")}, "body": {"string": text}}
    return request, response


def _chunked(text: Any, decode: Callable[[Any], bytes | NotBase64]) -> bytes | NotBase64:
    """The bytes of a HAR body recorded encoded, by ``decode``: one string, or (Polly.js, for a
    response sent with a ``Content-Encoding``, so each chunk of the compressed stream can be
    replayed alone) the JSON text of an array of strings, one a chunk, joined."""
    if not isinstance(text, str) or not text.startswith("["):
        return decode(text)
    try:
        chunks = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested past what json reads
        return NotBase64()
    if not isinstance(chunks, list):
        return NotBase64()
    parts = [decode(chunk) for chunk in chunks]
    if any(isinstance(part, NotBase64) for part in parts):
        return NotBase64()
    return b"".join(part for part in parts if isinstance(part, bytes))


def _hex(text: Any) -> bytes | NotBase64:
    """The bytes of a body Polly.js before 6 recorded in hex (``_isBinary: true``)."""
    try:
        return bytes.fromhex(text) if isinstance(text, str) else NotBase64()
    except ValueError:
        return NotBase64()
