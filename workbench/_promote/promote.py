"""Promotion: recorded runs become an eval suite with recorded fixtures (SPEC R30, R31).

Each promoted run becomes one task: one fixture entry per boundary in call order (``args`` exact,
``isError`` as recorded), a script for the scripted agent that makes the recorded calls, a golden
expectation on the recorded outcome and an expected trajectory of the recorded calls. A recorded
failure is promoted as an ``isError: true`` entry with its payload as MCP text content: never
dropped, never turned into a success.

Recorded MCP payloads are kept as recorded (R42): a ``CallToolResult`` body keeps every member in
its order (``isError``, ``_meta`` and unknown members included), a JSON-RPC error reply keeps its
error object (:func:`~workbench._common.toolresult.jsonrpc_error_response`), and a tool catalogue
recorded by ``workbench record-mcp`` (its ``workbench.mcp-tools-listed`` events) becomes the
task's ``x-mcpTools``, the tools the MCP bridge lists.

Longer than 400 lines because a task is built in one pass over a run (entries, script, expected
trajectory, conversation, catalogue) and each part depends on how the others were built (the
conversation's tool messages carry what the fixture entries serve): split, the pass would be
repeated or its state passed around.
"""

from __future__ import annotations

import bisect
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from .._common.text import plural
from .._common.toolresult import jsonrpc_error_response, result_text, text_content
from .._load.records import LoadResult, PromotedRun, ToolBoundary
from .._replay.policies import policy_problems
from .._suite.model import Suite
from .redact import Redaction, redact

if TYPE_CHECKING:
    from .selftest import SelfTestReport

__all__ = ["DEFAULT_POLICY", "MCP_TOOLS_LISTED", "Promotion", "mcp_catalogue", "promote"]

MCP_TOOLS_LISTED = "workbench.mcp-tools-listed"
"""The event ``workbench record-mcp`` writes per ``tools/list`` answer: ``{"cursor"?, "result"}``
with the server's result as it was sent."""

DEFAULT_POLICY: dict[str, Any] = {"retry": 1}
"""The script policy of a step whose recorded call succeeded, unless the author picks another."""

_SUITE_ID_RE = re.compile(r"^[a-z0-9.-]+\.evals\.[a-z0-9-]+$")
_TASK_ID_RE = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_VERSION_RE = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+$")


@dataclass(frozen=True, slots=True)
class Promotion:
    """The result of promoting runs: the suite and what promotion did."""

    suite: Suite
    """The promoted suite."""
    boundary_count: int
    """How many tool boundaries became fixture entries."""
    error_count: int
    """How many of them were recorded failures (promoted as ``isError: true``)."""
    redactions: tuple[Redaction, ...] = ()
    """What was redacted (R31), by JSON path in the suite."""
    self_test: SelfTestReport | None = None
    """The self-test (R30), when it was run."""
    task_ids: tuple[str, ...] = field(default_factory=tuple)
    """The task ids, one per promoted run, in order."""
    empty_tasks: tuple[str, ...] = ()
    """The tasks whose run recorded no tool boundary (valid, but only the answer is graded)."""

    def summary_lines(self) -> list[str]:
        """A short human summary (what the CLI prints)."""
        lines = [
            f"promoted {plural(len(self.task_ids), 'task')}: "
            f"{plural(self.boundary_count, 'tool boundary', 'tool boundaries')}, "
            f"{plural(self.error_count, 'recorded error')} as isError: true",
        ]
        if self.redactions:
            lines.append(f"redacted {plural(len(self.redactions), 'value')}:")
            lines.extend(f"  {r.path}: {r.reason}" for r in self.redactions)
        else:
            lines.append("redacted nothing")
        if self.empty_tasks:
            lines.append(
                f"note: {plural(len(self.empty_tasks), 'task')} recorded no tool call (nothing to "
                f"replay but the answer): {', '.join(self.empty_tasks)}"
            )
        if self.self_test is not None:
            lines.extend(self.self_test.summary_lines())
        return lines


def _slug(text: str, fallback: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return slug if slug and slug[0].isalnum() else (fallback + ("-" + slug if slug else ""))


def default_suite_id(source: str) -> str:
    """``local.workbench.evals.<file stem>``: a valid ``suiteId`` for a promoted file."""
    stem = Path(source).name.split(".")[0] if source else "promoted"
    return f"local.workbench.evals.{_slug(stem, 'run')}"


def fixture_response(boundary: ToolBoundary) -> dict[str, Any]:
    """The recorded result as an MCP ``CallToolResult`` body (text content, R5).

    A body that already is one is kept whole, members in their order (R42); a JSON-RPC error
    reply keeps its error object (:func:`jsonrpc_error`).
    """
    response = boundary.response
    error = jsonrpc_error(boundary)
    if error is not None:
        return jsonrpc_error_response(error)
    if isinstance(response, Mapping) and isinstance(response.get("content"), list):
        body: dict[str, Any] = dict(response)
        body["content"] = _mcp_blocks(response["content"])
        return body
    if isinstance(response, str):
        return {"content": text_content(response)}
    if isinstance(response, list) and all(isinstance(b, Mapping) and "type" in b for b in response):
        # OpenAI content parts: keep them as the content blocks they are.
        return {"content": _mcp_blocks(response)}
    if response is None:
        text = boundary.error_message or "" if boundary.is_error else ""
        return {"content": text_content(text) if text else []}
    body = {"content": text_content(json.dumps(response, ensure_ascii=False, sort_keys=True))}
    if isinstance(response, Mapping) and not boundary.is_error:
        body["structuredContent"] = dict(response)
    return body


def jsonrpc_error(boundary: ToolBoundary) -> Mapping[str, Any] | None:
    """The JSON-RPC error object of a boundary recorded as a JSON-RPC error reply, or ``None``.

    Such a boundary has an ``error_code`` of ``jsonrpc.<code>``. Its response is either the
    error object itself, or the OpenWOP error ``record-mcp`` writes, which holds it in
    ``details.jsonrpcError`` (older recordings: ``details.jsonrpcCode`` and ``details.data``).
    """
    code = boundary.error_code
    response = boundary.response
    if not boundary.is_error or not isinstance(code, str) or not code.startswith("jsonrpc."):
        return None
    if not isinstance(response, Mapping):
        return None
    details = response.get("details")
    if isinstance(details, Mapping):
        raw = details.get("jsonrpcError")
        if isinstance(raw, Mapping):
            return raw
        if type(details.get("jsonrpcCode")) is int:
            rebuilt: dict[str, Any] = {
                "code": details["jsonrpcCode"],
                "message": str(response.get("message", "")),
            }
            if "data" in details:
                rebuilt["data"] = details["data"]
            return rebuilt
    if type(response.get("code")) is int and isinstance(response.get("message"), str):
        return response
    return None


def mcp_catalogue(events: Sequence[Any]) -> list[Any] | None:
    """The tools of the last complete ``tools/list`` a recording holds, or ``None``.

    Reads the :data:`MCP_TOOLS_LISTED` events in order: one without a ``cursor`` starts a
    listing, each later page (with a ``cursor``) adds its tools to it.
    """
    listing: list[Any] | None = None
    for event in events:
        if not isinstance(event, Mapping) or event.get("type") != MCP_TOOLS_LISTED:
            continue
        payload = event.get("payload")
        result = payload.get("result") if isinstance(payload, Mapping) else None
        tools = result.get("tools") if isinstance(result, Mapping) else None
        if not isinstance(tools, list) or not isinstance(payload, Mapping):
            continue
        if payload.get("cursor") is None or listing is None:
            listing = []
        listing.extend(tools)
    return listing


def _mcp_blocks(blocks: Sequence[Any]) -> list[Any]:
    """Content blocks with OpenAI's ``input_text`` / ``output_text`` parts as MCP ``text``.

    The served error text is built from ``text`` blocks only (R17); a recorded failure whose
    text sat in an ``input_text`` part would otherwise replay with none of it.
    """
    if not any(
        isinstance(block, Mapping) and block.get("type") in ("input_text", "output_text")
        for block in blocks
    ):
        return list(blocks)
    out: list[Any] = []
    for block in blocks:
        if isinstance(block, Mapping) and block.get("type") in ("input_text", "output_text"):
            block = {**block, "type": "text"}
        out.append(block)
    return out


def _task_for(
    run: PromotedRun,
    task_id: str,
    policy: Any,
    trajectory_match: str,
) -> dict[str, Any]:
    entries: list[dict[str, Any]] = []
    script: list[dict[str, Any]] = []
    expected_calls: list[dict[str, Any]] = []
    for boundary in run.boundaries:
        entry: dict[str, Any] = {"tool": boundary.tool}
        step: dict[str, Any] = {"tool": boundary.tool}
        call: dict[str, Any] = {"tool": boundary.tool}
        if boundary.args is not None:
            entry["args"] = boundary.args
            step["args"] = boundary.args
            call["args"] = boundary.args
        if boundary.is_error:
            entry["isError"] = True
            step["onError"] = "skip"
        else:
            step["onError"] = policy
        entry["response"] = fixture_response(boundary)
        entries.append(entry)
        script.append(step)
        expected_calls.append(call)
    task_input: dict[str, Any] = {"script": script}
    if run.answer is not None:
        task_input["answer"] = run.answer
    if run.conversation is not None:
        task_input["conversation"] = conversation_input(run)
    expected_output: dict[str, Any] = {"outcome": run.outcome, "answer": run.answer}
    task: dict[str, Any] = {
        "taskId": task_id,
        "input": task_input,
        "expected": {
            "kind": "golden",
            "match": {"strategy": "json-match", "value": expected_output},
        },
        "fixtures": {"toolResponses": entries, "onMiss": "fail"},
        "trajectory": {"expected": expected_calls, "match": trajectory_match},
    }
    other = run.metadata.get("otherEvents") if isinstance(run.metadata, Mapping) else None
    catalogue = mcp_catalogue(other) if isinstance(other, list) else None
    if catalogue is not None:
        task["x-mcpTools"] = catalogue
    return task


def conversation_input(run: PromotedRun) -> dict[str, Any]:
    """The run's conversation as the task input's ``conversation`` member (R40).

    Each tool message that answers a boundary carries what that boundary's fixture entry
    serves: its text by R17's rule and its ``isError``. So the recorded conversation and an
    unmodified replay of it are equal message for message, and an LLM agent serves every
    recorded turn as a model fixture until a fault changes a result.

    A conversation's calls are its boundaries in order, less the boundaries the model did not
    make in that conversation (a sub-agent's, a user simulator's, R34): each call takes the
    next boundary of its id at or after the last one taken, and a call with no such boundary
    (a terminal ``submit`` that is no boundary) takes none.
    """
    assert run.conversation is not None
    body = run.conversation.to_json()
    boundaries = run.boundaries
    positions: dict[str, list[int]] = {}
    for position, boundary in enumerate(boundaries):
        positions.setdefault(boundary.call_id, []).append(position)
    pointer = 0
    open_calls: dict[str, list[ToolBoundary]] = {}
    messages: list[dict[str, Any]] = []
    for message in body["messages"]:
        if message.get("role") == "assistant":
            for call in message.get("toolCalls", ()):
                found = positions.get(call["id"], [])
                at = bisect.bisect_left(found, pointer)
                if at < len(found):
                    open_calls.setdefault(call["id"], []).append(boundaries[found[at]])
                    pointer = found[at] + 1
        elif message.get("role") == "tool":
            waiting = open_calls.get(message.get("toolCallId", ""))
            if waiting:
                boundary = waiting.pop(0)
                served = fixture_response(boundary)
                message = {
                    **message,
                    "content": result_text(served["content"]),
                    "isError": boundary.is_error,
                }
        messages.append(message)
    body["messages"] = messages
    return body


def _runs_of(source: LoadResult | PromotedRun | Sequence[PromotedRun]) -> list[PromotedRun]:
    if isinstance(source, LoadResult):
        return list(source.runs)
    if isinstance(source, PromotedRun):
        return [source]
    return list(source)


def fixtures_digest(suite: Mapping[str, Any]) -> str:
    """SHA-256 of every task's ``taskId`` and fixture entries (sorted-key JSON), as promotion
    records it on ``x-promotion.fixturesDigest``: a sweep compares it with the suite it is given
    to say whether its baseline is the recording or an edit of it (R38)."""
    import hashlib

    import orjson

    tasks = suite.get("tasks")
    body = [
        [t.get("taskId"), t.get("fixtures", {}).get("toolResponses")]
        for t in (tasks if isinstance(tasks, list) else [])
        if isinstance(t, Mapping) and isinstance(t.get("fixtures", {}), Mapping)
    ]
    try:
        text = orjson.dumps(body, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        text = repr(body).encode()
    return hashlib.sha256(text).hexdigest()


def promote(
    source: LoadResult | PromotedRun | Sequence[PromotedRun],
    *,
    suite_id: str | None = None,
    version: str = "1.0.0",
    policy: Any = None,
    trajectory_match: Literal["superset", "strict"] = "superset",
    redact_secrets: bool = True,
    self_test: bool = True,
    allow_empty: bool = False,
) -> Promotion:
    """Promote recorded runs into one suite, a task per run (R30).

    ``policy`` is the script policy of steps whose recorded call succeeded (default
    ``{"retry": 1}``); steps whose recorded call failed get ``"skip"``, as the recording shows the
    agent went on. ``trajectory_match`` is ``superset`` (every recorded call must still be made;
    retries may add calls) or ``strict``. Secrets are redacted and reported (R31). With
    ``self_test`` the unmodified suite is replayed with the scripted agent and every boundary
    where the recorded call sequence is not reproduced is reported. Runs that record no tool
    call at all would make an empty suite: that is refused unless ``allow_empty`` (R35).
    """
    runs = _runs_of(source)
    if not runs:
        raise ValueError("nothing to promote: no runs")
    if not allow_empty and not any(run.boundaries for run in runs):
        where = ", ".join(sorted({os.path.basename(r.source) for r in runs if r.source}))
        raise ValueError(
            f"nothing to promote: the {len(runs)} run(s){' of ' + where if where else ''} "
            "record no tool call, so the suite would be empty; pass allow_empty=True "
            "(--allow-empty) to write one that grades only the answer"
        )
    step_policy = DEFAULT_POLICY if policy is None else policy
    problems = policy_problems(step_policy, "policy")
    if problems:
        raise ValueError(f"the script policy is not one the scripted agent runs: {problems[0]}")
    if not isinstance(version, str) or not _VERSION_RE.match(version):
        raise ValueError(
            f"version {version!r} is not a SemVer version (MAJOR.MINOR.PATCH, such as 1.0.0)"
        )
    sources = sorted({run.source for run in runs if run.source})
    if suite_id is None:  # (an empty id given is refused below, not replaced)
        suite_id = default_suite_id(sources[0] if sources else "")
    if not isinstance(suite_id, str) or not _SUITE_ID_RE.match(suite_id):
        raise ValueError(
            f"suite id {suite_id!r} is not of the form '<scope>.<org>.evals.<name>' "
            "(lowercase letters, digits, dots and hyphens)"
        )
    tasks: list[dict[str, Any]] = []
    task_ids: list[str] = []
    seen: set[str] = set()
    for number, run in enumerate(runs):
        base = _slug(run.task_key or run.run_id, "run")
        if not _TASK_ID_RE.match(base):
            base = f"run-{number}"
        task_id = base
        suffix = 2
        while task_id in seen:
            task_id = f"{base}-{suffix}"
            suffix += 1
        seen.add(task_id)
        task_ids.append(task_id)
        tasks.append(_task_for(run, task_id, step_policy, trajectory_match))
    redactions: list[Redaction] = []
    if redact_secrets:
        for index, task in enumerate(tasks):
            tasks[index], found = _redact_task(task, index)
            redactions.extend(found)
    first = runs[0]
    rule = first.error_rule.to_json() if first.error_rule is not None else None
    promotion_info: dict[str, Any] = {
        "source": ", ".join(os.path.basename(s) for s in sources),
        "format": first.format,
        "errorRule": rule,
        "policy": step_policy,
        "trajectoryMatch": trajectory_match,
        "redactions": [r.to_json() for r in redactions],
    }
    data: dict[str, Any] = {
        "suiteId": suite_id,
        "version": version,
        "modes": ["golden"],
        "tasks": tasks,
        "x-promotion": promotion_info,
    }
    promotion_info["fixturesDigest"] = fixtures_digest(data)
    suite = Suite(data)
    report: SelfTestReport | None = None
    if self_test:
        from .selftest import run_self_test

        report = run_self_test(suite)
        promotion_info["selfTest"] = report.to_json()
    boundary_count = sum(len(run) for run in runs)
    error_count = sum(run.error_count for run in runs)
    return Promotion(
        suite=suite,
        boundary_count=boundary_count,
        error_count=error_count,
        redactions=tuple(redactions),
        self_test=report,
        task_ids=tuple(task_ids),
        empty_tasks=tuple(t for t, run in zip(task_ids, runs, strict=True) if not run.boundaries),
    )


_COPIED_IN_CONVERSATION = re.compile(
    r"\.input\.conversation\.messages\[(\d+)\]\.(toolCalls|content)"
)


def _redact_task(task: dict[str, Any], index: int) -> tuple[dict[str, Any], list[Redaction]]:
    """Redact a task; report paths in the fixtures (the script and trajectory are copies, and
    so are the conversation's tool calls and tool results) and the rest of the conversation."""
    prefix = f"tasks[{index}]"
    redacted, found = redact(task, prefix)
    messages = task.get("input", {}).get("conversation", {}).get("messages", [])

    def copied(path: str) -> bool:
        if path.startswith((f"{prefix}.input.script", f"{prefix}.trajectory")):
            return True
        match = _COPIED_IN_CONVERSATION.match(path, len(prefix))
        if match is None:
            return False
        role = messages[int(match.group(1))].get("role")
        return match.group(2) == "toolCalls" or role == "tool"

    return redacted, [r for r in found if not copied(r.path)]
