"""Gemini CLI headless ``stream-json`` output as promoted runs (SPEC R34-R36).

``gemini -p PROMPT --output-format stream-json`` prints one JSON object a line, each with a
``type``:

- ``init``: the session starts (``session_id``, ``model``);
- ``message``: a user turn (``role: user``) or the model's text (``role: assistant``), streamed
  in pieces (``delta: true``) that are one turn until a tool call or a user turn comes between;
- ``tool_use``: a call (``tool_name``, ``tool_id``, ``parameters``);
- ``tool_result``: its result (``tool_id``, ``status`` ``success`` or ``error``, ``output``;
  a failure's ``error`` is ``{type, message}``, and ``type`` is kept as ``error_code``; the
  model was sent ``{"error": message}``, so the message is the result served, the ``output``
  the CLI showed kept on ``extra``);
- ``error``: a warning or error the CLI reported (counted, kept under ``otherRecords``);
- ``result``: the session ends (``status``, ``stats``; an ``error`` when it failed).

A file may hold several sessions one after another (a harness appending each run's output to
one transcript): each ``init`` starts a run, and records after a ``result`` and before the next
``init`` (a harness's own prompt line) belong to the next run. Members a harness adds (such as
a ``ts`` beside ``timestamp``) are left alone. Unlike the session files (``gemini_cli``), the
stream carries a shell command's exit code only when the command printed nothing (its output is
then ``Command exited with code: N``, its status ``success``): that is a failure
(``exit_code:N``, R36), as is one killed by a signal having printed nothing (``Command
terminated by signal: S``: ``signal:S``) and one the CLI stopped at its inactivity timeout
(``Command was automatically cancelled because it exceeded the timeout ...``: ``timeout``);
otherwise a shell command's failure is its ``status``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from .._common.toolresult import text_content
from .common import StreamRun, promote_runs, refuse_wrong_args, text_of
from .gemini_cli import TIMED_OUT
from .records import LoadProblem, PromotedRun

__all__ = ["load_gemini_cli_stream", "sniff_gemini_cli_stream"]

_KINDS = frozenset({"init", "message", "tool_use", "tool_result", "error", "result"})
_STATUSES = {"success": False, "error": True}


def sniff_gemini_cli_stream(heads: Sequence[Any]) -> bool:
    """Whether a JSONL file's first records are Gemini CLI ``stream-json`` output: every one an
    object whose ``type`` is one of the stream's, and an ``init`` with a ``session_id`` among
    them (Claude Code's stream starts ``{"type": "system", "subtype": "init"}`` instead)."""
    if not heads or not all(isinstance(r, dict) and _kind(r) in _KINDS for r in heads):
        return False
    return any(r["type"] == "init" and isinstance(r.get("session_id"), str) for r in heads)


def _kind(record: dict[str, Any]) -> str | None:
    kind = record.get("type")
    return kind if isinstance(kind, str) else None


@dataclass(slots=True)
class _Run(StreamRun):
    init: dict[str, Any] = field(default_factory=dict)
    result: dict[str, Any] | None = None
    text: list[str] = field(default_factory=list)  # the model's streamed pieces, not yet said
    shell: set[str] = field(default_factory=set)  # the ids of the shell calls made


def load_gemini_cli_stream(
    docs: Sequence[tuple[int, Any]], file: str
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """A run per session from the stream's records ``(line, record)``."""
    runs: list[_Run] = []
    run = _Run(file)
    problems: list[LoadProblem] = []
    for line, record in docs:
        where = f"line {line}"
        if not isinstance(record, dict):
            problems.append(LoadProblem(file, where, "", "a record must be an object", line))
            continue
        kind = record.get("type")
        if kind == "init" and (run.init or run.result is not None):
            runs.append(run)
            run = _Run(file)
        elif run.result is not None and kind in ("message", "tool_use", "tool_result"):
            runs.append(run)  # after the last session's end: the next session's
            run = _Run(file)
        run.pairer.current_line = line
        if kind != "message":
            _said(run)
        if not isinstance(kind, str):
            run.pairer.problem(where, "type", "missing or not a string")
            continue
        run.tally.add(kind)
        if kind == "init":
            run.init = {k: v for k, v in record.items() if k != "type"}
        elif kind == "message":
            _message(run, record, where)
        elif kind == "tool_use":
            _tool_use(run, record, where)
        elif kind == "tool_result":
            _tool_result(run, record, where)
        elif kind == "result":
            run.result = {k: v for k, v in record.items() if k != "type"}
        else:  # "error", or a kind this module does not know: kept as it is (R4)
            run.tally.unknown.append(record)
    _said(run)
    runs.append(run)
    return promote_runs(
        runs,
        lambda r: bool(r.init) or bool(r.tally.counts),
        partial(_promoted, file=file),
        problems,
    )


def _message(run: _Run, record: dict[str, Any], where: str) -> None:
    role = record.get("role")
    text = text_of(record.get("content"))
    if role == "user":
        _said(run)
        run.talk.user(text)
        run.turn += 1
    elif role == "assistant":
        run.text.append(text)  # a piece (``delta: true``) of the turn's text
    else:
        run.pairer.problem(where, "role", f"unknown role {role!r} (expected user or assistant)")


_SHELL = "run_shell_command"
_EXITED = re.compile(r"Command exited with code: (-?\d+)")
_SIGNALED = re.compile(r"Command terminated by signal: (\S+)")


def _tool_use(run: _Run, record: dict[str, Any], where: str) -> None:
    name, call_id = record.get("tool_name"), record.get("tool_id")
    if not isinstance(name, str) or not name:
        run.pairer.problem(where, "tool_name", "missing or not a string")
        return
    if not isinstance(call_id, str) or not call_id:
        run.pairer.problem(where, "tool_id", "missing or not a string")
        return
    args = record.get("parameters")
    if refuse_wrong_args(args, Mapping, run.pairer, call_id, where, "parameters"):  # R35: an object
        return
    run.pairer.call(call_id, name, args, where=where, field_name="tool_id")
    if name == _SHELL:
        run.shell.add(call_id)
    run.talk.assistant(None, [{"id": call_id, "name": name, "args": args}], turn=f"turn-{run.turn}")
    run.answer = None


def _said(run: _Run) -> None:
    """The model's streamed pieces so far, said as one text of the current turn."""
    if run.text:
        text = "".join(run.text)
        run.text = []
        if text:
            run.talk.assistant(text, turn=f"turn-{run.turn}")
            run.answer = text


def _tool_result(run: _Run, record: dict[str, Any], where: str) -> None:
    call_id, status = record.get("tool_id"), record.get("status")
    if not isinstance(call_id, str) or not call_id:
        run.pairer.problem(where, "tool_id", "missing or not a string")
        return
    if not isinstance(status, str) or status not in _STATUSES:
        run.pairer.problem(
            where, "status", f"unknown status {status!r} (expected success or error)"
        )
        run.pairer.discard(call_id)
        return
    failed = _STATUSES[status]
    output = record.get("output")
    if output is not None and not isinstance(output, str | list | dict):  # R35: no empty success
        run.pairer.problem(where, "output", "not text (nor parts)")
        run.pairer.discard(call_id)
        return
    text = output if isinstance(output, str) else text_of(output) if output is not None else ""
    error = record.get("error")
    code = message = None
    exited = _EXITED.fullmatch(text.strip()) if call_id in run.shell else None
    if not failed and exited is not None and int(exited.group(1)) != 0:
        # a command that printed nothing and exited non-zero: the one exit code the stream
        # carries, in the text the CLI shows for it (its status says success)
        failed, code, message = True, f"exit_code:{exited.group(1)}", text.strip()
    elif not failed and call_id in run.shell:
        signaled = _SIGNALED.fullmatch(text.strip())
        if signaled is not None:  # killed by a signal, having printed nothing (status success)
            failed, code, message = True, f"signal:{signaled.group(1)}", text.strip()
        elif text.startswith(TIMED_OUT):  # stopped at the inactivity timeout (status success)
            failed, code, message = True, "timeout", text
    extra: dict[str, Any] = {"status": status}
    if failed and code is None:
        if isinstance(error, dict):
            code = error.get("type") if isinstance(error.get("type"), str) else None
            message = error.get("message") if isinstance(error.get("message"), str) else None
            if message:  # what the model was told ({"error": message}), not the display text
                extra["output"] = output
                text = message
        message = message or text or "tool call failed"
    run.pairer.result(
        call_id,
        {"content": text_content(text) if text else []},
        failed,
        where=where,
        field_name="status",
        error_code=code,
        error_message=message,
        extra=extra,
    )
    run.talk.tool(call_id, text or (message or ""), failed)
    run.turn += 1


def _promoted(run: _Run, number: int, file: str) -> tuple[PromotedRun, list[LoadProblem]]:
    boundaries = run.pairer.finish()
    session = run.init.get("session_id")
    run_id = session if isinstance(session, str) and session else f"session-{number}"
    metadata: dict[str, Any] = {"init": run.init, **run.tally.to_metadata()}
    outcome = "completed"
    if run.result is not None:
        metadata["result"] = run.result
        if run.result.get("status") not in (None, "success"):
            outcome = "failed"
    promoted = PromotedRun(
        run_id=run_id,
        boundaries=boundaries,
        source=file,
        format="gemini-cli",
        outcome=outcome,
        answer=run.answer,
        task_key=f"session-{run_id[:8]}",
        metadata=metadata,
        conversation=run.talk.build(None, run.init.get("model")),
    )
    return promoted, run.pairer.problems
