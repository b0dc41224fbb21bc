"""pydantic-ai's xAI (Grok) gRPC cassettes, ``*.xai.yaml`` (SPEC R2, R34-R36, R40).

Built from the real cassettes in ``fixtures/xai`` (their SOURCE.md counts them by hand); each
test says what it changes. A changed copy is written to ``tmp_path`` by PyYAML, its protobuf
bytes kept as ``!!binary`` as the recorder writes them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # no stubs in the test environment
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench as wb
from helpers.json_places import with_values_swapped
from helpers.paths import FIXTURES

XAI = FIXTURES / "xai"
CLIENT = XAI / "pydantic-ai_test_xai_request_tool_call.xai.yaml"
STREAMED = XAI / "pydantic-ai_test_xai_builtin_code_execution_tool_stream.xai.yaml"
MIXED = XAI / "pydantic-ai_test_xai_builtin_tools_with_custom_tools.xai.yaml"
MCP = XAI / "pydantic-ai_test_xai_builtin_mcp_server_tool.xai.yaml"
STATUS_ONLY = XAI / "pydantic-ai_test_multimodal_tool_return_matrix_direct-binary-document.xai.yaml"
NEVER_ANSWERED = XAI / "pydantic-ai_test_tool_choice_matrix_required.xai.yaml"
TERMINAL = XAI / "pydantic-ai_test_xai_request_structured_response_tool_output.xai.yaml"

_SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _cassette(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return loaded


def _write(tmp_path: Path, cassette: Any, name: str = "changed.xai.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(cassette, sort_keys=False), encoding="utf-8")
    return path


def _text(boundary: wb.ToolBoundary) -> str:
    response: Any = boundary.response
    return "".join(block["text"] for block in response["content"])


def _facts(result: wb.LoadResult) -> list[tuple[str, str, bool]]:
    return [(b.call_id, b.tool, b.is_error) for b in result.boundaries]


@pytest.mark.parametrize(
    ("path", "calls"),
    [
        (CLIENT, [("call_56494531", "get_location"), ("call_28585237", "get_location")]),
        (STREAMED, [("call_02414781", "code_execution")]),
        (MIXED, [("call_64728645", "guess_city"), ("call_92171071", "web_search")]),
        (MCP, [("call_05345625", "deepwiki.ask_question")]),
        (STATUS_ONLY, [("call_93069123", "get_file"), ("call_65424396", "read_attachment")]),
        (TERMINAL, [("call_18585244", "get_user_country")]),
    ],
    ids=lambda v: v.name[12:50] if isinstance(v, Path) else "",
)
def test_real_cassettes_give_their_hand_counted_calls(
    path: Path, calls: list[tuple[str, str]]
) -> None:
    """R34: client calls answered by the next request's ROLE_TOOL messages, the server's
    answered in the same reply (plain, streamed, MCP, by status only); R40: the conversation
    keeps the model and the function tools; the protobuf bytes are in no value."""
    result = wb.load_runs(path)
    assert result.format == "xai" and result.problems == ()
    assert [(b.call_id, b.tool) for b in result.boundaries] == calls
    assert not any(b.is_error for b in result.boundaries)
    conversation = result.runs[0].conversation
    assert conversation is not None and str(conversation.model).startswith("grok-")
    assert "!!binary" not in json.dumps([b.response for b in result.boundaries])


def test_tool_messages_with_no_id_answer_the_calls_in_order_and_the_rule_reads_them() -> None:
    """R2 by place (no ``tool_call_id``: the n-th ROLE_TOOL message the n-th call), R36: no
    failure flag, so the caller's rule decides (pydantic-ai's retry prompt)."""
    plain = wb.load_runs(CLIENT)
    assert _text(plain.boundaries[0]).startswith("Wrong location")
    assert _text(plain.boundaries[1]) == '{"lat": 51, "lng": 0}'
    rule = wb.ErrorRule.regex("Fix the errors and try again")
    assert [b.is_error for b in wb.load_runs(CLIENT, error_rule=rule).boundaries] == [True, False]


def test_a_tool_call_id_pairs_by_id_whatever_the_order(tmp_path: Path) -> None:
    """R2: a ROLE_TOOL message's ``tool_call_id`` (newer pydantic-ai) names its call."""
    cassette = _cassette(CLIENT)
    messages = cassette["interactions"][1]["request_sample"]["json"]["messages"]
    messages[2]["tool_call_id"], messages[3]["tool_call_id"] = "call_28585237", "call_56494531"
    result = wb.load_runs(_write(tmp_path, cassette))
    assert _text(result.boundaries[0]) == '{"lat": 51, "lng": 0}'
    assert _text(result.boundaries[1]).startswith("Wrong location")


def _tool_output(cassette: dict[str, Any]) -> dict[str, Any]:
    outputs = cassette["interactions"][0]["response_sample"]["json"]["outputs"]
    found: dict[str, Any] = next(o for o in outputs if o["message"]["role"] == "ROLE_TOOL")
    return found


def test_a_server_tool_that_failed_is_a_failure_with_its_message(tmp_path: Path) -> None:
    """R36: TOOL_CALL_STATUS_FAILED (and _INCOMPLETE) are the API's failure signals, on the
    result or, when the reply carries none, on the call (no real cassette records one)."""
    cassette = _cassette(MCP)
    output = _tool_output(cassette)
    output["message"]["tool_calls"][0]["status"] = "TOOL_CALL_STATUS_FAILED"
    output["message"]["tool_calls"][0]["error_message"] = "MCP server unreachable"
    output["message"]["content"] = ""
    result = wb.load_runs(_write(tmp_path, cassette))
    assert _facts(result) == [("call_05345625", "deepwiki.ask_question", True)]
    assert result.boundaries[0].error_message == "MCP server unreachable"
    cassette = _cassette(MCP)
    outputs = cassette["interactions"][0]["response_sample"]["json"]["outputs"]
    outputs.remove(_tool_output(cassette))
    outputs[0]["message"]["tool_calls"][0]["status"] = "TOOL_CALL_STATUS_INCOMPLETE"
    assert [b.is_error for b in wb.load_runs(_write(tmp_path, cassette)).boundaries] == [True]


def test_a_streamed_server_result_that_failed_is_a_failure(tmp_path: Path) -> None:
    cassette = _cassette(STREAMED)
    chunks = cassette["interactions"][0]["response_stream"]["chunks_json"]
    chunks[2]["chunk"]["outputs"][0]["delta"]["tool_calls"][0]["status"] = "TOOL_CALL_STATUS_FAILED"
    assert [b.is_error for b in wb.load_runs(_write(tmp_path, cassette)).boundaries] == [True]


def test_a_status_the_api_has_not_is_a_problem_never_a_success(tmp_path: Path) -> None:
    """R35: a failure signal of another value names its place and field."""
    cassette = _cassette(MCP)
    _tool_output(cassette)["message"]["tool_calls"][0]["status"] = "DONE"
    result = wb.load_runs(_write(tmp_path, cassette), strict=False)
    assert result.boundaries == ()
    assert [p.field for p in result.problems] == ["tool_calls.status"]
    assert result.problems[0].where.startswith("interaction 0")


def test_a_call_never_answered_is_a_problem_naming_its_place(tmp_path: Path) -> None:
    """R2: the real cassette whose one call no request answers; and a server call still in
    progress (no status) whose result the reply does not carry."""
    with pytest.raises(wb.LoadError, match="never answered"):
        wb.load_runs(NEVER_ANSWERED)
    result = wb.load_runs(NEVER_ANSWERED, strict=False)
    assert [(p.where, p.field) for p in result.problems] == [
        ("interaction 0, response, block 0", "tool_calls.id")
    ]
    cassette = _cassette(MCP)
    outputs = cassette["interactions"][0]["response_sample"]["json"]["outputs"]
    outputs.remove(_tool_output(cassette))
    del outputs[0]["message"]["tool_calls"][0]["status"]
    result = wb.load_runs(_write(tmp_path, cassette), strict=False)
    assert result.boundaries == () and "never answered" in result.problems[0].message


def test_the_output_tool_ends_the_run_by_design() -> None:
    """R36: pydantic-ai's ``final_result`` is a terminal call, not an unanswered one."""
    result = wb.load_runs(TERMINAL)
    assert [c["tool"] for c in result.runs[0].metadata["terminalCalls"]] == ["final_result"]


def test_asked_for_by_name_and_refused_for_another_format(tmp_path: Path) -> None:
    """R34, R35: detected by content (any file name); a wrong --format says what it is."""
    renamed = tmp_path / "recording.json"
    renamed.write_text(json.dumps(_without_bytes(_cassette(CLIENT))), encoding="utf-8")
    assert wb.load_runs(renamed).format == "xai"
    assert wb.load_runs(CLIENT, format="xai").format == "xai"
    with pytest.raises(wb.LoadError, match="looks like an xAI"):
        wb.load_runs(CLIENT, format="openai-chat")
    with pytest.raises(wb.LoadError):
        wb.load_runs(
            FIXTURES / "bedrock-converse" / "pydantic-ai_test_bedrock_model_retry.yaml",
            format="xai",
        )


def _without_bytes(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_bytes(v) for k, v in value.items() if not _is_bytes(v)}
    if isinstance(value, list):
        return [_without_bytes(v) for v in value]
    return value


def _is_bytes(value: Any) -> bool:
    return isinstance(value, bytes) or (
        isinstance(value, list) and bool(value) and all(isinstance(v, bytes) for v in value)
    )


def test_hostile_shapes_give_a_place_and_binary_elsewhere_is_still_refused(
    tmp_path: Path,
) -> None:
    """R35: malformed interactions are problems that name where; bytes the recorder never
    writes (here, in a request's JSON) are refused as before."""
    cassette = _cassette(MIXED)
    cassette["interactions"].insert(1, {"request_sample": {"json": {"messages": "no"}}})
    cassette["interactions"].append(7)
    first = cassette["interactions"][0]["response_sample"]["json"]["outputs"][0]["message"]
    first["tool_calls"].append("not a call")
    result = wb.load_runs(_write(tmp_path, cassette), strict=False)
    places = {(p.where, p.field) for p in result.problems}
    assert ("interaction 1", "request_sample.json.messages") in places
    assert ("interaction 3", "") in places  # (an item that is no object)
    assert ("interaction 0, response", "tool_calls") in places
    assert len(result.boundaries) == 2
    odd = _cassette(CLIENT)
    odd["interactions"][0]["request_sample"]["json"]["model"] = b"\x00\x01"
    with pytest.raises(wb.LoadError, match="binary"):
        wb.load_runs(_write(tmp_path, odd))


def _conversations() -> list[list[Any]]:
    """Two recordings' interactions, each its own conversation (its order kept)."""
    return [_cassette(CLIENT)["interactions"], _cassette(MIXED)["interactions"]]


@_SETTINGS
@given(st.lists(st.booleans(), min_size=4, max_size=4))
def test_interleaving_independent_conversations_loses_or_invents_no_call(
    tmp_path: Path, picks: list[bool]
) -> None:
    """R2, R35 (property): the interactions of two conversations interleaved in any order
    (each one's own order kept, as the format allows) give the same calls."""
    queues = [list(c) for c in _conversations()]
    merged: list[Any] = []
    for pick in picks:
        queue = queues[int(pick)] or queues[1 - int(pick)]
        if queue:
            merged.append(queue.pop(0))
    merged += queues[0] + queues[1]
    result = wb.load_runs(_write(tmp_path, {"version": 1, "interactions": merged}))
    expected = sorted(_facts(wb.load_runs(CLIENT)) + _facts(wb.load_runs(MIXED)))
    assert sorted(_facts(result)) == expected


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-5, 5),
    st.text(max_size=8),
    st.lists(st.integers(0, 3), max_size=2),
    st.dictionaries(st.sampled_from(["id", "role", "type", "status"]), st.text(max_size=4)),
)


@_SETTINGS
@given(st.data())
def test_any_value_changed_loads_or_is_refused_with_a_place(tmp_path: Path, data: Any) -> None:
    """R35 (property): a value replaced anywhere in the JSON members loads, or is a problem
    (never an exception of another kind)."""
    cassette = _without_bytes(_cassette(STREAMED if data.draw(st.booleans()) else MIXED))
    changed = with_values_swapped(cassette, data, _VALUES, st.just(1))
    result = wb.load_runs(_write(tmp_path, changed), strict=False)
    for problem in result.problems:
        assert problem.where
    for boundary in result.boundaries:
        assert isinstance(boundary.is_error, bool)


@pytest.mark.parametrize("value", [1, "call", {"id": "x"}])
def test_tool_calls_that_are_no_list_are_a_problem_not_a_crash(tmp_path: Path, value: Any) -> None:
    """R35: a streamed delta's, a reply's or a resent message's ``tool_calls`` that is a number,
    text or an object (the mutation property found a number raising TypeError) is a problem
    naming the response, and the rest loads."""
    streamed = _without_bytes(_cassette(STREAMED))
    first = streamed["interactions"][0]["response_stream"]["chunks_json"][0]
    first["chunk"]["outputs"][0]["delta"]["tool_calls"] = value
    mixed = _without_bytes(_cassette(MIXED))
    mixed["interactions"][0]["response_sample"]["json"]["outputs"][0]["message"]["tool_calls"] = (
        value
    )
    for changed in (streamed, mixed):
        result = wb.load_runs(_write(tmp_path, changed), strict=False)
        assert any(p.field == "tool_calls" for p in result.problems), result.problems
