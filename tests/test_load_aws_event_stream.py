"""AWS event streams in cassettes: Bedrock's streamed replies (SPEC R34, R35).

The real cassette (``fixtures/chat-cassettes/fantasy_bedrock_claude-opus-4-6_tool_streaming``)
is pinned in ``tests/helpers/recordings.py``; the frames built here are SYNTHETIC, written by
AWS's event-stream encoding (prelude, headers, payload, two CRC-32s) to try what the real one
does not hold.
"""

from __future__ import annotations

import base64
import json
import zlib
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]  # no stubs in the test environment
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench as wb
from helpers.paths import FIXTURES
from workbench._load.aws_event_stream import stream_events

REAL = FIXTURES / "chat-cassettes" / "fantasy_bedrock_claude-opus-4-6_tool_streaming.go-vcr.yaml"


def _header(name: str, value: str) -> bytes:
    raw = value.encode()
    return bytes([len(name)]) + name.encode() + b"\x07" + len(raw).to_bytes(2, "big") + raw


def _frame(event: Any, *, exception: str | None = None) -> bytes:
    payload = json.dumps({"bytes": base64.b64encode(json.dumps(event).encode()).decode()})
    headers = _header(":event-type", "chunk") + _header(":message-type", "event")
    if exception is not None:  # what Bedrock sends when the model's stream fails
        payload = json.dumps({"message": event})
        headers = _header(":exception-type", exception) + _header(":message-type", "exception")
    total = 12 + len(headers) + len(payload) + 4
    prelude = total.to_bytes(4, "big") + len(headers).to_bytes(4, "big")
    head = prelude + zlib.crc32(prelude).to_bytes(4, "big") + headers + payload.encode()
    return head + zlib.crc32(head).to_bytes(4, "big")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.dictionaries(st.text(max_size=6), st.integers() | st.text(), max_size=3)))
def test_every_event_a_stream_carries_is_read_in_order(events: list[dict[str, Any]]) -> None:
    data = b"".join(_frame(e) for e in events)
    got = stream_events(data) if events else ([], [])
    assert got is not None
    texts, errors = got
    assert [json.loads(text) for text in texts] == events
    assert errors == []


def test_bytes_that_are_not_whole_checked_frames_are_none_of_it() -> None:
    """A frame cut short, a checksum that does not hold, or trailing bytes: not a stream."""
    data = _frame({"type": "message_start"}) + _frame({"type": "message_stop"})
    assert stream_events(data) is not None
    assert stream_events(data[:-1]) is None
    assert stream_events(data + b"\x00") is None
    flipped = bytearray(data)
    flipped[20] ^= 1
    assert stream_events(bytes(flipped)) is None
    assert stream_events(b"\x00" * 64) is None


def test_a_streamed_bedrock_reply_is_read_as_anthropic_messages() -> None:
    """R34: the real cassette's call is read from its event frames, with the answer its next
    request sends (it was "no tool call found": the frames were not read)."""
    result = wb.load_runs(REAL)
    (boundary,) = result.boundaries
    assert (boundary.tool, boundary.args, boundary.is_error) == (
        "weather",
        {"location": "Florence, Italy"},
        False,
    )
    assert boundary.call_id == "toolu_bdrk_01J3qB12vH7tghDJ74pNzgp8"


def test_a_stream_cut_short_or_ended_by_an_exception_is_named_at_its_exchange(
    tmp_path: Path,
) -> None:
    """R35: a reply whose frames do not hold (cut short) was dropped with no word, and an
    exception frame (the model's stream failed) left a cut answer read as complete."""
    good = [_frame({"type": "message_start", "message": {"role": "assistant", "content": []}})]
    cut = b"".join(good) + _frame({"type": "message_stop"})[:-3]
    failed = b"".join(good) + _frame(
        "Model stream timed out", exception="modelStreamErrorException"
    )
    assert stream_events(cut) is None
    assert stream_events(failed) == (
        [json.dumps({"type": "message_start", "message": {"role": "assistant", "content": []}})],
        ["modelStreamErrorException: Model stream timed out"],
    )
    cassette = yaml.safe_load(REAL.read_text(encoding="utf-8"))
    for body, said in ((cut, "not a whole AWS event stream"), (failed, "stream failed")):
        cassette["interactions"][0]["response"]["body"] = body
        path = tmp_path / "bedrock.yaml"
        path.write_text(yaml.safe_dump(cassette), encoding="utf-8")
        result = wb.load_runs(path, strict=False)
        assert any(p.where == "interaction 0" and said in p.message for p in result.problems), said


def test_a_payload_nested_past_what_json_reads_is_no_crash() -> None:
    """R35: a frame whose payload nests 200,000 deep raised RecursionError out of the load
    (a review of stop 29); it is a payload that is no event."""
    deep = b"[" * 200_000
    headers = _header(":event-type", "chunk") + _header(":message-type", "event")
    total = 12 + len(headers) + len(deep) + 4
    prelude = total.to_bytes(4, "big") + len(headers).to_bytes(4, "big")
    head = prelude + zlib.crc32(prelude).to_bytes(4, "big") + headers + deep
    frame = head + zlib.crc32(head).to_bytes(4, "big")
    assert stream_events(frame) == ([], ["frame 0: a payload that is no event"])


_CODE = (
    FIXTURES / "bedrock-converse" / "pydantic-ai_test_bedrock_model_code_execution_tool_stream.yaml"
)


def test_a_stream_cut_at_a_frame_inside_a_server_result_is_no_success(tmp_path: Path) -> None:
    """R35: the real Nova code-interpreter stream cut after each of its frames. Cut inside the
    server tool's result (its ``contentBlockStart`` came, its ``contentBlockStop`` did not),
    the result loaded as a success with its content lost; now it is a problem at the block's
    ``contentBlockStop``. Cut before the result, the call is never answered; cut after its
    stop, the call loads as the whole stream does."""
    from helpers.event_frames import frame_bytes, frames_of

    cassette = yaml.safe_load(_CODE.read_text(encoding="utf-8"))
    response = cassette["interactions"][0]["response"]
    frames = frames_of(response["body"]["string"])
    whole = wb.load_runs(_CODE).boundaries
    read = stream_events(response["body"]["string"])
    assert read is not None
    events = [json.loads(event) for event in read[0]]
    began = next(i for i, e in enumerate(events) if "toolResult" in str(e.get("contentBlockStart")))
    ended = next(i for i, e in enumerate(events) if i > began and "contentBlockStop" in e)
    for kept in range(1, len(frames)):
        response["body"]["string"] = b"".join(frame_bytes(f) for f in frames[:kept])
        path = tmp_path / f"cut{kept}.yaml"
        path.write_text(yaml.safe_dump(cassette), encoding="utf-8")
        result = wb.load_runs(path, strict=False)
        if kept <= began:  # (cut before the call's start: no call at all)
            said = result.problems[0].message
            assert not result.boundaries and ("never answered" in said or "no tool call" in said)
        elif kept <= ended:
            (problem,) = result.problems
            assert problem.field == "contentBlockStop" and "not whole" in problem.message
            assert not result.boundaries
        else:
            assert not result.problems
            assert [(b.call_id, b.response, b.is_error) for b in result.boundaries] == [
                (b.call_id, b.response, b.is_error) for b in whole
            ]
