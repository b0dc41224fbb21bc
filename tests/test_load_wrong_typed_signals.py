"""A failure signal of a type or value its format never writes is a problem, never a success
(SPEC R35).

An audit changed each format's failure signals in real fixtures to values of other types: the
loaders tested them as ``x is True``, ``== "failed"`` or ``type(x) is int`` and read anything
else as no failure, so a failed call loaded as a success with no word (or a list crashed the
load). Each case here is a real fixture with one value changed; each is now one problem naming
the field, its call not served, the other calls loaded as before, and exit 2 in one line.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

import workbench as wb
from helpers.json_places import set_first, set_in_cassette
from helpers.paths import FIXTURES
from workbench.cli import main

_CODEX = FIXTURES / "codex" / "generated-codex-0.171.0-patch-and-mcp.rollout.jsonl"
_CODEX_EXEC = FIXTURES / "codex" / "generated-codex-0.171.0-patch-and-mcp.exec.jsonl"
_COPILOT = FIXTURES / "copilot-cli" / "generated-copilot-1.0.102-denials.events.jsonl"
_COPILOT_HISTORY = (
    FIXTURES / "copilot-cli" / "0b2a81da-02cf-4cbb-ae14-07c597b84f4e.history-session.json"
)
_OPENHANDS = FIXTURES / "openhands" / "basic_gui_mode.json"
_TAU2 = FIXTURES / "tau2-bench" / "blakeelias_tau2_airline_relaxed_grok-3-mini.json"
_OPENWOP = FIXTURES / "billing-support.openwop.jsonl"
_MCP_RESULT = {"content": [{"type": "text", "text": "x"}], "isError": "true"}

_CASES: dict[str, tuple[Path, dict[str, Any], str, Any, str]] = {
    # codex-rs: McpToolCallStatus is in_progress | completed | failed; isError a bool
    "codex-mcp-status-case": (
        _CODEX,
        {"type": "McpToolCall", "id": "call_g30_m3"},
        "status",
        "Failed",
        "payload.item.status",
    ),
    "codex-mcp-status-null": (
        _CODEX,
        {"type": "McpToolCall", "id": "call_g30_m3"},
        "status",
        None,
        "payload.item.status",
    ),
    "codex-mcp-iserror-text": (
        _CODEX,
        {"isError": True},
        "isError",
        "true",
        "payload.item.result.isError",
    ),
    "codex-exec-iserror-text": (
        _CODEX_EXEC,
        {"type": "mcp_tool_call", "status": "completed"},
        "result",
        _MCP_RESULT,
        "item.result.isError",
    ),
    # Copilot CLI: shellExecution.exitCode is a number the CLI writes whole
    "copilot-exit-text": (
        _COPILOT,
        {"exitCode": 0},
        "exitCode",
        "2",
        "data.shellExecution.exitCode",
    ),
    "copilot-exit-float": (
        _COPILOT,
        {"exitCode": 0},
        "exitCode",
        2.5,
        "data.shellExecution.exitCode",
    ),
    # Copilot CLI 0.0.3xx history: result.type is one of its words (a list crashed the load)
    "copilot-history-type-list": (
        _COPILOT_HISTORY,
        {"type": "success", "log": ...},
        "type",
        ["failure"],
        "result.type",
    ),
    # OpenHands: CmdOutputMetadata.exit_code is an int
    "openhands-exit-text": (
        _OPENHANDS,
        {"exit_code": 0},
        "exit_code",
        "0",
        "extras.metadata.exit_code",
    ),
    # tau2: ToolMessage.error is a bool (never null)
    "tau2-error-null": (_TAU2, {"role": "tool", "error": False}, "error", None, "error"),
    # OpenWOP: agent.tool-returned status is the schema's enum; an MCP outcome's isError a bool
    "openwop-status-case": (_OPENWOP, {"status": "ok"}, "status", "OK", "payload.status"),
    "openwop-iserror-text": (
        _OPENWOP,
        {"content": ..., "structuredContent": ...},
        "isError",
        "false",
        "payload.outcome.isError",
    ),
}


@pytest.mark.parametrize("case", list(_CASES))
def test_a_failure_signal_never_written_is_a_problem(
    tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: one problem at the signal's field; the call is not served; exit 2 in one line."""
    source, wanted, member, value, field = _CASES[case]
    path, _ = set_first(source, wanted, member, value, tmp_path)
    result = wb.load_runs(path, strict=False)
    (problem,) = result.problems
    assert problem.field == field, problem
    assert len(result.boundaries) == len(wb.load_runs(source).boundaries) - 1
    assert main(["boundaries", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"(field {field})" in err, err


_ANTHROPIC = (
    FIXTURES
    / "chat-cassettes"
    / "pydantic_ai_anthropic_test_anthropic_supported_model_uses_20260209_web_tools.yaml"
)
_GEMINI = FIXTURES / "chat-cassettes" / "pydantic_ai_google_test_code_execution.yaml"
_CASSETTES: dict[str, tuple[Path, dict[str, Any], str, Any, str]] = {
    # Anthropic: a code execution result's return_code is a required integer
    "anthropic-return-code-null": (
        _ANTHROPIC,
        {"return_code": 1},
        "return_code",
        None,
        "content.return_code",
    ),
    # Responses: a hosted tool's item status is a word (in_progress, completed, failed, ...)
    "responses-status-true": (
        FIXTURES
        / "openai-responses"
        / "test_openai_responses_model_web_search_tool_with_user_location.yaml",
        {"type": "web_search_call"},
        "status",
        True,
        "status",
    ),
    "responses-status-case": (
        FIXTURES
        / "openai-responses"
        / "test_openai_responses_model_web_search_tool_with_user_location.yaml",
        {"type": "web_search_call"},
        "status",
        "FAILED",
        "status",
    ),
    # Gemini API: codeExecutionResult.outcome is one of its enum's names (a list crashed)
    "gemini-outcome-list": (
        _GEMINI,
        {"outcome": "OUTCOME_OK"},
        "outcome",
        ["OUTCOME_OK"],
        "codeExecutionResult.outcome",
    ),
}


@pytest.mark.parametrize("case", list(_CASSETTES))
def test_a_server_result_signal_never_written_is_a_problem(tmp_path: Path, case: str) -> None:
    """R35: the model API's reply holds the server tool's result (and the client resends it);
    one problem at its field, the call not served, the others as before."""
    source, wanted, member, value, field = _CASSETTES[case]
    path, _ = set_in_cassette(source, wanted, member, value, tmp_path, resent=True)
    result = wb.load_runs(path, strict=False)
    (problem,) = result.problems
    assert problem.field == field, problem
    assert len(result.boundaries) == len(wb.load_runs(source).boundaries) - 1


_INSPECT = FIXTURES / "inspect-ai" / "inspect_agents_eval_status-error.json.gz"


@pytest.mark.parametrize(
    ("member", "value"), [("failed", "true"), ("failed", 1), ("error", "timeout: 30 s")]
)
def test_an_inspect_tool_event_signal_never_written_is_a_problem(
    tmp_path: Path, member: str, value: Any
) -> None:
    """R35: a ToolEvent's ``failed`` is a bool (or null) and its ``error`` a ToolCallError
    object; either of another type was read as no failure. One problem at that field of the
    failed call's event, which is not served."""
    log = json.loads(gzip.decompress(_INSPECT.read_bytes()))
    events = log["samples"][0]["events"]
    index, event = next(
        (i, e) for i, e in enumerate(events) if e.get("event") == "tool" and e.get("failed")
    )
    event[member] = value
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    result = wb.load_runs(path, strict=False)
    (problem,) = result.problems
    assert (problem.where, problem.field) == (f"samples[0].events[{index}]", member), problem
    assert event["id"] not in {b.call_id for b in result.boundaries}
    assert len(result.boundaries) == len(wb.load_runs(_INSPECT, strict=False).boundaries) - 1
