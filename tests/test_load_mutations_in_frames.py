"""A real recording changed inside its framing never crashes a load (SPEC R35).

``test_load_mutations`` and ``test_load_mutations_in_bodies`` swap values in decoded JSON, so
they never reach what lies under it: an httprr trace's byte counts, request and status lines,
headers and chunked bodies; the tags PyYAML wrote in a vcrpy cassette (``!!binary``,
``!!python/object/apply:...``); the binary frames of a Bedrock event stream (lengths, headers,
checksums, the base64 of each event); and bodies recorded base64-encoded (HAR's ``encoding:
base64``, Datadog's ``base64:``, Ruby's VCR's ``base64_string``). Here each is changed where it
is written (a byte flipped, a length wrong, a tag on another node, a checksum off by one,
base64 that is not, or is of bytes that are not UTF-8), and the recording must load what it can
or be refused with places, and ``workbench boundaries`` must exit 0, or 2 with one line.

Longer than 400 lines: the four kinds of framing each need their own writer of mutants, and
keeping them beside the properties that use them shows what each property reaches.
"""

from __future__ import annotations

import base64
import contextlib
import gzip
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # no stubs in the test environment
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench as wb
from helpers.boundaries import loaded_around_or_refused
from helpers.event_frames import Frame, frame_bytes, frames_of, string_header
from helpers.json_places import with_values_swapped
from helpers.paths import FIXTURES
from workbench.cli import main

_CHAT = FIXTURES / "chat-cassettes"
_CONVERSE = FIXTURES / "bedrock-converse"
HTTPRR = sorted(FIXTURES.glob("**/*.httprr"))
TAGGED = [
    _CHAT / "dd_trace_openai_chat_completions_post_1d538f35.yaml",  # !!python/object/apply
    _CHAT / "llm_anthropic_test_tools.yaml",  # !!binary bodies from here on
    _CHAT / "magentic_test_openai_chat_model_gemini_complete.yaml",
    _CHAT / "otel-contrib_bedrock_invoke_stream_tool_call_anthropic.yaml",
    _CONVERSE / "pydantic-ai_test_bedrock_model_retry.yaml",
    FIXTURES / "openai-responses" / "openai_agents_test_agent_with_tool_errors.yaml",
    FIXTURES / "xai" / "pydantic-ai_test_xai_request_tool_call.xai.yaml",
]
STREAMS = [
    _CHAT / "otel-contrib_bedrock_invoke_stream_tool_call_anthropic.yaml",  # invoke-with-...
    _CHAT / "fantasy_bedrock_claude-opus-4-6_tool_streaming.go-vcr.yaml",
    _CONVERSE / "otel-contrib_test_converse_stream_with_content_tool_call.yaml",  # converse
    _CONVERSE / "pydantic-ai_test_bedrock_model_code_execution_tool_stream.yaml",
]
_HAR = _CHAT / "openllmetry_js_openai_tool_calling.polly.har"
_DATADOG = _CHAT / "dd_trace_anthropic_v1_messages_post_28bbec95.json"
_RUBY = _CHAT / "ruby_llm_gpt-5-nano_tools_in_multi-turn_conversations.yml"

ODD: list[Any] = [None, True, 0, -1, 1.5, "", "x", [], {}, [None], {"": None}, "Error: x"]
_NOT_UTF8 = b"\xff\xfe\xc3\x28 not UTF-8"


def _deep(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


# --- The property's check ---------------------------------------------------------------


def loads_or_refuses_in_one_line(path: Path) -> None:
    """R35 for ``path``: ``load_runs(strict=False)`` loads with places or raises ``LoadError``
    with places, and ``workbench boundaries`` exits 0, or 2 with one line naming the file."""
    loaded_around_or_refused(path)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["boundaries", str(path)])
    said = err.getvalue()
    assert code in (0, 2), said
    if code == 2:
        assert said.count("\n") == 1 and str(path) in said, said


# --- httprr traces -------------------------------------------------------------------------

_HEADER = b"httprr trace v1\n"


def _records(data: bytes) -> list[tuple[bytes, bytes]]:
    """A whole trace's records, each its request and response bytes."""
    out = []
    at = len(_HEADER)
    while at < len(data):
        end = data.index(b"\n", at)
        asked, answered = map(int, data[at:end].split(b" "))
        start = end + 1
        out.append((data[start : start + asked], data[start + asked : start + asked + answered]))
        at = start + asked + answered
    return out


def _trace(records: list[tuple[bytes, bytes]]) -> bytes:
    return _HEADER + b"".join(b"%d %d\n%s%s" % (len(q), len(a), q, a) for q, a in records)


def _chunked(body: bytes, sizes: list[bytes], last: bytes) -> bytes:
    """``body`` sent in chunks, the first ones' sizes as ``sizes`` says (its own otherwise)."""
    out = b""
    cut = max(1, len(body) // (len(sizes) + 1))
    pieces = [body[i : i + cut] for i in range(0, len(body), cut)]
    for index, piece in enumerate(pieces):
        size = sizes[index] if index < len(sizes) else b"%x" % len(piece)
        out += size + b"\r\n" + piece + b"\r\n"
    return out + last


_CHUNK_SIZES = st.sampled_from(
    [b"-6", b"0x10", b"zz", b"", b" 5", b"ffffffffffffffff", b"7fffffff", b"1;ext=1", b"0"]
)


@st.composite
def _changed_message(draw: st.DrawFn, message: bytes, response: bool) -> bytes:
    """An HTTP message with its first line, a header or its body changed."""
    head, _, body = message.partition(b"\r\n\r\n")
    first, *fields = head.split(b"\r\n")
    how = draw(st.sampled_from(["first", "header", "chunked", "gzip", "body", "blank"]))
    if how == "first":
        first = draw(
            st.sampled_from(
                [b"", b"HTTP/1.1", b"HTTP/1.1 abc OK", b"HTTP/1.1 99999 X", b"HTTP/1.1 500 E"]
                if response
                else [b"", b"POST", b"POST /v1/x HTTP/1.1", b"GET \xff\xfe HTTP/1.1", b"  "]
            )
        )
    elif how == "header":
        fields.append(
            draw(
                st.sampled_from(
                    [b"no colon", b": empty name", b"Host:", b"Host: \xff", b"Content-Length: -1"]
                )
            )
        )
    elif how == "chunked":
        fields.append(b"Transfer-Encoding: chunked")
        sizes = draw(st.lists(_CHUNK_SIZES, max_size=2))
        body = _chunked(body, sizes, draw(st.sampled_from([b"0\r\n\r\n", b"", b"0", b"\r\n"])))
    elif how == "gzip":
        fields.append(b"Content-Encoding: gzip")
        packed = gzip.compress(body)
        body = draw(
            st.sampled_from(
                [packed, packed[: len(packed) // 2], packed[:12], gzip.compress(_NOT_UTF8)]
            )
        )
    elif how == "body":
        body = _changed_bytes(draw, body)
    else:
        return b"\r\n".join([first, *fields]) + b"\r\n" + body
    return b"\r\n".join([first, *fields]) + b"\r\n\r\n" + body


def _changed_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` with a byte flipped, cut short, a JSON value of another type put in it, or
    replaced by bytes that are not UTF-8, deep nesting or an event stream's first bytes."""
    how = draw(st.sampled_from(["flip", "cut", "swap", "other"]))
    if how == "flip" and data:
        at = draw(st.integers(0, len(data) - 1))
        return data[:at] + bytes([data[at] ^ draw(st.integers(1, 255))]) + data[at + 1 :]
    if how == "cut":
        return data[: draw(st.integers(0, len(data)))]
    if how == "swap":
        try:
            value = json.loads(data)
        except ValueError:
            return data
        swapped = with_values_swapped(value, draw(st.data()), st.sampled_from(ODD))
        return json.dumps(swapped).encode()
    return draw(st.sampled_from([_NOT_UTF8, _deep(100_000), b"\x00\x00\x00\x10", b"\x1f\x8b"]))


_ODD_COUNTS = [b"", b"1", b"1 2 3", b"-1 5", b"a b", b"1  2", b" 1 2", b"0 0"]
_ODD_COUNTS += [b"999999999999 1", b"9999999999999 1"]  # the most digits read, and one more


@st.composite
def changed_trace(draw: st.DrawFn, source: Path) -> bytes:
    """An httprr trace with a byte changed anywhere, a record's counts wrong, or a record's
    request or response changed (its counts then made right again)."""
    data = source.read_bytes()
    records = _records(data)
    how = draw(st.sampled_from(["bytes", "counts", "message", "records"]))
    if how == "bytes":
        return _changed_bytes(draw, data)
    if how == "counts":
        index = draw(st.integers(0, len(records) - 1))
        counts = draw(st.sampled_from([*_ODD_COUNTS, b"%d 0" % len(records[index][0])]))
        before = _trace(records[:index])
        asked, answered = records[index]
        return before + counts + b"\n" + asked + answered + _trace(records[index + 1 :])[16:]
    if how == "message":
        index = draw(st.integers(0, len(records) - 1))
        asked, answered = records[index]
        if draw(st.booleans()):
            answered = draw(_changed_message(answered, response=True))
        else:
            asked = draw(_changed_message(asked, response=False))
        records[index] = (asked, answered)
        return _trace(records)
    changed = draw(st.permutations(records + records[:1]))
    return _trace(changed[: draw(st.integers(0, len(changed)))])


# --- YAML cassettes with tags --------------------------------------------------------------

_Y = "tag:yaml.org,2002:"
TAGS = [
    *(_Y + "python/" + s for s in ("unicode", "str", "bytes", "none", "bool", "int", "long")),
    *(_Y + "python/" + s for s in ("float", "complex", "list", "tuple", "dict")),
    _Y + "python/name:os.system",
    _Y + "python/module:os",
    _Y + "python/object:x.Y",
    _Y + "python/object/new:x.Y",
    _Y + "python/object/apply:multidict._multidict.istr",
    *(_Y + s for s in ("binary", "str", "int", "float", "bool", "null", "timestamp", "set")),
    *(_Y + s for s in ("omap", "pairs", "seq", "map", "merge", "value", "yaml")),
    "!binary",
    "!ruby/object:Foo",
    "!unknown",
    "tag:example.com,2000:x",
]
SCALARS = [
    *("", "x", "YQ==", "YQ", "!!!", "é", "1:2:3", "9" * 80, ".nan", "2020-13-45", "yes"),
    base64.b64encode(_NOT_UTF8).decode(),
    base64.b64encode(gzip.compress(_NOT_UTF8)).decode(),
    base64.b64encode(b"\x1f\x8b\x08\x00broken").decode(),
    base64.b64encode(b"\x00\x00\x00\x20\x00\x00\x00\x00").decode(),
]


_PLAIN = tuple(_Y + s for s in ("str", "int", "null", "bool"))


def _nodes(node: Any) -> list[Any]:
    out = [node]
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            out += _nodes(item)
    elif isinstance(node, yaml.MappingNode):
        for key, item in node.value:
            out += _nodes(key) + _nodes(item)
    return out


def _nested(depth: int, tag: str, mapping: bool) -> str:
    """Flow collections ``depth`` deep, each with ``tag`` (YAML's ``!!`` spelling)."""
    tag = tag.replace(_Y, "!!") + " " if tag else ""
    if mapping:
        return f"{tag}{{k: " * depth + "x" + "}" * depth
    return f"{tag}[" * depth + "x" + "]" * depth


_NEST = "zznestedzz"


@st.composite
def changed_tags(draw: st.DrawFn, source: Path) -> str:
    """A YAML cassette with one to three of its nodes given another tag (of Python, of YAML,
    unknown, on any node, keys too), another scalar value, or deep nesting (tagged or not)."""
    root = yaml.compose(source.read_text(encoding="utf-8"), Loader=yaml.SafeLoader)
    nested = ""
    for _ in range(draw(st.integers(1, 3))):
        nodes = _nodes(root)[1:]
        tagged = [n for n in nodes if not n.tag.startswith(_PLAIN)]
        prefer_tagged = draw(st.booleans())
        node = draw(st.sampled_from(tagged if tagged and prefer_tagged else nodes))
        how = draw(st.sampled_from(["tag", "scalar", "nest"]))
        if how == "tag":
            node.tag = draw(st.sampled_from(TAGS))
        elif how == "scalar" and isinstance(node, yaml.ScalarNode):
            node.value = draw(st.sampled_from(SCALARS))
            node.style = None
        elif how == "nest" and not nested:
            depth = draw(st.sampled_from([3, 50, 200, 1200, 100_000]))
            tag = draw(st.sampled_from(["", *TAGS[:12], _Y + "python/object/apply:x.y"]))
            nested = _nested(depth, tag, draw(st.booleans()))
            node.__class__, node.tag, node.value = yaml.ScalarNode, _Y + "str", _NEST
            node.style = None
    out: str = yaml.serialize(root, Dumper=yaml.SafeDumper, width=120)
    return out.replace(_NEST, nested, 1) if nested else out


# --- AWS event streams ---------------------------------------------------------------------

_HEADER_CHANGES: list[Callable[[Frame], bytes]] = [
    lambda f: b"",
    lambda f: f.headers + string_header(b":message-type", b"exception"),
    lambda f: string_header(b":message-type", b"exception") + f.headers,
    lambda f: string_header(b":message-type", b"error") + string_header(b":error-code", b"\xff"),
    lambda f: string_header(b":event-type", b"unknownEvent") + f.headers,
    lambda f: string_header(b":event-type", b"") + f.headers,
    lambda f: string_header(b":event-type", b"\xff\xfe") + f.headers,
    lambda f: string_header(b"x", b"\x00" * 8, kind=8) + f.headers,
    lambda f: string_header(b"x", b"", kind=9) + f.headers,
    lambda f: string_header(b"x", b"", kind=200) + f.headers,
    lambda f: bytes([255]) + b"name",
    lambda f: bytes([4]) + b"name" + bytes([7]) + b"\xff\xff" + b"short",
    lambda f: bytes([4]) + b"name" + bytes([7]) + b"\x00",
    lambda f: f.headers[: len(f.headers) // 2],
]


def _payload_changes(payload: bytes) -> list[bytes]:
    """Payloads of another kind for a frame whose payload is ``payload``."""
    b64 = base64.b64encode
    inner = [b"!!!", b"YQ", b"", b64(_NOT_UTF8), b64(b"not json"), b64(b"[]"), b64(_deep(5000))]
    out = [b'{"bytes": "%s"}' % chunk for chunk in inner]
    out += [b'{"bytes": %s}' % json.dumps(value).encode() for value in ODD]
    out += [b"", b"not json", b"[]", b"null", b"1e999", _deep(100_000), _NOT_UTF8, payload[:-1]]
    return out


@st.composite
def _changed_payload(draw: st.DrawFn, payload: bytes) -> bytes:
    """A payload of another kind, or the event in it with a value of another type."""
    if draw(st.booleans()):
        return draw(st.sampled_from(_payload_changes(payload)))
    try:
        wrapper = json.loads(payload)
    except ValueError:
        return payload
    if isinstance(wrapper, dict) and isinstance(wrapper.get("bytes"), str):
        event = json.loads(base64.b64decode(wrapper["bytes"]))
        changed = with_values_swapped(event, draw(st.data()), st.sampled_from(ODD))
        wrapper["bytes"] = base64.b64encode(json.dumps(changed).encode()).decode()
        return json.dumps(wrapper).encode()
    return json.dumps(with_values_swapped(wrapper, draw(st.data()), st.sampled_from(ODD))).encode()


@st.composite
def changed_stream(draw: st.DrawFn, data: bytes) -> bytes:
    """An event stream with a byte changed (checksums then wrong), a frame's lengths or
    checksums wrong, its headers or payload changed (checksums made right), or frames
    dropped, repeated or reordered."""
    frames = frames_of(data)
    index = draw(st.integers(0, len(frames) - 1))
    frame = frames[index]
    how = draw(st.sampled_from(["bytes", "lengths", "checksums", "headers", "payload", "order"]))
    if how == "bytes":
        return _changed_bytes(draw, data)
    written: bytes | None = None
    if how == "lengths":
        own = 16 + len(frame.headers) + len(frame.payload)
        odd = [0, 15, 16, own - 1, own + 1, 2**31, 2**32 - 1]
        if draw(st.booleans()):
            written = frame_bytes(frame, total=draw(st.sampled_from(odd)))
        else:
            odd = [0, len(frame.headers) - 1, len(frame.headers) + 1, own, 2**32 - 1]
            written = frame_bytes(frame, headers_length=draw(st.sampled_from(odd)))
    elif how == "checksums":
        off = draw(st.sampled_from([1, -1, 2**31]))
        if draw(st.booleans()):
            written = frame_bytes(frame, prelude_crc_off=off)
        else:
            written = frame_bytes(frame, crc_off=off)
    elif how == "headers":
        frame.headers = draw(st.sampled_from(_HEADER_CHANGES))(frame)
    elif how == "payload":
        frame.payload = draw(_changed_payload(frame.payload))
    else:
        frames = draw(st.permutations(frames + frames[:1]))
        frames = frames[: draw(st.integers(0, len(frames)))]
        return b"".join(frame_bytes(f) for f in frames)
    parts = [frame_bytes(f) for f in frames]
    if written is not None:
        parts[index] = written
    return b"".join(parts)


def _stream_places(cassette: Any) -> list[tuple[Any, ...]]:
    """Where a decoded cassette holds an event stream's bytes (a response's body)."""
    out: list[tuple[Any, ...]] = []
    for index, interaction in enumerate(cassette["interactions"]):
        body = interaction["response"]["body"]
        if isinstance(body, dict) and isinstance(body.get("string"), bytes):
            if body["string"][:1] == b"\x00":
                out.append(("interactions", index, "response", "body", "string"))
        elif isinstance(body, bytes) and body[:1] == b"\x00":  # go-vcr's
            out.append(("interactions", index, "response", "body"))
    return out


def _at(value: Any, place: tuple[Any, ...]) -> Any:
    for key in place:
        value = value[key]
    return value


# --- Bodies recorded base64-encoded --------------------------------------------------------

BASE64_TEXTS = [
    *("!!!", "YQ", "Y", "YQ==YQ==", "é", " YQ==", "YQ==\n", "", "[]", "[1]", '["!!"]', "[[]]"),
    "[" * 5000,
    "[" * 100_000 + "]" * 100_000,
    base64.b64encode(_NOT_UTF8).decode(),
    base64.b64encode(gzip.compress(_NOT_UTF8)).decode(),
    base64.b64encode(b"\x1f\x8b\x08\x00broken").decode(),
    base64.b64encode(b"\x78\x9c\x00broken").decode(),
    base64.b64encode(b"\x00\x00\x00\x20\x00\x00\x00\x00").decode(),
    base64.b64encode(_deep(100_000)).decode(),
]


def _base64_sources() -> dict[str, Callable[[Any], Any]]:
    """Three cassettes with a base64 body, each a function that writes a drawn base64 text
    (or value) as that body: a HAR's, Datadog's agent's and Ruby's VCR's."""
    return {"har": _set_har, "datadog": _set_datadog, "ruby": _set_ruby}


def _set_har(text: Any) -> tuple[str, str]:
    har = json.loads(_HAR.read_text(encoding="utf-8"))
    for entry in har["log"]["entries"]:
        if entry["response"]["content"].get("encoding") == "base64":
            entry["response"]["content"]["text"] = text
    return _HAR.name, json.dumps(har)


def _set_datadog(text: Any) -> tuple[str, str]:
    record = json.loads(_DATADOG.read_text(encoding="utf-8"))
    record["response"]["body"] = "base64:" + text if isinstance(text, str) else text
    return _DATADOG.name, json.dumps(record)


def _set_ruby(text: Any) -> tuple[str, str]:
    cassette = yaml.safe_load(_RUBY.read_text(encoding="utf-8"))
    for interaction in cassette["http_interactions"]:
        interaction["response"]["body"] = {"encoding": "UTF-8", "base64_string": text}
    return _RUBY.name, yaml.safe_dump(cassette)


@st.composite
def base64_body(draw: st.DrawFn) -> Any:
    """A drawn base64 body: text that is no base64, base64 of bytes that are not UTF-8 (or of
    a broken gzip or zlib stream, deep nesting, an event stream's first bytes), a value of
    another type, or a real body's base64 with a character changed."""
    how = draw(st.sampled_from(["text", "odd", "changed"]))
    if how == "text":
        return draw(st.sampled_from(BASE64_TEXTS))
    if how == "odd":
        return draw(st.sampled_from(ODD))
    real = base64.b64encode(gzip.compress(b'{"choices": []}')).decode()
    at = draw(st.integers(0, len(real) - 1))
    return real[:at] + draw(st.sampled_from(["=", "-", "_", " ", "\n", "é", ""])) + real[at + 1 :]


# --- The properties ------------------------------------------------------------------------

_SETTINGS = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@_SETTINGS
@given(st.sampled_from(HTTPRR), st.data())
def test_a_changed_httprr_trace_is_loaded_around_or_refused(
    tmp_path: Path, source: Path, data: st.DataObject
) -> None:
    """R35: an httprr trace with a byte, a count, a request or status line, a header or a
    (chunked, compressed) body changed loads what it can or is refused with places."""
    path = tmp_path / source.name
    path.write_bytes(data.draw(changed_trace(source)))
    loads_or_refuses_in_one_line(path)


@_SETTINGS
@given(st.sampled_from(TAGGED), st.data())
def test_a_yaml_cassette_with_changed_tags_is_loaded_around_or_refused(
    tmp_path: Path, source: Path, data: st.DataObject
) -> None:
    """R35: a vcrpy cassette with Python, YAML or unknown tags put on any node, a tagged
    scalar's value changed, or deep (tagged) nesting loads what it can or is refused with
    places."""
    path = tmp_path / source.name
    path.write_text(data.draw(changed_tags(source)), "utf-8")
    loads_or_refuses_in_one_line(path)


@_SETTINGS
@given(st.sampled_from(STREAMS), st.data())
def test_a_changed_event_stream_is_loaded_around_or_refused(
    tmp_path: Path, source: Path, data: st.DataObject
) -> None:
    """R35: a Bedrock event stream with a byte, a frame's lengths, checksums, headers or
    payload (the base64 of an event, the event) changed, or frames dropped or reordered,
    loads what it can or is refused with places."""
    cassette = yaml.safe_load(source.read_text(encoding="utf-8"))
    place = data.draw(st.sampled_from(_stream_places(cassette)))
    _at(cassette, place[:-1])[place[-1]] = data.draw(changed_stream(_at(cassette, place)))
    path = tmp_path / source.name
    path.write_text(yaml.safe_dump(cassette), encoding="utf-8")
    loads_or_refuses_in_one_line(path)


@_SETTINGS
@given(st.sampled_from(sorted(_base64_sources())), base64_body())
def test_a_changed_base64_body_is_loaded_around_or_refused(
    tmp_path: Path, kind: str, body: Any
) -> None:
    """R35: a HAR, Datadog or Ruby VCR cassette whose base64 body is no base64, the base64
    of bytes that are not UTF-8 (or a broken compressed stream), or a value of another type,
    loads what it can or is refused with places."""
    name, text = _base64_sources()[kind](body)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    loads_or_refuses_in_one_line(path)


def test_every_stream_source_has_frames() -> None:
    """Each chosen cassette holds an event stream whose frames this test can rewrite."""
    for source in STREAMS:
        cassette = yaml.safe_load(source.read_text(encoding="utf-8"))
        places = _stream_places(cassette)
        assert places
        stream = _at(cassette, places[0])
        assert b"".join(frame_bytes(f) for f in frames_of(stream)) == stream


def test_a_har_body_of_deeply_nested_chunks_is_not_base64(tmp_path: Path) -> None:
    """R35: a HAR body recorded as base64 whose text is a JSON array nested past what ``json``
    reads (``[[[...]]]``: Polly.js's chunks) raised ``RecursionError`` from the load; it is
    a body that is not base64, and a problem names its interaction."""
    name, text = _set_har("[" * 100_000 + "]" * 100_000)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = wb.load_runs(path, strict=False)
    assert [(p.where, p.field) for p in result.problems if "base64" in p.message] == [
        ("interaction 0", "response.body")
    ]
    loads_or_refuses_in_one_line(path)


@pytest.mark.parametrize(
    ("value", "tag"),
    [("!!bool maybe", "!!bool"), ("!!timestamp soon", "!!timestamp"), ("!!int ''", "!!int")],
)
def test_a_scalar_its_tag_cannot_build_is_refused_with_its_line(
    tmp_path: Path, value: str, tag: str
) -> None:
    """R35: a cassette's scalar that its YAML tag cannot build raised ``KeyError`` (``!!bool``),
    ``AttributeError`` (``!!timestamp``) or ``IndexError`` (an empty ``!!int``) from PyYAML's
    constructor; it is refused with its line, as YAML that does not parse is."""
    source = _CHAT / "dd_trace_openai_chat_completions_post_1d538f35.yaml"
    text = source.read_text(encoding="utf-8").replace("version: 1", f"version: {value}")
    path = tmp_path / source.name
    path.write_text(text, encoding="utf-8")
    line = text[: text.index(value)].count("\n") + 1
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path, strict=False)
    assert str(refused.value) == (
        f"{path}: line {line}: invalid YAML: a value its tag {tag} cannot build"
    )
    loads_or_refuses_in_one_line(path)
