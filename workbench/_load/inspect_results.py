"""Inspect AI results read into boundaries: a call's answer, and the server-side tool uses an
assistant message holds (SPEC R34-R36; the log itself is read by ``inspect_ai``)."""

from __future__ import annotations

import json
import re
from typing import Any

from .common import json_args, json_kind, refuse_result, refuse_wrong_args, text_of
from .conversation import ConversationBuilder
from .pairing import CallPairer

__all__ = ["answer_call", "server_tools", "text_results_since"]


_TEXT_SINCE = (0, 3, 126)
"""The first Inspect release whose ``ContentToolUse.result`` is a required ``str``."""

_RELEASE = re.compile(r"(\d+)\.(\d+)\.(\d+)(?:\.post\d+)?(?P<before>[^+]*)(?:\+.*)?", re.ASCII)


def text_results_since(log: Any) -> str | None:
    """The ``inspect_ai`` version that wrote ``log`` (its ``eval.packages["inspect_ai"]``,
    as Inspect's logs record it) when it is 0.3.126 or later, whose server tool uses'
    ``result`` is always text; else ``None``: an older release, or a log that names no
    release that late (no ``packages``; a ``.devN`` or pre-release of 0.3.126, which may
    predate the change; a fork's ``0.0.0+name``). The log's own ``version`` is that of its
    format (2), not of Inspect."""
    spec = log.get("eval") if isinstance(log, dict) else None
    packages = spec.get("packages") if isinstance(spec, dict) else None
    version = packages.get("inspect_ai") if isinstance(packages, dict) else None
    found = _RELEASE.fullmatch(version) if isinstance(version, str) else None
    if found is None:
        return None
    release = tuple(int(part) for part in found.group(1, 2, 3))
    before_release = bool(found["before"])  # 0.3.127.dev3 is past 0.3.126; 0.3.126rc1 is not
    if release > _TEXT_SINCE or (release == _TEXT_SINCE and not before_release):
        return version
    return None


def server_tools(
    content: list[Any],
    where: str,
    pairer: CallPairer,
    talk: ConversationBuilder,
    called: set[str],
    text_since: str | None = None,
) -> None:
    """An assistant message's server-side tool uses (``ContentToolUse``, ``type: tool_use``:
    a web search, web fetch, code execution or MCP connector call the provider ran, with its
    ``result`` and ``error``): each a call answered at once (R34), failed when its ``error``
    is text, even empty (the error its ``error_code`` and message; an empty one has neither,
    the result's text the message): ``ContentToolUse.error`` is ``str | None``, ``None`` for
    no error, and Inspect writes an empty one only for an OpenAI MCP call that failed with an
    empty ``McpToolExecutionError.content`` (``mcp_error_to_str``), which it sends back to
    OpenAI as an error (``mcp_error_from_str``: only ``None`` is none). An ``error`` that is
    not text or null, or a ``result`` of a type Inspect never wrote (:func:`_written_result`),
    is a problem (R35): in a log written by Inspect 0.3.126 or later (``text_since``, its
    version, from :func:`text_results_since`) anything but text is, and ``arguments`` that are
    not text (``ContentToolUse.arguments`` is ``str`` there too) are. They go into the
    conversation as the turn before the message's own."""
    made: list[dict[str, Any]] = []
    answers: list[tuple[str, str, bool]] = []
    for index, block in enumerate(content):
        if not isinstance(block, dict) or block.get("type") != "tool_use":
            continue
        at = f"{where}.content[{index}]"
        call_id, name, error = block.get("id"), block.get("name"), block.get("error")
        if not isinstance(call_id, str) or not call_id:
            pairer.problem(at, "id", "missing or not a string")
            continue
        if not isinstance(name, str) or not name:
            pairer.problem(at, "name", "missing or not a string")
            continue
        raw_args = block.get("arguments")
        if text_since is not None and refuse_wrong_args(  # R35: since 0.3.126 it is text
            raw_args, str, pairer, call_id, at, "arguments"
        ):
            continue
        args = json_args(raw_args)
        extra = {"blockType": "tool_use"}
        extra.update({k: block[k] for k in ("tool_type", "context") if block.get(k)})
        called.add(call_id)
        pairer.call(call_id, name, args, where=at, field_name="id", extra=extra)
        if error is not None and not isinstance(error, str):
            pairer.problem(at, "error", "not text or null")
            pairer.discard(call_id)
            continue
        result = block.get("result")
        if text_since is not None and not isinstance(result, str):  # R35
            said = "missing" if "result" not in block else json_kind(result)
            should_be = f"{said}, not text: inspect_ai {text_since} wrote this log, and writes text"
            refuse_result(pairer, call_id, at, "result", should_be)
            continue
        if not _written_result(result):  # R35: neither a success nor a failure
            refuse_result(pairer, call_id, at, "result", _RESULT_SHOULD_BE)
            continue
        text = result if isinstance(result, str) else _result_text(result)
        failed = error is not None  # an empty error too: see the docstring
        response = {"content": [{"type": "text", "text": text}] if text else []}
        answer_call(pairer, call_id, response, failed, at, "id", error or None, error or None, text)
        made.append({"id": call_id, "name": name, "args": args, "x-blockType": "tool_use"})
        answers.append((call_id, text, failed))
    if made:
        talk.assistant(None, made, fresh=True)
        for call_id, text, failed in answers:
            talk.tool(call_id, text, failed)


_RESULT_SHOULD_BE = "not text, null, an object or a list of objects"


def _written_result(result: Any) -> bool:
    """Whether a ``ContentToolUse.result`` is of a type Inspect wrote. Since 0.3.126 it is
    ``str`` (required). Inspect 0.3.123 to 0.3.125 declared it ``JsonValue`` and wrote text, a
    provider's blocks or search results as a list of objects, a web search error as an object,
    or null (an MCP call with no output; a log leaves a null out). A number, a boolean, or a
    list holding anything but objects it never wrote."""
    if result is None or isinstance(result, str | dict):
        return True
    return isinstance(result, list) and all(isinstance(item, dict) for item in result)


def _result_text(result: Any) -> str:
    """The text of an older Inspect's object or list result: its text blocks' text (MCP
    content), else the whole of it as JSON (search results, a listing of tools, an error
    object), so no recorded result is served empty."""
    if not result:
        return ""
    return text_of(result) or json.dumps(result, ensure_ascii=False, sort_keys=True)


def answer_call(
    pairer: CallPairer,
    call_id: str,
    response: Any,
    failed: bool,
    where: str,
    field_name: str,
    code: Any,
    note: Any,
    text: str,
) -> None:
    """A call's result: its ``ToolCallError`` ``type`` the error code and ``message`` the
    error text (else the result's text), when it failed."""
    pairer.result(
        call_id,
        response,
        failed,
        where=where,
        field_name=field_name,
        error_code=code if isinstance(code, str) else None,
        error_message=(note if isinstance(note, str) else text or "tool call failed")
        if failed
        else None,
    )
