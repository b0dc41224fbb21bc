"""JSON records written one after another across lines: a JSONL file a formatter re-indented.

A JSONL log holds a record a line. Run through a formatter (Prettier, ``jq .``, an editor's
"format document"), it becomes indented objects one after another, each over many lines: no
line is a record, and read as JSONL every line was a problem ("line 1, column 2: invalid
JSON ... and 1825 more problems"). ``json_sequence`` reads such a file as the records it holds,
each with the line it starts on, so a load reads it as it reads the JSONL it was.

Each record's extent is found by ``json``'s ``raw_decode`` and the record is then decoded by
``reading.decode_json``, as strictly as any file (R35): a ``NaN``, a lone surrogate or a
19-digit number is a problem at its own line, where the record starts plus its line within it.
A file that is not such a sequence (text that stops being JSON part way, bytes that are not
UTF-8) is left to the JSONL reader, which names its broken lines as before.
"""

from __future__ import annotations

import json
import re
from typing import Any

from .reading import decode_json, decode_json_lines
from .records import LoadProblem

__all__ = ["MAX_SEQUENCE_BYTES", "json_sequence", "jsonl_records", "starts_spread"]

MAX_SEQUENCE_BYTES = 256 << 20
"""Larger files are read as JSONL only (the whole text is decoded at once here)."""

_WHITE_SPACE = re.compile(r"[ \t\r\n]*")
_FIRST_LINE = re.compile(rb"[ \t\r\n]*([^\r\n]*)")


def starts_spread(data: bytes) -> bool:
    """Whether the data's first line of text is an opening brace alone: a record spread over
    lines (no JSONL record is one brace)."""
    found = _FIRST_LINE.match(data)
    return found is not None and found.group(1).strip() == b"{"


def json_sequence(data: bytes, file: str) -> tuple[list[tuple[int, Any]], list[LoadProblem]] | None:
    """The records of JSON text written one after another (see the module), each with the line
    it starts on, and the problems of those that do not decode strictly; ``None`` when the data
    is not a sequence of JSON values (or is over :data:`MAX_SEQUENCE_BYTES`)."""
    if len(data) > MAX_SEQUENCE_BYTES:
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    decoder = json.JSONDecoder()
    docs: list[tuple[int, Any]] = []
    problems: list[LoadProblem] = []
    position, line, size = 0, 1, len(text)
    while True:
        gap = _WHITE_SPACE.match(text, position)
        end_of_gap = gap.end() if gap else position
        line += text.count("\n", position, end_of_gap)
        position = end_of_gap
        if position >= size:
            break
        try:
            _, end = decoder.raw_decode(text, position)
        except (json.JSONDecodeError, RecursionError):
            return None
        piece = text[position:end]
        value, problem = decode_json(piece.encode("utf-8"), file, line=line)
        if problem is not None:
            problems.append(problem)
        else:
            docs.append((line, value))
        line += piece.count("\n")
        position = end
    return docs, problems


def jsonl_records(data: bytes, file: str) -> tuple[list[tuple[int, Any]], list[LoadProblem]]:
    """A JSONL file's records and problems, read as any JSONL file is: records indented over
    lines (:func:`json_sequence`) where the first line is a brace alone, else a record a line
    (``reading.decode_json_lines``). For the files a loader reads beside the one it was given
    (sub-agents' transcripts and rollouts)."""
    spread = json_sequence(data, file) if starts_spread(data) else None
    return spread if spread is not None else decode_json_lines(data, file)
