"""mini-swe-agent trajectories (SPEC R34-R36) on SYNTHETIC files written here.

The files are made by the tests from mini-swe-agent's documented output format (its
``docs/usage/output_files.md``) and are synthetic, not recordings; a real version-1 trajectory
is pinned in ``tests/helpers/recordings.py``. These pin what it lacks: tool calls, the ``exit``
message, ``extra`` failure signals, and messages of a role no chat format has.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench as wb
from workbench.cli import main


def _write(tmp_path: Path, messages: list[dict[str, Any]], **info: Any) -> Path:
    path = tmp_path / "django__django-1.traj.json"
    trajectory = {
        "info": {"exit_status": "Submitted", "submission": "diff", **info},
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1.1",
        "instance_id": "django__django-1",
    }
    path.write_text(json.dumps(trajectory), encoding="utf-8")
    return path


def _call(call_id: str, command: str) -> dict[str, Any]:
    arguments = json.dumps({"command": command})
    return {"id": call_id, "type": "function", "function": {"name": "bash", "arguments": arguments}}


def _output(call_id: str, code: int, **extra: Any) -> dict[str, Any]:
    return {
        "role": "tool",
        "tool_call_id": call_id,
        "content": f"<returncode>{code}</returncode>\n<output>\nx\n</output>",
        "extra": {"returncode": code, "exception_info": "", **extra},
    }


START = [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "fix it"},
]


def test_tool_calls_fail_by_their_return_code_and_the_exit_message_answers_the_submit(
    tmp_path: Path,
) -> None:
    """2.x with a tool-calling model: ``extra.returncode`` decides; the submitting command is
    answered by the ``exit`` message, whose content is the run's answer."""
    submit = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff --cached"
    path = _write(
        tmp_path,
        [
            *START,
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [_call("c1", "ls"), _call("c2", "cat x")],
            },
            _output("c1", 0),
            _output("c2", 1),
            {"role": "assistant", "content": None, "tool_calls": [_call("c3", "sleep 9")]},
            {
                "role": "tool",
                "tool_call_id": "c3",
                "content": "timed out",
                "extra": {"interrupt_type": "ExecutionTimeoutError"},
            },
            {"role": "assistant", "content": None, "tool_calls": [_call("c4", submit)]},
            {
                "role": "exit",
                "content": "diff --git a/x b/x",
                "extra": {"exit_status": "Submitted"},
            },
        ],
    )
    result = wb.load_runs(path)
    [run] = result.runs
    assert result.format == "swe-agent" and run.run_id == "django__django-1"
    assert [(b.call_id, b.is_error, b.error_code) for b in run.boundaries] == [
        ("c1", False, None),
        ("c2", True, "returncode 1"),
        ("c3", True, "ExecutionTimeoutError"),
        ("c4", False, None),
    ]
    assert run.boundaries[3].response == "diff --git a/x b/x"
    assert run.metadata["exitStatus"] == "Submitted" and run.outcome == "completed"
    assert run.conversation is not None
    assert [m["role"] for m in run.conversation.messages][-2:] == ["assistant", "tool"]


def test_text_actions_run_one_command_a_reply_and_a_format_error_runs_none(tmp_path: Path) -> None:
    """2.x with a text-based model: ``extra.actions`` holds the parsed command; a reply with
    none (mini-swe-agent answers with a format error) or with two makes no call."""
    path = _write(
        tmp_path,
        [
            *START,
            {
                "role": "assistant",
                "content": "```mswea_bash_command\nls\n```",
                "extra": {"actions": [{"command": "ls"}]},
            },
            {
                "role": "user",
                "content": "<returncode>2</returncode>\n<output>\nno\n</output>",
                "extra": {"returncode": 2},
            },
            {"role": "assistant", "content": "I think so.", "extra": {"actions": []}},
            {
                "role": "user",
                "content": "Please always provide EXACTLY ONE action",
                "extra": {"interrupt_type": "FormatError"},
            },
            {
                "role": "assistant",
                "content": "```mswea_bash_command\npwd\n```",
                "extra": {"actions": [{"command": "pwd"}]},
            },
            {
                "role": "user",
                "content": "<returncode>0</returncode>\n<output>\n/\n</output>",
                "extra": {"returncode": 0},
            },
            {
                "role": "exit",
                "content": "LimitsExceeded",
                "extra": {"exit_status": "LimitsExceeded"},
            },
        ],
        exit_status="LimitsExceeded",
    )
    result = wb.load_runs(path)
    [run] = result.runs
    assert [(b.call_id, b.args, b.is_error) for b in run.boundaries] == [
        ("action-2", {"command": "ls"}, True),
        ("action-6", {"command": "pwd"}, False),
    ]
    assert run.outcome == "failed" and result.problems == ()


def test_an_exit_raised_while_a_command_ran_fails_it(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        [
            *START,
            {"role": "assistant", "content": None, "tool_calls": [_call("c1", "make")]},
            {
                "role": "exit",
                "content": "RuntimeError: docker died",
                "extra": {"exit_status": "RuntimeError"},
            },
        ],
        exit_status="RuntimeError",
    )
    [boundary] = wb.load_runs(path).boundaries
    assert (boundary.is_error, boundary.error_code) == (True, "RuntimeError")


def test_a_message_of_a_role_no_chat_format_has_is_kept_and_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: neither read nor dropped with no word: kept in ``metadata.otherMessages``, and the
    command line says so (an OpenAI chat transcript keeps it the same way)."""
    odd = {"role": "critic", "content": "looks fine"}
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": None, "tool_calls": [_call("c1", "ls")]},
                    {"role": "tool", "tool_call_id": "c1", "content": "a.txt"},
                    odd,
                ]
            }
        ),
        encoding="utf-8",
    )
    mini = _write(
        tmp_path,
        [
            *START,
            {"role": "assistant", "content": None, "tool_calls": [_call("c1", "ls")]},
            _output("c1", 0),
            odd,
        ],
    )
    for path, fmt in ((chat, "openai-chat"), (mini, "swe-agent")):
        result = wb.load_runs(path)
        assert result.format == fmt and result.run.metadata["otherMessages"] == [odd]
        assert main(["boundaries", str(path)]) == 0
        assert (
            capsys.readouterr()
            .out.splitlines()[-1]
            .startswith("1 message of a role the format has not: kept as recorded")
        )


def test_a_list_of_chat_messages_is_not_taken_for_a_trajectory(tmp_path: Path) -> None:
    """Version 1's bare list is told by its outputs (``<returncode>`` user messages); a chat
    transcript saved as a list stays one."""
    path = tmp_path / "messages.json"
    path.write_text(
        json.dumps(
            [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": None, "tool_calls": [_call("c1", "ls")]},
                {"role": "tool", "tool_call_id": "c1", "content": "<returncode>0</returncode>"},
            ]
        ),
        encoding="utf-8",
    )
    assert wb.load_runs(path).format == "openai-chat"


def test_real_trajectories_end_as_their_exit_says() -> None:
    """Real 2.x runs (fixtures/swe-agent, counted in its SOURCE.md): the exit message answers
    the submitting call with the submission; an exit after an API error answers none and
    fails the run; a command that timed out failed by its ``exception_info``."""
    from helpers.paths import FIXTURES

    folder = FIXTURES / "swe-agent"
    submitted = wb.load_runs(folder / "mini_swe_agent_v2_toolcall_sqlfluff-2419.traj.json").run
    data = json.loads((folder / "mini_swe_agent_v2_toolcall_sqlfluff-2419.traj.json").read_bytes())
    last = submitted.boundaries[-1]
    assert "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in last.args["command"]
    assert (last.response, last.is_error) == (data["info"]["submission"], False)
    assert submitted.answer == data["info"]["submission"] and submitted.outcome == "completed"
    crashed = wb.load_runs(folder / "mini_swe_agent_v2_toolcall_pvlib-1072.traj.json").run
    assert crashed.metadata["exitStatus"] == "InternalServerError" and crashed.outcome == "failed"
    assert [b.error_code for b in crashed.boundaries if b.is_error] == [
        "returncode 1",
        "returncode -1",
        "returncode -1",
    ]
    version_1 = wb.load_runs(folder / "mini_swe_agent_v1_gemini_xarray-4629.traj.json").run
    assert version_1.metadata["exitStatus"] == "Submitted"


def test_version_1_s_timeout_message_fails_the_command_it_killed() -> None:
    """R36: mini-swe-agent 1.x answers a command it killed past its timeout "The last command
    <command>...</command> timed out and has been killed", with no return code: a failure
    (a real run: fixtures/swe-agent/SOURCE.md counts 26 commands, 2 killed)."""
    from helpers.paths import FIXTURES

    path = FIXTURES / "swe-agent" / "mini_swe_agent_v1_gemini_django-16502.traj.json"
    run = wb.load_runs(path).run
    killed = [b for b in run.boundaries if b.is_error]
    assert [b.error_code for b in killed] == ["timeout", "timeout"]
    assert all(b.args["command"].startswith("./reproduction/test_issue") for b in killed)
    assert len(run.boundaries) == 26


@settings(max_examples=40, deadline=None)
@given(st.permutations(range(6)), st.lists(st.integers(0, 2), min_size=6, max_size=6))
def test_parallel_calls_answered_in_any_order_pair_each_with_its_own(
    order: list[int], codes: list[int]
) -> None:
    """R2: calls made at once and answered in any order pair by id, each failing by its own
    return code (the calls awaiting an answer are kept so that any order takes constant time
    each: a list made 80,000 answers in reverse order take 80 s)."""
    calls = [_call(f"c{n}", f"echo {n}") for n in range(6)]
    messages: list[dict[str, Any]] = [
        *START,
        {"role": "assistant", "content": "", "tool_calls": calls},
        *(_output(f"c{n}", codes[n]) for n in order),
    ]
    with tempfile.TemporaryDirectory() as folder:
        path = _write(Path(folder), messages)
        result = wb.load_runs(path, strict=False)
    assert [(b.call_id, b.args) for b in result.boundaries] == [
        (f"c{n}", {"command": f"echo {n}"}) for n in range(6)
    ]
    assert [b.is_error for b in result.boundaries] == [code != 0 for code in codes]
    assert not result.problems
