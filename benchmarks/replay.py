"""Replay throughput: served tool calls per second (SPEC R12-R22 hot path).

A scripted suite of one task with 200 calls (8 tools, exact-args entries, every 10th recorded
call an ``isError`` entry the script skips) is replayed with the event log off and on, beside a
floor: a bare loop that only looks each call up in a dict. Prints the median over repeats of
calls per second for each, and the ratios. Run from the repository root::

    python benchmarks/replay.py [--calls 200] [--repeats 15] [--loops 20]

Target: at least 100,000 served calls/s with events off, within 10x of the bare loop.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workbench import replay

TOOLS = [f"svc:tool-{i}" for i in range(8)]


def build_suite(n_calls: int) -> dict[str, Any]:
    """One task, ``n_calls`` scripted calls, one exact-args fixture entry per call."""
    entries: list[dict[str, Any]] = []
    script: list[dict[str, Any]] = []
    for i in range(n_calls):
        tool = TOOLS[i % len(TOOLS)]
        args = {"id": f"obj-{i}", "page": i % 5, "filters": {"status": ["open", "paid"]}}
        failed = i % 10 == 3
        entry: dict[str, Any] = {
            "tool": tool,
            "args": args,
            "response": {"content": [{"type": "text", "text": json.dumps({"i": i})}]},
        }
        if failed:
            entry["isError"] = True
        entries.append(entry)
        script.append({"tool": tool, "args": args, "onError": "skip" if failed else "abort"})
    return {
        "suiteId": "local.bench.evals.replay",
        "version": "1.0.0",
        "modes": ["golden"],
        "tasks": [
            {
                "taskId": "bench",
                "input": {"script": script, "answer": "done"},
                "expected": {
                    "kind": "golden",
                    "match": {
                        "strategy": "json-match",
                        "value": {"outcome": "completed", "answer": "done"},
                    },
                },
                "fixtures": {"toolResponses": entries, "onMiss": "fail"},
            }
        ],
    }


def bare_loop(suite: dict[str, Any]) -> Callable[[], int]:
    """The floor: each scripted call looked up in a dict keyed by (tool, args JSON)."""
    task = suite["tasks"][0]
    table = {
        (e["tool"], json.dumps(e["args"], sort_keys=True)): e
        for e in task["fixtures"]["toolResponses"]
    }
    script = task["input"]["script"]

    def run() -> int:
        served = 0
        for step in script:
            if table.get((step["tool"], json.dumps(step["args"], sort_keys=True))) is not None:
                served += 1
        return served

    return run


def replay_run(suite: dict[str, Any], *, events: bool) -> Callable[[], int]:
    def run() -> int:
        result = replay(suite, events=events, validate=False)
        assert result.passed and result.fixture_miss_count == 0
        return len(result.tasks[0].trials[0].calls)

    return run


def measure(run: Callable[[], int], *, loops: int) -> tuple[float, float]:
    """Calls per second over ``loops`` runs: by wall-clock time and by this process's CPU time.

    CPU time (``time.process_time``) is less disturbed by other processes on a shared machine;
    both are reported.
    """
    wall, cpu = time.perf_counter(), time.process_time()
    calls = sum(run() for _ in range(loops))
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return calls / wall, calls / max(cpu, 1e-9)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--loops", type=int, default=20)
    args = parser.parse_args(argv)
    suite = build_suite(args.calls)
    print(f"python {platform.python_version()} on {platform.machine()}, {args.calls}-call suite,")
    print(f"median of {args.repeats} repeats x {args.loops} replays (interleaved per repeat)")
    runs = {
        "bare dict loop": bare_loop(suite),
        "replay, events off": replay_run(suite, events=False),
        "replay, events on": replay_run(suite, events=True),
    }
    for run in runs.values():
        run()  # warm up (imports, caches)
    wall: dict[str, list[float]] = {name: [] for name in runs}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(args.repeats):  # interleaved, so machine noise hits all three alike
        for name, run in runs.items():
            by_wall, by_cpu = measure(run, loops=args.loops)
            wall[name].append(by_wall)
            cpu[name].append(by_cpu)
    medians = {name: statistics.median(cpu[name]) for name in runs}
    wall_medians = {name: statistics.median(wall[name]) for name in runs}
    floor = medians["bare dict loop"]
    print(f"{'':20}{'calls/s (CPU)':>15}{'min':>10}{'max':>10}{'calls/s (wall)':>16}{'x floor':>9}")
    for name in runs:
        print(
            f"{name:20}{medians[name]:15,.0f}{min(cpu[name]):10,.0f}{max(cpu[name]):10,.0f}"
            f"{wall_medians[name]:16,.0f}{floor / medians[name]:9.1f}"
        )
    off, on = medians["replay, events off"], medians["replay, events on"]
    print(f"events on costs {off / on:.2f}x events off (CPU time)")
    ok = off >= 100_000 and floor / off <= 10
    verdict = "met" if ok else "NOT met"
    print(f"target (>= 100,000 calls/s events off, within 10x of the floor): {verdict}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
