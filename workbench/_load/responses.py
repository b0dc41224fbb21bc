"""OpenAI Responses API items as promoted runs (SPEC R1: one more format, one module).

A Responses-API conversation is a list of items: ``message`` items (``role``, ``content`` parts),
``function_call`` items (``call_id``, ``name``, ``arguments`` as a JSON string) and
``function_call_output`` items (``call_id``, ``output``). The file may hold that list, an object
with ``input`` and/or ``output`` lists (a request with its response, or a stored response), or
a list of such objects (a run each). A ``function_call_output`` pairs with the open
``function_call`` of its ``call_id`` (R2). There is no error flag on an output, so the caller's
:class:`~workbench.ErrorRule` decides which are failures (R3), as for chat messages.

``custom_tool_call`` items (free-text ``input``) pair with ``custom_tool_call_output`` the same
way, as do ``computer_call``, ``local_shell_call``, ``shell_call``, ``apply_patch_call`` and a
client-run ``tool_search_call`` with their outputs. An ``apply_patch_call_output`` whose
``status`` is ``failed`` failed, and so did a ``shell_call_output`` whose command exited other
than 0 or timed out. An ``mcp_call`` item, and a hosted tool's item (``web_search_call``,
``file_search_call``, ``code_interpreter_call``, ``image_generation_call``, a server-run
``tool_search_call``), is a call and its result in one item: a boundary (R34), failed when its
``error`` is set or its ``status`` is ``failed``. Other items (``reasoning``, ``mcp_list_tools``,
a server-run ``tool_search_output``) are kept opaquely on the run's metadata under
``otherItems`` (R4).

A conversation split across exchanges (R34) comes from an HTTP cassette (``cassettes``): each
request to ``/v1/responses`` names the response it continues (``previous_response_id``) and
carries only the new input items, so the calls of one response are answered in the next
request's input. Exchanges are chained into runs by those ids (and a request that resends the
full history joins the run whose calls it repeats; repeated items are read once), and the
items of a chain are read in the order they passed: request input, then response output.

The items are also kept as the run's :class:`~workbench.Conversation` (R40): ``message`` items by
role, each call (a ``function_call``, ``custom_tool_call``, ``mcp_call`` or hosted tool's item)
joining the assistant turn before it, each output a tool message (a hosted tool's item is its
own result); the record's ``instructions`` as the system message and its ``tools`` and
``model`` when it has them (a stored response does, and so does a cassette's request).

Longer than 400 lines: items in a file and items in recorded exchanges are one format read by
one item reader (``_item``); the exchange chaining sits beside it so both stay the same.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from .._common.jsonio import json_text
from .._common.toolresult import result_text, text_content
from .cassettes import Exchange
from .common import is_output_tool, json_args, refuse_wrong_args
from .conversation import ConversationBuilder, recorded_tools
from .pairing import CallPairer
from .records import ErrorRule, LoadProblem, PromotedRun
from .responses_resends import ResendIndex

__all__ = [
    "is_responses_data",
    "load_openai_responses",
    "load_responses_exchanges",
    "responses_records",
]

_CALLS = {
    "function_call": "arguments",
    "custom_tool_call": "input",
    "computer_call": "action",
    "local_shell_call": "action",
    "shell_call": "action",
    "apply_patch_call": "operation",
    "tool_search_call": "arguments",  # run by the client (a call_id); the server's is hosted
}
_NAMED_BY_TYPE = frozenset(
    {"computer_call", "local_shell_call", "shell_call", "apply_patch_call", "tool_search_call"}
)
"""Calls of a built-in tool, whose item names no tool: the tool is the type less ``_call``."""
_OUTPUTS = frozenset(
    {
        "function_call_output",
        "custom_tool_call_output",
        "computer_call_output",
        "local_shell_call_output",
        "shell_call_output",
        "apply_patch_call_output",
        "tool_search_output",
    }
)
_HOSTED = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
    }
)
_ITEM_TYPES = frozenset({*_CALLS, *_OUTPUTS, *_HOSTED, "mcp_call"})
_SEARCHES = frozenset({"tool_search_call", "tool_search_output"})
"""Run by the client (with a call_id: a call and its output) or by the server (without one)."""
_RECORD_KEYS = ("input", "output")


def _is_item(value: Any) -> bool:
    if not isinstance(value, Mapping):
        return False
    kind = value.get("type")
    return isinstance(kind, str) and kind in _ITEM_TYPES


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
    """A call's ``arguments``: JSON text decoded as ``json`` decodes it (``common.json_args``:
    orjson when that gives the same; text nested too deep to decode is kept as text)."""
    return json_args(raw)


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
            said = _item(item, pairer, where, error_rule, i_index, other, talk)
            if said is not None:
                answer = said or None
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


def _item(
    item: Mapping[str, Any],
    pairer: CallPairer,
    where: str,
    rule: ErrorRule,
    index: int,
    other: list[Any],
    talk: ConversationBuilder,
    turn: str | None = None,
) -> str | None:
    """Read one item into the pairer and the conversation; returns the assistant text it says,
    ``""`` after a call, else ``None``. ``turn``: the response the item came from (a cassette's),
    so that one response's message and calls are one assistant turn."""
    kind = item.get("type")
    if kind is not None and not isinstance(kind, str):
        other.append(item)  # a list or an object names no item type: kept as it is (R4)
        return None
    if kind in _SEARCHES and type(item.get("call_id")) is not str:
        if kind == "tool_search_call":  # run by the server: a hosted tool's item
            _hosted(item, kind, pairer, where, index, talk, turn)
            return ""
        other.append(item)  # the server's search result: what the model saw, kept (R4)
        return None
    if kind in _CALLS:
        _call(item, pairer, where, _CALLS[kind], talk, turn)
        return ""  # the answer is what the agent says after its last call
    if kind in _OUTPUTS:
        _output(item, pairer, where, rule, talk)
        return None
    if kind == "mcp_call":
        _mcp_call(item, pairer, where, index, talk, turn)
        return ""
    if kind in _HOSTED:
        _hosted(item, kind, pairer, where, index, talk, turn)
        return ""
    role = item.get("role")
    if kind in (None, "message") and role == "assistant":
        text = _parts_text(item.get("content"))
        talk.assistant(text or None, turn=turn)
        return text or None
    if kind in (None, "message") and role in ("system", "developer"):
        talk.system(_parts_text(item.get("content")))
    elif kind in (None, "message") and role == "user":
        talk.user(_parts_text(item.get("content")))
    elif kind not in (None, "message"):
        other.append(item)
    return None


def _hosted(
    item: Mapping[str, Any],
    kind: str,
    pairer: CallPairer,
    where: str,
    index: int,
    talk: ConversationBuilder,
    turn: str | None,
) -> None:
    """A hosted tool's item: the call and its result in one (``web_search_call``, ...)."""
    raw_id = item.get("id")
    call_id = raw_id if isinstance(raw_id, str) and raw_id else f"{kind}-{index}"
    tool = kind.removesuffix("_call")
    args: Any = None
    for key in ("action", "queries", "code", "prompt", "arguments"):
        if key in item:
            args = item[key]
            break
    extra = {"itemType": kind}
    pairer.call(call_id, tool, args, where=where, field_name="id", extra=extra)
    talk.add_call({"id": call_id, "name": tool, "args": args, "x-itemType": kind}, turn=turn)
    status = item.get("status")
    if _wrong_status(status, pairer, call_id, where):
        return
    error = item.get("error")
    failed = status == "failed" or error is not None
    response = {k: v for k, v in item.items() if k not in ("type", "id")}
    message: str | None = None
    if failed:
        message = (
            error
            if isinstance(error, str)
            else json_text(error)
            if error is not None
            else f"{tool} {status}"
        )
    talk.tool(call_id, (message or "") if failed else _status_text(item), failed)
    pairer.result(
        call_id, response, failed, where=where, field_name="status", error_message=message
    )


def _wrong_status(status: Any, pairer: CallPairer, call_id: str, where: str) -> bool:
    """Whether an item's ``status`` is of a type the API never writes (it writes a word:
    ``completed``, ``failed``, ``in_progress``, ...) or spells ``failed`` otherwise (R35: read
    as no failure, it made a failed call a success): then a problem, the call not served."""
    if status is None or (type(status) is str and status.lower() != "failed") or status == "failed":
        return False
    said = "not text" if type(status) is not str else "not a status the API writes (failed)"
    pairer.problem(where, "status", f"{json_text(status)[:40]}: {said}")
    pairer.discard(call_id)
    return True


def _status_text(item: Mapping[str, Any]) -> str:
    """What a hosted tool's item tells the model (its result is the item): its JSON."""
    body = {k: v for k, v in item.items() if k not in ("type", "id")}
    return json_text(body, sort_keys=True)


def _call(
    item: Mapping[str, Any],
    pairer: CallPairer,
    where: str,
    arg_key: str,
    talk: ConversationBuilder,
    turn: str | None,
) -> None:
    call_id = item.get("call_id")
    name = item.get("name")
    if not isinstance(call_id, str) or not call_id:
        pairer.problem(where, "call_id", "missing or not a string")
        return
    if name is None and item.get("type") in _NAMED_BY_TYPE:
        name = str(item["type"]).removesuffix("_call")
    if not isinstance(name, str) or not name:
        pairer.problem(where, "name", "missing or not a string")
        return
    extra = {k: v for k, v in item.items() if k not in ("type", "call_id", "name", arg_key)}
    if item.get("type") != "function_call":
        extra["itemType"] = item.get("type")
    raw = item.get(arg_key)
    if item.get("type") == "function_call" and refuse_wrong_args(  # JSON text (R35)
        raw, str, pairer, call_id, where, "arguments"
    ):
        return
    args = _arguments(raw) if arg_key == "arguments" else raw
    pairer.call(call_id, name, args, where=where, field_name="call_id", extra=extra or None)
    call: dict[str, Any] = {"id": call_id, "name": name, "args": args}
    if item.get("type") != "function_call":
        call["x-itemType"] = item.get("type")
    talk.add_call(call, turn=turn)


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
    kind = item.get("type")
    output = item.get("output")
    if isinstance(output, bool | int | float):  # R35: no output item's is; not an empty success
        pairer.problem(where, "output", "a number or boolean, not text or content")
        pairer.discard(call_id)
        return
    if _wrong_status(item.get("status"), pairer, call_id, where):
        return
    failed = False
    if kind == "shell_call_output" and isinstance(output, list):
        response: Any = output  # [{stdout, stderr, outcome}], one a command
        text, failed = _shell_text(output)
    elif kind == "tool_search_output":
        response = {k: v for k, v in item.items() if k not in ("type", "id", "call_id")}
        text = json_text(item.get("tools"))
    elif isinstance(output, list):
        response = {"content": [_text_part(part) for part in output]}
        text = _parts_text(output)
    else:
        response = output
        text = _parts_text(output)
    failed = failed or item.get("status") == "failed"  # apply_patch_call_output says so
    is_error = failed or rule.matches(text)
    message = (text or f"{str(kind).removesuffix('_call_output')} failed") if is_error else None
    talk.tool(call_id, text, is_error)
    pairer.result(
        call_id,
        response,
        is_error,
        where=where,
        field_name="status" if failed else "call_id",
        error_message=message,
    )


def _shell_text(output: list[Any]) -> tuple[str, bool]:
    """A ``shell_call_output``'s text (each command's stdout and stderr), and whether a command
    failed: it exited other than 0, or timed out."""
    texts: list[str] = []
    failed = False
    for part in output:
        if not isinstance(part, Mapping):
            continue
        texts.extend(
            t for t in (part.get("stdout"), part.get("stderr")) if isinstance(t, str) and t
        )
        outcome = part.get("outcome")
        if isinstance(outcome, Mapping):
            code = outcome.get("exit_code")
            ended = outcome.get("type")
            failed = failed or ended == "timeout" or (ended == "exit" and code not in (0, None))
    return "\n".join(texts), failed


def _mcp_call(
    item: Mapping[str, Any],
    pairer: CallPairer,
    where: str,
    index: int,
    talk: ConversationBuilder,
    turn: str | None,
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
    if refuse_wrong_args(item.get("arguments"), str, pairer, call_id, where, "arguments"):
        return  # (JSON text, R35; its result, in the item, goes with it)
    args = _arguments(item.get("arguments"))
    pairer.call(
        call_id, name, args, where=where, field_name="id", extra={"itemType": "mcp_call", **extra}
    )
    talk.add_call({"id": call_id, "name": name, "args": args, "x-itemType": "mcp_call"}, turn=turn)
    error = item.get("error")
    output = item.get("output")
    if _wrong_status(item.get("status"), pairer, call_id, where):
        return
    is_error = error is not None or item.get("status") == "failed"
    message: str | None = None
    if is_error:
        message = error if isinstance(error, str) else json_text(error)
    response: Any = {"content": text_content(output)} if isinstance(output, str) else output
    if response is None and is_error:
        response = {"content": text_content(message or "tool call failed")}
    text = result_text(response.get("content")) if isinstance(response, Mapping) else ""
    talk.tool(call_id, text if isinstance(response, Mapping) else str(output or ""), is_error)
    pairer.result(
        call_id, response, is_error, where=where, field_name="error", error_message=message
    )


# --- conversations split across exchanges (HTTP cassettes) -----------------------------------


def _response_of(exchange: Exchange) -> Mapping[str, Any] | None:
    """The response object of an exchange: its JSON body, or the streamed final response."""
    body = exchange.response
    if isinstance(body, Mapping) and body.get("object") == "response":
        return body
    done: Mapping[str, Any] | None = None
    items: list[Any] = []
    for event in exchange.events:
        if not isinstance(event, Mapping):
            continue
        kind = event.get("type")
        if kind in ("response.completed", "response.failed", "response.incomplete"):
            found = event.get("response")
            done = found if isinstance(found, Mapping) else done
        elif kind == "response.output_item.done" and isinstance(event.get("item"), Mapping):
            items.append(event["item"])
    if done is not None and not done.get("output") and items:
        return {**done, "output": items}
    if done is None and items:
        return {"object": "response", "output": items}
    return done


def _is_call(exchange: Exchange) -> bool:
    request = exchange.request
    return _is_mapping(request) and "input" in request and "model" in request


def _answered(exchange: Exchange) -> bool:
    """Whether the exchange went to a ``/responses`` endpoint (its response is then read even
    when it holds no response object: that is a problem to report, not another API's call)."""
    return exchange.uri.endswith("/responses")


def _is_mapping(value: Any) -> bool:
    """``isinstance(value, Mapping)``, at once for a dict (what decoded JSON holds)."""
    return type(value) is dict or isinstance(value, Mapping)


class _Chain:
    """One conversation being read: the exchanges chained to it so far, and what they said."""

    __slots__ = (
        "aliases",
        "answer",
        "exchanges",
        "last_input",
        "last_output",
        "model",
        "other",
        "pairer",
        "seen",
        "talk",
        "tools",
    )

    def __init__(self, file: str) -> None:
        self.pairer = CallPairer(file)
        self.talk = ConversationBuilder()
        self.other: list[Any] = []
        self.seen: set[str] = set()
        self.answer: Any = None
        self.model: str | None = None
        self.tools: dict[str, dict[str, Any]] = {}
        self.aliases: dict[str, str] = {}  # a call item's id -> its call_id (see _resent_call)
        self.exchanges: list[int] = []
        self.last_input: list[Any] = []
        """The last request's input items (``responses_resends``)."""
        self.last_output: list[Any] = []
        """The last response's output items."""

    def read(
        self,
        exchange: Exchange,
        response: Mapping[str, Any] | None,
        rule: ErrorRule,
        start: int = 0,
    ) -> None:
        """One exchange's items, in the order they passed: request input (from ``start``: the
        ones before copy what the conversation said, ``responses_resends``), response output."""
        self.exchanges.append(exchange.index)
        request = exchange.request
        talk, pairer = self.talk, self.pairer
        if self.model is None and type(request.get("model")) is str:
            self.model = request["model"] or None
        if type(request.get("instructions")) is str and not talk.messages:
            talk.system(request["instructions"])
        if "tools" in request:
            for tool in recorded_tools(request["tools"]) or ():
                self.tools.setdefault(tool["name"], tool)
        inputs = request.get("input")
        if isinstance(inputs, str):
            inputs = [{"role": "user", "content": inputs}]
        index = exchange.index
        if response is None:
            pairer.problem(f"interaction {index}", "response", "no Responses API response recorded")
        if type(inputs) is list:
            self._items(inputs, index, "request.input", None, rule, start)
        outputs = response.get("output") if response is not None else None
        if type(outputs) is list:
            self._items(outputs, index, "response.output", f"response-{index}", rule)
        self.last_input = inputs if type(inputs) is list else []
        self.last_output = outputs if type(outputs) is list else []

    def read_output(self, exchange: Exchange, response: Mapping[str, Any], rule: ErrorRule) -> None:
        """A background response's output, fetched by a later exchange (a poll): a poll of a
        response not done yet has none, and a repeated poll repeats items already read."""
        self.exchanges.append(exchange.index)
        outputs = response.get("output")
        if type(outputs) is list:
            turn = f"response-{exchange.index}"
            self._items(outputs, exchange.index, "response.output", turn, rule)
            self.last_output = outputs

    def _items(
        self,
        items: list[Any],
        index: int,
        part: str,
        turn: str | None,
        rule: ErrorRule,
        start: int = 0,
    ) -> None:
        pairer, talk, aliases, seen = self.pairer, self.talk, self.aliases, self.seen
        for i_index in range(start, len(items)):
            item = items[i_index]
            if _FAST_ITEMS and type(item) is dict:
                kind = item.get("type")
                if kind == "function_call" and turn is not None:
                    where = f"interaction {index}, {part}[{i_index}]"
                    read = _usual_call(item, where, turn, pairer, talk, aliases, seen)
                    if read is not None:
                        if read:
                            self.answer = None  # what the agent says after its last call
                        continue
                elif (
                    kind == "function_call_output"
                    and turn is None
                    and _usual_output(
                        item, (index, part, i_index), rule, pairer, talk, aliases, seen
                    )
                    is not None
                ):
                    continue
            where = f"interaction {index}, {part}[{i_index}]"
            if not _is_mapping(item):
                pairer.problem(where, "", "an item must be an object")
                continue
            if turn is None:
                item = _resent_call(item, aliases)
            else:
                _note_alias(item, aliases)
            key = _item_key(item)
            if key is not None:
                if key in seen:
                    continue  # a full-history resend repeats items already read
                seen.add(key)
            said = _item(item, pairer, where, rule, i_index, self.other, talk, turn)
            if said is not None:
                self.answer = said or None

    def run(self, key: str, file: str, rule: ErrorRule) -> PromotedRun:
        metadata: dict[str, Any] = {"exchanges": self.exchanges}
        if self.other:
            metadata["otherItems"] = self.other
        tools = list(self.tools.values()) if self.tools else None
        boundaries = self.pairer.finish(is_output_tool)  # no request answers final_result (R36)
        if self.pairer.terminal_calls:
            metadata["terminalCalls"] = self.pairer.terminal_calls
        return PromotedRun(
            run_id=key,
            boundaries=boundaries,
            source=file,
            format="openai-responses",
            error_rule=rule,
            outcome="completed",
            answer=self.answer,
            task_key=key,
            metadata=metadata,
            conversation=self.talk.build(tools, self.model),
        )


def load_responses_exchanges(
    exchanges: list[Exchange], file: str, error_rule: ErrorRule
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """One run per conversation among a cassette's Responses API exchanges (R34).

    Exchanges are chained into conversations as they come: by ``previous_response_id``, else
    by a call of an earlier response that the request's input repeats or answers; an exchange
    that names neither starts a conversation. Each is read into its conversation at once (a
    conversation's exchanges are read in cassette order either way).
    """
    chains: list[_Chain] = []
    by_response: dict[str, _Chain] = {}
    by_call: dict[str, _Chain] = {}
    by_history: ResendIndex[_Chain] = ResendIndex()
    for exchange in exchanges:
        request = exchange.request
        if (
            type(request) is not dict or "input" not in request or "model" not in request
        ) and not _is_call(exchange):
            polled = _polled(exchange, by_response)
            if polled is not None:  # a background response, fetched when done
                polled.read_output(exchange, exchange.response, error_rule)
                _note_calls(exchange.response, polled, by_response, by_call)
            continue
        if exchange.refused:  # a rate limit, a bad request: no turn (the cassette keeps it)
            continue
        body = exchange.response
        if type(body) is dict and body.get("object") == "response":
            response: Mapping[str, Any] | None = body  # _response_of's first case, at once
        else:
            response = _response_of(exchange)
            if response is None and not _answered(exchange):
                continue
        previous = request.get("previous_response_id")
        chain = by_response.get(previous) if type(previous) is str else None
        inputs = request.get("input")
        if chain is None:
            for item in inputs if type(inputs) is list else ():
                if not _is_mapping(item):
                    continue
                call_id = item.get("call_id")
                if type(call_id) is str and call_id in by_call:
                    chain = by_call[call_id]
                    break
                item_id = item.get("id")  # a resent item of an earlier response (hosted calls too)
                if type(item_id) is str and item_id in by_call:
                    chain = by_call[item_id]
                    break
        start = 0
        if previous is None and type(inputs) is list:  # a stateless client's whole history
            if chain is not None:
                start = by_history.start_in(chain, inputs)
            elif (resent := by_history.find(inputs)) is not None:
                chain, start = resent
        if chain is None:
            chain = _Chain(file)
            chains.append(chain)
        chain.read(exchange, response, error_rule, start)
        if previous is None:
            by_history.note(chain)
        if response is not None:
            _note_calls(response, chain, by_response, by_call)
    runs: list[PromotedRun] = []
    problems: list[LoadProblem] = []
    for number, chain in enumerate(chains):
        key = f"conversation-{number}" if len(chains) > 1 else "conversation"
        runs.append(chain.run(key, file, error_rule))
        problems.extend(chain.pairer.problems)
    return runs, problems


def _polled(exchange: Exchange, by_response: Mapping[str, _Chain]) -> _Chain | None:
    """The conversation of a background response this exchange fetched (``GET
    /v1/responses/{id}``: a request made with ``background: true`` is answered ``queued``, and
    its output comes in a later poll), or ``None``."""
    body = exchange.response
    if exchange.refused or type(body) is not dict or body.get("object") != "response":
        return None
    response_id = body.get("id")
    return by_response.get(response_id) if type(response_id) is str else None


def _note_calls(
    response: Mapping[str, Any],
    chain: _Chain,
    by_response: dict[str, _Chain],
    by_call: dict[str, _Chain],
) -> None:
    """Remember a response's id, its calls' ids and its items' ids as this conversation's: a
    later request continues it by naming the one, by answering a call, or by resending an item
    (a client that sends the whole history back, hosted calls and messages included)."""
    response_id = response.get("id")
    if type(response_id) is str:
        by_response[response_id] = chain
    output = response.get("output")
    for item in output if type(output) is list else ():
        if type(item) is not dict and not isinstance(item, Mapping):  # (_is_mapping, inline)
            continue
        call_id = item.get("call_id")
        if type(call_id) is str:
            by_call[call_id] = chain
        item_id = item.get("id")
        if type(item_id) is str:  # a client may resend a call under its item id
            by_call.setdefault(item_id, chain)


# The usual items of a cassette (a response's ``function_call``, the next request's
# ``function_call_output`` of a string) are read by ``_usual_call`` and ``_usual_output``: the same
# steps as ``_note_alias``/``_resent_call``, ``_item_key`` and ``_call``/``_output``, with the type
# checks done once. Any other item, or one these decline (returning False before changing
# anything), takes the general way. ``_FAST_ITEMS = False`` sends every item that way (tests
# compare the two).
_FAST_ITEMS = True
_CALL_MEMBERS = frozenset({"type", "call_id", "name", "arguments"})


def _usual_call(
    item: dict[str, Any],
    where: str,
    turn: str,
    pairer: CallPairer,
    talk: ConversationBuilder,
    aliases: dict[str, str],
    seen: set[str],
) -> bool | None:
    """A response's ``function_call`` with a string ``call_id`` and ``name``: True when read,
    False when it repeats one read before, ``None`` (declined, nothing changed) for another."""
    call_id = item.get("call_id")
    name = item.get("name")
    if type(call_id) is not str or not call_id or type(name) is not str or not name:
        return None
    raw_args = item.get("arguments")
    if raw_args is not None and type(raw_args) is not str:
        return None  # (arguments of no JSON text: ``_call`` says so)
    item_id = item.get("id")
    if type(item_id) is str and item_id != call_id:
        aliases[item_id] = call_id
    key = "function_call:" + call_id
    if key in seen:
        return False  # a full-history resend repeats items already read
    seen.add(key)
    if len(item) - (raw_args is not None or "arguments" in item) == 3:
        extra = None  # type, call_id and name (and arguments) only
    else:
        extra = {k: v for k, v in item.items() if k not in _CALL_MEMBERS} or None
    args = json_args(raw_args)
    pairer.call(call_id, name, args, where=where, field_name="call_id", extra=extra)
    talk.add_new_call({"id": call_id, "name": name, "args": args}, turn=turn)
    return True


def _usual_output(
    item: dict[str, Any],
    place: tuple[int, str, int],
    rule: ErrorRule,
    pairer: CallPairer,
    talk: ConversationBuilder,
    aliases: dict[str, str],
    seen: set[str],
) -> bool | None:
    """A request's ``function_call_output`` with a string ``call_id`` and ``output``: True when
    read, False when it repeats one read before, ``None`` (declined) for another. ``place``:
    the interaction, the part and the item's index, spelled as the item's place only when a
    problem needs it (the usual output answers an open call, and its place is never shown)."""
    call_id = item.get("call_id")
    output = item.get("output")
    if type(call_id) is not str or not call_id or type(output) is not str:
        return None
    call_id = aliases.get(call_id, call_id)
    if not call_id:
        return None
    key = "function_call_output:" + call_id
    if key in seen:
        return False
    seen.add(key)
    is_error = rule.matches(output)
    talk.tool(call_id, output, is_error)
    where = "" if pairer.is_open(call_id) else "interaction {}, {}[{}]".format(*place)
    pairer.result(
        call_id,
        output,
        is_error,
        where=where,
        field_name="call_id",
        error_message=output if is_error else None,
    )
    return True


def _note_alias(item: Mapping[str, Any], aliases: dict[str, str]) -> None:
    """Remember a call item's ``id`` beside its ``call_id`` (``fc_...`` beside ``call_...``)."""
    item_id, call_id, kind = item.get("id"), item.get("call_id"), item.get("type")
    if not (isinstance(item_id, str) and isinstance(call_id, str) and isinstance(kind, str)):
        return
    if item_id != call_id and kind in _CALLS:
        aliases[item_id] = call_id


def _resent_call(item: Mapping[str, Any], aliases: Mapping[str, str]) -> Mapping[str, Any]:
    """A resent call or its output as the call the response made. Some clients (pydantic-ai
    before 0.1) resend a call with its item ``id`` as its ``call_id`` and answer that id: it
    is the same call, not a new one left unanswered (R2)."""
    call_id = item.get("call_id")
    if type(call_id) is str and call_id in aliases:
        return {**item, "call_id": aliases[call_id]}
    return item


def _item_key(item: Mapping[str, Any]) -> str | None:
    kind = item.get("type")
    if not isinstance(kind, str):  # an item of no type (or a list or an object for one)
        return None
    if kind in _CALLS or kind in _OUTPUTS:
        call_id = item.get("call_id")
        if isinstance(call_id, str):
            return f"{kind}:{call_id}"
        if kind not in _SEARCHES:
            return None
    item_id = item.get("id")  # a hosted item, or a server-run search's result
    if isinstance(item_id, str):
        return f"{kind}:{item_id}"
    if kind in _HOSTED or kind in _SEARCHES:
        # resent with no id (a stateless client): the same item resent again is read once
        return f"{kind}:" + json.dumps(item, sort_keys=True, ensure_ascii=False, default=repr)
    return None
