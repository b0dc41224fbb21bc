"""What the format modules share: the conversation builder (R40), flags read strictly (R35),
tool-call arguments, result text, and the tally of records that are not tool calls (R35).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .._common.toolresult import result_text
from .pairing import CallPairer
from .records import Conversation

__all__ = [
    "CallIds",
    "ConversationBuilder",
    "RecordTally",
    "json_args",
    "read_flag",
    "text_of",
]


def json_args(raw: Any) -> Any:
    """Tool-call arguments: a JSON string is decoded (a string that is not JSON is kept)."""
    if isinstance(raw, str):
        try:
            return json.loads(raw) if raw.strip() else {}
        except (json.JSONDecodeError, RecursionError):
            return raw
    return raw


def text_of(content: Any) -> str:
    """The text of a result or message: a string, or the text of a list of parts or blocks.

    Parts may be ``{"type": "text" | "input_text" | "output_text", "text": ...}``, Gemini
    ``{"text": ...}`` parts, or strings; other parts add no text.
    """
    if isinstance(content, str):
        return content
    if isinstance(content, Mapping):
        text = content.get("text")
        return text if isinstance(text, str) else ""
    if isinstance(content, Sequence) and not isinstance(content, bytes | bytearray):
        blocks = []
        for part in content:
            if isinstance(part, str):
                blocks.append({"type": "text", "text": part})
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                blocks.append({"type": "text", "text": part["text"]})
        return result_text(blocks)
    return ""


def read_flag(
    value: Any, pairer: CallPairer, where: str, field_name: str, *, absent: bool = False
) -> bool | None:
    """A boolean failure flag read strictly (R35): ``None``/absent is ``absent``, a bool is
    itself, anything else (``"true"``, ``1``) is a problem and ``None`` is returned."""
    if value is None:
        return absent
    if isinstance(value, bool):
        return value
    pairer.problem(
        where,
        field_name,
        f"a failure flag must be true or false, not {json.dumps(value, ensure_ascii=False)[:40]} "
        "(read as neither: a wrongly typed flag is never taken for a success)",
    )
    return None


@dataclass(slots=True)
class RecordTally:
    """How many records of each kind a file held (R35: each is a boundary's part, a known
    non-tool record, or a problem), and the unknown ones, kept opaquely (R4)."""

    counts: Counter[str] = field(default_factory=Counter)
    unknown: list[Any] = field(default_factory=list)

    def add(self, kind: str) -> None:
        self.counts[kind] += 1

    def other(self, kind: str, record: Any) -> None:
        self.counts[kind] += 1
        self.unknown.append(record)

    def to_metadata(self) -> dict[str, Any]:
        out: dict[str, Any] = {"records": dict(sorted(self.counts.items()))}
        if self.unknown:
            out["otherRecords"] = self.unknown
        return out


@dataclass(slots=True)
class ConversationBuilder:
    """Builds a :class:`~workbench.Conversation` in the neutral message shape (R40)."""

    messages: list[dict[str, Any]] = field(default_factory=list)
    _tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    _called: dict[str, None] = field(default_factory=dict)

    def system(self, text: str) -> None:
        if text:
            self.messages.append({"role": "system", "content": text})

    def user(self, text: str, **extra: Any) -> None:
        self.messages.append({"role": "user", "content": text, **_x(extra)})

    def assistant(
        self,
        text: str | None,
        calls: Sequence[tuple[str, str, Any]] = (),
        **extra: Any,
    ) -> None:
        message: dict[str, Any] = {"role": "assistant", "content": text or None}
        if calls:
            message["toolCalls"] = [{"id": i, "name": n, "args": a} for i, n, a in calls]
            for _, name, _ in calls:
                self._called.setdefault(name, None)
        message.update(_x(extra))
        # One API message split over several records (Claude Code) is one turn.
        last = self.messages[-1] if self.messages else None
        turn = extra.get("turn")
        same_turn = turn is not None and last is not None and last.get("x-turn") == turn
        if last is not None and same_turn and last["role"] == "assistant":
            if text:
                last["content"] = f"{last['content']}\n{text}" if last["content"] else text
            if calls:
                last.setdefault("toolCalls", []).extend(message["toolCalls"])
            return
        self.messages.append(message)

    def tool(self, call_id: str, name: str, text: str, is_error: bool, **extra: Any) -> None:
        self.messages.append(
            {
                "role": "tool",
                "toolCallId": call_id,
                "name": name,
                "content": text,
                "isError": is_error,
                **_x(extra),
            }
        )

    def define(self, name: str, description: str | None = None, schema: Any = None) -> None:
        """A tool definition as recorded."""
        tool: dict[str, Any] = {"name": name}
        if isinstance(description, str) and description:
            tool["description"] = description
        if schema is not None:
            tool["inputSchema"] = schema
        self._tools.setdefault(name, tool)

    def build(self, model: str | None = None) -> Conversation | None:
        """The conversation, or ``None`` when the recording held no message."""
        if not self.messages:
            return None
        inferred = not self._tools
        tools = self._tools or {name: {"name": name} for name in self._called}
        return Conversation(
            messages=tuple(self.messages),
            tools=tuple(tools.values()),
            tools_inferred=inferred,
            model=model,
        )


def _x(extra: Mapping[str, Any]) -> dict[str, Any]:
    if not extra:
        return {}
    return {f"x-{k}": v for k, v in extra.items() if v is not None}


@dataclass(slots=True)
class CallIds:
    """Call ids for formats whose ids may be empty (AgentDojo on Gemini, ``""`` for every
    call): an empty id gets a made-up one (``<prefix>-<n>``), and a result with an empty id
    pairs with the earliest such call still open (answers come in call order)."""

    prefix: str
    _waiting: list[str] = field(default_factory=list)
    _made: int = 0

    def for_call(self, raw: Any) -> str:
        if isinstance(raw, str) and raw:
            return raw
        self._made += 1
        made = f"{self.prefix}-{self._made}"
        self._waiting.append(made)
        return made

    def for_result(self, raw: Any) -> str | None:
        if isinstance(raw, str) and raw:
            return raw
        return self._waiting.pop(0) if self._waiting else None
