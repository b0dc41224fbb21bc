"""Sweep throughput: variants per second in-process and on a 2-worker process pool.

Two synthetic suites, promoted from ``workbench._load.synthetic`` logs with no recorded errors:

- single: a 200-boundary suite, one ``hard`` fault per boundary (200 variants), in-process;
  target: under 2 s on one core.
- pairs: a 60-boundary suite, every pair of boundaries (1,770 variants, ``hard``), with 1 worker
  (in-process) and with 2 workers (a process pool, created inside the timed run); target: 2
  workers at least 1.6x faster.

At scale (``--scale``, on by default; ``--no-scale`` leaves it out), each including its report
(``write_report``: the CSVs, the PNGs, the inlined-Vega HTML):

- a 2,000-boundary suite, one ``hard`` and one ``transient`` fault per boundary (4,000 variants),
  on 2 workers; target: under 20 s with the report, printed beside the naive cost (the
  baseline replayed once per variant, estimated from the floor) and the floor (the baseline
  replayed once), and the branch chart's largest dataset (target: under 5,000 rows);
- a 20-task suite (20 runs of 100 calls), the same faults, on 2 workers, with its report.

Run: ``python benchmarks/sweep.py [--repeats N] [--no-scale] [--scale-repeats N]``. Prints
each run's time, medians (wall-clock, and CPU time of this process and its pool's workers, which
a loaded machine disturbs less) and ratios.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from workbench import Suite, branch_chart, load_runs, promote, replay, sweep, write_report
from workbench._load.synthetic import write_synthetic_log
from workbench._report.render import chart_spec


def synthetic_suite(folder: Path, n_calls: int, runs: int = 1) -> Suite:
    path = folder / f"synthetic-{n_calls}-{runs}.jsonl"
    write_synthetic_log(path, n_calls=n_calls, error_every=0, runs=runs)
    return promote(load_runs(path), self_test=False).suite


def largest_dataset(chart: object) -> int:
    """Rows in the chart spec's largest inline dataset."""
    spec = chart_spec(chart)  # type: ignore[arg-type]
    return max((len(rows) for rows in spec.get("datasets", {}).values()), default=0)


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended (the pool's workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def at_scale(folder: Path, label: str, suite: Suite, repeats: int, target: float | None) -> None:
    """Sweep ``suite`` (hard and transient, 2 workers) and write its report, ``repeats`` times;
    print the medians beside the floor (the baseline replayed once) and the naive cost (the
    baseline replayed once per variant)."""
    floors = []
    for _ in range(max(5, repeats)):
        start = time.perf_counter()
        replay(suite, events=False, validate=False)
        floors.append(time.perf_counter() - start)
    floor = statistics.median(floors)
    sweeps, reports, totals, cpus = [], [], [], []
    variants = 0
    result = None
    for index in range(repeats):
        cpu = cpu_seconds()
        start = time.perf_counter()
        result = sweep(suite, kinds=("hard", "transient"), workers=2, progress=False)
        middle = time.perf_counter()
        write_report(result, folder / f"{label.split()[0]}-{index}")
        end = time.perf_counter()
        cpus.append(cpu_seconds() - cpu)
        sweeps.append(middle - start)
        reports.append(end - middle)
        totals.append(end - start)
        variants = len(result.variants)
    assert result is not None
    rows = max(largest_dataset(branch_chart(result.branches(t))) for t in result.task_ids)
    total = statistics.median(totals)
    # A variant changes one task: naively that task's baseline is replayed once per variant
    # (the suite's tasks are the same size here, so each takes floor / tasks).
    tasks = len(result.task_ids)
    naive = floor / tasks * variants
    print(f"{label}: {tasks} task(s), {variants} variants, 2 workers")
    print(
        f"  sweep + report  median {total:6.2f} s wall, {statistics.median(cpus):6.2f} s CPU "
        f"(sweep {statistics.median(sweeps):.2f} s, report {statistics.median(reports):.2f} s)"
        f"  [{' '.join(f'{t:.2f}' for t in totals)}]"
    )
    print(f"  floor: the baseline replayed once           {floor:8.3f} s")
    sweep_time = statistics.median(sweeps)
    print(
        f"  naive: the baseline replayed per variant    {naive:8.1f} s "
        f"(floor / {tasks} task(s) x {variants})"
        f"  -> {naive / sweep_time:.1f}x the sweep's time (report not included)"
    )
    print(f"  sweep / floor: {sweep_time / floor:.0f}x; "
          f"sweep + report / floor: {total / floor:.0f}x")  # fmt: skip
    print(
        f"  branch chart's largest dataset: {rows} rows (target < 5000): "
        f"{'ok' if rows < 5000 else 'MISSED'}"
    )
    if target is not None:
        print(
            f"  target under {target:g} s with the report, 2 workers: "
            f"{'ok' if total < target else 'MISSED'}"
        )


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
    parser.add_argument("--scale", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--scale-repeats", type=int, default=3)
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
    if args.scale:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            big = synthetic_suite(folder, 2000)
            tasks = synthetic_suite(folder, 2000, runs=20)
            # Warm-up: imports, and the Vega bundle every report inlines (made once a process).
            start = time.perf_counter()
            write_report(sweep(pairs, kinds=("hard",), progress=False), folder / "warm-up")
            print(f"first report in this process (bundles Vega once): "
                  f"{time.perf_counter() - start:.2f} s")  # fmt: skip
            at_scale(folder, "2000-boundary single-fault sweep", big, args.scale_repeats, 20.0)
            at_scale(folder, "20-task suite (20 x 100 calls)", tasks, args.scale_repeats, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
