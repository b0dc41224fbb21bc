"""Every loader answers a broken file on the command line with exit 2 and one line a problem,
naming the file and the line or field, and no traceback (SPEC R35; issue 10 point 4).

Each format's file is a real recording from ``fixtures/`` (a sample for OpenAI chat and
Anthropic, SYNTHETIC ones for OTel and mcp-recorder, which have no published recording),
broken here the ways files break: cut short, bytes that are not UTF-8, a NUL, NaN, a huge
integer, a lone surrogate, nesting past the limit, a byte order mark, binary garbage, nothing
at all. ``boundaries`` and ``promote`` both read it through ``load_runs``; both are run.
"""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers.cli import child_env, run_cli
from helpers.paths import BILLING, FIXTURES, SAMPLES, TAU_DEMO
from helpers.recordings import RECORDINGS

_OTEL_SYNTHETIC = {  # SYNTHETIC: an OTLP/JSON export shaped by the GenAI conventions
    "resourceSpans": [
        {
            "scopeSpans": [
                {
                    "spans": [
                        {
                            "traceId": "t1",
                            "spanId": "s1",
                            "name": "execute_tool add",
                            "startTimeUnixNano": "1",
                            "endTimeUnixNano": "2",
                            "attributes": [
                                {
                                    "key": "gen_ai.operation.name",
                                    "value": {"stringValue": "execute_tool"},
                                },
                                {"key": "gen_ai.tool.name", "value": {"stringValue": "add"}},
                                {"key": "gen_ai.tool.call.id", "value": {"stringValue": "c1"}},
                            ],
                        }
                    ]
                }
            ]
        }
    ]
}
_MCP_RECORDER_SYNTHETIC = {  # SYNTHETIC: mcp-recorder 0.5.0's documented cassette shape
    "version": "1.0",
    "metadata": {"server_url": "http://127.0.0.1:1/mcp", "transport_type": "http"},
    "interactions": [
        {
            "type": "jsonrpc_request",
            "request": {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
            },
            "response": {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": False}},
        }
    ],
}


def _sources() -> list[tuple[str, str, bytes]]:
    """(format, file name, bytes): the smallest real recording of each format, and the rest.

    Chat transcripts come as JSON files and as HTTP cassettes of chat API traffic; the smallest
    cassette of each chat API in each container (YAML, JSON) is broken too, as its own source
    (the JSON a YAML cassette carries sits in quoted YAML strings, so only the breaks of the
    YAML itself apply to it)."""
    smallest: dict[str, Path] = {}
    for rec in RECORDINGS:
        if rec.path.is_dir():
            continue  # a session folder: its files are broken in test_load_session_folders
        key = rec.format
        if rec.path.parent.name == "chat-cassettes":
            key = f"{rec.format} cassette {rec.path.suffix}"
        if key not in smallest or rec.path.stat().st_size < smallest[key].stat().st_size:
            smallest[key] = rec.path
    out = []
    for key, path in sorted(smallest.items()):
        fmt = key.split(" ")[0]
        data = path.read_bytes()
        name = path.name
        if name.endswith(".gz"):
            data, name = gzip.decompress(data), name[:-3]
        out.append((fmt, name, data))
    out += [
        ("openwop", BILLING.name, BILLING.read_bytes()),
        (
            "openai-chat",
            "openai-chat-refund.json",
            (SAMPLES / "openai-chat-refund.json").read_bytes(),
        ),
        ("anthropic", "anthropic-refund.json", (SAMPLES / "anthropic-refund.json").read_bytes()),
        ("openai-chat", TAU_DEMO.name, TAU_DEMO.read_bytes()),
        ("otel", "synthetic-trace.json", json.dumps(_OTEL_SYNTHETIC, indent=1).encode()),
        ("mcp", "synthetic-cassette.json", json.dumps(_MCP_RECORDER_SYNTHETIC, indent=1).encode()),
    ]
    return [s for s in out if not s[1].endswith(".eval")]


def _object_after_middle(data: bytes) -> int:
    found = data.find(b"{", len(data) // 2)
    return found if found >= 0 else data.find(b"{")


def _insert_member(what: bytes) -> Callable[[bytes], bytes]:
    """Insert ``"x": <what>,`` as the first member of the first object after the middle."""

    def edit(data: bytes) -> bytes:
        at = _object_after_middle(data) + 1
        return data[:at] + b'"x": ' + what + b", " + data[at:]

    return edit


def _into_string(byte: bytes) -> Callable[[bytes], bytes]:
    """Put ``byte`` just inside the first string that starts after the middle."""

    def edit(data: bytes) -> bytes:
        at = data.find(b'"', len(data) // 2) + 1
        return data[:at] + byte + data[at:]

    return edit


BREAKS: dict[str, Callable[[bytes], bytes]] = {
    "cut-short": lambda data: data[: len(data) // 2],
    "not-utf8": _into_string(b"\xff\xfe"),
    "nul-byte": _into_string(b"\x00"),
    "nan": _insert_member(b"NaN"),
    "huge-integer": _insert_member(b"123456789012345678901234567890"),
    "lone-surrogate": _insert_member(b'"\\ud800"'),
    "deep-nesting": _insert_member(b"[" * 300 + b"]" * 300),
    "byte-order-mark": lambda data: b"\xef\xbb\xbf" + data,
    "garbage": lambda data: bytes(range(256)) * 8,
    "empty": lambda data: b"",
}
_IN_THE_MIDDLE = {"cut-short", "not-utf8", "nul-byte", "nan", "huge-integer", "lone-surrogate"}
_YAML_STRINGS = {"nan", "lone-surrogate"}  # ``"x": NaN`` is a YAML string; not a break there
_CHAT_CASSETTE_TEXT = {"huge-integer", "deep-nesting"}  # put in a quoted string: text there
_LOCATION = re.compile(r"(line \d+|\(file\)|\(root\)|interaction \d+|item \d+)")

CASES = [
    pytest.param(fmt, name, data, brk, id=f"{fmt}-{brk}-{name[:24]}")
    for fmt, name, data in _sources()
    for brk in BREAKS
    if not (name.endswith(".yaml") and brk in _YAML_STRINGS)
    and not (
        name.endswith(".yaml")
        and fmt in ("openai-chat", "anthropic")
        and brk in _CHAT_CASSETTE_TEXT
    )
]


def _assert_refused(path: Path, code: int, out: str, err: str, brk: str) -> None:
    assert code == 2, (code, out[:300], err[:300])
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert 1 <= len(lines) <= 21, err  # 20 problems and "... and N more"
    for text in lines[:20]:
        prefix = f"workbench: error: {path}"
        assert text.startswith(prefix), text
        rest = re.sub(r"^![^:]+", "", text[len(prefix) :])  # an archive's member: file!member
        assert rest.startswith(": ") and _LOCATION.match(rest[2:]), text
    if brk in _IN_THE_MIDDLE:
        assert re.search(r"line \d+|\(field ", lines[0]), lines[0]


@pytest.mark.parametrize(("fmt", "name", "data", "brk"), CASES)
def test_a_broken_file_is_refused_with_exit_2_and_a_place_on_both_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str, name: str, data: bytes, brk: str
) -> None:
    path = tmp_path / name
    path.write_bytes(BREAKS[brk](data))
    commands: list[list[str | Path]] = [
        ["boundaries", path],
        ["promote", path, "-o", tmp_path / "suite.json"],
    ]
    for argv in commands:
        code, out, err = run_cli(capsys, *argv)
        _assert_refused(path, code, out, err, brk)
    assert not (tmp_path / "suite.json").exists()
    code, out, err = run_cli(capsys, "boundaries", path, "--format", fmt)
    _assert_refused(path, code, out, err, brk if brk != "garbage" else "")


def test_a_broken_inspect_eval_archive_is_refused_with_its_member_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An ``.eval`` zip cut short, and one whose sample member holds NaN."""
    source = FIXTURES / "inspect-ai" / "log_message_deduplication.eval"
    cut = tmp_path / "cut.eval"
    cut.write_bytes(source.read_bytes()[:3000])
    code, out, err = run_cli(capsys, "promote", cut, "-o", tmp_path / "s.json")
    _assert_refused(cut, code, out, err, "")
    bad = tmp_path / "nan.eval"
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(bad, "w") as new:
        for info in old.infolist():
            body = old.read(info.filename)
            if info.filename.startswith("samples/"):
                body = _insert_member(b"NaN")(body)
            new.writestr(info, body)
    code, out, err = run_cli(capsys, "boundaries", bad)
    _assert_refused(bad, code, out, err, "nan")
    assert "samples/0_epoch_1.json" in err


def test_a_cut_gzip_is_refused_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for rec in RECORDINGS:
        if rec.path.name.endswith(".gz"):
            path = tmp_path / rec.path.name
            path.write_bytes(rec.path.read_bytes()[:2000])
            code, out, err = run_cli(capsys, "boundaries", path)
            _assert_refused(path, code, out, err, "")


@pytest.mark.slow
def test_the_installed_command_refuses_broken_files_without_a_traceback(tmp_path: Path) -> None:
    """The real entry point, in a child process: a 65 MiB line (sparse, over the 64 MiB line
    limit), a cut Claude Code session and a cut Gemini CLI session: exit 2, one line each."""
    huge = tmp_path / "huge.jsonl"
    with huge.open("wb") as handle:
        handle.write(b'{"type": "user", "message": "')
        handle.truncate(65 * 1024 * 1024)
    cut = {}
    for fmt in ("claude-code", "gemini-cli"):
        rec = next(r for r in RECORDINGS if r.format == fmt)
        cut[fmt] = tmp_path / rec.path.name
        cut[fmt].write_bytes(rec.path.read_bytes()[: rec.path.stat().st_size // 2])
    errors = []
    for path in (huge, *cut.values()):
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "workbench.cli",
                "promote",
                str(path),
                "-o",
                str(tmp_path / "s"),
            ],
            capture_output=True,
            text=True,
            env=child_env(),
            stdin=subprocess.DEVNULL,
            timeout=120,
        )
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr
        first = done.stderr.strip().splitlines()[0]
        assert first.startswith(f"workbench: error: {path}: line "), first
        errors.append(first)
    assert "longer than 64 MiB" in errors[0]
