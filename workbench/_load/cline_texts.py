"""Cline's and Roo Code's wordings of tool results, read by ``cline`` (SPEC R36).

The texts are those of their source: Cline's ``formatResponse`` (``src/core/prompts/
responses.ts``), ``ToolResultUtils`` and ``ToolExecutor``; Roo Code's ``presentAssistantMessage``,
``responses.ts`` and ``ExecuteCommandTool``. A result's header names its tool; a few answers
name the call they did not run; the rest say a failure by their opening words. Older Cline and
Roo write calls as XML in the assistant's text, read here as their parsers read it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

__all__ = ["HEADER", "STOPPED", "STOP_OPENINGS", "Said", "failure", "xml_calls", "xml_params"]

HEADER = re.compile(r"\[(?!new_task completed\])([a-z][a-z0-9_]*)(?:\]|[ ][^\x00]*?\]) Result:")
"""A result's header, ``[tool]``, ``[tool for '...']``; not Roo's report of a subtask's end."""
STOPPED = re.compile(
    r"(?:Tool \[([\w.:-]+)\] was not executed because a tool has already been used"
    r"|(?:Skipping tool|Tool) \[([\w.:-]+)[\s\S]*? (?:due to|was interrupted and not executed)"
    r" (?:due to )?user rejecting a previous tool"
    r"|(?:Skipping tool|Tool was interrupted and not executed) due to user rejecting a previous"
    r" tool\. \[([\w.:-]+))"
)
"""Cline's and Roo's answer to a call they did not run (one tool a message, a rejection)."""
STOP_OPENINGS = ("Tool", "Skipping tool")
"""How every text ``STOPPED`` matches opens (tested first: most texts open otherwise)."""
_EXITED = re.compile(
    r"\A(?:Command failed with exit code (-?\d+)\."
    r"|Command executed in terminal [^\n]*(?:\n[^\n]*)??(?:Exit code: (-?\d+)|signal (\w+)))"
)
"""A command's end: ``Command failed with exit code N.``, Roo's ``Exit code: N`` or signal."""
_FAILED = (
    ("The tool execution failed with the following error", "tool_error"),
    ("The user denied this operation", "denied"),
    ("Command execution blocked by CLINE_COMMAND_PERMISSIONS", "permission_denied"),
    ("Missing value for required parameter", "missing_parameter"),
    ("Invalid JSON argument used with", "invalid_arguments"),
    (("Task was interrupted before", "Tool execution was interrupted"), "interrupted"),
)
Said = tuple[str | None, str | None]
_OPENINGS = (
    *(o for opening, _ in _FAILED for o in ((opening,) if isinstance(opening, str) else opening)),
    "Access to ",
    "Command ",
    "{",
)
"""How every failure :func:`failure` reads opens (tested first, in C: most results succeed)."""


def failure(text: str) -> Said:
    """Cline's or Roo's failure in a result's text: ``(error code, message)``, or two ``None``."""
    said = text.lstrip()
    if not said.startswith(_OPENINGS):
        return None, None
    for opening, code in _FAILED:
        if said.startswith(opening):
            inner = re.search(r"<error>\n?(.*?)\n?</error>", said, re.S)
            return code, inner.group(1) if inner and code == "tool_error" else said
    if said.startswith("Access to ") and re.match(
        r"[^\n]* is blocked by the \.(?:cline|roo)ignore", said
    ):
        return "ignored", said
    exited = _EXITED.match(said)
    if exited is not None:
        number = exited.group(1) or exited.group(2)
        if number is not None and int(number) != 0:
            return f"exit_code:{int(number)}", said
        if exited.group(3):
            return f"signal:{exited.group(3)}", said
    if said.startswith("{") and said.endswith("}"):
        try:
            value = json.loads(said)
        except ValueError:
            return None, None
        status = value.get("status") if isinstance(value, dict) else None
        if status in ("error", "denied"):
            detail = value.get("error") or value.get("message") or value.get("feedback")
            return status if status == "denied" else "tool_error", str(detail or said)
    return None, None


_XML_OPEN = re.compile(
    r"<(execute_command|read_file|write_to_file|replace_in_file|search_files|list_files"
    r"|list_code_definition_names|browser_action|use_mcp_tool|access_mcp_resource"
    r"|ask_followup_question|plan_mode_respond|act_mode_respond|attempt_completion|new_task"
    r"|load_mcp_documentation|web_fetch|web_search|condense|summarize_task|report_bug|new_rule"
    r"|apply_patch|apply_diff|insert_content|search_and_replace|codebase_search|switch_mode"
    r"|fetch_instructions|update_todo_list|run_slash_command|generate_image|edit_file)>"
)
"""A call in XML opens with a tag of a tool Cline's or Roo's parser knows (another is text)."""
_XML_PARAM = re.compile(r"<([a-z_][a-z0-9_]*)>")
_WHOLE = frozenset({"content", "diff"})
"""Parameters read to their last closing tag (content may hold it), one newline off each end."""


def xml_calls(text: str) -> Iterator[tuple[str, str]]:
    """Each XML call, a known tool's tag to its closing tag, as Cline's parser finds them (in
    linear time): a tag never closed takes the rest of the text (the stream ended in it, and
    Cline ran it with what it had)."""
    pos = 0
    while (opened := _XML_OPEN.search(text, pos)) is not None:
        name, pos = opened.group(1), opened.end()
        close = f"</{name}>"
        end = text.find(close, pos)
        yield name, text[pos : end if end >= 0 else None]
        pos = end + len(close) if end >= 0 else len(text)


def xml_params(body: str) -> dict[str, str]:
    """An XML call's parameters as Cline reads them: trimmed (``content``, ``diff``: see
    ``_WHOLE``), one never closed the rest of the body."""
    params: dict[str, str] = {}
    pos = 0
    while (opened := _XML_PARAM.search(body, pos)) is not None:
        name, start = opened.group(1), opened.end()
        close = f"</{name}>"
        end = body.rfind(close) if name in _WHOLE else body.find(close, start)
        value = body[start:] if end < start else body[start:end]
        whole = name in _WHOLE and end >= start
        params[name] = value.removeprefix("\n").removesuffix("\n") if whole else value.strip()
        if end < start:
            break
        pos = end + len(close)
    return params
