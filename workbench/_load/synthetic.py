"""Deterministic synthetic OpenWOP v2 event logs, for benchmarks and tests.

A synthetic log holds ``runs`` recorded agent runs, each shaped like a real one (SPEC R18, R19 in
its run form): ``run.started``, ``agent.invocation-started``, then per tool call an
``agent.tool-called`` followed by its ``agent.tool-returned`` (same ``callId``), then
``agent.decided``, ``agent.invocation-completed`` and ``run.completed``. ``sequence`` starts at 0
in every run. Every event is valid against the official envelope and payload schemas.

Failures: with ``error_every = k > 0``, the k-th, 2k-th, 3k-th ... call of the log (counting from
1 across all runs) fails: its ``agent.tool-returned`` has ``error`` (``{code, message}``),
``status: "error"`` and no ``outcome`` (SPEC R20). Every other call succeeds with an MCP
``CallToolResult``-shaped ``outcome`` and ``status: "ok"``.

Determinism (SPEC R22): ids come from counters, timestamps from a logical clock that starts at a
fixed instant, sizes and values from ``random.Random(seed)``. The same arguments give the same
events and, written, the same bytes. Lines are compact JSON, about 200 to 400 bytes each.

Command line::

    python -m workbench._load.synthetic OUT.jsonl --events 1000000 --seed 0
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .._common.jsonio import atomic_file, jsonl_recogniser

__all__ = ["SYNTHETIC_TOOL_NAMES", "synthetic_events", "write_synthetic_log"]

StrPath = str | os.PathLike[str]

SYNTHETIC_TOOL_NAMES: tuple[str, ...] = (
    "crm:get-customer",
    "billing:get-invoice",
    "payments:list-charges",
    "tickets:update",
    "search:query",
    "docs:read",
    "email:send",
    "calendar:list-events",
    "kv:get",
    "http:fetch",
    "orders:get",
    "inventory:check",
)
"""The tool names a synthetic log draws from, in order; beyond these, ``tool-NNN:call``."""

EVENTS_PER_RUN_WITHOUT_CALLS = 5
"""Events of a run besides its calls: run and invocation started/completed, agent.decided."""

_START_EPOCH = 1_767_225_600  # 2026-01-01T00:00:00Z: the logical clock's first instant
_AGENT_ID = "synth-agent"
_ERRORS: tuple[tuple[str, str], ...] = (
    ("upstream_down", "upstream service unavailable (503)"),
    ("timeout", "tool did not answer within 30s"),
    ("rate_limited", "too many requests, retry later"),
    ("invalid_argument", "field 'id' does not name an existing record"),
)
_WORDS: tuple[str, ...] = (
    "refund",
    "invoice",
    "account",
    "duplicate",
    "charge",
    "october",
    "shipping",
    "address",
    "priority",
    "customer",
    "order",
    "status",
    "pending",
    "resolved",
    "card",
    "plan",
)
_STATUSES = ("active", "pending", "closed", "paid", "open")


def _tool_names(tools: int) -> list[str]:
    if tools < 1:
        raise ValueError(f"tools must be at least 1, got {tools}")
    names = list(SYNTHETIC_TOOL_NAMES[:tools])
    names.extend(f"tool-{i:03d}:call" for i in range(len(names), tools))
    return names


def _split(total: int, parts: int) -> list[int]:
    """``total`` split into ``parts`` near-equal counts, the larger ones first."""
    base, extra = divmod(total, parts)
    return [base + (1 if i < extra else 0) for i in range(parts)]


class _Clock:
    """Logical milliseconds since the start instant, formatted as ISO 8601 UTC."""

    __slots__ = ("_ms", "_prefix", "_second")

    def __init__(self) -> None:
        self._ms = 0
        self._second = -1
        self._prefix = ""

    def advance(self, ms: int) -> None:
        self._ms += ms

    @property
    def ms(self) -> int:
        return self._ms

    def stamp(self) -> str:
        second, milli = divmod(self._ms, 1000)
        if second != self._second:
            self._second = second
            self._prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(_START_EPOCH + second))
        return f"{self._prefix}.{milli:03d}Z"


def _events(
    n_calls: int, seed: int, error_every: int, tools: int, runs: int, pad: bool
) -> Iterator[dict[str, Any]]:
    if n_calls < 0:
        raise ValueError(f"n_calls must be at least 0, got {n_calls}")
    if runs < 1:
        raise ValueError(f"runs must be at least 1, got {runs}")
    if error_every < 0:
        raise ValueError(f"error_every must be at least 0, got {error_every}")
    names = _tool_names(tools)
    rng = random.Random(seed)
    randrange = rng.randrange
    getrandbits = rng.getrandbits
    words = _WORDS
    clock = _Clock()
    call_number = 0  # 1-based across the whole log
    run_id = ""
    event_prefix = ""
    sequence = 0

    def envelope(type_: str, payload: dict[str, Any]) -> dict[str, Any]:
        nonlocal sequence
        event = {
            "eventId": f"{event_prefix}{sequence:09d}",
            "runId": run_id,
            "type": type_,
            "payload": payload,
            "timestamp": clock.stamp(),
            "sequence": sequence,
            "schemaVersion": 1,
        }
        sequence += 1
        return event

    for run, calls_in_run in enumerate(_split(n_calls, runs)):
        run_id = f"synthetic/run-{seed}-{run:010d}"
        event_prefix = f"evt-{seed}-{run:06d}-"
        sequence = 0
        run_start = clock.ms
        invocation_id = f"inv-{seed}-{run:08d}"
        yield envelope(
            "run.started",
            {"workflowId": "synthetic", "inputs": {"seed": seed, "run": run}},
        )
        clock.advance(randrange(5, 40))
        yield envelope(
            "agent.invocation-started",
            {
                "invocationId": invocation_id,
                "agentId": _AGENT_ID,
                "source": "run-api",
                "toolSurfaceCount": tools,
            },
        )
        if pad and run == 0:
            clock.advance(randrange(200, 900))
            yield envelope(
                "agent.reasoned",
                {"agentId": _AGENT_ID, "reasoning": "Plan the tool calls.", "verbosity": "summary"},
            )
        errors = 0
        for _ in range(calls_in_run):
            call_number += 1
            tool = names[randrange(tools)]
            call_id = f"call-{seed}-{call_number:010d}"
            inputs: dict[str, Any] = {"id": f"obj_{getrandbits(40):010x}"}
            shape = randrange(4)
            if shape >= 1:
                inputs["query"] = " ".join(words[randrange(16)] for _ in range(randrange(1, 5)))
            if shape >= 2:
                inputs["limit"] = randrange(1, 101)
            if shape == 3:
                inputs["filters"] = {
                    "status": _STATUSES[randrange(5)],
                    "since": f"2026-{randrange(1, 13):02d}-{randrange(1, 29):02d}",
                }
            clock.advance(randrange(300, 2500))
            yield envelope(
                "agent.tool-called",
                {"agentId": _AGENT_ID, "toolName": tool, "callId": call_id, "inputs": inputs},
            )
            duration = randrange(20, 1200)
            clock.advance(duration)
            returned: dict[str, Any] = {"agentId": _AGENT_ID, "toolName": tool, "callId": call_id}
            if error_every and call_number % error_every == 0:
                code, message = _ERRORS[(call_number // error_every - 1) % len(_ERRORS)]
                returned["error"] = {"code": code, "message": message}
                returned["status"] = "error"
                errors += 1
            else:
                result: dict[str, Any] = {
                    "status": _STATUSES[randrange(5)],
                    "count": randrange(0, 500),
                }
                if randrange(3) == 0:
                    result["note"] = " ".join(words[randrange(16)] for _ in range(randrange(1, 4)))
                returned["outcome"] = {
                    "content": [{"type": "text", "text": json.dumps(result, separators=(",", ":"))}]
                }
                returned["status"] = "ok"
            returned["durationMs"] = duration
            yield envelope("agent.tool-returned", returned)
        clock.advance(randrange(500, 3000))
        answer = f"Done: {calls_in_run} tool calls, {errors} failed."
        yield envelope(
            "agent.decided",
            {"agentId": _AGENT_ID, "decision": {"outcome": "completed", "answer": answer}},
        )
        clock.advance(randrange(1, 20))
        yield envelope(
            "agent.invocation-completed",
            {"invocationId": invocation_id, "agentId": _AGENT_ID, "outcome": "completed"},
        )
        clock.advance(randrange(1, 20))
        yield envelope(
            "run.completed",
            {
                "outputs": {"answer": answer, "calls": calls_in_run, "errors": errors},
                "durationMs": clock.ms - run_start,
            },
        )
        clock.advance(randrange(1000, 60000))


def synthetic_events(
    n_calls: int, *, seed: int = 0, error_every: int = 0, tools: int = 8, runs: int = 1
) -> Iterator[dict[str, Any]]:
    """Yield the events of a synthetic log, one dict at a time.

    ``n_calls`` tool calls in total, split over ``runs`` runs as evenly as possible (earlier runs
    take the remainder), so the log has ``2 * n_calls + 5 * runs`` events. Tools are drawn from
    the first ``tools`` names of :data:`SYNTHETIC_TOOL_NAMES`. With ``error_every = k > 0`` the
    k-th, 2k-th, ... call (1-based, across runs) fails. Same arguments, same events.
    """
    return _events(n_calls, seed, error_every, tools, runs, pad=False)


def _line(event: dict[str, Any]) -> str:
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False) + "\n"


_is_synthetic_log = jsonl_recogniser("eventId", "runId", "type", "sequence", sorted_keys=False)


def write_synthetic_log(
    path: StrPath,
    n_events: int | None = None,
    *,
    n_calls: int | None = None,
    seed: int = 0,
    error_every: int = 50,
    tools: int = 8,
    runs: int = 1,
    overwrite: bool = False,
) -> int:
    """Write a synthetic log as JSONL (one compact event a line) and return the events written.

    An existing file is replaced when it is a log of this kind (compact OpenWOP events), or
    with ``overwrite=True``.

    Give exactly one of ``n_events`` and ``n_calls``. With ``n_events`` the log has exactly that
    many events: ``(n_events - 5 * runs) // 2`` calls, plus one ``agent.reasoned`` event in the
    first run when the count is otherwise one short. Events are streamed to a temporary file in
    the target folder, which is fsynced and renamed over ``path``, so a million events never sit
    in memory and a reader never sees half a file.
    """
    if (n_events is None) == (n_calls is None):
        raise ValueError("give exactly one of n_events and n_calls")
    pad = False
    if n_events is not None:
        overhead = EVENTS_PER_RUN_WITHOUT_CALLS * runs
        if n_events < overhead:
            raise ValueError(
                f"n_events must be at least {overhead} (5 events per run, {runs} runs), "
                f"got {n_events}"
            )
        n_calls, odd = divmod(n_events - overhead, 2)
        pad = odd == 1
    assert n_calls is not None
    events = _events(n_calls, seed, error_every, tools, runs, pad)

    count = 0
    with atomic_file(path, overwrite=overwrite, recognise=_is_synthetic_log) as f:
        batch: list[str] = []
        for event in events:
            batch.append(_line(event))
            if len(batch) == 4096:
                f.write("".join(batch).encode("utf-8"))
                count += len(batch)
                batch.clear()
        f.write("".join(batch).encode("utf-8"))
        count += len(batch)
    return count


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m workbench._load.synthetic OUT.jsonl --events N [--seed S] ...``."""
    parser = argparse.ArgumentParser(
        prog="python -m workbench._load.synthetic",
        description="Write a deterministic synthetic OpenWOP v2 event log (JSONL).",
    )
    parser.add_argument("out", type=Path, help="the .jsonl file to write")
    size = parser.add_mutually_exclusive_group(required=True)
    size.add_argument("--events", type=int, help="exact number of events to write")
    size.add_argument("--calls", type=int, help="number of tool calls to write")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument(
        "--error-every", type=int, default=50, help="every N-th call fails; 0 for none (default 50)"
    )
    parser.add_argument("--tools", type=int, default=8, help="distinct tool names (default 8)")
    parser.add_argument("--runs", type=int, default=1, help="runs in the log (default 1)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    try:
        written = write_synthetic_log(
            args.out,
            args.events,
            n_calls=args.calls,
            seed=args.seed,
            error_every=args.error_every,
            tools=args.tools,
            runs=args.runs,
        )
    except (ValueError, OSError) as exc:
        parser.exit(2, f"error: {exc}\n")
    elapsed = time.perf_counter() - started
    size_bytes = args.out.stat().st_size
    print(f"wrote {written} events ({size_bytes} bytes) to {args.out} in {elapsed:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
