"""goose's MCP replay files as one ``mcp`` run (SPEC R34-R36).

goose (block/goose) records an MCP stdio session for its tests
(``crates/goose/tests/mcp_replays/<command>``) with its ``goose-test`` recorder (``capture stdio
record``, before it ``stdio_logger``): each line that passed, prefixed by its stream,
``STDIN: <line>`` (client to server), ``STDOUT: <line>`` (server to client) or ``STDERR:
<line>`` (the server's stderr), in the order the recorder's threads handed them over. A line is
written ``"{prefix}: {line}"`` from a line read without its line break, so none holds one, and
an empty stderr line is ``STDERR: ``; goose's replayer reads the prefix up to the first ``: ``.

Each ``STDIN``/``STDOUT`` line holds one JSON-RPC message (or a batch), read as the message log
``mcp`` reads in ``{"dir": "c2s" | "s2c", "msg"}`` envelopes (:func:`load_mcp_messages`): a
``tools/call`` sent on ``STDIN`` is answered by the ``STDOUT`` response of its id (a JSON-RPC
``error`` or ``isError: true`` failed it); the server's own requests (``sampling/createMessage``,
``elicitation/create``) and the client's answers to them, whose ids are the server's and may be
a call's, are counted, never taken for calls. ``STDERR`` lines are known non-tool records
(``log:stderr``). A line of no such prefix, an empty message and one that is no JSON are
problems naming the line (R35); a problem in a message names its line and stream (``line 7,
STDOUT``) and the field.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from .mcp import load_mcp_messages
from .problem_cap import MAX_LISTED_PROBLEMS, unlisted
from .reading import decode_json_lines
from .records import LoadProblem, PromotedRun

__all__ = ["is_goose_replay_head", "load_goose_replay"]

_WAYS = {b"STDIN": "c2s", b"STDOUT": "s2c"}
"""A message line's stream, and the way its message went."""
_STREAMS = {"c2s": "STDIN", "s2c": "STDOUT"}
_STDERR = b"STDERR"
_PREFIXES = (b"STDIN: ", b"STDOUT: ", b"STDERR: ")


def _split(raw: bytes) -> tuple[bytes, bytes] | None:
    """A line's stream and what follows ``<stream>: `` (``None``: no stream of goose's). A
    stderr line that an editor stripped of its trailing space (``STDERR:``) is still one."""
    prefix, sep, rest = raw.partition(b": ")
    if sep and (prefix in _WAYS or prefix == _STDERR):
        return prefix, rest
    bare = raw.rstrip(b"\r")
    if bare.endswith(b":") and bare[:-1] in (*_WAYS, _STDERR):
        return bare[:-1], b""
    return None


def is_goose_replay_head(head: bytes, *, told: bool = False) -> bool:
    """Whether a file's first bytes are goose's replay: the first line starts ``STDIN: ``,
    ``STDOUT: `` or ``STDERR: ``, and a ``STDIN``/``STDOUT`` line in the head holds a JSON
    object or array (or every whole line is the server's stderr: a long banner first).
    ``told``: the caller said ``--format mcp``, so the first line's prefix is enough."""
    lines = head.split(b"\n")
    if not lines[0].startswith(_PREFIXES):
        return False
    if told:
        return True
    for raw in lines:
        split = _split(raw)
        if split is not None and split[0] in _WAYS and split[1].lstrip().startswith((b"{", b"[")):
            return True
    whole = lines[:-1]  # the last piece may be cut off by the head's end
    return bool(whole) and all(raw.startswith(b"STDERR: ") for raw in whole)


def load_goose_replay(data: bytes, file: str) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """A replay file's bytes as one run (line numbers kept in every place)."""
    kept: list[bytes] = []
    ways: dict[int, str] = {}
    problems: list[LoadProblem] = []
    not_listed = 0
    stderr = 0
    for number, raw in enumerate(data.split(b"\n"), 1):
        split = _split(raw)
        said = ""
        if split is None:
            if raw.strip():
                shown = raw[:24].decode("utf-8", "replace")
                said = (
                    f"not a line of goose's MCP replay: it starts {shown!r}, not 'STDIN: ', "
                    "'STDOUT: ' or 'STDERR: '"
                )
        elif split[0] == _STDERR:
            stderr += 1
        elif not split[1].strip():
            said = f"an empty {split[0].decode()} line: no JSON-RPC message on it"
        else:  # the message, where it stood: its columns stay the line's own
            ways[number] = _WAYS[split[0]]
            kept.append(b" " * (len(raw) - len(split[1])) + split[1])
            continue
        kept.append(b"")  # the lines after keep their numbers
        if said and len(problems) < MAX_LISTED_PROBLEMS:
            problems.append(LoadProblem(file, f"line {number}", "", said, number))
        elif said:
            not_listed += 1
    if not_listed:
        problems.append(unlisted(file, not_listed))
    docs, bad = decode_json_lines(b"\n".join(kept), file)
    messages = [(f"line {n}", {"dir": ways[n], "msg": message}) for n, message in docs]
    runs, more = load_mcp_messages(messages, file)
    runs = [_noted(run, stderr, ways, file) for run in runs]
    lines = sorted([*problems, *bad], key=lambda p: (p.line is None, p.line or 0))
    return runs, [*lines, *(_placed(p, ways) for p in more)]  # lines first: the cause


_PLACE = re.compile(r"^line (\d+) msg(?:\[(\d+)\])?")
"""A message log's place (``line 7 msg``, ``line 7 msg[1]`` in a batch)."""


def _place(where: str, ways: dict[int, str]) -> tuple[str, int] | None:
    """A message's place as the replay's: its line and stream (``line 7, STDOUT``)."""
    found = _PLACE.match(where)
    if found is None or int(found.group(1)) not in ways:
        return None
    line = int(found.group(1))
    part = f", message {found.group(2)}" if found.group(2) is not None else ""
    return f"line {line}, {_STREAMS[ways[line]]}{part}{where[found.end() :]}", line


def _placed(problem: LoadProblem, ways: dict[int, str]) -> LoadProblem:
    placed = _place(problem.where, ways)
    if placed is None:
        return problem
    return replace(problem, where=placed[0], line=placed[1])


def _noted(run: PromotedRun, stderr: int, ways: dict[int, str], file: str) -> PromotedRun:
    """The run with its stderr lines counted (``log:stderr``), the recorder named, and each
    call's location its line (``file:7``)."""
    records: dict[str, Any] = dict(run.metadata.get("records", {}))
    if stderr:
        records["log:stderr"] = stderr
    metadata = {**run.metadata, "recorder": "goose", "records": dict(sorted(records.items()))}
    head = f"{file}: "
    boundaries = []
    for boundary in run.boundaries:
        where = boundary.location.removeprefix(head)
        placed = _place(where, ways) if boundary.location.startswith(head) else None
        if placed is not None:
            boundary = replace(boundary, location=f"{file}:{placed[1]}")
        boundaries.append(boundary)
    return replace(run, boundaries=tuple(boundaries), metadata=metadata)
