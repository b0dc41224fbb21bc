"""Codex CLI sub-agents (``spawn_agent``): each sub-agent thread's rollout read with its parent's
(SPEC R34, R35).

The rollouts here are SYNTHETIC, written in the shape of real Codex 0.142 rollouts a helper read
at stop 29 (iampkuhz/feipi-session-browser ``docs/session-samples/codex/019ede24-...``, no licence
to copy them): a parent whose two ``spawn_agent`` calls are answered by ``{"agent_id",
"nickname"}``, and a rollout per sub-agent whose ``session_meta`` names the parent thread
(``parent_thread_id`` and ``source.subagent.thread_spawn``) and its nickname and role.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench as wb
from workbench.cli import main

PARENT = "019ede24-67de-7b11-b46f-7922530907a9"


def _meta(thread: str, parent: str | None = None, nickname: str = "") -> dict[str, Any]:
    payload: dict[str, Any] = {"id": thread, "cwd": "/w", "cli_version": "0.142.0"}
    if parent is not None:
        spawn = {"parent_thread_id": parent, "depth": 1, "agent_nickname": nickname}
        payload |= {
            "parent_thread_id": parent,
            "source": {"subagent": {"thread_spawn": spawn}},
            "thread_source": "subagent",
            "agent_nickname": nickname,
            "agent_role": "implementer",
        }
    return {"timestamp": "2026-06-19T04:32:38.368Z", "type": "session_meta", "payload": payload}


def _item(payload: dict[str, Any]) -> dict[str, Any]:
    return {"timestamp": "2026-06-19T04:32:40.000Z", "type": "response_item", "payload": payload}


def _call(call_id: str, name: str, arguments: Any, output: str) -> list[dict[str, Any]]:
    call = {"type": "function_call", "call_id": call_id, "name": name}
    answer = {"type": "function_call_output", "call_id": call_id, "output": output}
    return [_item(call | {"arguments": json.dumps(arguments)}), _item(answer)]


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    text = "".join(json.dumps(r) + "\n" for r in records)
    if path.name.endswith(".gz"):
        path.write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
    else:
        path.write_text(text, encoding="utf-8")
    return path


def _child_id(n: int) -> str:
    return f"019ede26-ff0{n}-7a82-bb34-cfab716a498a"


def _session(
    folder: Path, calls: list[int], *, written: set[int] | None = None, gz: bool = False
) -> Path:
    """A parent that spawns one sub-agent a number in ``calls`` (each making that many shell
    calls, the first failing), then waits for them; the sub-agents in ``written`` (all by
    default) have a rollout beside it."""
    records = [_meta(PARENT)]
    for n, count in enumerate(calls):
        answer = json.dumps({"agent_id": _child_id(n), "nickname": f"N{n}"})
        records += _call(f"spawn-{n}", "spawn_agent", {"message": f"task {n}"}, answer)
        if written is not None and n not in written:
            continue
        child = [_meta(_child_id(n), PARENT, f"N{n}")]
        for k in range(count):
            code = 1 if k == 0 else 0
            child += _call(f"c{n}-{k}", "exec_command", {"cmd": "true"}, f"Exit code: {code}")
        suffix = ".jsonl.gz" if gz else ".jsonl"
        _write(folder / f"rollout-2026-06-19T12-32-38-{_child_id(n)}{suffix}", child)
    targets = [_child_id(n) for n in range(len(calls))]
    records += _call("wait-0", "wait_agent", {"targets": targets}, '{"timed_out": false}')
    return _write(folder / f"rollout-2026-06-19T12-29-48-{PARENT}.jsonl", records)


@pytest.mark.parametrize("gz", [False, True])
def test_sub_agents_calls_join_the_parent_after_the_call_that_spawned_them(
    tmp_path: Path, gz: bool
) -> None:
    """R34: each sub-agent's calls, with its agent, right after its ``spawn_agent`` call; its
    failures are its own (an exit code); the run lists each sub-agent's file, nickname, role."""
    path = _session(tmp_path, [2, 1], gz=gz)
    result = wb.load_runs(path)
    got = [(b.call_id, b.agent_id, b.is_error) for b in result.boundaries]
    assert got == [
        ("spawn-0", None, False),
        ("c0-0", f"agent-{_child_id(0)}", True),
        ("c0-1", f"agent-{_child_id(0)}", False),
        ("spawn-1", None, False),
        ("c1-0", f"agent-{_child_id(1)}", True),
        ("wait-0", None, False),
    ]
    assert [b.index for b in result.boundaries] == list(range(6))
    listed = result.runs[0].metadata["subagents"]
    assert [(s["agentId"], s["nickname"], s["role"], s["calls"]) for s in listed] == [
        (_child_id(0), "N0", "implementer", 2),
        (_child_id(1), "N1", "implementer", 1),
    ]
    assert result.boundaries[1].location.startswith(str(tmp_path / "rollout-2026-06-19T12-32-38"))


def test_a_sub_agents_rollout_read_alone_names_its_agent_and_parent(tmp_path: Path) -> None:
    """R34: read on its own, a sub-agent's rollout is its run, its calls by its agent."""
    _session(tmp_path, [2])
    (child,) = tmp_path.glob(f"*{_child_id(0)}.jsonl")
    result = wb.load_runs(child)
    assert {b.agent_id for b in result.boundaries} == {f"agent-{_child_id(0)}"}
    assert result.runs[0].metadata["subagentOf"] == PARENT


def test_a_spawned_thread_with_no_rollout_beside_the_parent_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: a session copied without a sub-agent's rollout loads what is there and lists the
    missing sub-agent; ``workbench boundaries`` says its calls are not here. A file named after
    the thread whose ``session_meta`` names another parent is not taken for it."""
    path = _session(tmp_path, [1, 1], written={0})
    other = [_meta(_child_id(1), "some-other-thread", "X")]
    _write(tmp_path / f"rollout-2026-06-19T13-00-00-{_child_id(1)}.jsonl", other)
    result = wb.load_runs(path)
    assert [b.call_id for b in result.boundaries] == ["spawn-0", "c0-0", "spawn-1", "wait-0"]
    assert result.runs[0].metadata["subagentsNotFound"] == [
        {"agentId": _child_id(1), "callId": "spawn-1"}
    ]
    assert main(["boundaries", str(path)]) == 0
    assert "1 sub-agent named by a call's result had no transcript" in capsys.readouterr().out


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=4), st.data())
def test_no_sub_agent_call_is_lost_or_invented(
    tmp_path_factory: pytest.TempPathFactory, calls: list[int], data: st.DataObject
) -> None:
    """Every sub-agent call whose rollout is there is read once, after its spawning call."""
    folder = tmp_path_factory.mktemp("codex")
    written = data.draw(st.sets(st.sampled_from(range(len(calls)))) if calls else st.just(set()))
    result = wb.load_runs(_session(folder, calls, written=written))
    expected: list[str] = []
    for n, count in enumerate(calls):
        expected.append(f"spawn-{n}")
        if n in written:
            expected += [f"c{n}-{k}" for k in range(count)]
    assert [b.call_id for b in result.boundaries] == [*expected, "wait-0"]
    missing = result.runs[0].metadata.get("subagentsNotFound", [])
    assert [m["agentId"] for m in missing] == [
        _child_id(n) for n in range(len(calls)) if n not in written
    ]


def test_a_rollout_is_never_its_own_sub_agent_nor_read_twice(tmp_path: Path) -> None:
    """R2: a rollout whose spawn_agent names its own thread (and whose session names itself as
    parent) joined its own calls a second time; an agent id that only ends another thread's
    file name joined that thread's calls twice. A file is taken for a thread only when its
    ``session_meta`` is that thread's."""
    records = [_meta(PARENT, PARENT, "me")]
    records += _call("spawn-0", "spawn_agent", {}, json.dumps({"agent_id": PARENT}))
    records += _call("x", "exec_command", {}, "Exit code: 0")
    path = _write(tmp_path / f"rollout-2026-06-19T12-29-48-{PARENT}.jsonl", records)
    assert [b.call_id for b in wb.load_runs(path).boundaries] == ["spawn-0", "x"]
    other = tmp_path / "other"
    other.mkdir()
    parent = _session(other, [1])
    tail = _child_id(0).rsplit("-", 1)[1]  # the last piece of the child's id: not its id
    records = json.loads("[" + ",".join(parent.read_text().splitlines()) + "]")
    records[-2:-2] = _call("spawn-x", "spawn_agent", {}, json.dumps({"agent_id": tail}))
    _write(parent, records)
    result = wb.load_runs(parent)
    assert [b.call_id for b in result.boundaries] == ["spawn-0", "c0-0", "spawn-x", "wait-0"]
    assert result.runs[0].metadata["subagentsNotFound"] == [{"agentId": tail, "callId": "spawn-x"}]


def test_a_sub_agents_own_sub_agents_are_joined_after_the_call_that_spawned_them(
    tmp_path: Path,
) -> None:
    """R34: Codex records a spawn's depth; a sub-agent's sub-agent (its rollout beside the
    others, naming the sub-agent as its parent) is read with it, to any depth up to eight."""
    child, grandchild = _child_id(0), _child_id(1)
    parent = [_meta(PARENT), *_call("spawn-0", "spawn_agent", {}, json.dumps({"agent_id": child}))]
    first = [_meta(child, PARENT, "A"), *_call("a-0", "exec_command", {}, "Exit code: 0")]
    first += _call("spawn-g", "spawn_agent", {}, json.dumps({"agent_id": grandchild}))
    second = [_meta(grandchild, child, "B"), *_call("g-0", "exec_command", {}, "Exit code: 1")]
    _write(tmp_path / f"rollout-2026-06-19T12-32-38-{child}.jsonl", first)
    _write(tmp_path / f"rollout-2026-06-19T12-33-00-{grandchild}.jsonl", second)
    path = _write(tmp_path / f"rollout-2026-06-19T12-29-48-{PARENT}.jsonl", parent)
    result = wb.load_runs(path)
    got = [(b.call_id, b.agent_id, b.is_error) for b in result.boundaries]
    assert got == [
        ("spawn-0", None, False),
        ("a-0", f"agent-{child}", False),
        ("spawn-g", f"agent-{child}", False),
        ("g-0", f"agent-{grandchild}", True),
    ]
    assert [s["agentId"] for s in result.runs[0].metadata["subagents"]] == [child, grandchild]


def test_a_sub_agents_rollout_that_does_not_read_is_said_with_its_own_places(
    tmp_path: Path,
) -> None:
    """R35: a sub-agent's rollout indented by a formatter is read as any file is; one that
    starts with a byte order mark is refused with its own file and line, not called missing."""
    path = _session(tmp_path, [1])
    (child,) = tmp_path.glob(f"*{_child_id(0)}.jsonl")
    records = [json.loads(line) for line in child.read_text().splitlines()]
    child.write_text("\n".join(json.dumps(r, indent=2) for r in records), encoding="utf-8")
    assert [b.call_id for b in wb.load_runs(path).boundaries] == ["spawn-0", "c0-0", "wait-0"]
    child.write_text("\ufeff" + "".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path)
    (problem,) = refused.value.problems
    assert (problem.file, problem.line) == (str(child), 1)
    assert "byte order mark" in problem.message


def test_more_sub_agents_than_are_read_is_said(tmp_path: Path) -> None:
    """R35: past the most sub-agents read beside one rollout, a problem says the rest are not."""
    from workbench._load import codex_subagents

    limit = codex_subagents._MAX_SPAWNED
    try:
        codex_subagents._MAX_SPAWNED = 2
        result = wb.load_runs(_session(tmp_path, [1, 1, 1]), strict=False)
    finally:
        codex_subagents._MAX_SPAWNED = limit
    assert [b.call_id for b in result.boundaries] == [
        "spawn-0",
        "c0-0",
        "spawn-1",
        "c1-0",
        "spawn-2",
        "wait-0",
    ]
    (problem,) = result.problems
    assert "spawns 3 sub-agents, more than 2: the calls of those past it are not read" in (
        problem.message
    )


def test_sub_agents_past_the_deepest_level_read_are_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """R35: a sub-agent that spawns sub-agents below the deepest level read is a problem at
    its file (their calls were dropped with no word)."""
    from workbench._load import codex_subagents

    monkeypatch.setattr(codex_subagents, "MAX_DEPTH", 1)
    child, grandchild = _child_id(0), _child_id(1)
    parent = [_meta(PARENT), *_call("spawn-0", "spawn_agent", {}, json.dumps({"agent_id": child}))]
    first = [_meta(child, PARENT, "A")]
    first += _call("spawn-g", "spawn_agent", {}, json.dumps({"agent_id": grandchild}))
    second = [_meta(grandchild, child, "B"), *_call("g-0", "exec_command", {}, "Exit code: 0")]
    first_path = _write(tmp_path / f"rollout-2026-06-19T12-32-38-{child}.jsonl", first)
    _write(tmp_path / f"rollout-2026-06-19T12-33-00-{grandchild}.jsonl", second)
    path = _write(tmp_path / f"rollout-2026-06-19T12-29-48-{PARENT}.jsonl", parent)
    result = wb.load_runs(path, strict=False)
    assert [b.call_id for b in result.boundaries] == ["spawn-0", "spawn-g"]
    (problem,) = result.problems
    assert problem.file == str(first_path)
    assert "more than 1 levels below the rollout read" in problem.message


def test_a_file_whose_name_only_ends_like_the_thread_does_not_hide_the_thread_s_own(
    tmp_path: Path,
) -> None:
    """R34: two files end with the sub-agent's id (another thread's id ends the same way):
    the one whose session is the sub-agent's is read (the first by name was taken, failed the
    check, and the sub-agent was called missing)."""
    path = _session(tmp_path, [1])
    decoy = [_meta("zz-" + _child_id(0), PARENT, "X"), *_call("d0", "exec_command", {}, "ok")]
    _write(tmp_path / f"rollout-2026-06-19T00-00-00-zz-{_child_id(0)}.jsonl", decoy)
    result = wb.load_runs(path)
    assert [b.call_id for b in result.boundaries] == ["spawn-0", "c0-0", "wait-0"]
