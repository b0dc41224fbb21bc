"""Real recordings of every format load to their hand counts and promote with a passing
self-test (SPEC R34-R36, R30; issue 10). The counts are the ones each folder's SOURCE.md made by
hand, record by record."""

from __future__ import annotations

import pytest

import workbench as wb
from helpers.recordings import RECORDINGS, Recording


@pytest.mark.parametrize("rec", RECORDINGS, ids=lambda r: r.path.name[:48])
def test_real_recording_loads_to_its_hand_counted_calls_and_failures(rec: Recording) -> None:
    """R34, R36: detected by content, every call a boundary, failures by the format's signal."""
    result = wb.load_runs(rec.path, strict=False)
    assert result.format == rec.format
    assert len(result.boundaries) == rec.calls
    assert sum(b.is_error for b in result.boundaries) == rec.failed
    assert len(result.problems) == rec.problems, [str(p) for p in result.problems]
    for run in result.runs:
        assert [b.index for b in run.boundaries] == list(range(len(run.boundaries)))
    if rec.regex is not None:
        again = wb.load_runs(rec.path, error_rule=wb.ErrorRule.regex(rec.regex), strict=False)
        assert sum(b.is_error for b in again.boundaries) == rec.failed_with_regex


@pytest.mark.parametrize(
    "rec", [r for r in RECORDINGS if not r.problems], ids=lambda r: r.path.name[:48]
)
def test_real_recording_promotes_and_its_self_test_reproduces_every_call(rec: Recording) -> None:
    """R30: the promoted suite is valid and replaying it reproduces the recording, zero misses."""
    promotion = wb.promote(wb.load_runs(rec.path))
    assert promotion.suite.validate() == []
    assert promotion.boundary_count == rec.calls
    assert promotion.error_count == rec.failed
    assert promotion.self_test is not None and promotion.self_test.passed


def test_explicit_format_does_not_fit_is_refused_with_what_the_file_looks_like() -> None:
    """R35: a Claude Code session read as OpenWOP or tau2-bench is refused, naming what it is.
    (Read as ``anthropic`` it loads: its records wrap Anthropic messages.)"""
    path = RECORDINGS[0].path
    for wrong in ("openwop", "tau2-bench", "gemini-cli"):
        with pytest.raises(wb.LoadError, match="looks like a Claude Code session"):
            wb.load_runs(path, format=wrong)


def test_sub_agent_calls_keep_their_agent() -> None:
    """R34: sidechain calls of a 1.x Claude Code session carry the Task call that spawned them."""
    result = wb.load_runs(RECORDINGS[2].path)
    agents = {b.agent_id for b in result.boundaries}
    tasks = {b.call_id for b in result.boundaries if b.tool == "Task"}
    assert {f"task-{t}" for t in tasks} | {"main"} == agents
    assert sum(b.agent_id == "main" for b in result.boundaries) == 7


def test_conversations_carry_tool_call_ids_equal_to_boundary_call_ids() -> None:
    """R40: each new format that records the model's side fills the neutral conversation, and
    every tool call in it is a boundary's callId."""
    for rec in RECORDINGS:
        if rec.format in ("mcp",):
            continue
        result = wb.load_runs(rec.path, strict=False)
        for run in result.runs:
            assert run.conversation is not None, rec.path.name
            ids = {c["id"] for m in run.conversation.messages for c in m.get("toolCalls", ())}
            # hosted tools (web search, MCP connectors) run inside the API, not as the agent's calls
            own = {
                b.call_id
                for b in run
                if b.agent_id in (None, "main", "assistant", "agent") and "itemType" not in b.extra
            }
            assert own <= ids, rec.path.name
            terminal = {c["callId"] for c in run.metadata.get("terminalCalls", ())}
            assert ids <= {b.call_id for b in run} | terminal | _unpaired(result), rec.path.name


def _unpaired(result: wb.LoadResult) -> set[str]:
    return {p.message.split("'")[1] for p in result.problems if "never answered" in p.message}


def test_error_regex_on_the_command_line_marks_failures_and_is_recorded(
    tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    """R36: ``--error-regex`` beside ``--error-prefix`` on boundaries and promote; the rule is
    recorded in ``x-promotion``; a bad expression is exit 2 naming the option."""
    import json
    from pathlib import Path

    from workbench.cli import main

    rec = next(r for r in RECORDINGS if r.format == "openai-responses" and r.regex)
    assert main(["boundaries", str(rec.path), "--json", "--error-regex", rec.regex or ""]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["isError"] for row in rows] == [True, False]
    out = Path(str(tmp_path)) / "suite.json"
    args = ["promote", str(rec.path), "-o", str(out), "--error-regex", rec.regex or ""]
    assert main(args) == 0
    rule = json.loads(out.read_text())["x-promotion"]["errorRule"]
    assert rule["kind"] == "regex" and rule["pattern"] == rec.regex
    assert main(["boundaries", str(rec.path), "--error-regex", "("]) == 2
    assert "--error-regex '(' is not a regular expression" in capsys.readouterr().err
