"""``workbench replay``: the per-task table, exit codes, refusal body, written files (R11, R29)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from helpers.openwop import write_json
from workbench import HostProfile, validate_summary
from workbench._replay.events import events_to_jsonl
from workbench._suite.schemas import validate_events
from workbench.cli import main

SUITE_ID = "local.test.evals.cli"


def suite(*, passing: bool = True) -> dict[str, Any]:
    answer = "active" if passing else "other"
    return {
        "suiteId": SUITE_ID,
        "version": "1.0.0",
        "modes": ["golden"],
        "tasks": [
            {
                "taskId": "fixture-error",
                "input": {
                    "script": [
                        {"tool": "billing:lookup", "args": {"id": "c-1"}, "onError": {"retry": 1}}
                    ],
                    "answer": "active",
                },
                "expected": {
                    "kind": "golden",
                    "match": {
                        "strategy": "json-match",
                        "value": {"outcome": "completed", "answer": answer},
                    },
                },
                "fixtures": {
                    "toolResponses": [
                        {"tool": "billing:lookup", "args": {"id": "c-1"}, "isError": True},
                        {"tool": "billing:lookup", "args": {"id": "c-1"}, "response": "ok"},
                    ]
                },
            },
            {
                "taskId": "plain",
                "input": {"script": [{"tool": "ping"}]},
                "expected": {
                    "kind": "golden",
                    "match": {"strategy": "contains", "value": "completed"},
                },
                "fixtures": {"toolResponses": [{"tool": "ping", "response": "pong"}]},
            },
        ],
    }


def test_passing_suite_prints_the_table_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CLI: a passing suite prints one row per task (score, passed, trials, misses, calls,
    errors served) and a summary line; exit 0."""
    code = main(["replay", str(write_json(tmp_path / "s.json", suite()))])
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == [
        "taskId", "score", "passed", "trials", "fixtureMisses", "calls", "errorsServed"
    ]  # fmt: skip
    assert lines[1].split() == ["fixture-error", "1.00", "True", "1", "0", "2", "1"]
    assert lines[2].split() == ["plain", "1.00", "True", "1", "0", "1", "0"]
    assert "PASSED" in lines[3] and "0 fixture misses" in lines[3]


def test_failing_suite_exits_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """CLI: a suite that does not pass exits 1, and the table says which task failed."""
    code = main(["replay", str(write_json(tmp_path / "s.json", suite(passing=False)))])
    out = capsys.readouterr().out
    assert code == 1
    assert out.splitlines()[1].split()[:3] == ["fixture-error", "0.00", "False"]
    assert "FAILED" in out


def test_trials_and_seed_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """CLI/R8: ``--trials`` overrides every task's trial count."""
    code = main(["replay", str(write_json(tmp_path / "s.json", suite())), "--trials", "3"])
    rows = capsys.readouterr().out.splitlines()[1:3]
    assert code == 0
    assert [row.split()[3] for row in rows] == ["3", "3"]


def test_refused_suite_exits_2_with_the_400_body_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CLI/R11/RFC 0245 C: a host profile without ``fixtureErrors`` refuses the suite: exit 2,
    the ``400 validation_error`` body as JSON on stderr, nothing on stdout, no files."""
    profile = write_json(
        tmp_path / "p.json", HostProfile(name="narrow", fixture_errors=False).to_json()
    )
    events, summary = tmp_path / "e.jsonl", tmp_path / "s.out.json"
    code = main(
        [
            "replay",
            str(write_json(tmp_path / "s.json", suite())),
            "--host-profile", str(profile),
            "--events", str(events),
            "--summary", str(summary),
        ]
    )  # fmt: skip
    captured = capsys.readouterr()
    assert code == 2
    body = json.loads(captured.err)
    assert body["error"] == "validation_error"
    assert body["details"] == {"field": "tasks[0].fixtures.toolResponses[0].isError"}
    assert body["message"]
    assert captured.out == ""
    assert not events.exists() and not summary.exists()


def test_schema_invalid_suite_is_refused_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CLI/R5/R11: ``isError: "true"`` is refused (exit 2) naming the field."""
    bad = suite()
    bad["tasks"][0]["fixtures"]["toolResponses"][0]["isError"] = "true"
    code = main(["replay", str(write_json(tmp_path / "s.json", bad))])
    err = capsys.readouterr().err
    assert code == 2
    assert "tasks[0].fixtures.toolResponses[0].isError" in err


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (None, "missing.json"),
        ("{not json", "s.json"),
        ("[1, 2]", "s.json"),
    ],
)
def test_bad_input_exits_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, needle: str
) -> None:
    """CLI: a missing file, invalid JSON or a non-suite document exits 2 with an error naming
    the file on stderr."""
    path = tmp_path / ("missing.json" if content is None else "s.json")
    if content is not None:
        path.write_text(content, encoding="utf-8")
    code = main(["replay", str(path)])
    err = capsys.readouterr().err
    assert code == 2
    assert needle in err


def test_bad_script_exits_2_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CLI/R23: a script problem exits 2, naming the field."""
    bad = suite()
    bad["tasks"][1]["input"]["script"][0]["onError"] = {"retry": -1}
    code = main(["replay", str(write_json(tmp_path / "s.json", bad))])
    assert code == 2
    assert "tasks[1].input.script[0].onError.retry" in capsys.readouterr().err


def test_bad_host_profile_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """CLI/R10: an unreadable host profile is bad input (exit 2), naming the file."""
    profile = tmp_path / "p.json"
    profile.write_text("{", encoding="utf-8")
    code = main(
        ["replay", str(write_json(tmp_path / "s.json", suite())), "--host-profile", str(profile)]
    )
    assert code == 2
    assert "p.json" in capsys.readouterr().err


def test_events_and_summary_files_are_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CLI/R18/R22/R29: ``--events`` writes the JSONL log (valid, content-free, same bytes on
    a rerun) and ``--summary`` the summary (valid against the extended schema)."""
    source = write_json(tmp_path / "s.json", suite())
    outputs = []
    for run in range(2):
        events, summary = tmp_path / f"e{run}.jsonl", tmp_path / f"s{run}.out.json"
        code = main(["replay", str(source), "--events", str(events), "--summary", str(summary)])
        assert code == 0
        outputs.append((events.read_bytes(), summary.read_bytes()))
    assert outputs[0] == outputs[1]
    out = capsys.readouterr().out
    assert "wrote" in out and "e0.jsonl" in out and "s0.out.json" in out
    log = [json.loads(line) for line in outputs[0][0].decode("utf-8").splitlines()]
    assert validate_events(log) == []
    assert events_to_jsonl(log).encode("utf-8") == outputs[0][0]
    assert log[0]["type"] == "eval.started"
    assert log[-1]["type"] == "run.completed"
    written = json.loads(outputs[0][1])
    assert validate_summary(written) == []
    assert written["fixtureMissCount"] == 0 and written["passedCount"] == 2
    assert log[-1]["payload"]["outputs"]["evalSummary"] == written
    assert "pong" not in outputs[0][0].decode("utf-8")  # no fixture content on the log


def test_events_content_flag_puts_tool_content_on_the_log(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CLI/R20: ``--events-content`` puts tool inputs and results on the log."""
    events = tmp_path / "e.jsonl"
    source = write_json(tmp_path / "s.json", suite())
    assert main(["replay", str(source), "--events", str(events), "--events-content"]) == 0
    assert "pong" in events.read_text(encoding="utf-8")
