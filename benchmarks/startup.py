"""Start-up time of the command line: how long a command takes when the work is tiny.

Each contender runs as a fresh process, ``--repeats`` times, in turn (so a burst of load on a
shared machine does not hit one of them only): a bare ``python -c pass`` (the floor: the
interpreter alone), ``python -c "import workbench"``, ``workbench --help``, ``workbench
--version``, ``workbench boundaries`` on a 2-call recording, and ``workbench validate`` on a
promoted suite (which needs jsonschema). The median wall and CPU (user + system, from
``os.wait4``) times are printed, with each command's ratio to the floor. Target (issue 16):
``--help`` and ``boundaries`` on a small file under 0.3 s. Run from the repository root::

    python benchmarks/startup.py [--repeats 15]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SMALL = ROOT / "fixtures" / "samples" / "anthropic-refund.json"
BILLING = ROOT / "fixtures" / "billing-support.openwop.jsonl"
TARGET = 0.3


def _time(argv: list[str]) -> tuple[float, float]:
    started = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv} failed")
    return wall, usage.ru_utime + usage.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    workbench = shutil.which("workbench") or "workbench"
    with tempfile.TemporaryDirectory() as folder:
        suite = Path(folder) / "suite.json"
        subprocess.run([workbench, "promote", str(BILLING), "-o", str(suite)], check=True,
                       capture_output=True)  # fmt: skip
        contenders = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "import workbench": [sys.executable, "-c", "import workbench"],
            "workbench --help": [workbench, "--help"],
            "workbench --version": [workbench, "--version"],
            "boundaries (2 calls)": [workbench, "boundaries", str(SMALL)],
            "validate (12 calls)": [workbench, "validate", str(suite)],
        }
        walls: dict[str, list[float]] = {name: [] for name in contenders}
        cpus: dict[str, list[float]] = {name: [] for name in contenders}
        for _ in range(args.repeats):
            for name, argv in contenders.items():
                wall, cpu = _time(argv)
                walls[name].append(wall)
                cpus[name].append(cpu)
    floor = statistics.median(walls["python -c pass"])
    print(f"Python {platform.python_version()}, {os.cpu_count()} cores, load {os.getloadavg()}")
    print(f"medians of {args.repeats} runs")
    print(f"{'command':<22}{'wall s':>9}{'cpu s':>9}{'x floor':>9}")
    for name in contenders:
        wall = statistics.median(walls[name])
        cpu = statistics.median(cpus[name])
        print(f"{name:<22}{wall:>9.3f}{cpu:>9.3f}{wall / floor:>9.1f}")
    for name in ("workbench --help", "boundaries (2 calls)"):
        wall = statistics.median(walls[name])
        verdict = "met" if wall < TARGET else "NOT met"
        print(f"{name}: {wall:.3f} s (target < {TARGET} s): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
