"""Benchmark: build the Workbench widget for a 2,000-boundary run, and one isError toggle.

Headless (no kernel): the same Python work a kernel does, without the comm messages.

    python benchmarks/widget.py [--calls 2000] [--repeats 7] [--toggles 50]

Targets (issue 5): under 1 s to build, under 50 ms per toggle round trip. Prints medians.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def _median_ms(fn: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median wall-clock and CPU (this process) milliseconds of ``fn`` over ``repeats`` runs."""
    wall, cpu = [], []
    for _ in range(repeats):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    return statistics.median(wall), statistics.median(cpu)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="tool calls in the run")
    parser.add_argument("--repeats", type=int, default=7, help="builds to time")
    parser.add_argument("--toggles", type=int, default=50, help="toggles to time")
    args = parser.parse_args(argv)

    import workbench
    from workbench._load.synthetic import write_synthetic_log
    from workbench.widgets import Workbench

    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "run.openwop.jsonl"
        write_synthetic_log(log, n_calls=args.calls)
        Workbench(str(log))  # warm imports and caches

        library = _median_ms(lambda: workbench.promote(workbench.load_runs(log)), args.repeats)
        build_path = _median_ms(lambda: Workbench(str(log)), args.repeats)
        suite = workbench.promote(workbench.load_runs(log)).suite
        build_suite = _median_ms(lambda: Workbench(suite), args.repeats)

        wb = Workbench(str(log))
        count = len(wb.suite.tasks[0]["fixtures"]["toolResponses"])
        step = max(1, count // args.toggles)
        indexes = [(i * step + 7) % count for i in range(args.toggles)]
        wall, cpu = [], []
        for index in indexes:
            toggle = wb.boundaries.toggle(index)  # turns to the row's page, untimed
            start, start_cpu = time.perf_counter(), time.process_time()
            toggle.value = not toggle.value  # library call + the page redrawn
            wall.append((time.perf_counter() - start) * 1000)
            cpu.append((time.process_time() - start_cpu) * 1000)
        toggle_ms = (statistics.median(wall), statistics.median(cpu))
        wb.boundaries.go_to_page(1)
        page_ms = _median_ms(lambda: wb.boundaries.next.click(), args.repeats)  # pages 2, 3, ...

    print(f"boundaries: {count}; medians, wall-clock ms (CPU ms of this process)")
    rows = [
        ("load_runs + promote (library alone)", library, args.repeats),
        ("Workbench(path): load, promote, UI", build_path, args.repeats),
        ("Workbench(suite): UI only", build_suite, args.repeats),
        ("isError toggle round trip", toggle_ms, len(wall)),
        ("next page", page_ms, args.repeats),
    ]
    for label, (w_ms, c_ms), n in rows:
        print(f"  {label:38s} {w_ms:8.1f} ({c_ms:7.1f})  n={n}")
    ok = build_path[0] < 1000 and toggle_ms[0] < 50
    print("targets (build < 1000 ms, toggle < 50 ms, wall-clock):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
