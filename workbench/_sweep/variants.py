"""Fault variants of a suite: a recorded boundary made to fail (SPEC R32, R39).

A **variant** is a suite derived from a baseline by changing fixture entries. Five fault kinds:

- ``hard``: the entry fails, and so do the next ``hard_repeats`` (default 3) identical calls: the
  entry becomes ``isError: true`` with the injected payload and that many ``isError`` copies
  follow it. An agent that retries fewer times than that sees only failures.
- ``transient``: an ``isError`` copy is inserted before the recorded entry: the first call fails,
  the next identical call gets the recorded response.
- ``flip``: just ``isError: true`` on that entry (the recorded payload is served as the failure).
- ``empty`` (R39, silent): served as a success with no content (``{"content": []}``).
- ``truncated`` (R39, silent): served as a success, each text block cut to half its length
  (a response that is not MCP content is cut as its JSON text); ``structuredContent`` is left
  out, since it would still hold the whole answer.

The silent kinds test whether an agent notices a success that is not one. The scripted agent
reads only ``isError``, so it never can: with it, a silent fault changes the outcome only where
the grading reads the answer or the calls that follow.

A fault on an entry the recording already failed (``isError: true``) keeps the recorded failure:
``hard`` and ``transient`` serve the recorded response (not the injected payload) and ``flip``,
``empty`` and ``truncated`` leave the entry as it is, so such a fault serves exactly what the
baseline served unless the agent calls again (R37: it is then untriggered). A fault never turns
a recorded failure into a success.

A boundary is the index of a fixture entry in the baseline task's ``fixtures.toolResponses``; for
a promoted suite that is the boundary's index in the recorded run (one entry per boundary, R30).

Every variant is a valid suite on its own (it can be exported and replayed alone): it holds the
task it changes (only that one, when the baseline has several) and a root ``x-variant`` member
naming the variant and its faults. Variants share the JSON they do not change with the baseline
(structural sharing keeps a sweep of thousands of variants cheap): call
:meth:`~workbench.Suite.copy` on a variant's suite before editing it in place.

Longer than 400 lines: the five kinds, the rule for recorded failures and the three variant sets
are one contract (R32, R39); each generator is short, and they share the naming and injection.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from .._common.toolresult import text_content
from .._common.vocab import FAULT_KINDS, FaultKind
from .._suite.model import Suite, task_tool_responses

__all__ = [
    "DEFAULT_PAYLOAD",
    "Fault",
    "Variant",
    "check_kinds",
    "inject",
    "pair_variants",
    "single_fault_variants",
    "tool_variants",
    "variant_name",
]


DEFAULT_PAYLOAD: dict[str, Any] = {"content": text_content('{"error":"upstream_down"}')}
"""The response an injected failure serves unless the caller gives another."""


@dataclass(frozen=True, slots=True)
class Fault:
    """One injected fault: a boundary of a task and how it fails."""

    task_id: str
    """The task's ``taskId``."""
    boundary: int
    """The fixture entry's index in the baseline task's ``fixtures.toolResponses``."""
    kind: FaultKind
    """``hard``, ``transient``, ``flip``, ``empty`` or ``truncated``."""

    def to_json(self) -> dict[str, Any]:
        """``{"taskId", "boundary", "kind"}`` (as on the ``x-variant`` member)."""
        return {"taskId": self.task_id, "boundary": self.boundary, "kind": self.kind}


@dataclass(frozen=True, slots=True)
class Variant:
    """A named variant: its faults and the suite they make (valid and replayable alone)."""

    name: str
    """A readable name: ``b07-hard``, ``b03+b11-transient``, ``tool:billing:lookup-flip``;
    prefixed ``<taskId>/`` when the baseline has several tasks."""
    faults: tuple[Fault, ...]
    """The faults injected, by boundary."""
    suite: Suite
    """The variant suite (shares unchanged JSON with the baseline: copy before editing)."""

    @property
    def task_id(self) -> str:
        """The task the variant changes."""
        return self.faults[0].task_id if self.faults else ""

    @property
    def boundaries(self) -> tuple[int, ...]:
        """The boundaries faulted, in order."""
        return tuple(f.boundary for f in self.faults)

    @property
    def kind(self) -> str:
        """The fault kind (the kinds joined with ``+`` when they differ)."""
        kinds = list(dict.fromkeys(f.kind for f in self.faults))
        return "+".join(kinds)


def check_kinds(kinds: Iterable[str]) -> tuple[FaultKind, ...]:
    """The fault kinds given, each once, in the order given; an unknown kind is a ValueError."""
    checked: list[FaultKind] = []
    for kind in kinds:
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r}; kinds are {', '.join(FAULT_KINDS)}")
        if kind not in checked:
            checked.append(kind)
    if not checked:
        raise ValueError("no fault kinds given")
    return tuple(checked)


def payload_response(payload: Any) -> dict[str, Any]:
    if payload is None:
        return DEFAULT_PAYLOAD
    if isinstance(payload, Mapping) and isinstance(payload.get("content"), list):
        return dict(payload)
    if isinstance(payload, str):
        return {"content": text_content(payload)}
    return {"content": text_content(json.dumps(payload, sort_keys=True, separators=(",", ":")))}


def _failure_like(entry: Mapping[str, Any], response: dict[str, Any]) -> dict[str, Any]:
    """An ``isError`` entry matching the same calls as ``entry``."""
    copy: dict[str, Any] = {"tool": entry.get("tool")}
    if "args" in entry:
        copy["args"] = entry["args"]
    if "argsMatch" in entry:
        copy["argsMatch"] = entry["argsMatch"]
    copy["isError"] = True
    copy["response"] = response
    return copy


def faulted_entries(
    entry: Mapping[str, Any], kind: str, hard_repeats: int, response: dict[str, Any]
) -> list[Mapping[str, Any]]:
    """The entries that take one entry's place under a fault of ``kind`` (R32, R39).

    ``response`` is what an injected failure serves. An entry already failing keeps its
    recorded failure (see the module docstring).
    """
    recorded_failure = entry.get("isError") is True
    if recorded_failure:
        if kind in ("flip", "empty", "truncated"):
            return [entry]
        response = entry.get("response", response)
    if kind == "flip":
        return [{**entry, "isError": True}]
    if kind == "transient":
        return [_failure_like(entry, response), entry]
    if kind == "hard":
        first: Mapping[str, Any] = entry if recorded_failure else _failure_like(entry, response)
        return [first] + [_failure_like(entry, response) for _ in range(hard_repeats)]
    if kind == "empty":
        return [_success_like(entry, {"content": []})]
    if kind == "truncated":
        return [_success_like(entry, truncated_response(entry.get("response")))]
    raise ValueError(f"unknown fault kind {kind!r}; kinds are {', '.join(FAULT_KINDS)}")


def truncated_response(response: Any) -> dict[str, Any]:
    """A success response with its text cut to half (R39): each text block of MCP content cut
    to its first half; any other response as its JSON text, cut likewise. Non-text blocks and
    ``structuredContent`` are left out."""
    if isinstance(response, Mapping) and isinstance(response.get("content"), list):
        blocks = []
        for block in response["content"]:
            if isinstance(block, Mapping) and block.get("type") == "text":
                text = block.get("text")
                if isinstance(text, str):
                    blocks.append({**block, "text": text[: len(text) // 2]})
        return {"content": blocks}
    if isinstance(response, str):
        text = response
    else:
        text = json.dumps(response, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return {"content": text_content(text[: len(text) // 2])}


def _success_like(entry: Mapping[str, Any], response: dict[str, Any]) -> dict[str, Any]:
    """A success entry matching the same calls as ``entry``, serving ``response``."""
    copy = {k: v for k, v in entry.items() if k not in ("isError", "response")}
    copy["response"] = response
    return copy


def _width(count: int) -> int:
    return max(2, len(str(max(count - 1, 0))))


def variant_name(faults: Sequence[Fault], *, width: int = 2, multi_task: bool = False) -> str:
    """``b07-hard`` / ``b03+b11-transient`` (mixed kinds: ``b03-hard+b11-flip``)."""
    if not faults:
        raise ValueError("a variant needs at least one fault")
    kinds = {f.kind for f in faults}
    if len(kinds) == 1:
        name = "+".join(f"b{f.boundary:0{width}d}" for f in faults) + f"-{faults[0].kind}"
    else:
        name = "+".join(f"b{f.boundary:0{width}d}-{f.kind}" for f in faults)
    return f"{faults[0].task_id}/{name}" if multi_task else name


MAX_HARD_REPEATS = 1000
"""The most failing copies a hard fault adds after its entry (bounds the work of a variant)."""


def inject(
    suite: Suite | Mapping[str, Any],
    faults: Sequence[Fault],
    *,
    hard_repeats: int = 3,
    payload: Any = None,
    name: str | None = None,
) -> Suite:
    """The suite with ``faults`` injected (R32), as a new suite holding the faulted task(s).

    ``payload`` is what an injected failure serves (default :data:`DEFAULT_PAYLOAD`, MCP text
    content ``{"error":"upstream_down"}``; a string becomes text content, other JSON its text).
    ``name`` goes on the ``x-variant`` member (default: :func:`variant_name`). The input suite is
    not changed; unchanged JSON is shared with it.

    Raises:
        KeyError: a fault names a task the suite does not have.
        ValueError: a boundary out of range, two faults on one boundary, ``hard_repeats < 0``.
    """
    base = Suite.coerce(suite)
    if not 0 <= hard_repeats <= MAX_HARD_REPEATS:
        raise ValueError(f"hard_repeats must be from 0 to {MAX_HARD_REPEATS}, not {hard_repeats}")
    if not faults:
        raise ValueError("inject needs at least one fault")
    response = payload_response(payload)
    by_task: dict[str, list[Fault]] = {}
    for fault in faults:
        check_kinds([fault.kind])
        by_task.setdefault(fault.task_id, []).append(fault)
    new_tasks: list[dict[str, Any]] = []
    for task in base.tasks:
        task_faults = by_task.get(str(task.get("taskId")))
        if task_faults is None:
            continue
        new_tasks.append(_inject_task(task, task_faults, hard_repeats, response))
    if len(new_tasks) != len(by_task):
        known = {str(t.get("taskId")) for t in base.tasks}
        missing = next(t for t in by_task if t not in known)
        base.task(missing)  # raises the KeyError listing the task ids
    multi = len(base.tasks) > 1
    data = {k: v for k, v in base.data.items() if k != "tasks"}
    data["tasks"] = new_tasks
    width = _width(max(len(task_tool_responses(t)) for t in new_tasks))
    info: dict[str, Any] = {
        "name": name if name is not None else variant_name(faults, width=width, multi_task=multi),
        "faults": [f.to_json() for f in faults],
        "hardRepeats": hard_repeats,
    }
    if payload is not None:
        info["payload"] = response
    data["x-variant"] = info
    return Suite(data)


def _inject_task(
    task: Mapping[str, Any],
    faults: Sequence[Fault],
    hard_repeats: int,
    response: dict[str, Any],
) -> dict[str, Any]:
    entries = task_tool_responses(task)
    seen: set[int] = set()
    for fault in faults:
        if not 0 <= fault.boundary < len(entries):
            raise ValueError(
                f"task {fault.task_id!r}: boundary {fault.boundary} out of range "
                f"(0..{len(entries) - 1})"
            )
        if fault.boundary in seen:
            raise ValueError(f"task {fault.task_id!r}: two faults on boundary {fault.boundary}")
        seen.add(fault.boundary)
    new_entries: list[Mapping[str, Any]] = list(entries)
    # Highest boundary first, so insertions leave the lower indices where they were.
    for fault in sorted(faults, key=lambda f: f.boundary, reverse=True):
        new_entries[fault.boundary : fault.boundary + 1] = faulted_entries(
            entries[fault.boundary], fault.kind, hard_repeats, response
        )
    fixtures = task.get("fixtures")
    new_fixtures = dict(fixtures) if isinstance(fixtures, Mapping) else {}
    new_fixtures["toolResponses"] = new_entries
    return {**task, "fixtures": new_fixtures}


def _make(
    base: Suite,
    faults: tuple[Fault, ...],
    name: str,
    hard_repeats: int,
    payload: Any,
) -> Variant:
    return Variant(
        name, faults, inject(base, faults, hard_repeats=hard_repeats, payload=payload, name=name)
    )


def single_fault_variants(
    suite: Suite | Mapping[str, Any],
    kinds: Iterable[str] = ("hard", "transient"),
    *,
    hard_repeats: int = 3,
    payload: Any = None,
) -> list[Variant]:
    """One variant per boundary and kind (task by task, boundary by boundary, kind by kind)."""
    base = Suite.coerce(suite)
    checked = check_kinds(kinds)
    multi = len(base.tasks) > 1
    variants: list[Variant] = []
    for task in base.tasks:
        task_id = str(task.get("taskId"))
        count = len(task_tool_responses(task))
        width = _width(count)
        for boundary in range(count):
            for kind in checked:
                faults = (Fault(task_id, boundary, kind),)
                name = variant_name(faults, width=width, multi_task=multi)
                variants.append(_make(base, faults, name, hard_repeats, payload))
    return variants


def pair_variants(
    suite: Suite | Mapping[str, Any],
    kinds: Iterable[str] = ("hard", "transient"),
    pairs: Iterable[tuple[int, int]] | None = None,
    *,
    hard_repeats: int = 3,
    payload: Any = None,
) -> list[Variant]:
    """One variant per pair of boundaries and kind (both boundaries fail the same way).

    ``pairs=None`` takes every pair of each task's boundaries (C(n, 2) of them); otherwise the
    pairs given, applied to every task that has both boundaries.
    """
    base = Suite.coerce(suite)
    checked = check_kinds(kinds)
    chosen: list[tuple[int, int]] | None = None
    if pairs is not None:
        chosen = []
        for pair in pairs:
            a, b = (int(x) for x in pair)
            if a == b:
                raise ValueError(f"a pair needs two different boundaries, not ({a}, {b})")
            chosen.append((min(a, b), max(a, b)))
    multi = len(base.tasks) > 1
    variants: list[Variant] = []
    for task in base.tasks:
        task_id = str(task.get("taskId"))
        count = len(task_tool_responses(task))
        width = _width(count)
        task_pairs = (
            list(combinations(range(count), 2))
            if chosen is None
            else [(a, b) for a, b in chosen if b < count]
        )
        for a, b in task_pairs:
            for kind in checked:
                faults = (Fault(task_id, a, kind), Fault(task_id, b, kind))
                name = variant_name(faults, width=width, multi_task=multi)
                variants.append(_make(base, faults, name, hard_repeats, payload))
    return variants


def tool_variants(
    suite: Suite | Mapping[str, Any],
    tool: str,
    kinds: Iterable[str] = ("hard", "transient"),
    *,
    hard_repeats: int = 3,
    payload: Any = None,
) -> list[Variant]:
    """Per task that calls ``tool`` and per kind, one variant faulting every call of it.

    Raises:
        ValueError: no task has a fixture entry for ``tool``.
    """
    base = Suite.coerce(suite)
    checked = check_kinds(kinds)
    multi = len(base.tasks) > 1
    variants: list[Variant] = []
    for task in base.tasks:
        task_id = str(task.get("taskId"))
        boundaries = [
            i for i, entry in enumerate(task_tool_responses(task)) if entry.get("tool") == tool
        ]
        if not boundaries:
            continue
        for kind in checked:
            faults = tuple(Fault(task_id, b, kind) for b in boundaries)
            name = f"tool:{tool}-{kind}"
            name = f"{task_id}/{name}" if multi else name
            variants.append(_make(base, faults, name, hard_repeats, payload))
    if not variants:
        tools = sorted({str(e.get("tool")) for t in base.tasks for e in task_tool_responses(t)})
        raise ValueError(f"no task calls tool {tool!r} (tools: {', '.join(tools)})")
    return variants
