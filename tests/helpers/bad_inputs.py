"""The bad-input corpus: a table of hostile command lines for every ``workbench`` command.

Each :class:`Case` is a command line run in a fresh folder holding the base files
(:data:`BASE_FILES`: a recorded run, a tiny run, a suite promoted from it, a host profile),
plus whatever its ``files`` and ``setup`` add. ``tests/test_bad_inputs.py`` runs every case and
checks what the issue asks: the exit code is one of ``expect`` (as documented in
``workbench/cli/__init__.py``), there is never a traceback, an exit 2 prints exactly one line
naming the file, line or field (``mentions``), and no file that was there before is lost or
changed unless the case lists it in ``changes``.

To add a case, add a line to one of the tables below (``SUITE_DOCUMENTS``, ``RUN_DOCUMENTS``,
``SPECIAL_INPUTS``, ``OUTPUT_TARGETS``, ``ARGUMENT_ERRORS``, ``HOSTILE_CONTENT``); the
builders at the bottom cross them with the commands they apply to.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["BASE_FILES", "Case", "all_cases", "base_suite", "tiny_run"]

Setup = Callable[[Path], None]


@dataclass(frozen=True)
class Case:
    """One hostile command line and what must come of it."""

    id: str
    argv: tuple[str, ...]
    expect: tuple[int, ...] = (2,)
    mentions: tuple[str, ...] = ()
    """Text the one error line (exit 2), or stdout for exit 1, must hold."""
    files: Mapping[str, bytes] = field(default_factory=dict)
    setup: Setup | None = None
    changes: tuple[str, ...] = ()
    """Paths (relative to the case folder) the command may create or replace."""
    out_must_not_hold: tuple[str, ...] = ()
    """Text that must not reach stdout (raw control characters, say)."""


# --- the base files ---------------------------------------------------------------------------


def _event(kind: str, sequence: int, payload: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "eventId": f"e{sequence}",
        "runId": "tiny",
        "type": kind,
        "sequence": sequence,
        "timestamp": f"2026-01-01T00:00:{sequence:02d}Z",
        "schemaVersion": 1,
        "payload": dict(payload),
    }


def tiny_run(tool: str = "lookup", args: Any = None, result: Any = None) -> bytes:
    """A valid OpenWOP log with one call and its result (JSONL bytes)."""
    events = [
        _event("run.started", 0, {"workflowId": "tiny"}),
        _event(
            "agent.tool-called",
            1,
            {"toolName": tool, "callId": "c1", "inputs": {"id": 7} if args is None else args},
        ),
        _event(
            "agent.tool-returned",
            2,
            {
                "toolName": tool,
                "callId": "c1",
                "outcome": {"content": [{"type": "text", "text": "ok"}]}
                if result is None
                else result,
            },
        ),
        _event("run.completed", 3, {"outputs": {"answer": "done"}}),
    ]
    return "".join(json.dumps(e) + "\n" for e in events).encode()


def base_suite() -> dict[str, Any]:
    """A valid suite (what ``promote`` makes of :func:`tiny_run`, written by hand here so the
    table does not depend on promotion)."""
    return {
        "suiteId": "local.test.evals.tiny",
        "version": "1.0.0",
        "modes": ["golden"],
        "tasks": [
            {
                "taskId": "tiny",
                "input": {"script": [{"tool": "lookup", "args": {"id": 7}}], "answer": "done"},
                "expected": {
                    "kind": "golden",
                    "match": {
                        "strategy": "json-match",
                        "value": {"outcome": "completed", "answer": "done"},
                    },
                },
                "fixtures": {
                    "toolResponses": [
                        {
                            "tool": "lookup",
                            "args": {"id": 7},
                            "response": {"content": [{"type": "text", "text": "ok"}]},
                        }
                    ],
                    "onMiss": "fail",
                },
            }
        ],
    }


def _stable(value: Any) -> bytes:
    return (json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n").encode()


PROFILE = {"name": "narrow", "agents": {"evalSuite": {"modes": ["golden"], "fixtureErrors": False}}}

BASE_FILES: dict[str, bytes] = {
    "tiny.jsonl": tiny_run(),
    "suite.json": _stable(base_suite()),
    "notes.txt": b"my own notes, not a workbench output\n",
}
"""Files every case folder starts with (``run.jsonl``, the billing recording, is added by the
test from ``fixtures/``)."""


def _suite_with(change: Callable[[dict[str, Any]], None]) -> bytes:
    suite = base_suite()
    change(suite)
    return json.dumps(suite).encode()


def _task(suite: dict[str, Any]) -> dict[str, Any]:
    task: dict[str, Any] = suite["tasks"][0]
    return task


def _entry(suite: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = _task(suite)["fixtures"]["toolResponses"][0]
    return entry


def _step(suite: dict[str, Any]) -> dict[str, Any]:
    step: dict[str, Any] = _task(suite)["input"]["script"][0]
    return step


def _set(target: Callable[[dict[str, Any]], dict[str, Any]], key: str, value: Any) -> bytes:
    return _suite_with(lambda s: target(s).__setitem__(key, value))


def _deep_policy(depth: int) -> bytes:
    """The base suite with an ``onError`` policy nested ``depth`` deep, as text (too deep for
    Python's own JSON encoder to write)."""
    text = json.dumps(_suite_with_marker())
    nested = '{"retry": 1, "then": ' * depth + '"abort"' + "}" * depth
    return text.replace('"MARKER"', nested).encode()


def _suite_with_marker() -> dict[str, Any]:
    suite = base_suite()
    _step(suite)["onError"] = "MARKER"
    return suite


def _write(path: Path, data: bytes) -> None:
    path.write_bytes(data)


def _both(*setups: Setup) -> Setup:
    def run(folder: Path) -> None:
        for setup in setups:
            setup(folder)

    return run


# --- table: suite documents ------------------------------------------------------------------
# (name, bytes, readable, field): readable=False means not a suite at all (exit 2 everywhere);
# readable=True means a JSON object with tasks that the host refuses (validate exits 1 naming
# `field`, replay and sweep exit 2 naming it).

SUITE_DOCUMENTS: list[tuple[str, bytes, bool, str]] = [
    ("empty", b"", False, "empty"),
    ("whitespace", b"  \n\t\n", False, "empty"),
    ("null", b"null", False, "JSON object"),
    ("number", b"5", False, "JSON object"),
    ("string", b'"suite"', False, "JSON object"),
    ("array", b"[]", False, "JSON object"),
    ("array-of-numbers", b"[1, 2]", False, "JSON object"),
    ("no-tasks", b"{}", False, "tasks"),
    ("tasks-a-number", b'{"tasks": 5}', False, "tasks"),
    ("tasks-an-object", b'{"tasks": {}}', False, "tasks"),
    ("truncated", b'{"suiteId": "x", "tasks": [', False, "line 1"),
    ("trailing-comma", b'{"tasks": [1,,]}', False, "line 1"),
    ("nan", b'{"tasks": [], "trials": NaN}', False, "NaN"),
    ("infinity", b'{"tasks": [], "trials": Infinity}', False, "Infinity"),
    ("5000-digit-integer", b'{"tasks": [], "trials": ' + b"9" * 5000 + b"}", False, "digits"),
    ("nested-100k-deep", b"[" * 100_000 + b"]" * 100_000, False, "deeply"),
    ("not-utf8", b'{"tasks": ["\xff\xfe"]}', False, "UTF-8"),
    ("utf16-with-bom", '{"tasks": []}'.encode("utf-16"), False, "UTF-8"),
    ("nul-bytes", b'{"tasks": []}\x00\x00', False, "line 1"),
    ("png-header", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", False, "UTF-8"),
    ("bom-then-garbage", b"\xef\xbb\xbfnot json", False, "line 1"),
    ("jsonl-not-json", b'{"a": 1}\n{"b": 2}\n', False, "line 2"),
    ("task-a-number", _suite_with(lambda s: s["tasks"].append(5)), True, "tasks[1]"),
    ("task-without-id", _suite_with(lambda s: _task(s).pop("taskId")), True, "tasks[0]"),
    ("task-id-a-number", _set(_task, "taskId", 5), True, "tasks[0].taskId"),
    (
        "duplicate-task-ids",
        _suite_with(lambda s: s["tasks"].append(dict(s["tasks"][0]))),
        True,
        "tasks[1].taskId",
    ),
    ("is-error-a-string", _set(_entry, "isError", "true"), True, "toolResponses[0].isError"),
    ("args-match-bogus", _set(_entry, "argsMatch", "fuzzy"), True, "toolResponses[0].argsMatch"),
    (
        "entry-a-string",
        _suite_with(lambda s: _task(s)["fixtures"].update(toolResponses=["x"])),
        True,
        "toolResponses[0]",
    ),
    (
        "responses-not-a-list",
        _suite_with(lambda s: _task(s)["fixtures"].update(toolResponses={})),
        True,
        "toolResponses",
    ),
    ("fixtures-a-list", _set(_task, "fixtures", []), True, "tasks[0].fixtures"),
    (
        "on-miss-bogus",
        _suite_with(lambda s: _task(s)["fixtures"].update(onMiss="retry")),
        True,
        "onMiss",
    ),
    ("trials-zero", _set(_task, "trials", 0), True, "tasks[0].trials"),
    ("trials-a-string", _set(_task, "trials", "3"), True, "tasks[0].trials"),
    ("trials-a-billion", _set(_task, "trials", 10**9), True, "tasks[0].trials"),
    ("suite-trials-a-billion", _suite_with(lambda s: s.update(trials=10**9)), True, "trials"),
    ("trials-a-float", _set(_task, "trials", 2.5), True, "tasks[0].trials"),
    (
        "script-not-a-list",
        _suite_with(lambda s: _task(s)["input"].update(script="go")),
        True,
        "input.script",
    ),
    ("input-missing", _suite_with(lambda s: _task(s).pop("input")), True, "input"),
    ("step-without-tool", _suite_with(lambda s: _step(s).pop("tool")), True, "script[0]"),
    ("step-tool-empty", _set(_step, "tool", ""), True, "script[0].tool"),
    (
        "step-a-number",
        _suite_with(lambda s: _task(s)["input"].update(script=[5])),
        True,
        "script[0]",
    ),
    ("policy-unknown", _set(_step, "onError", "explode"), True, "script[0].onError"),
    ("retry-negative", _set(_step, "onError", {"retry": -1}), True, "onError.retry"),
    ("retry-10-to-30", _set(_step, "onError", {"retry": 10**30}), True, "onError.retry"),
    ("retry-a-float", _set(_step, "onError", {"retry": 1e30}), True, "onError.retry"),
    ("retry-a-bool", _set(_step, "onError", {"retry": True}), True, "onError.retry"),
    (
        "two-policies",
        _set(_step, "onError", {"retry": 1, "fallback": {"tool": "x"}}),
        True,
        "onError",
    ),
    ("fallback-no-tool", _set(_step, "onError", {"fallback": {}}), True, "onError.fallback"),
    ("choose-empty", _set(_step, "onError", {"choose": []}), True, "onError.choose"),
    (
        "choose-negative-p",
        _set(_step, "onError", {"choose": [{"p": -1, "policy": "skip"}]}),
        True,
        "choose[0].p",
    ),
    (
        "choose-zero-sum",
        _set(_step, "onError", {"choose": [{"p": 0, "policy": "skip"}]}),
        True,
        "onError.choose",
    ),
    ("then-unknown", _set(_step, "onError", {"retry": 1, "then": "panic"}), True, "onError.then"),
    ("policies-2000-deep", _deep_policy(2000), False, "deeply"),
    ("suite-id-bad", _suite_with(lambda s: s.update(suiteId="Not An Id")), True, "suiteId"),
    ("version-empty", _suite_with(lambda s: s.update(version="")), True, "version"),
    ("modes-not-a-list", _suite_with(lambda s: s.update(modes="golden")), True, "modes"),
    (
        "expected-kind-bogus",
        _suite_with(lambda s: _task(s)["expected"].update(kind="vibes")),
        True,
        "expected",
    ),
    (
        "trajectory-match-bogus",
        _set(_task, "trajectory", {"expected": [], "match": "fuzzy"}),
        True,
        "trajectory.match",
    ),
    (
        "trajectory-expected-not-list",
        _set(_task, "trajectory", {"expected": 5, "match": "strict"}),
        True,
        "trajectory.expected",
    ),
    ("suite-missing-id", _suite_with(lambda s: s.pop("suiteId")), True, "suiteId"),
]

# --- table: recorded-run documents (all load errors: exit 2 naming the file) ------------------

_CALL = {"type": "agent.tool-called", "sequence": 0, "runId": "r",
         "payload": {"callId": "c1", "toolName": "t", "inputs": {}}}  # fmt: skip
_ANSWER = {"type": "agent.tool-returned", "sequence": 1, "runId": "r",
           "payload": {"callId": "c1", "outcome": "ok"}}  # fmt: skip


def _jsonl(*events: Any) -> bytes:
    return "".join(json.dumps(e) + "\n" for e in events).encode()


RUN_DOCUMENTS: list[tuple[str, bytes, str]] = [
    ("not-json", b"this is not a recording\n", "line 1"),
    ("bad-second-line", _jsonl(_CALL) + b"{nope\n" + _jsonl(_ANSWER), "line 2"),
    ("unpaired-result", _jsonl(_ANSWER), "callId"),
    ("call-never-answered", _jsonl(_CALL), "c1"),
    ("two-open-calls-one-id", _jsonl(_CALL, {**_CALL, "sequence": 1}), "c1"),
    ("json-scalar", b"42", "run.jsonl"),
    ("json-string", b'"hello"', "run.jsonl"),
    ("invalid-utf8", b'{"type": "agent.tool-called", "x": "\xff"}\n', "run.jsonl"),
    ("nul-in-line", _jsonl(_CALL)[:-1] + b"\x00\n", "line 1"),
    (
        "5000-digit-number",
        b'{"type": "agent.tool-called", "sequence": ' + b"1" * 5000 + b"}\n",
        "run.jsonl",
    ),
    ("nested-100k-deep", b"[" * 100_000, "run.jsonl"),
    (
        "chat-reply-to-nothing",
        json.dumps([{"role": "tool", "tool_call_id": "zzz", "content": "x"}]).encode(),
        "zzz",
    ),
    (
        "chat-tool-calls-not-a-list",
        json.dumps([{"role": "assistant", "tool_calls": {"id": "a"}}]).encode(),
        "tool_calls",
    ),
    (
        "anthropic-result-for-nothing",
        json.dumps(
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": "nope", "content": "x"}],
                    }
                ]
            }
        ).encode(),
        "nope",
    ),
    ("png-bytes", b"\x89PNG\r\n\x1a\n" + bytes(range(256)), "run.jsonl"),
]

# --- table: special paths given as an input -------------------------------------------------


def _fifo(name: str) -> Setup:
    return lambda folder: os.mkfifo(folder / name)


def _link(name: str, target: str) -> Setup:
    return lambda folder: (folder / name).symlink_to(target)


def _loop(folder: Path) -> None:
    (folder / "loop-a").symlink_to("loop-b")
    (folder / "loop-b").symlink_to("loop-a")


def _folder(name: str) -> Setup:
    return lambda folder: (folder / name).mkdir()


SPECIAL_INPUTS: list[tuple[str, str, Setup | None]] = [
    ("missing", "absent.json", None),
    ("a-folder", "a-folder", _folder("a-folder")),
    ("dev-null", "/dev/null", None),
    # a device that never ends (read whole, it once took all memory) and a named pipe no one
    # writes to (opening it once waited forever for a writer)
    ("dev-zero", "/dev/zero", None),
    ("fifo-no-writer", "pipe", _fifo("pipe")),
    ("link-to-dev-zero", "to-zero", _link("to-zero", "/dev/zero")),
    ("dangling-link", "dangling.json", _link("dangling.json", "nowhere.json")),
    ("symlink-loop", "loop-a", _loop),
    ("under-a-file", "notes.txt/suite.json", None),
    ("name-too-long", "x" * 300 + ".json", None),
    ("empty-path", "", None),
]

# --- table: hostile output targets --------------------------------------------------------------
# (name, target, setup, ok, mention): ok=False: refused (exit 2, nothing written);
# ok=True: written (the command succeeds and may change the target).


def _hardlink(name: str, target: str) -> Setup:
    return lambda folder: os.link(folder / target, folder / name)


OUTPUT_TARGETS: list[tuple[str, str, Setup | None, bool, str]] = [
    ("a-folder", "a-folder", _folder("a-folder"), False, "folder"),
    ("dev-null", "/dev/null", None, False, "device"),
    ("fifo", "pipe", _fifo("pipe"), False, "FIFO"),
    (
        "link-to-fifo",
        "to-pipe",
        _both(_fifo("pipe"), _link("to-pipe", "pipe")),
        False,
        "FIFO",
    ),
    ("link-to-dev-null", "to-null", _link("to-null", "/dev/null"), False, "device"),
    (
        "link-to-folder",
        "to-dir",
        _both(_folder("d"), _link("to-dir", "d")),
        False,
        "folder",
    ),
    ("dangling-link", "dangling", _link("dangling", "nowhere"), False, "nothing"),
    ("no-such-folder", "no/such/dir/out.json", None, False, "does not exist"),
    ("under-a-file", "notes.txt/out.json", None, False, "not a folder"),
    ("foreign-file", "notes.txt", None, False, "--force"),
    ("empty-path", "", None, False, "empty"),
    ("trailing-slash", "out.json/", None, False, "folder"),
    ("dot-dot", "..", None, False, "folder"),
    ("name-too-long", "y" * 300, None, False, "too long"),
    ("new-file", "out.file", None, True, ""),
    ("foreign-file-with-force", "notes.txt", None, True, ""),
]

# --- table: argument errors --------------------------------------------------------------------

ARGUMENT_ERRORS: list[tuple[str, tuple[str, ...], str]] = [
    ("no-command", (), "COMMAND"),
    ("unknown-command", ("frobnicate",), "frobnicate"),
    ("unknown-option", ("boundaries", "run.jsonl", "--colour"), "--colour"),
    ("boundaries-no-file", ("boundaries",), "RUN"),
    ("boundaries-csv-and-json", ("boundaries", "run.jsonl", "--csv", "--json"), "--json"),
    ("format-unknown", ("boundaries", "run.jsonl", "--format", "yaml"), "--format"),
    ("format-wrong", ("boundaries", "run.jsonl", "--format", "anthropic"), "run.jsonl"),
    ("promote-no-output", ("promote", "run.jsonl"), "--output"),
    (
        "promote-policy-unknown",
        ("promote", "run.jsonl", "-o", "o.json", "--policy", "explode"),
        "policy",
    ),
    (
        "promote-policy-negative",
        ("promote", "run.jsonl", "-o", "o.json", "--policy", '{"retry": -1}'),
        "retry",
    ),
    (
        "promote-policy-huge",
        ("promote", "run.jsonl", "-o", "o.json", "--policy", '{"retry": 1e40}'),
        "retry",
    ),
    ("promote-policy-list", ("promote", "run.jsonl", "-o", "o.json", "--policy", "[1]"), "policy"),
    ("promote-suite-id-bad", ("promote", "run.jsonl", "-o", "o.json", "--suite-id", "BAD"), "BAD"),
    ("promote-version-empty", ("promote", "run.jsonl", "-o", "o.json", "--version", ""), "version"),
    ("promote-version-words", ("promote", "run.jsonl", "-o", "o.json", "--version", "one"), "one"),
    ("replay-trials-zero", ("replay", "suite.json", "--trials", "0"), "--trials"),
    ("replay-trials-negative", ("replay", "suite.json", "--trials", "-3"), "--trials"),
    ("replay-trials-words", ("replay", "suite.json", "--trials", "many"), "--trials"),
    ("replay-trials-billion", ("replay", "suite.json", "--trials", "1000000000"), "--trials"),
    ("replay-seed-huge", ("replay", "suite.json", "--seed", "1" + "0" * 40), "--seed"),
    (
        "replay-profile-missing",
        ("replay", "suite.json", "--host-profile", "nope.json"),
        "nope.json",
    ),
    (
        "replay-profile-not-json",
        ("replay", "suite.json", "--host-profile", "notes.txt"),
        "notes.txt",
    ),
    (
        "replay-same-two-outputs",
        ("replay", "suite.json", "--events", "x.out", "--summary", "x.out"),
        "both",
    ),
    (
        "validate-profile-bad",
        ("validate", "suite.json", "--host-profile", "notes.txt"),
        "notes.txt",
    ),
    ("sweep-trials-zero", ("sweep", "suite.json", "--trials", "0"), "--trials"),
    ("sweep-workers-zero", ("sweep", "suite.json", "--workers", "0"), "--workers"),
    ("sweep-workers-million", ("sweep", "suite.json", "--workers", "1000000"), "--workers"),
    ("sweep-faults-bogus", ("sweep", "suite.json", "--faults", "all", "--out", "r"), "faults"),
    (
        "sweep-faults-tool-empty",
        ("sweep", "suite.json", "--faults", "tool:", "--out", "r"),
        "faults",
    ),
    (
        "sweep-faults-tool-unknown",
        ("sweep", "suite.json", "--faults", "tool:nope", "--out", "r"),
        "nope",
    ),
    ("sweep-kind-bogus", ("sweep", "suite.json", "--kind", "meteor"), "--kind"),
    (
        "sweep-pairs-times-trials",
        ("sweep", "run.jsonl", "--faults", "pairs", "--trials", "9000", "--out", "r"),
        "limit",
    ),
    ("serve-mcp-task-unknown", ("serve-mcp", "suite.json", "--task", "nope"), "nope"),
    ("serve-mcp-http-bad", ("serve-mcp", "suite.json", "--http", "localhost:http"), "--http"),
    ("serve-mcp-http-port-range", ("serve-mcp", "suite.json", "--http", "99999"), "99999"),
    ("serve-mcp-trial-words", ("serve-mcp", "suite.json", "--trial", "x"), "--trial"),
    ("record-mcp-no-out", ("record-mcp", "--", "true"), "--out"),
    ("record-mcp-no-command", ("record-mcp", "--out", "rec.jsonl"), "command"),
    (
        "record-mcp-no-such-program",
        ("record-mcp", "--out", "rec.jsonl", "--", "/no/such/program"),
        "/no/such/program",
    ),
    ("record-mcp-out-foreign", ("record-mcp", "--out", "notes.txt", "--", "true"), "--force"),
    (
        "record-mcp-two-outputs-one-file",
        ("record-mcp", "--out", "x.jsonl", "--tools-out", "x.jsonl", "--", "true"),
        "both",
    ),
]

# --- table: hostile content that must be handled (exit 0), shown escaped -----------------------

_ESCAPES = "\x1b[2J\x1b]0;pwned\x07\u202eevil\x00"

HOSTILE_CONTENT: list[tuple[str, tuple[str, ...], bytes, tuple[int, ...], tuple[str, ...]]] = [
    (
        "escapes-in-tool-name",
        ("boundaries", "hostile.jsonl"),
        tiny_run(tool="t" + _ESCAPES),
        (0,),
        ("\x1b", "\u202e", "\x00"),
    ),
    (
        "escapes-in-args",
        ("boundaries", "hostile.jsonl"),
        tiny_run(args={"q": _ESCAPES}),
        (0,),
        ("\x1b", "\u202e"),
    ),
    (
        "escapes-in-result",
        ("boundaries", "hostile.jsonl"),
        tiny_run(result={"content": [{"type": "text", "text": _ESCAPES}]}),
        (0,),
        ("\x1b", "\u202e"),
    ),
    (
        "escapes-in-csv",
        ("boundaries", "hostile.jsonl", "--csv"),
        tiny_run(tool='=HYPERLINK("x")' + _ESCAPES),
        (0,),
        (",=HYPERLINK",),
    ),
    (
        "wide-characters",
        ("boundaries", "hostile.jsonl"),
        tiny_run(tool="検索" * 40, args={"q": "😀" * 100}),
        (0,),
        (),
    ),
    ("huge-args", ("boundaries", "hostile.jsonl"), tiny_run(args={"q": "x" * 1_000_000}), (0,), ()),
    (
        "html-payload-promoted",
        ("promote", "hostile.jsonl", "-o", "h.json"),
        tiny_run(result={"content": [{"type": "text", "text": "<script>alert(1)</script>"}]}),
        (0,),
        (),
    ),
    (
        "surrogate-in-args",
        ("boundaries", "hostile.jsonl", "--json"),
        b'{"type": "agent.tool-called", "sequence": 1, "runId": "r", "payload": {"callId": "c", "toolName": "t", "inputs": {"q": "\\ud800"}}}\n{"type": "agent.tool-returned", "sequence": 2, "runId": "r", "payload": {"callId": "c", "outcome": "ok"}}\n',  # noqa: E501
        (0, 2),
        (),
    ),
]


# --- builders ---------------------------------------------------------------------------------


def _suite_cases() -> Iterator[Case]:
    for name, data, readable, where in SUITE_DOCUMENTS:
        files = {"bad.json": data}
        yield Case(f"validate/{name}", ("validate", "bad.json"), (1,) if readable else (2,),
                   (where,), files)  # fmt: skip
        yield Case(
            f"replay/{name}",
            ("replay", "bad.json"),
            (2,),
            (where,) if readable else ("bad.json",),
            files,
        )
        yield Case(
            f"sweep/{name}",
            ("sweep", "bad.json", "--out", "r"),
            (2,),
            (where,) if readable else ("bad.json",),
            files,
        )
        if not readable:
            yield Case(f"serve-mcp/{name}", ("serve-mcp", "bad.json"), (2,), ("bad.json",), files)


def _run_cases() -> Iterator[Case]:
    for name, data, where in RUN_DOCUMENTS:
        # Chat transcripts and Anthropic messages are JSON documents; the rest JSONL logs.
        file = "run.json" if name.startswith(("chat-", "anthropic-")) else "run.jsonl"
        files = {file: data}
        yield Case(f"boundaries/{name}", ("boundaries", file), (2,), (where,), files)
        yield Case(f"promote/{name}", ("promote", file, "-o", "o.json"), (2,), (where,), files)
        yield Case(f"sweep-run/{name}", ("sweep", file, "--out", "r"), (2,), (where,), files)


_INPUT_COMMANDS: list[tuple[str, Callable[[str], tuple[str, ...]]]] = [
    ("boundaries", lambda p: ("boundaries", p)),
    ("promote", lambda p: ("promote", p, "-o", "o.json")),
    ("validate", lambda p: ("validate", p)),
    ("replay", lambda p: ("replay", p)),
    ("sweep", lambda p: ("sweep", p, "--out", "r")),
    ("serve-mcp", lambda p: ("serve-mcp", p)),
    ("replay-profile", lambda p: ("replay", "suite.json", "--host-profile", p)),
]


def _special_input_cases() -> Iterator[Case]:
    for name, path, setup in SPECIAL_INPUTS:
        for command, argv in _INPUT_COMMANDS:
            mention = (path[:40],) if path else ()
            yield Case(f"{command}-input/{name}", argv(path), (2,), mention, setup=setup)


# Each writing flag: (label, argv with the target, kind of success exit codes, is a folder).
_WRITERS: list[tuple[str, Callable[[str], tuple[str, ...]], tuple[int, ...], bool]] = [
    ("promote-o", lambda t: ("promote", "tiny.jsonl", "-o", t), (0,), False),
    ("replay-summary", lambda t: ("replay", "suite.json", "--summary", t), (0,), False),
    ("replay-events", lambda t: ("replay", "suite.json", "--events", t), (0,), False),
    ("serve-mcp-events", lambda t: ("serve-mcp", "suite.json", "--events", t), (0,), False),
    ("record-mcp-out", lambda t: ("record-mcp", "--out", t, "--", "true"), (0,), False),
    (
        "sweep-out",
        lambda t: ("sweep", "suite.json", "--faults", "tool:lookup", "--kind", "flip", "--out", t),
        (0,),
        True,
    ),
]
_SLOW_WRITERS = {"sweep-out", "serve-mcp-events", "record-mcp-out"}
"""Writers whose successful runs are not in the table (a sweep renders charts; serving and
recording need a client): only their refusals are."""


def _output_cases() -> Iterator[Case]:
    for label, argv, success, is_folder in _WRITERS:
        for name, target, setup, ok, mention in OUTPUT_TARGETS:
            if ok and label in _SLOW_WRITERS:
                continue
            if is_folder and name in (
                "trailing-slash", "a-folder", "link-to-folder", "foreign-file",
            ):  # fmt: skip
                continue  # a folder is what a folder output is; a file: see below
            forced = name.endswith("-with-force")
            words = argv(target)
            if forced:
                words = (
                    (*words[:-2], "--force", *words[-2:])
                    if label == "record-mcp-out"
                    else (*words, "--force")
                )
            expect = success if ok else (2,)
            changes = (target,) if ok else ()
            mentions = (mention,) if mention else ()
            yield Case(f"{label}/{name}", words, expect, mentions, setup=setup, changes=changes)
        # the command's own input as its output, directly, by a symlink and by a hard link
        source = {"promote-o": "tiny.jsonl", "record-mcp-out": None}.get(label, "suite.json")
        if source is None:
            continue
        for how, setup in (
            ("itself", None),
            ("symlink", _link("alias", source)),
            ("hardlink", _hardlink("alias", source)),
        ):
            target = source if how == "itself" else "alias"
            if is_folder:
                target = "."  # the folder the input is in
            yield Case(f"{label}/input-{how}", argv(target), (2,), ("input",), setup=setup)
    sweep = _WRITERS[-1][1]
    yield Case("sweep-out/a-file", sweep("notes.txt"), (2,), ("not a folder",))
    foreign = _both(_folder("mine"), lambda f: _write(f / "mine" / "thesis.tex", b"work"))
    yield Case("sweep-out/foreign-folder", sweep("mine"), (2,), ("thesis.tex",), setup=foreign)
    yield Case(
        "sweep-out/foreign-folder-force",
        (*sweep("mine"), "--force"),
        (2,),
        ("never",),
        setup=foreign,
    )
    yield Case("sweep-out/folder-of-the-input", sweep("."), (2,), ("input",))
    yield Case(
        "replay/events-is-the-profile",
        ("replay", "suite.json", "--host-profile", "p.json", "--events", "p.json"),
        (2,),
        ("input",),
        files={"p.json": json.dumps(PROFILE).encode()},
    )
    yield Case(
        "promote/parents-asked",
        ("promote", "tiny.jsonl", "-o", "new/deeper/s.json", "--parents"),
        (0,),
        changes=("new",),
    )
    yield Case(
        "promote/own-output-again",
        ("promote", "tiny.jsonl", "-o", "suite.json"),
        (0,),
        changes=("suite.json",),
    )


_MODEL_CACHES: list[tuple[str, str, Setup | None]] = [
    ("dev-zero", "/dev/zero", None),
    ("dev-null", "/dev/null", None),
    ("fifo", "pipe", _fifo("pipe")),
    ("a-folder", "a-folder", _folder("a-folder")),
]
"""``--model-cache`` targets that are not files: read whole and appended to, they would never
end (``/dev/zero``) or block the appends (a FIFO)."""


def _model_cache_cases() -> Iterator[Case]:
    for name, path, setup in _MODEL_CACHES:
        for command, argv in (
            ("replay", ("replay", "suite.json")),
            ("sweep", ("sweep", "suite.json", "--out", "r")),
        ):
            yield Case(f"{command}-model-cache/{name}",
                       (*argv, "--agent", "llm", "--model-cache", path), (2,), (path,),
                       setup=setup)  # fmt: skip


def _argument_cases() -> Iterator[Case]:
    for name, argv, mention in ARGUMENT_ERRORS:
        yield Case(f"args/{name}", argv, (2,), (mention,))


def _content_cases() -> Iterator[Case]:
    for name, argv, data, expect, forbidden in HOSTILE_CONTENT:
        changes = tuple(argv[i + 1] for i, a in enumerate(argv) if a == "-o")
        yield Case(f"content/{name}", argv, expect, (), {"hostile.jsonl": data},
                   changes=changes, out_must_not_hold=forbidden)  # fmt: skip


def all_cases() -> list[Case]:
    """Every case of every table, crossed with the commands it applies to."""
    cases = [
        *_suite_cases(),
        *_run_cases(),
        *_special_input_cases(),
        *_output_cases(),
        *_argument_cases(),
        *_model_cache_cases(),
        *_content_cases(),
    ]
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids)), "case ids must be unique"
    return cases
