"""mcp-debug's ``--record`` session files load as ``mcp`` runs (SPEC R34-R36).

The two fixtures were written by mcp-debug 1.1.0 itself, proxying mcp-server-time and the
reference filesystem server for the MCP Python SDK's client (``fixtures/mcp/SOURCE.md``,
``make_mcp_debug_recordings.py``); their counts below are the hand counts made there with jq.
Before stop 41 such a file was refused as "line 1, column 1: invalid JSON" (its ``#`` lines).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench as wb
from helpers.boundaries import loaded_around_or_refused
from helpers.cli import run_cli
from helpers.json_places import with_values_swapped
from helpers.paths import FIXTURES

SERVERS = FIXTURES / "mcp" / "generated-mcp-debug-1.1.0-servers.jsonl"
CONCURRENT = FIXTURES / "mcp" / "generated-mcp-debug-1.1.0-concurrent.jsonl"
HAND_COUNTS = {SERVERS: (13, 5), CONCURRENT: (9, 3)}  # (calls, failed), SOURCE.md's jq counts


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines()


def _write(tmp_path: Path, lines: list[str], name: str = "session.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("path", list(HAND_COUNTS), ids=lambda p: p.name)
def test_a_recording_loads_to_its_hand_counts(path: Path) -> None:
    """R34-R36: every request a call, every ``isError: true`` a failure, nothing a problem;
    the comment lines and the header are counted, not lost (R35)."""
    result = wb.load_runs(path)
    calls, failed = HAND_COUNTS[path]
    assert result.format == "mcp"
    assert (len(result.boundaries), sum(b.is_error for b in result.boundaries)) == (calls, failed)
    assert result.problems == ()
    records = result.runs[0].metadata["records"]
    assert records == {
        "log:comment": 2,
        "log:header": 1,
        "request": calls,
        "response": calls,
    }
    assert result.runs[0].metadata["recording"]["server_info"] == "Dynamic MCP Proxy v1.0.0"
    assert all(b.duration_ms is not None for b in result.boundaries)


def test_the_servers_recording_reads_names_arguments_failures_and_servers() -> None:
    """The called name is ``params.name`` (the client's ``fs_`` prefix), the envelope's own
    ``tool_name`` (mcp-debug writes the server's name there) and server are on ``extra``."""
    boundaries = wb.load_runs(SERVERS).boundaries
    assert [b.tool for b in boundaries][:6] == [
        "time_get_current_time",
        "time_convert_time",
        "time_get_current_time",
        "time_convert_time",
        "fs_read_text_file",
        "fs_read_text_file",
    ]
    missing = boundaries[5]
    assert missing.is_error and str(missing.error_message).startswith("ENOENT: no such file")
    assert missing.args == {"path": "/tmp/mcp-debug-demo/servers/files/missing.txt"}
    assert missing.extra["server"] == "files"
    assert missing.extra["recordedToolName"] == "files_read_text_file"
    assert [b.tool for b in boundaries if b.extra["server"] == "proxy"] == [
        "server_list",
        "server_add",
        "server_add",
    ]
    assert boundaries[-1].is_error and str(boundaries[-1].error_message).startswith("command")
    assert str(boundaries[2].error_message).startswith("Error executing tool get_current_time")


def test_calls_recorded_interleaved_pair_by_tool_in_order() -> None:
    """mcp-go runs calls at once: the first wave's three requests come before their responses,
    out of order; each response answers the oldest open request of its tool."""
    boundaries = wb.load_runs(CONCURRENT).boundaries
    by_args = {json.dumps(b.args, sort_keys=True): b for b in boundaries}
    nope = by_args['{"path": "/tmp/mcp-debug-demo/concurrent/files/nope.txt"}']
    assert nope.is_error and "nope.txt" in str(nope.error_message)
    kolkata = by_args['{"timezone": "Asia/Kolkata"}']
    assert not kolkata.is_error and "Asia/Kolkata" in json.dumps(kolkata.response)
    atlantis = by_args['{"timezone": "Nowhere/Atlantis"}']
    assert atlantis.is_error and "Nowhere/Atlantis" in str(atlantis.error_message)


def test_the_comment_lines_left_out_or_another_name_still_load(tmp_path: Path) -> None:
    """Told by content: the header and message lines alone, or a ``.log`` name."""
    bare = _write(tmp_path, [x for x in _lines(SERVERS) if not x.startswith("#")])
    assert len(wb.load_runs(bare).boundaries) == 13
    named = _write(tmp_path, _lines(SERVERS), "session.log")
    assert len(wb.load_runs(named).boundaries) == 13


@pytest.mark.parametrize("path", list(HAND_COUNTS), ids=lambda p: p.name)
def test_promote_passes_its_self_test(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R30: ``workbench promote`` writes the suite and its self-test replays every call."""
    calls, failed = HAND_COUNTS[path]
    code, out, _ = run_cli(capsys, "promote", path, "--out", tmp_path / "suite")
    assert code == 0
    assert f"{calls} tool boundaries, {failed} recorded errors" in out
    assert f"self-test passed: 1 task, {calls} boundaries reproduced, 0 misses" in out


def _hostile(name: str) -> list[str]:
    lines = _lines(SERVERS)  # 1-2 comments, 3 header, 4 request, 5 response, ...
    if name == "truncated":
        return [*lines[:4], lines[4][:150]]
    if name == "wrong-typed-isError":
        return [line.replace('"isError":true', '"isError":"true"') for line in lines]
    if name == "response-before-request":
        return [*lines[:3], lines[4], lines[3], *lines[5:]]
    if name == "bare-value":
        return [*lines[:5], "42", *lines[5:]]
    if name == "wrong-direction":
        return [*lines[:3], lines[3].replace('"direction":"request"', '"direction":"sent"')]
    raise AssertionError(name)


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("truncated", "line 5, column"),
        ("wrong-typed-isError", "line 9 (field message.isError): a failure flag must be"),
        ("response-before-request", "line 4 (field tool_name): a response of"),
        ("bare-value", "line 6: a line must be an object, not 42"),
        ("wrong-direction", "line 4 (field direction)"),
    ],
)
def test_a_broken_recording_exits_2_with_one_line_naming_the_line(
    name: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: exit 2, one line naming the file and the line (and field), no traceback."""
    path = _write(tmp_path, _hostile(name))
    code, _, err = run_cli(capsys, "boundaries", path)
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert str(path) in err and said in err, err


def test_a_request_never_answered_is_a_problem_at_its_line(tmp_path: Path) -> None:
    """R2: the last request's response cut off: a problem at the request's line."""
    path = _write(tmp_path, _lines(SERVERS)[:-1])
    result = wb.load_runs(path, strict=False)
    assert len(result.boundaries) == 12
    assert [(p.where, p.message) for p in result.problems] == [
        ("line 28", "call 'line-28' to 'server_add' is never answered")
    ]


def test_a_header_holding_messages_is_a_problem_not_silence(tmp_path: Path) -> None:
    """R35: mcp-debug's header lists no messages; any there would be unread, so said."""
    lines = _lines(SERVERS)
    lines[2] = lines[2].replace('"messages":[]', '"messages":[{"direction":"request"}]')
    result = wb.load_runs(_write(tmp_path, lines), strict=False)
    assert len(result.boundaries) == 13
    assert [(p.where, p.field) for p in result.problems] == [("line 3", "messages")]


_ODD: list[Any] = [None, True, 0, -1, 1.5, "", "x", [], {}, [None], {"": None}, "request"]


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.sampled_from(list(HAND_COUNTS)), st.booleans(), st.data())
def test_a_value_of_another_type_anywhere_is_loaded_around_or_refused(
    tmp_path: Path, source: Path, commented: bool, data: st.DataObject
) -> None:
    """As ``test_load_mutations``: a value swapped for one of another type at any place of a
    line (its comment lines kept or not) loads what it can or is refused with places."""
    lines = _lines(source)
    records = [json.loads(line) for line in lines if not line.startswith("#")]
    value = with_values_swapped(records, data, st.sampled_from(_ODD))
    head = [line for line in lines if line.startswith("#")] if commented else []
    path = _write(tmp_path, [*head, *(json.dumps(v) for v in value)])
    result = loaded_around_or_refused(path)
    assert result is None or len(result.boundaries) <= HAND_COUNTS[source][0]
