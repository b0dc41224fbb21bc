"""Sweep throughput: variants per second in-process and on a 2-worker process pool.

Two synthetic suites, promoted from ``workbench._load.synthetic`` logs with no recorded errors:

- single: a 200-boundary suite, one ``hard`` fault per boundary (200 variants), in-process;
  target: under 2 s on one core.
- pairs: a 60-boundary suite, every pair of boundaries (1,770 variants, ``hard``), with 1 worker
  (in-process) and with 2 workers (a process pool, created inside the timed run); target: 2
  workers at least 1.6x faster.

Run: ``python benchmarks/sweep.py [--repeats N]``. Prints each run's time, medians and ratios.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from workbench import Suite, load_runs, promote, sweep
from workbench._load.synthetic import write_synthetic_log


def synthetic_suite(folder: Path, n_calls: int) -> Suite:
    path = folder / f"synthetic-{n_calls}.jsonl"
    write_synthetic_log(path, n_calls=n_calls, error_every=0)
    return promote(load_runs(path), self_test=False).suite


def timed(suite: Suite, faults: str, workers: int | None, repeats: int) -> list[float]:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        sweep(suite, faults=faults, kinds=("hard",), workers=workers, progress=False)
        times.append(time.perf_counter() - start)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        single = synthetic_suite(Path(tmp), 200)
        pairs = synthetic_suite(Path(tmp), 60)
    sweep(single, kinds=("hard",), progress=False)  # warm-up: imports, caches
    results: dict[str, tuple[int, list[float]]] = {}
    results["single, 200 variants, 1 worker"] = (200, timed(single, "single", None, args.repeats))
    for workers in (1, 2):
        label = f"pairs, 1770 variants, {workers} worker(s)"
        results[label] = (1770, timed(pairs, "pairs", workers, args.repeats))
    medians = {}
    for label, (count, times) in results.items():
        median = statistics.median(times)
        medians[label] = median
        runs = " ".join(f"{t:.3f}" for t in times)
        print(f"{label:<36} median {median:.3f} s  {count / median:8.0f} variants/s  [{runs}]")
    single_s = medians["single, 200 variants, 1 worker"]
    one = medians["pairs, 1770 variants, 1 worker(s)"]
    two = medians["pairs, 1770 variants, 2 worker(s)"]
    print(
        f"single-fault sweep: {single_s:.3f} s (target < 2 s): {'ok' if single_s < 2 else 'MISSED'}"
    )
    print(f"pairs speed-up, 2 workers vs 1: {one / two:.2f}x (target >= 1.6x): "
          f"{'ok' if one / two >= 1.6 else 'MISSED'}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
