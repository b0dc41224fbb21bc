"""Amazon Bedrock Converse API cassettes (SPEC R34-R36, R40).

Built from the real cassettes in ``fixtures/bedrock-converse`` (their SOURCE.md counts them);
each test says what it changes. A changed copy is written to ``tmp_path`` as vcrpy writes one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # no stubs in the test environment

import workbench as wb
from helpers.paths import FIXTURES

PLAIN = FIXTURES / "bedrock-converse" / "otel-contrib_test_converse_tool_call_with_content.yaml"
STREAMED = (
    FIXTURES / "bedrock-converse" / "otel-contrib_test_converse_stream_with_content_tool_call.yaml"
)
SERVER_TOOL = (
    FIXTURES / "bedrock-converse" / "pydantic-ai_test_bedrock_model_with_code_execution_tool.yaml"
)
SERVER_TOOL_STREAMED = (
    FIXTURES / "bedrock-converse" / "pydantic-ai_test_bedrock_model_code_execution_tool_stream.yaml"
)


def _cassette(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return loaded


def _write(tmp_path: Path, cassette: dict[str, Any]) -> Path:
    path = tmp_path / "converse.yaml"
    path.write_text(yaml.safe_dump(cassette), encoding="utf-8")
    return path


def test_plain_and_streamed_replies_give_the_same_calls() -> None:
    """R34: a ``toolUse`` block is a call (the streamed one put together from its events), its
    ``toolResult`` in the next request the answer; the conversation is the Messages one (R40)."""
    plain, streamed = wb.load_runs(PLAIN), wb.load_runs(STREAMED)
    assert plain.format == streamed.format == "bedrock-converse"
    for result in (plain, streamed):
        assert [(b.tool, b.args, b.is_error) for b in result.boundaries] == [
            ("get_current_weather", {"location": "Seattle"}, False),
            ("get_current_weather", {"location": "San Francisco"}, False),
        ]
        assert result.run.conversation is not None
        assert result.run.conversation.model == "amazon.nova-micro-v1:0"
        assert [t["name"] for t in result.run.conversation.tools] == ["get_current_weather"]
    assert plain.boundaries[0].response == {
        "content": [{"type": "text", "text": '{"weather": "50 degrees and raining"}'}]
    }


def test_a_tool_result_of_status_error_is_a_failure(tmp_path: Path) -> None:
    """R36: ``status: error`` is the API's own failure flag (the recorded status changed here)."""
    cassette = _cassette(PLAIN)
    last = cassette["interactions"][-1]["request"]
    body = json.loads(last["body"])
    results = [
        block["toolResult"]
        for message in body["messages"]
        for block in message["content"]
        if "toolResult" in block
    ]
    results[0]["status"] = "error"
    results[0]["content"] = [{"text": "weather service down"}]
    last["body"] = json.dumps(body)
    loaded = wb.load_runs(_write(tmp_path, cassette))
    assert [b.is_error for b in loaded.boundaries] == [True, False]
    assert "weather service down" in json.dumps(loaded.boundaries[0].response)


def test_asked_for_by_name_and_refused_for_another_api(tmp_path: Path) -> None:
    assert wb.load_runs(PLAIN, format="bedrock-converse").format == "bedrock-converse"
    with pytest.raises(wb.LoadError, match="looks like Amazon Bedrock Converse"):
        wb.load_runs(PLAIN, format="openai-chat")


def test_odd_blocks_and_a_cut_stream_are_no_crash(tmp_path: Path) -> None:
    """R35: blocks of other types and wrong-typed members load around them or are problems."""
    cassette = _cassette(PLAIN)
    request = cassette["interactions"][-1]["request"]
    body = json.loads(request["body"])
    body["messages"][1]["content"].append({"image": {"format": "png"}})
    body["messages"][2]["content"][0]["toolResult"]["content"] = "not a list"
    body["system"] = [{"text": 7}, "x"]
    body["toolConfig"] = {"tools": [{"toolSpec": []}, 3]}
    request["body"] = json.dumps(body)
    result = wb.load_runs(_write(tmp_path, cassette), strict=False)
    # a toolResult content that is no list of blocks (text here) is refused, never read as
    # text (Converse never writes it so); the other odd blocks and members load around
    where = "interaction 1, request message 2, block 0"
    assert [(p.where, p.field) for p in result.problems] == [(where, "toolResult.content")]
    assert len(result.boundaries) == 1
    streamed = _cassette(STREAMED)
    first = streamed["interactions"][0]["response"]["body"]
    first["string"] = first["string"][: len(first["string"]) // 2]  # a stream cut short
    result = wb.load_runs(_write(tmp_path, streamed), strict=False)
    assert [(p.where, p.field) for p in result.problems] == [("interaction 0", "response.body")]
    assert len(result.boundaries) == 2  # the call read from the next request's resend


def test_a_status_that_is_neither_success_nor_error_is_a_problem(tmp_path: Path) -> None:
    """R35: a failure flag of another value (``ERROR``, ``true``) is refused, never a success."""
    for odd in ("ERROR", True, "failed"):
        cassette = _cassette(PLAIN)
        last = cassette["interactions"][-1]["request"]
        body = json.loads(last["body"])
        for message in body["messages"]:
            for block in message["content"]:
                if "toolResult" in block:
                    block["toolResult"]["status"] = odd
                    break
        last["body"] = json.dumps(body)
        result = wb.load_runs(_write(tmp_path, cassette), strict=False)
        assert [p.field for p in result.problems] == ["toolResult.status"], odd
        assert len(result.boundaries) == 1


def test_a_streamed_reply_keeps_its_reasoning() -> None:
    """R40: a streamed reply's reasoning is kept in the transcript, as a plain reply's block."""
    from workbench._load.bedrock_converse import _streamed

    events = [
        {
            "contentBlockDelta": {
                "contentBlockIndex": 0,
                "delta": {"reasoningContent": {"text": "Th"}},
            }
        },
        {
            "contentBlockDelta": {
                "contentBlockIndex": 0,
                "delta": {"reasoningContent": {"text": "ink"}},
            }
        },
        {"contentBlockDelta": {"contentBlockIndex": 1, "delta": {"text": "Hi"}}},
    ]
    assert _streamed(events) == [
        {"type": "converse-block", "block": {"reasoningContent": {"text": "Think"}}},
        {"type": "text", "text": "Hi"},
    ]


def test_a_tool_the_server_ran_is_answered_in_the_reply_plain_or_streamed() -> None:
    """R2, R34: Nova's code interpreter runs on the server, its ``toolResult`` in the same
    reply (streamed: a block of its own, its content in the deltas); ``final_result`` left open
    is pydantic-ai's output tool (R36)."""
    plain, streamed = wb.load_runs(SERVER_TOOL), wb.load_runs(SERVER_TOOL_STREAMED)
    assert [b.tool for b in plain.boundaries] == [
        "nova_code_interpreter",
        "final_result",
        "nova_code_interpreter",
    ]
    first = streamed.boundaries[0]
    assert (first.tool, first.args, first.is_error) == (
        "nova_code_interpreter",
        {"snippet": "1234 * 5678"},
        False,
    )
    assert json.loads(first.response["content"][0]["text"])["stdOut"] == "7006652"
    assert len(streamed.boundaries) == 1
    assert [c["tool"] for c in streamed.runs[0].metadata["terminalCalls"]] == ["final_result"]


def test_a_streamed_server_tool_result_of_status_error_is_a_failure() -> None:
    from workbench._load.bedrock_converse import _streamed

    start = {"toolResult": {"toolUseId": "t1", "status": "error", "type": "x_result"}}
    events = [
        {"contentBlockStart": {"contentBlockIndex": 0, "start": start}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolResult": [{"text": "a"}]}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"toolResult": [{"json": 1}]}}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
    ]
    assert _streamed(events) == [
        {
            "type": "tool_result",
            "tool_use_id": "t1",
            "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "1"}],
            "is_error": True,
            "status": "error",
        }
    ]


def test_problems_name_the_converse_fields(tmp_path: Path) -> None:
    """R35: a problem names the file's own field (it named the Messages reader's ``id``)."""
    cassette = _cassette(PLAIN)
    cassette["interactions"] = cassette["interactions"][:1]  # the calls never answered
    result = wb.load_runs(_write(tmp_path, cassette), strict=False)
    assert {p.field for p in result.problems} == {"toolUse.toolUseId"}
