"""Per-call latency of the MCP bridge against mcp-recorder, driven by the same SDK client.

    python benchmarks/mcp_latency.py [--calls 1000] [--mcp-recorder PATH/bin/mcp-recorder]

1. A live MCP server (written here with the SDK, stdio) answers ``lookup`` calls; every 50th
   result is ``isError: true``.
2. The SDK client makes N calls through ``workbench record-mcp``; the recording is loaded,
   promoted and saved as a suite. The same N calls are recorded by ``mcp-recorder record
   --target-stdio`` into its own cassette (when mcp-recorder is installed; it lives in a
   separate venv because it needs ``starlette<1``).
3. The SDK client replays the N calls, timing each ``call_tool`` (connection set-up excluded),
   against: ``workbench serve-mcp`` over stdio, ``workbench serve-mcp --http`` (streamable HTTP,
   127.0.0.1), both with the default lean transports and with ``--transport-impl sdk`` (the
   SDK's server), and ``mcp-recorder replay`` (HTTP only). Every result is checked against the
   recording (isError included) so a fast wrong answer cannot win.

Prints median / p90 / p99 per server (ms), the protocol version each negotiated with the
client, the load average before and after, and a JSON line with the figures.
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
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LIVE_SERVER = """
import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

async def list_tools(ctx, params):
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    return types.ListToolsResult(tools=[types.Tool(name="lookup", input_schema=schema)])

async def call_tool(ctx, params):
    n = int(params.arguments["n"])
    if n % 50 == 49:
        body = {"content": [{"type": "text", "text": '{"error":"upstream_down"}'}], "isError": True}
    else:
        body = {"content": [{"type": "text", "text": '{"plan":"team","n":%d}' % n}]}
    return types.CallToolResult.model_validate(body)

server = Server("live", on_list_tools=list_tools, on_call_tool=call_tool)

async def main():
    async with stdio_server() as (r, w):
        await server.run(r, w, server.create_initialization_options())

anyio.run(main)
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, process: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server exited early ({process.returncode})")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listened on port {port} within {timeout} s")


@contextmanager
def running(command: list[str], port: int, cwd: Path) -> Iterator[None]:
    process = subprocess.Popen(
        command, cwd=str(cwd), env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_port(port, process)
        yield
        process.send_signal(signal.SIGINT)
        process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def seen(result: Any) -> tuple[bool, str]:
    return (bool(result.is_error), result.content[0].text if result.content else "")


PROTOCOLS: dict[str, str] = {}
"""The protocol version each server negotiated with the client, by the last ``drive`` label."""


def drive(server: Any, n: int, label: str = "") -> tuple[list[float], list[tuple[bool, str]]]:
    """N ``call_tool`` calls; per-call seconds and what each returned."""

    async def main() -> tuple[list[float], list[tuple[bool, str]]]:
        times: list[float] = []
        results: list[tuple[bool, str]] = []
        with anyio.fail_after(600):
            async with Client(server) as client:
                PROTOCOLS[label] = client.protocol_version
                await client.list_tools()
                for i in range(n):
                    start = time.perf_counter()
                    result = await client.call_tool("lookup", {"n": i})
                    times.append(time.perf_counter() - start)
                    results.append(seen(result))
        return times, results

    return anyio.run(main)


def stats(times: list[float]) -> dict[str, Any]:
    ordered = sorted(times)
    q = statistics.quantiles(ordered, n=100, method="inclusive")
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 3),
        "p90_ms": round(q[89] * 1000, 3),
        "p99_ms": round(q[98] * 1000, 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--mcp-recorder", default="/tmp/venv-mcprec/bin/mcp-recorder")
    args = parser.parse_args(argv)
    n = args.calls
    py = sys.executable
    figures: dict[str, Any] = {"calls": n, "loadavg_before": list(os.getloadavg())}
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        live = tmp / "live_server.py"
        live.write_text(LIVE_SERVER, encoding="utf-8")

        # 1. record with workbench record-mcp, promote
        record = StdioServerParameters(
            command=py,
            args=["-m", "workbench.cli", "record-mcp", "--out", str(tmp / "run.jsonl"),
                  "--", py, str(live)],
            env=_env(),
        )  # fmt: skip
        _, recorded = drive(record, n)
        from workbench import load_runs, promote

        suite = promote(load_runs(tmp / "run.jsonl"), self_test=False).suite
        suite.save(tmp / "suite.json")
        task_id = str(suite.tasks[0]["taskId"])
        errors = sum(1 for is_error, _ in recorded if is_error)
        figures["isErrorResults"] = errors

        rows: list[tuple[str, dict[str, Any]]] = []

        # 2. bridge over stdio, 3. over streamable HTTP: the lean transports, then the SDK's
        serve = ["-m", "workbench.cli", "serve-mcp", str(tmp / "suite.json"), "--task", task_id]
        for impl, suffix in (("lean", ""), ("sdk", ", --transport-impl sdk")):
            command = [*serve, "--transport-impl", impl]
            label = f"workbench serve-mcp (stdio{suffix})"
            stdio = StdioServerParameters(command=py, args=command, env=_env())
            times, results = drive(stdio, n, label)
            assert results == recorded, f"{label} answered differently from the recording"
            rows.append((label, stats(times)))

            label = f"workbench serve-mcp (streamable HTTP{suffix})"
            port = free_port()
            with running([py, *command, "--http", f"127.0.0.1:{port}"], port, tmp):
                times, results = drive(f"http://127.0.0.1:{port}/mcp", n, label)
            assert results == recorded, f"{label} answered differently from the recording"
            rows.append((label, stats(times)))

        # 4. mcp-recorder: record its own cassette of the same calls, replay it over HTTP
        recorder = args.mcp_recorder
        if Path(recorder).exists():
            cassette = tmp / "cassette.json"
            port = free_port()
            with running(
                [recorder, "record", "--target-stdio", f"{py} {live}", "--port", str(port),
                 "--output", str(cassette)],
                port,
                tmp,
            ):  # fmt: skip
                _, results = drive(f"http://127.0.0.1:{port}/mcp", n)
            assert results == recorded, "mcp-recorder's recording differs from the live server"
            port = free_port()
            with running(
                [recorder, "replay", "--cassette", str(cassette), "--port", str(port)], port, tmp
            ):
                label = "mcp-recorder replay (HTTP)"
                times, results = drive(f"http://127.0.0.1:{port}/mcp", n, label)
            assert results == recorded, "mcp-recorder's replay answered differently"
            rows.append(("mcp-recorder replay (HTTP)", stats(times)))
        else:
            print(f"mcp-recorder not found at {recorder}: skipped", file=sys.stderr)

    figures["loadavg_after"] = list(os.getloadavg())
    for name, row in rows:
        row["protocol"] = PROTOCOLS.get(name, "")
    print(f"{n} calls, {figures['isErrorResults']} isError results; per-call latency (ms)")
    print(f"{'server':60} {'median':>8} {'p90':>8} {'p99':>8}  protocol")
    for name, row in rows:
        figs = f"{row['median_ms']:8.3f} {row['p90_ms']:8.3f} {row['p99_ms']:8.3f}"
        print(f"{name:60} {figs}  {row['protocol']}")
    before = " ".join(f"{x:.2f}" for x in figures["loadavg_before"])
    after = " ".join(f"{x:.2f}" for x in figures["loadavg_after"])
    print(f"load average: {before} before, {after} after")
    figures["rows"] = {name: row for name, row in rows}
    print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
