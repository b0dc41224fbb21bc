"""Codex CLI headless output (``codex exec --json``) as promoted runs (SPEC R34-R36).

``codex exec --json PROMPT`` prints one JSON event a line, each with a ``type``:

- ``thread.started`` (``thread_id``), ``turn.started``, ``turn.completed`` (``usage``),
  ``turn.failed`` (``error.message``: the run failed), ``error``: counted, the last two kept;
- ``item.started`` / ``item.updated`` / ``item.completed``: an ``item`` ``{id, type, ...}``
  as it begins, changes and ends. The tool items are boundaries, keyed by the item's ``id``:

  - ``command_execution`` (``command``, ``aggregated_output``, ``exit_code``, ``status``):
    failed when its status is ``failed`` or ``declined`` or its exit code is not 0
    (``error_code`` ``exit_code:N`` as for rollouts, or ``declined``);
  - ``mcp_tool_call`` (``server``, ``tool``, ``arguments``, ``result {content,
    structured_content}``, ``error {message}``, ``status``): failed when its status is
    ``failed`` or it has an ``error``; the tool is the MCP tool's name, its server kept as
    ``server``;
  - ``file_change`` (``changes``, ``status``), ``web_search`` (``query``, ``action``) and
    ``collab_tool_call`` (``tool``, ``receiver_thread_ids``, ``prompt``, ``status``): failed
    when their status is ``failed``.

  ``agent_message`` items are the model's text (the last one with no call after it is the
  answer), ``reasoning``, ``plan``, ``todo_list`` and ``error`` items are counted as non-tool
  records. An item that started and never completed is a call never answered (a problem).

Each ``thread.started`` starts a run (a harness may append several runs to one file). Unlike
rollouts (``codex``), the stream names no model-facing tool, so a boundary's tool is the item's
kind (``command_execution``, ``file_change``, ``web_search``) or the tool it names (MCP, collab).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from .._common.toolresult import text_content
from .common import StreamRun, promote_runs
from .records import LoadProblem, PromotedRun

__all__ = ["load_codex_exec", "sniff_codex_exec"]

_EVENTS = frozenset(
    {
        "thread.started",
        "turn.started",
        "turn.completed",
        "turn.failed",
        "item.started",
        "item.updated",
        "item.completed",
        "item.plan.delta",
        "request_user_input",
        "error",
    }
)
_TOOL_ITEMS = frozenset(
    {"command_execution", "mcp_tool_call", "file_change", "web_search", "collab_tool_call"}
)
_STATUSES = frozenset({"in_progress", "completed", "failed", "declined"})
_ARGS = {
    "command_execution": ("command",),
    "file_change": ("changes",),
    "web_search": ("query", "action"),
    "collab_tool_call": ("receiver_thread_ids", "prompt"),
}


def sniff_codex_exec(heads: Sequence[Any]) -> bool:
    """Whether a JSONL file's first records are ``codex exec --json`` output: every one an
    object whose ``type`` is one of the stream's, and a ``thread.started`` with a
    ``thread_id`` or an item event with an ``item`` object among them."""
    if not heads or not all(isinstance(r, dict) and _event(r) in _EVENTS for r in heads):
        return False
    return any(
        isinstance(r.get("thread_id"), str) or isinstance(r.get("item"), dict) for r in heads
    )


def _event(record: dict[str, Any]) -> str | None:
    kind = record.get("type")
    return kind if isinstance(kind, str) else None  # a list or an object is no event type


@dataclass(slots=True)
class _Run(StreamRun):
    thread: str | None = None
    failed: bool = False


def load_codex_exec(
    docs: Sequence[tuple[int, Any]], file: str
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """A run per thread from the stream's records ``(line, record)``."""
    runs: list[_Run] = []
    run = _Run(file)
    problems: list[LoadProblem] = []
    for line, record in docs:
        where = f"line {line}"
        if not isinstance(record, dict):
            problems.append(LoadProblem(file, where, "", "a record must be an object", line))
            continue
        kind = record.get("type")
        if kind == "thread.started" and (run.thread is not None or run.tally.counts):
            runs.append(run)
            run = _Run(file)
        run.pairer.current_line = line
        if not isinstance(kind, str):
            run.pairer.problem(where, "type", "missing or not a string")
            continue
        run.tally.add(kind)
        if kind == "thread.started":
            thread = record.get("thread_id")
            run.thread = thread if isinstance(thread, str) and thread else None
        elif kind in ("item.started", "item.updated", "item.completed"):
            _item(run, record, where, done=kind == "item.completed")
        elif kind == "turn.completed":
            run.turn += 1
        elif kind in ("turn.failed", "error"):
            run.failed = run.failed or kind == "turn.failed"
            run.tally.unknown.append(record)  # kept as it is (R4)
    runs.append(run)
    return promote_runs(
        runs,
        lambda r: r.thread is not None or bool(r.tally.counts),
        partial(_promoted, file=file),
        problems,
    )


def _item(run: _Run, record: dict[str, Any], where: str, *, done: bool) -> None:
    item = record.get("item")
    if not isinstance(item, dict):
        run.pairer.problem(where, "item", "missing or not an object")
        return
    item_id, kind = item.get("id"), item.get("type")
    if not isinstance(item_id, str) or not item_id:
        run.pairer.problem(where, "item.id", "missing or not a string")
        return
    if not isinstance(kind, str):
        run.pairer.problem(where, "item.type", "missing or not a string")
        return
    if kind not in _TOOL_ITEMS:  # counted with its event; the model's text is said
        if done and kind == "agent_message":
            text = item.get("text")
            if isinstance(text, str) and text:
                run.talk.assistant(text, turn=f"turn-{run.turn}")
                run.answer = text
        return
    if not run.pairer.is_open(item_id):  # its first event: the call
        tool, args = _call_of(item, kind)
        if tool is None:
            run.pairer.problem(where, "item.tool", "missing or not a string")
            return
        run.pairer.call(item_id, tool, args, where=where, field_name="item.id")
        run.talk.assistant(
            None, [{"id": item_id, "name": tool, "args": args}], turn=f"turn-{run.turn}"
        )
        run.answer = None
    if done:
        _result(run, item, kind, where)


def _call_of(item: Mapping[str, Any], kind: str) -> tuple[str | None, Any]:
    """The tool (``None``: the item names none) and the arguments of a tool item."""
    if kind == "mcp_tool_call":
        args = item.get("arguments")
    else:
        args = {k: item[k] for k in _ARGS[kind] if k in item}
    if kind not in ("mcp_tool_call", "collab_tool_call"):
        return kind, args
    tool = item.get("tool")
    return (tool if isinstance(tool, str) and tool else None), args


def _result(run: _Run, item: Mapping[str, Any], kind: str, where: str) -> None:
    item_id: str = item["id"]
    status = item.get("status", "completed" if kind == "web_search" else None)
    if not isinstance(status, str) or status not in _STATUSES:
        run.pairer.problem(where, "item.status", f"unknown status {status!r}")
        run.pairer.discard(item_id)
        return
    code = message = None
    failed = status in ("failed", "declined")
    extra: dict[str, Any] = {"status": status}
    if kind == "command_execution":
        output = item.get("aggregated_output")
        text = output if isinstance(output, str) else ""
        exit_code = item.get("exit_code")
        if exit_code is not None and (type(exit_code) is not int):
            run.pairer.problem(where, "item.exit_code", "not an integer")
            run.pairer.discard(item_id)
            return
        if exit_code is not None:
            extra["exitCode"] = exit_code
            if exit_code != 0:
                failed, code = True, f"exit_code:{exit_code}"
        if status == "declined":
            code = "declined"
        response: Any = {"content": text_content(text) if text else []}
    elif kind == "mcp_tool_call":
        extra["server"] = item.get("server")
        result, error = item.get("result"), item.get("error")
        flag = result.get("isError") if isinstance(result, dict) else None
        if flag is not None and not isinstance(flag, bool):  # R35: a failure flag
            run.pairer.problem(where, "item.result.isError", "not true or false")
            run.pairer.discard(item_id)
            return
        response = {"content": []}
        if isinstance(result, dict):
            content = result.get("content")
            response = {"content": content if isinstance(content, list) else []}
            if result.get("structured_content") is not None:
                response["structuredContent"] = result["structured_content"]
        if error is not None:
            failed = True
            if isinstance(error, dict) and isinstance(error.get("message"), str):
                message = error["message"]
        if flag is True:
            failed = True  # the server's own failure, in its result
        text = _text(response)
        if failed and not text and message:
            # an error with no result: the model is told the error's message (Codex sends
            # it as the call's output), which the suite then serves
            response = {"content": text_content(message)}
            text = message
    else:
        response = {k: v for k, v in item.items() if k not in ("id", "type")}
        text = ""
    if failed:
        message = message or text or f"{kind} {status}"
    run.pairer.result(
        item_id,
        response,
        failed,
        where=where,
        field_name="item.status",
        error_code=code,
        error_message=message,
        extra=extra,
    )
    run.talk.tool(item_id, text or (message or ""), failed)


def _text(response: Mapping[str, Any]) -> str:
    parts = response.get("content")
    if not isinstance(parts, list):
        return ""
    return "".join(
        p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)
    )


def _promoted(run: _Run, number: int, file: str) -> tuple[PromotedRun, list[LoadProblem]]:
    boundaries = run.pairer.finish()
    run_id = run.thread or f"thread-{number}"
    promoted = PromotedRun(
        run_id=run_id,
        boundaries=boundaries,
        source=file,
        format="codex",
        outcome="failed" if run.failed else "completed",
        answer=run.answer,
        task_key=f"thread-{run_id[:8]}",
        metadata=run.tally.to_metadata() | ({"threadId": run.thread} if run.thread else {}),
        conversation=run.talk.build(None, None),
    )
    return promoted, run.pairer.problems
