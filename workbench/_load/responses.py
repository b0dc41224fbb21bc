"""OpenAI Responses API items as promoted runs (SPEC R1: one more format, one module).

A Responses-API conversation is a list of items: ``message`` items (``role``, ``content`` parts),
``function_call`` items (``call_id``, ``name``, ``arguments`` as a JSON string) and
``function_call_output`` items (``call_id``, ``output``). The file may hold that list, an object
with ``input`` and/or ``output`` lists (a request with its response, or a stored response), or
a list of such objects (a run each). A ``function_call_output`` pairs with the open
``function_call`` of its ``call_id`` (R2). There is no error flag on an output, so the caller's
:class:`~workbench.ErrorRule` decides which are failures (R3), as for chat messages.

An ``mcp_call`` item is a call and its result in one item: a boundary, failed when its
``error`` is set. Other items (``reasoning``, hosted tools such as ``web_search_call``) are kept
opaquely on the run's metadata under ``otherItems`` (R4) and counted there, never dropped.

The items are also kept as the run's :class:`~workbench.Conversation` (R40): ``message`` items by
role, each ``function_call`` (or ``mcp_call``) joining the assistant turn before it, each output
a tool message; the record's ``instructions`` as the system message and its ``tools`` and
``model`` when it has them (a stored response does).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from .._common.toolresult import result_text, text_content
from .conversation import ConversationBuilder, recorded_tools
from .pairing import CallPairer
from .records import ErrorRule, LoadProblem, PromotedRun

__all__ = ["is_responses_data", "load_openai_responses", "responses_records"]

_ITEM_TYPES = frozenset({"function_call", "function_call_output", "mcp_call"})
_RECORD_KEYS = ("input", "output")


def _is_item(value: Any) -> bool:
    return isinstance(value, Mapping) and value.get("type") in _ITEM_TYPES


def _items_of(record: Mapping[str, Any]) -> list[Any] | None:
    found = [record[key] for key in _RECORD_KEYS if isinstance(record.get(key), list)]
    if not found:
        return None
    return [item for items in found for item in items]


def responses_records(data: Any) -> list[tuple[str, Mapping[str, Any], list[Any]]] | None:
    """The runs of Responses-API data as ``(place, record, items)``, or ``None``."""
    if isinstance(data, Mapping):
        items = _items_of(data)
        return [("(root)", data, items)] if items is not None else None
    if not isinstance(data, list):
        return None
    if data and all(isinstance(r, Mapping) and _items_of(r) is not None for r in data):
        return [(f"record {i}", r, _items_of(r) or []) for i, r in enumerate(data)]
    if all(isinstance(item, Mapping) and ("type" in item or "role" in item) for item in data):
        return [("(root)", {}, data)]
    return None


def is_responses_data(data: Any) -> bool:
    """Whether decoded JSON holds Responses-API items (at least one call, output or MCP call)."""
    records = responses_records(data)
    return records is not None and any(_is_item(item) for _, _, items in records for item in items)


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError:
            return raw
    return raw


def _parts_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return result_text([_text_part(part) for part in content])
    return ""


def _text_part(part: Any) -> Any:
    if isinstance(part, Mapping) and part.get("type") in ("input_text", "output_text"):
        return {"type": "text", "text": part.get("text")}
    return part


def _record_key(record: Mapping[str, Any], number: int, total: int) -> str:
    for key in ("task_id", "taskId", "id", "run_id", "runId"):
        value = record.get(key)
        if isinstance(value, str | int) and not isinstance(value, bool):
            return f"run-{value}"
    return f"run-{number}" if total > 1 else "run"


def load_openai_responses(
    data: Any, file: str, error_rule: ErrorRule, *, lines: Sequence[int] | None = None
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """Promoted runs from OpenAI Responses-API items.

    ``lines``: the file line of each record, or of each item of a one-run file (JSONL).
    """
    records = responses_records(data)
    if records is None:
        return [], [LoadProblem(file, "(root)", "", "not a list of OpenAI Responses API items")]
    runs: list[PromotedRun] = []
    problems: list[LoadProblem] = []
    total = len(records)
    for number, (place, record, items) in enumerate(records):
        pairer = CallPairer(file)
        talk = ConversationBuilder()
        if isinstance(record.get("instructions"), str) and record["instructions"]:
            talk.system(record["instructions"])
        answer: Any = None
        other: list[Any] = []
        for i_index, item in enumerate(items):
            where = f"item {i_index}" if place == "(root)" else f"{place}, item {i_index}"
            if lines is not None:
                at = i_index if place == "(root)" else number
                if at < len(lines):
                    pairer.current_line = lines[at]
                    where = (
                        f"line {lines[at]}" if place == "(root)" else f"line {lines[at]}, {where}"
                    )
            if not isinstance(item, Mapping):
                pairer.problem(where, "", "an item must be an object")
                continue
            kind = item.get("type")
            if kind == "function_call":
                _call(item, pairer, where, talk)
                answer = None  # the answer is what the agent says after its last call
            elif kind == "function_call_output":
                _output(item, pairer, where, error_rule, talk)
            elif kind == "mcp_call":
                _mcp_call(item, pairer, where, i_index, talk)
                answer = None
            elif (kind == "message" or kind is None) and item.get("role") == "assistant":
                text = _parts_text(item.get("content"))
                talk.assistant(text or None)
                if text:
                    answer = text
            elif kind in (None, "message") and item.get("role") in ("system", "developer"):
                talk.system(_parts_text(item.get("content")))
            elif kind in (None, "message") and item.get("role") == "user":
                talk.user(_parts_text(item.get("content")))
            elif kind not in (None, "message"):
                other.append(item)
        boundaries = pairer.finish()
        problems.extend(pairer.problems)
        key = _record_key(record, number, total)
        metadata = {k: v for k, v in record.items() if k not in _RECORD_KEYS}
        if other:
            metadata["otherItems"] = other
        runs.append(
            PromotedRun(
                run_id=key,
                boundaries=boundaries,
                source=file,
                format="openai-responses",
                error_rule=error_rule,
                outcome="completed",
                answer=answer,
                task_key=key,
                metadata=metadata,
                conversation=talk.build(recorded_tools(record.get("tools")), record.get("model")),
            )
        )
    return runs, problems


def _call(
    item: Mapping[str, Any], pairer: CallPairer, where: str, talk: ConversationBuilder
) -> None:
    call_id = item.get("call_id")
    name = item.get("name")
    if not isinstance(call_id, str) or not call_id:
        pairer.problem(where, "call_id", "missing or not a string")
        return
    if not isinstance(name, str) or not name:
        pairer.problem(where, "name", "missing or not a string")
        return
    extra = {k: v for k, v in item.items() if k not in ("type", "call_id", "name", "arguments")}
    args = _arguments(item.get("arguments"))
    pairer.call(call_id, name, args, where=where, field_name="call_id", extra=extra or None)
    talk.add_call({"id": call_id, "name": name, "args": args})


def _output(
    item: Mapping[str, Any],
    pairer: CallPairer,
    where: str,
    rule: ErrorRule,
    talk: ConversationBuilder,
) -> None:
    call_id = item.get("call_id")
    if not isinstance(call_id, str) or not call_id:
        pairer.problem(where, "call_id", "missing or not a string")
        return
    output = item.get("output")
    if isinstance(output, list):
        response: Any = {"content": [_text_part(part) for part in output]}
    else:
        response = output
    text = _parts_text(output)
    is_error = rule.matches(text)
    talk.tool(call_id, text, is_error)
    pairer.result(
        call_id,
        response,
        is_error,
        where=where,
        field_name="call_id",
        error_message=text if is_error else None,
    )


def _mcp_call(
    item: Mapping[str, Any], pairer: CallPairer, where: str, index: int, talk: ConversationBuilder
) -> None:
    name = item.get("name")
    if not isinstance(name, str) or not name:
        pairer.problem(where, "name", "missing or not a string")
        return
    raw_id = item.get("id")
    call_id = raw_id if isinstance(raw_id, str) and raw_id else f"mcp-call-{index}"
    extra = {
        k: v for k, v in item.items() if k not in ("type", "id", "name", "arguments", "output")
    }
    args = _arguments(item.get("arguments"))
    pairer.call(
        call_id, name, args, where=where, field_name="id", extra={"itemType": "mcp_call", **extra}
    )
    talk.add_call({"id": call_id, "name": name, "args": args, "x-itemType": "mcp_call"})
    error = item.get("error")
    output = item.get("output")
    is_error = error is not None
    message: str | None = None
    if is_error:
        message = error if isinstance(error, str) else json.dumps(error, ensure_ascii=False)
    response: Any = {"content": text_content(output)} if isinstance(output, str) else output
    if response is None and is_error:
        response = {"content": text_content(message or "tool call failed")}
    text = result_text(response["content"]) if isinstance(response, Mapping) else ""
    talk.tool(call_id, text if isinstance(response, Mapping) else str(output or ""), is_error)
    pairer.result(
        call_id, response, is_error, where=where, field_name="error", error_message=message
    )
