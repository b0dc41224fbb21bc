"""A tau-bench task that crashed is named, never loaded as nothing (SPEC R35, R34).

tau-bench writes a task whose run raised as a record with an empty ``traj`` and the exception in
``info`` (``error``: its text, ``traceback``). The real file here is such a results file of one
task (``fixtures/tau-bench/SOURCE.md``). Alone, the crash is the problem the file is refused for;
among records that hold calls, it is a run that failed with no boundary, noted on the run. A
``traj`` of messages none of which calls a tool, with ``info.error`` set, is the same crash.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import workbench as wb
from helpers.paths import TAU_BENCH, TAU_DEMO
from workbench.cli import main

CRASHED = TAU_BENCH / "tau-bench-deepseek-v3-task-0-crashed.json"
SAID = (
    "record 0 (task 0, trial 0): the run crashed before any tool call: "
    "info.error 'EOF when reading a line' (EOFError)"
)


def _write(tmp_path: Path, records: list[Any]) -> Path:
    path = tmp_path / "results.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def test_a_file_of_one_crashed_task_is_refused_naming_the_record_and_its_error() -> None:
    """R35: the file records no tool call; the problem says the run crashed, where, and why
    (``info.error`` and the exception's class from ``info.traceback``), not only "no tool call"."""
    with pytest.raises(wb.LoadError) as caught:
        wb.load_runs(CRASHED)
    (problem,) = caught.value.problems
    assert str(problem) == f"{CRASHED}: {SAID}"
    result = wb.load_runs(CRASHED, strict=False)
    (run,) = result.runs
    assert result.format == "openai-chat" and not run.boundaries
    assert run.outcome == "failed"
    assert run.metadata["info"]["error"] == "EOF when reading a line"  # kept as recorded (R4)


def test_the_command_line_names_the_crash_with_or_without_skip_problems(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """R35: ``workbench boundaries`` exits 2 saying the task crashed; ``--skip-problems`` does
    not load it either (a file with no valid call is still refused)."""
    for extra in ([], ["--skip-problems"]):
        assert main(["boundaries", str(CRASHED), *extra]) == 2
        err = capsys.readouterr().err
        assert SAID in err and "no tool call found" not in err


def test_a_crashed_task_among_good_ones_is_a_failed_run_noted_not_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: every record is a boundary, a known non-tool record or a problem. A crash among
    runs with calls is a known non-tool record: its run is kept, failed, with no boundary and
    the crash in ``metadata["crashedBeforeAnyCall"]``; the file loads strictly, and
    ``workbench boundaries`` says which record crashed and why."""
    good = json.loads(TAU_DEMO.read_text(encoding="utf-8"))
    crashed = json.loads(CRASHED.read_text(encoding="utf-8"))
    path = _write(tmp_path, good + crashed)
    result = wb.load_runs(path)
    assert [len(run.boundaries) for run in result.runs] == [20, 0]
    assert [run.outcome for run in result.runs] == ["completed", "failed"]
    assert result.runs[1].metadata["crashedBeforeAnyCall"] == [
        "record 1 (task 0, trial 0): info.error 'EOF when reading a line' (EOFError)"
    ]
    assert "crashedBeforeAnyCall" not in result.runs[0].metadata
    assert main(["boundaries", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1 run crashed before any tool call" in out
    assert "record 1 (task 0, trial 0): info.error 'EOF when reading a line'" in out
    promotion = wb.promote(result)
    assert promotion.empty_tasks == ("task-0-trial-0",)
    assert promotion.self_test is not None and promotion.self_test.passed


def test_a_crash_text_is_escaped_and_shortened(tmp_path: Path) -> None:
    """R35: a recorded error text is shown escaped (no control or bidi character reaches a
    terminal) and cut to a readable length; a crash of no traceback names no class."""
    error = "\x1b[2J\u202e" + "x" * 500
    path = _write(tmp_path, [{"task_id": "t\n1", "info": {"error": error}, "traj": []}])
    with pytest.raises(wb.LoadError) as caught:
        wb.load_runs(path)
    (problem,) = caught.value.problems
    assert problem.where == "record 0 (task t\n1)"  # (the terminal escapes it: safe_text)
    assert problem.message.startswith(
        "the run crashed before any tool call: info.error '\\x1b[2J\\u202exxx"
    )
    assert problem.message.endswith("x\u2026'")
    assert len(problem.message) < 200


def test_an_empty_record_that_did_not_crash_is_still_nothing_found(tmp_path: Path) -> None:
    """R35: with no ``info.error`` an empty record is no crash; the file is refused for holding
    no tool call, as before."""
    path = _write(tmp_path, [{"task_id": 1, "info": {"error": None}, "traj": []}])
    with pytest.raises(wb.LoadError, match="no tool call found"):
        wb.load_runs(path)
    assert wb.load_runs(path, strict=False).runs[0].outcome == "completed"


def test_a_crash_in_a_jsonl_file_is_named_by_its_line(tmp_path: Path) -> None:
    """R35, R2: records a line (JSONL): a crash is named by the file line it is on."""
    good = json.loads(TAU_DEMO.read_text(encoding="utf-8"))
    crashed = json.loads(CRASHED.read_text(encoding="utf-8"))
    path = tmp_path / "results.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in good + crashed) + "\n", encoding="utf-8")
    (_, run) = wb.load_runs(path).runs
    assert run.metadata["crashedBeforeAnyCall"] == [
        "line 2 (task 0, trial 0): info.error 'EOF when reading a line' (EOFError)"
    ]
    path.write_text(json.dumps(crashed[0]) + "\n", encoding="utf-8")
    with pytest.raises(wb.LoadError) as caught:
        wb.load_runs(path)
    (problem,) = caught.value.problems
    assert (problem.where, problem.line) == ("line 1 (task 0, trial 0)", 1)


def _crashed_after_talk() -> list[Any]:
    """The real crashed record with its ``traj`` the real task 3's messages before its first
    tool call (system, user, assistant: a crash after some talk, before any call)."""
    good = json.loads(TAU_DEMO.read_text(encoding="utf-8"))
    crashed: list[Any] = json.loads(CRASHED.read_text(encoding="utf-8"))
    talk = good[0]["traj"]
    crashed[0]["traj"] = talk[: next(i for i, m in enumerate(talk) if m.get("tool_calls"))]
    assert crashed[0]["traj"] and crashed[0]["info"]["error"]
    return crashed


def test_a_crash_after_messages_with_no_tool_call_is_named_as_the_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: a record whose ``traj`` holds messages but no tool call, with ``info.error`` set,
    was refused as a plain "no tool call found": it is named as the crash, as an empty
    ``traj`` is; loaded anyway, its run failed."""
    path = _write(tmp_path, _crashed_after_talk())
    with pytest.raises(wb.LoadError) as caught:
        wb.load_runs(path)
    (problem,) = caught.value.problems
    assert str(problem) == f"{path}: {SAID}"
    (run,) = wb.load_runs(path, strict=False).runs
    assert not run.boundaries and run.outcome == "failed"
    assert main(["boundaries", str(path)]) == 2
    err = capsys.readouterr().err
    assert SAID in err and "no tool call found" not in err


def test_a_crash_after_messages_among_good_tasks_is_a_failed_run_noted(tmp_path: Path) -> None:
    """R35: among runs with calls, that record is a known non-tool record: failed, no
    boundary, the crash in ``metadata["crashedBeforeAnyCall"]``; the conversation kept."""
    good = json.loads(TAU_DEMO.read_text(encoding="utf-8"))
    result = wb.load_runs(_write(tmp_path, good + _crashed_after_talk()))
    assert [len(run.boundaries) for run in result.runs] == [20, 0]
    assert [run.outcome for run in result.runs] == ["completed", "failed"]
    assert result.runs[1].metadata["crashedBeforeAnyCall"] == [
        "record 1 (task 0, trial 0): info.error 'EOF when reading a line' (EOFError)"
    ]
    conversation = result.runs[1].conversation
    assert conversation is not None and len(conversation.messages) == 6


def test_a_crash_after_a_tool_call_names_the_crash_in_the_call_it_left_open(
    tmp_path: Path,
) -> None:
    """R2, R35: the real crashed record with its ``traj`` the real task 3's messages up to its
    first tool call (a crash while that call ran): the call never answered is a problem that
    says the run crashed after it, and why; loaded anyway, the run failed, the crash noted."""
    good = json.loads(TAU_DEMO.read_text(encoding="utf-8"))
    crashed: list[Any] = json.loads(CRASHED.read_text(encoding="utf-8"))
    talk = good[0]["traj"]
    crashed[0]["traj"] = talk[: next(i for i, m in enumerate(talk) if m.get("tool_calls")) + 1]
    path = _write(tmp_path, crashed)
    with pytest.raises(wb.LoadError) as caught:
        wb.load_runs(path)
    (problem,) = caught.value.problems
    assert problem.message.endswith(
        "is never answered: the run crashed after it: "
        "info.error 'EOF when reading a line' (EOFError)"
    ), problem
    (run,) = wb.load_runs(path, strict=False).runs
    assert run.outcome == "failed"
    assert run.metadata["crashedAfterCalls"] == "'EOF when reading a line' (EOFError)"
