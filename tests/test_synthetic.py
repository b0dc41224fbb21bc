"""The synthetic OpenWOP log generator (workbench._load.synthetic): determinism, shape, validity."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

# Shared validation helpers: they load the official schema files themselves (SPEC R18).
from helpers.openwop import event_problems, read_jsonl, tool_calls
from workbench._load import synthetic as _synthetic
from workbench._load.synthetic import SYNTHETIC_TOOL_NAMES, synthetic_events, write_synthetic_log


def _by_run(events: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    runs: dict[str, list[dict[str, Any]]] = {}
    for event in events:
        runs.setdefault(event["runId"], []).append(event)
    return runs


def test_same_seed_gives_the_same_bytes_and_another_seed_does_not(tmp_path: Path) -> None:
    """SPEC R22: same arguments and seed, byte-identical log."""
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    write_synthetic_log(a, 2001, seed=7, runs=2)
    write_synthetic_log(b, 2001, seed=7, runs=2)
    write_synthetic_log(c, 2001, seed=8, runs=2)
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()


def test_written_lines_equal_the_generated_events(tmp_path: Path) -> None:
    """The file is the generator's events, one compact JSON object a line."""
    path = tmp_path / "log.jsonl"
    write_synthetic_log(path, n_calls=40, seed=3, error_every=9, runs=2)
    assert read_jsonl(path) == list(synthetic_events(40, seed=3, error_every=9, runs=2))


@pytest.mark.parametrize(("n_events", "runs"), [(5, 1), (6, 1), (1001, 1), (1000, 1), (1000, 3)])
def test_write_returns_and_writes_exactly_n_events(
    tmp_path: Path, n_events: int, runs: int
) -> None:
    """`n_events` is exact, whatever its parity; the return value is the number of lines."""
    path = tmp_path / "log.jsonl"
    assert write_synthetic_log(path, n_events, runs=runs) == n_events
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == n_events
    assert len({json.loads(line)["runId"] for line in lines}) == runs


def test_n_calls_gives_two_events_per_call_plus_five_per_run() -> None:
    events = list(synthetic_events(101, runs=4))
    assert len(events) == 2 * 101 + 5 * 4
    assert sum(e["type"] == "agent.tool-called" for e in events) == 101


def test_every_event_of_a_small_log_is_valid_against_the_official_schemas(tmp_path: Path) -> None:
    """SPEC R18: envelope and per-type payload, including errors, padding and many tools."""
    path = tmp_path / "log.jsonl"
    write_synthetic_log(
        path, 400, seed=5, error_every=7, tools=len(SYNTHETIC_TOOL_NAMES) + 3, runs=3
    )
    events = read_jsonl(path)
    assert any(e["type"] == "agent.reasoned" for e in events)  # the even-count padding
    problems = [f"line {i}: {p}" for i, e in enumerate(events, 1) for p in event_problems(e)]
    assert problems == []


def test_sequence_starts_at_zero_and_increases_in_every_run_in_run_order() -> None:
    """SPEC R18, R19 (run form): per run, sequence 0..n-1 and the recorded event order."""
    events = list(synthetic_events(30, runs=3, error_every=4))
    runs = _by_run(events)
    assert len(runs) == 3
    for run_events in runs.values():
        assert [e["sequence"] for e in run_events] == list(range(len(run_events)))
        types = [e["type"] for e in run_events]
        assert types[:2] == ["run.started", "agent.invocation-started"]
        assert types[-3:] == ["agent.decided", "agent.invocation-completed", "run.completed"]
        middle = types[2:-3]
        assert middle == ["agent.tool-called", "agent.tool-returned"] * (len(middle) // 2)
        stamps = [e["timestamp"] for e in run_events]
        assert stamps == sorted(stamps)
    assert len({e["eventId"] for e in events}) == len(events)


def test_every_error_every_th_call_fails_and_no_other_does() -> None:
    """SPEC R3, R20: calls k, 2k, ... carry `error` and `status: error`, and no outcome."""
    events = list(synthetic_events(95, error_every=10, runs=2))
    pairs = [pair for run in _by_run(events).values() for pair in tool_calls(run)]
    assert len(pairs) == 95
    for number, (_, returned) in enumerate(pairs, start=1):
        if number % 10 == 0:
            assert returned["status"] == "error"
            assert set(returned["error"]) == {"code", "message"}
            assert "outcome" not in returned
        else:
            assert returned["status"] == "ok"
            assert "error" not in returned
            assert returned["outcome"]["content"][0]["type"] == "text"
    assert sum("error" in r for _, r in pairs) == 9


def test_error_every_zero_means_no_failures() -> None:
    events = synthetic_events(200, error_every=0)
    assert not any(e["type"] == "agent.tool-returned" and "error" in e["payload"] for e in events)


def test_calls_pair_by_call_id_and_call_ids_are_unique_across_the_log() -> None:
    """SPEC R2: every call is answered by the next event, with the same callId and tool."""
    events = list(synthetic_events(50, runs=2, error_every=3))
    called_ids = [e["payload"]["callId"] for e in events if e["type"] == "agent.tool-called"]
    assert len(set(called_ids)) == 50
    for run in _by_run(events).values():
        pairs = tool_calls(run)
        assert all(c["callId"] == r["callId"] for c, r in pairs)


def test_tools_limits_the_tool_names_used() -> None:
    events = synthetic_events(300, tools=3)
    used = {e["payload"]["toolName"] for e in events if e["type"] == "agent.tool-called"}
    assert used == set(SYNTHETIC_TOOL_NAMES[:3])


def test_lines_are_a_realistic_size(tmp_path: Path) -> None:
    """Event lines are a few hundred bytes, and their sizes vary."""
    path = tmp_path / "log.jsonl"
    write_synthetic_log(path, 2001)
    sizes = [len(line) for line in path.read_bytes().splitlines()]
    assert min(sizes) >= 100
    assert max(sizes) <= 500
    assert 250 <= sum(sizes) / len(sizes) <= 400
    assert len(set(sizes)) > 50


def test_generation_is_lazy() -> None:
    """A billion-call log starts yielding at once: nothing is built up front."""
    first = list(itertools.islice(synthetic_events(10**9), 3))
    assert [e["type"] for e in first] == [
        "run.started",
        "agent.invocation-started",
        "agent.tool-called",
    ]


def test_a_failed_write_leaves_neither_the_target_nor_a_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Writes are atomic: temp file, fsync, rename; on failure the temp file is removed."""
    calls = 0
    real_line = _synthetic._line

    def failing_line(event: dict[str, Any]) -> str:
        nonlocal calls
        calls += 1
        if calls > 5000:
            raise RuntimeError("disk on fire")
        return real_line(event)

    monkeypatch.setattr(_synthetic, "_line", failing_line)
    with pytest.raises(RuntimeError, match="disk on fire"):
        write_synthetic_log(tmp_path / "log.jsonl", 10001)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n_events": 4}, "at least 5"),
        ({"n_events": 14, "runs": 3}, "at least 15"),
        ({"n_events": 10, "n_calls": 2}, "exactly one"),
        ({}, "exactly one"),
        ({"n_calls": 2, "tools": 0}, "tools"),
        ({"n_calls": 2, "runs": 0}, "runs"),
        ({"n_calls": -1}, "n_calls"),
        ({"n_calls": 2, "error_every": -1}, "error_every"),
    ],
)
def test_bad_arguments_are_refused_with_a_clear_message(
    tmp_path: Path, kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        write_synthetic_log(tmp_path / "log.jsonl", **kwargs)
    assert list(tmp_path.iterdir()) == []


def test_command_line_writes_the_requested_number_of_events(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.jsonl"
    assert _synthetic.main([str(out), "--events", "1234", "--seed", "2"]) == 0
    assert len(out.read_bytes().splitlines()) == 1234
    assert "wrote 1234 events" in capsys.readouterr().out
    again = tmp_path / "again.jsonl"
    write_synthetic_log(again, 1234, seed=2)
    assert again.read_bytes() == out.read_bytes()


def test_command_line_reports_bad_input_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        _synthetic.main([str(tmp_path / "out.jsonl"), "--events", "2"])
    assert exit_info.value.code == 2
    assert "n_events must be at least 5" in capsys.readouterr().err
