"""The LLM agent's own cost: model fixtures per turn, and the model cache's hit rate (R40, R41).

1. **Model-fixture overhead per turn.** The bundled tau-bench file (20 real gpt-4o records,
   297 assistant turns, 206 tool calls) is promoted and replayed with ``LLMAgent()`` (every
   turn a model fixture: the conversation compared with the recording as canonical JSON at each
   message) and with the scripted agent making the same calls. The difference over the number
   of assistant turns is what serving a turn from the recording costs (both replays with the
   event log on and the suite's schema check off). Target: under 1 ms.
2. **Cache hit rate on a rerun.** Every single-boundary flip of that file is swept with a
   deterministic offline chat client (it answers each request with a text that depends on the
   request), the live turns going to a JSONL model cache; the sweep is then rerun with the
   cache. Target: 100% of model turns from the cache, no live call, the same sweep table.

Run from the repository root::

    python benchmarks/llm.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import workbench as wb

TAU = Path(__file__).resolve().parents[1] / "fixtures" / "tau-bench"
SOURCE = TAU / "tau-bench-airline-gpt-4o-tasks-0-4.json"


class EchoClient:
    """An offline chat client: answers with the request's key (deterministic, no network)."""

    name = "bench-echo"
    model = "echo"

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, request: wb.ChatRequest) -> Mapping[str, Any]:
        self.calls += 1
        return {"role": "assistant", "content": f"answer {request.key[:12]}"}


def median_seconds(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    suite = wb.promote(wb.load_runs(SOURCE, error_rule=wb.ErrorRule.prefix("Error:"))).suite
    turns = sum(
        1
        for task in suite.tasks
        for m in task["input"]["conversation"]["messages"]
        if m["role"] == "assistant"
    )
    calls = sum(len(task["fixtures"]["toolResponses"]) for task in suite.tasks)
    print(
        f"python {platform.python_version()} on {platform.machine()}; {SOURCE.name}: "
        f"{len(suite.tasks)} tasks, {turns} assistant turns, {calls} tool calls"
    )

    check = wb.replay(suite, wb.LLMAgent())
    assert check.passed and check.needs_model_count == 0, "the baseline must replay exactly"
    # validate=False: the suite's schema check (once per replay, the same for both agents) is
    # left out, so the difference is the agents' own work
    llm = median_seconds(lambda: wb.replay(suite, wb.LLMAgent(), validate=False), args.repeats)
    scripted = median_seconds(lambda: wb.replay(suite, validate=False), args.repeats)
    per_turn_ms = (llm - scripted) / turns * 1000
    print(
        f"replay, LLMAgent (model fixtures): {llm * 1000:8.1f} ms  "
        f"({llm / turns * 1e6:6.1f} us per assistant turn, all included)"
    )
    print(f"replay, scripted agent (same calls): {scripted * 1000:6.1f} ms")
    print(
        f"model-fixture overhead per turn: {per_turn_ms:.3f} ms "
        f"(target < 1 ms: {'met' if per_turn_ms < 1 else 'NOT met'}); "
        f"ratio LLMAgent / scripted {llm / scripted:.2f}x"
    )

    with tempfile.TemporaryDirectory() as folder:
        cache = Path(folder) / "tau.model-cache.jsonl"
        first_client = EchoClient()
        start = time.perf_counter()
        first = wb.sweep(suite, kinds=("flip",), agent=wb.LLMAgent(first_client, cache=cache))
        first_s = time.perf_counter() - start
        rerun_client = EchoClient()
        start = time.perf_counter()
        rerun = wb.sweep(suite, kinds=("flip",), agent=wb.LLMAgent(rerun_client, cache=cache))
        rerun_s = time.perf_counter() - start
        entries = len(wb.ModelCache(cache))
    same = first.frame.equals(rerun.frame)
    hits = entries - rerun_client.calls
    rate = hits / entries if entries else float("nan")
    print(
        f"sweep of {len(first.variants)} flips: {first_client.calls} live turns "
        f"({first_s:.2f} s), cache {entries} entries"
    )
    print(
        f"rerun with the cache: {rerun_client.calls} live turns, hit rate {rate:.1%} "
        f"({rerun_s:.2f} s); same sweep table: {same} "
        f"(target 100%: {'met' if rate == 1 and same else 'NOT met'})"
    )
    return 0 if per_turn_ms < 1 and rate == 1 and same else 1


if __name__ == "__main__":
    sys.exit(main())
