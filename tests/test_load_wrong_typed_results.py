"""A tool's result of a type its format never writes is a problem, never an empty success (R35).

A Codex ``function_call_output`` whose ``output`` was ``null``, a number or an object of
neither ``content`` nor ``output``, and a Claude Code ``tool_result`` whose ``content`` was a
number or an object, loaded as calls that succeeded with nothing to say: a suite then served
a result the run never had. Call arguments of a type never written (a Codex ``arguments``
that is no text, a Claude Code ``input`` that is no object, tau2 ``arguments`` that are
neither) loaded as recorded. Each file here is a real fixture with one value changed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # no stubs in the test environment

import workbench as wb
from helpers.json_places import MISSING, set_first
from helpers.paths import FIXTURES
from workbench.cli import main

_CODEX = FIXTURES / "codex" / "generated-codex-0.171.0-sandbox.rollout.jsonl"
_CLAUDE = FIXTURES / "claude-code" / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"


_RESULT_OF = {
    _CODEX: ({"type": "function_call_output", "call_id": ...}, "output"),
    _CLAUDE: ({"type": "tool_result", "tool_use_id": ...}, "content"),
}
"""The first result of each of those recordings, and its member changed (output, content)."""
_CALL_OF = {
    _CODEX: ({"type": "function_call", "call_id": ...}, "arguments"),
    _CLAUDE: ({"type": "tool_use", "id": ...}, "input"),
}
"""The first call of each, and its arguments' member."""


@pytest.mark.parametrize(
    ("source", "value", "field"),
    [
        (_CODEX, None, "payload.output"),
        (_CODEX, 7, "payload.output"),
        (_CODEX, {"x": 1}, "payload.output"),
        (_CODEX, MISSING, "payload.output"),
        (_CLAUDE, 7, "content"),
        (_CLAUDE, {"text": "ok"}, "content"),
    ],
    ids=["codex-null", "codex-number", "codex-object", "codex-missing", "cc-number", "cc-obj"],
)
def test_a_result_of_a_type_never_written_is_a_problem_naming_line_and_field(
    tmp_path: Path, source: Path, value: Any, field: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path, line = set_first(source, *_RESULT_OF[source], value, tmp_path)
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path)
    (problem,) = refused.value.problems  # the call is not also "never answered"
    assert problem.where.startswith(f"line {line}") and problem.field == field, problem
    assert main(["boundaries", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"line {line}" in err and field in err, err
    # --skip-problems: the other calls load, the changed one is not served
    whole = wb.load_runs(source)
    skipped = wb.load_runs(path, strict=False)
    assert len(skipped.boundaries) == len(whole.boundaries) - 1


@pytest.mark.parametrize(
    ("source", "value"),
    [
        (_CODEX, [{"type": "input_text", "text": "ok"}]),  # content items (Codex 0.4x on)
        (_CODEX, {"content": "ok", "success": True}),  # the older object
        (_CLAUDE, [{"type": "text", "text": "ok"}]),
        (_CLAUDE, MISSING),  # the Messages API lets a result have no content
        (_CLAUDE, None),
    ],
    ids=["codex-items", "codex-object", "cc-blocks", "cc-missing", "cc-null"],
)
def test_each_shape_the_formats_write_still_loads(tmp_path: Path, source: Path, value: Any) -> None:
    path, _ = set_first(source, *_RESULT_OF[source], value, tmp_path)
    assert len(wb.load_runs(path).boundaries) == len(wb.load_runs(source).boundaries)


@pytest.mark.parametrize(
    ("source", "value", "field"),
    [
        (_CODEX, 12345, "payload.arguments"),  # codex-rs writes JSON text
        (_CODEX, {"cmd": "ls"}, "payload.arguments"),
        (_CLAUDE, "not an object", "input"),  # the Messages API's input is an object
        (_CLAUDE, [1], "input"),
    ],
    ids=["codex-number", "codex-object", "cc-text", "cc-list"],
)
def test_call_arguments_of_a_type_never_written_are_a_problem(
    tmp_path: Path, source: Path, value: Any, field: str
) -> None:
    """R35: the call is refused naming its line and field (it loaded with those arguments),
    its result with it (it was also "has no open call")."""
    path, line = set_first(source, *_CALL_OF[source], value, tmp_path)
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path)
    (first,) = refused.value.problems
    assert first.where.startswith(f"line {line}") and first.field == field, first


def test_tau2_call_arguments_that_are_no_object_are_a_problem(tmp_path: Path) -> None:
    """R35: tau2 writes a call's arguments as an object (JSON text is read too, as older
    results have it); a number is refused naming the message and field, and its result goes
    with it (it was also "has no open call")."""
    source = sorted((FIXTURES / "tau2-bench").glob("*.json"))[0]
    results = json.loads(source.read_text())
    messages = results["simulations"][0]["messages"]
    index = next(n for n, message in enumerate(messages) if message.get("tool_calls"))
    messages[index]["tool_calls"][0]["arguments"] = 5
    path = tmp_path / source.name
    path.write_text(json.dumps(results))
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path)
    (first,) = refused.value.problems
    assert f"messages[{index}]" in first.where and first.field == "arguments", first


def _gemini_session() -> Path:
    return next(p for p in sorted((FIXTURES / "gemini-cli").glob("*.json")) if _has_calls(p))


def _has_calls(path: Path) -> bool:
    document = json.loads(path.read_text())
    messages = document.get("messages") if isinstance(document, dict) else None
    return any(m.get("toolCalls") for m in messages or ())


def _gemini_first_result_set(value: Any, tmp_path: Path) -> tuple[Path, str, Any]:
    session = json.loads(_gemini_session().read_text())
    index = next(n for n, m in enumerate(session["messages"]) if m.get("toolCalls"))
    call = session["messages"][index]["toolCalls"][0]
    call["result"] = value
    path = tmp_path / "session.json"
    path.write_text(json.dumps(session))
    return path, f"messages[{index}].toolCalls[0]", call["id"]


@pytest.mark.parametrize("value", [42, True, [1], ["ok", 7]])
def test_a_gemini_cli_result_of_no_part_type_is_a_problem(tmp_path: Path, value: Any) -> None:
    """R35: Gemini CLI writes ``result`` as a ``PartListUnion | null``; a number, or a list
    holding one, was served as an empty success."""
    path, where, _ = _gemini_first_result_set(value, tmp_path)
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path)
    (problem,) = refused.value.problems
    assert problem.where == where and problem.field == "result", problem


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("the text", "the text"),  # a text part, written as its text
        ({"text": "one part"}, "one part"),  # a single part
        (["a", {"text": "b"}], "a\nb"),
        (None, ""),  # none recorded
    ],
)
def test_a_gemini_cli_result_of_each_part_union_shape_is_read(
    tmp_path: Path, value: Any, text: str
) -> None:
    path, _, call_id = _gemini_first_result_set(value, tmp_path)
    boundary = next(b for b in wb.load_runs(path).boundaries if b.call_id == call_id)
    content = boundary.response["content"] if isinstance(boundary.response, dict) else []
    assert "\n".join(part["text"] for part in content) == text


def test_a_gemini_cli_stream_output_that_is_a_number_is_a_problem(tmp_path: Path) -> None:
    """R35: stream-json's ``tool_result.output`` is text; a number was an empty success."""
    source = FIXTURES / "gemini-cli" / "generated-gemini-0.61.0-read-missing.stream.jsonl"
    lines = source.read_text().splitlines()
    number = next(n for n, line in enumerate(lines, 1) if '"tool_result"' in line)
    record = json.loads(lines[number - 1])
    record["output"] = 3
    lines[number - 1] = json.dumps(record)
    path = tmp_path / source.name
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path)
    (problem,) = refused.value.problems
    assert problem.where == f"line {number}" and problem.field == "output", problem


_COPILOT = FIXTURES / "copilot-cli" / "generated-copilot-1.0.102-denials.events.jsonl"


def _copilot_lines() -> list[dict[str, Any]]:
    return [json.loads(line) for line in _COPILOT.read_text().splitlines()]


def _first(records: list[dict[str, Any]], kind: str) -> int:
    return next(n for n, r in enumerate(records) if r["type"] == kind)


def _written(records: list[dict[str, Any]], tmp_path: Path) -> Path:
    path = tmp_path / _COPILOT.name
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_a_copilot_cli_result_that_is_no_object_is_a_problem(tmp_path: Path) -> None:
    """R35: ``tool.execution_complete``'s ``result`` is an object; a number was an empty
    success."""
    records = _copilot_lines()
    index = _first(records, "tool.execution_complete")
    records[index]["data"]["result"] = 42
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(_written(records, tmp_path))
    (problem,) = refused.value.problems
    assert problem.where == f"line {index + 1}" and problem.field == "data.result", problem


def test_a_copilot_cli_call_id_requested_again_after_its_answer_is_a_new_call(
    tmp_path: Path,
) -> None:
    """R2: an id may be used again once its call is answered. The session's first request,
    start and completion appended again read as a second call of that id (its result was
    'has no open call'), and the request appended once more, never run, is never answered
    (it was dropped with no problem)."""
    records = _copilot_lines()
    turn = [
        records[_first(records, kind)]
        for kind in ("assistant.message", "tool.execution_start", "tool.execution_complete")
    ]
    whole = wb.load_runs(_COPILOT)
    again = _written([*records, *turn], tmp_path)
    assert len(wb.load_runs(again).boundaries) == len(whole.boundaries) + 1
    path = _written([*records, *turn, turn[0]], tmp_path)
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path)
    (problem,) = refused.value.problems
    assert problem.where == f"line {len(records) + 4}" and "never answered" in problem.message


def test_a_responses_output_that_is_a_number_is_a_problem(tmp_path: Path) -> None:
    """R35: a ``function_call_output``'s ``output`` is text or content items (a computer
    call's an object); the number 5 was served as a success."""
    source = (
        FIXTURES
        / "openai-responses"
        / ("test_openai_previous_response_id_seed_auto_chains_through_retries.yaml")
    )
    cassette = yaml.safe_load(source.read_text())
    places = [
        (number, n)
        for number, interaction in enumerate(cassette["interactions"])
        for n, item in enumerate(interaction["request"]["parsed_body"].get("input") or ())
        if isinstance(item, dict) and item.get("type") == "function_call_output"
    ]
    number, index = places[0]
    cassette["interactions"][number]["request"]["parsed_body"]["input"][index]["output"] = 5
    path = tmp_path / source.name
    path.write_text(yaml.safe_dump(cassette))
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path)
    first = refused.value.problems[0]
    assert first.where == f"interaction {number}, request.input[{index}]", first
    assert first.field == "output", first


_TOOL = {"role": "tool", "content": ...}
_TAU2 = FIXTURES / "tau2-bench" / "activegraph_20260531-184109-726391.results.json"
_TAU2_RESULT = {"role": "tool", "content": ..., "turn_idx": 3}  # (not a task's history)
_DOJO = (
    FIXTURES / "agentdojo" / "claude-3-5-sonnet-20241022__workspace__user_task_37__none__none.json"
)
_INSPECT = FIXTURES / "inspect-ai" / "2025-05-12T20-27-36-04-00_browser.json"
_MCP_LOG = FIXTURES / "mcp" / "echo-session.jsonl"
_MCP_DEBUG = FIXTURES / "mcp" / "generated-mcp-debug-1.1.0-servers.jsonl"
_MCP_RESULT = {"content": ...}  # (the first: a tools/call result)
_ANTHROPIC = {"type": "tool_result", "content": ...}
_CHAT_CASES: dict[str, tuple[Path, dict[str, Any], Any]] = {
    # OpenAI chat: a tool message's content is text or content parts (null in some SDKs)
    "openai-chat-number": (FIXTURES / "samples" / "openai-chat-refund.json", _TOOL, 7),
    "openai-chat-object": (FIXTURES / "samples" / "openai-chat-refund.json", _TOOL, {"x": 1}),
    "tau-bench-boolean": (
        FIXTURES / "tau-bench" / "tau-bench-airline-gpt-4o-tasks-0-4.json",
        _TOOL,
        True,
    ),
    # Anthropic: text or a list of blocks
    "anthropic-numbers": (FIXTURES / "samples" / "anthropic-refund.json", _ANTHROPIC, [1, 2]),
    # tau2: a ToolMessage's content is Optional[str]
    "tau2-number": (_TAU2, _TAU2_RESULT, 7),
    "tau2-parts": (_TAU2, _TAU2_RESULT, [{"type": "text", "text": "ok"}]),
    # AgentDojo: text (before 0.1.30) or a list of blocks
    "agentdojo-number": (_DOJO, _TOOL, 7),
    "agentdojo-object": (_DOJO, _TOOL, {"content": "ok"}),
    # Inspect AI: ChatMessageTool.content is str | list[Content], never null
    "inspect-null": (_INSPECT, _TOOL, None),
    "inspect-numbers": (_INSPECT, _TOOL, [3]),
    # MCP: CallToolResult.content is a list of content blocks
    "mcp-text": (_MCP_LOG, _MCP_RESULT, "ok"),
    "mcp-null": (_MCP_LOG, _MCP_RESULT, None),
    "mcp-debug-object": (_MCP_DEBUG, _MCP_RESULT, {"type": "text", "text": "ok"}),
}
_CHAT_WHERE = {
    "openai-chat": ("messages[3]", "content"),
    "tau-bench": ("record 0, message 7", "content"),
    "anthropic": ("messages[2], block 0", "content"),
    "tau2": ("simulations[0].messages[3]", "content"),
    "agentdojo": ("messages[3]", "content"),
    "inspect": ("samples[0].messages[2]", "content"),
    "mcp": ("line 6 msg", "response.result.content"),
    "mcp-debug": ("line 5", "message.content"),
}


@pytest.mark.parametrize("case", list(_CHAT_CASES))
def test_a_tool_message_content_of_a_type_never_written_is_a_problem(
    tmp_path: Path, case: str
) -> None:
    """R35: each was served as a success with the value as its response, or an empty one."""
    source, wanted, value = _CHAT_CASES[case]
    path, _ = set_first(source, wanted, "content", value, tmp_path)
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path)
    (problem,) = refused.value.problems
    where, field = _CHAT_WHERE[case.rsplit("-", 1)[0]]
    assert (problem.where, problem.field) == (where, field), problem
    skipped = wb.load_runs(path, strict=False)
    assert len(skipped.boundaries) == len(wb.load_runs(source).boundaries) - 1


_WRITTEN: dict[str, tuple[Path, dict[str, Any], Any]] = {
    "openai-chat-parts": (
        _CHAT_CASES["openai-chat-number"][0],
        _TOOL,
        [{"type": "text", "text": "ok"}],
    ),
    "openai-chat-null": (_CHAT_CASES["openai-chat-number"][0], _TOOL, None),
    "anthropic-text-and-blocks": (
        _CHAT_CASES["anthropic-numbers"][0],
        _ANTHROPIC,
        ["a", {"type": "text", "text": "b"}],
    ),
    "tau2-null": (_TAU2, _TAU2_RESULT, None),
    "agentdojo-blocks": (_DOJO, _TOOL, [{"type": "text", "content": "ok"}]),
    "agentdojo-text": (_DOJO, _TOOL, "ok"),
    "inspect-content": (_INSPECT, _TOOL, [{"type": "text", "text": "ok"}]),
    "mcp-missing": (_MCP_LOG, _MCP_RESULT, MISSING),  # (2024-10-07's toolResult instead)
    "mcp-debug-blocks": (_MCP_DEBUG, _MCP_RESULT, [{"type": "text", "text": "ok"}]),
}


@pytest.mark.parametrize("case", list(_WRITTEN))
def test_each_tool_message_content_the_formats_write_still_loads(tmp_path: Path, case: str) -> None:
    source, wanted, value = _WRITTEN[case]
    path, _ = set_first(source, wanted, "content", value, tmp_path)
    assert len(wb.load_runs(path).boundaries) == len(wb.load_runs(source).boundaries)


_ADK = FIXTURES / "google-adk" / "generated-adk-2.13.0-runner.events.jsonl"
_ADK_ANSWER = {"id": ..., "name": ..., "response": ...}
_OPENCODE = FIXTURES / "opencode" / "generated-opencode-1.18.33-export.json"
_OPENHANDS = FIXTURES / "openhands" / "basic.json"
_OPENHANDS_SDK = FIXTURES / "openhands" / "sdk-cd94562403b9487ebdd4018e3f531dfd.events.json"
_SWE = FIXTURES / "swe-agent" / "function_calling_simple.traj"
_MINI = FIXTURES / "swe-agent" / "generated-mini-swe-agent-2.4.6-toolcall.traj.json"
_MINI_RESPONSES = FIXTURES / "swe-agent" / "generated-mini-swe-agent-2.4.6-responses.traj.json"
_MINI_EXTRA = {"raw_output": ..., "returncode": ...}
_COPILOT_HISTORY = (
    FIXTURES / "copilot-cli" / "0b2a81da-02cf-4cbb-ae14-07c597b84f4e.history-session.json"
)
_RESULT_CASES: dict[str, tuple[Path, dict[str, Any], str, Any, str, str]] = {
    # Copilot CLI's history: a completed call's result log is text
    "copilot-history-log": (
        _COPILOT_HISTORY,
        {"type": "success", "log": ...},
        "log",
        7,
        "timeline[4]",
        "result.log",
    ),
    # ADK writes a function's response as an object (any other value as {"result": ...})
    "adk-number": (_ADK, _ADK_ANSWER, "response", 7, "line 2, part 0", "functionResponse.response"),
    "adk-null": (
        _ADK,
        _ADK_ANSWER,
        "response",
        None,
        "line 2, part 0",
        "functionResponse.response",
    ),
    # OpenCode: a completed tool part's output, an errored one's error, are strings
    "opencode-output": (
        _OPENCODE,
        {"status": "completed", "output": ...},
        "output",
        {"text": "ok"},
        "messages[1].parts[1]",
        "state.output",
    ),
    "opencode-error": (
        _OPENCODE,
        {"status": "error"},
        "error",
        1,
        "messages[2].parts[1]",
        "state.error",
    ),
    # OpenHands: an observation's content is text; the SDK's a list of content (or null)
    "openhands-number": (
        _OPENHANDS,
        {"observation": ..., "cause": ...},
        "content",
        7,
        "[2]",
        "content",
    ),
    "openhands-sdk-object": (
        _OPENHANDS_SDK,
        {"kind": "TerminalObservation"},
        "content",
        {"type": "text", "text": "ok"},
        "[3]",
        "observation.content",
    ),
    # the SDK of late 2025's observation error: a message or true (a number was no failure)
    "openhands-sdk-error": (
        _OPENHANDS_SDK,
        {"kind": "TerminalObservation"},
        "error",
        1,
        "[3]",
        "observation.error",
    ),
    # SWE-agent: a tool message's content is text (or content parts beside an image)
    "swe-agent-number": (_SWE, _TOOL, "content", 7, "history[3]", "content"),
    # mini-swe-agent: the output's text, and its process's integer returncode
    "mini-number": (_MINI, _TOOL, "content", 7, "messages[3]", "content"),
    "mini-returncode": (_MINI, _MINI_EXTRA, "returncode", "0", "messages[3]", "extra.returncode"),
    "mini-responses-output": (
        _MINI_RESPONSES,
        {"type": "function_call_output", "output": ...},
        "output",
        None,
        "messages[3]",
        "output",
    ),
}


@pytest.mark.parametrize("case", list(_RESULT_CASES))
def test_a_result_member_of_a_type_never_written_is_a_problem(tmp_path: Path, case: str) -> None:
    """R35: each was served as a success (or a failure of no message) with what it held."""
    source, wanted, member, value, where, field = _RESULT_CASES[case]
    path, _ = set_first(source, wanted, member, value, tmp_path)
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path)
    (problem,) = refused.value.problems
    assert (problem.where, problem.field) == (where, field), problem
    skipped = wb.load_runs(path, strict=False)
    assert len(skipped.boundaries) == len(wb.load_runs(source).boundaries) - 1


_RESULTS_WRITTEN: dict[str, tuple[Path, dict[str, Any], str, Any]] = {
    "copilot-history-no-log": (_COPILOT_HISTORY, {"type": "success", "log": ...}, "log", None),
    "adk-object": (_ADK, _ADK_ANSWER, "response", {"result": None}),
    "opencode-text": (_OPENCODE, {"status": "completed", "output": ...}, "output", "ok"),
    "openhands-text": (_OPENHANDS, {"observation": ..., "cause": ...}, "content", "ok"),
    "openhands-sdk-null": (_OPENHANDS_SDK, {"kind": "TerminalObservation"}, "content", None),
    "openhands-sdk-text": (_OPENHANDS_SDK, {"kind": "TerminalObservation"}, "content", "ok"),
    "openhands-sdk-error": (_OPENHANDS_SDK, {"kind": "TerminalObservation"}, "error", "it broke"),
    "swe-agent-parts": (_SWE, _TOOL, "content", [{"type": "text", "text": "ok"}]),
    "mini-returncode-null": (_MINI, _MINI_EXTRA, "returncode", None),
}


@pytest.mark.parametrize("case", list(_RESULTS_WRITTEN))
def test_each_result_member_the_formats_write_still_loads(tmp_path: Path, case: str) -> None:
    source, wanted, member, value = _RESULTS_WRITTEN[case]
    path, _ = set_first(source, wanted, member, value, tmp_path)
    assert len(wb.load_runs(path).boundaries) == len(wb.load_runs(source).boundaries)


@pytest.mark.parametrize("value", ["text", [1], 5])
def test_a_bedrock_tool_result_content_of_no_block_list_is_a_problem(
    tmp_path: Path, value: Any
) -> None:
    """R35: Converse writes ``toolResult.content`` as a list of blocks (``text``, ``json``,
    ``image``, ...); text was read as text and a list of numbers as an empty success."""
    source = FIXTURES / "bedrock-converse" / "pydantic-ai_test_bedrock_model_retry.yaml"
    cassette = yaml.safe_load(source.read_text())
    request = cassette["interactions"][1]["request"]
    body = json.loads(request["body"])
    results = [
        block["toolResult"]
        for message in body["messages"]
        for block in message["content"]
        if "toolResult" in block
    ]
    results[0]["content"] = value
    request["body"] = json.dumps(body)
    path = tmp_path / source.name
    path.write_text(yaml.safe_dump(cassette))
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path)
    assert [p.field for p in refused.value.problems] == ["toolResult.content"], (
        refused.value.problems
    )


@pytest.mark.parametrize("value", [5, True, ["Charles"], "Sunny"])
def test_a_gemini_api_function_response_of_no_object_is_a_problem(
    tmp_path: Path, value: Any
) -> None:
    """R35: the Gemini API's ``functionResponse.response`` is an object (a ``Struct``; the API
    refuses text); a number, a boolean or a list loaded as a success with its JSON as the
    text, and text as itself. The problem says what it should be (it said "not text or a
    list of blocks", for a list)."""
    source = FIXTURES / "chat-cassettes" / "llm-gemini_test_tools.yaml"
    cassette = yaml.safe_load(source.read_text())
    for interaction in cassette["interactions"][1:]:
        request = interaction["request"]
        body = json.loads(request["body"])
        for content in body["contents"]:
            for part in content["parts"]:
                if "function_response" in part:
                    part["function_response"]["response"] = value
        request["body"] = json.dumps(body)
    path = tmp_path / source.name
    path.write_text(yaml.safe_dump(cassette))
    result = wb.load_runs(path, strict=False)
    assert result.problems and not result.boundaries, (result.problems, result.boundaries)
    assert {p.field for p in result.problems} == {"functionResponse.response"}, result.problems
    assert all(p.message.startswith("not an object") for p in result.problems), result.problems
