"""Runs/s and events/s of ``workbench serve-host`` through the official OpenWOP client.

    python benchmarks/host.py [--runs 200] [--threads 8] [--repeats 3]

The billing-support recording is promoted to a suite and served by ``workbench serve-host`` in
its own process (so the client and the host do not share a GIL). ``openwop-client`` 2.7 then:

1. **runs, one at a time**: ``runs_create``, ``runs_events`` (SSE) to ``run.completed``,
   ``runs_eval_summary``: the whole life of an eval run as a client sees it;
2. **runs, N threads**: the same from ``--threads`` clients at once;
3. **events**: re-reads completed runs' logs over SSE (one frame per event, and batched with
   ``bufferMs``) and by ``runs_poll_events``.

Every run's summary is checked (passed, one task) so a fast wrong answer cannot win. Beside
them: the floor of one request through the same client and server stack
(``discovery_capabilities``), the in-process ``workbench.replay`` of the same suite (the work
itself, no HTTP), and what a user without a host runs instead: one ``workbench replay``
process per run. Prints medians of ``--repeats`` rounds, ratios, the load average before and
after, and a JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ["no_proxy"] = "127.0.0.1,localhost"

from openwop_client import CreateRunRequest, OpenwopClient  # noqa: E402

import workbench as wb  # noqa: E402

KEY = "benchmark-key-0123456789abcdef"
REF = "suite://local.workbench.evals.billing-support"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def serve(folder: Path, suite: Path, port: int) -> subprocess.Popen[bytes]:
    keys = folder / "keys.txt"
    keys.write_text(KEY + "\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "workbench.cli", "serve-host", str(suite)]
    command += ["--port", str(port), "--api-key-file", str(keys), "--workers", "4"]
    process = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
    client = OpenwopClient(f"http://127.0.0.1:{port}", KEY, timeout=5)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            client.discovery_capabilities()
            return process
        except Exception:
            if process.poll() is not None:
                raise RuntimeError("serve-host exited") from None
            time.sleep(0.1)
    process.kill()
    raise RuntimeError("serve-host did not answer within 120 s")


def one_run(client: OpenwopClient) -> tuple[str, int]:
    run = client.runs_create(CreateRunRequest(mode="eval", evalSuiteRef=REF, agentId="scripted"))
    events = list(client.runs_events(run.runId, timeout_seconds=30))
    summary = client.runs_eval_summary(run.runId)
    assert events[-1].type == "run.completed", events[-1].type
    assert summary is not None and summary.passed and summary.taskCount == 1
    return run.runId, len(events)


def timed(work: Callable[[], int]) -> tuple[float, int]:
    started = time.perf_counter()
    count = work()
    return time.perf_counter() - started, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="runs per round (200)")
    parser.add_argument("--threads", type=int, default=8, help="client threads (8)")
    parser.add_argument("--repeats", type=int, default=3, help="rounds (3)")
    parser.add_argument("--cli-runs", type=int, default=5, help="workbench replay processes (5)")
    args = parser.parse_args()
    n_runs, n_threads = int(args.runs), int(args.threads)
    n_cli, n_repeats = int(args.cli_runs), int(args.repeats)
    print(f"load average before: {load()}")
    suite = wb.promote(wb.load_runs(ROOT / "fixtures" / "billing-support.openwop.jsonl")).suite
    figures: dict[str, list[float]] = {}

    def note(name: str, value: float) -> None:
        figures.setdefault(name, []).append(value)

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        suite_file = folder / "billing.suite.json"
        suite.save(suite_file)
        port = free_port()
        process = serve(folder, suite_file, port)
        url = f"http://127.0.0.1:{port}"
        try:
            client = OpenwopClient(url, KEY, timeout=30)
            run_ids = [one_run(client)[0] for _ in range(20)]  # warm-up
            for _ in range(n_repeats):
                elapsed, n = timed(
                    lambda: sum(1 for _ in range(200) if client.discovery_capabilities())
                )
                note("request_floor_ms", elapsed / n * 1000)

                def sequential() -> int:
                    for _ in range(n_runs):
                        run_ids.append(one_run(client)[0])
                    return n_runs

                elapsed, n = timed(sequential)
                note("runs_per_s", n / elapsed)
                note("run_ms", elapsed / n * 1000)

                def threaded() -> int:
                    per = n_runs // n_threads
                    failures: list[BaseException] = []

                    def worker() -> None:
                        own = OpenwopClient(url, KEY, timeout=30)
                        try:
                            for _ in range(per):
                                one_run(own)
                        except BaseException as exc:
                            failures.append(exc)

                    threads = [threading.Thread(target=worker) for _ in range(n_threads)]
                    for thread in threads:
                        thread.start()
                    for thread in threads:
                        thread.join()
                    if failures:
                        raise failures[0]
                    return per * n_threads

                elapsed, n = timed(threaded)
                note("runs_per_s_threads", n / elapsed)

                sample = run_ids[-n_runs:]

                def sse(buffer_ms: int | None, sample: list[str] = sample) -> int:
                    total = 0
                    for run_id in sample:
                        total += sum(1 for _ in client.runs_events(run_id, buffer_ms=buffer_ms))
                    return total

                elapsed, n = timed(lambda: sse(None))
                note("sse_events_per_s", n / elapsed)
                elapsed, n = timed(lambda: sse(50))
                note("sse_batched_events_per_s", n / elapsed)

                def poll(sample: list[str] = sample) -> int:
                    return sum(len(client.runs_poll_events(r).events) for r in sample)

                elapsed, n = timed(poll)
                note("poll_events_per_s", n / elapsed)
        finally:
            process.send_signal(signal.SIGINT)
            process.wait(30)

        for _ in range(n_repeats):
            elapsed, n = timed(lambda: sum(1 for _ in range(n_runs) if wb.replay(suite).passed))
            note("in_process_runs_per_s", n / elapsed)

        def cli() -> int:
            for index in range(n_cli):
                out = folder / f"events-{index}.jsonl"
                command = [sys.executable, "-m", "workbench.cli", "replay", str(suite_file)]
                subprocess.run(
                    [*command, "--events", str(out)],
                    check=True,
                    env={**os.environ, "PYTHONPATH": str(ROOT)},
                    stdout=subprocess.DEVNULL,
                )
            return n_cli

        elapsed, n = timed(cli)
        note("cli_runs_per_s", n / elapsed)

    medians = {name: statistics.median(values) for name, values in figures.items()}
    events_per_run = len(wb.replay(suite).events)
    print(f"\nbilling suite: 1 task, 12 calls, {events_per_run} events a run")
    print(f"{'figure':36} {'median':>12}")
    for name, value in medians.items():
        print(f"{name:36} {value:12.2f}")
    ratios = {
        "host runs/s against `workbench replay` processes": (
            medians["runs_per_s"] / medians["cli_runs_per_s"]
        ),
        "host runs/s against in-process replay (the work)": (
            medians["runs_per_s"] / medians["in_process_runs_per_s"]
        ),
        "one run, in one-request floors": medians["run_ms"] / medians["request_floor_ms"],
        f"{n_threads} client threads against one": (
            medians["runs_per_s_threads"] / medians["runs_per_s"]
        ),
    }
    print("\nratios:")
    for label, ratio in ratios.items():
        print(f"  {label}: {ratio:.3f}")
    print(f"\nload average after: {load()}")
    print(json.dumps({"medians": medians, "events_per_run": events_per_run}, sort_keys=True))


if __name__ == "__main__":
    main()
