"""Stable JSON text and atomic file writes.

Every JSON file the workbench writes goes through :func:`dumps_stable`, so the same value always
gives the same bytes: keys sorted, two-space indent, non-ASCII characters kept as they are, one
trailing newline. Files are replaced atomically (:func:`write_text_atomic`): a reader sees either
the old file or the new one, never half of either, and a failed write leaves the old file alone.
What may be replaced is decided by :mod:`workbench._common.outputs`: a JSON file is the
workbench's own when its bytes are exactly the stable text (:func:`is_stable_json_file`).
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterable
from typing import Any

from .atomic import atomic_file
from .inputs import read_input_bytes
from .markers import (
    Recogniser,
    compact_json_line,
    is_stable_json_file,
    is_suite_json_file,
    jsonl_recogniser,
)

__all__ = [
    "JSONFileError",
    "atomic_file",
    "compact_json_line",
    "dumps_stable",
    "escape_surrogates",
    "is_stable_json_file",
    "is_suite_json_file",
    "json_text",
    "jsonl_recogniser",
    "parse_json_bytes",
    "read_input_bytes",
    "read_json",
    "write_bytes_atomic",
    "write_json_atomic",
    "write_text_atomic",
]

StrPath = str | os.PathLike[str]


class JSONFileError(ValueError):
    """A JSON file that cannot be read or is not valid JSON.

    The message names the file and, where the problem has a place in the text, its line and
    column (both 1-based), e.g. ``suite.json, line 3, column 5: invalid JSON: Expecting ','``.
    """

    path: str
    """The file, as the caller named it."""
    line: int | None
    """1-based line of the problem, or None when it has no place in the text (unreadable file)."""
    column: int | None
    """1-based column of the problem (in characters), or None with ``line``."""
    reason: str
    """The problem without the file and position."""

    def __init__(
        self, path: StrPath, reason: str, *, line: int | None = None, column: int | None = None
    ) -> None:
        self.path = os.fspath(path)
        self.reason = reason
        self.line = line
        self.column = column
        where = self.path if line is None else f"{self.path}, line {line}, column {column}"
        super().__init__(f"{where}: {reason}")


# ---------------------------------------------------------------------------------------------
# Stable text


def dumps_stable(value: Any, *, sort_keys: bool = True) -> str:
    """Return ``value`` as stable JSON text: sorted keys, 2-space indent, trailing newline.

    With ``sort_keys=False`` members are written in their order instead (a suite keeps its
    recorded payloads' member order, SPEC R42); the text is still the same for the same value.

    Non-ASCII characters are written as themselves (the file is UTF-8). The result round-trips:
    ``dumps_stable(json.loads(dumps_stable(v))) == dumps_stable(v)``.

    Raises:
        ValueError: ``value`` holds NaN or an infinity, which JSON cannot express, or contains
            itself.
        TypeError: ``value`` holds an object key that is not a string (its order after a round
            trip would differ), or a value JSON has no form for (a set, a datetime, ...).
        The messages name the offending place as a JSON path such as ``$.tasks[0].score``.
    """
    try:
        text = json.dumps(value, sort_keys=sort_keys, indent=2, ensure_ascii=False, allow_nan=False)
    except (ValueError, TypeError) as exc:
        raise (_first_problem(value) or exc) from exc
    # json.dumps turns int, float, bool and None keys into strings, sorted by their original
    # values, so the text would not survive a round trip byte for byte. Refuse them. (The value
    # has no cycles here: json.dumps has checked.)
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if not all(isinstance(key, str) for key in item):
                raise _first_problem(value) or TypeError("JSON object keys must be strings")
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return escape_surrogates(text) + "\n"


_SURROGATE = re.compile("[\ud800-\udfff]")


def json_text(value: Any, *, sort_keys: bool = False) -> str:
    """``json.dumps(value, ensure_ascii=False, sort_keys=sort_keys)``, the same text, at twice
    its speed for the small values loaders render (a tool's response object as the text the
    model read): the C encoder is made once, not for each value, and with no circular check,
    which a decoded JSON value never needs (it holds no cycle)."""
    return "".join(_C_ENCODERS[sort_keys](value, 0))


def _c_encoders() -> tuple[Any, Any]:
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # pragma: no cover - CPython has it; another Python may not
        plain = json.JSONEncoder(ensure_ascii=False)
        ordered = json.JSONEncoder(ensure_ascii=False, sort_keys=True)
        return (lambda v, _: (plain.encode(v),)), (lambda v, _: (ordered.encode(v),))
    default = json.JSONEncoder().default  # a value JSON has not: the TypeError json.dumps raises
    text = json.encoder.encode_basestring
    # (markers, default, encoder, indent, key_separator, item_separator, sort_keys, skipkeys,
    #  allow_nan): json.dumps's defaults, less the markers of the circular check
    return (
        make(None, default, text, None, ": ", ", ", False, False, True),
        make(None, default, text, None, ": ", ", ", True, False, True),
    )


_C_ENCODERS = _c_encoders()


def escape_surrogates(text: str) -> str:
    """JSON text (from ``json.dumps(..., ensure_ascii=False)``) with each lone surrogate
    written as its ``\\uXXXX`` escape, so it can be encoded as UTF-8.

    Python's ``json.loads`` takes ``"\\ud800"``, so recorded payloads may hold one (SPEC R42);
    escaped, it reads back as the same string. Surrogates only occur inside JSON strings, where
    the escape means that code unit. Text without one is returned as it is (a fast check).
    """
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def _path_key(key: str) -> str:
    return f".{key}" if key.isidentifier() else f"[{json.dumps(key, ensure_ascii=False)}]"


def _first_problem(value: Any) -> Exception | None:
    """The first thing in ``value`` that stable JSON cannot hold, as an error naming its path."""
    ancestors: set[int] = set()

    def visit(item: Any, where: str) -> Exception | None:
        if isinstance(item, dict | list | tuple):
            if id(item) in ancestors:
                return ValueError(f"cannot write the value at {where} as JSON: it contains itself")
            ancestors.add(id(item))
            if isinstance(item, dict):
                for key, child in item.items():
                    if not isinstance(key, str):
                        return TypeError(
                            f"JSON object keys must be strings: {type(key).__name__} key "
                            f"{key!r} in the object at {where} (convert it with str() first)"
                        )
                    found = visit(child, where + _path_key(key))
                    if found is not None:
                        return found
            else:
                for index, child in enumerate(item):
                    found = visit(child, f"{where}[{index}]")
                    if found is not None:
                        return found
            ancestors.discard(id(item))
        elif isinstance(item, float) and not math.isfinite(item):
            return ValueError(
                f"cannot write {item!r} at {where} as JSON: JSON has no NaN or Infinity "
                "(use null or a string instead)"
            )
        elif not isinstance(item, str | int | float | None):
            return TypeError(
                f"cannot write a value of type {type(item).__name__} at {where} as JSON"
            )
        return None

    return visit(value, "$")


# ---------------------------------------------------------------------------------------------
# Atomic writes


def write_text_atomic(
    path: StrPath,
    text: str,
    *,
    overwrite: bool = False,
    parents: bool = False,
    recognise: Recogniser | None = None,
    inputs: Iterable[StrPath | None] = (),
) -> None:
    """Write ``text`` (UTF-8, newlines as given) to ``path`` atomically.

    The path is checked first and the bytes go through a temporary file and one rename, as
    :func:`~workbench._common.atomic.atomic_file` describes: an existing file is replaced only
    when ``recognise`` says the workbench wrote it, or with ``overwrite=True``; missing parent
    folders are created only with ``parents=True``; a failed write leaves ``path`` as it was.
    """
    if not isinstance(text, str):
        raise TypeError(f"write_text_atomic needs str text, got {type(text).__name__}")
    write_bytes_atomic(
        path,
        text.encode("utf-8"),
        overwrite=overwrite,
        parents=parents,
        recognise=recognise,
        inputs=inputs,
    )


def write_bytes_atomic(
    path: StrPath,
    data: bytes,
    *,
    overwrite: bool = False,
    parents: bool = False,
    recognise: Recogniser | None = None,
    inputs: Iterable[StrPath | None] = (),
) -> None:
    """Write ``data`` to ``path`` atomically, as :func:`write_text_atomic` does (PNGs, SVGs)."""
    with atomic_file(
        path, overwrite=overwrite, parents=parents, recognise=recognise, inputs=inputs
    ) as handle:
        handle.write(data)


def write_json_atomic(
    path: StrPath,
    value: Any,
    *,
    overwrite: bool = False,
    parents: bool = False,
    inputs: Iterable[StrPath | None] = (),
) -> None:
    """Write ``value`` as :func:`dumps_stable` text to ``path`` atomically.

    The text is built before the file is touched, so a value that cannot be written (NaN, a
    non-string key) raises and leaves the file as it was. An existing file is replaced when it
    is stable JSON text (:func:`is_stable_json_file`: what the workbench writes) or with
    ``overwrite=True``; parent folders are created only with ``parents=True``.
    """
    write_text_atomic(
        path,
        dumps_stable(value),
        overwrite=overwrite,
        parents=parents,
        recognise=is_stable_json_file,
        inputs=inputs,
    )


# ---------------------------------------------------------------------------------------------
# Reading


class _NonFiniteConstant(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _refuse_constant(name: str) -> Any:
    raise _NonFiniteConstant(name)


def read_json(path: StrPath) -> Any:
    """Read and parse the JSON file at ``path`` (UTF-8, a leading byte order mark is allowed).

    Raises:
        JSONFileError: the file cannot be read, is not UTF-8, is not valid JSON, or uses
            ``NaN`` / ``Infinity`` (which Python's parser would otherwise accept). The message
            names the file and, where there is one, the line and column.
    """
    try:
        data = read_input_bytes(path)
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        raise JSONFileError(path, f"cannot read the file: {reason}") from exc
    return parse_json_bytes(data, path)


def parse_json_bytes(data: bytes, path: StrPath) -> Any:
    """Parse a JSON file's bytes, already read, as :func:`read_json` does (errors name ``path``).

    For callers that need the bytes too (a digest of exactly what was parsed)."""
    if not data.strip():
        raise JSONFileError(path, "the file is empty (a JSON document was expected)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line, column = _position_in_bytes(data, exc.start)
        raise JSONFileError(
            path, f"not UTF-8 text (byte 0x{data[exc.start]:02x})", line=line, column=column
        ) from exc
    try:
        return json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise JSONFileError(
            path, f"invalid JSON: {exc.msg}", line=exc.lineno, column=exc.colno
        ) from exc
    except _NonFiniteConstant as exc:
        at_line, at_column = _position_of_constant(text, exc.name)
        raise JSONFileError(
            path, f"invalid JSON: {exc.name} is not a JSON value", line=at_line, column=at_column
        ) from None
    except RecursionError as exc:
        raise JSONFileError(path, "invalid JSON: nested too deeply to read") from exc
    except ValueError as exc:  # a number too long for int() (5,000 digits), ...
        reason = str(exc).split(";")[0]
        raise JSONFileError(path, f"invalid JSON: {reason}") from exc


def _position_in_bytes(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", errors="replace")) + 1
    return line, column


def _position_of_constant(text: str, name: str) -> tuple[int | None, int | None]:
    """Line and column of the first ``name`` token outside a string, or (None, None)."""
    in_string = False
    escaped = False
    index = 0
    while index < len(text):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif text.startswith(name, index):
            line = text.count("\n", 0, index) + 1
            return line, index - (text.rfind("\n", 0, index) + 1) + 1
        index += 1
    return None, None  # pragma: no cover - the parser only reports constants it has seen
