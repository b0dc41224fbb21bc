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


def _median_ms(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="tool calls in the run")
    parser.add_argument("--repeats", type=int, default=7, help="builds to time")
    parser.add_argument("--toggles", type=int, default=50, help="toggles to time")
    args = parser.parse_args(argv)

    import workbench
    from workbench._synthetic import write_synthetic_log
    from workbench.widgets import Workbench

    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "run.openwop.jsonl"
        write_synthetic_log(log, n_calls=args.calls)
        Workbench(str(log))  # warm imports and caches

        build_path = _median_ms(lambda: Workbench(str(log)), args.repeats)
        suite = workbench.promote(workbench.load_runs(log)).suite
        build_suite = _median_ms(lambda: Workbench(suite.copy()), args.repeats)

        wb = Workbench(str(log))
        count = len(wb.suite.tasks[0]["fixtures"]["toolResponses"])
        step = max(1, count // args.toggles)
        indexes = [(i * step) % count for i in range(args.toggles)]
        toggles = [wb.boundaries.toggle(i) for i in indexes[:1]]  # the first page turn, untimed
        times = []
        for index in indexes:
            toggle = wb.boundaries.toggle(index)
            start = time.perf_counter()
            toggle.value = not toggle.value
            times.append((time.perf_counter() - start) * 1000)
        del toggles
        toggle_ms = statistics.median(times)
        page_ms = _median_ms(lambda: wb.boundaries.next.click(), args.repeats)

    print(f"boundaries                         {count}")
    print(f"build from path (load+promote+UI)  {build_path:8.1f} ms median of {args.repeats}")
    print(f"build from a Suite (UI only)       {build_suite:8.1f} ms median of {args.repeats}")
    print(f"toggle round trip                  {toggle_ms:8.1f} ms median of {len(times)}")
    print(f"next page                          {page_ms:8.1f} ms median of {args.repeats}")
    ok = build_path < 1000 and toggle_ms < 50
    print("targets (build < 1000 ms, toggle < 50 ms):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
