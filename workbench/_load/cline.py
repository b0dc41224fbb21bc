"""Cline and Roo Code task histories as promoted runs (SPEC R34-R36, R40).

Cline and its fork Roo Code keep a task's conversation in ``tasks/<id>/api_conversation_history
.json``: Anthropic-style messages with Cline's members (``modelInfo``, ``metrics``, ``ts``), each
user message ending in an ``<environment_details>`` block. Calls are read three ways:

- a ``tool_use`` answered in the next user message by a text block ``[<tool> for '<what>']
  Result:`` (Cline's native calls: no ``tool_result``), in order, each the first waiting call of
  the header's tool (``use_mcp_tool`` answers ``<server>0mcp0<tool>``), else the first no header
  there names (``[subagents]``: ``use_subagents``); a result holding images has no header, its
  text and images taken by a waiting call of a tool that gives images (``_with_images``); or a
  ``tool_result`` of its id (Roo 3.3x);
- XML in the text (``<read_file><path>x</path></read_file>``: older Cline and Roo, a history with
  no ``tool_use``) as Cline's parser reads it, answered by a lone header and the blocks after it;
- ``Tool [x] was not executed ...`` or ``Skipping tool ... due to user rejecting ...`` answers the
  call it names, failed; a call left open by a ``[TASK RESUMPTION]`` fails ``interrupted``; an
  ``attempt_completion`` left open ends the task, and so does a question to the user
(``ask_followup_question``, ``plan_mode_respond``) left open at the end (R36).

Failures (R36) are their own wordings: ``The tool execution failed with the following error``
(``tool_error``, its ``<error>`` text the message), ``The user denied this operation``
(``denied``), ignore-file and permission blocks, Roo's ``{"status": "error" | "denied"}``,
``is_error: true``, a command's non-zero exit (``exit_code:N``). Every other block is the
conversation (R40) or counted in ``metadata.records`` (R35).
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from .._common.toolresult import result_text, text_content
from .cline_texts import HEADER, STOP_OPENINGS, STOPPED, Said, failure, xml_calls, xml_params
from .conversation import ConversationBuilder
from .messages import as_text_block
from .pairing import CallPairer
from .records import LoadProblem, PromotedRun

__all__ = ["load_cline", "sniff_cline"]

TERMINAL = frozenset({"attempt_completion"})
_ASKS_THE_USER = frozenset({"ask_followup_question", "plan_mode_respond"})
"""Tools answered by the user: left open at the end, the task was saved waiting (R36)."""
_TOOL_USE = frozenset({"type", "id", "name", "input"})
"""A ``tool_use`` block's members the call is made of."""
_OTHER = frozenset({"tool_calls", "tool_call_id", "call_id", "output"})  # OpenAI chat's, Responses'
_COUNTED = {"user": "message:user", "assistant": "message:assistant"}
"""What a message of each role is counted as in ``metadata.records``."""
_ENV = "<environment_details>"
_MCP = "use_mcp_tool"
_RESUMED = "[TASK RESUMPTION]"
_IMAGED = frozenset(
    {"browser_action", "ask_followup_question", "plan_mode_respond", "act_mode_respond", _MCP}
)
"""Tools whose result may hold images: Cline writes such a result with no header."""
_NOTES = ("The user provided", _ENV, "[", "<feedback>", "New instructions for task continuation")
"""Openings of the texts a user message holds beside results (feedback, notes, headers)."""


def sniff_cline(data: Any) -> bool:
    """Whether a decoded document is a Cline or Roo history: a list of ``user``/``assistant``
    messages, one with Cline's ``modelInfo``, or a user text block that is a result header or
    Cline's ``<environment_details>`` (a plain Anthropic message list has neither)."""
    if not isinstance(data, list) or not data:
        return False
    records = [m for m in data[:64] if type(m) is dict]
    heads = [m for m in records if m.get("role") in ("user", "assistant")]
    if 2 * len(heads) < min(len(data), 64) or any(_OTHER & m.keys() for m in records):
        return False  # (a stray record is a problem at its place, not another format)
    for message in heads:
        if isinstance(message.get("modelInfo"), dict):
            return True
        content = message.get("content") if message["role"] == "user" else None
        for block in content if isinstance(content, list) else [{"text": content}]:
            text = block.get("text") if isinstance(block, dict) else None
            if isinstance(text, str) and (text.startswith(_ENV) or HEADER.match(text[:4096])):
                return True
    return False


@dataclass(slots=True)
class _Run:
    pairer: CallPairer
    talk: ConversationBuilder = field(default_factory=ConversationBuilder)
    waiting: dict[str, str] = field(default_factory=dict)
    """The previous assistant message's calls not yet answered: their tools by id, in order."""
    queues: dict[str, deque[str]] = field(default_factory=dict)  # waiting ids by tool (and _MCP)
    counts: Counter[str] = field(default_factory=Counter)
    terminal: list[dict[str, Any]] = field(default_factory=list)
    answer: str | None = None
    models: list[Any] = field(default_factory=list)
    xml: bool = True  # whether calls may be XML in the text (none where a tool_use block is)
    named_in: list[Any] | None = None
    named: set[str] = field(default_factory=set)
    """The tools the result headers of a user message (``named_in``) name."""

    def wait(self, call_id: str, tool: str) -> None:
        self.waiting[call_id] = tool
        queues = self.queues
        for key in (tool, _MCP) if "0mcp0" in tool else (tool,):
            queues.setdefault(key, deque()).append(call_id)

    def take(self, tool: str, content: list[Any]) -> tuple[str, str] | None:
        """The waiting call a result of ``tool`` answers (no longer waiting): the first of its
        tool, else the first no result of the message (``content``) names, else the first."""
        queue = self.queues.get(tool)
        while queue:  # (each id is put in once, so this is linear in all)
            if (call_id := queue.popleft()) in self.waiting:
                return call_id, self.waiting.pop(call_id)
        # the tools the message's headers name: read once a message, and only here (the usual
        # result is of a waiting call's tool)
        if self.named_in is not content:
            self.named_in, self.named = content, _named(content)
        named = self.named
        items = islice(self.waiting.items(), 64)  # (past 64 calls at once, the first)
        free = (c for c, n in items if not {n, _MCP if "0mcp0" in n else n} & named)
        found = next(free, next(iter(self.waiting), None))
        return None if found is None else (found, self.waiting.pop(found))


def load_cline(data: Any, file: str) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """One run from a task's messages (``api_conversation_history.json``)."""
    if not isinstance(data, list):
        return [], [LoadProblem(file, "(root)", "", "a Cline history must be a list of messages")]
    run = _Run(CallPairer(file))
    run.xml = not any(
        isinstance(b, dict) and b.get("type") == "tool_use"
        for m in data
        if type(m) is dict and isinstance(m.get("content"), list)
        for b in m["content"]
    )
    for number, message in enumerate(data):
        where = f"message {number}"
        if type(message) is not dict:
            run.pairer.problem(where, "", "a message must be an object")
            continue
        role, content = message.get("role"), message.get("content")
        content = text_content(content) if isinstance(content, str) else content
        if role not in ("user", "assistant") or not isinstance(content, list):
            field_name = "role" if role not in ("user", "assistant") else "content"
            run.pairer.problem(where, field_name, "not a user or assistant message with blocks")
            continue
        run.counts[_COUNTED[role]] += 1
        if role == "assistant":
            _assistant(run, message, content, where)
        else:
            _user(run, content, where)
    boundaries = run.pairer.finish(TERMINAL | _ASKS_THE_USER)
    run.terminal.extend(run.pairer.terminal_calls)
    metadata: dict[str, Any] = {"records": dict(sorted(run.counts.items()))}
    metadata.update(
        (k, v) for k, v in (("terminalCalls", run.terminal), ("models", run.models)) if v
    )
    first = data[0] if data and type(data[0]) is dict else {}
    task = f"task-{first['ts']}" if type(first.get("ts")) is int else "cline-task"
    last = run.models[-1] if run.models else None
    model = last.get("modelId") if isinstance(last, dict) else None
    promoted = PromotedRun(
        run_id=task,
        boundaries=boundaries,
        source=file,
        format="cline",
        outcome="completed",
        answer=run.answer,
        task_key=task,
        metadata=metadata,
        conversation=run.talk.build(None, model if isinstance(model, str) else None),
    )
    return [promoted], run.pairer.problems


def _assistant(run: _Run, message: Mapping[str, Any], content: list[Any], where: str) -> None:
    for call_id, tool in run.waiting.items():  # the previous message's calls nothing answered
        _interrupted(run, call_id, tool, where, None)
    run.waiting, run.queues = {}, {}
    if message.get("modelInfo") is not None and message["modelInfo"] not in run.models:
        run.models.append(message["modelInfo"])
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    for index, block in enumerate(content):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif kind == "tool_use":
            block_where = f"{where}, block {index}"
            call_id, name = block.get("id"), block.get("name")
            if not (isinstance(call_id, str) and call_id and isinstance(name, str) and name):
                bad = "id" if not isinstance(call_id, str) or not call_id else "name"
                run.pairer.problem(block_where, bad, "missing or not a string")
            else:
                calls.append({"id": call_id, "name": name, "args": block.get("input")})
                # the members past the usual four, kept (none, for the usual block: no loop)
                extra = (
                    {}
                    if block.keys() <= _TOOL_USE
                    else {k: v for k, v in block.items() if k not in _TOOL_USE}
                )
                _call(run, calls[-1], block_where, "id", extra)
        else:
            run.counts[f"block:{kind}" if isinstance(kind, str) else "block:(not an object)"] += 1
    if not calls and run.xml:  # older Cline and Roo: the calls are XML in the text
        for index, text in enumerate(texts):
            for number, (name, body) in enumerate(xml_calls(text)):
                call_id = f"{where}.xml{index}.{number}".replace(" ", "")
                calls.append(call := {"id": call_id, "name": name, "args": xml_params(body)})
                _call(run, call, f"{where}, text {index}", "text", {"xml": True})
    said = "\n".join(texts) or None
    run.talk.assistant(said, calls, fresh=True)
    args = calls[-1]["args"] if calls and calls[-1]["name"] == "attempt_completion" else None
    result = args.get("result") if isinstance(args, dict) else None  # its result is the answer
    run.answer = result if isinstance(result, str) else said if said and not calls else run.answer


def _call(run: _Run, call: dict[str, Any], where: str, fld: str, extra: dict[str, Any]) -> None:
    if run.pairer.is_open(call["id"]):
        run.pairer.problem(where, fld, f"call id {call['id']!r} is already open")
        return
    run.pairer.call(
        call["id"], call["name"], call["args"], where=where, field_name=fld, extra=extra
    )
    run.wait(call["id"], call["name"])


def _named(content: list[Any]) -> set[str]:
    """The tools a user message's result headers name."""
    texts = [b.get("text") for b in content if isinstance(b, dict)]
    heads = (t for t in texts if isinstance(t, str) and t.startswith("["))
    return {m.group(1) for t in heads if (m := HEADER.match(t[:4096]))}


def _user(run: _Run, content: list[Any], where: str) -> None:
    said: list[str] = []
    index = 0
    while index < len(content):
        block = content[index]
        index += 1
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "tool_result":
            _tool_result(run, block, f"{where}, block {index - 1}")
            continue
        if kind != "text" or not isinstance(block.get("text"), str):
            run.counts[f"block:{kind}" if isinstance(kind, str) else "block:(not an object)"] += 1
            continue
        text: str = block["text"]
        if text.startswith("["):
            header = found = HEADER.match(text)
        else:
            found = STOPPED.match(text) if text.startswith(STOP_OPENINGS) else None
            header = None
        if found is None:
            if text.startswith(_RESUMED):  # the calls left open were cut off
                for call_id, tool in run.waiting.items():
                    _interrupted(run, call_id, tool, f"{where}, block {index - 1}", text)
                run.waiting, run.queues = {}, {}
            elif (
                index < len(content)
                and isinstance(following := content[index], dict)
                and following.get("type") == "image"
            ) and (
                (after := _with_images(run, content, index, text, f"{where}, block {index - 1}"))
                > index
            ):
                index = after  # a result Cline wrote with no header (it holds images)
                continue
            said.append(text)
            continue
        block_where = f"{where}, block {index - 1}"
        tool = found.group(1) if header else next(g for g in found.groups() if g)
        taken = run.take(tool, content)
        if taken is None:
            run.pairer.problem(block_where, "text", f"a result of {tool!r} answers no call")
            continue
        body = text[header.end() :].removeprefix("\n") if header else text
        blocks: list[Any] = [{"type": "text", "text": body}]
        shown = body  # (the text of that one block)
        if header is not None and not body.strip():  # the header alone: the blocks after it
            blocks = []
            while index < len(content) and not _ends_result(content[index]):
                blocks.append(as_text_block(content[index]))
                index += 1
            shown = result_text(blocks)
        stop = "not_executed" if found.group(1) else "skipped"
        said_of = failure(shown) if header else (stop, text)
        extra = {"resultHeader": tool} if header and tool != taken[1] else {}
        _answer(run, taken[0], blocks, said_of, block_where, shown, **extra)
    if said:
        run.talk.user("\n".join(said))


def _with_images(run: _Run, content: list[Any], index: int, text: str, where: str) -> int:
    """Where a result with images ends, if ``text`` opens one: Cline (``ToolResultUtils``, no id
    map) writes a result that holds images (a browser screenshot, an answer's or MCP tool's
    images) as its blocks, with no header; the first waiting call of a tool that returns
    images takes the text and the images after it. ``index`` when it opens none."""
    images = index
    while images < len(content) and isinstance(content[images], dict):
        if content[images].get("type") != "image":
            break
        images += 1
    imaged = (c for c, t in run.waiting.items() if t in _IMAGED or "0mcp0" in t)
    call_id = next(imaged, None) if images > index and not text.startswith(_NOTES) else None
    if call_id is None:
        return index
    tool = run.waiting.pop(call_id)
    blocks = [{"type": "text", "text": text}, *content[index:images]]
    _answer(run, call_id, blocks, failure(text), where, unheaded=tool)
    return images


def _ends_result(block: Any) -> bool:
    """Whether a block after a lone header is no longer its result."""
    if not isinstance(block, dict) or block.get("type") == "tool_result":
        return True
    text = block.get("text")
    return isinstance(text, str) and (
        text.startswith(_ENV) or bool(HEADER.match(text)) or bool(STOPPED.match(text))
    )


def _answer(
    run: _Run,
    call: str,
    blocks: list[Any],
    said: Said,
    where: str,
    shown: str | None = None,
    **extra: Any,
) -> None:
    """Pair a result (``said``: its error code and message, two ``None`` for a success)."""
    code, message = said
    failed = code is not None
    run.pairer.result(
        call,
        {"content": blocks},
        failed,
        where=where,
        field_name=extra.pop("field", "text"),
        error_code=code,
        error_message=(message or "tool call failed") if failed else None,
        extra=extra or None,
    )
    run.talk.tool(call, result_text(blocks) if shown is None else shown, failed)


def _interrupted(run: _Run, call_id: str, tool: str, where: str, text: str | None) -> None:
    """A call left open: ends the task (R36), cut off by ``text`` (an interruption), or open."""
    if tool in TERMINAL:
        run.terminal.append({"callId": call_id, "tool": tool})
        run.pairer.discard(call_id)
    elif text is not None:
        said = text.split("\n", 1)[0]
        _answer(run, call_id, [{"type": "text", "text": text}], ("interrupted", said), where)


def _tool_result(run: _Run, block: Mapping[str, Any], where: str) -> None:
    call_id = block.get("tool_use_id")
    if not isinstance(call_id, str) or not call_id:
        run.pairer.problem(where, "tool_use_id", "missing or not a string")
        return
    run.waiting.pop(call_id, None)
    flag, content = block.get("is_error"), block.get("content")
    bad = flag is not None and not isinstance(flag, bool)  # a failure flag of another type (R35)
    if bad or (content is not None and not isinstance(content, str | list)):
        said = "not true or false" if bad else "not text or a list of blocks"
        run.pairer.problem(where, "is_error" if bad else "content", said)
        run.pairer.discard(call_id)
        return
    text = content if isinstance(content, str) else None
    blocks = text_content(text) if text is not None else [as_text_block(b) for b in content or ()]
    served = result_text(blocks)
    header = HEADER.match(served)
    code, message = failure(served[header.end() :].lstrip("\n") if header else served)
    if flag is True and code is None:
        code, message = "tool_error", served
    _answer(run, call_id, blocks, (code, message), where, field="tool_use_id")
