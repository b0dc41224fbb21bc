"""Codex CLI headless output (``codex exec --json``) loads as runs of tool boundaries (SPEC R2,
R34-R36).

SYNTHETIC streams in the shape Codex's own event types give (``codex-rs/exec/src/
exec_events.rs``): no real recording of this stream with tool calls was found to copy, only
snippets inside other projects' tests.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import workbench as wb
from workbench.cli import main as cli_main


def _write(path: Path, events: list[Any]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events))
    return path


def _item(event: str, item_id: str, kind: str, **members: Any) -> dict[str, Any]:
    return {"type": event, "item": {"id": item_id, "type": kind, **members}}


def _command(item_id: str, command: str, output: str, code: int | None, status: str) -> list[Any]:
    started = _item(
        "item.started",
        item_id,
        "command_execution",
        command=command,
        aggregated_output="",
        exit_code=None,
        status="in_progress",
    )
    done = _item(
        "item.completed",
        item_id,
        "command_execution",
        command=command,
        aggregated_output=output,
        exit_code=code,
        status=status,
    )
    return [started, done]


def _session() -> list[Any]:
    mcp_failed = {"message": "unknown repository"}
    return [
        {"type": "thread.started", "thread_id": "0199a213-81c0-7800-8aa1-bbab2a035a53"},
        {"type": "turn.started"},
        _item("item.completed", "item_0", "reasoning", text="**Looking at the tests**"),
        *_command("item_1", "bash -lc ls", "README.md\n", 0, "completed"),
        *_command("item_2", "bash -lc 'pytest -q'", "1 failed\n", 1, "failed"),
        *_command("item_3", "bash -lc 'rm -rf /'", "", None, "declined"),
        _item(
            "item.completed",
            "item_4",
            "mcp_tool_call",
            server="github",
            tool="get_issue",
            arguments={"number": 7},
            result=None,
            error=mcp_failed,
            status="failed",
        ),
        _item(
            "item.completed",
            "item_5",
            "mcp_tool_call",
            server="github",
            tool="get_issue",
            arguments={"number": 8},
            status="completed",
            error=None,
            result={"content": [{"type": "text", "text": "open"}], "structured_content": None},
        ),
        _item("item.completed", "item_6", "web_search", query="pytest -q", action={"type": "x"}),
        _item(
            "item.completed",
            "item_7",
            "file_change",
            changes=[{"path": "a.py", "kind": "update"}],
            status="completed",
        ),
        _item("item.completed", "item_8", "agent_message", text="One test fails."),
        {"type": "turn.completed", "usage": {"input_tokens": 10, "output_tokens": 2}},
    ]


def test_a_headless_stream_loads_each_tool_item_as_a_boundary(tmp_path: Path) -> None:
    """R34, R36: commands, MCP calls, web searches and file changes are boundaries; a non-zero
    exit, a declined command and an MCP error are failures with their codes and messages."""
    loaded = wb.load_runs(_write(tmp_path / "exec.jsonl", _session()))
    run = loaded.run
    assert (run.format, run.run_id, run.outcome) == (
        "codex",
        "0199a213-81c0-7800-8aa1-bbab2a035a53",
        "completed",
    )
    assert not loaded.problems
    facts = [(b.call_id, b.tool, b.is_error, b.error_code) for b in run.boundaries]
    assert facts == [
        ("item_1", "command_execution", False, None),
        ("item_2", "command_execution", True, "exit_code:1"),
        ("item_3", "command_execution", True, "declined"),
        ("item_4", "get_issue", True, None),
        ("item_5", "get_issue", False, None),
        ("item_6", "web_search", False, None),
        ("item_7", "file_change", False, None),
    ]
    by_id = {b.call_id: b for b in run.boundaries}
    assert by_id["item_1"].args == {"command": "bash -lc ls"}
    assert by_id["item_2"].response == {"content": [{"type": "text", "text": "1 failed\n"}]}
    assert by_id["item_4"].error_message == "unknown repository"
    assert by_id["item_4"].extra["server"] == "github"
    assert by_id["item_5"].response == {"content": [{"type": "text", "text": "open"}]}
    assert run.answer == "One test fails."
    assert run.metadata["records"]["item.completed"] == 9


def test_each_thread_is_a_run_and_a_failed_turn_fails_it(tmp_path: Path) -> None:
    """R2: a harness appending two runs to one file gives two runs, each its own calls."""
    second = [
        {"type": "thread.started", "thread_id": "t2"},
        {"type": "turn.started"},
        *_command("item_0", "make", "error\n", 2, "failed"),
        {"type": "turn.failed", "error": {"message": "stream disconnected"}},
    ]
    loaded = wb.load_runs(_write(tmp_path / "two.jsonl", _session() + second))
    assert [(r.run_id[:8], len(r.boundaries), r.outcome) for r in loaded.runs] == [
        ("0199a213", 7, "completed"),
        ("t2", 1, "failed"),
    ]
    assert loaded.runs[1].boundaries[0].error_code == "exit_code:2"


def test_bad_items_are_problems_naming_line_and_field(tmp_path: Path) -> None:
    """R35: a command started and never completed, a wrong-typed exit code and an unknown
    status are problems with their line and field; the other calls still load."""
    events = [
        {"type": "thread.started", "thread_id": "t"},
        *_command("item_1", "ls", "", 0, "completed")[:1],  # never completed
        *_command("item_2", "ls", "x", 0, "completed"),
        *_command("item_3", "ls", "x", 0, "completed"),
        *_command("item_4", "ls", "x", 0, "completed"),
    ]
    events[5]["item"]["exit_code"] = "0"
    events[7]["item"]["status"] = "done"
    path = _write(tmp_path / "bad.jsonl", events)
    loaded = wb.load_runs(path, strict=False)
    assert [b.call_id for b in loaded.boundaries] == ["item_2"]
    assert sorted((p.line, p.field) for p in loaded.problems) == [
        (2, "item.id"),
        (6, "item.exit_code"),
        (8, "item.status"),
    ]
    assert cli_main(["boundaries", str(path)]) == 2


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.booleans()), min_size=1, max_size=8), st.randoms())
def test_items_completed_in_any_order_keep_their_calls(
    commands: list[tuple[int, bool]], rng: random.Random
) -> None:
    """R2: parallel items completed in any order after they started give the same boundaries,
    in the order they started, none lost or invented."""
    started: list[Any] = []
    completed: list[Any] = []
    for number, (code, declined) in enumerate(commands):
        status = "declined" if declined else "completed" if code == 0 else "failed"
        first, done = _command(f"item_{number}", f"cmd {number}", f"out {number}", code, status)
        started.append(first)
        completed.append(done)
    rng.shuffle(completed)
    events = [{"type": "thread.started", "thread_id": "t"}, *started, *completed]
    text = "".join(json.dumps(e) + "\n" for e in events)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "exec.jsonl"
        path.write_text(text)
        loaded = wb.load_runs(path)
    assert [(b.call_id, b.is_error) for b in loaded.boundaries] == [
        (f"item_{n}", declined or code != 0) for n, (code, declined) in enumerate(commands)
    ]
    assert not loaded.problems


def test_a_stream_with_no_call_is_named_as_the_stream_it_is(tmp_path: Path) -> None:
    """R35: the refusal says what the file held: codex exec output (SYNTHETIC), not a rollout."""
    events = [
        {"type": "thread.started", "thread_id": "t1"},
        {"type": "turn.started"},
        {"type": "item.completed", "item": {"id": "i0", "type": "agent_message", "text": "hi"}},
        {"type": "turn.completed", "usage": {"input_tokens": 1, "output_tokens": 1}},
    ]
    path = tmp_path / "exec.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    try:
        wb.load_runs(path)
    except wb.LoadError as exc:
        (problem,) = exc.problems
    else:  # pragma: no cover - the load must refuse
        raise AssertionError("a stream with no call loaded")
    assert "no tool call found: the file is Codex CLI output of codex exec --json" in (
        problem.message
    )
