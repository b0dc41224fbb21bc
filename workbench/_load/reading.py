"""Reading run files that may be hostile: bounded, strict, and every refusal has a place (R35).

Every loader reads its file through this module, so the same limits and the same messages hold
for every format:

- Only regular files are read. A FIFO, a device (``/dev/zero``), a socket or a folder is refused
  from its ``stat`` before it is opened, so nothing blocks and nothing endless is read.
- No line longer than :data:`MAX_LINE_BYTES` is ever held in memory: the file is read a
  megabyte at a time and refused at the first line that outgrows the limit, naming that line. A
  1 GB file on one line costs at most the limit, not a gigabyte.
- JSON is decoded strictly (RFC 8259): ``NaN``, ``Infinity``, a lone surrogate escape
  (``"\\ud800"``), a UTF-8 byte order mark, a number that overflows a double, an integer that
  does not fit in 64 bits and nesting deeper than :data:`MAX_DEPTH` are problems naming the
  file, the line and the field (a JSON path such as ``payload.inputs.n``), never tracebacks and
  never values that load and then fail in promotion.
- A gzip file is read through a decompressor with the same limits (and :data:`MAX_FILE_BYTES`
  in all), a zip archive member by member with :data:`MAX_FILE_BYTES` per member, YAML
  (HTTP cassettes) with the safe loader and no aliases (no "billion laughs").
- A document larger than :data:`MAX_LINE_BYTES` (a file read whole, a gzip's or a pipe's
  content; each zip member over a megabyte) is decoded only when its value would take at
  most :data:`MAX_DECODED_RATIO` times its size in memory (:func:`refuse_dense`):
  ``[[],[],...]`` decodes to some 27 times its size (a 2 GiB one to about 57 GB), where a
  recording takes at most 6.

orjson decodes first (it is strict already about most of these and fast); only a document it
refuses, or one holding a run of 19 digits (orjson would turn a big integer into a float), goes
through ``json`` with checks, which also finds the place of the problem.

Longer than 400 lines: every limit and every strict-JSON refusal lives here, once, with the
code that finds its line and field; splitting it would put one rule (R35's) in two places.
"""

from __future__ import annotations

import errno
import gc
import json
import math
import os
import re
import stat
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import msgspec
import orjson

from .._common.jsonio import read_input_bytes
from .problem_cap import MAX_LISTED_PROBLEMS, unlisted
from .records import LoadError, LoadProblem

__all__ = [
    "EXTRA_DATA",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_LINE_BYTES",
    "decode_json",
    "decode_json_lines",
    "first_bad_utf8",
    "gc_paused",
    "has_long_digits",
    "may_be_json",
    "read_file_bytes",
    "read_pipe_bytes",
    "refuse_dense",
    "refuse_special",
    "value_problem",
    "values_one_after_another",
]

MAX_LINE_BYTES = 64 * 1024 * 1024
"""The longest line read (64 MiB): a longer one is refused, not read whole."""
MAX_FILE_BYTES = 2 * 1024 * 1024 * 1024
"""The most a whole-document format (JSON, a gzip's or zip member's content) may hold: 2 GiB."""
MAX_DEPTH = 200
"""The deepest nesting of arrays and objects a value may have (Python's recursion is the limit
of every later step: redaction, canonical JSON, writing the suite)."""
_INT_MIN = -(1 << 63)
_INT_MAX = (1 << 64) - 1
_CHUNK = 1 << 20
_DIGITS_AS_ZERO = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_LONG_RUN = b"0" * 19
_SCAN_CHUNK = 4 * 1024 * 1024


def has_long_digits(data: bytes) -> bool:
    """Whether ``data`` holds a run of 19 digits or more (where a big integer may be).

    Digits become ``0`` and all else a space (``bytes.translate``), then a substring search:
    ten times the speed of a ``[0-9]{19}`` regex, which tries every digit as a start. Data of
    :data:`NUMPY_SCAN_FROM` bytes or more is scanned by numpy (:class:`DigitRuns`), about four
    times as fast again. Large data is scanned in 4 MiB chunks overlapping by 18 bytes, so the
    copy stays small.
    """
    if len(data) <= _SCAN_CHUNK:
        return _LONG_RUN in data.translate(_DIGITS_AS_ZERO)
    runs = DigitRuns() if len(data) >= NUMPY_SCAN_FROM else None
    for start in range(0, len(data), _SCAN_CHUNK):
        chunk = data[start : start + _SCAN_CHUNK + len(_LONG_RUN) - 1]
        if runs.any(chunk) if runs is not None else _LONG_RUN in chunk.translate(_DIGITS_AS_ZERO):
            return True
    return False


NUMPY_SCAN_FROM = 16 << 20
"""From this many bytes on, digit runs are found by numpy: imported (about 0.1 s) only for data
that large, where its faster scan has paid for the import (docs/performance.md)."""


class DigitRuns:
    """Where runs of 19 digits start in a block, found by numpy.

    A byte is a digit when ``byte - 48`` (wrapping) is below 10; five in-place ``and``s of the
    digit mask with itself shifted by 1, 2, 4, 8 and 3 leave ``True`` where 19 digits start
    (runs of 2, 4, 8, 16, then 16 + 3). The scratch buffer is reused, so a block costs no
    allocation once the buffer is as large as the blocks.
    """

    __slots__ = ("np", "scratch")

    def __init__(self) -> None:
        import numpy

        self.np = numpy
        self.scratch = numpy.empty(0, dtype=numpy.uint8)

    def starts(self, block: bytes) -> Any:
        """A boolean array, ``True`` at each offset where 19 digits start (``None`` when the
        block is shorter than that)."""
        np = self.np
        size = len(block)
        if size < len(_LONG_RUN):
            return None
        if len(self.scratch) < size:
            self.scratch = np.empty(size, dtype=np.uint8)
        data = np.frombuffer(block, dtype=np.uint8)
        run = np.subtract(data, 48, out=self.scratch[:size])
        run = np.less(run, 10, out=run.view(np.bool_))
        for shift in (1, 2, 4, 8, 3):
            np.logical_and(run[:-shift], run[shift:], out=run[:-shift])
            run = run[:-shift]
        return run

    def any(self, block: bytes) -> bool:
        """Whether the block holds a run of 19 digits."""
        run = self.starts(block)
        return run is not None and bool(run.any())


def _problem(file: str, where: str, field: str, message: str, line: int | None) -> LoadProblem:
    return LoadProblem(file, where, field, message, line)


def _refusal(file: str, message: str, line: int | None = None, field: str = "") -> LoadError:
    where = f"line {line}" if line is not None else "(file)"
    return LoadError([_problem(file, where, field, message, line)])


# --- files -----------------------------------------------------------------------------------

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def refuse_special(file: str, *, pipes: bool = False) -> os.stat_result:
    """The file's ``stat``; a file that is not a regular file (nor, with ``pipes``, a named
    pipe) is refused before it is opened."""
    try:
        info = os.stat(file)
    except OSError as exc:
        raise _refusal(file, f"cannot read: {exc.strerror or exc}") from exc
    if pipes and stat.S_ISFIFO(info.st_mode):
        return info
    if not stat.S_ISREG(info.st_mode):
        kind = next((name for test, name in _KINDS if test(info.st_mode)), "not a regular file")
        raise _refusal(file, f"cannot read: it is {kind}, not a regular file")
    return info


def _open_regular(file: str) -> int:
    """A descriptor on ``file``, refused if it stopped being a regular file since ``stat``."""
    refuse_special(file)
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise _refusal(file, f"cannot read: {exc.strerror or exc}") from exc
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise _refusal(file, "cannot read: it is not a regular file")
    return fd


def read_pipe_bytes(file: str) -> bytes:
    """A named pipe's bytes (``cat run.jsonl | workbench boundaries /dev/stdin``), read to its
    end; one no process writes to reads as empty at once. A gzip stream is inflated under the
    same size limit as a file; a zip archive (an Inspect ``.eval``) needs a seekable file."""
    try:
        data = read_input_bytes(file, MAX_FILE_BYTES)  # a pipe is read up to the limit only
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            raise _refusal(file, f"it is larger than {_size(MAX_FILE_BYTES)}") from exc
        raise _refusal(file, f"cannot read: {exc.strerror or exc}") from exc
    if data.startswith(b"PK\x03\x04"):
        raise _refusal(file, "cannot read a zip archive from a pipe; save it to a file first")
    if data.startswith(b"\x1f\x8b"):
        data = b"".join(_gunzip(iter([data]), file))
    _refuse_long_line(data, file)
    refuse_dense(data, file)
    return data


def _refuse_long_line(data: bytes, file: str) -> None:
    """A pipe's content is read whole (it cannot be read twice): its lines are held to
    :data:`MAX_LINE_BYTES` as a file's are, once it is read."""
    limit = MAX_LINE_BYTES
    if len(data) <= limit:
        return
    # a line longer than the limit holds a window of limit + 1 bytes with no break: windows
    # half that long, one after another, find it with a search each (a loop over the lines
    # took 13 s for 300 MB of short ones)
    step = limit // 2 + 1
    for start in range(0, len(data), step):
        if data.find(b"\n", start, start + step) >= 0:
            continue
        begin = data.rfind(b"\n", 0, start) + 1
        end = data.find(b"\n", begin)
        if (len(data) if end < 0 else end) - begin > limit:
            raise _line_too_long(file, data.count(b"\n", 0, begin) + 1)


def _line_too_long(file: str, line: int) -> LoadError:
    return _refusal(
        file,
        f"line {line} is longer than {_size(MAX_LINE_BYTES)}; the workbench does not read "
        "lines that long (save the recording with one record a line)",
        line,
    )


def _chunks(fd: int) -> Iterator[bytes]:
    while True:
        chunk = os.read(fd, _CHUNK)
        if not chunk:
            return
        yield chunk


def _gunzip(chunks: Iterator[bytes], file: str) -> Iterator[bytes]:
    inflate = zlib.decompressobj(wbits=31)
    total = 0
    for chunk in chunks:
        data = chunk
        while data:
            try:
                out = inflate.decompress(data, _CHUNK)
            except zlib.error as exc:
                raise _refusal(file, f"not a valid gzip file: {exc}") from exc
            total += len(out)
            if total > MAX_FILE_BYTES:
                raise _refusal(file, f"its gzip content is larger than {_size(MAX_FILE_BYTES)}")
            if out:
                yield out
            data = inflate.unconsumed_tail
            if inflate.eof:
                if inflate.unused_data.strip(b"\x00"):
                    raise _refusal(file, "holds several gzip members; only one is read")
                return
    if not inflate.eof:
        raise _refusal(file, "its gzip stream is cut short")


def _size(n: int) -> str:
    return f"{n // (1024 * 1024)} MiB" if n < 1 << 30 else f"{n // (1 << 30)} GiB"


def read_file_bytes(file: str) -> bytes:
    """The file's bytes (a gzip file's content), refused at the first line over the limit.

    Special files are refused before opening (:func:`refuse_special`); a file over
    :data:`MAX_FILE_BYTES` is refused from its size. Lines are counted as the bytes arrive, so
    a file with a line over :data:`MAX_LINE_BYTES` is refused having held at most that line's
    first megabytes.
    """
    fd = _open_regular(file)
    try:
        size = os.fstat(fd).st_size
        if size > MAX_FILE_BYTES:
            raise _refusal(file, f"it is larger than {_size(MAX_FILE_BYTES)}")
        source: Iterator[bytes] = _chunks(fd)
        head = os.read(fd, 2)
        if head == b"\x1f\x8b":
            source = _gunzip(_prepend(head, source), file)
        elif 0 < size <= MAX_LINE_BYTES:
            # no line of it can pass the limit: one buffer, not chunks joined (a copy less),
            # unless the file holds more than its size says (it grew; a /proc file)
            os.lseek(fd, 0, os.SEEK_SET)
            try:
                with open(fd, "rb", closefd=False) as whole:
                    data = whole.read(size)
                    more = os.read(fd, _CHUNK)
            except OSError as exc:
                raise _refusal(file, f"cannot read: {exc.strerror or exc}") from exc
            if not more:
                return data
            source = _prepend(data, _prepend(more, source))
        else:
            source = _prepend(head, source)
        parts: list[bytes] = []
        run = 0  # bytes since the last line break
        tail = b""  # the chunk the long line runs on past (its breaks count), when refused
        try:
            for chunk in source:
                first = chunk.find(b"\n")
                if first >= 0:
                    if run + first > MAX_LINE_BYTES:
                        break  # the long line ends at this chunk's first break
                    # a line inside one chunk is shorter than the chunk, far below the limit
                    run = len(chunk) - chunk.rfind(b"\n") - 1
                else:
                    run += len(chunk)
                if run > MAX_LINE_BYTES:
                    tail = chunk
                    break
                parts.append(chunk)
            else:
                data = b"".join(parts)
                parts.clear()
                refuse_dense(data, file)
                return data
        except OSError as exc:
            raise _refusal(file, f"cannot read: {exc.strerror or exc}") from exc
        # lines are counted only now, when refusing: a load does not pay for them
        line = 1 + sum(part.count(b"\n") for part in parts) + tail.count(b"\n")
        parts.clear()
        raise _line_too_long(file, line)
    finally:
        os.close(fd)


def decoded_estimate(data: bytes) -> int:
    """About how many bytes of memory a JSON text's decoded value takes, from a count of its
    bytes that open a value: an array or object (a list or dict, 56 to 64 bytes empty), a
    string's two quotes (a ``str`` of about 50 bytes besides its text), a comma (the slot of
    one more value, and its object). A quote escaped inside a string (``\\"``: a tool's JSON
    output kept as text) opens nothing and is not counted; brackets and commas inside strings
    are, which a recording's JSON text keeps far under the limit. Counting takes about 1.7 ms
    a megabyte (data of :data:`NUMPY_SCAN_FROM` bytes or more: :func:`_opening_counts`, about
    a fifth of that)."""
    if len(data) >= NUMPY_SCAN_FROM:
        containers, quotes, commas = _opening_counts(data)
    else:
        containers = data.count(b"[") + data.count(b"{")
        quotes = data.count(b'"') - data.count(b'\\"')
        commas = data.count(b",")
    return 64 * containers + 28 * quotes + 16 * commas


def _opening_counts(data: bytes) -> tuple[int, int, int]:
    """``decoded_estimate``'s three counts, by numpy in 4 MiB blocks: the ``[`` and ``{``, the
    quotes not after a backslash, the commas. The same numbers as ``bytes.count`` gives, in one
    pass over each block instead of five (an escaped quote is a quote whose byte before it, in
    this block or the one before, is a backslash)."""
    import numpy as np

    every = np.frombuffer(data, dtype=np.uint8)
    containers = quotes = commas = 0
    for start in range(0, len(every), _SCAN_CHUNK):
        block = every[start : start + _SCAN_CHUNK]
        containers += int(np.count_nonzero(block == 91)) + int(np.count_nonzero(block == 123))
        commas += int(np.count_nonzero(block == 44))
        quote = block == 34
        quotes += int(np.count_nonzero(quote))
        if start:  # each quote's byte before it: the last of the block before for the first
            before = every[start - 1 : start - 1 + len(block)]
        else:
            before, quote = block[:-1], quote[1:]
        quotes -= int(np.count_nonzero(quote & (before == 92)))
    return containers, quotes, commas


def refuse_dense(
    data: bytes,
    file: str,
    where: str = "(file)",
    *,
    always: bool = False,
    estimated: Callable[[bytes], int] | None = None,
    kind: str = "JSON",
) -> None:
    """Refuse a JSON document whose decoded value would take more than
    :data:`MAX_DECODED_RATIO` times its size (:func:`decoded_estimate`): a "JSON bomb" of
    empty arrays, small objects or short strings (``[],`` decodes to some 27 times its size,
    ``{"a":1},`` to 17, ``"ab",`` to 14, where the recordings in ``fixtures/`` take at most
    6). Only a document over :data:`MAX_LINE_BYTES` is counted (smaller ones take at most
    about 2 GB), unless ``always`` (each member of a zip archive, which may hold many).
    ``estimated``, ``kind``: another language's estimate and name (YAML's, ``cassette_yaml``)."""
    if len(data) <= MAX_LINE_BYTES and not (always and len(data) > _DENSE_MEMBER_BYTES):
        return
    estimate = (estimated or decoded_estimate)(data)
    if estimate > MAX_DECODED_RATIO * len(data):
        raise LoadError(
            [
                LoadProblem(
                    file,
                    where,
                    "",
                    f"would take about {_decimal_size(estimate)} of memory decoded "
                    f"({estimate / len(data):.0f} times its {_size(len(data))}; a recording "
                    f"takes at most {MAX_DECODED_RATIO}): a {kind} bomb of small values, which "
                    "the workbench does not read",
                )
            ]
        )


MAX_DECODED_RATIO = 10
"""The most memory a large document's decoded value may take, as a multiple of its size."""
_DENSE_MEMBER_BYTES = 1 << 20
"""The size from which each member of a zip archive is counted (:func:`refuse_dense`)."""


def _decimal_size(n: int) -> str:
    return f"{n / 1e9:.1f} GB" if n >= 10**9 else f"{n / 1e6:.0f} MB"


def _prepend(head: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    if head:
        yield head
    yield from rest


# --- values ----------------------------------------------------------------------------------


def _key(path: str, key: str) -> str:
    part = key if key.isidentifier() else json.dumps(key, ensure_ascii=True)
    if key.isidentifier():
        return f"{path}.{part}" if path else part
    return f"{path}[{part}]"


def _bad_string(text: str) -> bool:
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def value_problem(value: Any, *, full: bool = True) -> tuple[str, str] | None:
    """The first thing in decoded JSON the workbench refuses, as ``(field path, message)``.

    The path is for a message: one longer than :data:`_SHOWN_PATH` characters (long keys, deep
    nesting) keeps its start and its end, so a problem stays one readable line."""
    found = _value_problem(value, full=full)
    if found is None or len(found[0]) <= _SHOWN_PATH:
        return found
    path, message = found
    half = _SHOWN_PATH // 2
    return f"{path[:half]}…{path[-half:]}", message


_SHOWN_PATH = 200


def _value_problem(value: Any, *, full: bool) -> tuple[str, str] | None:
    """:func:`value_problem`'s finding, its path whole.

    Always: nesting deeper than :data:`MAX_DEPTH`, and a key that is not a string (YAML has
    them). With ``full`` (values decoded by ``json``, which accepts more than RFC 8259, or by a
    YAML loader): NaN and infinities, integers outside 64 bits, strings (keys too) holding a lone
    surrogate, and what YAML has and JSON has not (a timestamp, a set; bytes but as a cassette's
    ``body`` or ``string``, where vcrpy keeps a binary body, and a header, which botocore sends
    as bytes and no loader reads). The walk is iterative, so depth itself cannot overflow.
    """
    if not full and type(value) in (dict, list) and not _too_deep(value):
        return None
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack:
        item, path, depth = stack.pop()
        if isinstance(item, dict):
            if depth >= MAX_DEPTH:
                return path or "(root)", f"nested deeper than {MAX_DEPTH} levels"
            for key, child in reversed(list(item.items())):
                if type(key) is not str:
                    return path or "(root)", (
                        f"an object key that is not a string ({type(key).__name__} "
                        f"{_shown(key)}): JSON, and so a suite, has only string keys"
                    )
                if full and _bad_string(key):
                    return path or "(root)", "an object key holds a lone surrogate (invalid UTF-16)"
                stack.append((child, _key(path, key), depth + 1))
        elif isinstance(item, list):
            if depth >= MAX_DEPTH:
                return path or "(root)", f"nested deeper than {MAX_DEPTH} levels"
            for index in range(len(item) - 1, -1, -1):
                stack.append((item[index], f"{path}[{index}]", depth + 1))
        elif not full:
            continue
        elif isinstance(item, str):
            if _bad_string(item):
                return path or "(root)", "a string holds a lone surrogate escape (not valid UTF-16)"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return path or "(root)", "a number out of range (NaN or an infinity)"
        elif (
            isinstance(item, int)
            and not isinstance(item, bool)
            and not _INT_MIN <= item <= _INT_MAX
        ):
            return path or "(root)", "an integer out of range: it does not fit in 64 bits"
        elif isinstance(item, bytes | bytearray):
            if not path.endswith(("body", "string")) and ".headers" not in path:
                return path or "(root)", "binary data (YAML !!binary), which JSON has not"
        elif item is not None and not isinstance(item, bool | int | float | str):
            return path or "(root)", (
                f"a {type(item).__name__} (YAML {_shown(item)}), which JSON has not"
            )
    return None


def _shown(value: Any) -> str:
    """A value for a message: its repr, cut to 40 characters."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _may_be_deep(data: bytes) -> bool:
    """Whether bytes can hold nesting past the limit: too short, or too few brackets, cannot.

    Past a megabyte the brackets are not counted: a document that large has more than enough
    of them, and two counts over it cost more than :func:`_too_deep` itself."""
    size = len(data)
    if size > _COUNT_BRACKETS_UP_TO:
        return True
    return size > 2 * MAX_DEPTH and data.count(b"[") + data.count(b"{") > MAX_DEPTH


_COUNT_BRACKETS_UP_TO = 1 << 20


def _too_deep(value: Any) -> bool:
    """Whether decoded JSON nests deeper than :data:`MAX_DEPTH` (containers only, no paths).

    orjson's encoder refuses values nested past its own limit; wrapped in enough lists to
    bring that limit down to :data:`MAX_DEPTH`, encoding the value answers the question at C
    speed (a few times faster than walking a large document here). Only for values orjson
    can encode whole, which every value orjson decoded is; the walk answers otherwise.
    """
    if type(value) is not dict and type(value) is not list:
        return False
    wrap = _encoder_wrap()
    if wrap is not None:
        for _ in range(wrap):
            value = [value]
        try:
            _orjson_dumps(value)
        except orjson.JSONEncodeError as exc:
            if "ecursion" in str(exc):
                return True
        else:
            return False
    return _walk_too_deep(value)


def _walk_too_deep(value: Any) -> bool:
    stack: list[tuple[Any, int]] = [(value, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        item, depth = pop()
        if depth >= MAX_DEPTH:
            return True
        children = item.values() if type(item) is dict else item
        for child in children:
            kind = type(child)
            if kind is dict or kind is list:
                push((child, depth + 1))
    return False


_orjson_dumps = orjson.dumps
_WRAP: list[int | None] = []


def _encoder_wrap() -> int | None:
    """How many lists around a value make orjson's encoder refuse it exactly when the value
    nests deeper than :data:`MAX_DEPTH` (``None``: its limit is lower, or not found). Found
    once by trying, so a release that moves the limit is followed, not assumed."""
    if not _WRAP:
        _WRAP.append(_find_wrap())
    return _WRAP[0]


def _nested(levels: int) -> Any:
    value: Any = []
    for _ in range(levels - 1):
        value = [value]
    return value


def _encodes(levels: int) -> bool:
    try:
        _orjson_dumps(_nested(levels))
    except orjson.JSONEncodeError:
        return False
    return True


def _find_wrap() -> int | None:
    low, high = 1, 4096  # the deepest nesting orjson encodes lies in [low, high)
    if not _encodes(low) or _encodes(high):
        return None
    while high - low > 1:
        middle = (low + high) // 2
        if _encodes(middle):
            low = middle
        else:
            high = middle
    return low - MAX_DEPTH if low >= MAX_DEPTH else None


class _Constant(Exception):
    pass


def _refuse_constant(name: str) -> Any:
    raise _Constant(name)


def _big_int(text: str) -> Any:
    if len(text.lstrip("-")) > 4000:
        raise _Constant("an integer of more than 4000 digits")
    return int(text)


def _position(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    return line, offset - (data.rfind(b"\n", 0, offset) + 1) + 1


def _find_token(data: bytes, pattern: bytes) -> int | None:
    """The line of the first match of ``pattern`` after a JSON value separator, if any."""
    found = re.search(rb"[\[:,]\s*(" + pattern + rb")", data)
    return data.count(b"\n", 0, found.start(1)) + 1 if found else None  # the token's own line


def may_be_json(data: bytes) -> bool:
    """``False`` only for bytes no JSON decoder takes whole, which :func:`decode_json` refuses
    for sure: a value starts with its first byte past JSON white space and ends at the last (an
    object with ``}``, an array with ``]``, a string is one string, else a number or a literal).
    Telling so takes a look at two bytes (a string: one regex), not a refused decode and its
    message: the lines of a pretty-printed document, tried one by one as JSONL, are refused at
    a few hundred nanoseconds each."""
    text = data.strip(_JSON_SPACE)
    if not text:
        return False
    first = text[0]
    if first == 0x7B:  # {
        return text[-1] == 0x7D
    if first == 0x5B:  # [
        return text[-1] == 0x5D
    if first == 0x22:  # "
        return _ONE_STRING.fullmatch(text) is not None
    return first in _OTHER_STARTS


_JSON_SPACE = b" \t\n\r"
_ONE_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
"""One JSON string, loosely (any byte but a quote or a backslash, or a backslash and any byte):
every string a decoder takes is one (the two branches start apart, so it never backtracks)."""
_OTHER_STARTS = b"-0123456789tfnNI"
"""How a number or a literal starts (``NaN``, ``Infinity``: taken by ``json``, then refused)."""


def decode_json(
    data: bytes,
    file: str,
    *,
    line: int | None = None,
    base: str = "",
    long_digits: bool | None = None,
) -> tuple[Any, LoadProblem | None]:
    """One JSON document (or one JSONL line, ``line`` its number) decoded strictly.

    Returns ``(value, None)`` or ``(None, problem)``; the problem names the line (the
    document's own line of the fault, or ``line``) and the field. ``base`` prefixes field paths.
    ``long_digits=False`` says the caller has scanned ``data`` and found no 19-digit run.
    """
    offset = 0 if line is None else line - 1
    if data.startswith(b"\xef\xbb\xbf"):
        return None, _at(
            file,
            line or 1,
            base,
            "starts with a UTF-8 byte order mark (U+FEFF), which JSON text must not have "
            "(RFC 8259 section 8.1): save it without one",
        )
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        value = _SLOW
    if long_digits is None:
        long_digits = value is not _SLOW and has_long_digits(data)
    if value is not _SLOW and not long_digits:
        if not _may_be_deep(data) or not _too_deep(value):
            return value, None
        found = value_problem(value, full=False)
        if found is None:  # pragma: no cover - _too_deep and value_problem agree
            return value, None
        return None, _at(file, line or 1, _join(base, found[0]), found[1])
    return _decode_slow(data, file, offset, base)


_SLOW = object()


def _join(base: str, path: str) -> str:
    if not base:
        return "" if path == "(root)" else path
    if path in ("", "(root)"):
        return base
    return f"{base}{path}" if path.startswith("[") else f"{base}.{path}"


def _at(file: str, line: int, field: str, message: str) -> LoadProblem:
    return _problem(file, f"line {line}", field, message, line)


def _decode_slow(data: bytes, file: str, offset: int, base: str) -> tuple[Any, LoadProblem | None]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _position(data, exc.start)
        return None, _problem(
            file,
            f"line {line + offset}, column {column}",
            base,
            f"not UTF-8 text (byte 0x{data[exc.start]:02x})",
            line + offset,
        )
    try:
        value = json.loads(text, parse_constant=_refuse_constant, parse_int=_big_int)
    except json.JSONDecodeError as exc:
        return None, _problem(
            file,
            f"line {exc.lineno + offset}, column {exc.colno}",
            base,
            f"invalid JSON: {exc.msg}",
            exc.lineno + offset,
        )
    except _Constant as exc:
        name = str(exc)
        token = re.escape(name.encode()) if name in ("NaN", "Infinity", "-Infinity") else rb"-?\d"
        line = (_find_token(data, token) or 1) + offset
        what = "NaN or an infinity" if name != "-Infinity" else "an infinity"
        if not name.startswith("an integer"):
            message = f"a number out of range: {name} is not a JSON value ({what})"
        else:
            message = f"{name} is out of range: it does not fit in 64 bits"
        return None, _at(file, line, base, message)
    except RecursionError:
        return None, _at(file, 1 + offset, base, f"nested deeper than {MAX_DEPTH} levels")
    found = value_problem(value)
    if found is None:
        return value, None
    path, message = found
    line = offset + 1
    if "surrogate" in message:
        line = (_first_line(data, rb"\\u[dD][89abAB][0-9a-fA-F]{2}") or 1) + offset
    elif "64 bits" in message:
        line = (_find_token(data, rb"-?[0-9]{20}") or 1) + offset
    elif "NaN" in message:
        line = (_find_token(data, rb"-?[0-9.]+[eE]\+?[0-9]{3}") or 1) + offset
    return None, _at(file, line, _join(base, path), message)


def _first_line(data: bytes, pattern: bytes) -> int | None:
    found = re.search(pattern, data)
    return data.count(b"\n", 0, found.start()) + 1 if found else None


def _numbered_lines(data: bytes) -> Iterable[tuple[int, bytes]]:
    """Each line of ``data`` with its number (blank ones may be left out). The usual file is
    split at once; one of mostly blank lines (a few bytes a line on average) is scanned for its
    lines with text instead, so that a file of a billion newlines makes no list of a billion
    (it took 12 GB: eight bytes a line, found by a hostile-input round)."""
    if data.count(b"\n") <= len(data) // _SHORTEST_LINES + 1:
        return enumerate(data.split(b"\n"), start=1)
    return _text_lines(data)


_SHORTEST_LINES = 8
"""A file whose lines are shorter than this on average is read by :func:`_text_lines`."""
_TEXT_LINE = re.compile(rb"[^\n]+")


def _text_lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    number, at = 1, 0
    for found in _TEXT_LINE.finditer(data):
        start = found.start()
        number += data.count(b"\n", at, start)
        at = start
        yield number, found.group()


def decode_json_lines(
    data: bytes, file: str, *, typed: Callable[[bytes], Any] | None = None
) -> tuple[list[tuple[int, Any]], list[LoadProblem]]:
    """The lines of a JSONL file decoded strictly: ``(line number, value)`` and the problems.

    Blank lines are skipped. Lines end at ``\\n`` (a ``\\r`` before it is dropped). When the
    file holds no 19-digit run, a line orjson decodes that is too short or has too few brackets
    to nest past the limit is taken as it is (the common case, without a call per line); every
    other line goes through :func:`decode_json`.

    ``typed``: a format's msgspec decoder of its usual lines (structs of strings and integers
    that take no unknown member, which fit only lines orjson takes too). Where the orjson path
    would run, a line that fits is kept as the struct; any other line is decoded as above.
    """
    docs: list[tuple[int, Any]] = []
    problems: list[LoadProblem] = []
    unlisted_lines = 0
    scan = None if has_long_digits(data) else False  # once for the file, not once a line
    loads = orjson.loads
    error = orjson.JSONDecodeError
    typed_error = msgspec.DecodeError
    shallow = 2 * MAX_DEPTH
    append = docs.append
    for number, raw in _numbered_lines(data):
        if not raw:
            continue
        line_scan = scan
        if scan is None and typed is not None:  # a run somewhere in the file: this line's own
            line_scan = has_long_digits(raw)
        if line_scan is False and (
            len(raw) <= shallow or raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH
        ):
            if typed is not None:
                try:
                    append((number, typed(raw)))
                    continue
                except typed_error:
                    pass
            # orjson takes a trailing \r as white space, and refuses a byte order mark and a
            # blank line: those, like any line it refuses, go the careful way below
            try:
                append((number, loads(raw)))
                continue
            except error:
                pass
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if not raw or raw.isspace():
            continue
        if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
            _, problem = decode_json(raw, file, line=1)
        else:
            value, problem = decode_json(raw, file, line=number, long_digits=line_scan)
            if problem is None:
                append((number, value))
                continue
            if problem.message == EXTRA_DATA:
                values = values_one_after_another(raw, file, number)
                if values is not None:
                    docs.extend((number, each) for each in values)
                    continue
        if problem is not None:
            if len(problems) < MAX_LISTED_PROBLEMS:
                problems.append(problem)
            else:  # counted, not listed (problem_cap)
                unlisted_lines += 1
    if unlisted_lines:
        problems.append(unlisted(file, unlisted_lines))
    return docs, problems


EXTRA_DATA = "invalid JSON: Extra data"
"""The problem of a line holding more than one JSON value (:func:`values_one_after_another`)."""
_MOST_VALUES_A_LINE = 16
"""The most values one line is read as (:func:`values_one_after_another`)."""
_BLANKS = re.compile(r"[ \t\r\n]+")


def _after_blanks(text: str, at: int) -> int:
    """Where the JSON blanks from ``at`` end (at C speed: a hostile line may hold millions)."""
    found = _BLANKS.match(text, at)
    return found.end() if found is not None else at


def values_one_after_another(raw: bytes, file: str, number: int) -> list[Any] | None:
    """The JSON values a line holds one after another (``{...}{...}``, JSON's blanks around
    them allowed), each decoded as strictly as a line; ``None`` unless there are several and
    each decodes (a line that is broken otherwise keeps its problem).

    Real files have such lines: copies of Claude Code sessions with a record and the next one
    on one line (the line break between them lost)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    scanner = json.JSONDecoder(parse_constant=_refuse_constant, parse_int=_big_int)
    pieces: list[str] = []
    at = _after_blanks(text, 0)
    try:
        while at < len(text):
            _, end = scanner.raw_decode(text, at)
            pieces.append(text[at:end])
            if len(pieces) > _MOST_VALUES_A_LINE:
                return None  # no lost line break makes so many (a hostile file may)
            at = _after_blanks(text, end)
    except (json.JSONDecodeError, _Constant, RecursionError):
        return None
    if len(pieces) < 2:
        return None
    values: list[Any] = []
    for piece in pieces:
        value, problem = decode_json(piece.encode("utf-8"), file, line=number)
        if problem is not None:
            return None
        values.append(value)
    return values


def first_bad_utf8(file: str) -> tuple[int, int, int] | None:
    """Where a file's bytes first stop being UTF-8: ``(line, column, byte)``, or ``None``.

    For the message of a file refused as not UTF-8 (the error path only): read a megabyte at a
    time, so a large file costs no more memory than reading it did. A gzip file is not looked
    into (``None``).
    """
    line, column, carry = 1, 1, b""
    with open(file, "rb") as handle:
        if handle.read(2) == b"\x1f\x8b":
            return None
        handle.seek(0)
        while True:
            block = handle.read(1 << 20)
            data = carry + block
            if not data:
                return None
            try:
                data.decode("utf-8")
                good, carry, bad_byte = data, b"", None
            except UnicodeDecodeError as bad:
                good = data[: bad.start]
                if block and bad.reason == "unexpected end of data":
                    carry, bad_byte = data[bad.start :], None  # a character cut by the block
                else:
                    carry, bad_byte = b"", data[bad.start]
            breaks = good.count(b"\n")
            if breaks:
                line += breaks
                column = len(good) - good.rfind(b"\n")
            else:
                column += len(good)
            if bad_byte is not None:
                return line, column, bad_byte
            if not block:
                return None


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a file loads (every format; nesting is harmless).

    Loading makes millions of small, acyclic objects that all stay alive; the collector would
    traverse them again and again (this halves the load time of a large log) and would find
    nothing to free. Reference counting still frees everything as usual.

    Before the collector is enabled again, the objects made meanwhile are moved to its oldest
    generation (``gc.freeze()`` then ``gc.unfreeze()``), where objects that survive collections
    end up anyway; otherwise the first collection after the load would traverse them all at
    once. This is skipped when the process has frozen objects of its own.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        if gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        gc.enable()
