"""What a Codex call's output says: its text, the exit code it records, and the errors Codex
writes itself (R36; read by ``codex``).

Codex writes a call's output as text, as a JSON object (``{output, metadata: {exit_code}}``,
its structured output, or ``{content, success}``) or as content parts. A shell command's exit
code is in the structured output's metadata, else in text that says ``Process exited with code
N`` or ``Exit code: N``. With no exit code, an output Codex wrote itself for a call it did not
run, or that failed before its command could, is a failure of its own. The exit codes of
``exec_command_end`` events are gathered here too (:func:`exit_events`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .._common.jsonio import json_text
from .codex_typed import TypedEvent
from .common import json_args, json_kind, text_of
from .pairing import CallPairer

__all__ = [
    "BAD_EXIT",
    "MCP_FAILED",
    "codex_error",
    "exit_events",
    "failed_mcp_call",
    "output_text",
    "still_running",
]

_EXIT_TEXT = re.compile(r"(?:Process exited with code|Exit code:)\s*(-?\d+)", re.IGNORECASE)
_RUNNING = re.compile(r"Process running with session ID", re.IGNORECASE)
_UNIFIED = re.compile(
    r"^(?:Chunk ID: [^\n]*\n)?Wall time: [^\n]*\n"
    r"(?:Process exited with code (-?\d+)|(Process running with session ID))[^\n]*\n"
    r"(?:Original token count: [^\n]*\n)?Output:\n",
    re.MULTILINE,
)
"""The head of a unified exec output (``exec_command``, ``write_stdin``): ``Command: <the
command>`` (Codex 0.11x on; any length, and a heredoc spans lines), ``Chunk ID``, ``Wall time``,
the process's state, ``Original token count``, then ``Output:``. Its lines, not a window of the
text, find it: a long command puts them past any window, a command that echoes ``Exit code: 1``
is no exit, and a heredoc holding a ``Wall time`` and an exit line is not its head unless
``Output:`` follows them too (65,946 real outputs of 3,841 sessions are read the same with or
without that last line)."""
_UNIFIED_STARTS = ("Command: ", "Chunk ID: ")


def still_running(text: str) -> bool:
    """Whether an output says its command outlived the call (``Process running with session
    ID N``): the exit code then reaches the agent through a later ``write_stdin`` poll."""
    if text.startswith(_UNIFIED_STARTS):
        head = _UNIFIED.search(text)
        if head is not None:
            return head.group(2) is not None
    return _RUNNING.search(text[:400]) is not None


def output_text(output: Any) -> tuple[str, str, int | None] | None:
    """An output as the model was sent it, the text its tool printed, and the exit code it
    records, if any. Codex before 0.4x wrote a shell's output as JSON text, ``{"output": ...,
    "metadata": {"exit_code": ...}}``, and sent the model that text whole: it is served whole,
    and the printed text (the ``output`` member) is what the failure rules read.

    ``None`` for an output of none of Codex's shapes (text, content items, an object with
    ``content`` or ``output``): missing, ``null``, a number, another object. It was served as
    an empty success, a result the run never had; it is a problem (R35)."""
    if isinstance(output, dict):
        if "content" not in output and "output" not in output:
            return None
        text = text_of(output.get("content")) or text_of(output.get("output"))
        return text, text, None
    if isinstance(output, list):
        text = text_of(output)
        return text, text, None
    if not isinstance(output, str):
        return None
    structured = json_args(output) if output.lstrip().startswith("{") else None
    if isinstance(structured, dict) and "output" in structured:
        meta = structured.get("metadata")
        code = meta.get("exit_code") if isinstance(meta, dict) else None
        text = structured["output"] if isinstance(structured["output"], str) else output
        if isinstance(code, int) and not isinstance(code, bool):
            return output, text, code
        if isinstance(meta, dict) and "exit_code" in meta:  # R35: codex-rs writes an i32
            return output, text, BAD_EXIT
        return output, text, _text_exit(text)
    return output, output, _text_exit(output)


_REJECTED = {
    "patch rejected by user": "rejected:user",
    "exec command rejected by user": "rejected:user",
}


def codex_error(output: Any, text: str) -> str | None:
    """The error code of an output Codex itself wrote for a call it did not run or that
    failed before its command could (``None``: not one): a structured output's ``success:
    false``, the user's refusal (``patch rejected by user``, ``exec command rejected by user``,
    the whole output), a spawn error (``execution error: ...``, e.g. a working directory that
    does not exist), a call to a tool Codex has not (``unsupported call: ...``) or arguments it
    could not read (``failed to parse function arguments: ...``), as codex-rs words them; a
    call the user's interrupt cut off (``aborted by user after N.Ns``: :data:`_ABORTED`); a
    code-mode script that failed (``Script failed``: :func:`_script_error`)."""
    if isinstance(output, dict) and output.get("success") is False:
        return "failed"
    refusal = _REJECTED.get(text.strip())
    if refusal is not None:
        return refusal
    if text.startswith(("aborted by user", "Wall time: ")) and _ABORTED.match(text.strip()):
        return "aborted"
    for start, code in _NOT_RUN:
        if text.startswith(start):
            return code
    if text.startswith("image path `") and _NOT_A_FILE.match(text):
        return "image_not_found"
    if text.startswith("Script failed") and _SCRIPT_FAILED.match(text):
        return _script_error(text)
    return None


_ABORTED = re.compile(r"(?:Wall time: [0-9.]+ seconds\n)?aborted by user(?: after [0-9.]+s)?\Z")
"""A call the user stopped by interrupting the turn (Esc): codex-rs answers it with ``aborted
by user after N.Ns``, or for a shell command ``Wall time: N.N seconds`` and ``aborted by user``
on the next line, the whole output; the command may have run in part, and the agent saw it cut
off (``aborted``, as OpenCode's ``Tool execution aborted`` is)."""
_SCRIPT_FAILED = re.compile(r"Script failed\r?\nWall time [^\n]*(?:\n|\Z)")
"""Code mode's verdict on a script (Codex 0.14x: the model's JavaScript run by ``exec``, a
running one polled by ``wait``): ``Script completed``, ``Script running with cell ID N`` or
``Script failed``, then ``Wall time`` and ``Output:``; a failed one's error follows its output
as ``Script error:`` and the message."""


def _script_error(text: str) -> str:
    """The error code of a code-mode script that failed: its ``Script error:`` message read
    as Codex's own outputs are (a patch that did not apply: ``patch_failed``), the approval
    reviewer's refusal (``rejected``), else ``script_failed``."""
    error = text.partition("\nScript error:")[2].lstrip()
    if error.startswith("apply_patch verification failed: "):
        return "patch_failed"
    if error.startswith("This action was rejected"):
        return "rejected"
    return "script_failed"


_NOT_RUN = (
    ("execution error: ", "execution_error"),
    ("apply_patch verification failed: ", "patch_failed"),
    ("patch rejected: ", "rejected"),
    ("unsupported call: ", "unsupported_call"),
    ("unsupported custom tool call: ", "unsupported_call"),
    ("failed to parse function arguments: ", "invalid_arguments"),
    ("unable to locate image at `", "image_not_found"),
    ("unable to resolve image path `", "image_not_found"),
    ("view_image is not allowed because ", "unsupported_call"),
    ("view_image handler received unsupported payload", "invalid_arguments"),
    ("tool call error: ", "mcp_error"),
    ("error: ", "patch_failed"),
)
"""What Codex answers for a call it could not run, and the error code each is given: its
command could not start, the model called a tool Codex has not, its arguments were no JSON or
lacked a member (codex-rs's router, which logs an error for each), a patch that did not apply
to the files, or one the sandbox or the approval settings refused; ``view_image`` of a path
that is not there (or not a file: :data:`_NOT_A_FILE`), or in a session whose model takes no
images (Codex 0.171's words, read off its binary). Codex of mid-2025, whose rollouts record no
events, words two more: a failed MCP call ``tool call error: ...``, and a patch run through
``shell`` that did not apply ``error: Failed to find expected lines ...`` (an output of its own:
a command's is JSON, ``{"output", "metadata"}``)."""
_NOT_A_FILE = re.compile(r"image path `[^\n]*` is not a file\Z")
"""``view_image`` of a path that is a folder: the whole output, so no command's can match."""


def _text_exit(text: str) -> int | None:
    if text.startswith(_VERDICTS):  # code mode's own verdict decides (codex_error): an exit
        return None  # code in the text is one the script's output printed, not the call's
    if text.startswith(_UNIFIED_STARTS):
        unified = _UNIFIED.search(text)
        if unified is not None:
            return int(unified.group(1)) if unified.group(1) is not None else None
    head = text[:400]
    if "xit" not in head.lower():  # no "exited", no "Exit code": the regex need not run
        return None
    found = _EXIT_TEXT.search(head)
    return int(found.group(1)) if found else None


_VERDICTS = ("Script completed\n", "Script failed\n", "Script running with cell ID ")
"""How code mode's outputs begin (:data:`_SCRIPT_FAILED`)."""

MCP_FAILED = -(1 << 62)
"""The mark an MCP call that failed leaves among the exit codes (no exit code is this)."""
BAD_EXIT = MCP_FAILED + 1
"""The mark of an exit code that is no integer (a problem: its call is not served, R35)."""


_MCP_STATUSES = ("in_progress", "completed", "failed")
"""What codex-rs writes as a ``McpToolCall`` item's ``status`` (``McpToolCallStatus``)."""


def failed_mcp_call(payload: Mapping[str, Any]) -> tuple[str, tuple[str, Any] | None] | None:
    """The call id of an MCP call an event says failed, with ``None``; or with the field and
    value of a failure signal of a type or value codex-rs never writes there (``status``,
    ``isError``: R35, the call is then not served); else ``None``."""
    if payload.get("type") == "item_completed":
        item = payload.get("item")
        if not (isinstance(item, dict) and item.get("type") == "McpToolCall"):
            return None
        call_id, status, result = item.get("id"), item.get("status"), item.get("result")
        flag = result.get("isError") if isinstance(result, dict) else None
        if not isinstance(call_id, str):
            return None
        if not (isinstance(status, str) and status in _MCP_STATUSES):
            return call_id, ("payload.item.status", status)
        if flag is not None and not isinstance(flag, bool):
            return call_id, ("payload.item.result.isError", flag)
        return (call_id, None) if status == "failed" or flag is True else None
    result = payload.get("result")
    ok = result.get("Ok") if isinstance(result, dict) else None
    flag = ok.get("isError") if isinstance(ok, dict) else None
    call_id = payload.get("call_id")
    if not isinstance(call_id, str) or not isinstance(result, dict):
        return None
    if flag is not None and not isinstance(flag, bool):
        return call_id, ("payload.result.Ok.isError", flag)
    return (call_id, None) if "Err" in result or flag is True else None


def exit_events(docs: Sequence[tuple[int, Any]], pairer: CallPairer) -> dict[str, list[int]]:
    """The exit codes of ``exec_command_end`` events by call id, in file order; an MCP call that
    Codex's events say failed has ``MCP_FAILED`` among them (its result's ``isError``, or an
    error the server or the connection gave: ``item_completed`` of a ``McpToolCall`` whose
    ``status`` is ``failed``, an ``mcp_tool_call_end`` whose ``result`` is an ``Err`` or says
    ``isError``). An exit code that is no integer (codex-rs writes an ``i32``) is a problem at
    its line, and its call has ``BAD_EXIT`` there: it is not served (R35: never a success)."""
    codes: dict[str, list[int]] = {}
    typed_event = TypedEvent
    for line, record in docs:
        if type(record) is typed_event:
            event = record.payload
            codes.setdefault(event.call_id, []).append(event.exit_code)
            continue
        if type(record) is not dict or record.get("type") != "event_msg":
            continue
        payload = record.get("payload")
        if type(payload) is not dict:
            continue
        kind = payload.get("type")
        if kind == "exec_command_end":
            call_id = payload.get("call_id")
            code = payload.get("exit_code")
            if not isinstance(call_id, str):
                continue
            if isinstance(code, int) and not isinstance(code, bool):
                codes.setdefault(call_id, []).append(code)
            elif "exit_code" in payload:  # R35: a failure signal of a type never written
                said = f"{json_kind(code)}, not an integer: call {call_id!r} is not served"
                pairer.problem(f"line {line}", "payload.exit_code", said)
                codes.setdefault(call_id, []).append(BAD_EXIT)
        elif kind in ("item_completed", "mcp_tool_call_end"):
            failed = failed_mcp_call(payload)
            if failed is None:
                continue
            call_id, wrong = failed
            if wrong is not None:  # R35: a failure signal codex-rs never writes
                field, value = wrong
                said = f"{json_text(value)[:40]}, a value Codex never writes: call {call_id!r}"
                pairer.problem(f"line {line}", field, f"{said} is not served")
            codes.setdefault(call_id, []).append(MCP_FAILED if wrong is None else BAD_EXIT)
    return codes
