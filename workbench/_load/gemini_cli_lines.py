"""Gemini CLI session JSONL as promoted runs (SPEC R34-R36).

Gemini CLI writes its sessions as JSON Lines since 2026 (``chats/session-*.jsonl``; earlier
versions wrote one JSON document, read by ``gemini_cli``). The file is a log of the session
document's changes, replayed here as Gemini CLI replays it when it resumes a session:

- a metadata record (``sessionId`` and ``projectHash``, the document less its ``messages``;
  a legacy document on one line brings its ``messages`` too);
- a message record (a string ``id``): the message, added; a record with an ``id`` already seen
  replaces that message in its place (the CLI rewrites a ``gemini`` message as its tool calls
  run and finish);
- ``{"$set": {...}}``: metadata updated (``lastUpdated``, ``summary``, ...); a ``$set`` of
  ``messages`` is a checkpoint that replaces every message;
- ``{"$rewindTo": id}``: the user rewound the conversation; that message and every later one are
  dropped (all of them when the id is unknown).

The session then loads as the document it describes (``gemini_cli``), with each message's places
named by its line. What the replay consumed is counted on ``metadata["records"]`` (R35):
``rewritten`` messages, ``rewound`` ones, ``$set`` and ``$rewindTo`` records; a record of none
of these shapes is kept under ``otherRecords``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from .common import RecordTally
from .gemini_cli import load_gemini_cli
from .records import LoadProblem, PromotedRun

__all__ = ["load_gemini_cli_lines", "sniff_gemini_cli_lines"]


def _is_metadata(record: Any) -> bool:
    return (
        isinstance(record, dict)
        and isinstance(record.get("sessionId"), str)
        and isinstance(record.get("projectHash"), str)
    )


def sniff_gemini_cli_lines(heads: Sequence[Any]) -> bool:
    """Whether a JSONL file's first records are a Gemini CLI session log: a metadata record
    first, and no record with a ``type`` of another agent's (Claude Code's carry ``message``)."""
    return bool(heads) and _is_metadata(heads[0]) and "type" not in heads[0]


def load_gemini_cli_lines(
    docs: Sequence[tuple[int, Any]], file: str
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """One run from a session log's records ``(line, record)``."""
    metadata: dict[str, Any] = {}
    messages: dict[str, tuple[int, Any]] = {}  # id -> (line, message), in first-seen order
    tally = RecordTally()
    problems: list[LoadProblem] = []
    for line, record in docs:
        if not isinstance(record, dict):
            where = f"line {line}"
            problems.append(LoadProblem(file, where, "", "a record must be an object", line))
            continue
        rewind = record.get("$rewindTo")
        if isinstance(rewind, str):
            tally.add("$rewindTo")
            _rewind(messages, rewind, tally)
        elif isinstance(record.get("id"), str):
            if record["id"] in messages:
                tally.add("rewritten")  # in its place, read from its last line
            messages[record["id"]] = (line, record)
        elif isinstance(record.get("$set"), dict):
            tally.add("$set")
            update = record["$set"]
            if isinstance(update.get("messages"), list):
                messages.clear()
                _add_all(messages, update["messages"], line)
            metadata.update({k: v for k, v in update.items() if k != "messages"})
        elif _is_metadata(record):
            tally.add("session")
            metadata.update({k: v for k, v in record.items() if k != "messages"})
            if isinstance(record.get("messages"), list):
                _add_all(messages, record["messages"], line)
        else:
            tally.other("unknown", record)
    kept = list(messages.values())
    document = {**metadata, "messages": [message for _, message in kept]}
    runs, more = load_gemini_cli(document, file, lines=[line for line, _ in kept])
    problems.extend(more)
    out: list[PromotedRun] = []
    for run in runs:
        records: Mapping[str, Any] = run.metadata.get("records") or {}
        merged = dict(sorted({**records, **tally.counts}.items()))
        meta = {**run.metadata, "records": merged}
        if tally.unknown:
            meta["otherRecords"] = [*run.metadata.get("otherRecords", ()), *tally.unknown]
        out.append(replace(run, metadata=meta))
    return out, problems


def _add_all(messages: dict[str, tuple[int, Any]], found: list[Any], line: int) -> None:
    for number, message in enumerate(found):
        key = message.get("id") if isinstance(message, dict) else None
        messages[key if isinstance(key, str) else f"(line {line}, message {number})"] = (
            line,
            message,
        )


def _rewind(messages: dict[str, tuple[int, Any]], to: str, tally: RecordTally) -> None:
    # the messages from ``to`` on, taken from the end (all of them when ``to`` is not one):
    # the time it takes is the rewound messages', not the session's (a copy of every id a
    # rewind made 50,000 rewinds take 48 s)
    last = to if to in messages else None
    while messages:
        key, _ = messages.popitem()
        tally.add("rewound")
        if key == last:
            break
