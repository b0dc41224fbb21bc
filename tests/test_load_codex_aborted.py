"""A Codex call the user's interrupt cut off is a failed boundary (R36, R3; module
``workbench/_load/codex_outputs.py``). codex-rs answers such a call ``aborted by user after
N.Ns`` (a shell command: ``Wall time: N.N seconds`` then ``aborted by user``), the whole output,
and the turn ends ``turn_aborted``; the agent saw its call cut off, so it is no success."""

from __future__ import annotations

from typing import Any

import workbench as wb
from helpers.codex_rollouts import call_items, write_rollout
from helpers.paths import FIXTURES

REAL = FIXTURES / "codex" / "git-sync_9d_262b2fb550_0_full.first2222.jsonl.gz"


def test_an_aborted_call_fails_and_the_words_inside_an_output_do_not(tmp_path: Any) -> None:
    """SYNTHETIC lines, in the words codex-rs writes: both wordings fail their call
    (``aborted``); a file that quotes them does not."""
    outputs = {
        "c1": "aborted by user after 170.7s",
        "c2": "Wall time: 3.2 seconds\naborted by user",
        "c3": "line 3: aborted by user after 2.0s is what Codex says",
        "c4": "Command: ls\nWall time: 0.0 seconds\nProcess exited with code 0\nOutput:\n",
    }
    items = [item for call_id, output in outputs.items() for item in call_items(call_id, output)]
    path = write_rollout(tmp_path, items)
    result = wb.load_runs(path)
    assert [(b.call_id, b.is_error, b.error_code) for b in result.boundaries] == [
        ("c1", True, "aborted"),
        ("c2", True, "aborted"),
        ("c3", False, None),
        ("c4", False, None),
    ]


def test_a_real_interrupted_turn_fails_the_calls_it_cut_off() -> None:
    """REAL (entireio/git-sync, Codex 0.118 ``codex-tui``; fixtures/codex/SOURCE.md): twice the
    user interrupted a turn while ``rm -f .git/index.lock`` waited for approval (lines 2114 and
    2220). Both calls were read as successes before; 418 calls, 61 failed, counted by hand."""
    result = wb.load_runs(REAL)
    aborted = [(b.call_id, b.error_code) for b in result.boundaries if b.error_code == "aborted"]
    assert aborted == [
        ("call_FNPekNx51fXlUofuUlqrvYZZ", "aborted"),
        ("call_bYkcHE5KILWudIDkNOmCMcEt", "aborted"),
    ]
    assert (len(result.boundaries), sum(b.is_error for b in result.boundaries)) == (418, 61)
