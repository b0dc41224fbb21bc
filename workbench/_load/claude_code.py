"""Claude Code session JSONL as promoted runs (SPEC R34-R36).

A session file (``~/.claude/projects/<project>/<session>.jsonl``) holds one record a line.
``user`` and ``assistant`` records carry an Anthropic message (``message.content`` blocks): a
``tool_use`` block in an assistant record is a call, the ``tool_result`` block with its
``tool_use_id`` in a later user record its result, ``is_error: true`` a failure (a non-boolean
``is_error`` is a problem, R35). One API message may be split over several records (one block
a record, sharing ``message.id``); calls are counted by blocks, never by records.

Every other record type (``summary``, ``system``, ``file-history-snapshot``,
``queue-operation``, ``custom-title``, ...) is bookkeeping: counted on the run's
``metadata["records"]`` and the unknown ones kept under ``otherRecords`` (R4, R35); a file may
start with one.

Sub-agents: records with ``isSidechain: true`` belong to a sub-agent. Claude Code 2.x names it
(``agentId``); 1.x does not, and a sidechain starts at a user record with no parent whose text
is the ``prompt`` of the ``Task`` call that spawned it. Each sub-agent call's ``agent_id`` is
``agent-<agentId>`` or ``task-<id of the Task call>`` (``main`` for the session's own calls).
A web session as the Claude API gives it (``{"loglines": [...]}``, saved by
``claude-code-transcripts``) holds the same records in a JSON document.
Headless output (``claude -p --output-format stream-json``, and the Agent SDK's messages) has
no sidechain flag: a sub-agent's records carry the id of the call that spawned it as
``parent_tool_use_id``, and are ``task-<that id>``'s, or ``agent-<agent_id>``'s where they name
the sub-agent (2.1: the same agent as in the session's files); its session id is ``session_id``.
Claude Code 2.x keeps sub-agents in files of their own beside the session
(``claude_subagents``): loading the session reads them too. The whole file is one run, in call
order. The conversation (R40) is the main thread's, with the system prompt and tool
definitions of an ``api-request-shape`` record (2.1.3xx) when the session has one. A
record repeated with its ``uuid`` and message (a resumed session's copy) is read once and
counted as a ``copy`` record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._common.toolresult import result_text
from .common import RecordTally, read_flag
from .conversation import ConversationBuilder, recorded_tools
from .messages import as_text_block, message_text
from .pairing import CallPairer
from .records import LoadProblem, PromotedRun

__all__ = ["BOOKKEEPING", "load_claude_code", "sniff_claude_code", "sniff_claude_code_loglines"]

BOOKKEEPING = frozenset(
    {
        "summary",
        "system",
        "file-history-snapshot",
        "queue-operation",
        "custom-title",
        "progress",
        "attachment",
        "last-prompt",  # 2.1: the session's last prompt, for resuming it
        "stream_event",  # headless --include-partial-messages: a streamed piece of a turn
    }
)
"""Record types Claude Code writes that are not turns of the conversation."""

_COPY = "copy"
"""The count of user and assistant records repeated under a ``uuid`` already read with the same
message: resuming a session (``claude --resume``) copies the records it resumes from into the
new session's file, under the new ``sessionId``; they are read once."""


# what a conversational record of a session file (or of headless stream-json) has beside its
# message, and what a bookkeeping record has
_SESSION_MEMBERS = ("uuid", "sessionId", "parentUuid", "session_id", "parent_tool_use_id")
_BOOKKEEPING_MEMBERS = ("sessionId", "messageId", "session_id")


def sniff_claude_code(heads: Sequence[Any]) -> bool:
    """Whether the first records of a JSONL file look like a Claude Code session."""
    for record in heads:
        if not isinstance(record, dict):
            continue
        kind = record.get("type")
        if not isinstance(kind, str):  # a list or an object is no record type (nor hashable)
            continue
        conversational = kind in ("user", "assistant") and isinstance(
            record.get("message"), Mapping
        )
        if conversational and any(k in record for k in _SESSION_MEMBERS):
            return True
        if kind == "summary" and "leafUuid" in record:
            return True
        if kind in BOOKKEEPING and any(k in record for k in _BOOKKEEPING_MEMBERS):
            return True
    return False


def sniff_claude_code_loglines(data: Any) -> bool:
    """Whether a JSON document is a Claude Code web session as the Claude API gives it
    (``{"loglines": [record, ...]}``, what ``claude-code-transcripts web --json`` saves): its
    first records are user or assistant records with a message object, or bookkeeping ones."""
    if not isinstance(data, Mapping) or type(data.get("loglines")) is not list:
        return False
    records = [r for r in data["loglines"][:_HEAD_RECORDS] if isinstance(r, dict)]
    if not records:
        return False
    for record in records:
        kind = record.get("type")
        if kind in ("user", "assistant"):
            if not isinstance(record.get("message"), Mapping):
                return False
        elif not isinstance(kind, str) or kind not in BOOKKEEPING:
            return False
    return True


_HEAD_RECORDS = 20
"""The records of a web session's ``loglines`` its sniffer reads."""


def load_claude_code(
    docs: Sequence[tuple[int, Any]], file: str, *, unit: str = "line"
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """One run from a session's records ``(line, record)``; ``unit="item"`` for the records of
    a JSON array (claude-code-action's ``claude-execution-output.json``), ``"logline"`` for
    those of a web session's ``loglines``, numbered from 0.

    Records are read in file order, which is the order they happened in but for a rare slip:
    Claude Code 2.1.108 once appended a tool result before the assistant record of its call
    (the result's ``parentUuid`` naming that later record). When a result finds no open call,
    the session is read again with each user record written before its parent moved right
    after it (:func:`_parents_first`), keeping its line."""
    runs, problems = _load_session(docs, file, unit)
    if any(p.field == "tool_use_id" and p.message.endswith("has no open call") for p in problems):
        moved = _parents_first(docs)
        if moved is not None:
            again = _load_session(moved, file, unit)
            return again if len(again[1]) < len(problems) else (runs, problems)
    return runs, problems


_PARENT_WINDOW = 16
"""How far ahead (records) a user record's parent may be for the record to move after it."""


def _parents_first(docs: Sequence[tuple[int, Any]]) -> list[tuple[int, Any]] | None:
    """The records with each user record whose ``parentUuid`` names a record written after it
    (at most :data:`_PARENT_WINDOW` records on) moved right after that record; ``None`` when
    no record is so."""
    ahead: dict[int, list[tuple[int, Any]]] = {}  # index of a parent -> records to put after
    moved: set[int] = set()
    for index, (_, record) in enumerate(docs):
        if type(record) is not dict or record.get("type") != "user":
            continue
        parent = record.get("parentUuid")
        if type(parent) is not str or not parent:
            continue
        stop = min(len(docs), index + 1 + _PARENT_WINDOW)
        for later in range(index + 1, stop):
            candidate = docs[later][1]
            if type(candidate) is dict and candidate.get("uuid") == parent:
                ahead.setdefault(later, []).append(docs[index])
                moved.add(index)
                break
    if not moved:
        return None
    out: list[tuple[int, Any]] = []
    for index, doc in enumerate(docs):
        if index not in moved:
            out.append(doc)
        out.extend(ahead.get(index, ()))
    return out


def _load_session(
    docs: Sequence[tuple[int, Any]], file: str, unit: str
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    lines = unit == "line"
    pairer = CallPairer(file)
    tally = RecordTally()
    talk = ConversationBuilder()
    agents: dict[str, str] = {}  # record uuid -> agent id (sidechains)
    prompts: dict[str, list[str]] = {}  # Task prompt -> Task call ids not yet matched
    answer: Any = None
    model: str | None = None
    session: str | None = None
    seen: dict[str, Any] = {}  # record uuid -> its message
    shape: tuple[str | None, list[dict[str, Any]] | None] | None = None  # system prompt, tools
    counts = tally.counts  # counted inline: a call a record adds up over 200,000 records
    for line, record in docs:
        pairer.current_line = line if lines else None
        if type(record) is not dict:
            pairer.problem(f"{unit} {line}", "", "a record must be a JSON object")
            continue
        kind = record.get("type")
        if type(kind) is not str:
            pairer.problem(f"{unit} {line}", "type", "missing or not a string")
            continue
        if kind != "user" and kind != "assistant":
            if kind in BOOKKEEPING:
                counts[kind] = counts.get(kind, 0) + 1
            else:
                tally.other(kind, record)
                if kind == "api-request-shape" and shape is None and not record.get("agentId"):
                    shape = _request_shape(record.get("shape"))
            continue
        message = record.get("message")
        uuid = record.get("uuid")
        if type(uuid) is str and uuid:
            first = seen.setdefault(uuid, message)
            if first is not message and first == message:
                tally.add(_COPY)  # a resumed session repeats the last records it resumes from
                continue
        counts[kind] = counts.get(kind, 0) + 1
        where = f"{unit} {line}"
        if session is None:
            session = _str(record.get("sessionId")) or _str(record.get("session_id"))
        if not isinstance(message, dict):
            pairer.problem(where, "message", "a user or assistant record needs a message object")
            continue
        if record.get("isSidechain") is True:
            agent = _agent(record, agents, prompts)
        else:  # headless stream-json names a sub-agent's records by the call that spawned it
            parent = record.get("parent_tool_use_id")
            agent = f"task-{parent}" if type(parent) is str and parent else "main"
            named = record.get("agent_id")  # 2.1 names the sub-agent too, as its session does
            if agent != "main" and type(named) is str and named:
                agent = f"agent-{named}"
            if parent is not None and type(parent) is not str:
                pairer.problem(where, "parent_tool_use_id", "not a string (nor null)")
        content = message.get("content")
        if kind == "assistant":
            if model is None:
                model = _str(message.get("model"))
            calls, texts = _assistant(content, pairer, where, agent, prompts)
            if agent == "main":
                text = "\n".join(texts) or None
                talk.assistant(text, calls, turn=_str(message.get("id")), fresh=True)
                if text and not calls:
                    answer = text
                elif calls:
                    answer = None
        else:
            _user(content, record, pairer, where, talk if agent == "main" else None)
    boundaries = pairer.finish()
    system, tools = shape or (None, None)
    if system:  # sent with every request, before the first turn
        talk.messages.insert(0, {"role": "system", "content": system})
    run_id = session or "session"
    metadata: dict[str, Any] = {"sessionId": session} if session else {}
    metadata.update(tally.to_metadata())
    run = PromotedRun(
        run_id=run_id,
        boundaries=boundaries,
        source=file,
        format="claude-code",
        outcome="completed",
        answer=answer,
        task_key="session" if not session else f"session-{session[:8]}",
        metadata=metadata,
        conversation=talk.build(tools, model),
    )
    return [run], pairer.problems


def _request_shape(shape: Any) -> tuple[str | None, list[dict[str, Any]] | None] | None:
    """The system prompt and tool definitions of the session's requests, from the
    ``api-request-shape`` record Claude Code 2.1.3xx writes (``shape``: ``{"system": [text
    blocks], "tools": [Anthropic tool definitions]}``); ``None`` when it holds neither."""
    if not isinstance(shape, Mapping):
        return None
    system = message_text(shape.get("system")) or None
    tools = recorded_tools(shape.get("tools"))
    return (system, tools) if system or tools else None


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _agent(record: Mapping[str, Any], agents: dict[str, str], prompts: dict[str, list[str]]) -> str:
    """The agent a record belongs to: ``main``, ``agent-<agentId>`` or ``task-<call id>``."""
    if record.get("isSidechain") is not True:
        return "main"
    uuid = _str(record.get("uuid"))
    agent_id = _str(record.get("agentId"))
    if agent_id:
        agent = f"agent-{agent_id}"
    else:
        parent = _str(record.get("parentUuid"))
        agent = agents.get(parent or "", "")
        if not agent:
            message = record.get("message")
            prompt = message.get("content") if isinstance(message, dict) else None
            waiting = prompts.get(prompt) if isinstance(prompt, str) else None
            agent = f"task-{waiting.pop(0)}" if waiting else "sidechain"
    if uuid:
        agents[uuid] = agent
    return agent


def _assistant(
    content: Any,
    pairer: CallPairer,
    where: str,
    agent: str,
    prompts: dict[str, list[str]],
) -> tuple[list[dict[str, Any]], list[str]]:
    calls: list[dict[str, Any]] = []
    texts: list[str] = []
    if isinstance(content, str):
        return calls, [content] if content else []
    if not isinstance(content, list):
        pairer.problem(where, "message.content", "must be a string or a list of blocks")
        return calls, texts
    for index, block in enumerate(content):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        if kind != "tool_use":
            continue
        block_where = f"{where}, block {index}"
        call_id = block.get("id")
        name = block.get("name")
        if type(call_id) is not str or not call_id:
            pairer.problem(block_where, "id", "missing or not a string")
            continue
        if type(name) is not str or not name:
            pairer.problem(block_where, "name", "missing or not a string")
            continue
        args = block.get("input")
        if type(args) is not dict:  # R35: the Messages API's input is an object
            pairer.refuse(call_id, block_where, "input", "missing or not an object")
            continue
        pairer.call(call_id, name, args, where=block_where, field_name="id", agent_id=agent)
        calls.append({"id": call_id, "name": name, "args": args})
        if name in ("Task", "Agent") and isinstance(args, dict):
            prompt = args.get("prompt")
            if isinstance(prompt, str):
                prompts.setdefault(prompt, []).append(call_id)
    return calls, texts


def _user(
    content: Any,
    record: Mapping[str, Any],
    pairer: CallPairer,
    where: str,
    talk: ConversationBuilder | None,
) -> None:
    if isinstance(content, str):
        if talk is not None and record.get("isMeta") is not True:
            talk.user(content)
        return
    if not isinstance(content, list):
        pairer.problem(where, "message.content", "must be a string or a list of blocks")
        return
    texts: list[str] = []
    extra = {"toolUseResult": record["toolUseResult"]} if "toolUseResult" in record else None
    for index, block in enumerate(content):
        if type(block) is not dict:
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
            continue
        if kind != "tool_result":
            continue
        block_where = f"{where}, block {index}"
        call_id = block.get("tool_use_id")
        if type(call_id) is not str or not call_id:
            pairer.problem(block_where, "tool_use_id", "missing or not a string")
            continue
        flag = block.get("is_error")
        failed = flag if type(flag) is bool else read_flag(flag, pairer, block_where, "is_error")
        if failed is None:
            pairer.discard(call_id)
            continue
        raw = block.get("content")
        if type(raw) is str:  # the usual result: one text (what the blocks and result_text give)
            blocks, text = [{"type": "text", "text": raw}], raw
        elif raw is not None and type(raw) is not list:  # R35: not served as an empty result
            pairer.problem(block_where, "content", "not text or a list of blocks")
            pairer.discard(call_id)
            continue
        else:
            blocks = [as_text_block(b) for b in raw or ()]  # a list, or none at all
            text = result_text(blocks)
        pairer.result(
            call_id,
            {"content": blocks},
            failed,
            where=block_where,
            field_name="tool_use_id",
            error_message=(text or "tool call failed") if failed else None,
            extra=extra,
        )
        if talk is not None and talk.made(call_id):  # not a sub-agent's call's result
            talk.tool(call_id, text, failed)
    if talk is not None and texts and record.get("isMeta") is not True:
        talk.user("\n".join(texts))
