"""OpenCode sessions: an export's messages and parts, and ``opencode run --format json``
events (SPEC R2, R34-R36, R40).

The sessions here are SYNTHETIC, written in the shape of real OpenCode 1.2 exports (the Entire
CLI's checkpoints of ``dayhaysoos/nimbus``, which has no licence and is not copied: 443
sessions, 11,519 calls, 242 failed, each matched by a helper's counter and by this loader) and
of OpenCode's own ``run --format json`` output; ``fixtures/opencode`` holds files the real
OpenCode 1.18.33 wrote, driven by a scripted fake model.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench as wb
from helpers.paths import FIXTURES
from workbench.cli import main


def _tool(call_id: str, tool: str, status: str = "completed", **state: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"status": status, "input": state.pop("input", {"filePath": "/a"})}
    if status == "completed":
        body |= {"output": state.pop("output", "ok"), "title": "t", "metadata": {}}
    elif status == "error":
        body["error"] = state.pop("error", "Error: File not found: /a")
    body |= state
    body.setdefault("time", {"start": 1_000, "end": 1_250})
    return {"id": f"prt_{call_id}", "type": "tool", "callID": call_id, "tool": tool, "state": body}


def _message(role: str, *parts: dict[str, Any], number: int = 0) -> dict[str, Any]:
    info = {"id": f"msg_{number}", "sessionID": "ses_1", "role": role, "time": {"created": 1}}
    if role == "assistant":
        info |= {"agent": "build", "mode": "build", "modelID": "gpt-5.3-codex"}
    return {"info": info, "parts": list(parts)}


def _text(text: str) -> dict[str, Any]:
    return {"id": "prt_t", "type": "text", "text": text}


def _export(tmp_path: Path, messages: list[Any], name: str = "session.json") -> Path:
    value = {"info": {"id": "ses_1", "title": "a task", "version": "1.2.24"}, "messages": messages}
    path = tmp_path / name
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def _session() -> list[dict[str, Any]]:
    """A user asks; the model reads a file, a missing one and runs two commands (one exits 1)
    at once; then answers."""
    exit_1: dict[str, Any] = {"output": "ls: cannot", "metadata": {"exit": 1, "output": "ls"}}
    return [
        _message("user", _text("Fix the bug."), number=0),
        _message(
            "assistant",
            {"id": "prt_s", "type": "step-start"},
            {"id": "prt_r", "type": "reasoning", "text": "look first"},
            _tool("c1", "read"),
            _tool("c2", "read", "error"),
            {"id": "prt_f", "type": "step-finish", "reason": "tool-calls"},
            number=1,
        ),
        _message(
            "assistant",
            _tool("c3", "bash", input={"command": "ls /x"}, **exit_1),
            _tool("c4", "bash", input={"command": "echo hi"}, output="hi\n", metadata={"exit": 0}),
            number=2,
        ),
        _message("assistant", _text("Done: the bug is fixed."), number=3),
    ]


def test_an_export_reads_each_tool_part_as_a_call_and_its_result(tmp_path: Path) -> None:
    """R34, R36: a part is a call and its result; ``status: error`` and a bash exit code other
    than 0 fail it; the other parts are counted, the conversation kept (R40)."""
    result = wb.load_runs(_export(tmp_path, _session()))
    assert result.format == "opencode"
    (run,) = result.runs
    assert [(b.call_id, b.tool, b.is_error, b.error_code) for b in run.boundaries] == [
        ("c1", "read", False, None),
        ("c2", "read", True, "tool_error"),
        ("c3", "bash", True, "exit_code:1"),
        ("c4", "bash", False, None),
    ]
    assert run.boundaries[1].error_message == "Error: File not found: /a"
    assert run.boundaries[1].response == {
        "content": [{"type": "text", "text": "Error: File not found: /a"}]
    }
    assert {b.agent_id for b in run.boundaries} == {"build"}
    assert run.boundaries[0].duration_ms == 250
    assert run.boundaries[0].location.endswith(": messages[1].parts[2]")
    assert run.run_id == "ses_1" and run.answer == "Done: the bug is fixed."
    assert run.metadata["records"]["part:step-start"] == 1
    assert run.metadata["session"]["title"] == "a task"
    assert run.conversation is not None
    roles = [m["role"] for m in run.conversation.messages]
    assert roles == ["user", "assistant", "tool", "tool", "assistant", "tool", "tool", "assistant"]


def test_the_messages_alone_read_as_the_export(tmp_path: Path) -> None:
    """The server's ``GET /session/{id}/message`` gives the messages as a list."""
    path = tmp_path / "messages.json"
    path.write_text(json.dumps(_session()), encoding="utf-8")
    assert [b.call_id for b in wb.load_runs(path).boundaries] == ["c1", "c2", "c3", "c4"]


def test_redacted_ids_pair_inside_each_part(tmp_path: Path) -> None:
    """Entire writes ``"REDACTED"`` for some call ids: each part is still its own call, paired
    with its own result, and none is a problem (R2: an answered id may be used again)."""
    parts = [_tool("REDACTED", "read"), _tool("REDACTED", "grep", "error"), _tool("", "glob")]
    result = wb.load_runs(_export(tmp_path, [_message("assistant", *parts)]))
    assert [(b.call_id, b.tool, b.is_error) for b in result.boundaries] == [
        ("REDACTED", "read", False),
        ("REDACTED", "grep", True),
        ("prt_", "glob", False),  # no callID: the part's id is the call's
    ]


def test_a_call_still_running_is_never_answered_and_bad_flags_are_problems(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R2, R35: a ``running`` or ``pending`` part is a call never answered; a status OpenCode
    has not, or an exit that is no integer, is a problem; the command line refuses the file
    naming the first, and ``--skip-problems`` loads the valid call."""
    parts = [
        _tool("c1", "read"),
        _tool("c2", "bash", "running"),
        _tool("c3", "read", "done"),
        _tool("c4", "bash", metadata={"exit": "1"}),
    ]
    path = _export(tmp_path, [_message("assistant", *parts)])
    result = wb.load_runs(path, strict=False)
    assert [b.call_id for b in result.boundaries] == ["c1"]
    said = sorted((p.where, p.field) for p in result.problems)
    assert said == [
        ("messages[0].parts[1]", "state.status"),
        ("messages[0].parts[2]", "state.status"),
        ("messages[0].parts[3]", "state.metadata.exit"),
    ]
    assert main(["boundaries", str(path)]) == 2
    assert "--skip-problems loads its 1 valid call" in capsys.readouterr().err


def test_a_session_with_no_tool_part_says_what_it_held(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: never an "OpenAI chat transcript" (what these files were taken for before)."""
    path = _export(tmp_path, [_message("user", _text("hi")), _message("assistant", _text("hello"))])
    assert main(["boundaries", str(path)]) == 2
    said = capsys.readouterr().err
    assert "the file is an OpenCode session of 1 run(s) holding" in said
    assert "part:text 2" in said


def _events(session: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The assistant parts of a session as ``opencode run --format json`` prints them."""
    kinds = {"tool": "tool_use", "text": "text", "reasoning": "reasoning"}
    kinds |= {"step-start": "step_start", "step-finish": "step_finish"}
    out = []
    for message in session:
        if message["info"]["role"] != "assistant":
            continue
        for part in message["parts"]:
            placed = {**part, "sessionID": "ses_1", "messageID": message["info"]["id"]}
            event = {"type": kinds[part["type"]], "timestamp": 1, "sessionID": "ses_1"}
            out.append({**event, "part": placed})
    return out


def test_run_format_json_events_read_as_the_sessions_calls(tmp_path: Path) -> None:
    """R34: the events a line give the same calls and flags as the export, each at its line;
    the session's ``error`` event is kept as a record of its own, not lost (R35)."""
    events = _events(_session())
    events.append({"type": "error", "timestamp": 2, "sessionID": "ses_1", "error": {"name": "X"}})
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    result = wb.load_runs(path)
    assert result.format == "opencode"
    exported = wb.load_runs(_export(tmp_path, _session())).boundaries
    assert [(b.call_id, b.is_error, b.error_code) for b in result.boundaries] == [
        (b.call_id, b.is_error, b.error_code) for b in exported
    ]
    assert result.boundaries[0].location == f"{path}:3"
    (run,) = result.runs
    assert run.metadata["otherMessages"][0]["type"] == "error"
    assert run.answer == "Done: the bug is fixed."


@settings(max_examples=40, deadline=None)
@given(st.randoms(use_true_random=False))
def test_no_call_is_lost_or_invented_whatever_the_order_of_messages(
    tmp_path_factory: pytest.TempPathFactory, rng: random.Random
) -> None:
    """Each part is its own call and result: the calls and flags do not depend on the order
    of the messages, even where every id is the same (Entire's ``"REDACTED"``) and a part is
    still running (never answered, answering nothing)."""
    session = _session()
    for message in session:
        for part in message["parts"]:
            if part["type"] == "tool":
                part["callID"] = "REDACTED"
    session.append(_message("assistant", _tool("REDACTED", "bash", "running"), number=9))
    rng.shuffle(session)
    path = _export(tmp_path_factory.mktemp("oc"), session)
    result = wb.load_runs(path, strict=False)
    got = sorted((b.tool, b.is_error, b.error_code) for b in result.boundaries)
    assert got == [
        ("bash", False, None),
        ("bash", True, "exit_code:1"),
        ("read", False, None),
        ("read", True, "tool_error"),
    ]
    (problem,) = result.problems
    assert problem.message.endswith("is never answered (its part is still running)")


def test_a_run_that_ended_in_an_error_is_failed_and_no_event_is_dropped(tmp_path: Path) -> None:
    """The stream's ``error`` event, or an export's message with ``info.error``, ends the run
    ``failed`` (the errors kept); an event before any ``sessionID`` is read, not dropped (a
    reviewer's three files)."""
    events = _events(_session())
    events.append({"type": "error", "timestamp": 2, "sessionID": "ses_1", "error": {"name": "X"}})
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    (run,) = wb.load_runs(path).runs
    assert run.outcome == "failed" and run.metadata["errors"] == [{"name": "X"}]
    session = _session()
    session[-1]["info"]["error"] = {"name": "APIError", "data": {"message": "overloaded"}}
    assert wb.load_runs(_export(tmp_path, session)).runs[0].outcome == "failed"
    assert wb.load_runs(_export(tmp_path, _session())).runs[0].outcome == "completed"
    first = {**events[2], "sessionID": None}
    path.write_text(json.dumps(first) + "\n" + json.dumps(events[2]) + "\n", encoding="utf-8")
    assert len(wb.load_runs(path).boundaries) == 2


GENERATED = FIXTURES / "opencode"


def test_the_real_clis_export_and_run_stream_read_as_the_same_calls() -> None:
    """R34, R36: files the real OpenCode 1.18.33 wrote (fixtures/opencode, counted by hand: 6
    calls, a missing file's ``error`` and ``ls``'s exit code 2 failed); the stream lists the
    two calls made at once as they finished, the export as their parts come."""
    export = wb.load_runs(GENERATED / "generated-opencode-1.18.33-export.json")
    stream = wb.load_runs(GENERATED / "generated-opencode-1.18.33-run.jsonl")
    failed = {("call_read_missing", "tool_error"), ("call_bash_fail", "exit_code:2")}
    for result in (export, stream):
        assert result.format == "opencode"
        assert {(b.call_id, b.error_code) for b in result.boundaries if b.is_error} == failed
        assert len(result.boundaries) == 6
    assert [b.call_id for b in export.boundaries][4:] == ["call_glob", "call_grep"]
    assert [b.call_id for b in stream.boundaries][4:] == ["call_grep", "call_glob"]
    assert {b.agent_id for b in export.boundaries} == {"build"}
    (run,) = export.runs
    assert run.answer is not None and run.answer.startswith("Done.")


@pytest.mark.parametrize(
    ("ending", "code"),
    [
        (  # OpenCode 1.18.33's words (its shell tool, read from the released binary)
            "\n\n<shell_metadata>\nshell tool terminated command after exceeding timeout "
            "120000 ms. If this command is expected to take longer and is not waiting for "
            "interactive input, retry with a larger timeout value in milliseconds.\n"
            "</shell_metadata>",
            "timeout",
        ),
        (  # OpenCode 1.2's
            "\n\n<bash_metadata>\nbash tool terminated command after exceeding timeout 60000 ms"
            "\n</bash_metadata>",
            "timeout",
        ),
        ("\n\n<metadata>\nUser aborted the command\n</metadata>", "aborted"),
        ("", "killed"),
    ],
)
def test_a_command_stopped_with_no_exit_code_is_a_failure(
    tmp_path: Path, ending: str, code: str
) -> None:
    """R36: OpenCode reports a command it killed (past its timeout, or aborted by the user) as
    ``completed`` with ``exit: null``; the agent saw it stopped, so it fails (SYNTHETIC parts
    in OpenCode's shape). A part with no ``exit`` member at all is not read as stopped."""
    stopped = _tool(
        "c1",
        "bash",
        input={"command": "sleep 999"},
        output=f"partial output{ending}",
        metadata={"exit": None, "output": "partial output"},
    )
    unsaid = _tool("c2", "bash", input={"command": "true"}, output="", metadata={})
    path = _export(tmp_path, [_message("assistant", stopped, unsaid, number=1)])
    boundaries = wb.load_runs(path).boundaries
    assert [(b.call_id, b.is_error, b.error_code) for b in boundaries] == [
        ("c1", True, code),
        ("c2", False, None),
    ]
    assert boundaries[0].response == {
        "content": [{"type": "text", "text": f"partial output{ending}"}]
    }
