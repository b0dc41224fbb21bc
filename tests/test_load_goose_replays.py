"""goose's MCP replay files load as ``mcp`` runs (SPEC R34-R36).

goose records MCP stdio sessions for its tests (block/goose ``crates/goose/tests/mcp_replays``):
a line each, ``STDIN: <JSON-RPC message>`` (client to server), ``STDOUT: <message>`` (server to
client) or ``STDERR: <text>`` (the server's stderr). The three fixtures are real ones, copied
byte-identical; their counts below are the hand counts of ``fixtures/mcp/SOURCE.md`` (a script
reading that grammar, not the loader). Before stop 43 each was refused as "line 1, column 1:
invalid JSON: Expecting value", also with ``--format mcp``.
"""

from __future__ import annotations

import json
import random
import tempfile
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

FETCH = FIXTURES / "mcp" / "goose-uvxmcp-server-fetch"
DEVELOPER = FIXTURES / "mcp" / "goose-cargorun--quiet-pgoose-server--bingoosed--mcpdeveloper"
EVERYTHING = FIXTURES / "mcp" / "goose-npx-y@modelcontextprotocol_server-everything"
HAND_COUNTS = {  # (calls, failed, STDERR lines), SOURCE.md's hand counts
    FETCH: (1, 1, 24),
    DEVELOPER: (1, 1, 18),
    EVERYTHING: (5, 0, 3),
}


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").split("\n")[:-1]  # the file ends with a line break


def _write(tmp_path: Path, lines: list[str], name: str = "replay") -> Path:
    path = tmp_path / name
    path.write_bytes("".join(line + "\n" for line in lines).encode())
    return path


def _message(line: str) -> Any:
    return json.loads(line.partition(": ")[2])


@pytest.mark.parametrize("path", list(HAND_COUNTS), ids=lambda p: p.name[:40])
@pytest.mark.parametrize("told", ["auto", "mcp"])
def test_a_real_replay_loads_to_its_hand_counts(path: Path, told: str) -> None:
    """R34: told by content (and with ``--format mcp``); every ``tools/call`` a boundary,
    failures by MCP's own signals (R36); the stderr lines counted, no problem (R35)."""
    calls, failed, stderr = HAND_COUNTS[path]
    result = wb.load_runs(path, format=told)
    assert result.format == "mcp" and len(result.runs) == 1
    assert len(result.boundaries) == calls
    assert sum(b.is_error for b in result.boundaries) == failed
    metadata = result.runs[0].metadata
    assert metadata["recorder"] == "goose"
    assert metadata["records"]["log:stderr"] == stderr
    assert metadata["records"]["rpc:tools/call"] == calls
    lines = _lines(path)
    for boundary in result.boundaries:  # each call's place is its STDIN line
        number = int(boundary.location.rsplit(":", 1)[1])
        request = _message(lines[number - 1])
        assert lines[number - 1].startswith("STDIN: ") and request["method"] == "tools/call"
        assert request["params"]["name"] == boundary.tool
        assert request["params"]["arguments"] == boundary.args


def test_the_failures_are_the_servers_own() -> None:
    """R36: ``isError: true`` (fetch's npm install failed) and a JSON-RPC error (the developer
    server's -32603, its code the ``error_code``, the error object the response)."""
    (fetch,) = wb.load_runs(FETCH).boundaries
    assert fetch.tool == "fetch" and fetch.is_error and fetch.error_code is None
    assert "returned non-zero exit status 1" in (fetch.error_message or "")
    (view,) = wb.load_runs(DEVELOPER).boundaries
    assert view.tool == "text_editor" and view.is_error and view.error_code == "-32603"
    assert view.response["code"] == -32603
    assert "does not exist or is not accessible" in (view.error_message or "")


def test_the_servers_sampling_request_reusing_id_0_is_no_call() -> None:
    """The server asks the client for a sampling (``STDOUT`` request, id 0, the id of the
    client's ``initialize``) while ``sampleLLM`` runs; the client answers on ``STDIN``. Neither
    is a call nor answers one: ``sampleLLM`` is answered by the ``STDOUT`` result of its id."""
    result = wb.load_runs(EVERYTHING)
    tools = [b.tool for b in result.boundaries]
    assert tools == ["echo", "add", "longRunningOperation", "structuredContent", "sampleLLM"]
    last = result.boundaries[-1]
    assert not last.is_error and last.response_text.startswith("LLM sampling result:")
    records = result.runs[0].metadata["records"]
    assert records["rpc:sampling/createMessage"] == 1
    assert records["rpc:notifications/progress"] == 5
    assert records["rpc:response"] == 2  # initialize's answer, and the client's sampling one


def test_the_command_line_reads_what_it_refused_before(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for told in ([], ["--format", "mcp"]):
        code, out, err = run_cli(capsys, "boundaries", *told, FETCH)
        assert code == 0, err
        assert "invalid JSON" not in err
        assert "1 tool boundary in 1 run, 1 failed call" in out


def test_a_wrong_explicit_format_is_refused_with_what_the_file_looks_like(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """R35: a replay is an MCP recording, and said so when another format is asked for."""
    code, _, err = run_cli(capsys, "boundaries", "--format", "openai-chat", EVERYTHING)
    assert code == 2 and "Traceback" not in err
    assert "--format openai-chat does not fit" in err and "--format mcp, or auto" in err


@pytest.mark.parametrize("path", list(HAND_COUNTS), ids=lambda p: p.name[:40])
def test_promote_passes_its_self_test(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R30: ``workbench promote`` writes the suite and its self-test replays every call, a
    failed one served as the failure it was."""
    calls, failed, _ = HAND_COUNTS[path]
    code, out, _ = run_cli(capsys, "promote", path, "-o", tmp_path / "suite")
    assert code == 0
    assert "self-test passed: 1 task, " in out and " reproduced, 0 misses" in out
    promotion = wb.promote(wb.load_runs(path))
    assert (promotion.boundary_count, promotion.error_count) == (calls, failed)
    report = promotion.self_test
    assert report is not None and report.passed
    assert (report.misses, report.mismatches, report.boundaries) == (0, (), calls)


# ---- hostile variants (R35): loaded around, or refused with the line (and field) ----------

# EVERYTHING's lines: 1 initialize (STDIN), 2-3 STDERR, 4 its answer, 5 initialized, 6 a log
# notification, 7 echo call (id 1), 8 its answer, 9 add call (id 2), 10 its answer, 11
# longRunningOperation call (id 3), 12-16 progress, 17 its answer, 18 structuredContent call
# (id 4), 19 its answer, 20 sampleLLM call (id 5), 21 the server's sampling request (id 0), 22
# the client's answer, 23 sampleLLM's answer, 24 a log notification, 25 STDERR.


def _everything() -> list[str]:
    lines = _lines(EVERYTHING)
    assert lines[6].startswith('STDIN: {"jsonrpc":"2.0","id":1,"method":"tools/call"')
    assert lines[20].startswith('STDOUT: {"method":"sampling/createMessage"')
    return lines


def _hostile(name: str) -> list[str]:
    lines = _everything()
    if name == "bad-json-after-prefix":
        lines[8] = "STDIN: {" + lines[8][len("STDIN: ") :][:40]  # add's call cut short
    elif name == "unknown-prefix":
        lines[7] = "STDOUTT: " + lines[7][len("STDOUT: ") :]
    elif name == "wrong-typed-isError":
        lines[9] = lines[9].replace('"result":{"content"', '"result":{"isError":"false","content"')
    elif name == "wrong-typed-name":
        lines[8] = lines[8].replace('"name":"add"', '"name":7')
    elif name == "empty-message":
        lines[8] = "STDIN: "
    elif name == "not-json-rpc":
        lines[9] = 'STDOUT: {"id": 2, "result": {}}'
    elif name == "truncated":
        lines = [*lines[:19], lines[19][:60]]
    else:
        raise AssertionError(name)
    return lines


@pytest.mark.parametrize(
    ("name", "where", "field"),
    [
        ("bad-json-after-prefix", "line 9, column", ""),
        ("unknown-prefix", "line 8", ""),
        ("wrong-typed-isError", "line 10, STDOUT", "response.result.isError"),
        ("wrong-typed-name", "line 9, STDIN", "request.params.name"),
        ("empty-message", "line 9", ""),
        ("not-json-rpc", "line 10, STDOUT", "jsonrpc"),
        ("truncated", "line 20, column", ""),
    ],
)
def test_a_broken_replay_is_loaded_around_with_the_line_named(
    name: str, where: str, field: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: the broken line is a problem naming its line (and field); the calls around it
    load; on the command line, exit 2 with the place, no traceback."""
    path = _write(tmp_path, _hostile(name))
    result = wb.load_runs(path, strict=False)
    assert result.format == "mcp"
    found = [p for p in result.problems if p.where.startswith(where)]
    assert [p.field for p in found] == [field], [str(p) for p in result.problems]
    assert found[0].line == int(where.split(",")[0].split()[1])
    assert len(result.boundaries) == 4  # the call whose line (or answer's) broke left out
    code, _, err = run_cli(capsys, "boundaries", path)
    assert code == 2 and "Traceback" not in err
    assert f"{path}: {where}" in err, err


def test_an_unknown_prefix_names_goose_streams(tmp_path: Path) -> None:
    path = _write(tmp_path, _hostile("unknown-prefix"))
    (problem,) = [p for p in wb.load_runs(path, strict=False).problems if p.where == "line 8"]
    assert "'STDIN: ', 'STDOUT: ' or 'STDERR: '" in problem.message
    assert "STDOUTT" in problem.message


def test_a_request_never_answered_is_a_problem_at_its_line(tmp_path: Path) -> None:
    """R2: sampleLLM's answer (line 23) left out: a problem at its request's line."""
    lines = _everything()
    del lines[22]
    result = wb.load_runs(_write(tmp_path, lines), strict=False)
    assert [b.tool for b in result.boundaries][-1] == "structuredContent"
    assert [(p.where, p.line) for p in result.problems] == [("line 20, STDIN", 20)]
    assert "never answered" in result.problems[0].message


def test_a_response_with_no_request_invents_no_call(tmp_path: Path) -> None:
    """A ``STDOUT`` answer of an id no open call has (a repeat of echo's) is counted, not made
    a call, and the calls keep their own answers."""
    lines = _everything()
    lines.insert(8, lines[7].replace('"id":1}', '"id":99}'))
    result = wb.load_runs(_write(tmp_path, lines))
    assert len(result.boundaries) == 5
    assert result.runs[0].metadata["records"]["rpc:response"] == 3


def test_a_server_request_reusing_an_open_calls_id_does_not_answer_it(tmp_path: Path) -> None:
    """The server's ``elicitation/create`` of the open call's id 5, answered by the client with
    an error, neither answers nor fails the call; the server's result of id 5 does."""
    lines = _everything()
    asked = {"jsonrpc": "2.0", "id": 5, "method": "elicitation/create", "params": {}}
    refused = {"jsonrpc": "2.0", "id": 5, "error": {"code": -1, "message": "declined"}}
    lines[20:20] = [f"STDOUT: {json.dumps(asked)}", f"STDIN: {json.dumps(refused)}"]
    result = wb.load_runs(_write(tmp_path, lines))
    last = result.boundaries[-1]
    assert last.tool == "sampleLLM" and not last.is_error
    assert result.runs[0].metadata["records"]["rpc:elicitation/create"] == 1


def test_stderr_of_any_text_and_crlf_line_ends_load_the_same(tmp_path: Path) -> None:
    """STDERR lines hold any text (none, ``STDERR:`` stripped of its space, bytes that are no
    UTF-8, something that looks like a prefix); CRLF line ends read as LF ones."""
    lines = _everything()
    odd = ["STDERR: ", "STDERR:", "STDERR: STDIN: {", "STDERR: ╭──╮ 🚀"]
    data = "".join(line + "\n" for line in lines[:3] + odd + lines[3:]).encode()
    data = data.replace(b"STDERR: \xe2\x95\xad", b"STDERR: \xff\xe2\x95\xad")
    for name, body in (("odd", data), ("crlf", data.replace(b"\n", b"\r\n"))):
        path = tmp_path / name
        path.write_bytes(body)
        result = wb.load_runs(path)
        assert len(result.boundaries) == 5, name
        assert result.runs[0].metadata["records"]["log:stderr"] == 3 + len(odd)


def test_bytes_that_are_no_utf8_in_a_message_are_a_problem_at_their_line(tmp_path: Path) -> None:
    lines = _everything()
    data = "".join(line + "\n" for line in lines).encode()
    data = data.replace(b'"Hello, world!"', b'"Hello, \xffworld!"', 1)
    path = tmp_path / "replay"
    path.write_bytes(data)
    result = wb.load_runs(path, strict=False)
    assert len(result.boundaries) == 4  # echo's call left out, the others loaded
    assert [p.where.split(", column")[0] for p in result.problems] == ["line 7"]
    assert "not UTF-8" in result.problems[0].message


# ---- properties ---------------------------------------------------------------------------

TOOLS = st.sampled_from(["echo", "add", "fetch", "text_editor"])
ARGS = st.dictionaries(st.sampled_from(["a", "b", "url"]), st.integers(-3, 3), max_size=3)
CALLS = st.lists(st.tuples(TOOLS, ARGS, st.booleans()), min_size=1, max_size=8)


def _rpc(**members: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", **members}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CALLS, st.randoms(use_true_random=False), st.booleans(), st.integers(0, 6))
def test_any_interleaving_goose_could_record_loses_or_invents_no_boundary(
    calls: list[tuple[str, dict[str, int], bool]],
    rng: random.Random,
    server_requests: bool,
    stderr: int,
) -> None:
    """Calls made at once, answered in any order after their requests; stderr lines anywhere;
    other traffic (``tools/list``, progress, the server's own requests reusing the calls' ids,
    answered by the client) between them: each call is one boundary, with its own answer."""
    lines: list[str] = [
        f"STDIN: {json.dumps(_rpc(id=0, method='initialize', params={}))}",
        f"STDOUT: {json.dumps(_rpc(id=0, result={}))}",
    ]
    requests: list[str] = []
    answers: list[list[str]] = []
    for i, (tool, args, failed) in enumerate(calls, start=1):
        params = {"name": tool, "arguments": args}
        requests.append(f"STDIN: {json.dumps(_rpc(id=i, method='tools/call', params=params))}")
        answer = {"content": [{"type": "text", "text": f"answer {i}"}], "isError": failed}
        said = [f"STDOUT: {json.dumps(_rpc(id=i, result=answer))}"]
        if server_requests:  # before the answer: the call waits on the client's reply
            asked = _rpc(id=i, method="sampling/createMessage", params={})
            replied = _rpc(id=i, result={})
            said[:0] = [f"STDOUT: {json.dumps(asked)}", f"STDIN: {json.dumps(replied)}"]
        progress = _rpc(method="notifications/progress", params={"progressToken": i})
        said.insert(0, f"STDOUT: {json.dumps(progress)}")
        answers.append(said)
    # requests in order, each answer's lines in order after its request, answers interleaved
    events: list[str] = []
    pending: list[list[str]] = []
    for request, said in zip(requests, answers, strict=True):
        events.append(request)
        pending.append(list(said))
        while pending and rng.random() < 0.5:
            queue = rng.choice(pending)
            events.append(queue.pop(0))
            pending = [q for q in pending if q]
    while pending:
        queue = rng.choice(pending)
        events.append(queue.pop(0))
        pending = [q for q in pending if q]
    listed = [
        f"STDIN: {json.dumps(_rpc(id=100, method='tools/list'))}",
        f"STDOUT: {json.dumps(_rpc(id=100, result={'tools': []}))}",
    ]
    at = rng.randint(0, len(events))
    events[at:at] = listed
    for n in range(stderr):
        events.insert(rng.randint(0, len(events)), f"STDERR: line {n} of the server's log")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "replay"
        path.write_text("".join(line + "\n" for line in lines + events), encoding="utf-8")
        result = wb.load_runs(path)
    assert result.format == "mcp" and result.problems == ()
    assert [(b.tool, b.args, b.is_error) for b in result.boundaries] == calls
    texts = [b.response_text for b in result.boundaries]
    assert texts == [f"answer {i}" for i in range(1, len(calls) + 1)]
    assert result.runs[0].metadata["records"].get("log:stderr", 0) == stderr


_ODD: list[Any] = [None, True, 0, -1, 1.5, "", "x", [], {}, [None], {"": None}, "tools/call"]


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.sampled_from(list(HAND_COUNTS)), st.data())
def test_a_value_of_another_type_in_any_message_is_loaded_around_or_refused(
    tmp_path: Path, source: Path, data: st.DataObject
) -> None:
    """As ``test_load_mutations``: a value swapped for one of another type at any place of the
    messages (prefixes and stderr lines kept) loads what it can or is refused with places."""
    lines = _lines(source)
    kept = [line.partition(": ") for line in lines]
    messages = [json.loads(rest) for prefix, _, rest in kept if prefix != "STDERR"]
    swapped = iter(with_values_swapped(messages, data, st.sampled_from(_ODD)))
    out = [
        f"{prefix}: {rest if prefix == 'STDERR' else json.dumps(next(swapped))}"
        for prefix, _, rest in kept
    ]
    result = loaded_around_or_refused(_write(tmp_path, out))
    assert result is None or len(result.boundaries) <= HAND_COUNTS[source][0]
