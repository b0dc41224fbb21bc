"""Stop 32's hostile round (SPEC R35): each input here is SYNTHETIC, a small case of what the
round found; each test says what went wrong before."""

from __future__ import annotations

import json
import os
import zipfile
import zlib
from pathlib import Path
from typing import Any

import pytest

import workbench as wb
from helpers.cli import run_cli
from helpers.paths import BILLING, FIXTURES
from workbench._load.aws_event_stream import stream_events
from workbench._load.inspect_ai import read_eval_zip
from workbench._load.reading import decode_json_lines

INSPECT = FIXTURES / "inspect-ai" / "generated-inspect-0.3.285-chat-completions.eval"


def _frame_of(payload: bytes) -> bytes:
    name, value = b":event-type", b"chunk"
    headers = bytes([len(name)]) + name + b"\x07" + len(value).to_bytes(2, "big") + value
    total = 12 + len(headers) + len(payload) + 4
    prelude = total.to_bytes(4, "big") + len(headers).to_bytes(4, "big")
    head = prelude + zlib.crc32(prelude).to_bytes(4, "big") + headers + payload
    return head + zlib.crc32(head).to_bytes(4, "big")


def test_a_stream_chunk_of_non_ascii_base64_is_a_payload_that_is_no_event() -> None:
    """``b64decode`` raises ``ValueError`` (not ``binascii.Error``) for a character past ASCII:
    the message named no interaction or field."""
    got = stream_events(_frame_of(json.dumps({"bytes": "é=="}).encode()))
    assert got is not None
    texts, errors = got
    assert texts == [] and errors and "no event" in errors[0]


def _members() -> dict[str, bytes]:
    """The real generated .eval's members as plain JSON (it is Zstandard-compressed, which
    ``zipfile`` writes and reads only from Python 3.14)."""
    log = read_eval_zip(str(INSPECT))
    samples = log.pop("samples")
    members = {"header.json": json.dumps(log).encode()}
    for sample in samples:
        members[f"samples/{sample['id']}_epoch_{sample['epoch']}.json"] = json.dumps(
            sample
        ).encode()
    return members


def _rezipped(tmp_path: Path, rename: dict[str, str], extra: list[str] = ()) -> Path:  # type: ignore[assignment]
    """The .eval's members with some renamed, and some written twice."""
    out = tmp_path / "log.eval"
    members = _members()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as target:
        for name, data in members.items():
            target.writestr(rename.get(name, name), data)
        for name in extra:
            target.writestr(name, members[name])
    return out


def test_an_eval_member_whose_epoch_is_no_ascii_number_is_sorted_as_text(tmp_path: Path) -> None:
    """``'²'.isdigit()`` holds and ``int('²')`` fails: the load stopped on a bare message."""
    first = next(n for n in _members() if n.startswith("samples/"))
    path = _rezipped(tmp_path, {first: first.replace("_epoch_1", "_epoch_\u00b2")})
    result = wb.load_runs(path)
    assert len(result.boundaries) == 5


def test_an_eval_member_written_twice_is_refused_not_read_twice(tmp_path: Path) -> None:
    """``zipfile`` reads the last of two members of one name: the first was lost and the last
    loaded twice, exit 0."""
    first = next(n for n in _members() if n.startswith("samples/"))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # zipfile: "Duplicate name"
        path = _rezipped(tmp_path, {}, [first])
    with pytest.raises(wb.LoadError) as caught:
        wb.load_runs(path)
    (problem,) = caught.value.problems
    assert problem.where == first and "twice" in problem.message


def test_an_eval_whose_members_inflate_past_the_limit_is_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each member under the limit, the whole past it: a zip bomb of three members of 1.2 GiB
    took 27 s and 2.5 GB. (The limit is made 1 MiB here, so the test writes little.)"""
    import workbench._load.inspect_ai as inspect_ai

    monkeypatch.setattr(inspect_ai, "MAX_FILE_BYTES", 1 << 20)
    path = tmp_path / "bomb.eval"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as target:
        target.writestr("header.json", _members()["header.json"])
        for n in range(3):  # 600 KiB of white space each: each under 1 MiB, not the three
            target.writestr(f"samples/{n}_epoch_1.json", b"{}" + b" " * (600 << 10))
    with pytest.raises(wb.LoadError) as caught:
        wb.load_runs(path)
    assert "past the limit" in caught.value.problems[0].message


def test_a_file_of_mostly_blank_lines_is_read_without_a_list_of_them() -> None:
    """``data.split`` of a billion newlines makes a list of a billion (12 GB): the lines with
    text are found by a scan instead, numbered as before."""
    data = b"\n" * 5_000_000 + b'{"a": 1}\n' + b"\n" * 3 + b'{"b": 2}'
    docs, problems = decode_json_lines(data, "f.jsonl")
    assert problems == []
    assert docs == [(5_000_001, {"a": 1}), (5_000_005, {"b": 2})]


def test_an_empty_pipe_is_an_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A FIFO nothing is written to was 'line 1, column 1: invalid JSON: Expecting value'.
    (No writer: the loader opens a pipe without blocking, so a writer thread that opened its
    end after the load had read the pipe as empty waited for a reader forever, and so did the
    test, at stop 35.)"""
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    code, _, err = run_cli(capsys, "boundaries", str(fifo))
    assert code == 2 and "the file is empty" in err


def test_a_written_path_is_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An escape sequence in ``-o`` reached the terminal byte for byte."""
    out = tmp_path / "\x1b[31mred.json"
    code, said, _ = run_cli(capsys, "promote", str(BILLING), "-o", str(out))
    assert code == 0 and out.exists()
    assert "\x1b" not in said and "\\x1b[31mred.json" in said


def test_a_suite_s_script_error_on_replay_names_the_suite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``replay`` said ``tasks[0].input.script[0].tool: ...`` naming no file (``sweep`` did)."""
    suite_path = tmp_path / "suite.json"
    code, _, _ = run_cli(capsys, "promote", str(BILLING), "-o", str(suite_path))
    assert code == 0
    suite: dict[str, Any] = json.loads(suite_path.read_text(encoding="utf-8"))
    suite["tasks"][0]["input"]["script"][0]["tool"] = ""
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(suite), encoding="utf-8")
    code, _, err = run_cli(capsys, "replay", str(bad))
    assert code == 2
    assert err.startswith(f"workbench: error: {bad}: tasks[0].input.script[0].tool")
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("error", [1, "", "permission denied", ["x"]])
def test_a_copilot_error_that_is_no_object_is_kept_and_a_message_read(
    tmp_path: Path, error: Any
) -> None:
    """``data.error`` of another shape was dropped for the made-up 'tool call failed'."""
    records = [
        {"type": "session.start", "data": {"sessionId": "s", "copilotVersion": "1.0"}},
        {"type": "tool.execution_start", "data": {"toolCallId": "a", "toolName": "view"}},
        {
            "type": "tool.execution_complete",
            "data": {"toolCallId": "a", "success": False, "error": error},
        },
    ]
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    (boundary,) = wb.load_runs(path).boundaries
    assert boundary.is_error
    assert boundary.extra["error"] == error
    if error == "permission denied":
        assert boundary.error_message == "permission denied"


# --- a review of the stop's changes ------------------------------------------------------------


def test_many_id_less_adk_calls_pair_in_linear_time(tmp_path: Path) -> None:
    """ADK before 1.0: each response rebuilt and scanned the list of open calls (20,000 calls
    took 25 s); a queue a tool name passes over answered calls once."""
    count = 20_000
    calls = [{"function_call": {"name": "t", "args": {"x": n}}} for n in range(count)]
    answers = [{"function_response": {"name": "t", "response": {"r": n}}} for n in range(count)]
    events = [
        {
            "invocation_id": "i",
            "author": "a",
            "id": "E1",
            "content": {"role": "model", "parts": calls},
        },
        {
            "invocation_id": "i",
            "author": "a",
            "id": "E2",
            "content": {"role": "user", "parts": answers},
        },
    ]
    path = tmp_path / "old.session.json"
    path.write_text(json.dumps({"id": "s", "events": events}), encoding="utf-8")
    result = wb.load_runs(path)
    assert len(result.boundaries) == count
    last = result.boundaries[-1]
    assert (last.args, last.response["content"][0]["text"]) == ({"x": count - 1}, '{"r": 19999}')


def test_a_pair_s_observation_answers_its_own_action(tmp_path: Path) -> None:
    """``[action, observation]`` pairs with no ids: an action paired with a ``null``
    observation took the next pair's output; it is never answered, and the next is."""
    pairs = [
        [{"action": "message", "content": "fix it"}, {"observation": "null", "content": ""}],
        [{"action": "run", "command": "sleep 999"}, {"observation": "null", "content": ""}],
        [{"action": "run", "command": "echo hi"}, {"observation": "run", "content": "hi"}],
    ]
    path = tmp_path / "pairs.json"
    path.write_text(json.dumps({"history": pairs}), encoding="utf-8")
    result = wb.load_runs(path, strict=False)
    (echo,) = result.boundaries
    assert (echo.args, echo.response) == ({"command": "echo hi"}, "hi")
    assert [p.message for p in result.problems] == ["call 'action-2' to 'run' is never answered"]


def test_a_genai_tool_span_keeps_the_attributes_it_was_not_read_by(tmp_path: Path) -> None:
    """R4: an ``execute_tool`` span's ``input.value`` or ``tool.name`` (OpenInference's names)
    were dropped from its extra on every span, read or not."""

    def attribute(key: str, value: str) -> dict[str, Any]:
        return {"key": key, "value": {"stringValue": value}}

    span = {
        "traceId": "t",
        "spanId": "s",
        "name": "execute_tool get",
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
        "attributes": [
            attribute("gen_ai.operation.name", "execute_tool"),
            attribute("gen_ai.tool.name", "get"),
            attribute("gen_ai.tool.call.result", "ok"),
            attribute("input.value", "kept"),
            attribute("tool.name", "kept too"),
        ],
    }
    path = tmp_path / "trace.json"
    path.write_text(
        json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}), encoding="utf-8"
    )
    (boundary,) = wb.load_runs(path).boundaries
    assert (boundary.extra["input.value"], boundary.extra["tool.name"]) == ("kept", "kept too")


def test_a_generation_exported_twice_requests_its_calls_once(tmp_path: Path) -> None:
    """A Langfuse export put together from two holds an observation twice: its model
    requests were counted twice, and the second span of a tool took the first's id."""
    asked = {"tool_calls": [{"id": f"call_{n}", "name": "get"} for n in (1, 2)]}
    generation = {
        "id": "g",
        "traceId": "t",
        "type": "GENERATION",
        "name": "ChatOpenAI",
        "startTime": "2026-01-01T00:00:00Z",
        "output": json.dumps(asked),
    }

    def span(n: int) -> dict[str, Any]:
        return {
            "id": f"s{n}",
            "traceId": "t",
            "type": "SPAN",
            "name": "get",
            "startTime": f"2026-01-01T00:00:0{n}Z",
            "input": json.dumps({"n": n}),
            "output": "ok",
        }

    observations = [generation, generation, span(1), span(2)]
    path = tmp_path / "trace.json"
    path.write_text(json.dumps({"trace": {"id": "t"}, "observations": observations}), "utf-8")
    result = wb.load_runs(path)
    assert [b.call_id for b in result.boundaries] == ["call_1", "call_2"]


def test_each_tool_result_of_an_anthropic_request_is_read_as_sent() -> None:
    """Inspect over Anthropic sends parallel results as one message of several ``tool_result``
    blocks: each is read (only the first was)."""
    from workbench._load.inspect_sent import sent_results

    blocks = [
        {"type": "tool_result", "tool_use_id": "a", "content": "A"},
        {"type": "tool_result", "tool_use_id": "b", "content": [{"type": "text", "text": "B"}]},
    ]
    calls = [
        {"role": "user", "content": blocks},
        {"role": "tool", "tool_call_id": "c", "content": "C"},
    ]
    sample = {"events_data": {"calls": [*calls, 5, None]}}
    assert sent_results(sample, lambda value: value) == {"a": "A", "b": "B", "c": "C"}
