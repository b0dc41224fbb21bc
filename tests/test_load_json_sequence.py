"""JSONL a formatter re-indented: records over many lines, one after another (SPEC R34, R35).

A helper found real Codex rollouts that a formatter had turned into indented objects (stop 29,
iampkuhz/feipi-session-browser, no licence to copy): every line was a problem. Each real JSONL
recording in ``fixtures/`` is re-indented here and must load as the same runs.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench as wb
from helpers.paths import BILLING, FIXTURES
from helpers.recordings import RECORDINGS, Recording
from workbench._load.json_sequence import json_sequence, starts_spread

_JSONL = [r for r in RECORDINGS if ".jsonl" in r.path.name]


def _records(path: Path) -> list[object]:
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        data = gzip.decompress(data)
    records: list[object] = []
    scanner = json.JSONDecoder()
    for line in data.decode("utf-8").splitlines():
        if line.startswith("#"):
            continue  # mcp-debug's comment lines: no record
        at = 0  # a line may hold records one after another (a real Claude Code copy's does)
        while line[at:].strip():
            value, end = scanner.raw_decode(line, at + len(line[at:]) - len(line[at:].lstrip()))
            records.append(value)
            at = end
    return records


def _facts(result: wb.LoadResult) -> list[tuple[object, ...]]:
    """What a load read (not call ids: a format that records none names its calls by their
    line, ``web_search-3265``, and the lines moved)."""
    return [
        (run.run_id, b.tool, b.args, b.response, b.is_error)
        for run in result.runs
        for b in run.boundaries
    ]


@pytest.mark.parametrize("recording", _JSONL, ids=lambda r: r.path.name)
def test_a_real_jsonl_recording_re_indented_loads_as_the_same_runs(
    tmp_path: Path, recording: Recording
) -> None:
    """R34: the records indented over lines load as the lines did: the same runs and
    boundaries, each boundary placed at the line its record now starts on."""
    expected = wb.load_runs(recording.path, strict=False)
    path = tmp_path / recording.path.name.removesuffix(".gz")
    beside = recording.path.parent / recording.path.name.split(".")[0]
    if beside.is_dir():  # a Claude Code session's sub-agents, read with it
        shutil.copytree(beside, tmp_path / beside.name)
    records = _records(recording.path)
    path.write_text("\n".join(json.dumps(r, indent=2) for r in records) + "\n", encoding="utf-8")
    got = wb.load_runs(path, strict=False)
    assert got.format == expected.format
    assert _facts(got) == _facts(expected)
    assert len(got.problems) == len(expected.problems)
    starts = {
        n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if line == "{"
    }
    mine = [b for b in got.boundaries if b.location.startswith(f"{path}:")]
    placed = [re.fullmatch(r":(\d+)", b.location[len(str(path)) :]) for b in mine]
    lines = {int(found.group(1)) for found in placed if found}
    assert lines <= starts


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.dictionaries(
            st.text(max_size=5),
            st.recursive(
                st.none() | st.booleans() | st.integers(-(2**53), 2**53) | st.text(max_size=8),
                lambda inner: (
                    st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=4), inner, max_size=3)
                ),
                max_leaves=8,
            ),
            min_size=1,
            max_size=4,
        ),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from([1, 2, 4]),
)
def test_every_record_is_read_once_at_the_line_it_starts_on(
    records: list[dict[str, object]], indent: int
) -> None:
    """No record is lost or invented, and each is placed at its first line."""
    pieces = [json.dumps(r, indent=indent) for r in records]
    data = ("\n".join(pieces) + "\n").encode("utf-8")
    assert starts_spread(data) == (pieces[0].splitlines()[0] == "{")
    found = json_sequence(data, "f.jsonl")
    assert found is not None
    docs, problems = found
    assert problems == []
    assert [value for _, value in docs] == records
    first_lines = []
    line = 1
    for piece in pieces:
        first_lines.append(line)
        line += piece.count("\n") + 1
    assert [at for at, _ in docs] == first_lines


def test_a_broken_or_hostile_record_is_a_problem_at_its_own_line(tmp_path: Path) -> None:
    """R35: a NaN inside an indented record is refused at its line; text that stops being
    JSON part way is left to the JSONL reader, which names the broken lines."""
    good = json.dumps({"a": 1}, indent=2)
    path = tmp_path / "spread.jsonl"
    path.write_text(good + "\n" + '{\n  "b": NaN\n}\n', encoding="utf-8")
    result = wb.load_runs(path, strict=False)
    assert [(p.line, "NaN" in p.message) for p in result.problems][:1] == [(5, True)]
    path.write_text(good + '\n{\n  "b": \n', encoding="utf-8")
    result = wb.load_runs(path, strict=False)
    assert result.problems and result.problems[0].line == 1


def test_indented_records_in_a_file_of_any_name_are_read(tmp_path: Path) -> None:
    """R34: records indented one after another in a ``.json`` or ``.log`` file (what
    OpenTelemetry's console exporter prints) are read as the JSONL they would be; a single
    document followed by a broken one is still refused at its line."""
    recording = next(r for r in _JSONL if r.path.name.startswith("1af7fc5e"))
    records = _records(recording.path)
    expected = wb.load_runs(recording.path)
    for name in ("session.json", "session.log"):
        path = tmp_path / name
        path.write_text("\n".join(json.dumps(r, indent=4) for r in records), encoding="utf-8")
        assert _facts(wb.load_runs(path)) == _facts(expected)
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(records[0], indent=4) + "\n{", encoding="utf-8")
    result = wb.load_runs(broken, strict=False)
    assert [p.message[:12] for p in result.problems] == ["invalid JSON"]


@pytest.mark.parametrize(
    ("value", "field"), [("NaN", ""), ("-Infinity", ""), ("123456789012345678901", "xs[1]")]
)
def test_a_bad_number_on_a_line_of_its_own_is_named_at_that_line(
    tmp_path: Path, value: str, field: str
) -> None:
    """R35: a formatter puts each array item on a line of its own; a NaN or a 21-digit
    integer there was named at the line before it (the separator's), in any indented document
    and in indented JSONL alike."""
    text = '{\n  "type": "x",\n  "xs": [\n    1,\n    ' + value + "\n  ]\n}\n"
    for name in ("doc.json", "spread.jsonl"):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        result = wb.load_runs(path, strict=False)
        assert [(p.line, p.field) for p in result.problems][:1] == [(5, field)]


# --- records one after another on one line ----------------------------------------------------
# Real Claude Code sessions (Entire's checkpoints, entireio/cli) have lines holding two records
# with the line break between them lost: ``{...assistant...}{...summary...}``. Each is read, at
# that line (R35: nothing dropped); a line broken in any other way keeps its problem.


def _session(line: str) -> str:
    call = {
        "type": "assistant",
        "uuid": "a1",
        "message": {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"c": "ls"}}],
        },
    }
    result = {
        "type": "user",
        "uuid": "u2",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"}],
        },
    }
    first = {"type": "user", "uuid": "u0", "message": {"role": "user", "content": "list"}}
    return "\n".join([json.dumps(first), line % (json.dumps(call), json.dumps(result))]) + "\n"


@pytest.mark.parametrize("line", ["%s%s", "%s %s", "%s\t%s  "])
def test_records_one_after_another_on_a_line_are_each_read(tmp_path: Path, line: str) -> None:
    path = tmp_path / "session.jsonl"
    path.write_text(_session(line), encoding="utf-8")
    result = wb.load_runs(path)
    (boundary,) = result.boundaries
    assert (boundary.call_id, boundary.response_text, boundary.is_error) == ("t1", "a.txt", False)
    assert boundary.location.endswith(":2")


@pytest.mark.parametrize(
    "tail",
    [
        '{"type": "summary", "x": NaN}',  # each record as strict as a line (R35)
        '{"type": "summary"',  # cut short
        "garbage",
        '{"type": "summary"}' * 20,  # more than a lost line break makes
    ],
)
def test_a_line_broken_otherwise_keeps_its_problem(tmp_path: Path, tail: str) -> None:
    path = tmp_path / "session.jsonl"
    path.write_text(_session("%s" + tail.replace("%", "%%") + "\n%s"), encoding="utf-8")
    with pytest.raises(wb.LoadError) as raised:
        wb.load_runs(path)
    assert any(p.line == 2 for p in raised.value.problems), raised.value.problems


def test_records_one_after_another_on_a_first_line_tell_the_format(tmp_path: Path) -> None:
    """The format is told from a file's first records, a merged line's among them: with only
    merged lines and one record of no format on a line of its own, the file was taken for an
    OpenWOP log and refused (a hostile round, stop 37)."""
    text = _session("%s%s").replace("\n", "", 1)  # the user record joins the call's line
    path = tmp_path / "session.jsonl"
    path.write_text(text + '{"type": "cost-state"}\n', encoding="utf-8")
    result = wb.load_runs(path, strict=False)
    assert result.format == "claude-code"
    assert [b.call_id for b in result.boundaries] == ["t1"]


def test_an_openwop_log_reads_events_one_after_another_as_every_jsonl_format_does(
    tmp_path: Path,
) -> None:
    """Whether the first line is short (the streamed reader) or over the sniff's megabyte (the
    whole-file reader), a merged line's events are read, in byte and text mode alike."""
    from workbench._load.openwop import load_openwop_text

    lines = BILLING.read_text(encoding="utf-8").splitlines()
    joined = next(i for i, line in enumerate(lines) if '"agent.tool-called"' in line)
    merged = [*lines[:joined], lines[joined] + " " + lines[joined + 1], *lines[joined + 2 :]]
    expected = _facts(wb.load_runs(BILLING))
    path = tmp_path / "run.jsonl"
    path.write_text("\n".join(merged) + "\n", encoding="utf-8")
    assert _facts(wb.load_runs(path)) == expected
    runs, problems = load_openwop_text("\n".join(merged) + "\n", str(path))
    assert not problems and [b.tool for r in runs for b in r.boundaries] == [b[1] for b in expected]
    padded = json.loads(merged[0])
    padded["x-pad"] = "p" * (1 << 20)  # a first line past the sniff's megabyte
    path.write_text("\n".join([json.dumps(padded), *merged[1:]]) + "\n", encoding="utf-8")
    assert _facts(wb.load_runs(path)) == expected


def test_blanks_around_records_on_a_line_are_skipped_at_c_speed(tmp_path: Path) -> None:
    """A leading blank, and millions of blanks between two records (a hostile line took 6 s
    when they were skipped a character at a time)."""
    import time

    from workbench._load.reading import values_one_after_another

    assert values_one_after_another(b' {"a": 1}\t{"b": 2} ', "f", 1) == [{"a": 1}, {"b": 2}]
    gap = b"{}" + b" \t" * 30_000_000 + b"[]"  # 60 MB of blanks
    started = time.process_time()
    assert values_one_after_another(gap, "f", 1) == [{}, []]
    assert time.process_time() - started < 1.5  # (about 0.3 s; a character at a time, 5 s)


def test_records_of_one_line_that_name_no_run_are_named_apart(tmp_path: Path) -> None:
    """Three SWE-agent trajectories on one line (no id of their own) were runs line-1,
    line-1-line-1 and line-1-line-1 again: the third is line-1-line-1-2."""
    traj = (FIXTURES / "swe-agent" / "function_calling_simple.traj").read_text(encoding="utf-8")
    one = json.dumps(json.loads(traj))
    path = tmp_path / "trajectories.jsonl"
    path.write_text(one * 3 + "\n", encoding="utf-8")
    result = wb.load_runs(path)
    assert [run.run_id for run in result.runs] == ["line-1", "line-1-line-1", "line-1-line-1-2"]


def test_recordings_one_a_line_that_hold_messages_are_not_chat_records(tmp_path: Path) -> None:
    """AgentDojo results one a line (or two on one line of a .json) were taken for chat
    records, whose calls they are not: every call a problem."""
    source = (
        FIXTURES
        / "agentdojo"
        / ("gpt-4o-2024-05-13__slack__user_task_5__important_instructions__injection_task_5.json")
    )
    one = json.dumps(json.loads(source.read_text(encoding="utf-8")))
    expected = [(b.call_id, b.is_error) for b in wb.load_runs(source).boundaries]
    for name, text in (("results.jsonl", one + "\n" + one + "\n"), ("two.json", one + one)):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        result = wb.load_runs(path)
        assert result.format == "agentdojo" and len(result.runs) == 2, name
        assert [(b.call_id, b.is_error) for b in result.runs[1].boundaries] == expected


def test_a_problem_path_is_cut_to_one_readable_line(tmp_path: Path) -> None:
    """Keys of 5,000 characters 205 levels deep made a 985 KB message; the path keeps its
    start and end."""
    value: dict[str, object] = {}
    inner = value
    for level in range(205):
        child: dict[str, object] = {}
        inner[f"{level}" + "K" * 5000] = child
        inner = child
    path = tmp_path / "deep.json"
    path.write_text(json.dumps({"messages": [{"role": "user", "content": value}]}))
    with pytest.raises(wb.LoadError) as raised:
        wb.load_runs(path)
    (problem,) = raised.value.problems
    assert "nested deeper than" in problem.message and len(str(problem)) < 600, str(problem)
    assert problem.field.startswith("messages[0].content") and "…" in problem.field
