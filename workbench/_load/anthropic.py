"""Anthropic messages transcripts as promoted runs (SPEC R1-R3, R40).

``tool_use`` blocks paired with ``tool_result`` blocks by ``tool_use_id``; ``is_error: true`` is
a failure. Server tool blocks (``server_tool_use`` with a ``*_tool_result``) are boundaries too.
The messages are kept as the run's :class:`~workbench.Conversation` (R40), with the record's
``system``, ``tools`` and ``model`` when it has them (a logged request body does): text blocks
become the message text, each ``tool_result`` block a tool message. An assistant message holding
a server tool call and its result is split there, as the model saw it: the turn up to the call,
the result, then the rest of the message as the next turn (its calls marked
``"x-blockType"``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .._common.toolresult import result_text, text_content
from .common import STREAMED_INPUT, FlagRefused, is_text_or_parts, refuse_wrong_args
from .conversation import ConversationBuilder, recorded_tools
from .messages import as_text_block, chat_records, explain_shape, metadata, place, record_key
from .pairing import CallPairer
from .records import LoadProblem, PromotedRun

__all__ = ["load_anthropic"]


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return text_content(content)
    if isinstance(content, list):
        return [as_text_block(b) for b in content]
    return []


def load_anthropic(
    data: Any,
    file: str,
    *,
    lines: Sequence[int] | None = None,
    places: Sequence[Sequence[str]] | None = None,
    terminal: Callable[[str], bool] | None = None,
    any_input: bool = False,
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """Promoted runs from Anthropic messages (``tool_use`` / ``tool_result`` blocks).

    ``lines``: the file line of each record, or of each message of a one-run file (JSONL).
    ``places``: each record's message places, where the records were put together (a
    cassette's exchanges). ``terminal``: the tools whose call, left unanswered, ends the run
    by design (R36), kept as ``metadata["terminalCalls"]``. A ``tool_use`` block's ``input``
    is an object, else a problem (R35); ``any_input``: any JSON value, as Bedrock Converse's
    (a ``Document``) and xAI's (JSON text, decoded) written in Messages' shape are.
    """
    records = chat_records(data)
    if records is None:
        message = explain_shape(data) or "not an Anthropic messages transcript"
        return [], [LoadProblem(file, "(root)", "", message)]
    runs: list[PromotedRun] = []
    problems: list[LoadProblem] = []
    for number, (path, record, messages) in enumerate(records):
        pairer = CallPairer(file)
        talk = ConversationBuilder()
        system = _system_text(record.get("system"))
        if system is not None:
            talk.system(system)
        answer: Any = None
        named = places[number] if places is not None and not lines and number < len(places) else ()
        for m_index, message in enumerate(messages):
            if m_index < len(named):  # what place() gives (and no line), without the call
                where = named[m_index]
            else:
                where, pairer.current_line = place(
                    path, number, len(records), m_index, lines, places
                )
            if type(message) is not dict and not isinstance(message, Mapping):
                pairer.problem(where, "", "a message must be an object")
                continue
            content = message.get("content")
            blocks: Sequence[Any] = content if isinstance(content, list) else []
            role = message.get("role")
            texts: list[str] = []
            made_calls = False
            turn = _Turn(talk, role)
            if isinstance(content, str):
                turn.text(content)
            for b_index, block in enumerate(blocks):
                if type(block) is not dict and not isinstance(block, Mapping):
                    continue
                kind = block.get("type")
                if kind == "text" and isinstance(block.get("text"), str):  # no place needed
                    texts.append(block["text"])
                    turn.text(block["text"])
                    continue
                block_where = f"{where}, block {b_index}"
                if kind == "tool_use":
                    made_calls = True
                    call_id = block.get("id")
                    name = block.get("name")
                    if not isinstance(call_id, str) or not call_id:
                        pairer.problem(block_where, "id", "missing or not a string")
                        continue
                    if not isinstance(name, str) or not name:
                        pairer.problem(block_where, "name", "missing or not a string")
                        continue
                    if (
                        not any_input
                        and STREAMED_INPUT not in block
                        and refuse_wrong_args(
                            block.get("input"), Mapping, pairer, call_id, block_where, "input"
                        )
                    ):
                        continue
                    pairer.call(
                        call_id,
                        name,
                        block.get("input"),
                        where=block_where,
                        field_name="id",
                        extra=_own_members(block) if len(block) > 4 else None,
                    )
                    turn.call({"id": call_id, "name": name, "args": block.get("input")})
                elif kind == "tool_result":
                    call_id = block.get("tool_use_id")
                    if not isinstance(call_id, str) or not call_id:
                        pairer.problem(block_where, "tool_use_id", "missing or not a string")
                        continue
                    flag = block.get("is_error")
                    if flag is not None and not isinstance(flag, bool):  # a failure flag (R35)
                        refused = _refused(flag, "not true or false")
                        pairer.problem(block_where, refused.field, refused.said)
                        pairer.discard(call_id)
                        continue
                    content = block.get("content")
                    if content is not None and not is_text_or_parts(content):
                        pairer.problem(block_where, "content", _not_written(content))
                        pairer.discard(call_id)  # what the tool gave is not readable (R35)
                        continue
                    result_blocks = _blocks(content)
                    is_error = flag is True
                    result = result_text(result_blocks)
                    turn.result(call_id, result, is_error)
                    pairer.result(
                        call_id,
                        {"content": result_blocks},
                        is_error,
                        where=block_where,
                        field_name="tool_use_id",
                        error_message=(result or None) if is_error else None,
                    )
                elif isinstance(kind, str) and kind.endswith("tool_use"):
                    # server_tool_use, mcp_tool_use, ...: a call the API ran for the agent. It
                    # is a tool call the agent made and saw the result of, so it is a boundary.
                    # Its result comes in the same message, and the text after it may be the
                    # answer: text before it is not.
                    texts.clear()
                    if _server_call(block, kind, pairer, block_where):
                        turn.call(
                            {
                                "id": block["id"],
                                "name": block["name"],
                                "args": block.get("input"),
                                "x-blockType": kind,
                            }
                        )
                elif isinstance(kind, str) and kind.endswith("_tool_result"):
                    served = _server_result(block, kind, pairer, block_where)
                    if served is not None:
                        turn.result(block["tool_use_id"], *served)
            turn.close()
            # The answer is the last assistant text with no tool call beside it, as for OpenAI
            # chat: text next to a tool_use ("I'll look that up") is not the run's answer.
            if role == "assistant" and not made_calls:
                if isinstance(content, str) and content:
                    answer = content
                elif texts:
                    answer = "\n".join(texts)
        boundaries = pairer.finish(terminal or frozenset())
        problems.extend(pairer.problems)
        key = record_key(record, number, len(records))
        run_metadata = metadata(record)
        if pairer.terminal_calls:
            run_metadata["terminalCalls"] = pairer.terminal_calls
        runs.append(
            PromotedRun(
                run_id=key,
                boundaries=boundaries,
                source=file,
                format="anthropic",
                outcome="completed",
                answer=answer,
                task_key=key,
                metadata=run_metadata,
                conversation=talk.build(recorded_tools(record.get("tools")), record.get("model")),
            )
        )
    return runs, problems


def _system_text(system: Any) -> str | None:
    """A request's ``system``: a string, or a list of text blocks (joined)."""
    if isinstance(system, str):
        return system
    if isinstance(system, list):
        return result_text([as_text_block(b) for b in system])
    return None


class _Turn:
    """One recorded message read into neutral messages, in block order (R40).

    A user message gives a tool message per ``tool_result`` and a user message for its text; an
    assistant message gives one turn (its text and calls), split after a server tool's result.
    """

    __slots__ = ("_calls", "_role", "_talk", "_texts")

    def __init__(self, talk: ConversationBuilder, role: Any) -> None:
        self._talk = talk
        self._role = role
        self._texts: list[str] = []
        self._calls: list[dict[str, Any]] = []

    def text(self, text: str) -> None:
        if text:
            self._texts.append(text)

    def call(self, call: dict[str, Any]) -> None:
        self._calls.append(call)

    def result(self, call_id: str, text: str, is_error: bool) -> None:
        if self._role == "assistant":
            self.close()  # a server tool's result: the turn so far made the call
        elif self._texts:
            self._talk.user("\n".join(self._texts))
            self._texts = []
        self._talk.tool(call_id, text, is_error)

    def close(self) -> None:
        text = "\n".join(self._texts) if self._texts else None
        if self._role == "assistant" and (text is not None or self._calls):
            self._talk.assistant(text, self._calls, fresh=True)  # call dicts made for the turn
        elif self._role == "user" and text is not None:
            self._talk.user(text)
        elif self._role == "system" and text is not None:
            self._talk.system(text)
        self._texts = []
        self._calls = []


def _refused(flag: Any, said: str) -> FlagRefused:
    """Where and why a failure flag that is no boolean is refused: at the recorded format's
    field when a converter (Bedrock Converse, the Gemini API) could not read its own flag,
    else at ``is_error``."""
    return flag if isinstance(flag, FlagRefused) else FlagRefused("is_error", said)


_OTHER_APIS = {
    "functionResponse.response": "not an object (the Gemini API's response is a Struct)",
    "toolResult.content": "not a list of blocks",
}
"""What a result of another API's written in Messages' shape (``gemini_api``,
``bedrock_converse``) should have been, when it was not: the writer hands it on as ``{its
field: it}``, which no text or list of blocks is."""


def _not_written(content: Any) -> str:
    """What a ``tool_result`` content of a type never written should have been (R35)."""
    if isinstance(content, Mapping) and len(content) == 1:
        return _OTHER_APIS.get(next(iter(content)), "not text or a list of blocks")
    return "not text or a list of blocks"


def _own_members(block: Mapping[str, Any]) -> dict[str, Any] | None:
    """A block's ``x-`` members: what a reader that wrote the block in Messages' shape kept of
    its own API (``gemini_api``'s ``x-geminiCallId``), carried on the boundary (R4)."""
    return {k: v for k, v in block.items() if k.startswith("x-")} or None


def _server_call(block: Mapping[str, Any], kind: str, pairer: CallPairer, where: str) -> bool:
    """Pair a server tool's call block; whether it was valid."""
    call_id = block.get("id")
    name = block.get("name")
    if not isinstance(call_id, str) or not call_id:
        pairer.problem(where, "id", "missing or not a string")
        return False
    if not isinstance(name, str) or not name:
        pairer.problem(where, "name", "missing or not a string")
        return False
    extra: dict[str, Any] = {"blockType": kind}
    extra.update((k, v) for k, v in block.items() if k not in ("type", "id", "name", "input"))
    pairer.call(call_id, name, block.get("input"), where=where, field_name="id", extra=extra)
    return True


def _server_result(
    block: Mapping[str, Any], kind: str, pairer: CallPairer, where: str
) -> tuple[str, bool] | None:
    """Pair a server tool's result block; its text and failure flag (``None`` if invalid)."""
    """A server tool's result block (``web_search_tool_result``, ``mcp_tool_result``, ...).

    Its content is kept as recorded: a list of blocks becomes the response's ``content``, any
    other value is the response itself. It failed when it says ``is_error: true`` or its
    content is an error object (a ``type`` ending in ``_error``, e.g.
    ``web_search_tool_result_error``), or a code execution result whose ``return_code`` is not
    0 (the script failed: ``exit_code:N``, its ``stderr`` the error message).
    """
    call_id = block.get("tool_use_id")
    if not isinstance(call_id, str) or not call_id:
        pairer.problem(where, "tool_use_id", "missing or not a string")
        return None
    flag = block.get("is_error")
    if flag is not None and not isinstance(flag, bool):  # a failure flag (R35)
        refused = _refused(flag, "not a value the API has")
        pairer.problem(where, refused.field, refused.said)
        pairer.discard(call_id)
        return None
    content = block.get("content")
    error_type = content.get("type") if isinstance(content, Mapping) else None
    failed = isinstance(error_type, str) and error_type.endswith("_error")
    exited = _return_code(content, error_type)
    if exited is False:  # a return code that is no integer: neither success nor failure (R35)
        pairer.problem(where, "content.return_code", "not an integer")
        pairer.discard(call_id)
        return None
    is_error = block.get("is_error") is True or failed or bool(exited)
    code: str | None = None
    message: str | None = None
    response: Any
    if isinstance(content, list):
        response = {"content": _blocks(content)}
        message = result_text(response["content"]) or None
    else:
        response = content
    if failed and isinstance(content, Mapping):
        raw_code = content.get("error_code")
        code = raw_code if isinstance(raw_code, str) else None
        message = code or str(error_type)
    elif flag is True and isinstance(block.get("x-errorCode"), str):  # (gemini_api's outcome)
        code = block["x-errorCode"]
    elif exited and isinstance(content, Mapping):  # the code ran and exited non-zero (R36)
        code = f"exit_code:{exited}"
        said = [content.get(k) for k in ("stderr", "stdout")]
        message = next((t for t in said if isinstance(t, str) and t), f"exit code {exited}")
    extra = {"resultType": kind}
    pairer.result(
        call_id,
        response,
        is_error,
        where=where,
        field_name="tool_use_id",
        error_code=code,
        error_message=(message or "tool call failed") if is_error else None,
        extra=extra,
    )
    return (result_text(response["content"]) if isinstance(content, list) else ""), is_error


def _return_code(content: Any, kind: Any) -> int | bool | None:
    """A code execution result's non-zero ``return_code`` (``code_execution_result``,
    ``bash_code_execution_result``: the script ran and exited so, a failure as a shell's exit
    code is, R36); ``None`` for 0 or no such result, ``False`` for a code that is no integer
    (the API's is a required integer: none, or ``null``, is no success either, R35)."""
    if not (isinstance(kind, str) and kind.endswith("code_execution_result")):
        return None
    returned = content.get("return_code") if isinstance(content, Mapping) else None
    if returned == 0 and type(returned) is int:
        return None
    return returned if type(returned) is int else False
