"""Loading an OpenWOP JSONL log: events per second and peak memory, beside what a user would do.

Four contenders read the same synthetic log (``workbench._load.synthetic``), each in a fresh child
process so that its peak memory is its own:

- ``workbench``: ``workbench.load_runs(path)``, the full load (boundaries paired, problems checked).
- ``pandas``: ``pandas.read_json(path, lines=True)``, what a user would do instead.
- ``bare``: a loop that only ``json.loads`` each line (text mode) and drops it: the floor the
  issue names.
- ``bare-orjson``: a loop that only ``orjson.loads`` each line (binary mode) and drops it: the
  floor for the decoder the loader uses, so the honest one to compare it with.

Each child reports its wall time and CPU time for the load alone (imports excluded; the loaded
result is kept alive until the clock stops, so freeing it is not counted) and its peak
resident memory (``ru_maxrss``) minus the same figure taken after its imports, i.e. what the load
added. The parent prints medians over the repeats (contenders take turns, so a burst of load on a
shared machine does not hit one of them only), events per second and the ratios the targets name.
Run from the repository root::

    python benchmarks/load.py [--events 1000000] [--log PATH] [--repeats 3] [--json OUT]

Without ``--log`` the log is generated into a temporary folder (``--seed``, default 0; a
1,000,000-event log is about 370 MB and takes about 15 s to write). Targets: workbench at least
5x the pandas rate, at most 2x the bare loop's time, peak memory under 3x the file size.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CONTENDERS = ("workbench", "pandas", "bare", "bare-orjson")
TARGET_VS_PANDAS = 5.0
TARGET_VS_BARE = 2.0
TARGET_MEMORY = 3.0


# --- the child: one contender, one load ------------------------------------------------------


def _max_rss_bytes() -> int:
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # Linux reports KiB


def _cpu_seconds() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def run_child(name: str, path: str) -> dict[str, Any]:
    """Load ``path`` with one contender and measure it (runs in the child process)."""
    sys.path.insert(0, str(ROOT))
    if name == "workbench":
        from workbench import load_runs

        def load() -> tuple[int, Any]:
            result = load_runs(path)
            return len(result.boundaries), result

    elif name == "pandas":
        import pandas as pd

        def load() -> tuple[int, Any]:
            frame = pd.read_json(path, lines=True)
            return len(frame), frame

    elif name == "bare":

        def load() -> tuple[int, Any]:
            loads = json.loads
            count = 0
            with open(path, encoding="utf-8") as handle:
                for line in handle:
                    loads(line)
                    count += 1
            return count, None

    elif name == "bare-orjson":
        import orjson

        def load() -> tuple[int, Any]:
            loads = orjson.loads
            count = 0
            with open(path, "rb") as handle:
                for line in handle:
                    loads(line)
                    count += 1
            return count, None

    else:
        raise SystemExit(f"unknown contender {name!r}")
    baseline = _max_rss_bytes()
    cpu = _cpu_seconds()
    start = time.perf_counter()
    items, kept = load()  # kept alive until timed: freeing the result is not loading it
    wall = time.perf_counter() - start
    cpu = _cpu_seconds() - cpu
    peak = _max_rss_bytes()
    del kept
    return {
        "contender": name,
        "wall_s": wall,
        "cpu_s": cpu,
        "items": items,
        "baseline_rss_bytes": baseline,
        "peak_rss_bytes": peak,
        "added_rss_bytes": peak - baseline,
    }


# --- the parent ------------------------------------------------------------------------------


def count_events(path: Path) -> int:
    """Non-blank lines of the log (one event each)."""
    count = 0
    with path.open("rb") as handle:
        for line in handle:
            if line.strip():
                count += 1
    return count


def measure(name: str, path: Path) -> dict[str, Any]:
    """One contender's load in a fresh child process."""
    done = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--child", name, "--log", str(path)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{name} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def summarise(rows: list[dict[str, Any]], events: int, size: int) -> dict[str, Any]:
    walls = [r["wall_s"] for r in rows]
    cpus = [r["cpu_s"] for r in rows]
    added = [r["added_rss_bytes"] for r in rows]
    wall = statistics.median(walls)
    cpu = statistics.median(cpus)
    return {
        "runs": len(rows),
        "wall_s": wall,
        "wall_min_s": min(walls),
        "wall_max_s": max(walls),
        "cpu_s": cpu,
        "events_per_s": events / wall,
        "events_per_cpu_s": events / cpu,
        "added_rss_bytes": statistics.median(added),
        "memory_x_file": statistics.median(added) / size,
        "items": rows[0]["items"],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000, help="events to generate")
    parser.add_argument("--log", type=Path, help="an existing OpenWOP JSONL log to load instead")
    parser.add_argument("--seed", type=int, default=0, help="seed of the generated log")
    parser.add_argument("--repeats", type=int, default=3, help="loads per contender (median)")
    parser.add_argument(
        "--contenders",
        default=",".join(CONTENDERS),
        help="comma-separated subset of: " + ", ".join(CONTENDERS),
    )
    parser.add_argument("--json", type=Path, help="also write every figure to this JSON file")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.child:
        print(json.dumps(run_child(args.child, str(args.log))))
        return 0

    names = [n.strip() for n in args.contenders.split(",") if n.strip()]
    unknown = sorted(set(names) - set(CONTENDERS))
    if unknown or not names:
        parser.error(f"unknown contender(s) {unknown}; choose from {', '.join(CONTENDERS)}")
    with tempfile.TemporaryDirectory(prefix="wb-load-bench-") as folder:
        path = args.log
        if path is None:
            sys.path.insert(0, str(ROOT))
            from workbench._load.synthetic import write_synthetic_log

            path = Path(folder) / f"synthetic-{args.events}.jsonl"
            start = time.perf_counter()
            write_synthetic_log(path, args.events, seed=args.seed)
            print(f"generated {path.name} in {time.perf_counter() - start:.1f}s")
        return run(path, names, args.repeats, args.json)


def run(path: Path, names: list[str], repeats: int, json_out: Path | None) -> int:
    size = path.stat().st_size
    events = count_events(path)
    load_before = os.getloadavg()
    print(
        f"log: {path} ({events:,} events, {size / 1e6:.1f} MB); repeats: {repeats}; "
        f"python {platform.python_version()}; {os.cpu_count()} cores; "
        f"load average {load_before[0]:.1f}"
    )
    rows: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    for repeat in range(repeats):
        turn = names[repeat % len(names) :] + names[: repeat % len(names)]
        for name in turn:
            row = measure(name, path)
            rows[name].append(row)
            print(
                f"  run {repeat + 1} {name:11s} {row['wall_s']:7.2f}s wall "
                f"{row['cpu_s']:7.2f}s cpu  +{row['added_rss_bytes'] / 1e6:8.1f} MB",
                flush=True,
            )
    load_after = os.getloadavg()
    summary = {name: summarise(rows[name], events, size) for name in names}

    print()
    print(
        f"{'contender':11s} {'median s':>9s} {'events/s':>11s} {'cpu s':>7s} "
        f"{'events/cpu-s':>13s} {'+peak MB':>9s} {'x file':>7s}"
    )
    for name in names:
        s = summary[name]
        print(
            f"{name:11s} {s['wall_s']:9.2f} {s['events_per_s']:11,.0f} {s['cpu_s']:7.2f} "
            f"{s['events_per_cpu_s']:13,.0f} {s['added_rss_bytes'] / 1e6:9.1f} "
            f"{s['memory_x_file']:7.2f}"
        )
    print(f"load average {load_before[0]:.1f} before, {load_after[0]:.1f} after")

    verdicts: dict[str, Any] = {}
    if "workbench" in summary:
        wb = summary["workbench"]
        print()
        if "pandas" in summary:
            ratio = summary["pandas"]["wall_s"] / wb["wall_s"]
            cpu_ratio = summary["pandas"]["cpu_s"] / wb["cpu_s"]
            verdicts["x_pandas_rate"] = ratio
            verdicts["x_pandas_cpu"] = cpu_ratio
            print(
                f"workbench rate / pandas rate: {ratio:.1f}x wall, {cpu_ratio:.1f}x cpu "
                f"(target >= {TARGET_VS_PANDAS:g}x): {_verdict(ratio >= TARGET_VS_PANDAS)}"
            )
        if "bare" in summary:
            ratio = wb["wall_s"] / summary["bare"]["wall_s"]
            cpu_ratio = wb["cpu_s"] / summary["bare"]["cpu_s"]
            verdicts["x_bare_time"] = ratio
            verdicts["x_bare_cpu"] = cpu_ratio
            print(
                f"workbench time / bare json loop time: {ratio:.2f}x wall, {cpu_ratio:.2f}x cpu "
                f"(target <= {TARGET_VS_BARE:g}x): {_verdict(ratio <= TARGET_VS_BARE)}"
            )
        if "bare-orjson" in summary:
            ratio = wb["wall_s"] / summary["bare-orjson"]["wall_s"]
            cpu_ratio = wb["cpu_s"] / summary["bare-orjson"]["cpu_s"]
            verdicts["x_bare_orjson_time"] = ratio
            verdicts["x_bare_orjson_cpu"] = cpu_ratio
            print(
                f"workbench time / bare orjson loop time: {ratio:.2f}x wall, {cpu_ratio:.2f}x cpu "
                "(no target; the floor for the decoder the loader uses)"
            )
        verdicts["x_file_memory"] = wb["memory_x_file"]
        print(
            f"workbench peak memory added / file size: {wb['memory_x_file']:.2f}x "
            f"(target < {TARGET_MEMORY:g}x): {_verdict(wb['memory_x_file'] < TARGET_MEMORY)}"
        )
    if json_out is not None:
        record = {
            "log": str(path),
            "events": events,
            "file_bytes": size,
            "repeats": repeats,
            "python": platform.python_version(),
            "cores": os.cpu_count(),
            "load_average": [load_before[0], load_after[0]],
            "summary": summary,
            "ratios": verdicts,
            "runs": rows,
        }
        json_out.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return 0


def _verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


if __name__ == "__main__":
    sys.exit(main())
