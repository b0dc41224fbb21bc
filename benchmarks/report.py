"""A sweep report's cost as tasks grow: ``write_report`` time and bytes beside the replay floor.

Suites are promoted from ``workbench._load.synthetic`` logs (``error_every=0``) and swept with
``hard`` and ``transient`` at every boundary on 2 workers, once each; then ``write_report``
runs ``--repeats`` times into a temporary folder (after one warm-up report that bundles the Vega
libraries, made once a process). Two shapes, from the project's standard (2,000 boundaries, 20
tasks):

- 20 tasks of 100 calls (2,000 boundaries, 4,000 variants); target: a few seconds, a few MB;
- 800 tasks of one call (1,600 variants); target: well under a minute.

Printed per shape: the floor (the suite replayed once, ``replay(events=False,
validate=False)``), the sweep, the report's median wall-clock and CPU time (this process and
its render threads), the size of ``report.html`` and of the PNGs, and how many charts the page
holds. ``--tasks-3000`` adds 3,000 one-call tasks.

Run: ``python benchmarks/report.py [--repeats 3] [--task-charts N] [--tasks-3000]``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from workbench import Suite, load_runs, promote, replay, sweep, write_report
from workbench._load.synthetic import write_synthetic_log
from workbench._report.overview import MAX_TASK_CHARTS


def synthetic_suite(folder: Path, n_calls: int, runs: int) -> Suite:
    path = folder / f"synthetic-{n_calls}-{runs}.jsonl"
    write_synthetic_log(path, n_calls=n_calls, error_every=0, runs=runs)
    return promote(load_runs(path), self_test=False).suite


def measure(folder: Path, label: str, suite: Suite, repeats: int, task_charts: int) -> None:
    floors = []
    for _ in range(5):
        start = time.perf_counter()
        replay(suite, events=False, validate=False)
        floors.append(time.perf_counter() - start)
    start = time.perf_counter()
    result = sweep(suite, kinds=("hard", "transient"), workers=2, progress=False)
    swept = time.perf_counter() - start
    walls, cpus = [], []
    out = folder / "report"
    for _ in range(repeats):
        cpu = time.process_time()
        start = time.perf_counter()
        write_report(result, out, overwrite=True, task_charts=task_charts)
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    page = (out / "report.html").read_text(encoding="utf-8")
    pngs = sum(p.stat().st_size for p in out.glob("*.png"))
    charts = page.count('<div class="chart"')
    floor = statistics.median(floors)
    wall = statistics.median(walls)
    print(f"{label}: {len(result.task_ids)} tasks, {len(result.variants)} variants")
    print(f"  floor: the suite replayed once   {floor:8.3f} s")
    print(f"  sweep (2 workers, once)          {swept:8.3f} s")
    print(
        f"  report median                    {wall:8.3f} s wall, "
        f"{statistics.median(cpus):.3f} s CPU  [{' '.join(f'{t:.2f}' for t in walls)}]"
    )
    print(
        f"  report.html {len(page.encode('utf-8')) / 1e6:.2f} MB, PNGs {pngs / 1e6:.2f} MB, "
        f"{charts} charts; report / floor {wall / floor:.0f}x"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--task-charts", type=int, default=MAX_TASK_CHARTS)
    parser.add_argument("--tasks-3000", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        shapes = [("20 tasks x 100 calls", 2000, 20), ("800 tasks x 1 call", 800, 800)]
        if args.tasks_3000:
            shapes.append(("3000 tasks x 1 call", 3000, 3000))
        warm = synthetic_suite(folder, 20, 2)
        start = time.perf_counter()
        write_report(sweep(warm, progress=False), folder / "warm-up")
        print(f"first report in this process (bundles Vega once): "
              f"{time.perf_counter() - start:.2f} s")  # fmt: skip
        for label, calls, runs in shapes:
            measure(folder, label, synthetic_suite(folder, calls, runs), args.repeats,
                    args.task_charts)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
