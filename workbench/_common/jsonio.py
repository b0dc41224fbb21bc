"""Stable JSON text and atomic file writes.

Every JSON file the workbench writes goes through :func:`dumps_stable`, so the same value always
gives the same bytes: keys sorted, two-space indent, non-ASCII characters kept as they are, one
trailing newline. Files are replaced atomically (:func:`write_text_atomic`): a reader sees either
the old file or the new one, never half of either, and a failed write leaves the old file alone.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO

__all__ = [
    "JSONFileError",
    "atomic_file",
    "dumps_stable",
    "escape_surrogates",
    "parse_json_bytes",
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


def write_text_atomic(path: StrPath, text: str) -> None:
    """Write ``text`` (UTF-8, newlines as given) to ``path`` atomically.

    The text goes to a temporary file in the same folder, is flushed and fsynced, and then
    replaces ``path`` in one rename; the folder is fsynced afterwards where the system allows it.
    If anything fails, the temporary file is removed, ``path`` is left as it was and the error is
    raised again. A replaced file keeps its permission bits; a new file gets the usual ones for
    the process (``0o666`` less the umask). When ``path`` is a symbolic link, the file it points
    to is replaced and the link stays. Missing parent folders are created.
    """
    if not isinstance(text, str):
        raise TypeError(f"write_text_atomic needs str text, got {type(text).__name__}")
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: StrPath, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically, as :func:`write_text_atomic` does (PNGs, SVGs)."""
    with atomic_file(path) as handle:
        handle.write(data)


@contextlib.contextmanager
def atomic_file(path: StrPath) -> Iterator[BinaryIO]:
    """A binary file handle whose contents replace ``path`` atomically when the block ends.

    For writers that stream (a million-event log): the bytes go to a temporary file in the same
    folder, which is flushed, fsynced and renamed over ``path`` when the ``with`` block ends
    without an error. If the block raises, the temporary file is removed and ``path`` is left as
    it was. Permission bits, symbolic links and missing folders are handled as
    :func:`write_text_atomic` describes.
    """
    target = Path(path)
    if target.is_symlink():
        target = Path(os.path.realpath(target))
    folder = target.parent
    folder.mkdir(parents=True, exist_ok=True)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()

    fd, temp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, mode)
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
    _fsync_folder(folder)


def write_json_atomic(path: StrPath, value: Any) -> None:
    """Write ``value`` as :func:`dumps_stable` text to ``path`` atomically.

    The text is built before the file is touched, so a value that cannot be written (NaN, a
    non-string key) raises and leaves the file as it was.
    """
    write_text_atomic(path, dumps_stable(value))


def _umask() -> int:
    """The process umask, read without changing it where the system shows it (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    current = os.umask(0o022)  # no way to read it without setting it; put it back at once
    os.umask(current)
    return current


def _fsync_folder(folder: Path) -> None:
    """Make the rename durable: fsync the folder, where the system supports it."""
    flags = getattr(os, "O_DIRECTORY", None)
    if flags is None:  # Windows: folders cannot be opened for fsync
        return
    try:
        fd = os.open(folder, os.O_RDONLY | flags)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems refuse fsync on a folder; the rename itself is done
        pass
    finally:
        os.close(fd)


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
        data = Path(path).read_bytes()
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        raise JSONFileError(path, f"cannot read the file: {reason}") from exc
    return parse_json_bytes(data, path)


def parse_json_bytes(data: bytes, path: StrPath) -> Any:
    """Parse a JSON file's bytes, already read, as :func:`read_json` does (errors name ``path``).

    For callers that need the bytes too (a digest of exactly what was parsed)."""
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
