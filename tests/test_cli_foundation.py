"""The ``workbench`` command's foundation subcommands: boundaries, promote, validate.

Exit codes: 0 ok, 1 a failed check, 2 bad input (SPEC R2: errors name the file and line).
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest

import workbench as wb
from helpers.cli import run_cli
from helpers.paths import BILLING, FIXTURES, TAU_FULL
from workbench._load.records import BOUNDARY_COLUMNS
from workbench.cli import main


def test_boundaries_json_prints_the_table_rows(capsys: pytest.CaptureFixture[str]) -> None:
    """``boundaries --json``: a JSON array, one object a boundary, the table's keys, boolean
    ``isError`` (R3) and ``null`` for a missing duration."""
    code, out, _ = run_cli(capsys, "boundaries", BILLING, "--json")
    assert code == 0
    rows = json.loads(out)
    assert isinstance(rows, list) and len(rows) == 12
    for index, row in enumerate(rows):
        assert list(row) == list(BOUNDARY_COLUMNS)
        assert row["index"] == index
        assert type(row["isError"]) is bool
    assert [r["index"] for r in rows if r["isError"]] == [3]
    assert rows[3]["error"] and rows[0]["error"] is None
    table = wb.load_runs(BILLING).to_frame()
    assert [r["callId"] for r in rows] == list(table["callId"])


def test_boundaries_json_of_a_multi_run_file_has_a_run_column(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run_cli(capsys, "boundaries", TAU_FULL, "--json")
    assert code == 0
    rows = json.loads(out)
    assert len(rows) == 182
    assert sum(r["isError"] for r in rows) == 16
    assert list(rows[0]) == ["run", *BOUNDARY_COLUMNS]
    assert rows[0]["run"] == "task-0-trial-0"
    assert all(r["durationMs"] is None for r in rows)


def test_boundaries_csv_has_a_row_a_boundary_under_the_table_columns(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``boundaries --csv``: one row a boundary, the table's columns, one recorded error (R3)."""
    code, out, _ = run_cli(capsys, "boundaries", BILLING, "--csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 12
    assert list(rows[0]) == list(BOUNDARY_COLUMNS)
    assert [r["isError"] for r in rows].count("True") == 1


def test_boundaries_csv_and_json_hold_each_response_whole(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``--csv`` and ``--json`` hold every cell in full (their help says so): a long,
    multi-line result is not the table's one-line preview (it was cut to 200 characters)."""
    chat = tmp_path / "chat.json"
    long = "line one\n" + "x" * 500 + "\nline three"
    call = {"id": "a", "type": "function", "function": {"name": "read", "arguments": "{}"}}
    messages = [
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "a", "content": long},
    ]
    chat.write_text(json.dumps(messages), encoding="utf-8")
    code, out, _ = run_cli(capsys, "boundaries", str(chat), "--json")
    assert code == 0 and json.loads(out)[0]["response"] == long
    code, out, _ = run_cli(capsys, "boundaries", str(chat), "--csv")
    said = next(csv.DictReader(io.StringIO(out)))["response"]
    assert code == 0 and said == long.replace("\n", "\\n")  # (control characters escaped)
    code, out, _ = run_cli(capsys, "boundaries", str(chat))
    assert code == 0 and long not in out and "line one x" in out  # the table: a preview


def test_boundaries_csv_shows_recorded_control_characters_as_escapes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Untrusted text is shown escaped in CSVs too: an escape sequence in a tool's name or
    result never reaches the terminal that shows the file (it did, byte for byte), and a
    cell a spreadsheet would run is text."""
    from workbench._sweep.tables import csv_safe

    chat = tmp_path / "chat.json"
    call = {"id": "a", "type": "function", "function": {"name": "\x1b[31mred", "arguments": "{}"}}
    messages = [
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "a", "content": "=cmd|' /C calc'!A0\x1b]0;pwned\x07"},
    ]
    chat.write_text(json.dumps(messages), encoding="utf-8")
    code, out, _ = run_cli(capsys, "boundaries", str(chat), "--csv")
    assert code == 0
    assert "\x1b" not in out and "\x07" not in out
    (row,) = list(csv.DictReader(io.StringIO(out)))
    assert row["tool"] == "\\x1b[31mred"
    assert row["response"].startswith("'=cmd") and "\\x07" in row["response"]
    assert csv_safe("ok\x1b[0m") == "ok\\x1b[0m"
    assert csv_safe("+1") == "'+1"


def test_boundaries_csv_args_show_bidi_and_c1_characters_as_json_escapes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The args column is JSON text: a right-to-left override, a line separator or a C1
    control in recorded arguments is written as its ``\\u`` escape (it reached the file raw),
    and the cell still reads back as the same arguments."""
    chat = tmp_path / "chat.json"
    args = {"path": "ev\u202eil\u2028x\x85y\x9b31m\u00ad\U000e0041é中"}
    call = {
        "id": "a",
        "type": "function",
        "function": {"name": "view", "arguments": json.dumps(args)},
    }
    messages = [
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "a", "content": "ok"},
    ]
    chat.write_text(json.dumps(messages), encoding="utf-8")
    code, out, _ = run_cli(capsys, "boundaries", str(chat), "--csv")
    assert code == 0
    assert not any(c in out for c in "\u202e\u2028\x85\x9b\u00ad\U000e0041")
    assert "é中" in out  # printable text stays as it is
    (row,) = list(csv.DictReader(io.StringIO(out)))
    assert json.loads(row["args"]) == args


def test_boundaries_table_and_error_prefix(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The plain table, and ``--error-prefix`` as the error rule for a flagless format (R3)."""
    code, out, _ = run_cli(capsys, "boundaries", BILLING)
    assert code == 0 and "billing:lookup" in out and "callId" in out
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps(
            [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "a",
                            "type": "function",
                            "function": {"name": "t", "arguments": "{}"},
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": "a", "content": "FAIL: nope"},
            ]
        ),
        encoding="utf-8",
    )
    _, out, _ = run_cli(capsys, "boundaries", chat, "--json")
    assert json.loads(out)[0]["isError"] is False
    _, out, _ = run_cli(capsys, "boundaries", chat, "--json", "--error-prefix", "FAIL:")
    assert json.loads(out)[0]["isError"] is True


def test_promote_writes_a_valid_suite_and_prints_counts_and_redactions(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``promote -o``: the suite is written and valid; the output names the counts, each
    redaction by path (R31) and the self-test (R30)."""
    target = tmp_path / "suite.json"
    code, out, _ = run_cli(capsys, "promote", BILLING, "-o", target)
    assert code == 0
    suite = wb.Suite.load(target)
    assert suite.validate() == []
    assert "12 tool boundaries" in out and "1 recorded error as isError" in out
    assert "tasks[0].fixtures.toolResponses[7].args.api_key" in out
    assert "self-test passed" in out
    assert str(target) in out
    assert "sk-live" not in target.read_text(encoding="utf-8")


def test_promote_tau_bench_writes_a_valid_strict_trajectory_suite(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``promote --strict-trajectory`` (R30): 20 tasks, 182 boundaries, 16 recorded errors, every
    trajectory ``strict``, and the written suite validates."""
    target = tmp_path / "tau.json"
    code, out, _ = run_cli(capsys, "promote", TAU_FULL, "-o", target, "--strict-trajectory")
    assert code == 0
    assert "promoted 20 tasks: 182 tool boundaries, 16 recorded errors" in out
    suite = wb.Suite.load(target)
    assert {t["trajectory"]["match"] for t in suite.tasks} == {"strict"}
    assert code == main(["validate", str(target)])


def test_promote_to_an_unwritable_place_exits_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    code, _, err = run_cli(capsys, "promote", BILLING, "-o", blocker / "suite.json")
    assert code == 2
    assert "not a folder" in err and "suite.json" in err


def test_validate_exits_0_valid_1_invalid_2_unreadable(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``validate``: 0 valid; 1 invalid, each problem named by its JSON path; 2 unreadable."""
    good = tmp_path / "good.json"
    wb.promote(wb.load_runs(BILLING)).suite.save(good)
    code, out, _ = run_cli(capsys, "validate", good)
    assert code == 0 and "valid" in out

    data: dict[str, Any] = json.loads(good.read_text(encoding="utf-8"))
    data["tasks"][0]["fixtures"]["toolResponses"][3]["isError"] = "true"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    code, out, _ = run_cli(capsys, "validate", bad)
    assert code == 1
    assert f"{bad}: schema problem: tasks[0].fixtures.toolResponses[3].isError" in out

    code, out, _ = run_cli(capsys, "validate", good, "--official")
    assert code == 1 and "official" in out

    broken = tmp_path / "broken.json"
    broken.write_text('{"tasks": [\n  1,,\n]}', encoding="utf-8")
    code, _, err = run_cli(capsys, "validate", broken)
    assert code == 2 and "broken.json" in err and "line 2" in err

    code, _, err = run_cli(capsys, "validate", tmp_path / "missing.json")
    assert code == 2 and "missing.json" in err


@pytest.mark.parametrize("command", ["boundaries", "promote"])
def test_bad_input_exits_2_naming_file_and_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    """R2 on the command line: a missing file, an invalid JSON line and an unpaired call each
    exit 2 with a message naming the file (and the line)."""
    extra = ["-o", str(tmp_path / "out.json")] if command == "promote" else []

    code, out, err = run_cli(capsys, command, tmp_path / "absent.jsonl", *extra)
    assert code == 2 and "absent.jsonl" in err and out == ""

    call = {
        "type": "agent.tool-called",
        "sequence": 0,
        "runId": "r",
        "payload": {"callId": "c1", "toolName": "t", "inputs": {}},
    }
    answer = {
        "type": "agent.tool-returned",
        "sequence": 1,
        "runId": "r",
        "payload": {"callId": "c1", "outcome": "ok"},
    }
    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps(call) + "\n{nope\n" + json.dumps(answer) + "\n", encoding="utf-8")
    code, _, err = run_cli(capsys, command, broken, *extra)
    assert code == 2 and f"{broken}: line 2" in err and "invalid JSON" in err

    unpaired = tmp_path / "unpaired.jsonl"
    unpaired.write_text(json.dumps(answer) + "\n", encoding="utf-8")
    code, _, err = run_cli(capsys, command, unpaired, *extra)
    assert code == 2 and f"{unpaired}: line 1 (field payload.callId)" in err

    assert not (tmp_path / "out.json").exists()


@pytest.mark.parametrize("command", ["boundaries", "promote"])
def test_skip_problems_loads_the_valid_calls_and_lists_what_it_skipped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    """R2, R35: a file whose last call was never answered (an agent stopped at its turn limit)
    is refused by default; ``--skip-problems`` loads the answered calls and says on stderr, a
    line each, what it skipped; a file with no valid call is refused even so."""
    events = [
        {
            "type": "agent.tool-called",
            "sequence": 0,
            "runId": "r",
            "payload": {"callId": "a", "toolName": "t", "inputs": {}},
        },
        {
            "type": "agent.tool-returned",
            "sequence": 1,
            "runId": "r",
            "payload": {"callId": "a", "outcome": "ok"},
        },
        {
            "type": "agent.tool-called",
            "sequence": 2,
            "runId": "r",
            "payload": {"callId": "b", "toolName": "t", "inputs": {}},
        },
    ]
    log = tmp_path / "stopped.jsonl"
    log.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    extra = ["-o", str(tmp_path / "suite.json")] if command == "promote" else []
    code, out, err = run_cli(capsys, command, log, *extra)
    assert code == 2 and "never answered" in err
    assert err.rstrip().endswith("; --skip-problems loads its 1 valid call"), err  # one line
    code, out, err = run_cli(capsys, command, log, "--skip-problems", *extra)
    assert code == 0, err
    skipped = [line for line in err.splitlines() if line.startswith("workbench: skipped: ")]
    assert len(skipped) == 1 and "'b'" in skipped[0] and "never answered" in skipped[0]
    if command == "promote":
        suite = json.loads((tmp_path / "suite.json").read_text(encoding="utf-8"))
        assert len(suite["tasks"][0]["fixtures"]["toolResponses"]) == 1
    else:
        assert "1 tool boundary in 1 run" in out
    only_open = tmp_path / "only-open.jsonl"
    only_open.write_text(json.dumps(events[2]) + "\n", encoding="utf-8")
    again = ["--force"] if command == "promote" else []
    code, out, err = run_cli(capsys, command, only_open, "--skip-problems", *extra, *again)
    assert code == 2 and "never answered" in err and "--skip-problems loads" not in err


def test_boundaries_name_each_calls_agent_when_several_agents_call(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A file whose calls come from more than one agent (Claude Code's sub-agents, a tau2
    simulated user) gets an ``agent`` column in every output; one agent's file does not."""
    session = FIXTURES / "claude-code" / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
    code, out, _ = run_cli(capsys, "boundaries", session, "--json")
    rows = json.loads(out)
    assert code == 0 and {r["agent"] for r in rows} == {
        b.agent_id for b in wb.load_runs(session).boundaries
    }
    assert len({r["agent"] for r in rows}) > 1
    code, out, _ = run_cli(capsys, "boundaries", session, "--csv")
    assert out.splitlines()[0].split(",")[:4] == ["index", "callId", "tool", "agent"]
    code, out, _ = run_cli(capsys, "boundaries", BILLING, "--json")
    assert all("agent" not in row for row in json.loads(out))
