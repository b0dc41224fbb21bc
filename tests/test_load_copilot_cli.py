"""GitHub Copilot CLI session event logs (SPEC R34-R36, R40).

The records here are SYNTHETIC, written in the shape of the Copilot SDK's ``session-events``
schema (github/copilot-sdk, ``nodejs/src/generated/session-events.ts``); the real recordings
are in ``fixtures/copilot-cli`` and counted in ``tests/helpers/recordings.py``. Each test
builds its events with :func:`_event` and says which rule it checks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench as wb
from helpers.paths import FIXTURES

GENERATED = FIXTURES / "copilot-cli"


def _event(kind: str, data: dict[str, Any], number: int, **more: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "data": data,
        "id": f"e{number}",
        "timestamp": "2026-10-01T00:00:00.000Z",
        "parentId": f"e{number - 1}" if number else None,
        **more,
    }


def _start(session: str = "0a1b2c3d-0000-4000-8000-000000000000") -> dict[str, Any]:
    data = {
        "sessionId": session,
        "version": 1,
        "producer": "copilot-agent",
        "copilotVersion": "1.0.90",
        "startTime": "2026-10-01T00:00:00.000Z",
        "selectedModel": "gpt-5",
        "context": {"cwd": "/work"},
    }
    return _event("session.start", data, 0)


def _call(call_id: str, tool: str, args: Any, number: int, **more: Any) -> dict[str, Any]:
    data = {"toolCallId": call_id, "toolName": tool, "arguments": args}
    return _event("tool.execution_start", data, number, **more)


def _done(call_id: str, number: int, *, success: bool = True, **data: Any) -> dict[str, Any]:
    return _event(
        "tool.execution_complete", {"toolCallId": call_id, "success": success, **data}, number
    )


def _write(tmp_path: Path, records: list[Any], name: str = "events.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _session(calls: int = 3) -> list[dict[str, Any]]:
    """A root agent's turn: a user message, a reply requesting ``calls`` calls made at once, each
    started, then each completed (the last one failed), then the answer."""
    requests = [
        {"toolCallId": f"call_{i}", "name": "bash", "arguments": {"command": f"echo {i}"}}
        for i in range(calls)
    ]
    records = [
        _start(),
        _event("user.message", {"content": "go", "transformedContent": "<now/> go"}, 1),
        _event("assistant.turn_start", {"turnId": "0"}, 2),
        _event(
            "assistant.message_delta", {"messageId": "m0", "deltaContent": "Ru"}, 3, ephemeral=True
        ),
        _event(
            "assistant.message",
            {"messageId": "m0", "content": "Running.", "toolRequests": requests},
            4,
        ),
    ]
    number = 5
    for i in range(calls):
        records.append(_call(f"call_{i}", "bash", {"command": f"echo {i}"}, number))
        number += 1
    for i in range(calls):
        if i == calls - 1:
            records.append(
                _done(
                    f"call_{i}", number, success=False, error={"message": "boom", "code": "failure"}
                )
            )
        else:
            records.append(
                _done(f"call_{i}", number, result={"content": f"{i}\n<exited with exit code 0>"})
            )
        number += 1
    records.append(_event("assistant.message", {"messageId": "m1", "content": "All done."}, number))
    records.append(_event("assistant.turn_end", {"turnId": "0"}, number + 1))
    return records


def test_calls_and_failures_are_read_from_the_execution_events(tmp_path: Path) -> None:
    """R34, R36: each started call is a boundary, ``success: false`` a failure whose error message
    (and code) the suite serves; the session's id names the run."""
    result = wb.load_runs(_write(tmp_path, _session()))
    assert result.format == "copilot-cli" and result.problems == ()
    run = result.run
    assert run.run_id == "0a1b2c3d-0000-4000-8000-000000000000"
    assert [(b.call_id, b.tool, b.is_error) for b in run.boundaries] == [
        ("call_0", "bash", False),
        ("call_1", "bash", False),
        ("call_2", "bash", True),
    ]
    failed = run.boundaries[2]
    assert (failed.error_code, failed.error_message) == ("failure", "boom")
    assert failed.response == {"content": [{"type": "text", "text": "boom"}]}
    assert run.boundaries[0].args == {"command": "echo 0"}
    assert run.answer == "All done."
    assert run.metadata["records"]["assistant.message_delta"] == 1  # R35: counted, not a problem


def test_the_conversation_is_what_the_model_was_sent(tmp_path: Path) -> None:
    """R40: the user's message as the model got it, the reply and its calls, each result."""
    run = wb.load_runs(_write(tmp_path, _session(calls=1))).run
    assert run.conversation is not None
    roles = [m["role"] for m in run.conversation.messages]
    assert roles == ["user", "assistant", "tool", "assistant"]
    assert run.conversation.messages[0]["content"] == "<now/> go"
    assert run.conversation.model == "gpt-5"


def test_a_shell_command_that_exited_non_zero_is_a_failure(tmp_path: Path) -> None:
    """R36: the ``terminal`` block's exit code, else the text's ending, fails a call reported
    as a success."""
    records = [
        _start(),
        _call("c1", "bash", {"command": "false"}, 1),
        _done(
            "c1",
            2,
            result={
                "content": "\n<exited with exit code 1>",
                "contents": [{"type": "terminal", "text": "", "exitCode": 1}],
            },
        ),
        _call("c2", "bash", {"command": "exit 3"}, 3),
        _done("c2", 4, result={"content": "nope\n<exited with exit code 3>"}),
        _call("c3", "bash", {"command": "true"}, 5),
        _done("c3", 6, result={"content": "<exited with exit code 0>"}),
    ]
    run = wb.load_runs(_write(tmp_path, records)).run
    assert [(b.is_error, b.error_code) for b in run.boundaries] == [
        (True, "exit_code:1"),
        (True, "exit_code:3"),
        (False, None),
    ]


def test_a_call_denied_before_it_ran_is_read_from_its_request(tmp_path: Path) -> None:
    """R34: a requested call with no ``tool.execution_start`` that completes (denied) keeps the
    tool and arguments of its request."""
    request = {"toolCallId": "d1", "name": "rm", "arguments": '{"path": "/"}'}
    records = [
        _start(),
        _event(
            "assistant.message", {"messageId": "m", "content": "", "toolRequests": [request]}, 1
        ),
        _done("d1", 2, success=False, error={"message": "The user denied this tool call."}),
    ]
    run = wb.load_runs(_write(tmp_path, records)).run
    (denied,) = run.boundaries
    assert (denied.tool, denied.args, denied.is_error) == ("rm", {"path": "/"}, True)
    assert denied.extra["executionStarted"] is False


def test_a_sub_agents_calls_keep_its_name(tmp_path: Path) -> None:
    """R34: a sub-agent's events carry its ``agentId``; ``subagent.started`` names it."""
    records = [
        _start(),
        _call("task_1", "task", {"agent_type": "explore"}, 1),
        _event(
            "subagent.started",
            {
                "toolCallId": "task_1",
                "agentName": "explore",
                "agentDisplayName": "Explore",
                "agentDescription": "",
            },
            2,
        ),
        _call("inner_1", "grep", {"pattern": "x"}, 3, agentId="task_1"),
        _done("inner_1", 4, result={"content": "found"}),
        _event(
            "subagent.completed",
            {"toolCallId": "task_1", "agentName": "explore", "agentDisplayName": "Explore"},
            5,
        ),
        _done("task_1", 6, result={"content": "summary"}),
    ]
    run = wb.load_runs(_write(tmp_path, records)).run
    assert [(b.call_id, b.agent_id) for b in run.boundaries] == [
        ("task_1", None),
        ("inner_1", "explore"),
    ]


def test_redacted_content_is_marked_not_recorded(tmp_path: Path) -> None:
    """R35: a log written with its content redacted still loads, each such call marked so that
    ``boundaries`` and ``promote`` can say a suite would serve the placeholder."""
    records = [
        _start(),
        _call("r1", "view", "[REDACTED]", 1),
        _done("r1", 2, result={"content": "[REDACTED]"}),
    ]
    run = wb.load_runs(_write(tmp_path, records)).run
    (call,) = run.boundaries
    assert call.extra["contentNotRecorded"] is True
    assert run.metadata["records"]["call:contentNotRecorded"] == 1


def test_each_session_of_a_file_is_a_run(tmp_path: Path) -> None:
    """R34: sessions appended one after another are one run each."""
    second = _session(calls=1)
    second[0] = _start("ffff0000-0000-4000-8000-000000000000")
    result = wb.load_runs(_write(tmp_path, _session() + second))
    assert [len(r.boundaries) for r in result.runs] == [3, 1]


def test_the_events_saved_as_one_array_load_with_item_places(tmp_path: Path) -> None:
    path = tmp_path / "events.json"
    records = _session()
    records[6]["data"]["toolName"] = 7  # a problem, named at its item
    path.write_text(json.dumps(records), encoding="utf-8")
    result = wb.load_runs(path, strict=False)
    assert result.format == "copilot-cli"
    assert [p.where for p in result.problems][:1] == ["item 6"]


def test_bad_records_are_problems_with_their_line(tmp_path: Path) -> None:
    """R35: a wrong-typed success flag, a call with no id, a result with no call: problems at
    their line, never a success."""
    records = [
        _start(),
        _call("a", "bash", {}, 1),
        _done("a", 2, success="yes"),  # type: ignore[arg-type]
        _call("", "bash", {}, 3),
        _done("zz", 4),
    ]
    result = wb.load_runs(_write(tmp_path, records), strict=False)
    assert result.boundaries == ()
    found = [(p.line, p.field) for p in result.problems]
    assert found == [(3, "data.success"), (4, "data.toolCallId"), (5, "data.success")]


def test_a_wrong_format_is_not_taken_for_copilot() -> None:
    from workbench._load.copilot_cli import sniff_copilot_cli

    assert not sniff_copilot_cli([{"type": "agent.tool-called", "payload": {}, "runId": "r"}])
    assert not sniff_copilot_cli([{"type": "session.start"}])  # no data object
    assert not sniff_copilot_cli([{"type": "turn.started", "data": {}}])  # not Copilot's area
    assert sniff_copilot_cli([_start()])


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.randoms(use_true_random=False), st.integers(min_value=1, max_value=6))
def test_parallel_calls_completed_in_any_order_lose_and_invent_nothing(
    tmp_path: Path, random: Any, calls: int
) -> None:
    """Property (issue 10): calls made at once may complete in any order, each after its own
    start; the same boundaries load, in call order."""
    records = _session(calls)
    head, starts = records[:5], records[5 : 5 + calls]
    ends, tail = records[5 + calls : 5 + 2 * calls], records[5 + 2 * calls :]
    random.shuffle(ends)
    middle = list(starts)
    for end in ends:  # each completion anywhere after its own start
        began = next(
            i for i, r in enumerate(middle) if r["data"]["toolCallId"] == end["data"]["toolCallId"]
        )
        middle.insert(random.randint(began + 1, len(middle)), end)
    result = wb.load_runs(_write(tmp_path, head + middle + tail, name=f"p{calls}.jsonl"))
    assert result.problems == ()
    assert [(b.call_id, b.is_error) for b in result.boundaries] == [
        (f"call_{i}", i == calls - 1) for i in range(calls)
    ]


def test_the_cli_s_own_files_agree_and_keep_what_the_cli_said() -> None:
    """R34, R36 on the files Copilot CLI 1.0.102 wrote itself (SYNTHETIC: a scripted model; see
    fixtures/copilot-cli/SOURCE.md): its session log and its -p output give the same calls; the
    shell command that exited 3 (a success to the CLI) fails, the MCP call keeps its server, the
    sub-agent's call its name."""
    stem = "generated-copilot-1.0.102-mcp-subagent"
    events = wb.load_runs(GENERATED / f"{stem}.events.jsonl").run
    stdout = wb.load_runs(GENERATED / f"{stem}.stdout.jsonl").run
    facts = [(b.call_id, b.tool, b.args, b.is_error, b.agent_id) for b in events.boundaries]
    assert facts == [(b.call_id, b.tool, b.args, b.is_error, b.agent_id) for b in stdout.boundaries]
    by_tool = {b.tool: b for b in events.boundaries}
    exited = events.boundaries[1]
    assert (exited.is_error, exited.error_code) == (True, "exit_code:3")
    assert (
        by_tool["fakemcp-boom"].is_error
        and by_tool["fakemcp-add"].extra["mcpServerName"] == "fakemcp"
    )
    assert events.boundaries[-1].agent_id == "general-purpose"
    assert events.run_id == events.metadata["session"]["sessionId"]
    assert stdout.metadata["exitCode"] == 0
    assert events.conversation is not None
    assert events.conversation.messages[0]["role"] == "system"


def test_a_completion_given_twice_is_a_problem_not_a_second_call(tmp_path: Path) -> None:
    """R35: the same ``tool.execution_complete`` twice: one call, the second a problem."""
    records = _session(calls=1)
    done = next(r for r in records if r["type"] == "tool.execution_complete")
    at = records.index(done)
    records.insert(at + 1, {**done, "id": "again"})
    result = wb.load_runs(_write(tmp_path, records), strict=False)
    assert [b.call_id for b in result.boundaries] == ["call_0"]
    assert [p.line for p in result.problems] == [at + 2]


def test_a_requested_call_that_never_ran_is_never_answered(tmp_path: Path) -> None:
    """R2: a call the model requested with no start and no completion (the session cut short)
    is a problem at the request, not lost."""
    request = {"toolCallId": "lost", "name": "view", "arguments": {"path": "a"}}
    records = [
        _start(),
        _event(
            "assistant.message", {"messageId": "m", "content": "", "toolRequests": [request]}, 1
        ),
    ]
    result = wb.load_runs(_write(tmp_path, records), strict=False)
    assert [(p.line, p.message) for p in result.problems] == [
        (2, "call 'lost' to 'view' is never answered")
    ]


def test_only_a_shell_calls_text_says_its_exit_code(tmp_path: Path) -> None:
    """R36: a ``view`` of a file whose text ends ``<exited with exit code 2>`` is no failure."""
    records = [
        _start(),
        _call("v1", "view", {"path": "log.txt"}, 1),
        _done("v1", 2, result={"content": "build log\n<exited with exit code 2>"}),
    ]
    (viewed,) = wb.load_runs(_write(tmp_path, records)).boundaries
    assert viewed.is_error is False


def test_two_sub_agents_of_one_kind_are_told_apart(tmp_path: Path) -> None:
    started = {"agentName": "explore", "agentDisplayName": "Explore", "agentDescription": ""}
    records = [
        _start(),
        _call("t1", "task", {}, 1),
        _call("t2", "task", {}, 2),
        _event("subagent.started", {**started, "toolCallId": "t1"}, 3),
        _event("subagent.started", {**started, "toolCallId": "t2"}, 4),
        _call("a", "grep", {}, 5, agentId="t1"),
        _call("b", "grep", {}, 6, agentId="t2"),
        _done("a", 7),
        _done("b", 8),
        _done("t1", 9),
        _done("t2", 10),
    ]
    agents = {b.call_id: b.agent_id for b in wb.load_runs(_write(tmp_path, records)).boundaries}
    assert (agents["a"], agents["b"]) == ("explore", "explore-2")


def test_a_failure_with_no_message_is_served_empty_not_made_up(tmp_path: Path) -> None:
    """R42: nothing recorded of what the model was told: the fixture serves no text."""
    records = [_start(), _call("f", "bash", {}, 1), _done("f", 2, success=False)]
    (failed,) = wb.load_runs(_write(tmp_path, records)).boundaries
    assert failed.is_error and failed.response == {"content": []}


def test_the_p_outputs_run_is_named_by_its_result_line(tmp_path: Path) -> None:
    records = [r for r in _session(calls=1) if r["type"] != "session.start"]
    records.append({"type": "result", "exitCode": 0, "sessionId": "from-the-result-line"})
    assert wb.load_runs(_write(tmp_path, records)).run.run_id == "from-the-result-line"
