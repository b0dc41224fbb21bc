"""Codex CLI's sub-agents, read with the rollout that spawned them (SPEC R34-R36).

Codex's multi-agent tools (2026: ``spawn_agent``, ``wait_agent``, ``send_input``) run each
sub-agent in a thread of its own, which writes a rollout of its own beside its parent's:
``rollout-<time>-<thread id>.jsonl``. The sub-agent's ``session_meta`` names its parent
(``parent_thread_id``, also under ``source.subagent.thread_spawn``) and gives its
``agent_nickname`` and ``agent_role``; the parent's ``spawn_agent`` call is answered by
``{"agent_id": "<thread id>", "nickname": ...}``.

- **A sub-agent's rollout read alone** is one run whose calls carry the sub-agent's agent,
  ``agent-<thread id>`` (Claude Code's sub-agents are named the same way), and whose
  ``metadata["subagentOf"]`` names the parent thread.
- **A parent's rollout** is read with the rollouts of the threads its ``spawn_agent`` calls
  started, found beside it by name (``rollout-*-<thread id>.jsonl``, or ``.jsonl.gz``; each read
  as any file is, and only when its ``session_meta`` names this thread as its parent): each
  sub-agent's calls join the run right after the ``spawn_agent`` call that started it. Each
  boundary keeps its own file and line as its location; a sub-agent file's problems name that
  file. ``metadata["subagents"]`` lists each file read (its agent, nickname, role and calls),
  and ``metadata["subagentsNotFound"]`` each spawned thread with no rollout beside the parent
  (a session copied without them): ``workbench boundaries`` says their calls are not here.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from .._common.toolresult import result_text
from .json_sequence import jsonl_records
from .reading import read_file_bytes
from .records import LoadError, LoadProblem, PromotedRun, ToolBoundary, set_boundary_index

__all__ = ["MAX_DEPTH", "as_subagent", "parent_thread", "with_codex_subagents"]

Loaded = tuple[list[PromotedRun], list[LoadProblem]]

_SPAWN = "spawn_agent"
_MAX_SPAWNED = 1_000
"""The most sub-agent rollouts looked for beside one rollout."""


def parent_thread(session: Mapping[str, Any]) -> str | None:
    """The thread that spawned this rollout's thread (``None``: a thread of its own)."""
    parent = session.get("parent_thread_id")
    if isinstance(parent, str) and parent:
        return parent
    source = session.get("source")
    sub = source.get("subagent") if isinstance(source, Mapping) else None
    spawn = sub.get("thread_spawn") if isinstance(sub, Mapping) else None
    parent = spawn.get("parent_thread_id") if isinstance(spawn, Mapping) else None
    return parent if isinstance(parent, str) and parent else None


def as_subagent(run: PromotedRun) -> PromotedRun:
    """A sub-agent's run with its calls named by its agent (``agent-<thread id>``) and its
    parent thread on ``metadata["subagentOf"]``; any other run as it is."""
    session = run.metadata.get("session")
    if not isinstance(session, Mapping):
        return run
    parent = parent_thread(session)
    thread = session.get("id")
    if parent is None or not isinstance(thread, str) or not thread:
        return run
    agent = f"agent-{thread}"
    boundaries = tuple(replace(b, agent_id=agent) for b in run.boundaries)
    return replace(run, boundaries=boundaries, metadata={**run.metadata, "subagentOf": parent})


def with_codex_subagents(
    runs: list[PromotedRun],
    problems: list[LoadProblem],
    file: str,
    load_one: Callable[[Sequence[tuple[int, Any]], str], Loaded],
) -> Loaded:
    """The rollout's run with its sub-agents' calls joined in (see the module's docstring);
    ``load_one(records, file)`` reads one rollout."""
    if len(runs) != 1:
        return runs, problems
    problems = list(problems)
    session = runs[0].metadata.get("session")
    thread = session.get("id") if isinstance(session, Mapping) else None
    if not isinstance(thread, str):
        return runs, problems
    run = _joined(runs[0], thread, file, load_one, problems, {thread}, 0)
    return [run], problems


def _joined(
    run: PromotedRun,
    thread: str,
    file: str,
    load_one: Callable[[Sequence[tuple[int, Any]], str], Loaded],
    problems: list[LoadProblem],
    seen: set[str],
    depth: int,
) -> PromotedRun:
    """``run`` (of ``thread``, read from ``file``) with the calls of the sub-agents it spawned
    and theirs (to :data:`MAX_DEPTH` levels), each thread read once (``seen``)."""
    spawned = _spawned(run)
    if not spawned:
        return run
    if not os.path.isfile(file):  # standard input, or a file gone: nothing beside it to read
        return run
    folder = os.path.dirname(file) or "."
    try:
        names = sorted(n for n in os.listdir(folder) if n.startswith("rollout-"))
    except OSError:
        names = []
    joined: dict[str, list[ToolBoundary]] = {}  # spawning call id -> the sub-agent's calls
    listed: list[dict[str, Any]] = []
    missing: list[dict[str, str]] = []
    if len(spawned) > _MAX_SPAWNED:
        message = (
            f"spawns {len(spawned):,} sub-agents, more than {_MAX_SPAWNED:,}: "
            "the calls of those past it are not read"
        )
        problems.append(LoadProblem(file, "(file)", "", message))
    for agent_id, call_id in list(spawned.items())[:_MAX_SPAWNED]:
        if agent_id in seen:  # the thread itself, or one read already (a loop of spawns)
            continue
        seen.add(agent_id)
        found = _rollout(folder, names, agent_id, thread, load_one, problems)
        if found is None:
            missing.append({"agentId": agent_id, "callId": call_id})
            continue
        path, child, child_session, more = found
        problems.extend(more)
        child = as_subagent(child)
        if depth + 1 < MAX_DEPTH:
            child = _joined(child, agent_id, str(path), load_one, problems, seen, depth + 1)
        elif _spawned(child):  # R35: said, not dropped
            message = (
                f"spawns sub-agents more than {MAX_DEPTH} levels below the rollout read: "
                "their calls are not read"
            )
            problems.append(LoadProblem(str(path), "(file)", "", message))
        joined[call_id] = list(child.boundaries)
        listed.append(
            {
                "agentId": agent_id,
                "file": path,
                "nickname": child_session.get("agent_nickname"),
                "role": child_session.get("agent_role"),
                "calls": len(child.boundaries),
            }
        )
        listed.extend(child.metadata.get("subagents") or ())
        missing.extend(child.metadata.get("subagentsNotFound") or ())
    merged: list[ToolBoundary] = []
    for boundary in run.boundaries:
        merged.append(boundary)
        merged.extend(joined.pop(boundary.call_id, ()))
    for index, boundary in enumerate(merged):
        set_boundary_index(boundary, index)  # every record is fresh, made by this load
    metadata = dict(run.metadata)
    if listed:
        metadata["subagents"] = listed
    if missing:
        metadata["subagentsNotFound"] = missing
    return replace(run, boundaries=tuple(merged), metadata=metadata)


MAX_DEPTH = 8
"""How deep sub-agents of sub-agents are read (Codex itself limits the depth it spawns to)."""


def _spawned(run: PromotedRun) -> dict[str, str]:
    """Sub-agent thread id -> the ``spawn_agent`` call that started it (from its answer)."""
    out: dict[str, str] = {}
    for boundary in run.boundaries:
        if boundary.tool != _SPAWN or boundary.is_error:
            continue
        response = boundary.response
        text = response if isinstance(response, str) else ""
        if isinstance(response, Mapping):
            text = result_text(response.get("content"))
        try:
            answer = json.loads(text)
        except ValueError:
            continue
        agent_id = answer.get("agent_id") if isinstance(answer, dict) else None
        if isinstance(agent_id, str) and agent_id and "/" not in agent_id:
            out.setdefault(agent_id, boundary.call_id)
    return out


def _rollout(
    folder: str,
    names: list[str],
    agent_id: str,
    thread: str,
    load_one: Callable[[Sequence[tuple[int, Any]], str], Loaded],
    problems: list[LoadProblem],
) -> tuple[str, PromotedRun, Mapping[str, Any], list[LoadProblem]] | None:
    """The rollout of sub-agent ``agent_id`` of ``thread`` in ``folder``: of the files named
    after it (``rollout-...-<id>.jsonl``; another thread's id may end the same way), the one
    whose ``session_meta`` is that thread's and names ``thread`` as its parent, read, with its
    problems. A file named after it that does not read gives its problems (its own places)."""
    for name in names:
        if not name.endswith((f"-{agent_id}.jsonl", f"-{agent_id}.jsonl.gz")):
            continue
        path = os.path.join(folder, name)
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        child, found = _read(path, load_one)
        session = child.metadata.get("session") if child is not None else None
        if child is None or not isinstance(session, Mapping):
            problems.extend(found)  # this thread's file by its name, which did not read
            continue
        if session.get("id") == agent_id and _parent_of(child) == thread:
            return path, child, session, found
    return None


def _read(
    path: str, load_one: Callable[[Sequence[tuple[int, Any]], str], Loaded]
) -> tuple[PromotedRun | None, list[LoadProblem]]:
    """A sub-agent's rollout (``None`` when the file is refused or holds no one run) and its
    problems, read as any file is (records indented over lines too)."""
    try:
        data = read_file_bytes(path)
    except LoadError as refused:
        return None, list(refused.problems)
    docs, found = jsonl_records(data, path)
    runs, more = load_one(docs, path)
    return (runs[0] if len(runs) == 1 else None), [*found, *more]


def _parent_of(run: PromotedRun) -> str | None:
    session = run.metadata.get("session")
    return parent_thread(session) if isinstance(session, Mapping) else None
