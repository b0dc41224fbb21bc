"""OpenWOP v2 event logs (JSONL or a JSON array of RunEventDocs) as promoted runs (SPEC R1-R4).

Events are grouped by ``runId`` (a file may hold several runs), ordered by ``sequence``, and v1
type names are normalised to v2. ``agent.tool-called`` / ``agent.tool-returned`` pairs become tool
boundaries; every other event is carried opaquely on the run's metadata (R4).

The loader streams. A JSONL log is read a line at a time and each event is handled as it arrives:
a call is held open until its result comes, then becomes a boundary, and the event dict is let go.
A file is read as bytes. A line that is a usual tool event is decoded by msgspec straight into a
typed struct (which takes no integer past 64 signed bits); any other line by orjson; any line
orjson refuses or might decode differently goes through ``json`` as text, so the result is what
``json.loads`` on each line of the file read in text mode gives (see ``_FAST_LOADS`` and
``_TYPED_DECODE``).
Only when a run's ``sequence`` goes backwards does the loader need the run's events in order: it
then reads the source a second time, keeps that run's events, sorts them and builds the run again.
Either way the result is the same as sorting every run's events first.

Longer than 400 lines: the per-line loop is inlined on purpose (no helper call per event, local
names bound once), which is what keeps loading within a small factor of a bare decode loop; it is
one loop, and splitting it across modules would cost that speed (docs/performance.md).
"""

from __future__ import annotations

import io
import itertools
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from operator import attrgetter
from typing import TYPE_CHECKING, Annotated, Any, Generic, Literal, TypeVar, get_args

import msgspec
import orjson

from .._common.jsonio import json_text
from .._common.toolresult import error_text
from .reading import (
    MAX_DEPTH,
    MAX_LINE_BYTES,
    NUMPY_SCAN_FROM,
    DigitRuns,
    gc_paused,
    value_problem,
    values_one_after_another,
)
from .records import (
    BOUNDARY_SETTERS,
    UNBUILT_BOUNDARY,
    LoadError,
    LoadProblem,
    PromotedRun,
    ToolBoundary,
)

__all__ = [
    "V1_TO_V2",
    "ByteSource",
    "LineSource",
    "holds_no_event",
    "load_openwop",
    "load_openwop_bytes",
    "load_openwop_lines",
    "load_openwop_text",
    "normalise_type",
]

# v1 event type names and their v2 names, read off the official payload schema's two type
# indexes (``$defs._typeIndex`` is v1, the root ``_typeIndex`` is v2: same $def, other name).
V1_TO_V2: dict[str, str] = {
    "agent.toolCalled": "agent.tool-called",
    "agent.toolReturned": "agent.tool-returned",
    "agent.invocation.started": "agent.invocation-started",
    "agent.invocation.completed": "agent.invocation-completed",
    "agent.reasoning.delta": "agent.reasoning-delta",
    "agent.promptResolved": "agent.prompt-resolved",
    "agent.memory.consolidated": "agent.memory-consolidated",
    "run.resuming": "run.resume-started",
    "run.dead_lettered": "run.dead-lettered",
    "replay.divergedAtRefusal": "replay.diverged-at-refusal",
    "model.capability.substituted": "model.capability-substituted",
    "model.capability.insufficient": "model.capability-insufficient",
    "envelope.retry.attempted": "envelope.retry-attempted",
    "envelope.retry.exhausted": "envelope.retry-exhausted",
    "envelope.nlToFormat.engaged": "envelope.nl-to-format-engaged",
    "envelope.recovery.applied": "envelope.recovery-applied",
    "runOrchestrator.decided": "orchestrator.decided",
    "core.dispatch.fanOut": "dispatch.fanned-out",
    "core.dispatch.join": "dispatch.joined",
    "core.workflowChain.event": "workflow-chain.event",
    "core.workflowChain.confidence-escalated": "workflow-chain.confidence-escalated",
    "connector.auth_expired": "connector.auth-expired",
    "deployment.canary.adjusted": "deployment.canary-adjusted",
    "deployment.state.changed": "deployment.state-changed",
    "roster.run.initiated": "roster.run-initiated",
    "tool.session.opened": "tool.session-opened",
    "tool.session.closed": "tool.session-closed",
    "trigger.subscription.state.changed": "trigger.subscription-state-changed",
    "trigger.delivery.attempted": "trigger.delivery-attempted",
    "budget.threshold.crossed": "budget.threshold-crossed",
    "voice.speech_start": "voice.speech-start",
    "voice.endpoint_candidate": "voice.endpoint-candidate",
    "voice.turn_commit": "voice.turn-commit",
    "voice.synthesis_chunk": "voice.synthesis-chunk",
    "voice.barge_in": "voice.barge-in",
    "compensation.manual_intervention_required": "compensation.manual-intervention-required",
}

TOOL_CALLED = "agent.tool-called"
TOOL_RETURNED = "agent.tool-returned"
_FAILED_STATUSES = frozenset({"error", "forbidden", "rate_limited"})
_CALLED_KNOWN = frozenset({"agentId", "toolName", "callId", "inputs"})
_RETURNED_KNOWN = frozenset(
    {"agentId", "toolName", "callId", "outcome", "error", "status", "durationMs"}
)
_ENVELOPE_KNOWN = frozenset(
    {"eventId", "runId", "type", "payload", "timestamp", "sequence", "schemaVersion"}
)
# The envelope's optional members in the official schema (run-event.schema.json), which the
# loader does not read: kept as extras, in this order, before any unknown member (R4).
_ENVELOPE_OPTIONAL = ("nodeId", "engineVersion", "causationId")


# The values of a usual tool event, as msgspec decodes them. Every integer in them fits in 64
# signed bits: msgspec refuses any other, where into ``Any`` it would decode one past 64 bits
# whole, which the workbench refuses (R35), and orjson would make a float of it. A line the typed
# decode takes thus needs no search for long numbers (see ``_LongNumberLines``); a line with such
# an integer (or one between 2**63 and 2**64, which the workbench takes) is decoded whole, as any
# other line. A value nests at most ``_VALUE_DEPTH`` arrays and objects deep (a type per level:
# msgspec has no recursive type on Python 3.11, and the types' size doubles with each level);
# a deeper one sends its line to ``_DEEP_DECODE``, once its block is searched for long numbers.
_VALUE_DEPTH = 6
if TYPE_CHECKING:
    _Scalar = Any
    _Value = Any
    _Int64 = int
else:
    _Int64 = Annotated[int, msgspec.Meta(ge=-(1 << 63), le=(1 << 63) - 1)]
    _Scalar = None | bool | _Int64 | float | str
    _Value = _Scalar
    for _ in range(_VALUE_DEPTH):
        _Value = _Scalar | list[_Value] | dict[str, _Value]


# The usual tool events, decoded by msgspec straight into these (its C code reads and checks the
# fields the loader needs, where reading a dict would take Python code). A line that is anything
# else (another event type, an unknown member, a field of another type, a missing required
# member) fails to decode into them and is decoded whole and handled in full, as before.
# A member the loader reads with ``dict.get`` on the full path has a default here (``None``,
# what ``get`` gives): a failed result usually has no ``outcome``, and is still a usual event.
# Members the usual writers give a string or a number are of the type ``_S``, other values
# ``_V``, the sequence ``_I``: ``_Scalar``, ``_Value`` and ``_Int64`` for the decode tried first
# (``_TYPED_DECODE``), ``Any`` and ``int`` for the one of values nested deeper
# (``_DEEP_DECODE``). Either way an event is an instance of the same class (msgspec's generic
# structs), which the loop tells by one type test.
# Fields are declared in the order the usual writers put the members: msgspec looks a member up
# from the field after the last one found, so a member in that order is found at the first try.
_Status = Literal["ok", "error", "forbidden", "rate_limited"]
"""An ``agent.tool-returned`` payload's ``status`` (the schema's enum)."""
_S = TypeVar("_S")
_V = TypeVar("_V")
_I = TypeVar("_I")


class _CalledPayload(
    msgspec.Struct, Generic[_S, _V], forbid_unknown_fields=True, kw_only=True, gc=False
):
    agentId: _S | None = None
    toolName: str
    callId: str
    inputs: _V | None = None


class _ReturnedPayload(
    msgspec.Struct, Generic[_S, _V], forbid_unknown_fields=True, kw_only=True, gc=False
):
    agentId: _S | None = None
    toolName: _S | None = None
    callId: str
    outcome: _V | None = None
    error: _V | None = None
    status: _Status | None = None  # (any other value: the full reading names it, R35)
    durationMs: _S | None = None


class _ToolEvent(
    msgspec.Struct, Generic[_S, _V, _I], forbid_unknown_fields=True, kw_only=True, gc=False
):
    """The envelope members of a usual tool event (``type`` is the tag of each subclass)."""

    eventId: _S | None = None
    runId: str
    timestamp: _S | None = None
    sequence: _I
    schemaVersion: _S | None = None


class _CalledEvent(
    _ToolEvent[_S, _V, _I], Generic[_S, _V, _I], tag_field="type", tag=TOOL_CALLED, kw_only=True
):
    payload: _CalledPayload[_S, _V]


class _ReturnedEvent(
    _ToolEvent[_S, _V, _I], Generic[_S, _V, _I], tag_field="type", tag=TOOL_RETURNED, kw_only=True
):
    payload: _ReturnedPayload[_S, _V]


class _ToolEventWithOptional(_ToolEvent[_S, _V, _I], Generic[_S, _V, _I], kw_only=True):
    """With the schema's optional envelope members, which the loader keeps as extras
    (``envelope.NAME``). A usual event has none: the classes above leave them out, so that
    telling it takes one type test, and an event with any is decoded into the two below."""

    nodeId: _S | msgspec.UnsetType | None = msgspec.UNSET
    engineVersion: _S | msgspec.UnsetType | None = msgspec.UNSET
    causationId: _S | msgspec.UnsetType | None = msgspec.UNSET


class _CalledEventWithOptional(
    _ToolEventWithOptional[_S, _V, _I],
    Generic[_S, _V, _I],
    tag_field="type",
    tag=TOOL_CALLED,
    kw_only=True,
):
    payload: _CalledPayload[_S, _V]


class _ReturnedEventWithOptional(
    _ToolEventWithOptional[_S, _V, _I],
    Generic[_S, _V, _I],
    tag_field="type",
    tag=TOOL_RETURNED,
    kw_only=True,
):
    payload: _ReturnedPayload[_S, _V]


def _tool_event_decoders(
    scalar: Any, value: Any, integer: Any
) -> tuple[
    Callable[[bytes], _ToolEvent[Any, Any, Any]], Callable[[bytes], _ToolEvent[Any, Any, Any]]
]:
    """The typed decodes of a usual tool event, without and with the optional members."""
    plain = _CalledEvent[scalar, value, integer] | _ReturnedEvent[scalar, value, integer]
    optional = (
        _CalledEventWithOptional[scalar, value, integer]
        | _ReturnedEventWithOptional[scalar, value, integer]
    )
    return msgspec.json.Decoder(plain).decode, msgspec.json.Decoder(optional).decode


_TYPED_DECODE, _TYPED_DECODE_OPTIONAL = _tool_event_decoders(_Scalar, _Value, _Int64)
"""A usual tool event, without and with the envelope's optional members (the other is tried
when one refuses a line; the first tried once it decodes one, until it refuses one)."""
_DEEP_DECODE, _DEEP_DECODE_OPTIONAL = _tool_event_decoders(Any, Any, int)
"""The same for a value nested past ``_VALUE_DEPTH``: integers of any size, so that only a line
searched for long numbers (and not too deep, ``_too_deep``) may be given to them."""

# Tool names and agent ids repeat on every call; one shared copy of each saves memory on large
# logs. The table is capped so a log with a fresh name per call cannot grow it without end.
_MAX_SHARED_STRINGS = 4096

LineSource = Callable[[], AbstractContextManager[Iterable[str]]]
"""Opens the log's lines afresh (the loader may read them twice, see the module docstring)."""

ByteSource = Callable[[], AbstractContextManager[Iterable[bytes]]]
"""Opens the log's bytes afresh, as chunks of any size in file order (UTF-8 JSONL)."""

_index_of = attrgetter("index")
# Building a boundary slot by slot is twice as fast as its frozen dataclass __init__ (see
# workbench._load.records.new_boundary); the loader's inner loop does it inline.
_new_object = object.__new__
(
    _set_index,
    _set_call_id,
    _set_tool,
    _set_args,
    _set_response,
    _set_is_error,
    _set_error_code,
    _set_error_message,
    _set_duration_ms,
    _set_agent_id,
    _set_location,
    _set_extra,
) = BOUNDARY_SETTERS


def normalise_type(event_type: str) -> str:
    """The v2 name of an event type (v1 names normalised, R1; unknown names kept as they are)."""
    return V1_TO_V2.get(event_type, event_type)


# --- decoding --------------------------------------------------------------------------------

_DECODER = json.JSONDecoder()
# The decoder's scanner (the C one when available): ``scan(text, index) -> (value, end)``. It is
# an instance attribute the stubs do not declare, hence ``vars``.
_SCAN: Callable[[str, int], tuple[Any, int]] = vars(_DECODER)["scan_once"]
_JSON_SPACE = " \t\n\r"


def _decode_line(raw: str) -> Any:
    """``json.loads(raw)``, by the decoder's scanner when the line allows (same result, faster).

    ``json.loads`` skips leading JSON whitespace, scans one value and refuses anything but JSON
    whitespace after it. A line that starts with a value and ends with whitespace only is scanned
    directly; every other line, and every error, goes through ``json.loads`` itself.
    """
    try:
        doc, end = _SCAN(raw, 0)
    except (StopIteration, ValueError):
        return json.loads(raw)
    if end != len(raw) and raw[end:].strip(_JSON_SPACE):
        return json.loads(raw)
    return doc


# orjson decodes a line of bytes 2-3x faster than ``json``. It is stricter (it refuses NaN,
# Infinity, lone surrogate escapes and numbers that overflow a double, and a UTF-8 BOM), and for
# any line it refuses, the loader decodes that line as text with ``json`` exactly as before. Where
# orjson accepts a line it returns what ``json.loads`` returns (same values, same key order, the
# last of duplicate keys wins), with one exception the loader checks for: it turns an integer
# beyond 64 bits into a float. Such an integer has 19 digits or more, so a line holding a run of
# 19 digits anywhere goes to ``json`` without asking orjson (conservative: a digit run inside a
# string costs only speed). ``_FAST_DECODE = False`` makes ``load_runs`` read JSONL files in text
# mode with ``json`` only, the reference the tests compare with.
_FAST_DECODE = True
_FAST_LOADS: Callable[[bytes], Any] = orjson.loads
_FAST_ERROR = orjson.JSONDecodeError
# Digits as "0", line breaks kept, everything else a space: a long run of digits is then a long
# run of "0" (found by ``bytes.find``), and its line is found by counting line breaks.
_DIGITS_AS_ZERO = bytes(
    0x30 if 0x30 <= byte <= 0x39 else 0x0A if byte == 0x0A else 0x20 for byte in range(256)
)
_LONG_NUMBER = b"0" * 19
_DEEP_LINE = 2 * MAX_DEPTH  # shorter lines cannot nest past the limit


def _line_blocks(
    chunks: Iterable[bytes], file: str = ""
) -> Iterator[tuple[list[bytes], frozenset[int]]]:
    """A file's lines, split after each ``b"\\n"`` only, a block at a time.

    Yields ``(lines, special)``: the lines, each with its ``b"\\n"`` (only a file's last line
    may have none), and the indexes of the lines orjson must not decode: those holding a run of
    19 digits or more, or a carriage return other than the one before the line break (a line
    break in text mode). Both are found once per block, by a few ``bytes`` scans
    (:func:`_split_blocks`, :class:`_LongNumberLines`).
    """
    long_numbers = _LongNumberLines()
    for lines, returns, block, joined in _split_blocks(chunks, file):
        found = long_numbers(block, lines, joined)
        yield lines, found | returns if returns else found


_Block = tuple[list[bytes], frozenset[int], bytes, bool]
"""``(lines, returns, block, joined)``: see :func:`_split_blocks`."""


def _split_blocks(chunks: Iterable[bytes], file: str) -> Iterator[_Block]:
    """A file's lines, split after each ``b"\\n"`` only, a read chunk at a time.

    Yields ``(lines, returns, block, joined)``: the lines, each with its ``b"\\n"`` (only a
    file's last line may have none); the indexes of those holding a carriage return other than
    the one before the line break (a line break in text mode: found at once, one ``bytes``
    search when there is none); the block they were split from, and whether the first line was
    joined with the end of earlier blocks (for :class:`_LongNumberLines`, which finds the lines
    holding long numbers when asked). A block is split by ``BytesIO.readlines`` (memchr in C;
    ``bytes.split`` tests byte by byte).
    """
    pending: list[bytes] = []  # the start of a line that has not ended yet
    pending_size = 0
    done = 0  # lines yielded so far
    for chunk in chunks:
        newline = chunk.find(b"\n")
        if newline < 0:
            pending.append(chunk)
            pending_size += len(chunk)
            if pending_size > MAX_LINE_BYTES:
                pending.clear()
                raise _line_too_long(file, done + 1)
            continue
        if pending and pending_size + newline > MAX_LINE_BYTES:
            pending.clear()
            raise _line_too_long(file, done + 1)
        lines = io.BytesIO(chunk).readlines()
        tail = lines.pop() if lines[-1][-1:] != b"\n" else b""  # a line not ended yet
        returns = _return_lines(chunk, lines)
        joined = bool(pending)
        if joined:  # the first line began in earlier chunks: join it, and look at it whole
            pending.append(lines[0])
            lines[0] = b"".join(pending)
            pending.clear()
            if _return_lines(lines[0], lines[:1]):
                returns = returns | {0}
        pending_size = 0
        if tail:
            pending.append(tail)
            pending_size = len(tail)
        done += len(lines)
        yield lines, returns, chunk, joined
    if pending:
        last = b"".join(pending)
        if last:
            yield [last], _return_lines(last, [last]), last, False


class _LongNumberLines:
    """Finds the lines of a file's blocks that hold a run of 19 digits or more, block by block
    in file order: by ``bytes`` scans at first, by numpy's (:class:`_NumpyLongNumbers`, about
    4x faster) once it has scanned ``_NUMPY_SCAN_FROM`` bytes or where numpy is imported already
    (a notebook with pandas), so that numpy's import is paid only where it pays back."""

    __slots__ = ("scan", "scanned")

    def __init__(self) -> None:
        self.scan: Callable[[bytes], frozenset[int]] = _long_number_lines_by_translate
        self.scanned = 0

    def __call__(self, block: bytes, lines: list[bytes], joined: bool) -> frozenset[int]:
        """The indexes of the block's lines holding a long number (``joined``: its first line
        began in earlier blocks, and is scanned whole)."""
        if self.scan is _long_number_lines_by_translate and (
            self.scanned >= _NUMPY_SCAN_FROM or _numpy_imported()
        ):
            self.scan = _NumpyLongNumbers()
        self.scanned += len(block)
        found = self.scan(block)
        if joined and _long_number_lines_by_translate(lines[0]):
            found = found | {0}
        return found


_TOOL_TAG = b'"agent.tool-'  # in every line the typed decodes take (their tags' start)


def _deep_event(line: bytes) -> _ToolEvent[Any, Any, Any] | None:
    """A usual tool event with values nested past ``_VALUE_DEPTH`` (the line searched for long
    numbers already, and found to hold none), decoded typed; ``None`` for any other line, and
    for one that may nest past ``MAX_DEPTH`` (:func:`_too_deep`), which is decoded whole."""
    if _too_deep(line):
        return None
    try:
        return _DEEP_DECODE(line)
    except msgspec.DecodeError:
        try:
            return _DEEP_DECODE_OPTIONAL(line)
        except msgspec.DecodeError:
            return None


def _line_too_long(file: str, line: int) -> LoadError:
    return LoadError(
        [
            LoadProblem(
                file,
                f"line {line}",
                "",
                f"line {line} is longer than {MAX_LINE_BYTES // (1024 * 1024)} MiB; the "
                "workbench does not read lines that long",
                line,
            )
        ]
    )


def bounded_text_lines(lines: Iterable[str], file: str) -> Iterator[str]:
    """The text lines of a log, refused at the first one longer than the line limit.

    (Text mode reads a whole line before it can be measured; this mode is the reference the
    tests compare with, so it keeps that, measured in characters.)
    """
    for number, line in enumerate(lines, start=1):
        if len(line) > MAX_LINE_BYTES:
            raise LoadError(
                [LoadProblem(file, f"line {number}", "", "line longer than the limit", number)]
            )
        yield line


def _return_lines(block: bytes, lines: list[bytes]) -> frozenset[int]:
    """The indexes of a block's lines holding a carriage return other than the one before the
    line break (a line break in text mode, see :func:`_split_blocks`)."""
    if b"\r" in block and block.count(b"\r") != block.count(b"\r\n"):
        return frozenset(
            index
            for index, line in enumerate(lines)
            if b"\r" in line and line.find(b"\r") != len(line) - 1 - line.endswith(b"\n")
        )
    return _NO_LINES


_NO_LINES: frozenset[int] = frozenset()


def _long_number_lines_by_translate(block: bytes) -> frozenset[int]:
    """Indexes of a block's lines holding a run of 19 digits or more (``bytes`` scans only)."""
    return _long_number_lines(block.translate(_DIGITS_AS_ZERO), _LONG_NUMBER)


class _NumpyLongNumbers(DigitRuns):
    """:func:`_long_number_lines_by_translate`, by numpy (``reading.DigitRuns``): the same
    lines, about 4x faster. The line of each run's start is its count of line breaks before it.
    """

    __slots__ = ()

    def __call__(self, block: bytes) -> frozenset[int]:
        run = self.starts(block)
        if run is None or not run.any():
            return frozenset()
        np = self.np
        starts = np.flatnonzero(run)
        breaks = np.flatnonzero(np.frombuffer(block, dtype=np.uint8) == 10)
        return frozenset(np.searchsorted(breaks, starts).tolist())


# numpy's scan starts once this many bytes of a log were searched (``reading.NUMPY_SCAN_FROM``),
# or at once where numpy is imported already (a notebook with pandas): then it costs no import.
_NUMPY_SCAN_FROM = NUMPY_SCAN_FROM


def _numpy_imported() -> bool:
    return "numpy" in sys.modules


def _long_number_lines(digits: bytes, long_number: bytes) -> frozenset[int]:
    """Indexes of the lines of a block (``_DIGITS_AS_ZERO``) holding a long run of digits."""
    found = digits.find(long_number)
    if found < 0:
        return frozenset()
    hits: set[int] = set()
    index = 0
    start = 0
    while found >= 0:
        index += digits.count(b"\n", start, found)
        hits.add(index)
        start = found
        found = digits.find(long_number, digits.find(b"\n", found) + 1 or len(digits))
    return frozenset(hits)


def _byte_line_docs(
    chunks: Iterable[bytes], file: str, problems: list[LoadProblem]
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, event)`` for each JSON object line of a log's bytes (read in chunks).

    Gives the same events, line numbers and problems as reading the file in text mode (UTF-8,
    universal newlines) and decoding each line with ``json.loads``: a line orjson cannot vouch
    for is decoded as text (:func:`_slow_line_docs`). Invalid UTF-8 raises UnicodeDecodeError,
    as reading it in text mode does. :meth:`_Assembler.feed_bytes` is this loop with the usual
    tool events decoded typed and handled inline.
    """
    lineno = 0
    for lines, special in _line_blocks(chunks, file):
        first = lineno + 1  # the block's first line, whose index is 0
        for line in lines:
            lineno += 1
            if special and lineno - first in special:
                found, last = _slow_line_docs(line, lineno, file, problems)
            else:
                found, last = _whole_line_docs(line, lineno, file, problems)
            first += last - lineno  # a lone CR made more than one text line
            lineno = last
            yield from found


def _whole_line_docs(
    line: bytes, lineno: int, file: str, problems: list[LoadProblem]
) -> tuple[list[tuple[int, dict[str, Any]]], int]:
    """The events of one raw line decoded whole: by orjson, else as text
    (:func:`_slow_line_docs`), with the number of the line's last text line. A line that is not
    an object, or nests too deep, is a problem instead of an event."""
    try:
        doc = _FAST_LOADS(line)
    except _FAST_ERROR:
        return _slow_line_docs(line, lineno, file, problems)
    if type(doc) is not dict:
        problems.append(_not_an_object(file, lineno))
        return [], lineno
    if _too_deep(line) and (bad := value_problem(doc, full=False)):
        problems.append(_hostile(file, lineno, *bad))
        return [], lineno
    return [(lineno, doc)], lineno


def _slow_line_docs(
    line: bytes, lineno: int, file: str, problems: list[LoadProblem]
) -> tuple[list[tuple[int, dict[str, Any]]], int]:
    """The events of a raw line orjson cannot vouch for, decoded as text mode would have it.

    Returns them with the number of the line's last text line: a lone carriage return (a line
    break in text mode) splits the raw line into the text lines it would have been.
    """
    text = line.decode("utf-8")
    newline = ""
    if text.endswith("\n"):
        text = text[:-1]
        newline = "\n"
    found: list[tuple[int, dict[str, Any]]] = []
    if "\r" in text and text.find("\r") != len(text) - 1:
        raws = list(io.StringIO(text + newline, newline=None))
    else:
        raws = [(text[:-1] if text.endswith("\r") else text) + newline]
    for number, raw in enumerate(raws, start=lineno):
        found.extend((number, doc) for doc in _text_line_events(raw, file, number, problems))
    return found, lineno + len(raws) - 1


def _text_line_docs(
    lines: Iterable[str], file: str, problems: list[LoadProblem]
) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, event)`` for each JSON object line of a log's text lines."""
    for lineno, raw in enumerate(lines, start=1):
        for doc in _text_line_events(raw, file, lineno, problems):
            yield lineno, doc


def _text_line_events(
    raw: str, file: str, lineno: int, problems: list[LoadProblem]
) -> list[dict[str, Any]]:
    """The event on a text line (none after noting why: blank, no problem); the events of a
    line holding several one after another, the line break between them lost (read as every
    JSONL format reads them, ``reading.values_one_after_another``)."""
    try:
        doc = _decode_line(raw)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            found = values_one_after_another(raw.encode("utf-8"), file, lineno)
            if found is not None and all(type(each) is dict for each in found):
                return found
        if raw.strip():
            problems.append(_invalid_line(raw, file, lineno))
        return []
    except (ValueError, RecursionError):  # an integer of > 4300 digits; nesting past recursion
        problems.append(_hostile(file, lineno, "(root)", "a value the workbench cannot hold"))
        return []
    if type(doc) is not dict:
        problems.append(_not_an_object(file, lineno))
        return []
    bad = value_problem(doc)  # json accepts NaN, lone surrogates, any integer (R35)
    if bad is not None:
        problems.append(_hostile(file, lineno, *bad))
        return []
    return [doc]


def _hostile(file: str, lineno: int, field: str, message: str) -> LoadProblem:
    return LoadProblem(file, f"line {lineno}", "" if field == "(root)" else field, message, lineno)


def _too_deep(line: bytes) -> bool:
    """Whether a line orjson decoded may nest past ``MAX_DEPTH`` (it has no depth limit).

    A line shorter than twice the limit cannot (a container takes two bytes at least). A longer
    one is measured by its brackets, ``[`` first: the containers on a path are its arrays, no
    more than the line's ``[``, and its objects, no more than the line's ``{`` and no more than
    ``(len + 3) // 5`` (an object holding the next container takes five bytes, ``{"":`` and
    ``}``; the innermost takes two). Most lines are cleared by that bound without counting
    ``{``, and the common case costs one ``len``.
    """
    size = len(line)
    return (
        size > _DEEP_LINE
        and (arrays := line.count(b"[")) + (size + 3) // 5 > MAX_DEPTH
        and arrays + line.count(b"{") > MAX_DEPTH
    )


def _invalid_line(raw: str, file: str, lineno: int) -> LoadProblem:
    # Decode the line without its line break, so the message reads as it would for the line alone
    # (a break inside an unterminated string would otherwise be reported as a control character).
    try:
        json.loads(raw.rstrip("\r\n"))
        message = "invalid JSON"
    except json.JSONDecodeError as exc:
        message = f"invalid JSON: {exc.msg}"
    return LoadProblem(file, f"line {lineno}", "", message, lineno)


_NOT_AN_OBJECT = "an event must be a JSON object"
_NO_TYPE = "event has no string type"
_NOT_EVENTS = frozenset({_NOT_AN_OBJECT, _NO_TYPE})
"""The messages of the problems of a record that is no event at all (not an object, or no
``type``), not a broken one: a file of such records is in no format (``loader``)."""


def holds_no_event(problems: Iterable[LoadProblem], events: bool) -> bool:
    """Whether what a log gave (its problems; ``events``: whether any run holds a call, a
    result or another event) holds no event, broken or not: no event, a problem at least, and
    each saying a record is no event (an event with a broken payload, or a line that is no
    JSON, keeps the file a log). Asked of a whole file (``loader``) and, reading on a guess, of
    its first lines (:meth:`_Assembler.no_events_so_far`)."""
    if events:
        return False
    found = False
    for problem in problems:
        if problem.message not in _NOT_EVENTS:
            return False
        found = True
    return found


def _not_an_object(file: str, lineno: int) -> LoadProblem:
    return LoadProblem(file, f"line {lineno}", "", _NOT_AN_OBJECT, lineno)


_Events = Callable[
    [list[LoadProblem]], AbstractContextManager[Iterator[tuple[int, dict[str, Any]]]]
]
"""Opens a JSONL log's ``(line number, event)`` pairs afresh, noting bad lines in the list."""


# --- public entry points ---------------------------------------------------------------------


def load_openwop_lines(
    source: LineSource, file: str
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """Promoted runs from a JSONL log, streamed; ``source()`` opens its lines (maybe twice)."""
    return _load_lines(_text_docs(source, file), file)


class NoEventsRead(Exception):
    """A log read on a guess (its first records of no format) held no event in its first
    ``lines`` lines: it is no log, and the rest is not read (``load_openwop_bytes``)."""

    def __init__(self, lines: int) -> None:
        super().__init__(lines)
        self.lines = lines


def load_openwop_bytes(
    source: ByteSource, file: str, *, give_up_after: int | None = None
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """Like :func:`load_openwop_lines` from the bytes of a UTF-8 file (faster: orjson).

    ``give_up_after``: raise :class:`NoEventsRead` once that many lines are read with no event
    among them (a file read as a log only because no format told itself: 15 million lines of
    ``{}`` took 55 s and 2.9 GB to say so)."""

    def first_read(assembler: _Assembler, problems: list[LoadProblem]) -> None:
        with source() as chunks:
            assembler.feed_bytes(chunks, problems, give_up_after)

    return _load_lines(_byte_docs(source, file), file, first_read)


def _text_docs(source: LineSource, file: str) -> _Events:
    @contextmanager
    def events(problems: list[LoadProblem]) -> Iterator[Iterator[tuple[int, dict[str, Any]]]]:
        with source() as lines:
            yield _text_line_docs(lines, file, problems)

    return events


def _byte_docs(source: ByteSource, file: str) -> _Events:
    @contextmanager
    def events(problems: list[LoadProblem]) -> Iterator[Iterator[tuple[int, dict[str, Any]]]]:
        with source() as chunks:
            yield _byte_line_docs(chunks, file, problems)

    return events


def _load_lines(
    events: _Events,
    file: str,
    first_read: Callable[[_Assembler, list[LoadProblem]], None] | None = None,
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """Promoted runs from a JSONL log; ``events(problems)`` reads its events (maybe twice).

    ``first_read(assembler, problems)``, when given, does the first read instead (faster, the
    same events).
    """
    problems: list[LoadProblem] = []
    assembler = _Assembler(file, lines=True)
    with gc_paused():
        if first_read is not None:
            first_read(assembler, problems)
        else:
            with events(problems) as docs:
                assembler.feed(docs)
        if assembler.reread:

            def again() -> Iterator[tuple[int, dict[str, Any]]]:
                with events([]) as docs:  # problems were reported on the first read
                    yield from docs

            assembler.rebuild(again())
        runs = assembler.finish(problems)
    return runs, problems


def load_openwop_text(text: str, file: str) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """Promoted runs from a log's text: JSONL, or a JSON array when it starts with ``[``."""
    if text.lstrip().startswith("["):
        try:
            items = json.loads(text)
        except json.JSONDecodeError as exc:
            where = f"line {exc.lineno}, column {exc.colno}"
            problem = LoadProblem(file, where, "", f"invalid JSON: {exc.msg}", exc.lineno)
            return [], [problem]
        return load_openwop(items, file)
    return load_openwop_lines(lambda: io.StringIO(text, newline=None), file)


def load_openwop(
    items: Iterable[Any],
    file: str,
    problems: list[LoadProblem] | None = None,
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """Promoted runs from the decoded items of a JSON array log (each should be an event)."""
    found = list(problems or [])
    kept = items if isinstance(items, list | tuple) else list(items)
    assembler = _Assembler(file, lines=False)
    with gc_paused():
        for index, doc in enumerate(kept):
            if isinstance(doc, dict):
                assembler.route(doc, index)
            else:
                found.append(LoadProblem(file, f"item {index}", "", _NOT_AN_OBJECT))
        if assembler.reread:
            assembler.rebuild((i, doc) for i, doc in enumerate(kept) if isinstance(doc, dict))
        runs = assembler.finish(found)
    return runs, found


# --- assembling runs -------------------------------------------------------------------------


def _order_of(doc: Mapping[str, Any], position: int) -> int:
    """The event's place in its run: its ``sequence``, or its position when it has none (R1).

    Events sort by ``(order, position)``, so events without a sequence keep their file place
    relative to each other, as before streaming.
    """
    seq = doc.get("sequence")
    if type(seq) is int or (isinstance(seq, int) and not isinstance(seq, bool)):
        return int(seq)
    return position


class _Assembler:
    """Routes events to their run's builder, in file order, while each run stays in order.

    A run whose order goes backwards is given up on the first read and rebuilt by
    :meth:`rebuild` from the source's events read again and sorted.
    """

    __slots__ = ("builders", "file", "lines", "reread", "shared")

    def __init__(self, file: str, *, lines: bool) -> None:
        self.file = file
        self.lines = lines
        self.shared: dict[str, str] = {}
        self.builders: dict[str, _RunBuilder] = {}
        self.reread: list[str] = []

    def builder(self, key: str) -> _RunBuilder:
        builder = self.builders.get(key)
        if builder is None:
            builder = self.builders[key] = _RunBuilder(key, self.file, self.lines, self.shared)
        return builder

    def give_up(self, builder: _RunBuilder) -> None:
        if not builder.given_up:
            builder.given_up = True
            builder.last = float("inf")  # every later event of the run is out of order too
            self.reread.append(builder.run_id)

    def route(self, doc: dict[str, Any], position: int) -> None:
        run_id = doc.get("runId")
        builder = self.builder(run_id if isinstance(run_id, str) else "")
        order = _order_of(doc, position)
        if order < builder.last:
            self.give_up(builder)
        else:
            builder.last = order
            builder.feed(doc, position)

    def feed(self, events: Iterable[tuple[int, dict[str, Any]]]) -> None:
        """The first read of a JSONL log's events: :meth:`route` and :meth:`_RunBuilder.feed`
        inlined."""
        key: str | None = None
        builder: _RunBuilder | None = None
        for lineno, doc in events:
            run_id = doc.get("runId")
            if run_id != key or builder is None:
                builder = self.builder(run_id if isinstance(run_id, str) else "")
                key = run_id if isinstance(run_id, str) else None
            seq = doc.get("sequence")
            order = seq if type(seq) is int else _order_of(doc, lineno)
            if order < builder.last:
                self.give_up(builder)
                continue
            builder.last = order
            event_type = doc.get("type")
            if event_type == TOOL_CALLED:
                builder.call(doc, lineno)
            elif event_type == TOOL_RETURNED:
                builder.result(doc, lineno)
            else:
                builder.feed(doc, lineno)

    def feed_bytes(
        self, chunks: Iterable[bytes], problems: list[LoadProblem], give_up: int | None = None
    ) -> None:
        """The first read of a JSONL log's bytes: :func:`_byte_line_docs`, :meth:`feed` and the
        common case of :meth:`_RunBuilder.call` and :meth:`_RunBuilder.result` inlined.

        Gives the same events, line numbers, boundaries and problems as those, in less time
        (docs/performance.md). A line is first decoded by msgspec into :class:`_CalledEvent` or
        :class:`_ReturnedEvent`, which only a usual tool event fits (no member beyond the known
        ones, so none is extra, R4; every field the loader reads of the usual type; every
        integer within 64 signed bits, so that these lines need no search for long numbers, and
        no value nested past ``_VALUE_DEPTH``). Any other line is decoded whole (orjson, else
        ``json``: its block is searched for long numbers then) and routed as :meth:`feed` does.
        A usual
        event the inlined code is not sure of (a problem to report) is decoded whole and goes to
        the builder's method, which decides exactly as before; nothing is changed before that.
        """
        file = self.file
        fast = _FAST_LOADS
        typed, other_typed = _TYPED_DECODE, _TYPED_DECODE_OPTIONAL
        typed_error = msgspec.DecodeError
        bounded = True  # typed, other_typed: the 64-bit decodes (else the deep ones)
        deep_line = _DEEP_LINE
        max_depth = MAX_DEPTH
        tool_tag = _TOOL_TAG
        tagged = False  # whether the line holds it (asked once the first typed decode refuses)
        called, called_optional, returned = _CalledEvent, _CalledEventWithOptional, _ReturnedEvent
        failed_statuses = _FAILED_STATUSES
        max_shared = _MAX_SHARED_STRINGS
        new_object = _new_object
        unbuilt = UNBUILT_BOUNDARY
        boundary_class = ToolBoundary
        shared = self.shared
        key: str | None = None
        builder: _RunBuilder | None = None
        # the current builder's open calls, finished boundaries and location prefix
        open_calls: dict[str, tuple[int, str, Any, int, str | None, dict[str, Any]]] = {}
        done: list[ToolBoundary] = []
        prefix = ""
        lineno = 0
        long_numbers = _LongNumberLines()
        for lines, returns, block, joined in _split_blocks(chunks, file):
            if give_up is not None and lineno >= give_up:  # (checked a block at a time)
                if self.no_events_so_far(problems):
                    raise NoEventsRead(lineno)
                give_up = None
            first = lineno + 1  # the block's first line, whose index is 0
            numbers: frozenset[int] | None = None  # its lines with a long number, once asked
            if not bounded:  # each block starts with the 64-bit decode
                bounded = True
                typed, other_typed = _TYPED_DECODE, _TYPED_DECODE_OPTIONAL
            for line in lines:
                lineno += 1
                if returns and lineno - first in returns:
                    found, last_line = _slow_line_docs(line, lineno, file, problems)
                    first += last_line - lineno  # a lone CR made more than one text line
                    lineno = last_line
                    self.feed(found)
                    continue
                event = None
                if bounded or not (
                    (numbers and lineno - first in numbers)
                    or (
                        (size := len(line)) > deep_line
                        and (arrays := line.count(b"[")) + (size + 3) // 5 > max_depth
                        and arrays + line.count(b"{") > max_depth
                    )
                ):  # (the deep decode: only a line with no long number, not too deep)
                    try:
                        event = typed(line)
                    except typed_error:
                        if line.isspace():  # a blank line: nothing, as in text mode (fast)
                            continue
                        tagged = tool_tag in line  # (no typed decode takes a line without)
                        if tagged:
                            try:  # the other typed decode (with or without optional members)
                                event = other_typed(line)
                                typed, other_typed = other_typed, typed
                            except typed_error:
                                pass
                if event is None:
                    # Not a usual tool event of 64-bit integers and shallow values. Its block is
                    # searched for long numbers (once): a line holding one is decoded by
                    # ``json``; a usual tool event of deeper values by the deep decode, as are
                    # the block's next lines (such values come in runs); any other line whole.
                    if numbers is None:
                        numbers = long_numbers(block, lines, joined)
                    if numbers and lineno - first in numbers:
                        found, last_line = _slow_line_docs(line, lineno, file, problems)
                    elif bounded and tagged and (event := _deep_event(line)) is not None:
                        bounded = False
                        typed, other_typed = _DEEP_DECODE, _DEEP_DECODE_OPTIONAL
                    else:
                        found, last_line = _whole_line_docs(line, lineno, file, problems)
                    if event is None:
                        first += last_line - lineno
                        lineno = last_line
                        self.feed(found)
                        continue
                run_id = event.runId
                if run_id != key or builder is None:
                    builder = self.builder(run_id)
                    key = run_id
                    open_calls = builder.open
                    done = builder.done
                    prefix = builder.prefix
                seq = event.sequence
                if seq < builder.last:
                    self.give_up(builder)
                    continue
                builder.last = seq
                payload = event.payload  # type: ignore[attr-defined]
                kind = type(event)
                if kind is called or kind is called_optional:
                    call_id = payload.callId
                    tool = payload.toolName
                    if not call_id or not tool or call_id in open_calls:
                        builder.call(fast(line), lineno)  # reports what is wrong
                        continue
                    known = shared.get(tool)
                    if known is not None:
                        tool = known
                    elif len(shared) < max_shared:
                        shared[tool] = tool
                    agent = payload.agentId
                    if type(agent) is str:
                        known = shared.get(agent)
                        if known is not None:
                            agent = known
                        elif len(shared) < max_shared:
                            shared[agent] = agent
                    else:
                        agent = None
                    # the envelope's optional members: rare in logs, kept as extras (R4)
                    extra = {} if kind is called else _envelope_extras(event)
                    open_calls[call_id] = (
                        builder.calls,
                        tool,
                        payload.inputs,
                        lineno,
                        agent,
                        extra,
                    )
                    builder.calls += 1
                    continue
                call_id = payload.callId
                opened = open_calls.pop(call_id, None)  # an empty id is never open
                if opened is None:
                    builder.result(fast(line), lineno)  # reports what is wrong
                    continue
                number, tool, args, called_at, agent, extra = opened
                if kind is not returned:
                    found_extra = _envelope_extras(event)
                    extra = {**extra, **{f"returned.{k}": v for k, v in found_extra.items()}}
                response = payload.outcome
                status = payload.status
                error = payload.error
                flag = response.get("isError") if type(response) is dict else None
                if error is not None or status in failed_statuses or flag is True:
                    is_error = True
                    code, message, response = _failure(error, status, response)
                elif flag is not None and flag is not False:  # no boolean (R35): the full
                    open_calls[call_id] = opened  # reading names it
                    builder.result(fast(line), lineno)
                    continue
                else:
                    is_error = False
                    code = message = None
                duration = payload.durationMs
                # new_boundary, inlined: slot stores, then the class
                boundary = new_object(unbuilt)
                boundary.index = number
                boundary.call_id = call_id
                boundary.tool = tool
                boundary.args = args
                boundary.response = response
                boundary.is_error = is_error
                boundary.error_code = code
                boundary.error_message = message
                boundary.duration_ms = duration if type(duration) is int else None
                boundary.agent_id = agent
                boundary.location = f"{prefix}{called_at}"
                boundary.extra = extra
                boundary.__class__ = boundary_class  # type: ignore[assignment]
                done.append(boundary)  # type: ignore[arg-type]
                if number < builder.top:
                    builder.in_order = False
                else:
                    builder.top = number

    def no_events_so_far(self, problems: list[LoadProblem]) -> bool:
        """Whether what was read so far holds no event, broken or not: no run holds a call, a
        result or another event, and each problem (one at least) says a record is no event
        (``loader._nothing_read``'s test, on the lines read so far: an event with a broken
        payload, or a line that is no JSON, keeps the file read as a log)."""
        builders = self.builders.values()
        events = any(b.calls or b.done or b.other for b in builders)
        return holds_no_event(itertools.chain(problems, *(b.problems for b in builders)), events)

    def rebuild(self, events: Iterable[tuple[int, dict[str, Any]]]) -> None:
        """Build the given-up runs again from ``events`` (every event, read again), sorted."""
        buckets: dict[str, list[tuple[int, int, dict[str, Any]]]] = {key: [] for key in self.reread}
        for position, doc in events:
            run_id = doc.get("runId")
            bucket = buckets.get(run_id if isinstance(run_id, str) else "")
            if bucket is not None:
                bucket.append((_order_of(doc, position), position, doc))
        for key, bucket in buckets.items():
            bucket.sort(key=lambda event: (event[0], event[1]))
            fresh = _RunBuilder(key, self.file, self.lines, self.shared)
            for _, position, doc in bucket:
                fresh.feed(doc, position)
            self.builders[key] = fresh  # same key: the run keeps its place in file order

    def finish(self, problems: list[LoadProblem]) -> list[PromotedRun]:
        runs: list[PromotedRun] = []
        total = len(self.builders)
        for number, builder in enumerate(self.builders.values()):
            runs.append(builder.finish(number, total))
            problems.extend(builder.problems)
        return runs


class _RunBuilder:
    """One run's state while its events arrive in sequence order."""

    __slots__ = (
        "answer",
        "calls",
        "done",
        "file",
        "given_up",
        "in_order",
        "invocation_outcome",
        "last",
        "lines",
        "open",
        "other",
        "outcome",
        "prefix",
        "problems",
        "run_id",
        "shared",
        "top",
    )

    def __init__(self, run_id: str, file: str, lines: bool, shared: dict[str, str]) -> None:
        self.run_id = run_id
        self.file = file
        self.lines = lines
        self.prefix = f"{file}:" if lines else f"{file}: item "  # a boundary's location
        self.shared = shared
        self.last: float = -1
        self.given_up = False
        # call id -> (call order, tool, args, position, agent id, extra)
        self.open: dict[str, tuple[int, str, Any, int, str | None, dict[str, Any]]] = {}
        self.calls = 0
        self.done: list[ToolBoundary] = []
        self.top = -1
        self.in_order = True
        self.other: list[dict[str, Any]] = []
        self.outcome = "completed"
        self.answer: Any = None
        self.invocation_outcome: str | None = None
        self.problems: list[LoadProblem] = []

    # places and problems

    def where(self, position: int) -> str:
        return f"line {position}" if self.lines else f"item {position}"

    def problem(self, position: int, field_name: str, message: str) -> None:
        line = position if self.lines else None
        self.problems.append(
            LoadProblem(self.file, self.where(position), field_name, message, line)
        )

    def share(self, text: str) -> str:
        shared = self.shared
        if len(shared) < _MAX_SHARED_STRINGS:
            shared[text] = text
        return text

    # events

    def feed(self, doc: dict[str, Any], position: int) -> None:
        event_type = doc.get("type")
        if event_type == TOOL_CALLED:
            self.call(doc, position)
        elif event_type == TOOL_RETURNED:
            self.result(doc, position)
        elif isinstance(event_type, str):
            event_type = V1_TO_V2.get(event_type, event_type)
            if event_type == TOOL_CALLED:
                self.call(doc, position)
            elif event_type == TOOL_RETURNED:
                self.result(doc, position)
            else:
                self.other_event(doc, event_type)
        else:
            self.problem(position, "type", _NO_TYPE)

    def call(self, doc: dict[str, Any], position: int) -> None:
        payload = doc.get("payload")
        if type(payload) is not dict and not isinstance(payload, Mapping):
            self.problem(position, "payload", "tool event has no payload object")
            return
        call_id = payload.get("callId")
        if not isinstance(call_id, str) or not call_id:
            self.problem(position, "payload.callId", "missing or not a string")
            call_id = None
        tool = payload.get("toolName")
        if not isinstance(tool, str) or not tool:
            self.problem(position, "payload.toolName", "missing or not a string")
            return
        if call_id is None:
            return
        open_calls = self.open
        if call_id in open_calls:
            first = open_calls[call_id]
            self.problem(
                position,
                "payload.callId",
                f"call id {call_id!r} is already open (made at {self.where(first[3])}, "
                "not yet answered)",
            )
            return
        shared = self.shared
        tool = shared.get(tool) or self.share(tool)
        agent = payload.get("agentId")
        agent = (shared.get(agent) or self.share(agent)) if isinstance(agent, str) else None
        args = payload.get("inputs")
        if _CALLED_KNOWN.issuperset(payload) and _ENVELOPE_KNOWN.issuperset(doc):
            extra: dict[str, Any] = {}
        else:
            extra = _extras(doc, payload, _CALLED_KNOWN)
            if "inputs" not in payload:
                args = _v1_alias(extra, _V1_INPUTS, args)
        open_calls[call_id] = (self.calls, tool, args, position, agent, extra)
        self.calls += 1

    def result(self, doc: dict[str, Any], position: int) -> None:
        payload = doc.get("payload")
        if type(payload) is not dict and not isinstance(payload, Mapping):
            self.problem(position, "payload", "tool event has no payload object")
            return
        call_id = payload.get("callId")
        if not isinstance(call_id, str) or not call_id:
            self.problem(position, "payload.callId", "missing or not a string")
            return
        opened = self.open.pop(call_id, None)
        if opened is None:
            self.problem(
                position, "payload.callId", f"result for call id {call_id!r} has no open call"
            )
            return
        order, tool, args, called_at, agent, extra = opened
        error = payload.get("error")
        status = payload.get("status")
        response = payload.get("outcome")
        plain = _RETURNED_KNOWN.issuperset(payload) and _ENVELOPE_KNOWN.issuperset(doc)
        returned: dict[str, Any] | None = None
        if not plain:
            returned = _extras(doc, payload, _RETURNED_KNOWN)
            if "outcome" not in payload:
                response = _v1_alias(returned, _V1_OUTCOMES, response)
        code: str | None = None
        message: str | None = None
        wrong = _wrong_signal(status, response)
        if wrong is not None:  # R35: a failure signal of a type or value no host writes
            self.problem(position, wrong[0], f"{wrong[1]}: call {call_id!r} is not served")
            return
        if (
            error is not None
            or (isinstance(status, str) and status in _FAILED_STATUSES)
            or (
                (type(response) is dict or isinstance(response, Mapping))
                and response.get("isError") is True
            )
        ):
            is_error = True
            code, message, response = _failure(error, status, response)
        else:
            is_error = False
        duration = payload.get("durationMs")
        if type(duration) is not int and (
            not isinstance(duration, int) or isinstance(duration, bool)
        ):
            duration = None
        if returned:
            extra = {**extra, **{f"returned.{k}": v for k, v in returned.items()}}
        boundary = _new_object(ToolBoundary)
        _set_index(boundary, order)
        _set_call_id(boundary, call_id)
        _set_tool(boundary, tool)
        _set_args(boundary, args)
        _set_response(boundary, response)
        _set_is_error(boundary, is_error)
        _set_error_code(boundary, code)
        _set_error_message(boundary, message)
        _set_duration_ms(boundary, duration)
        _set_agent_id(boundary, agent)
        _set_location(boundary, f"{self.prefix}{called_at}")
        _set_extra(boundary, extra)
        self.done.append(boundary)
        if order < self.top:
            self.in_order = False
        else:
            self.top = order

    def other_event(self, doc: dict[str, Any], event_type: str) -> None:
        self.other.append(doc)
        payload = doc.get("payload")
        if not isinstance(payload, Mapping):
            return
        if event_type == "agent.decided":
            decision = payload.get("decision")
            if isinstance(decision, Mapping) and ("answer" in decision or "outcome" in decision):
                self.answer = decision.get("answer")
                if isinstance(decision.get("outcome"), str):
                    self.outcome = decision["outcome"]
            else:
                self.answer = decision
        elif event_type == "agent.invocation-completed":
            value = payload.get("outcome")
            if isinstance(value, str):
                self.invocation_outcome = value
        elif event_type == "run.failed":
            self.invocation_outcome = self.invocation_outcome or "failed"

    # the run

    def finish(self, number: int, total: int) -> PromotedRun:
        """The run, with its boundaries in call order, indexed 0..n-1 (R2)."""
        unanswered = sorted(self.open.items(), key=lambda item: item[1][0])
        for call_id, (_, tool, _, called_at, _, _) in unanswered:
            self.problem(
                called_at, "payload.callId", f"call {call_id!r} to {tool!r} is never answered"
            )
        self.open.clear()
        done = self.done
        if not self.in_order:
            done.sort(key=_index_of)
        if unanswered or not self.in_order:
            for index, boundary in enumerate(done):
                if boundary.index != index:
                    _set_index(boundary, index)
        outcome = self.invocation_outcome if self.invocation_outcome is not None else self.outcome
        return PromotedRun(
            run_id=self.run_id or f"run-{number}",
            boundaries=tuple(done),
            source=self.file,
            format="openwop",
            outcome=outcome,
            answer=self.answer,
            task_key=_task_key(self.run_id, number, total),
            metadata={"otherEvents": self.other},
        )


_STATUSES = frozenset(get_args(_Status))


def _wrong_signal(status: Any, outcome: Any) -> tuple[str, str] | None:
    """The field and what is wrong when a result's ``status`` is none of the schema's values
    or its MCP outcome's ``isError`` is no boolean (R35: neither is ever read as a success)."""
    if status is not None and not (type(status) is str and status in _STATUSES):
        return (
            "payload.status",
            f"{json_text(status)[:40]}, not ok, error, forbidden or rate_limited",
        )
    flag = outcome.get("isError") if isinstance(outcome, Mapping) else None
    if flag is not None and not isinstance(flag, bool):
        return (
            "payload.outcome.isError",
            f"a failure flag must be true or false, not {json_text(flag)[:40]}",
        )
    return None


def _failure(error: Any, status: Any, outcome: Any) -> tuple[str | None, str | None, Any]:
    """The error code, message and recorded response of a failed result (R3)."""
    code: str | None = None
    message: str | None = None
    response: Any = outcome
    if isinstance(error, Mapping):
        code = error.get("code") if isinstance(error.get("code"), str) else None
        message = error.get("message") if isinstance(error.get("message"), str) else None
    elif isinstance(error, str):
        message = error
    if code is None and isinstance(status, str) and status != "error":
        code = status
    if outcome is None or not isinstance(outcome, Mapping):
        # The failure's payload is the error object itself (or the status, when the tool
        # never ran): keep it whole so promotion can serve exactly what was recorded.
        response = error if error is not None else {"status": status}
        if outcome is not None:
            response = {"error": error, "outcome": outcome}
    if message is None:
        content = outcome.get("content") if isinstance(outcome, Mapping) else None
        message = error_text(content) if content is not None else (code or "tool call failed")
    return code, message, response


# Payload names some v1 hosts use for a call's inputs and a result's outcome. They are read only
# when the v2 name is absent, and only on the slow path (a payload with members beyond the v2
# ones), so a v2 log pays nothing for them.
_V1_INPUTS = ("input", "args", "arguments")
_V1_OUTCOMES = ("result", "output")


def _v1_alias(extra: dict[str, Any], names: tuple[str, ...], default: Any) -> Any:
    """The value of the first of ``names`` in ``extra`` (taken out of it), else ``default``."""
    for name in names:
        if name in extra:
            return extra.pop(name)
    return default


def _task_key(run_id: str, number: int, total: int) -> str:
    if not run_id:
        return f"run-{number}"
    opaque = run_id.rsplit("/", 1)[-1]
    return opaque if total > 1 else "run"


def _extras(
    doc: Mapping[str, Any], payload: Mapping[str, Any], known: frozenset[str]
) -> dict[str, Any]:
    """Unknown payload members by name, unknown envelope members as ``envelope.NAME`` (R4)."""
    extra: dict[str, Any] = {}
    for key in payload:
        if key not in known:
            extra[key] = payload[key]
    for key in _ENVELOPE_OPTIONAL:  # the schema's own, in its order (as the typed path has them)
        if key in doc:
            extra[f"envelope.{key}"] = doc[key]
    for key in doc:
        if key not in _ENVELOPE_KNOWN and key not in _ENVELOPE_OPTIONAL:
            extra[f"envelope.{key}"] = doc[key]
    return extra


def _envelope_extras(event: _ToolEvent[Any, Any, Any]) -> dict[str, Any]:
    """:func:`_extras` of a typed tool event: its optional envelope members (it has no other)."""
    return {
        f"envelope.{name}": value
        for name in _ENVELOPE_OPTIONAL
        if (value := getattr(event, name)) is not msgspec.UNSET
    }
