"""Responses API built-in tools run by the client: apply_patch, shell, tool_search (SPEC R2, R3,
R34, R35).

The items are written here (SYNTHETIC), in the shapes of OpenAI's API reference; the real
cassettes of the same tools (langchain-openai's) are pinned in ``tests/helpers/recordings.py``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import workbench as wb


def _load(tmp_path: Path, items: list[dict[str, Any]]) -> wb.LoadResult:
    path = tmp_path / "items.json"
    reply = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "done"}],
    }
    path.write_text(json.dumps({"input": items, "output": [reply]}), encoding="utf-8")
    return wb.load_runs(path, strict=False)


_PATCH = {"type": "create_file", "path": "hello.txt", "diff": "+hello world\n"}


def test_an_apply_patch_call_is_a_call_and_a_failed_status_a_failure(tmp_path: Path) -> None:
    result = _load(
        tmp_path,
        [
            {"type": "message", "role": "user", "content": "create hello.txt"},
            {"type": "apply_patch_call", "id": "apc_1", "call_id": "c1", "operation": _PATCH},
            {"type": "apply_patch_call_output", "call_id": "c1", "status": "failed"},
            {"type": "apply_patch_call", "id": "apc_2", "call_id": "c2", "operation": _PATCH},
            {
                "type": "apply_patch_call_output",
                "call_id": "c2",
                "status": "completed",
                "output": "ok",
            },
        ],
    )
    assert result.format == "openai-responses"  # told by its items alone
    assert not result.problems
    failed, done = result.boundaries
    assert (failed.tool, failed.args, failed.is_error) == ("apply_patch", _PATCH, True)
    assert failed.error_message == "apply_patch failed"  # no output text: the status says it
    assert (done.tool, done.is_error, done.response) == ("apply_patch", False, "ok")


def _shell(call_id: str, outcome: dict[str, Any], stderr: str = "") -> list[dict[str, Any]]:
    action = {"commands": ["ls /nope"], "timeout_ms": 1000}
    output = [{"stdout": "", "stderr": stderr, "outcome": outcome}]
    return [
        {"type": "shell_call", "id": f"sh_{call_id}", "call_id": call_id, "action": action},
        {"type": "shell_call_output", "call_id": call_id, "output": output},
    ]


def test_a_shell_call_fails_when_a_command_exits_other_than_zero_or_times_out(
    tmp_path: Path,
) -> None:
    result = _load(
        tmp_path,
        [
            *_shell("s1", {"type": "exit", "exit_code": 0}),
            *_shell("s2", {"type": "exit", "exit_code": 2}, stderr="ls: /nope: No such file"),
            *_shell("s3", {"type": "timeout"}),
        ],
    )
    assert not result.problems
    assert [(b.tool, b.is_error) for b in result.boundaries] == [
        ("shell", False),
        ("shell", True),
        ("shell", True),
    ]
    assert result.boundaries[1].error_message == "ls: /nope: No such file"
    assert result.boundaries[1].args == {"commands": ["ls /nope"], "timeout_ms": 1000}


def test_a_tool_search_is_a_call_run_by_the_client_and_a_hosted_one_run_by_the_server(
    tmp_path: Path,
) -> None:
    tools = [{"type": "function", "name": "get_weather", "parameters": {}}]
    result = _load(
        tmp_path,
        [
            {
                "type": "tool_search_call",
                "id": "tsc_1",
                "call_id": "c1",
                "execution": "client",
                "arguments": {"goal": "weather"},
            },
            {"type": "tool_search_output", "call_id": "c1", "execution": "client", "tools": tools},
            {
                "type": "tool_search_call",
                "id": "tsc_2",
                "call_id": None,
                "execution": "server",
                "status": "completed",
                "arguments": {"paths": ["get_weather"]},
            },
            {"type": "tool_search_output", "id": "tso_2", "call_id": None, "tools": tools},
        ],
    )
    assert not result.problems
    client, server = result.boundaries
    assert (client.call_id, client.tool, client.args) == ("c1", "tool_search", {"goal": "weather"})
    assert client.response == {"execution": "client", "tools": tools}
    assert (server.call_id, server.tool, server.args) == (
        "tsc_2",
        "tool_search",
        {"paths": ["get_weather"]},
    )
    assert not server.is_error
    (run,) = result.runs
    assert [item["id"] for item in run.metadata["otherItems"]] == ["tso_2"]  # kept (R4)


def test_an_apply_patch_call_never_answered_is_a_problem(tmp_path: Path) -> None:
    """R2: a client tool's call with no output is reported, as any call is."""
    result = _load(
        tmp_path,
        [{"type": "apply_patch_call", "id": "apc_1", "call_id": "c1", "operation": _PATCH}],
    )
    assert not result.boundaries
    (problem,) = result.problems
    assert "call 'c1' to 'apply_patch' is never answered" in problem.message


def test_a_hosted_item_resent_without_its_id_is_read_once_a_conversation(
    tmp_path: Path,
) -> None:
    """A stateless client (pydantic-ai's) resends the history with no item ids: the same
    id-less server-run search in each request is one call of the conversation, not one a
    request (R2: no boundary invented)."""
    search = {
        "type": "tool_search_call",
        "call_id": None,
        "execution": "server",
        "status": "completed",
        "arguments": {"queries": ["rate"]},
    }
    found: dict[str, Any] = {
        "type": "tool_search_output",
        "call_id": None,
        "execution": "server",
        "tools": [],
    }
    call = {"type": "function_call", "call_id": "c1", "name": "rate", "arguments": "{}"}
    answer = {"type": "function_call_output", "call_id": "c1", "output": "0.92"}
    user = {"role": "user", "content": "rate?"}
    said = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "ok"}],
    }

    def exchange(inputs: list[Any], output: list[Any], number: int) -> dict[str, Any]:
        response = {"object": "response", "id": f"resp_{number}", "output": output}
        return {
            "request": {
                "uri": "https://api.openai.com/v1/responses",
                "method": "POST",
                "parsed_body": {"model": "m", "input": inputs},
            },
            "response": {"status": {"code": 200}, "parsed_body": response},
        }

    interactions = [
        exchange([user, search, found], [call], 1),
        exchange([user, search, found, call, answer], [said], 2),
    ]
    path = tmp_path / "cassette.json"
    path.write_text(json.dumps({"interactions": interactions}), encoding="utf-8")
    result = wb.load_runs(path)
    assert [(b.tool, b.is_error) for b in result.boundaries] == [
        ("tool_search", False),
        ("rate", False),
    ]


def test_a_hosted_mcp_call_whose_output_is_an_object_keeps_it_whole(tmp_path: Path) -> None:
    """R35: an ``mcp_call`` item's ``output`` is text; one recorded as an object with no
    ``content`` (a mutation fuzz of a real cassette found it) crashed the load with a KeyError.
    It is the call's response as recorded, and a failed status still fails it."""
    item = {
        "type": "mcp_call",
        "id": "mcp_1",
        "name": "search",
        "arguments": "{}",
        "server_label": "docs",
        "output": {"hits": 0},
        "status": "failed",
    }
    result = _load(tmp_path, [item])
    assert [(b.call_id, b.response, b.is_error) for b in result.boundaries] == [
        ("mcp_1", {"hits": 0}, True)
    ]
