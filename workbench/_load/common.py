"""What the format modules share: flags read strictly (R35), tool-call arguments, result text,
made-up ids for empty call ids, and the tally of records that are not tool calls (R35). The
conversation builder (R40) is ``conversation.ConversationBuilder``.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple, TypeVar

import orjson

from .._common.jsonio import json_text
from .._common.toolresult import result_text
from .conversation import ConversationBuilder
from .pairing import CallPairer
from .reading import MAX_DEPTH, value_problem
from .records import LoadProblem, PromotedRun

_orjson_loads = orjson.loads
_OrjsonError = orjson.JSONDecodeError
_LONG_DIGITS = re.compile("[0-9]{19}").search

__all__ = [
    "CHAT_ARGUMENTS",
    "STREAMED_INPUT",
    "CallIds",
    "FlagRefused",
    "RecordTally",
    "StreamRun",
    "duration_ms",
    "gen_ai_call_id",
    "is_block_list",
    "is_output_tool",
    "is_text_or_parts",
    "json_args",
    "json_kind",
    "read_flag",
    "refuse_result",
    "refuse_wrong_args",
    "text_of",
    "wrong_typed_args",
]


OUTPUT_TOOL = "final_result"
"""pydantic-ai's output tool: ``final_result``, or ``final_result_<type>`` for several output
types. Calling it ends the run with its arguments as the output; no request ever carries a
result for it, by design (R36)."""


def is_output_tool(name: str) -> bool:
    """Whether ``name`` is pydantic-ai's output tool: a terminal call in a recorded cassette."""
    return name == OUTPUT_TOOL or name.startswith(OUTPUT_TOOL + "_")


def gen_ai_call_id(value: Any) -> str | None:
    """A span's ``gen_ai.tool.call.id``: a string, or the last of a list of strings (Microsoft's
    Agent Framework of 2025 wrote ``[run id, call id]``, the call's own id last); else
    ``None``."""
    if isinstance(value, str):
        return value or None
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return value[-1] or None
    return None


def json_args(raw: Any) -> Any:
    """Tool-call arguments: a JSON string is decoded; a string that is not JSON, or whose JSON
    holds what the workbench refuses in a file (NaN or infinity, an integer past 64 bits, a lone
    surrogate, nesting past ``MAX_DEPTH``: R35), is kept as the string it is, so that no value
    is changed and every promoted suite can be written.

    orjson decodes the common case at four times ``json``'s speed. It refuses NaN and lone
    surrogates itself; a string it refuses, and one with a run of 19 digits (orjson reads an
    integer past 64 bits as a float), go to ``json`` and are checked there."""
    if not isinstance(raw, str):
        return raw
    if len(raw) < 19 or _LONG_DIGITS(raw) is None:  # (a shorter text holds no 19 digits)
        try:
            value = _orjson_loads(raw)
        except _OrjsonError:
            pass
        else:
            # (a text no longer than the limit cannot nest past it: no count)
            if len(raw) <= MAX_DEPTH or raw.count("[") + raw.count("{") <= MAX_DEPTH:
                return value
            return raw if value_problem(value, full=False) is not None else value
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):  # ValueError: JSONDecodeError, or digits past 4,300
        return raw
    return raw if value_problem(value) is not None else value


def text_of(content: Any) -> str:
    """The text of a result or message: a string, or the text of a list of parts or blocks.

    Parts may be ``{"type": "text" | "input_text" | "output_text", "text": ...}``, Gemini
    ``{"text": ...}`` parts, or strings; other parts add no text.
    """
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        text = content.get("text")
        return text if isinstance(text, str) else ""
    if isinstance(content, Sequence) and not isinstance(content, bytes | bytearray):
        blocks = []
        for part in content:
            if isinstance(part, str):
                blocks.append({"type": "text", "text": part})
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                blocks.append({"type": "text", "text": part["text"]})
        return result_text(blocks)
    return ""


def read_flag(
    value: Any,
    pairer: CallPairer,
    where: str,
    field_name: str,
    *,
    absent: bool = False,
    null: bool = False,
) -> bool | None:
    """A boolean failure flag read strictly (R35): ``None``/absent is ``absent``, a bool is
    itself, anything else (``"true"``, ``1``; ``null`` too when ``null`` says the member was
    there, in a format that never writes it so) is a problem and ``None`` is returned."""
    if value is None and not null:
        return absent
    if isinstance(value, bool):
        return value
    pairer.problem(
        where,
        field_name,
        f"a failure flag must be true or false, not {json_text(value)[:40]} "
        "(read as neither: a wrongly typed flag is never taken for a success)",
    )
    return None


def is_text_or_parts(value: Any) -> bool:
    """Whether a result is text or a list of parts (each an object, or text as some writers
    put it): what the chat formats write; a number, a boolean, an object or a list holding
    one of those is of no type they write (R35)."""
    if isinstance(value, str):
        return True
    return isinstance(value, list) and all(isinstance(part, dict | str) for part in value)


def is_block_list(value: Any) -> bool:
    """Whether a result is a list of objects (MCP's ``content``, Bedrock's ``toolResult``
    ``content``): what those formats write, and nothing else."""
    return isinstance(value, list) and all(isinstance(part, dict) for part in value)


def refuse_result(
    pairer: CallPairer,
    call_id: str,
    where: str,
    field_name: str,
    should_be: str,
    line: int | None = None,
) -> None:
    """A result of a type its format never writes (R35): a problem naming what it should be,
    and its call forgotten: neither a success (it was served as an empty one) nor a failure."""
    said = f"{should_be} (a result of a type the format never writes)"
    pairer.problem(where, field_name, said, line)
    pairer.discard(call_id)


STREAMED_INPUT = "workbench:streamedInput"
"""The member ``chat_streams`` sets on a streamed ``tool_use`` block whose input JSON text did
not decode (kept as that text, R35): the text is what the model streamed, not an input of a
type never written. Not an ``x-`` member: it is no member of the block to keep (R4)."""


class FlagRefused(NamedTuple):
    """The failure flag a converter gives a Messages-shaped result whose own flag it could not
    read (R35): the field of the recorded format and what is wrong with it, which the Messages
    reader reports there. No decoded JSON is one (JSON arrays decode to lists)."""

    field: str
    said: str


_JSON_KINDS = {bool: "a boolean", int: "a number", float: "a number", str: "text", list: "a list"}


def json_kind(value: Any) -> str:
    """What a decoded JSON value is, as a problem says it (``null``, ``a number``, ...)."""
    if value is None:
        return "null"
    return _JSON_KINDS.get(type(value), "an object")


_SHOULD_BE: dict[type | tuple[type, ...], str] = {Mapping: "an object", str: "JSON text"}
"""What a call's arguments of a format should be, by the ``kind`` given to
:func:`refuse_wrong_args` (any other: JSON text or an object)."""


CHAT_ARGUMENTS: tuple[type, ...] = (str, Mapping)
"""What Chat Completions ``arguments`` may be: JSON text, or (as some SDK dumps store them)
the object it decodes to."""


def wrong_typed_args(raw: Any, kind: type | tuple[type, ...]) -> bool:
    """Whether a call's arguments are present (not ``None``) and not ``kind``: of a type their
    format never writes (R35; :func:`refuse_wrong_args` says so)."""
    return raw is not None and not isinstance(raw, kind)


def refuse_wrong_args(
    raw: Any,
    kind: type | tuple[type, ...],
    pairer: CallPairer,
    call_id: str,
    where: str,
    field_name: str,
    *,
    null: bool = False,
) -> bool:
    """Whether a call's arguments are of a type its format never writes (R35): present and not
    ``kind`` (``Mapping``: an object, as Anthropic's ``tool_use.input``, Gemini's ``args``;
    ``str``: JSON text, as Responses' ``arguments``, whose text may hold any JSON; both, as
    Chat Completions' ``arguments``, which some SDK dumps store decoded). Then the call is
    refused naming its place and field, and its result, when one comes, goes with it: it was
    promoted with those arguments. Absent (``None``) is read as before: the caller's
    concern, unless ``null`` says the member was there, written ``null``."""
    if not wrong_typed_args(raw, kind) and not (null and raw is None):
        return False
    was = json_kind(raw)
    said = _SHOULD_BE.get(kind, "JSON text or an object")
    message = f"{was}, not {said} (call arguments of a type the format never writes)"
    pairer.refuse(call_id, where, field_name, message)
    return True


@dataclass(slots=True)
class RecordTally:
    """How many records of each kind a file held (R35: each is a boundary's part, a known
    non-tool record, or a problem), and the unknown ones, kept opaquely (R4)."""

    counts: Counter[str] = field(default_factory=Counter)
    unknown: list[Any] = field(default_factory=list)

    def add(self, kind: str) -> None:
        counts = self.counts
        counts[kind] = counts.get(kind, 0) + 1

    def other(self, kind: str, record: Any) -> None:
        self.counts[kind] += 1
        self.unknown.append(record)

    def to_metadata(self) -> dict[str, Any]:
        out: dict[str, Any] = {"records": dict(sorted(self.counts.items()))}
        if self.unknown:
            out["otherRecords"] = self.unknown
        return out


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


@dataclass(slots=True)
class StreamRun:
    """One run of a headless stream being read (``codex_exec``, ``gemini_cli_stream``): its
    calls paired, its records counted, its conversation, its model turns and last answer.
    Each stream's own run adds what that stream says of it."""

    file: str
    pairer: CallPairer = field(init=False)
    tally: RecordTally = field(default_factory=RecordTally)
    talk: ConversationBuilder = field(default_factory=ConversationBuilder)
    turn: int = 0
    answer: str | None = None

    def __post_init__(self) -> None:
        self.pairer = CallPairer(self.file)


Run = TypeVar("Run")


def promote_runs(
    runs: Sequence[Run],
    keep: Callable[[Run], bool],
    promote: Callable[[Run, int], tuple[PromotedRun, list[LoadProblem]]],
    problems: list[LoadProblem],
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """The runs a stream of records was split into, promoted: each that ``keep`` keeps, by
    ``promote(run, its number among all the runs)``, its problems added to ``problems`` (the
    stream's own), all of them in line order."""
    out: list[PromotedRun] = []
    for number, run in enumerate(runs):
        if keep(run):
            promoted, more = promote(run, number)
            out.append(promoted)
            problems.extend(more)
    problems.sort(key=lambda p: p.line or 0)
    return out, problems


def duration_ms(start: Any, end: Any) -> int | None:
    """Milliseconds from ``start`` to ``end`` (ISO 8601 times), or ``None``."""
    if not isinstance(start, str) or not isinstance(end, str):
        return None
    try:
        took = datetime.fromisoformat(end) - datetime.fromisoformat(start)
    except (ValueError, TypeError):  # not a time, or one with a zone and one without
        return None
    milliseconds = round(took.total_seconds() * 1000)
    return milliseconds if milliseconds >= 0 else None
