"""A Codex unified exec output's exit code is read from its head's lines, however long the
command it names (R36, R3; module ``workbench/_load/codex_outputs.py``). Since 0.11x Codex
heads an ``exec_command`` or ``write_stdin`` output ``Command: <the command>``, then ``Chunk
ID``, ``Wall time`` and ``Process exited with code N`` or ``Process running with session ID N``.
Read from the first 400 characters, a long command hid that line: the poll that showed the agent
``exited with code 1`` was a success, and the call that showed it a running process failed."""

from __future__ import annotations

from typing import Any

import workbench as wb
from helpers.codex_rollouts import call_items, write_rollout
from helpers.paths import FIXTURES

REAL = FIXTURES / "codex" / "git-sync_33_dc63f83cff_0_full.jsonl.gz"

LONG = "go test ./internal/syncer -run '" + "|".join(f"TestCase{i:03d}" for i in range(40)) + "'"


def _head(command: str, state: str) -> str:
    return (
        f'Command: /bin/zsh -lc "{command}"\nChunk ID: 6bfb0f\nWall time: 1.0011 seconds\n'
        f"{state}\nOriginal token count: 3\nOutput:\n"
    )


def test_a_long_command_hides_no_exit_code(tmp_path: Any) -> None:
    """SYNTHETIC lines in codex-rs's words: a command longer than 400 characters that outlived
    its call (``exec_command_end`` says 1 later), the ``write_stdin`` poll that printed its exit
    code 1, a long command that exited 2 with no event, and a short command echoing
    ``Exit code: 1`` that exited 0."""
    assert len(LONG) > 400
    end = {"type": "exec_command_end", "call_id": "c1", "exit_code": 1}
    items = [
        *call_items(
            "c1", name="exec_command", output=_head(LONG, "Process running with session ID 31134")
        ),
        *call_items(
            "c2", name="write_stdin", output=_head(LONG, "Process exited with code 1") + "FAIL\n"
        ),
        {"type": "event_msg", "payload": end},
        *call_items(
            "c3",
            name="exec_command",
            output=_head(LONG + " -count=1", "Process exited with code 2"),
        ),
        *call_items(
            "c4",
            name="exec_command",
            output=_head("echo 'Exit code: 1'", "Process exited with code 0"),
        ),
    ]
    result = wb.load_runs(write_rollout(tmp_path, items))
    got = [(b.call_id, b.is_error, b.error_code) for b in result.boundaries]
    assert got == [
        ("c1", False, None),
        ("c2", True, "exit_code:1"),
        ("c3", True, "exit_code:2"),
        ("c4", False, None),
    ]
    assert (result.boundaries[0].extra or {}).get("laterExitCode") == 1


def test_a_multi_line_command_keeps_its_exit_code(tmp_path: Any) -> None:
    """SYNTHETIC: a heredoc puts the command over several lines; its head still says 3."""
    command = "cat <<'EOF' > notes.txt\n" + "a line of notes\n" * 40 + "EOF\nfalse"
    items = call_items(
        "c1", name="exec_command", output=_head(command, "Process exited with code 3")
    )
    result = wb.load_runs(write_rollout(tmp_path, items))
    assert [(b.is_error, b.error_code) for b in result.boundaries] == [(True, "exit_code:3")]


def test_a_heredoc_holding_head_lines_is_not_the_head(tmp_path: Any) -> None:
    """SYNTHETIC: a heredoc command whose text holds ``Wall time`` and ``Process exited with
    code 0`` lines (a log pasted into a file); the head after it says 1, and decides."""
    pasted = "Wall time: 0.1 seconds\nProcess exited with code 0\n"
    command = "cat <<'EOF' > run.log\n" + pasted + "EOF\nfalse"
    items = call_items(
        "c1", name="exec_command", output=_head(command, "Process exited with code 1")
    )
    result = wb.load_runs(write_rollout(tmp_path, items))
    assert [(b.is_error, b.error_code) for b in result.boundaries] == [(True, "exit_code:1")]


def test_a_real_session_fails_the_poll_that_showed_the_exit() -> None:
    """REAL (entireio/git-sync, Codex 0.118 ``codex-tui``; fixtures/codex/SOURCE.md): twice a
    418-character ``go test`` command outlived its ``exec_command`` (lines 867, 883) and the
    ``write_stdin`` poll showed ``Process exited with code 1`` (lines 874, 890). Counted by hand:
    153 calls, 16 failed (9 ``exec_command``, 7 ``write_stdin``)."""
    result = wb.load_runs(REAL)
    by_id = {b.call_id: b for b in result.boundaries}
    assert [
        (by_id[i].is_error, by_id[i].error_code)
        for i in ("call_UE6B2mIOUYkhovDgVC5jl97U", "call_nHLtIm3U2EPyLuRTt8QlxcK6")
    ] == [(True, "exit_code:1"), (True, "exit_code:1")]
    running = [by_id["call_XCrtaReYPH1cOmZjsO6Kg45F"], by_id["call_77Oa9FM7TUAyL5FGqIVIWAb4"]]
    assert [(b.is_error, (b.extra or {}).get("laterExitCode")) for b in running] == [
        (False, 1),
        (False, 1),
    ]
    failed = [b.tool for b in result.boundaries if b.is_error]
    assert (len(result.boundaries), failed.count("exec_command"), failed.count("write_stdin")) == (
        153,
        9,
        7,
    )
