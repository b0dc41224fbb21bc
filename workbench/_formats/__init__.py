"""Loaders for promoted-run files, one module per format (SPEC R1-R4), and format detection."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
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
from .chat import detect_chat_format, load_anthropic, load_openai_chat
from .openwop import load_openwop, parse_openwop_text

__all__ = ["FORMATS", "FormatChoice", "detect_format", "load_runs"]

FormatChoice = Literal["auto", "openwop", "openai-chat", "anthropic"]
FORMATS: tuple[str, ...] = ("auto", "openwop", "openai-chat", "anthropic")
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
    try:
        text = Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise LoadError([LoadProblem(file, "(file)", "", f"cannot read: {reason}")]) from exc
    rule = error_rule if error_rule is not None else DEFAULT_ERROR_RULE
    runs, problems, fmt = _load_text(text, file, name, chosen, rule)
    if strict and problems:
        raise LoadError(problems)
    return LoadResult(path=file, format=fmt, runs=tuple(runs), problems=tuple(problems))


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
        events, problems = parse_openwop_text(text, file)
        runs, problems = load_openwop(events, file, problems)
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
