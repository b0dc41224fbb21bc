"""Secret redaction at promotion: its cost, and the cost of the engine it runs gitleaks' rules on.

Three measurements, each the median of ``--repeats`` runs in this process:

- ``promote`` of the bundled recordings (``fixtures/``: the billing run and 20 tau-bench
  records) with and without redaction (``redact_secrets=False``), so the difference is what
  redaction adds to a promotion; the self-test is off in both, as it is not redaction's cost.
- ``redact`` per string over every string leaf of those recordings (after a first pass, so the
  per-string cache does not count: each pass clears it), against the floor of walking the same
  values and touching each string.
- the worst case that made the choice of engine: one 40 KB base64-like string (what tool
  results hold for images and blobs) scanned with each gitleaks rule, under RE2 (what runs)
  and under Python's ``re`` (what would run without it), for the slowest rules.

Run from the repository root::

    python benchmarks/redact.py [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import string
import sys
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
RECORDINGS = [
    ROOT / "fixtures" / "billing-support.openwop.jsonl",
    ROOT / "fixtures" / "tau-bench" / "tau-bench-airline-gpt-4o-tasks-0-4.json",
]


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, dict):
        for item in value.values():
            _strings(item, out)
    elif isinstance(value, list):
        for item in value:
            _strings(item, out)
    elif isinstance(value, str):
        out.append(value)


def _median(function: Any, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.process_time()
        function()
        times.append(time.process_time() - started)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    import workbench as wb
    from workbench._promote.redact import gitleaks_rules, redact, redact_text

    started = time.process_time()
    gitleaks_rules()
    compile_s = time.process_time() - started
    loaded = [wb.load_runs(path, error_rule=wb.ErrorRule.prefix("Error:")) for path in RECORDINGS]
    print(f"Python {platform.python_version()}, {os.cpu_count()} cores, load {os.getloadavg()}")
    print(f"loading and compiling {len(gitleaks_rules().rules)} gitleaks rules (RE2): "
          f"{compile_s:.3f} s CPU, once")  # fmt: skip

    def promote(redacting: bool) -> None:
        redact_text.cache_clear()  # a fresh process would have no cached strings
        for result in loaded:
            wb.promote(result, redact_secrets=redacting, self_test=False)

    with_s = _median(lambda: promote(True), args.repeats)
    without_s = _median(lambda: promote(False), args.repeats)
    print(f"promote the fixtures: {with_s:.3f} s with redaction, {without_s:.3f} s without "
          f"(+{with_s - without_s:.3f} s, {with_s / without_s:.1f}x)")  # fmt: skip

    values = [wb.promote(r, redact_secrets=False, self_test=False).suite.data for r in loaded]
    leaves: list[str] = []
    for value in values:
        _strings(value, leaves)
    chars = sum(len(s) for s in leaves)

    def scan() -> None:
        redact_text.cache_clear()
        for value in values:
            redact(value)

    def floor() -> None:
        found: list[str] = []
        for value in values:
            _strings(value, found)
        for text in found:
            text.lower()

    scan_s = _median(scan, args.repeats)
    floor_s = _median(floor, args.repeats)
    print(f"redact {len(leaves)} string leaves ({chars / 1000:.0f} K characters): "
          f"{scan_s:.3f} s, {scan_s / len(leaves) * 1e6:.0f} us a string; floor (walk and "
          f"lower-case each) {floor_s:.4f} s")  # fmt: skip

    text = "".join(string.ascii_letters[(i * 7919) % 52] for i in range(40_000))
    worst: list[tuple[float, float, str]] = []
    for rule in gitleaks_rules().rules:
        started = time.perf_counter()
        list(rule.regex.finditer(text))
        under_re2 = time.perf_counter() - started
        pattern = rule.regex.pattern
        flags = re.IGNORECASE if pattern.startswith("(?i)") else 0
        python = pattern.removeprefix("(?i)").replace("\\z", "\\Z").replace("(?-i:", "(?:")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                compiled = re.compile(python, flags)
        except re.error:
            continue
        started = time.perf_counter()
        list(compiled.finditer(text))
        under_re = time.perf_counter() - started
        worst.append((under_re, under_re2, rule.rule_id))
    worst.sort(reverse=True)
    print("one 40 KB base64-like string, the slowest rules under Python's re:")
    for under_re, under_re2, rule_id in worst[:4]:
        print(f"  {rule_id:<28} re {under_re:8.3f} s   re2 {under_re2 * 1000:7.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
