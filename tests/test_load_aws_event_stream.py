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
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import workbench as wb
from helpers.paths import FIXTURES
from workbench._load.aws_event_stream import stream_events

REAL = FIXTURES / "chat-cassettes" / "fantasy_bedrock_claude-opus-4-6_tool_streaming.go-vcr.yaml"


def _header(name: str, value: str) -> bytes:
    raw = value.encode()
    return bytes([len(name)]) + name.encode() + b"\x07" + len(raw).to_bytes(2, "big") + raw


def _frame(event: Any) -> bytes:
    payload = json.dumps({"bytes": base64.b64encode(json.dumps(event).encode()).decode()})
    headers = _header(":event-type", "chunk") + _header(":message-type", "event")
    total = 12 + len(headers) + len(payload) + 4
    prelude = total.to_bytes(4, "big") + len(headers).to_bytes(4, "big")
    head = prelude + zlib.crc32(prelude).to_bytes(4, "big") + headers + payload.encode()
    return head + zlib.crc32(head).to_bytes(4, "big")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.dictionaries(st.text(max_size=6), st.integers() | st.text(), max_size=3)))
def test_every_event_a_stream_carries_is_read_in_order(events: list[dict[str, Any]]) -> None:
    data = b"".join(_frame(e) for e in events)
    got = stream_events(data) if events else []
    assert got is not None
    assert [json.loads(text) for text in got] == events


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
