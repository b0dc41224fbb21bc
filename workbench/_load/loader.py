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

from .._common.jsonio import read_input_bytes
from .._common.vocab import RUN_FORMATS, RunFormat
from . import openwop
from .anthropic import load_anthropic
from .messages import detect_chat_format, explain_shape
from .openai_chat import load_openai_chat
from .openwop import load_openwop, load_openwop_bytes, load_openwop_lines, load_openwop_text
from .records import (
    DEFAULT_ERROR_RULE,
    ErrorRule,
    LoadError,
    LoadProblem,
    LoadResult,
    PromotedRun,
)
from .responses import is_responses_data, load_openai_responses

__all__ = ["FORMATS", "FormatChoice", "detect_format", "load_runs"]

FormatChoice = RunFormat | Literal["auto"]
"""What ``load_runs(format=...)`` takes: a format, or ``"auto"`` to detect it from content."""
FORMATS: tuple[str, ...] = ("auto", *RUN_FORMATS)
"""Every :data:`FormatChoice`, ``auto`` first (the command line's ``--format`` choices)."""
_CHUNK_BYTES = 1 << 20
_ALIASES = {
    "openai": "openai-chat",
    "oai": "openai-chat",
    "claude": "anthropic",
    "responses": "openai-responses",
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
    if is_responses_data(data):
        return "openai-responses"
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
        # Only a regular file is streamed (opening a named pipe with no writer would wait
        # forever); anything else is read whole, which refuses devices and folders.
        regular = stat.S_ISREG(os.stat(file).st_mode)
        streamable = regular and chosen in ("auto", "openwop")
        streamed = _stream_openwop(file, name) if streamable else None
        if streamed is not None:
            runs, problems = streamed
            fmt: RunFormat = "openwop"
        else:
            text = read_input_bytes(file).decode("utf-8")
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
        handle.seek(0)
        if _chat_jsonl_head(handle):
            return None  # JSONL chat records or messages: read whole by the caller

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


def _chat_jsonl_head(lines: Iterable[str]) -> bool:
    """Whether a JSONL file's first object is a chat record, message or item, not an event.

    JSONL chat files are common (one ``{"messages": [...]}`` record a line, as fine-tuning and
    eval datasets are kept, or one message a line); an OpenWOP event has a ``payload``,
    ``eventId`` or ``sequence``. Reads only the first non-blank line.
    """
    first = next(iter(line for line in lines if line.strip()), None)
    if first is None:
        return False
    try:
        head = json.loads(first)
    except json.JSONDecodeError:
        return False
    return _is_chat_line(head)


def _is_chat_line(head: Any) -> bool:
    if not isinstance(head, Mapping) or _looks_like_event(head):
        return False
    if "payload" in head:
        return False
    if any(isinstance(head.get(key), list) for key in ("messages", "traj", "input", "output")):
        return True
    if "role" in head or isinstance(head.get("message"), Mapping):
        return True
    return head.get("type") in ("function_call", "function_call_output", "message", "mcp_call")


def _jsonl_chat(text: str, file: str) -> tuple[list[Any] | None, list[int], list[LoadProblem]]:
    """The lines of a JSONL chat file as decoded JSON with their line numbers.

    Each line is a record (``{"messages": [...]}``, a run each) or one message of a single run
    (a bare message, or one wrapped as ``{"message": {...}}``, which is unwrapped). Returns
    ``(data, lines, problems)``; ``data`` is ``None`` when no line holds JSON.
    """
    docs: list[Any] = []
    lines: list[int] = []
    problems: list[LoadProblem] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            doc = json.loads(raw)
        except json.JSONDecodeError as exc:
            problems.append(
                LoadProblem(file, f"line {number}", "", f"invalid JSON: {exc.msg}", number)
            )
            continue
        docs.append(doc)
        lines.append(number)
    if not docs:
        return None, lines, problems
    record_keys = ("messages", "traj", "input", "output")
    if all(
        isinstance(d, Mapping) and any(isinstance(d.get(k), list) for k in record_keys)
        for d in docs
    ):
        return docs, lines, problems
    unwrapped = [
        d["message"]
        if isinstance(d, Mapping) and "role" not in d and isinstance(d.get("message"), Mapping)
        else d
        for d in docs
    ]
    return unwrapped, lines, problems


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
    lines: list[int] | None = None
    if _is_jsonl(text, name):
        head = text.lstrip().partition("\n")[0]
        chat_head = chosen not in ("auto", "openwop") or _chat_jsonl_head([head])
        if chosen == "openwop" or not chat_head:
            runs, problems = load_openwop_text(text, file)
            return runs, problems, "openwop"
        docs, lines, line_problems = _jsonl_chat(text, file)
        if line_problems or docs is None:
            fmt_seen = _as_format(chosen) if chosen != "auto" else "openai-chat"
            return [], line_problems, fmt_seen
        return _load_data(docs, file, chosen, rule, lines)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        problem = LoadProblem(file, where, "", f"invalid JSON: {exc.msg}", exc.lineno)
        return [], [problem], "openwop" if chosen == "auto" else _as_format(chosen)
    return _load_data(data, file, chosen, rule, lines)


def _load_data(
    data: Any, file: str, chosen: str, rule: ErrorRule, lines: list[int] | None
) -> tuple[list[PromotedRun], list[LoadProblem], RunFormat]:
    fmt: RunFormat | None = _as_format(chosen) if chosen != "auto" else detect_format(data)
    if fmt is None:
        problem = LoadProblem(
            file,
            "(root)",
            "",
            explain_shape(data)
            or "cannot tell the format: expected OpenWOP events, OpenAI chat messages, OpenAI "
            "Responses API items or Anthropic messages; pass format= (--format) to say which",
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
        runs, problems = load_anthropic(data, file, lines=lines)
        return runs, problems, fmt
    if fmt == "openai-responses":
        runs, problems = load_openai_responses(data, file, rule, lines=lines)
        return runs, problems, fmt
    runs, problems = load_openai_chat(data, file, rule, lines=lines)
    return runs, problems, fmt


def _as_format(chosen: str) -> RunFormat:
    if chosen == "openai-chat":
        return "openai-chat"
    if chosen == "anthropic":
        return "anthropic"
    if chosen == "openai-responses":
        return "openai-responses"
    return "openwop"
