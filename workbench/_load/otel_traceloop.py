"""OpenLLMetry's (Traceloop's) LangChain tool spans, read as what the model made and was sent.

Its LangChain instrumentation writes a tool span's ``gen_ai.tool.call.arguments`` and
``gen_ai.tool.call.result`` as the callback's own records, not the call's: the input
``{"input_str": <the arguments as Python text>, "tags", "metadata", "inputs": {<arguments>},
"kwargs": {"tool_call_id": ...}}`` and the output ``{"output": <a serialized ToolMessage>,
"kwargs": {...}}``. The model made the call with ``inputs``, under ``kwargs.tool_call_id``, and
was sent the ToolMessage's content (its ``status: "error"`` a failure; one of another type or
value, ``true``, a problem), or, for a tool that gave no ToolMessage, the record's ``output``
itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from .common import json_args
from .langfuse_spans import ToolMessage, tool_message
from .pairing import CallPairer

__all__ = ["LangChainTool", "chain_failed", "langchain_tool"]


class LangChainTool(NamedTuple):
    """A LangChain tool call as the model saw it (``None``: the span does not say)."""

    args: Any
    result: Any
    call_id: str | None
    message: ToolMessage | None
    """The ToolMessage the tool gave (its status: whether it failed), if it gave one."""


def langchain_tool(args: Any, result: Any) -> LangChainTool | None:
    """The call inside a Traceloop LangChain tool span's records, or ``None`` for a span whose
    arguments and result are not those records (read as they are)."""
    if not _may_be_record(args, "input_str", '"input_str"') and not _may_be_record(
        result, "output", '"output"'
    ):
        return None  # (the usual span: two quick tests)
    inputs = args.get("inputs") if _is_callback_input(args) else None
    output = result
    if isinstance(result, str):  # JSON text: decoded only when it is the callback's record
        output = json_args(result) if _RECORD.match(result) else None
    record = isinstance(output, Mapping) and output.keys() == _OUTPUT_RECORD
    message = tool_message(output.get("output")) if isinstance(output, Mapping) else None
    if inputs is None and message is None and not record:
        return None
    call_id = _call_id(args.get("kwargs") if inputs is not None else None)
    if call_id is None and message is not None:  # the ToolMessage's (it answers that call)
        sent = output.get("output")
        call_id = _call_id(sent.get("kwargs") if isinstance(sent.get("id"), list) else sent)
    if message is not None:  # a ToolMessage: its content is what the model was sent
        served = message[0]
    else:  # another output the tool gave (text, or JSON), in the callback's record
        served = output["output"] if record and isinstance(output, Mapping) else result
    return LangChainTool(
        inputs if inputs is not None else args,
        served,
        call_id,
        message,
    )


def chain_failed(chain: LangChainTool | None, pairer: CallPairer, where: str) -> bool | None:
    """Whether the call's ToolMessage says it failed (``False`` for no such record); ``None``,
    a problem at its ``status``, for one of a type or value LangChain never writes (R35)."""
    message = chain.message if chain is not None else None
    if message is None or message.failed is not None:
        return message is not None and message.failed
    place = f"attributes.gen_ai.tool.call.result.output.{message.place}"
    pairer.problem(where, place, message.wrong_status())
    return None


_OUTPUT_RECORD = {"output", "kwargs"}
"""The members of the callback's output record (``kwargs``: its tags, color and name)."""
_RECORD = re.compile(r'\s*\{\s*"output"\s*:')
"""The start of the callback's output record as JSON text."""


def _may_be_record(value: Any, member: str, quoted: str) -> bool:
    """Whether ``value`` may be one of the callback's records: an object with ``member``, or
    JSON text naming it (``quoted``: in its quotes) near its start."""
    if type(value) is dict:  # (the usual: a plain object, told without the ABC's test)
        return member in value
    if isinstance(value, str):
        return quoted in value[:40]
    return isinstance(value, Mapping) and member in value


def _call_id(members: Any) -> str | None:
    found = members.get("tool_call_id") if isinstance(members, Mapping) else None
    return found if isinstance(found, str) and found else None


def _is_callback_input(args: Any) -> bool:
    return (
        isinstance(args, Mapping)
        and isinstance(args.get("input_str"), str)
        and isinstance(args.get("inputs"), Mapping)
    )
