"""Loaders for promoted-run files, one module per format (SPEC R1-R4), and format detection."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, Literal

from .._boundary import (
    DEFAULT_ERROR_RULE,
    ErrorRule,
    LoadError,
    LoadProblem,
    LoadResult,
    PromotedRun,
    RunFormat,
)
from . import openwop
from .chat import detect_chat_format, load_anthropic, load_openai_chat
from .openwop import load_openwop, load_openwop_bytes, load_openwop_lines, load_openwop_text

__all__ = ["FORMATS", "FormatChoice", "detect_format", "load_runs"]

FormatChoice = Literal["auto", "openwop", "openai-chat", "anthropic"]
FORMATS: tuple[str, ...] = ("auto", "openwop", "openai-chat", "anthropic")
_CHUNK_BYTES = 1 << 20
_ALIASES = {
    "openai": "openai-chat",
    "oai": "openai-chat",
    "claude": "anthropic",
    "jsonl": "openwop",
}


def _looks_like_event(value: Any) -> bool:
    return (
        isinstance(value, Mapping)
        and "type" in value
        and ("payload" in value or "eventId" in value or "sequence" in value)
    )


def detect_format(data: Any) -> RunFormat | None:
    """The format of decoded JSON data, or ``None`` when it is none the workbench reads."""
    if isinstance(data, list) and data and _looks_like_event(data[0]):
        return "openwop"
    if isinstance(data, Mapping) and isinstance(data.get("events"), list):
        return "openwop"
    return detect_chat_format(data)


def load_runs(
    path: str | os.PathLike[str],
    *,
    format: FormatChoice | str = "auto",
    error_rule: ErrorRule | None = None,
    strict: bool = True,
) -> LoadResult:
    """Load a promoted-run file: an OpenWOP log, an OpenAI chat transcript or Anthropic messages.

    ``format="auto"`` detects the format. ``error_rule`` tells failed results in formats with no
    error flag (default: content starting with ``Error:``). With ``strict=True`` any problem (R2)
    raises :class:`LoadError` naming file, line and field; with ``strict=False`` every valid
    boundary is loaded and the problems are returned on the result. Nothing is dropped silently.
    """
    file = os.fspath(path)
    name = Path(file).name
    chosen = _ALIASES.get(str(format), str(format))
    if chosen not in FORMATS:
        raise ValueError(f"unknown format {format!r}; choose one of {', '.join(FORMATS)}")
    rule = error_rule if error_rule is not None else DEFAULT_ERROR_RULE
    try:
        streamed = _stream_openwop(file, name) if chosen in ("auto", "openwop") else None
        if streamed is not None:
            runs, problems = streamed
            fmt: RunFormat = "openwop"
        else:
            text = Path(file).read_text(encoding="utf-8")
            runs, problems, fmt = _load_text(text, file, name, chosen, rule)
    except (OSError, UnicodeDecodeError) as exc:
        raise _cannot_read(file, exc) from exc
    if strict and problems:
        raise LoadError(problems)
    return LoadResult(path=file, format=fmt, runs=tuple(runs), problems=tuple(problems))


def _cannot_read(file: str, exc: OSError | UnicodeDecodeError) -> LoadError:
    reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
    return LoadError([LoadProblem(file, "(file)", "", f"cannot read: {reason}")])


def _stream_openwop(file: str, name: str) -> tuple[list[PromotedRun], list[LoadProblem]] | None:
    """Load a JSONL OpenWOP log a line at a time, or ``None`` when the file is not one.

    Only regular files are streamed (the loader may read a log twice, see ``openwop``); a pipe
    or a JSON document is read whole by the caller. The file must not change between reads.
    The file is read as bytes, a megabyte at a time, and its lines decoded by orjson
    (``openwop._byte_line_docs`` keeps the results, line numbers and problems of text mode), or
    as text when ``openwop._FAST_DECODE`` is off.
    """
    with open(file, encoding="utf-8") as handle:
        identity = _identity(os.fstat(handle.fileno()))
        if identity is None or not _sniff_jsonl(handle, name):
            return None

    @contextmanager
    def lines() -> Iterator[Iterable[str]]:
        with open(file, encoding="utf-8") as again:
            if _identity(os.fstat(again.fileno())) != identity:
                raise OSError(0, "the file changed while it was being loaded")
            yield again

    @contextmanager
    def chunks() -> Iterator[Iterable[bytes]]:
        with open(file, "rb", buffering=0) as again:
            if _identity(os.fstat(again.fileno())) != identity:
                raise OSError(0, "the file changed while it was being loaded")
            yield iter(partial(again.read, _CHUNK_BYTES), b"")

    if openwop._FAST_DECODE:
        return load_openwop_bytes(chunks, file)
    return load_openwop_lines(lines, file)


def _identity(info: os.stat_result) -> tuple[int, int, int, int] | None:
    if not stat.S_ISREG(info.st_mode):
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def _sniff_jsonl(lines: Iterable[str], name: str) -> bool:
    """Whether a file holds JSONL events: by its name, else a first line that is one object.

    Reads only up to the second non-blank line. A ``.jsonl`` file holding a JSON array is not
    streamed (the caller reads it whole, as an array log).
    """
    found = iter(line for line in lines if line.strip())
    first = next(found, None)
    if first is None:
        return name.endswith((".jsonl", ".ndjson"))
    head = first.lstrip()
    if name.endswith((".jsonl", ".ndjson")):
        return not head.startswith("[")
    if not head.startswith("{"):
        return False
    try:
        json.loads(head)
    except json.JSONDecodeError:
        return False
    return next(found, None) is not None


def _is_jsonl(text: str, name: str) -> bool:
    if name.endswith((".jsonl", ".ndjson")):
        return True
    stripped = text.lstrip()
    if not stripped.startswith("{"):
        return False
    first, _, rest = stripped.partition("\n")
    if not rest.strip():
        return False
    try:
        json.loads(first)
    except json.JSONDecodeError:
        return False
    return True


def _load_text(
    text: str, file: str, name: str, chosen: str, rule: ErrorRule
) -> tuple[list[PromotedRun], list[LoadProblem], RunFormat]:
    if chosen in ("auto", "openwop") and _is_jsonl(text, name):
        runs, problems = load_openwop_text(text, file)
        return runs, problems, "openwop"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        problem = LoadProblem(file, where, "", f"invalid JSON: {exc.msg}", exc.lineno)
        return [], [problem], "openwop" if chosen == "auto" else _as_format(chosen)
    fmt: RunFormat | None = _as_format(chosen) if chosen != "auto" else detect_format(data)
    if fmt is None:
        problem = LoadProblem(
            file,
            "(root)",
            "",
            "cannot tell the format: expected OpenWOP events, OpenAI chat messages or "
            "Anthropic messages; pass format= (--format) to say which",
        )
        return [], [problem], "openwop"
    if fmt == "openwop":
        items = data.get("events") if isinstance(data, Mapping) else data
        if not isinstance(items, list):
            problem = LoadProblem(file, "(root)", "", "an OpenWOP log must be a list of events")
            return [], [problem], fmt
        runs, problems = load_openwop(items, file)
        return runs, problems, fmt
    if fmt == "anthropic":
        runs, problems = load_anthropic(data, file)
        return runs, problems, fmt
    runs, problems = load_openai_chat(data, file, rule)
    return runs, problems, fmt


def _as_format(chosen: str) -> RunFormat:
    if chosen == "openai-chat":
        return "openai-chat"
    if chosen == "anthropic":
        return "anthropic"
    return "openwop"
