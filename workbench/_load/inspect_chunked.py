"""Inspect AI ``.eval`` samples in the chunked per-sample layout, put back together (R34, R35).

Since inspect_ai 0.3.250 an ``.eval`` zip may hold a sample as the entries under one prefix
instead of one ``samples/<id>_epoch_<n>.json`` (``inspect_ai/log/_recorders/chunked/format.py``;
written so far only by its converter, ``convert_eval_logs_to_chunked``)::

    samples/<id>_epoch_<n>/sample.json          the sample less its messages, events,
                                                 attachments, events_data and metadata, plus
                                                 message_refs: [[start, end), ...] into messages
    samples/<id>_epoch_<n>/metadata.json        the sample's metadata (only when not empty)
    samples/<id>_epoch_<n>/skeleton.json        spans; counts.events is the number of events
    samples/<id>_epoch_<n>/messages/<start>.json  a JSON array of messages: the events_data
                                                 pool, then the final conversation's others
    samples/<id>_epoch_<n>/events/<start>.json    events (a model event's input_refs index the
                                                 messages, its call.call_refs the calls)
    samples/<id>_epoch_<n>/events/stats.json    per events chunk: start, type_counts
    samples/<id>_epoch_<n>/events/uuids.json    the events' uuids, in order
    samples/<id>_epoch_<n>/calls/<start>.json     the model requests as sent (events_data.calls)
    samples/<id>_epoch_<n>/attachments/<start>.json  strings, referenced as attachment://<index>

A chunk is named by the index of its first item (no zero padding); the chunks of a sequence are
contiguous from 0, each holding one or more items. :func:`chunked_sample` rebuilds the sample as
a single entry holds it (``messages`` from ``message_refs``, ``events``, ``events_data``,
``attachments`` keyed by index), so it loads as the same run. What the layout says of itself
must agree, or the sample is not read and a problem names the entry and field (R35): a chunk
that is not an array, a gap before a chunk (the absent entry named), a reference past the end
of its sequence, a count in ``stats.json``, ``uuids.json`` or ``skeleton.json`` that the events
do not have, a chunk ``stats.json`` lists that is absent. Entries of a kind Inspect does not
write yet are not read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .records import LoadProblem

__all__ = ["ChunkedSample", "chunked_entry", "chunked_sample"]

_ENTRY = re.compile(r"(samples/.+?_epoch_\d+)/(.+\.json)", re.ASCII | re.DOTALL)
_SEQUENCES = ("messages", "events", "calls", "attachments")
_ATTACHMENT = "attachment://"

ChunkedSample = dict[str, str]
"""A chunked sample's entries: the part of each name after the prefix -> the whole name."""


def chunked_entry(name: str) -> tuple[str, str] | None:
    """``(prefix, rest)`` of an entry of a chunked sample, else ``None`` (a single-entry sample
    ``samples/<id>_epoch_<n>.json`` is not one)."""
    found = _ENTRY.fullmatch(name)
    return (found[1], found[2]) if found else None


class _Refused(Exception):
    """The sample cannot be put back together: the problems say why."""


def chunked_sample(
    prefix: str, entries: ChunkedSample, read: Callable[[str], Any], file: str
) -> tuple[dict[str, Any] | None, list[LoadProblem]]:
    """The sample under ``prefix`` as a single entry holds it, read with ``read`` (an entry's
    name -> its JSON), or ``None`` and the problems naming the entries at fault."""
    problems: list[LoadProblem] = []

    def problem(name: str, field: str, message: str) -> None:
        problems.append(LoadProblem(file, name, field, message))

    shell_name = f"{prefix}/sample.json"
    if "sample.json" not in entries:
        listed = ", ".join(sorted(entries)[:3])
        problem(shell_name, "", f"absent, though the sample's entries are ({listed}, ...)")
        return None, problems
    shell = read(shell_name)
    if not isinstance(shell, dict):
        problem(shell_name, "", "not a JSON object: a chunked sample's shell is one")
        return None, problems
    try:
        sequences = {kind: _sequence(prefix, kind, entries, read, problem) for kind in _SEQUENCES}
        messages, events, calls, attachments = (sequences[kind] for kind in _SEQUENCES)
        conversation = _conversation(shell, shell_name, len(messages.items), problem)
        _check_events(events, len(messages.items), len(calls.items), prefix, problem)
        _check_counts(events, prefix, entries, read, problem)
        _check_attachments(sequences, prefix, problem)
    except _Refused:
        return None, problems
    if problems:
        return None, problems
    sample = {k: v for k, v in shell.items() if k != "message_refs"}
    sample["messages"] = [messages.items[i] for i in conversation]
    sample["events"] = events.items
    sample["events_data"] = {"messages": messages.items, "calls": calls.items}
    sample["attachments"] = {str(i): text for i, text in enumerate(attachments.items)}
    # (Inspect writes metadata.json only when the metadata is not empty)
    sample["metadata"] = read(f"{prefix}/metadata.json") if "metadata.json" in entries else {}
    return sample, problems


class _Sequence:
    """One sequence's items, and which entry holds each (its chunks' names and starts)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.items: list[Any] = []
        self.chunks: list[tuple[int, str]] = []

    def located(self) -> Iterator[tuple[str, int, Any]]:
        """``(entry, index within it, item)`` of each item."""
        if not self.chunks:
            return
        ends = [start for start, _ in self.chunks[1:]] + [len(self.items)]
        for (start, name), end in zip(self.chunks, ends, strict=True):
            for index in range(start, end):
                yield name, index - start, self.items[index]


def _sequence(
    prefix: str,
    kind: str,
    entries: ChunkedSample,
    read: Callable[[str], Any],
    problem: Callable[[str, str, str], None],
) -> _Sequence:
    found = _Sequence(kind)
    starts: list[tuple[int, str]] = []
    for rest, name in entries.items():
        head, _, stem = rest.removesuffix(".json").partition("/")
        if head != kind or (kind == "events" and stem in ("stats", "uuids")):
            continue
        if not (stem.isascii() and stem.isdigit() and len(stem) <= 9 and str(int(stem)) == stem):
            problem(name, "", "not a chunk's name: a chunk is named by its first item's index")
            raise _Refused
        starts.append((int(stem), name))
    for start, name in sorted(starts):
        if start != len(found.items):
            absent = f"{prefix}/{kind}/{len(found.items)}.json"
            said = "absent" if start > len(found.items) else "overlapping the chunk before it"
            problem(
                absent if start > len(found.items) else name,
                "",
                f"{said}: the {kind} chunks before it end at item {len(found.items)}, "
                f"and {name.rsplit('/', 2)[-2]}/{start}.json starts at item {start}",
            )
            raise _Refused
        chunk = read(name)
        if not isinstance(chunk, list) or not chunk:
            problem(name, "", f"not a JSON array of {kind} (a chunk holds one item or more)")
            raise _Refused
        wrong = next((i for i, item in enumerate(chunk) if not _item_ok(kind, item)), None)
        if wrong is not None:
            should = "text" if kind == "attachments" else "a JSON object"
            problem(name, f"[{wrong}]", f"not {should}: {kind} chunks hold {should}")
            raise _Refused
        found.chunks.append((start, name))
        found.items.extend(chunk)
    return found


def _item_ok(kind: str, item: Any) -> bool:
    return isinstance(item, str) if kind == "attachments" else isinstance(item, dict)


def _ranges(value: Any, count: int) -> list[tuple[int, int]] | str:
    """The half-open ``[[start, end], ...]`` ranges into a sequence of ``count`` items, or what
    is wrong with them."""
    if not isinstance(value, list):
        return "not a list of [start, end) ranges"
    pairs: list[tuple[int, int]] = []
    for i, pair in enumerate(value):
        ok = isinstance(pair, list) and len(pair) == 2 and all(map(_is_index, pair))
        start, end = (int(pair[0]), int(pair[1])) if ok else (0, 0)
        if not start < end:
            return f"range {i} is not [start, end) of item indices"
        if end > count:
            return f"range {i}, [{start}, {end}), reaches past the {count} item(s) the chunks hold"
        pairs.append((start, end))
    return pairs


def _is_index(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


_REPEATS = 10
"""How many times over a conversation may name its messages (a message Inspect finds twice in
it, by content, is one item named twice): more is a shell that would fill memory with names."""


def _conversation(
    shell: dict[str, Any], name: str, count: int, problem: Callable[[str, str, str], None]
) -> list[int]:
    if "message_refs" not in shell:
        problem(name, "message_refs", "missing: a chunked sample's conversation is its refs")
        raise _Refused
    found = _ranges(shell["message_refs"], count)
    if isinstance(found, str):
        problem(name, "message_refs", f"{found} (messages/{count}.json absent?)")
        raise _Refused
    named = sum(end - start for start, end in found)
    if named > len(found) + _REPEATS * count:
        problem(name, "message_refs", f"names {named:,} messages of the {count} there are")
        raise _Refused
    return [index for start, end in found for index in range(start, end)]


def _check_events(
    events: _Sequence,
    messages: int,
    calls: int,
    prefix: str,
    problem: Callable[[str, str, str], None],
) -> None:
    """A model event's ``input_refs`` and its ``call.call_refs`` are within the messages and
    the calls."""
    for name, index, event in events.located():
        call = event.get("call")
        refs = (
            ("input_refs", event.get("input_refs"), messages, "messages"),
            (
                "call.call_refs",
                call.get("call_refs") if isinstance(call, dict) else None,
                calls,
                "calls",
            ),
        )
        for field, value, count, kind in refs:
            if value is None:
                continue
            found = _ranges(value, count)
            if isinstance(found, str):
                absent = f"{prefix}/{kind}/{count}.json"
                problem(name, f"[{index}].{field}", f"{found} ({absent} absent?)")


def _check_counts(
    events: _Sequence,
    prefix: str,
    entries: ChunkedSample,
    read: Callable[[str], Any],
    problem: Callable[[str, str, str], None],
) -> None:
    """What ``events/stats.json``, ``events/uuids.json`` and ``skeleton.json`` say of the
    events, where the sample has them, agrees with the events chunks."""
    count = len(events.items)
    if "events/stats.json" in entries:
        name = f"{prefix}/events/stats.json"
        stats = read(name)
        chunks = stats.get("chunks") if isinstance(stats, dict) else None
        if not isinstance(chunks, list):
            problem(name, "chunks", "missing or not a list")
            return
        held = {start for start, _ in events.chunks}
        for chunk in chunks:
            start = chunk.get("start") if isinstance(chunk, dict) else None
            if _is_index(start) and start not in held:
                problem(f"{prefix}/events/{start}.json", "", f"absent, though {name} lists it")
                return
        total = sum(_counts(chunks))
        if total != count:
            problem(
                name, "chunks", f"its type counts add up to {total} events, the chunks hold {count}"
            )
    if "events/uuids.json" in entries:
        name = f"{prefix}/events/uuids.json"
        uuids = read(name)
        if not isinstance(uuids, list) or len(uuids) != count:
            said = f"{len(uuids)} uuids" if isinstance(uuids, list) else "not a list"
            problem(name, "", f"{said}, and the events chunks hold {count} events")
    if "skeleton.json" in entries:
        name = f"{prefix}/skeleton.json"
        skeleton = read(name)
        counts = skeleton.get("counts") if isinstance(skeleton, dict) else None
        declared = counts.get("events") if isinstance(counts, dict) else None
        if declared is not None and declared != count:
            message = f"{declared!r}, and the events chunks hold {count} events"
            problem(name, "counts.events", message)


def _counts(chunks: list[Any]) -> Iterable[int]:
    for chunk in chunks:
        counts = chunk.get("type_counts") if isinstance(chunk, dict) else None
        for value in counts.values() if isinstance(counts, dict) else ():
            if _is_index(value):
                yield value


def _check_attachments(
    sequences: dict[str, _Sequence], prefix: str, problem: Callable[[str, str, str], None]
) -> None:
    """Every ``attachment://<index>`` the messages, events and calls hold is an attachment."""
    count = len(sequences["attachments"].items)
    for kind in ("messages", "events", "calls"):
        for name, index, item in sequences[kind].located():
            bad = next(_past(item, count), None)
            if bad is not None:
                absent = f"{prefix}/attachments/{count}.json"
                message = (
                    f"{bad} is past the {count} attachment(s) the chunks hold ({absent} absent?)"
                )
                problem(name, f"[{index}]", message)
                return


def _past(value: Any, count: int) -> Iterator[str]:
    """The ``attachment://<index>`` references in ``value`` to no attachment."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if item.startswith(_ATTACHMENT):
                ref = item[len(_ATTACHMENT) :]
                if ref.isascii() and ref.isdigit() and len(ref) <= 12 and int(ref) >= count:
                    yield item
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
