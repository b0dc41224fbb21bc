"""Stop 30's hostile round on the new readers (SPEC R35): each input here is SYNTHETIC, a small
case of what the round found; each test says what went wrong before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import workbench as wb
from helpers.paths import FIXTURES

_DIGITS = "9" * 5000


def _lines(tmp_path: Path, records: list[Any], name: str = "log.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _copilot(*records: dict[str, Any]) -> list[dict[str, Any]]:
    start = {"type": "session.start", "data": {"sessionId": "s", "copilotVersion": "1.0"}}
    return [start, *records]


def _start(call_id: str, tool: str, args: Any) -> dict[str, Any]:
    data = {"toolCallId": call_id, "toolName": tool, "arguments": args}
    return {"type": "tool.execution_start", "data": data}


def _done(call_id: str, **data: Any) -> dict[str, Any]:
    return {"type": "tool.execution_complete", "data": {"toolCallId": call_id, **data}}


def test_integers_of_thousands_of_digits_are_no_crash(tmp_path: Path) -> None:
    """A 5,000-digit exit code or argument raised Python's ``ValueError`` (a message naming no
    place, and no ``LoadError``): the exit code is not read, the arguments kept as text."""
    records = _copilot(
        _start("a", "bash", {"command": "x"}),
        _done("a", success=True, result={"content": f"<exited with exit code {_DIGITS}>"}),
        _start("b", "bash", '{"n": ' + _DIGITS + "}"),
        _done("b", success=True, result={"content": "ok"}),
    )
    first, second = wb.load_runs(_lines(tmp_path, records)).boundaries
    assert first.is_error is False
    assert second.args == '{"n": ' + _DIGITS + "}"


def test_a_span_whose_tool_name_is_an_object_is_no_crash(tmp_path: Path) -> None:
    """A JavaScript span naming its tool by an object crashed (``unhashable type``)."""
    span = {
        "type": "span",
        "traceId": "t",
        "spanId": "s1",
        "name": "execute_tool",
        "startTime": [1, 0],
        "endTime": [2, 0],
        "attributes": {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": {"odd": 1},
            "gen_ai.tool.call.id": "c",
        },
        "status": {"code": 0},
        "instrumentationScope": {"name": "github.copilot"},
    }
    result = wb.load_runs(_lines(tmp_path, [span]), strict=False)
    assert [(p.where, p.field) for p in result.problems] == [
        ("line 1", "attributes.gen_ai.tool.name")
    ]


def test_two_spans_of_one_id_are_a_problem_not_one_call_lost(tmp_path: Path) -> None:
    """Two different spans given one span id: the second was dropped, counted as a repeat."""
    lines = [
        json.loads(line)
        for line in (FIXTURES / "otel" / "generated-copilot-cli-1.0.102-file-exporter.jsonl")
        .read_text()
        .splitlines()
    ]
    spans = [s for s in lines if s["type"] == "span" and s["name"].startswith("execute_tool")]
    spans[1] = {**spans[1], "spanId": spans[0]["spanId"]}
    result = wb.load_runs(_lines(tmp_path, spans), strict=False)
    assert [p.field for p in result.problems] == ["spanId"]
    again = wb.load_runs(_lines(tmp_path, [spans[0], spans[0]], name="twice.jsonl"))
    assert len(again.boundaries) == 1 and again.run.metadata["records"]["span:repeated"] == 1


def test_a_copilot_log_with_a_new_event_area_or_a_stray_line_is_still_read(
    tmp_path: Path,
) -> None:
    """An event of an area newer than the reader made the file 'in no format'; a stray line of
    another tool's log had the file read as that tool's, blaming its first line."""
    records = _copilot(
        {"type": "telemetry.sample", "data": {"n": 1}},
        _start("a", "bash", {}),
        {"timestamp": "t", "type": "response_item", "payload": {"type": "message"}},
        _done("a", success=True, result={"content": "ok"}),
    )
    result = wb.load_runs(_lines(tmp_path, records), strict=False)
    assert result.format == "copilot-cli" and len(result.boundaries) == 1
    assert [(p.line, p.field) for p in result.problems] == [(4, "data")]
    # R4: the event of an area the reader does not know is kept whole, not only counted
    assert result.run.metadata["otherRecords"] == [{"type": "telemetry.sample", "data": {"n": 1}}]


def test_a_malformed_span_line_is_named_and_a_metrics_only_export_says_so(
    tmp_path: Path,
) -> None:
    bad = {"type": "span", "traceId": "t", "spanId": "x", "name": 7, "attributes": {}}
    result = wb.load_runs(_lines(tmp_path, [bad]), strict=False)
    assert result.format == "otel"
    assert [(p.where, p.message[:25]) for p in result.problems] == [
        ("line 1", "not a span as a JavaScrip")
    ]
    metrics = [{"type": "metric", "name": "m"}, {"type": "metric", "name": "n"}]
    with pytest.raises(wb.LoadError, match="no span, no tool call: it holds metric 2"):
        wb.load_runs(_lines(tmp_path, metrics, name="metrics.jsonl"))


def _adk(*events: dict[str, Any]) -> dict[str, Any]:
    return {"id": "s", "appName": "app", "userId": "u", "state": {}, "events": list(events)}


def _event(parts: list[Any], role: str = "model", **more: Any) -> dict[str, Any]:
    content = {"parts": parts, "role": role}
    return {"content": content, "author": "agent", "invocationId": "e-1", **more}


_CALL = {"functionCall": {"id": "c1", "name": "lookup", "args": {}}}


@pytest.mark.parametrize("code", [False, 0, {"k": "v"}, ""])
def test_an_adk_error_code_of_another_type_is_a_problem_not_a_failure(
    tmp_path: Path, code: Any
) -> None:
    """An ``errorCode`` of ``false``, ``0`` or an object failed the call and the run."""
    session = _adk(_event([_CALL]), {"author": "agent", "invocationId": "e-1", "errorCode": code})
    path = tmp_path / "s.json"
    path.write_text(json.dumps(session), encoding="utf-8")
    result = wb.load_runs(path, strict=False)
    assert "errorCode" in [p.field for p in result.problems]
    assert result.boundaries == ()  # the call is never answered (a problem too), not failed


def test_an_adk_response_with_nothing_recorded_is_a_problem(tmp_path: Path) -> None:
    """A ``functionResponse`` with no ``response`` loaded as a success answering ``null``."""
    answer = {"functionResponse": {"id": "c1", "name": "lookup"}}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(_adk(_event([_CALL]), _event([answer], "user"))), "utf-8")
    result = wb.load_runs(path, strict=False)
    assert [p.field for p in result.problems] == ["functionResponse.response"]


def test_adk_text_beside_a_call_in_one_part_is_kept(tmp_path: Path) -> None:
    part = {**_CALL, "text": "Looking it up."}
    answer = {"functionResponse": {"id": "c1", "name": "lookup", "response": {"result": 1}}}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(_adk(_event([part]), _event([answer], "user"))), "utf-8")
    run = wb.load_runs(path).run
    assert run.conversation is not None
    assert run.conversation.messages[0]["content"] == "Looking it up."


def test_an_adk_session_with_no_events_is_called_one(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text(json.dumps(_adk()), "utf-8")
    with pytest.raises(wb.LoadError, match="a Google ADK session"):
        wb.load_runs(path)


def test_a_long_converse_stream_is_read_whole() -> None:
    """A streamed reply of 50,000 pieces is their join (it was joined by ``+=`` a piece, which
    grew with the square of their count: a time the benchmarks measure, not this test)."""
    from workbench._load.bedrock_converse import _streamed

    pieces = 50_000
    events = [{"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "ab"}}}] * pieces
    (block,) = _streamed(events)
    assert block == {"type": "text", "text": "ab" * pieces}


def test_a_stream_of_more_frames_than_read_says_so() -> None:
    """A whole stream past the frame limit was refused as 'cut short, or a checksum'."""
    import zlib

    from workbench._load import aws_event_stream

    def frame(payload: bytes) -> bytes:
        header = b"\x0b:event-type\x07\x00\x11contentBlockDelta"
        total = 12 + len(header) + len(payload) + 4
        prelude = total.to_bytes(4, "big") + len(header).to_bytes(4, "big")
        body = prelude + zlib.crc32(prelude).to_bytes(4, "big") + header + payload
        return body + zlib.crc32(body).to_bytes(4, "big")

    one = frame(b'{"contentBlockIndex":0,"delta":{"text":"x"}}')
    read = aws_event_stream.stream_events(one * (aws_event_stream._MAX_FRAMES + 1))
    assert read is not None
    events, errors = read
    assert len(events) == aws_event_stream._MAX_FRAMES
    assert errors == ["more than 100,000 frames: the frames after them not read"]


def test_a_span_exported_unfinished_then_ended_is_read_from_its_ended_copy(
    tmp_path: Path,
) -> None:
    """An exporter that writes a span when it begins and again when it ends: the ended copy
    (with its result) is the call, the first counted as updated; no problem."""
    lines = [
        json.loads(line)
        for line in (FIXTURES / "otel" / "generated-copilot-cli-1.0.102-file-exporter.jsonl")
        .read_text()
        .splitlines()
    ]
    span = next(s for s in lines if s["type"] == "span" and s["name"].startswith("execute_tool"))
    pending = {
        **span,
        "endTime": [0, 0],
        "attributes": {
            k: v for k, v in span["attributes"].items() if k != "gen_ai.tool.call.result"
        },
    }
    result = wb.load_runs(_lines(tmp_path, [pending, span]))
    (call,) = result.boundaries
    assert (
        call.response
        == wb.load_runs(_lines(tmp_path, [span], name="one.jsonl")).boundaries[0].response
    )
    assert result.run.metadata["records"]["span:updated"] == 1
