"""Stop 36's hostile round (SPEC R35): each input here is SYNTHETIC, a small case of what the
round found; each test says what went wrong before."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

import workbench as wb
from helpers.cli import child_env, run_cli
from helpers.paths import BILLING, FIXTURES


@pytest.mark.parametrize("tasks", [["x"], [1, 2]])
def test_serve_mcp_refuses_a_suite_whose_tasks_are_no_objects(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], tasks: list[object]
) -> None:
    """serve-mcp read the task's id before the suite was checked: a task that is a string or a
    number was an internal error (exit 3, AttributeError)."""
    pytest.importorskip("mcp")
    suite = tmp_path / "x.suite.json"
    suite.write_text(
        json.dumps(
            {"suiteId": "local.x.evals.y", "version": "1.0.0", "modes": ["golden"], "tasks": tasks}
        ),
        encoding="utf-8",
    )
    code, _, err = run_cli(capsys, "serve-mcp", suite)
    assert code == 2
    assert "internal error" not in err
    assert len(err.strip().splitlines()) == 1
    assert "tasks[0]" in err or "name the one to serve" in err


def test_serve_mcp_writes_a_refusal_on_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A suite the host refuses was written as indented JSON (seven lines); it is one JSON
    line naming the field, as replay writes it."""
    pytest.importorskip("mcp")
    task = {
        "taskId": "t",
        "input": {},
        "fixtures": {"toolResponses": [[]]},
        "grader": {"kind": "exact", "expected": {}},
    }
    suite = tmp_path / "x.suite.json"
    suite.write_text(
        json.dumps(
            {"suiteId": "local.x.evals.y", "version": "1.0.0", "modes": ["golden"], "tasks": [task]}
        ),
        encoding="utf-8",
    )
    code, _, err = run_cli(capsys, "serve-mcp", suite)
    assert code == 2
    (line,) = err.strip().splitlines()
    body = json.loads(line)
    assert body["error"] == "validation_error"
    assert body["details"]["field"].startswith("tasks[0]")


def test_a_sweep_under_a_small_address_space_limit_says_so_in_one_line(tmp_path: Path) -> None:
    """Under ``ulimit -v 4 GB`` the report's chart engine (vl-convert's V8, which reserves about
    64 GiB) killed the sweep with SIGTRAP (exit 133) and a native backtrace: the report is now
    refused in one line, exit 2, before its folder is touched."""
    resource = pytest.importorskip("resource")

    def small_address_space() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, resource.getrlimit(resource.RLIMIT_AS)[1]))

    out = tmp_path / "report"
    done = subprocess.run(
        [sys.executable, "-m", "workbench.cli", "sweep", str(BILLING), "--out", str(out)],
        capture_output=True,
        text=True,
        env=child_env(),
        preexec_fn=small_address_space,
        timeout=300,
        check=False,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    (line,) = done.stderr.strip().splitlines()
    assert "ulimit -v" in line and "cannot draw the charts" in line
    assert not out.exists()


def test_a_sweep_whose_calls_squared_is_too_large_is_refused_before_it_starts() -> None:
    """A sweep of a 50,000-call run made 100,000 variants of 50,000 calls each and grew past
    14 GB before the machine stopped it: a sweep of generated faults is refused when it would
    replay more than ``MAX_SWEEP_CALLS`` calls; one tool's faults (a variant a task) is not."""
    suite = wb.sweep_source(BILLING)
    data = copy.deepcopy(suite.data)
    fixtures = data["tasks"][0]["fixtures"]
    fixtures["toolResponses"] = (fixtures["toolResponses"] * 500)[:6000]
    big = wb.Suite.coerce(data)
    with pytest.raises(ValueError, match=r"about 72,000,000 tool calls, over the limit"):
        wb.sweep(big)
    with pytest.raises(ValueError, match=r"over the limit"):
        wb.sweep(big, faults="pairs")
    tool = fixtures["toolResponses"][0]["tool"]
    from workbench._sweep.run import _check_size

    _check_size(big, f"tool:{tool}", ("hard", "transient"), 1)  # 2 variants: allowed


def test_boundaries_json_escapes_what_a_terminal_acts_on_unseen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``boundaries --json`` wrote C1 controls (U+009B, a terminal's CSI), a right-to-left
    override, a line separator and a zero-width space raw (the table and the CSV escape them):
    they are JSON escapes now, and the output reads back to the same names."""
    hostile = "rtl\u202eevil\u009b31m\u2028x\u200b"
    log = tmp_path / "run.openwop.jsonl"
    log.write_text(
        BILLING.read_text(encoding="utf-8").replace("tickets:get", json.dumps(hostile)[1:-1]),
        encoding="utf-8",
    )
    code, out, _ = run_cli(capsys, "boundaries", "--json", log)
    assert code == 0
    assert not any(ch in out for ch in "\u202e\u009b\u2028\u200b")
    assert "\\u202e" in out and "\\u009b" in out
    assert json.loads(out)[0]["tool"] == hostile


def test_promote_refuses_an_empty_suite_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--suite-id ""`` was taken as no id given and replaced by the default, silently."""
    code, _, err = run_cli(
        capsys, "promote", BILLING, "--suite-id", "", "-o", tmp_path / "x.suite.json"
    )
    assert code == 2
    assert "suite id '' is not of the form" in err
    assert not (tmp_path / "x.suite.json").exists()


def test_an_sdk_transport_record_that_is_no_envelope_is_a_problem_not_the_file(
    tmp_path: Path,
) -> None:
    """R35: one record of the Claude Agent SDK's transport that is no envelope (its message is
    text) made the whole file unread, taken for an empty OpenAI chat (a review of stop 36):
    the envelopes are unwrapped one by one, and that record is a problem naming its place."""
    real = FIXTURES / "claude-code" / "logfire_claude_agent_sdk_tool_use_conversation.json"
    document = json.loads(real.read_text(encoding="utf-8"))
    document["messages"].append({"direction": "recv", "message": "stray text"})
    path = tmp_path / "transport.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    result = wb.load_runs(path, strict=False)
    assert result.format == "claude-code"
    assert [b.tool for b in result.boundaries] == ["Bash"]
    (problem,) = result.problems
    assert problem.where == f"messages item {len(document['messages']) - 1}"


def test_a_sweep_over_its_limits_is_refused_before_its_baseline_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``sweep --trials 10000`` of a 5,000-task suite ran its baseline (50 million trials) for
    minutes before the size check refused it; the billing run's took 22 s. The limits are now
    asked before the baseline replays anything."""
    import workbench._sweep.run as sweep_run

    def no_baseline(*args: object, **kwargs: object) -> object:
        raise AssertionError("the baseline ran before the size check")

    monkeypatch.setattr(sweep_run, "replay", no_baseline)
    with pytest.raises(ValueError, match="over the limit of 200000 variant-trials"):
        wb.sweep(wb.sweep_source(BILLING), trials=10_000)


def test_replay_trials_given_for_every_task_are_bounded_over_all_tasks() -> None:
    """``replay --trials 10000`` of a 5,000-task suite ran for hours (the suite's own trials are
    bounded over all tasks, 1,000,000; the option was not): it is refused before it starts."""
    data = copy.deepcopy(wb.sweep_source(BILLING).data)
    task = data["tasks"][0]
    data["tasks"] = [{**copy.deepcopy(task), "taskId": f"t{i}"} for i in range(101)]
    with pytest.raises(wb.HostRefusal, match=r"10000 trials x 101 tasks: 1010000 trials"):
        wb.replay(wb.Suite.coerce(data), trials=10_000)


def test_a_sweep_shows_a_long_tool_name_cut_where_it_repeats_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A sweep's ``trajectory`` column repeats each name once a call and a variant: 200 calls
    of a 10 KB name took 3.5 GB (a 100 KB name, past 24 GB, killed), and its table printed the
    names whole. The column cuts a name at 100 characters and the table a cell at 80 (the CSVs
    of the boundaries and the branches keep it whole)."""
    name = "tickets:" + "x" * 5_000
    log = tmp_path / "run.openwop.jsonl"
    log.write_text(BILLING.read_text(encoding="utf-8").replace("tickets:get", name), "utf-8")
    result = wb.sweep(log, progress=False)
    longest = int(result.frame["trajectory"].str.len().max())
    assert longest < 12 * 110
    assert "tickets:" + "x" * 91 + "\u2026" in result.frame["trajectory"].iloc[0]
    code, out, _ = run_cli(capsys, "sweep", log, "--out", tmp_path / "report")
    assert code == 0
    assert max(len(line) for line in out.splitlines()) < 400
    csv_text = (tmp_path / "report" / "recovery.csv").read_text(encoding="utf-8")
    assert name in csv_text


def test_blank_lines_after_the_first_event_take_the_quick_way(tmp_path: Path) -> None:
    """Blank lines after the first event each went the slow way (typed decode, orjson, then
    ``json``: 6 us a line, 5 million took 31 s); they are skipped at once, with the same
    boundaries, line numbers and no problem, as text mode reads them."""
    text = BILLING.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    padded = lines[:5] + [" \t\n", "\n", "\x0c\n"] * 1000 + lines[5:] + ["\n"] * 100_000
    log = tmp_path / "padded.openwop.jsonl"
    log.write_text("".join(padded), encoding="utf-8")
    plain = wb.load_runs(BILLING)
    result = wb.load_runs(log)
    assert result.problems == ()
    assert [(b.call_id, b.is_error) for b in result.boundaries] == [
        (b.call_id, b.is_error) for b in plain.boundaries
    ]
    shift = [int(b.location.rsplit(":", 1)[1]) for b in result.boundaries]
    was = [int(b.location.rsplit(":", 1)[1]) for b in plain.boundaries]
    assert shift == [line + 3000 if line > 5 else line for line in was]


def test_a_key_file_is_read_up_to_a_megabyte_and_its_values_shown_cut(tmp_path: Path) -> None:
    """``serve-host --api-key-file`` read a 300 MB file whole (1.5 GB) and printed its bad scope
    in full on one 300 MB line: a key file over a megabyte is refused unread, and a bad value
    is shown cut to 40 characters."""
    pytest.importorskip("starlette")
    from workbench.server._auth import load_api_keys

    big = tmp_path / "big.keys"
    big.write_text("wbk_" + "a" * 40 + " " + "x" * (2 << 20) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"a key file is at most 1048576 bytes"):
        load_api_keys(big)
    odd = tmp_path / "odd.keys"
    odd.write_text("wbk_" + "a" * 40 + " " + "x" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(ValueError) as refused:
        load_api_keys(odd)
    assert len(str(refused.value)) < len(str(odd)) + 100


@pytest.mark.parametrize(
    ("given", "said"), [("", "is not [HOST:]PORT"), ("a" * 300 + ":0", "is not a host name")]
)
def test_serve_mcp_refuses_an_http_address_it_cannot_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str, said: str
) -> None:
    """``--http ''`` was taken as no ``--http`` (it served stdio), and a 300-character host
    failed in the idna codec with a message naming neither: both are refused in one line."""
    pytest.importorskip("mcp")
    suite = tmp_path / "billing.suite.json"
    assert run_cli(capsys, "promote", BILLING, "-o", suite)[0] == 0
    code, _, err = run_cli(capsys, "serve-mcp", suite, "--http", given)
    assert code == 2
    (line,) = err.strip().splitlines()
    assert "--http" in line and said in line
