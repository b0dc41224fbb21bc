"""Hostile run files are refused with a place, never a traceback (SPEC R35; issue 10 point 4)."""

from __future__ import annotations

import base64
import gzip
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # no stubs in the test environment
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench as wb
from helpers.paths import FIXTURES
from workbench._load import reading

ROOT = Path(__file__).resolve().parents[1]

CALL = (
    b'{"eventId":"e0","runId":"r","type":"agent.tool-called","sequence":0,'
    b'"payload":{"callId":"c","toolName":"t","inputs":ARGS}}\n'
)
RET = (
    b'{"eventId":"e1","runId":"r","type":"agent.tool-returned","sequence":1,'
    b'"payload":{"callId":"c","outcome":{}}}\n'
)


def _log(tmp_path: Path, args: bytes, name: str = "log.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(CALL.replace(b"ARGS", args) + RET)
    return path


@pytest.mark.parametrize(
    ("args", "field", "words"),
    [
        (b'{"x": NaN}', "payload.inputs.x", "out of range"),
        (b'{"x": Infinity}', "payload.inputs.x", "out of range"),
        (b'{"x": 1e400}', "payload.inputs.x", "out of range"),
        (b'{"x": 123456789012345678901234567890}', "payload.inputs.x", "64 bits"),
        (b'{"x": "\\ud800"}', "payload.inputs.x", "lone surrogate"),
        (b"[" * 300 + b"]" * 300, "payload.inputs", "deeper than"),
        (b"1" + b"0" * 5000, "", "value the workbench cannot hold"),
    ],
)
def test_hostile_values_are_problems_naming_line_and_field(
    tmp_path: Path, args: bytes, field: str, words: str
) -> None:
    """NaN, infinities, huge integers, lone surrogates and deep nesting name line 1 and field."""
    with pytest.raises(wb.LoadError) as caught:
        wb.load_runs(_log(tmp_path, args))
    first = caught.value.problems[0]
    assert (first.line, words in first.message) == (1, True), str(first)
    assert first.field.startswith(field)


@pytest.mark.parametrize("name", ["doc.json", "session.txt"])
def test_hostile_values_in_documents_and_other_formats_are_refused_too(
    tmp_path: Path, name: str
) -> None:
    """The strict reader is every format's: a Gemini session with NaN names its line."""
    path = tmp_path / name
    path.write_text('{"sessionId": "s", "projectHash": "h",\n "messages": [], "n": NaN}\n')
    with pytest.raises(wb.LoadError, match=r"line 2.*out of range"):
        wb.load_runs(path)


@settings(max_examples=300, deadline=None)
@given(block=st.text("0123456789 ,\n", max_size=120).map(str.encode))
def test_the_numpy_digit_scan_finds_what_the_bytes_scan_finds(block: bytes) -> None:
    """``has_long_digits`` gives the same answer by numpy (large data) and by ``bytes``, and the
    same as the plain regular expression, wherever the 4 MiB chunks (patched to 16 bytes) cut."""
    expected = re.search(rb"[0-9]{19}", block) is not None
    saved = reading._SCAN_CHUNK, reading.NUMPY_SCAN_FROM
    try:
        reading._SCAN_CHUNK = 16
        for numpy_from in (0, 1 << 40):
            reading.NUMPY_SCAN_FROM = numpy_from
            assert reading.has_long_digits(block) is expected, numpy_from
    finally:
        reading._SCAN_CHUNK, reading.NUMPY_SCAN_FROM = saved


def test_a_huge_integer_in_a_large_document_is_refused_as_in_a_small_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R35: the numpy scan of a large document (its threshold patched to 0 here) still sends a
    19-digit run to the strict decoder, which refuses an integer past 64 bits by its field."""
    monkeypatch.setattr(reading, "NUMPY_SCAN_FROM", 0)
    monkeypatch.setattr(reading, "_SCAN_CHUNK", 64)
    path = tmp_path / "doc.json"
    path.write_text(json.dumps({"pad": "x" * 200, "n": 10**30}), encoding="utf-8")
    with pytest.raises(wb.LoadError, match=r"line 1 \(field n\): an integer out of range"):
        wb.load_runs(path)


def test_a_byte_order_mark_is_refused_naming_line_one(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf[]")
    with pytest.raises(wb.LoadError, match=r"line 1.*byte order mark"):
        wb.load_runs(path)


def test_a_byte_that_is_not_utf8_is_placed_by_line_and_column_past_a_megabyte(
    tmp_path: Path,
) -> None:
    """The line and column of the first bad byte, found a megabyte at a time: a character cut
    by the block boundary is carried into the next block, not taken for the bad byte."""
    head = b'{"pad": "'
    first = head + b"a" * (1_048_575 - len(head)) + b'\xc3\xa9"}\n'  # "é" across the 1 MiB mark
    assert first[1_048_575:1_048_577] == b"\xc3\xa9"
    path = tmp_path / "log.jsonl"
    path.write_bytes(first + b'{"x": "ok \xff"}\n')
    assert reading.first_bad_utf8(str(path)) == (2, 11, 0xFF)
    with pytest.raises(wb.LoadError, match=r"line 2, column 11: .*not UTF-8.*0xff"):
        wb.load_runs(path)


def test_special_files_are_refused_before_reading(tmp_path: Path) -> None:
    """A device (endless) and a folder are refused from stat."""
    for path in ("/dev/zero", str(tmp_path)):
        with pytest.raises(wb.LoadError, match="not a regular file"):
            wb.load_runs(path)


def test_a_named_pipe_is_read_to_its_end_and_one_with_no_writer_never_blocks(
    tmp_path: Path,
) -> None:
    """``cat run.jsonl | workbench boundaries /dev/stdin``: a pipe is read whole, once (no
    sniffing ahead); a pipe no process writes to reads as empty at once and is refused as a
    file with no tool call, instead of waiting for a writer."""
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(wb.LoadError, match=r"pipe\.jsonl"):
        wb.load_runs(fifo)
    recording = ROOT / "fixtures" / "billing-support.openwop.jsonl"
    data = recording.read_bytes()
    assert len(data) < 60_000  # fits the pipe's buffer: written whole before the load reads
    holder = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # keeps the pipe's data alive
    try:
        writer = os.open(fifo, os.O_WRONLY)
        os.write(writer, data)
        os.close(writer)
        loaded = wb.load_runs(fifo)
    finally:
        os.close(holder)
    direct = wb.load_runs(recording)
    assert loaded.format == direct.format == "openwop"
    assert [len(run.boundaries) for run in loaded.runs] == [len(r.boundaries) for r in direct.runs]
    assert sum(len(run.boundaries) for run in loaded.runs) > 0


def test_a_line_over_the_limit_is_refused_without_reading_it_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Lines are measured as they arrive; the limit is patched small here (the real one is
    64 MiB, see tests below for memory)."""
    monkeypatch.setattr(reading, "MAX_LINE_BYTES", 3 * 1024 * 1024)
    from workbench._load import openwop

    monkeypatch.setattr(openwop, "MAX_LINE_BYTES", 3 * 1024 * 1024)
    for name, head in (("one.json", b'{"a": "'), ("one.jsonl", CALL + b'{"a": "')):
        path = tmp_path / name
        path.write_bytes(head + b"x" * (5 * 1024 * 1024) + b'"}')
        with pytest.raises(wb.LoadError, match=r"line \d+ is longer than 3 MiB"):
            wb.load_runs(path)


@pytest.mark.parametrize(
    ("tail", "case"),
    [(b"\n" + b"[]\n" * 3, "ends one byte past the limit"), (b"", "never ends")],
)
def test_the_refused_long_line_is_named_by_its_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tail: bytes, case: str
) -> None:
    """The line number of a refused line is counted only when refusing (a load does not count
    lines); it names the long line, after five short ones, whether the line ends just past
    the limit (its break in a later chunk) or never does."""
    limit = 3 * 1024 * 1024
    monkeypatch.setattr(reading, "MAX_LINE_BYTES", limit)
    path = tmp_path / "doc.json"
    path.write_bytes(b"[\n" * 5 + b'"' + b"x" * (limit - 1) + b'"' + tail)
    with pytest.raises(wb.LoadError, match=r"line 6 is longer than 3 MiB"):
        reading.read_file_bytes(str(path))


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads VmHWM (Linux)")
def test_a_1_gb_single_line_file_is_refused_with_bounded_memory(tmp_path: Path) -> None:
    """A sparse 1 GB file of one line: refused at the 64 MiB limit, peak memory well under 1 GB.

    The peak is the child's own ``VmHWM``: ``ru_maxrss`` carries the parent's high-water mark
    across ``exec`` on Linux, so under a big pytest process it measured pytest, not the load.
    """
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:
        handle.write(b'{"a": "')
        handle.truncate(1 << 30)
    code = (
        "import sys, workbench as wb\n"
        "try:\n    wb.load_runs(sys.argv[1])\nexcept wb.LoadError as e:\n    print(e)\n"
        "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True)
    message, peak_kib = done.stdout.strip().splitlines()
    assert "line 1 is longer than 64 MiB" in message
    assert int(peak_kib) < 256 * 1024  # the 64 MiB line limit plus the interpreter, not 1 GB


def test_gzip_and_yaml_bombs_are_bounded(tmp_path: Path) -> None:
    """YAML aliases are refused (a billion-laughs file expands through them)."""
    path = tmp_path / "bomb.yaml"
    path.write_text('interactions:\n- &a {request: {uri: "x"}}\n- *a\n')
    with pytest.raises(wb.LoadError, match="aliases are not read"):
        wb.load_runs(path)


def _peak_kib_of_load(path: Path) -> tuple[str, int]:
    """What loading ``path`` in a child process says, and the child's peak memory (KiB)."""
    code = (
        "import sys, workbench as wb\n"
        "try:\n    wb.load_runs(sys.argv[1])\nexcept wb.LoadError as e:\n    print(e)\n"
        "print(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True)
    message, peak_kib = done.stdout.strip().rsplit("\n", 1)
    return message, int(peak_kib)


@pytest.mark.slow
def test_a_json_bomb_over_the_line_limit_is_refused_before_it_is_decoded(tmp_path: Path) -> None:
    """R35: 96 MB of ``[],`` lines decode to about 2 GB of empty lists; the file is refused from
    a count of the bytes that open a value, its peak memory the file's bytes, not the value's."""
    path = tmp_path / "bomb.json"
    path.write_bytes(b"[\n" + b"[],\n" * 24_000_000 + b"[]]\n")
    message, peak_kib = _peak_kib_of_load(path)
    assert message.startswith(f"{path}: (file): would take about 1.9 GB of memory decoded")
    assert "(20 times its 91 MiB; a recording takes at most 10)" in message
    assert peak_kib < 400 * 1024  # the bytes (and their copy) and the interpreter, not 2 GB


@pytest.mark.slow
def test_a_yaml_bomb_over_the_line_limit_is_refused_before_it_is_decoded(tmp_path: Path) -> None:
    """R35: 70 MB of ``- ab`` lines (block YAML, which JSON's count of brackets, quotes and
    commas does not see) decode to some 1.7 GB of short strings; refused from the YAML count,
    its peak memory the file's bytes, not the value's."""
    path = tmp_path / "bomb.yaml"
    path.write_bytes(b"- ab\n" * 14_000_000)
    message, peak_kib = _peak_kib_of_load(path)
    assert message.startswith(f"{path}: (file): would take about 1.7 GB of memory decoded"), message
    assert "a YAML bomb of small values" in message
    assert peak_kib < 400 * 1024


def _flow_of_plain_strings(lines: int) -> bytes:
    """``interactions:`` then ``- [aaa, aab, ...]`` lines of 250 distinct three-letter plain
    strings each: YAML vcrpy's fast reader takes (one-line flow collections)."""
    letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    words = [a + b + c for a in letters for b in letters for c in letters]
    rows = ("- [" + ", ".join(words[(n * 250 + k) % len(words)] for k in range(250)) + "]\n"
            for n in range(lines))  # fmt: skip
    return ("interactions:\n" + "".join(rows)).encode()


def test_the_yaml_count_sees_strings_that_have_no_quotes() -> None:
    """R35: flow sequences of short plain strings (``[abc, abd, ...]``, which vcrpy's fast
    reader decodes) take some 21 times their size decoded (1.5 GB for 70 MB, measured), and
    were counted 4 times, under the limit, like JSON's quoteless numbers; YAML's count now
    sees a string after each comma. The real YAML recordings still count under 8."""
    from workbench._load.cassette_yaml import yaml_estimate

    bomb = _flow_of_plain_strings(1000)
    assert yaml_estimate(bomb) > reading.MAX_DECODED_RATIO * len(bomb)
    for path in sorted(FIXTURES.rglob("*.y*ml*")):
        data = path.read_bytes()
        data = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
        assert yaml_estimate(data) < 8 * len(data), path


@pytest.mark.slow
def test_a_yaml_bomb_of_flow_sequences_is_refused_before_it_is_decoded(tmp_path: Path) -> None:
    """R35: 70 MB of flow sequences of short plain strings, refused from the count, its peak
    memory the file's bytes, not the 1.5 GB of the value."""
    path = tmp_path / "bomb.yaml"
    path.write_bytes(_flow_of_plain_strings(58_000))
    message, peak_kib = _peak_kib_of_load(path)
    assert "a YAML bomb of small values" in message, message
    assert peak_kib < 400 * 1024


def test_yaml_past_what_yamls_own_loader_reads_is_refused_unread(tmp_path: Path) -> None:
    """R35: YAML that vcrpy's fast reader does not take (a comment, so PyYAML's loader would
    read it) past 32 MiB is refused before it is parsed: that loader may take 30 times the
    file's size, and a minute."""
    path = tmp_path / "big.yaml"
    path.write_bytes(b"# notes\ninteractions:\n" + b"- {request: {uri: x}}\n" * 1_700_000)
    with pytest.raises(wb.LoadError, match="a YAML document over 32 MiB that is not vcrpy's"):
        wb.load_runs(path)


def _dense_eval(tmp_path: Path, members: dict[str, bytes]) -> Path:
    import zipfile

    path = tmp_path / "bomb.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", b'{"version": 2, "status": "success"}')
        for name, member in members.items():
            archive.writestr(name, member)
    return path


@pytest.mark.parametrize(
    ("shape", "value"),
    [("empty arrays", b"[]"), ("small objects", b'{"a":1}'), ("short strings", b'"ab"')],
)
def test_dense_documents_are_refused_in_every_way_they_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str, value: bytes
) -> None:
    """Bombs of empty arrays, of small objects and of short strings are refused when read
    whole from a file, a gzip file or a pipe (the threshold lowered, so that files of 1.5 MB,
    past the megabyte a load sniffs first, stand for large ones), and from an Inspect
    ``.eval`` whose members are each counted, however small their number or large their sum
    (a hostile round's four members of 63.9 MiB took 6.7 GB)."""
    monkeypatch.setattr(reading, "MAX_LINE_BYTES", 1000)
    bomb = b'{"a": [\n' + (value + b",\n") * 400_000 + value + b"]}"
    plain = tmp_path / "bomb.json"
    plain.write_bytes(bomb)
    packed = tmp_path / "bomb.json.gz"
    packed.write_bytes(gzip.compress(bomb))
    for path in (plain, packed):
        with pytest.raises(wb.LoadError, match=r"\(file\): would take about .* decoded"):
            wb.load_runs(path)
    with pytest.raises(wb.LoadError, match="would take about"):
        reading.refuse_dense(bomb, "-")
    monkeypatch.setattr(reading, "MAX_LINE_BYTES", 64 * 1024 * 1024)
    members = {f"samples/{n}_epoch_1.json": bomb for n in (1, 2)}
    with pytest.raises(wb.LoadError, match=r"samples/1_epoch_1.json: would take about"):
        wb.load_runs(_dense_eval(tmp_path, members))


def test_a_pipes_lines_are_held_to_the_line_limit_once_read(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A pipe is read whole (it cannot be read twice); a line of it over the limit is then
    refused naming its number, as a file's is (a hostile round read a 200 MiB line from
    standard input whole, to 4 GB)."""
    monkeypatch.setattr(reading, "MAX_LINE_BYTES", 1000)
    monkeypatch.setattr(reading, "read_input_bytes", lambda file, limit: b"{}\n" + b"1" * 2000)
    with pytest.raises(wb.LoadError, match="line 2 is longer than"):
        reading.read_pipe_bytes("/dev/stdin")
    # the search by windows finds the first long line wherever it is, the last one included
    rng = random.Random(7)
    for _ in range(500):
        lengths = [rng.choice([0, 1, 400, 999, 1000, 1001, 3000]) for _ in range(rng.randint(2, 9))]
        data = b"\n".join(b"x" * n for n in lengths)
        first = next((i + 1 for i, n in enumerate(lengths) if n > 1000), None)
        monkeypatch.setattr(reading, "read_input_bytes", lambda file, limit, d=data: d)
        if first is None or len(data) <= 1000:
            reading.read_pipe_bytes("/dev/stdin")
            continue
        with pytest.raises(wb.LoadError, match=f"line {first} is longer than"):
            reading.read_pipe_bytes("/dev/stdin")


def test_no_real_recording_is_dense_enough_to_be_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every fixture, with the threshold at zero (so that each is counted), passes the count
    with room to spare: the densest decodes to about 6 times its size, the limit 10; floats
    (an embedding's) are far under it."""
    monkeypatch.setattr(reading, "MAX_LINE_BYTES", 0)
    counted = 0
    for path in sorted(FIXTURES.rglob("*")):
        if not path.is_file() or path.suffix in {".md", ".txt", ".py", ".eval"}:
            continue
        data = path.read_bytes()
        if data.startswith(b"\x1f\x8b"):
            data = gzip.decompress(data)
        if data.count(b"[") + data.count(b"{") < 100:
            continue
        reading.refuse_dense(data, str(path))
        assert reading.decoded_estimate(data) < 7 * len(data), path
        counted += 1
    assert counted > 100
    floats = b"[" + b"-0.0123456789," * 100_000 + b"0.5]"
    reading.refuse_dense(floats, "embedding.json")
    # a reviewer's transcript whose tool results are JSON text of short records (``gh api``'s
    # output): its escaped quotes open no value (counted, it was refused at 11 times its size)
    rows = json.dumps([{"id": i % 10, "ok": "y"} for i in range(4_000)], separators=(",", ":"))
    messages = [{"role": "tool", "tool_call_id": f"c{n}", "content": rows} for n in range(20)]
    transcript = json.dumps(messages).encode()
    assert reading.decoded_estimate(transcript) < 5 * len(transcript)
    reading.refuse_dense(transcript, "transcript.json")


@settings(max_examples=300, deadline=None)
@given(
    data=st.lists(st.sampled_from([b"[", b"{", b'"', b"\\", b",", b"a", b"]"]), max_size=60).map(
        b"".join
    ),
    block=st.integers(min_value=1, max_value=9),
)
def test_large_documents_are_counted_by_numpy_as_by_bytes_count(data: bytes, block: int) -> None:
    """The bomb estimate of a large document (numpy's counts in blocks) is the one the byte
    counts give, an escaped quote astride two blocks included (R35: the same refusals)."""
    by_bytes = (
        data.count(b"[") + data.count(b"{"),
        data.count(b'"') - data.count(b'\\"'),
        data.count(b","),
    )
    chunk = reading._SCAN_CHUNK
    try:
        reading._SCAN_CHUNK = block  # small blocks, so that pairs fall across their edges
        assert reading._opening_counts(data) == by_bytes
    finally:
        reading._SCAN_CHUNK = chunk


def _gzip_body_cassette(tmp_path: Path, body: bytes) -> Path:
    """A real gzip-bodied cassette (the OpenAI Agents SDK's, fixtures/openai-responses) with its
    first response's body replaced by ``body``."""
    source = FIXTURES / "openai-responses" / "openai_agents_test_agent_with_tool_errors.yaml"
    data = yaml.safe_load(source.read_text())
    data["interactions"][0]["response"]["body"]["string"] = body
    text = yaml.safe_dump(data)
    assert "!!binary" in text  # the body stays binary, as vcrpy writes it
    path = tmp_path / "cassette.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("name", "body"),
    [
        ("bomb", gzip.compress(b"{" + b" " * (65 * 1024 * 1024) + b"}")),
        ("cut", gzip.compress(b'{"object": "response", "output": []}')[:-9]),
        ("not gzip", b"\x1f\x8b\x08garbage"),
        ("not utf-8", gzip.compress(b"\xff\xfe{}")),
    ],
)
def test_a_compressed_body_that_is_a_bomb_or_broken_is_a_problem_not_a_crash(
    tmp_path: Path, name: str, body: bytes
) -> None:
    """A cassette's gzip bodies inflate at most 32 MiB in all (MAX_INFLATED); a bomb past it, or
    a cut or invalid stream, is not read, and a problem says so; a body that is not UTF-8 (a
    PDF, an image) is no JSON. The exchange then has no response, a problem naming it; the rest
    of the cassette still loads."""
    result = wb.load_runs(_gzip_body_cassette(tmp_path, body), strict=False)
    messages = [str(p).split(": ", 1)[1] for p in result.problems]
    assert "interaction 0 (field response): no Responses API response recorded" in messages
    compressed = [m for m in messages if m.startswith("interaction 0 (field response.body)")]
    assert len(compressed) == (0 if name == "not utf-8" else 1), messages
    assert len(result.boundaries) == 1  # the call, read back from the next request's input


def test_cli_answers_hostile_files_with_exit_2_and_one_line_each(tmp_path: Path) -> None:
    from workbench.cli import main

    path = _log(tmp_path, b'{"x": NaN}')
    assert main(["boundaries", str(path)]) == 2
    assert main(["boundaries", "/dev/zero"]) == 2


@pytest.mark.parametrize(("levels", "refused"), [(200, False), (201, True)])
def test_a_document_nested_to_the_limit_loads_and_one_past_it_is_refused(
    tmp_path: Path, levels: int, refused: bool
) -> None:
    """MAX_DEPTH (200) levels of nesting in a Gemini session load; 201 name the field."""
    inner = "[" * (levels - 6) + "]" * (levels - 6)  # six levels hold it
    path = tmp_path / "session.json"
    call = (
        '{"id": "c1", "name": "ls", "args": {"deep": ' + inner + '}, "status": "success",'
        ' "result": []}'
    )
    path.write_text(
        '{"sessionId": "s", "projectHash": "h", "messages": [{"id": "m", "type": "gemini",'
        ' "content": "", "toolCalls": [' + call + "]}]}"
    )
    if refused:
        with pytest.raises(wb.LoadError, match="deeper than 200"):
            wb.load_runs(path)
    else:
        assert len(wb.load_runs(path).boundaries) == 1


@settings(max_examples=200, deadline=None)
@given(
    levels=st.integers(1, 260),
    kinds=st.lists(st.booleans(), min_size=260, max_size=260),
    siblings=st.lists(st.integers(0, 3), min_size=260, max_size=260),
)
def test_the_depth_check_agrees_with_a_walk_at_any_depth(
    levels: int, kinds: list[bool], siblings: list[int]
) -> None:
    """The depth check every JSON document passes (orjson's encoder, wrapped so that it
    refuses exactly past MAX_DEPTH) agrees with a plain walk, for mixed objects and arrays
    with shallow siblings beside the deep path, on both sides of the limit (R35)."""
    value: object = "leaf"
    for level in range(levels):
        filler = [{"x": [1]}] * siblings[level]
        value = {"k": value, "f": filler} if kinds[level] else [*filler, value]
    assert reading._too_deep(value) == reading._walk_too_deep(value)
    assert reading._too_deep(value) == (_nesting(value) > reading.MAX_DEPTH)


def _nesting(value: object) -> int:
    """Containers on the deepest path (the oracle: plain recursion)."""
    if isinstance(value, dict):
        return 1 + max((_nesting(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_nesting(v) for v in value), default=0)
    return 0


_UNHASHABLE_CASES = {
    # a record type that is a list: the JSONL sniffers looked it up in a set of types
    "type-is-a-list.jsonl": '{"type": [], "role": "x"}\n{"type": {}, "a": 1}\n',
    # a Codex response item whose type is an object
    "rollout.jsonl": (
        '{"type": "session_meta", "payload": {"id": "s"}}\n'
        '{"type": "response_item", "payload": {"type": {"a": []}, "call_id": "c"}}\n'
        '{"type": "response_item", "payload": {"type": "function_call", "name": "ls",'
        ' "call_id": "c1", "arguments": "{}"}}\n'
        '{"type": "response_item", "payload": {"type": "function_call_output",'
        ' "call_id": "c1", "output": "ok"}}\n'
    ),
    # OpenHands events whose id and cause are lists
    "events.json": (
        '[{"id": [1], "action": "run", "args": {"command": "ls"}, "source": "agent",'
        ' "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "t1"}},'
        ' {"id": 2, "observation": "run", "cause": [1], "content": "ok", "extras": {}}]'
    ),
}


@pytest.mark.parametrize("name", sorted(_UNHASHABLE_CASES))
def test_a_list_or_object_where_a_name_or_id_belongs_is_a_problem_not_a_crash(
    tmp_path: Path, name: str
) -> None:
    """R35: a record type, item type, event id or cause that is a list or an object (found by
    mutating the real recordings) loads what it can or is refused with places; it never raises
    anything but LoadError (it raised TypeError: unhashable type), and the CLI answers exit 2."""
    path = tmp_path / name
    path.write_text(_UNHASHABLE_CASES[name])
    try:
        wb.load_runs(path)
    except wb.LoadError as exc:
        assert exc.problems and all(p.where for p in exc.problems)
    result = subprocess.run(
        [sys.executable, "-m", "workbench.cli", "boundaries", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode in (0, 2), result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr


def _mutated_cassette(tmp_path: Path) -> Path:
    """A real pydantic-ai cassette (fixtures/openai-responses) whose first response's
    ``output`` is a number instead of a list of items."""

    source = ROOT / "fixtures/openai-responses"
    name = "test_openai_previous_response_id_seed_auto_chains_through_retries.yaml"
    cassette = yaml.safe_load((source / name).read_text())
    cassette["interactions"][0]["response"]["parsed_body"]["output"] = 5
    path = tmp_path / name
    path.write_text(yaml.safe_dump(cassette))
    return path


_OTEL_PARENT_IS_A_LIST = (
    '{"resourceSpans": [{"scopeSpans": [{"spans": ['
    '{"traceId": "t", "spanId": "s1", "parentSpanId": ["p"], "name": "execute_tool ls",'
    ' "startTimeUnixNano": "1", "endTimeUnixNano": "2", "attributes": ['
    '{"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},'
    '{"key": "gen_ai.tool.name", "value": {"stringValue": "ls"}},'
    '{"key": "x", "value": {"arrayValue": {"values": 5}}}]}]}]}]}'
)


@pytest.mark.parametrize("case", ["cassette-output-is-a-number", "otel-parent-is-a-list"])
def test_wrong_shapes_the_mutation_fuzz_found_load_without_a_crash(
    tmp_path: Path, case: str
) -> None:
    """R35: a response ``output`` that is a number, a span's ``parentSpanId`` that is a list and
    an OTLP array whose ``values`` is a number (found by mutating the real recordings) load
    what they can; they raised TypeError before."""
    if case == "cassette-output-is-a-number":
        path = _mutated_cassette(tmp_path)
    else:
        path = tmp_path / "trace.json"
        path.write_text(_OTEL_PARENT_IS_A_LIST)
    try:
        result = wb.load_runs(path)
    except wb.LoadError as exc:
        assert all(p.where for p in exc.problems)
    else:
        assert result.boundaries


def test_a_swe_agent_history_whose_message_type_is_a_list_is_not_a_crash(tmp_path: Path) -> None:
    """R35: a history-only .traj with an unhashable ``message_type`` (found by mutating the
    real demonstration) is told apart or refused, never a TypeError."""
    source = FIXTURES / "swe-agent" / "function_calling_simple.traj"
    data = json.loads(source.read_text(encoding="utf-8"))
    for message in data["history"]:
        message["message_type"] = ["action"]
    path = tmp_path / "demo.traj"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = wb.load_runs(path, strict=False)  # tool_call_ids still mark it as SWE-agent's
    assert result.format == "swe-agent" and len(result.boundaries) == 5


def _chat_exchange(messages: list[Any], response_text: str) -> dict[str, Any]:
    return {
        "request": {
            "uri": "https://api.anthropic.com/v1/messages",
            "method": "POST",
            "body": json.dumps({"model": "m", "messages": messages}),
        },
        "response": {"status": {"code": 200}, "body": {"string": response_text}},
    }


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1e999", "a number out of range (NaN or an infinity)"),
        ("123456789012345678901234567890", "an integer out of range: it does not fit in 64 bits"),
        ('"\\ud800"', "a string holds a lone surrogate escape (not valid UTF-16)"),
        ("[" * 300 + "]" * 300, "nested deeper than 200 levels"),
    ],
)
def test_a_cassette_body_is_held_to_the_rules_of_a_file(
    tmp_path: Path, value: str, message: str
) -> None:
    """R35: a body recorded as JSON text is decoded as a file is, and what the workbench refuses
    in a file is a problem naming the interaction and the field (it reached the suite before)."""
    reply = '{"type": "message", "role": "assistant", "content": [{"type": "tool_use", '
    reply += '"id": "t1", "name": "f", "input": {"x": ' + value + "}}]}"
    cassette = {"interactions": [_chat_exchange([{"role": "user", "content": "go"}], reply)]}
    path = tmp_path / "cassette.json"
    path.write_text(json.dumps(cassette), encoding="utf-8")
    with pytest.raises(wb.LoadError) as raised:
        wb.load_runs(path)
    first = raised.value.problems[0]
    assert (first.where, first.field) == ("interaction 0", "response.body")
    assert message in first.message


def _streamed_input(pieces: list[str], tmp_path: Path) -> Path:
    """A Messages cassette: a streamed reply whose call's input is ``pieces`` of JSON text,
    then the request that answers it, resending the call with ``{}``."""
    delta = {"type": "input_json_delta"}
    events = [
        {"type": "message_start", "message": {"content": []}},
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {}},
        },
        *(
            {"type": "content_block_delta", "index": 0, "delta": {**delta, "partial_json": piece}}
            for piece in pieces
        ),
    ]
    stream = "".join(f"data: {json.dumps(e)}\n\n" for e in events)
    answer = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}],
        },
    ]
    done = '{"type": "message", "role": "assistant", "content": [{"type": "text", "text": "."}]}'
    cassette = {"interactions": [_chat_exchange(answer[:1], stream), _chat_exchange(answer, done)]}
    path = tmp_path / "cassette.json"
    path.write_text(json.dumps(cassette), encoding="utf-8")
    return path


def test_a_streamed_input_of_json_that_is_no_object_is_a_problem(tmp_path: Path) -> None:
    """R35: streamed JSON text that decodes to a list is an input of a type never written,
    whatever the next request resent (``{}``): the model sent a list."""
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(_streamed_input(["[1, ", "2]"], tmp_path))
    (problem,) = refused.value.problems
    assert (problem.where, problem.field) == ("interaction 0, response, block 0", "input")


def test_streamed_arguments_the_workbench_refuses_stay_text(tmp_path: Path) -> None:
    """An ``input_json_delta`` stream that makes ``{"x": NaN}`` is the call's arguments as the
    model wrote them, as any arguments JSON refuses are (it was NaN, and promote failed)."""
    path = _streamed_input(['{"x": Na', "N}"], tmp_path)
    (boundary,) = wb.load_runs(path).boundaries
    assert boundary.args == {}  # what the next request carried back as the call's input
    promoted = wb.promote(wb.load_runs(path))
    assert promoted.self_test is not None and promoted.self_test.passed


def test_a_cassettes_compressed_bodies_inflate_within_one_budget(tmp_path: Path) -> None:
    """A few small gzip bombs in one archive once took 5 GB (64 MiB each, kept): the bodies of
    a cassette inflate to MAX_INFLATED (32 MiB) in all, and each past it is a problem."""
    from workbench._load.cassettes import MAX_INFLATED

    bomb = gzip.compress(b"[" + b" " * (MAX_INFLATED // 2) + b"]")
    entries = [
        {
            "request": {
                "method": "POST",
                "url": "https://api.example.com/v1/chat/completions",
                "postData": {
                    "text": '{"model": "m", "messages": [{"role": "user", "content": "go"}]}'
                },
            },
            "response": {
                "status": 200,
                "content": {
                    "encoding": "base64",
                    "text": __import__("base64").b64encode(bomb).decode(),
                },
            },
        }
        for _ in range(3)
    ]
    path = tmp_path / "bombs.har"
    path.write_text(json.dumps({"log": {"entries": entries}}), encoding="utf-8")
    result = wb.load_runs(path, strict=False)
    past = [p for p in result.problems if p.field == "response.body"]
    assert [p.where for p in past] == ["interaction 1", "interaction 2"]
    assert all("32 MiB" in p.message for p in past)


@pytest.mark.parametrize("first", ["long", "broken"])
def test_a_rollout_whose_first_line_is_long_or_broken_is_still_a_rollout(
    tmp_path: Path, first: str
) -> None:
    """A head that tells no format (no whole line in its first megabyte, or a first line that
    does not decode) is read the whole-file way, which tells the format from the records that
    decode: a real Codex rollout so changed was taken for an OpenWOP log before."""
    source = (
        FIXTURES
        / "codex"
        / "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl.gz"
    )
    lines = gzip.decompress(source.read_bytes()).split(b"\n")
    if first == "long":
        record = json.loads(lines[0])
        record["payload"]["padding"] = "x" * (2 << 20)
        lines[0] = json.dumps(record).encode()
    else:
        lines[0] = b"{broken"
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"\n".join(lines))
    result = wb.load_runs(path, strict=False)
    assert result.format == "codex" and len(result.boundaries) == 105
    assert [p.line for p in result.problems] == ([] if first == "long" else [1])


def test_a_yaml_cassette_may_start_with_comments_and_a_directive(tmp_path: Path) -> None:
    source = FIXTURES / "chat-cassettes" / "pydantic_ai_openai_test_openai_tool_output.yaml"
    path = tmp_path / "cassette.yaml"
    path.write_text("# recorded by vcrpy\n%YAML 1.1\n---\n" + source.read_text(), encoding="utf-8")
    assert len(wb.load_runs(path).boundaries) == 1


def test_jaeger_times_outside_64_bits_or_backwards_give_no_duration(tmp_path: Path) -> None:
    """A Jaeger span's times are whole numbers within 64 bits: a 4,000-digit string or a
    negative duration gives no duration (it became a 3,994-digit duration before)."""

    def span(duration: Any) -> dict[str, Any]:
        return {
            "traceID": "t",
            "spanID": "s",
            "operationName": "execute_tool f",
            "startTime": 1,
            "duration": duration,
            "tags": [{"key": "gen_ai.operation.name", "value": "execute_tool"}],
        }

    for duration in ("9" * 4000, -1_000_000_000, True, 1.5):
        path = tmp_path / "trace.json"
        path.write_text(json.dumps({"data": [{"traceID": "t", "spans": [span(duration)]}]}))
        (boundary,) = wb.load_runs(path).boundaries
        assert boundary.duration_ms is None, duration


def test_binary_header_values_do_not_refuse_a_cassette(tmp_path: Path) -> None:
    """botocore records some header values as bytes (``!!binary``, seen in chatlas's Bedrock
    cassettes): no loader reads headers, so they do not refuse the file; binary data anywhere
    else but a body still does (R35)."""
    source = FIXTURES / "openai-responses" / "openai_agents_test_agent_with_tool_errors.yaml"
    data = yaml.safe_load(source.read_text())
    expected = len(wb.load_runs(source, strict=False).boundaries)
    data["interactions"][0]["request"]["headers"]["X-Amz-Date"] = [b"20250101T000000Z"]
    path = tmp_path / "cassette.yaml"
    path.write_text(yaml.safe_dump(data))
    assert "!!binary" in path.read_text()
    assert len(wb.load_runs(path, strict=False).boundaries) == expected
    data["interactions"][0]["request"]["uri"] = b"https://api.openai.com/v1/responses"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(wb.LoadError, match=r"binary data \(YAML !!binary\)"):
        wb.load_runs(path)


def test_ruby_binary_tags_and_r_timestamps_read_and_other_tags_still_refused(
    tmp_path: Path,
) -> None:
    """Ruby's VCR writes binary bodies under ``!binary`` and R's vcr bare ``recorded_at``
    timestamps (both real, fixtures/chat-cassettes); a timestamp anywhere else is still data
    JSON has not (R35)."""
    body = base64.b64encode(b'{"model": "m", "messages": []}').decode()
    text = (
        "http_interactions:\n- request:\n    method: post\n    uri: https://x/v1/chat/completions\n"
        f"    body:\n      encoding: ASCII-8BIT\n      string: !binary |-\n        {body}\n"
        "  response:\n    status: 200\n    body:\n      string: '{}'\n"
        "  recorded_at: 2026-08-02 22:54:29\n"
    )
    path = tmp_path / "cassette.yml"
    path.write_text(text)
    with pytest.raises(wb.LoadError, match="no tool call found: the file is an HTTP cassette"):
        wb.load_runs(path)
    path.write_text(text.replace("status: 200", "status: 2026-08-02"))
    with pytest.raises(wb.LoadError, match=r"a date \(YAML"):
        wb.load_runs(path)


def test_a_file_of_a_million_broken_records_is_refused_listing_ten_thousand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: a run's reading lists its first 10,000 problems and counts the rest in one more
    (a hostile round's 20 MB of ``1`` lines after a real session's first record took 24 s and
    2.7 GB, a LoadProblem kept for each); every problem is still counted, on the command line
    too."""
    from workbench.cli import main

    source = FIXTURES / "claude-code" / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
    path = tmp_path / "session.jsonl"
    path.write_bytes(source.read_bytes().splitlines(keepends=True)[0] + b"1\n" * 12_000)
    result = wb.load_runs(path, strict=False)
    assert len(result.problems) == 10_001 and result.problem_count == 12_000
    assert (
        result.problems[-1].message == "2,000 more problems are not listed (the first 10,000 are)"
    )
    with pytest.raises(wb.LoadError, match=r"\(and 11,999 more problems\)$"):
        wb.load_runs(path)
    assert main(["boundaries", str(path)]) == 2
    assert "(and 11,999 more problems)" in capsys.readouterr().err
    # lines that are no JSON at all (decode_json_lines' problems), and the file's whole list
    path.write_bytes(b"{\n" * 12_000)
    result = wb.load_runs(path, strict=False)
    assert len(result.problems) == 10_001 and result.problem_count == 12_000
    assert result.problems[-1].count == 2_000
