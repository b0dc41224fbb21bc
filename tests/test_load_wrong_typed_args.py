"""Call arguments of a type their format never writes are a problem, never a call (R35).

A Gemini CLI ``args`` of a number, a list or text; a Chat Completions ``arguments`` that is
neither JSON text nor an object, a Responses one that is no JSON text; an Anthropic
``tool_use.input``, a Gemini API ``functionCall.args``, an AgentDojo ``args`` or an MCP
``tools/call`` request's ``params.arguments`` that is no object: each loaded as the
call's arguments, and ``promote`` wrote them into a fixture (``"args": 5``). In a cassette,
the model's reply is what the model sent: a reply of such arguments is refused even where the
client resent them mended (the chat readers took the resent copy, the Responses reader the
reply). Each file here is a real fixture with one value changed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import workbench as wb
from helpers.json_places import set_first, set_in_cassette
from helpers.paths import FIXTURES
from workbench.cli import main

_GEMINI_CLI = FIXTURES / "gemini-cli" / "session-2026-01-16T11-01-file-ops-37b7abef.json"
_GEMINI_STREAM = FIXTURES / "gemini-cli" / "generated-gemini-0.61.0-read-missing.stream.jsonl"
_AGENTDOJO = (
    FIXTURES / "agentdojo" / "claude-3-5-sonnet-20241022__workspace__user_task_37__none__none.json"
)
_MCP_LOG = FIXTURES / "mcp" / "echo-session.jsonl"
_MCP_FIELD = "request.params.arguments"
_SAVED: dict[str, tuple[Path, dict[str, Any], str, Any, str]] = {
    # Gemini CLI: ToolCallRecord.args is a Record<string, unknown>
    "gemini-cli-number": (_GEMINI_CLI, {"name": ..., "args": ...}, "args", 5, "args"),
    "gemini-cli-list": (_GEMINI_CLI, {"name": ..., "args": ...}, "args", [1, 2], "args"),
    "gemini-cli-text": (_GEMINI_CLI, {"name": ..., "args": ...}, "args", '{"a": 1}', "args"),
    # stream-json: ToolUseEvent.parameters is a Record<string, unknown>
    "gemini-stream-text": (
        _GEMINI_STREAM,
        {"type": "tool_use"},
        "parameters",
        "x",
        "parameters",
    ),
    # Chat Completions: function.arguments is JSON text (or, in some SDK dumps, the object
    # it decodes to: tests/test_realworld_inputs.py)
    "openai-chat-number": (
        FIXTURES / "samples" / "openai-chat-refund.json",
        {"name": ..., "arguments": ...},
        "arguments",
        42,
        "function.arguments",
    ),
    "openai-chat-list": (
        FIXTURES / "samples" / "openai-chat-refund.json",
        {"name": ..., "arguments": ...},
        "arguments",
        ["A1"],
        "function.arguments",
    ),
    # Anthropic: tool_use.input is an object
    "anthropic-text": (
        FIXTURES / "samples" / "anthropic-refund.json",
        {"type": "tool_use"},
        "input",
        "NYC",
        "input",
    ),
    # AgentDojo: FunctionCall.args is a mapping (null too is refused: the member is required)
    "agentdojo-bool": (_AGENTDOJO, {"function": ..., "args": ...}, "args", True, "args"),
    "agentdojo-list": (_AGENTDOJO, {"function": ..., "args": ...}, "args", [1], "args"),
    "agentdojo-text": (_AGENTDOJO, {"function": ..., "args": ...}, "args", "{}", "args"),
    "agentdojo-null": (_AGENTDOJO, {"function": ..., "args": ...}, "args", None, "args"),
    # MCP: CallToolRequest.params.arguments is an object
    "mcp-list": (_MCP_LOG, {"name": ..., "arguments": ...}, "arguments", [1, 2], _MCP_FIELD),
    "mcp-text": (_MCP_LOG, {"name": ..., "arguments": ...}, "arguments", "hi", _MCP_FIELD),
    "mcp-number": (_MCP_LOG, {"name": ..., "arguments": ...}, "arguments", 7, _MCP_FIELD),
}


@pytest.mark.parametrize("case", list(_SAVED))
def test_saved_call_arguments_of_a_type_never_written_are_a_problem(
    tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: one problem naming the call's place and field (the call and its result are not
    loaded; they loaded with those arguments), and the command line's exit 2."""
    source, wanted, member, value, field = _SAVED[case]
    path, line = set_first(source, wanted, member, value, tmp_path)
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path)
    (problem,) = refused.value.problems  # its result is not also "has no open call"
    assert problem.field == field and "never writes" in problem.message, problem
    if line is not None:  # (an MCP log's place goes on: "line 3 msg")
        assert problem.where.split()[:2] == ["line", str(line)], problem
    skipped = wb.load_runs(path, strict=False)
    assert len(skipped.boundaries) == len(wb.load_runs(source).boundaries) - 1
    assert main(["boundaries", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"(field {field})" in err, err


def test_promote_writes_no_fixture_of_such_arguments(tmp_path: Path) -> None:
    """R35: ``promote`` wrote ``{"tool": ..., "args": 5}`` and its self-test passed."""
    path, _ = set_first(_GEMINI_CLI, {"name": ..., "args": ...}, "args", 5, tmp_path)
    out = tmp_path / "suite.json"
    assert main(["promote", str(path), "-o", str(out)]) == 2
    assert not out.exists()


_CHAT = FIXTURES / "chat-cassettes" / "crewai_test_native_tool_calling_error_handling.yaml"
_ANTHROPIC = (
    FIXTURES / "chat-cassettes" / "pydantic_ai_anthropic_test_multiple_parallel_tool_calls.yaml"
)
_RESPONSES = FIXTURES / "openai-responses" / "openinference_agent_framework_multiple_tools.yaml"
_GEMINI_API = (
    FIXTURES
    / "chat-cassettes"
    / "crewai_TestGeminiNativeToolCalling.test_gemini_parallel_native_tool_calling_test_crew.yaml"
)
_CASSETTES: dict[str, tuple[Path, dict[str, Any], str, Any, str]] = {
    "chat-number": (_CHAT, {"name": ..., "arguments": ...}, "arguments", 42, "function.arguments"),
    "anthropic-text": (_ANTHROPIC, {"type": "tool_use"}, "input", "NYC", "input"),
    "responses-number": (
        _RESPONSES,
        {"type": "function_call"},
        "arguments",
        42,
        "arguments",
    ),
    "responses-object": (
        _RESPONSES,
        {"type": "function_call"},
        "arguments",
        {"location": "Paris"},
        "arguments",
    ),
    "gemini-api-list": (
        _GEMINI_API,
        {"name": ..., "args": ...},
        "args",
        [1, 2],
        "functionCall.args",
    ),
}


@pytest.mark.parametrize("resent", [True, False], ids=["resent-so", "resent-mended"])
@pytest.mark.parametrize("case", list(_CASSETTES))
def test_a_cassette_reply_of_call_arguments_never_written_is_a_problem(
    tmp_path: Path, case: str, resent: bool
) -> None:
    """R35: the reply's call is refused naming its interaction and field, whether the next
    request resent the same arguments or mended ones (the model sent these)."""
    source, wanted, member, value, field = _CASSETTES[case]
    path, number = set_in_cassette(source, wanted, member, value, tmp_path, resent=resent)
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path)
    first = refused.value.problems[0]
    assert first.where.startswith(f"interaction {number}, response"), first
    assert first.field == field and "never writes" in first.message, first


@pytest.mark.parametrize(
    ("source", "wanted", "member", "value"),
    [
        (_CHAT, {"name": ..., "arguments": ...}, "arguments", "[1, 2]"),  # JSON text of any JSON
        (_CHAT, {"name": ..., "arguments": ...}, "arguments", "not JSON"),  # kept as text
        (_RESPONSES, {"type": "function_call"}, "arguments", "5"),
    ],
    ids=["chat-list-text", "chat-no-json", "responses-number-text"],
)
def test_arguments_of_json_text_still_load_as_read(
    tmp_path: Path, source: Path, wanted: dict[str, Any], member: str, value: Any
) -> None:
    """A string is what the formats write, whatever JSON it holds: read as before."""
    path, _ = set_in_cassette(source, wanted, member, value, tmp_path, resent=True)
    whole = wb.load_runs(source)
    changed = wb.load_runs(path)
    assert len(changed.boundaries) == len(whole.boundaries)
    read = json.loads(value) if value != "not JSON" else value
    assert read in [b.args for b in changed.boundaries]
