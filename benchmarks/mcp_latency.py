"""Per-call latency of the MCP bridge beside the SDK's bare server (the floor) and mcp-recorder.

    python benchmarks/mcp_latency.py [--calls 1000] [--repeat 3] [--modes legacy,auto]
                                     [--mcp-recorder PATH/bin/mcp-recorder]

1. A live MCP server (written here with the SDK, stdio) answers ``lookup`` calls; every 50th
   result is ``isError: true``. The SDK client makes N calls to it through ``workbench
   record-mcp``; the recording is loaded, promoted and saved as a suite.
2. The same SDK client then makes the same N calls, timing each ``call_tool`` (connection
   set-up excluded), against, per transport (stdio, and streamable HTTP on 127.0.0.1 with JSON
   responses and sessions, as the bridge serves it) and per client mode (``legacy``: the
   2025-11-25 handshake; ``auto``: 2026-07-28 against these servers):

   - **the floor**: the SDK's own low-level ``Server`` answering every call with one constant
     ``CallToolResult``, on the SDK's stdio transport or its streamable-HTTP app on uvicorn
     (the least any server built on the SDK can cost);
   - ``workbench serve-mcp``, serving the recording (each call matched to its fixture and
     logged, the recorded body sent verbatim);
   - ``mcp-recorder replay`` (HTTP only, ``--match sequential``: its default matcher does not
     match another client's ``initialize``), replaying its own cassette of the same calls when
     it is installed. It needs ``starlette<1``, which the SDK's 2.x does not allow, so it lives
     in its own venv: ``python3 -m venv /tmp/venv-mcprec && /tmp/venv-mcprec/bin/pip install
     mcp-recorder 'starlette<1'``.

   Every answer of the bridge and of mcp-recorder is checked against the recording (isError
   and text), and the floor's against its constant, so a fast wrong answer cannot win.

The configurations run in turn, ``--repeat`` times, so a burst of load on the machine hits all
of them. Prints the median, p90 and p99 per call (ms, all repeats pooled), each server's median
over the floor's on the same transport and mode, the range of that ratio across the repeats,
the load average before and after, and a JSON line with the figures.
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
from collections.abc import Callable, Iterator
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

FLOOR_SERVER = """
import sys
import anyio
import mcp_types as types
from mcp.server.lowlevel import Server

CONSTANT = types.CallToolResult(content=[types.TextContent(type="text", text="ok")])
SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}}

async def list_tools(ctx, params):
    return types.ListToolsResult(tools=[types.Tool(name="lookup", input_schema=SCHEMA)])

async def call_tool(ctx, params):
    return CONSTANT

server = Server("floor", version="1", on_list_tools=list_tools, on_call_tool=call_tool)

if sys.argv[1] == "stdio":
    from mcp.server.stdio import stdio_server

    async def main():
        async with stdio_server() as (r, w):
            await server.run(r, w, server.create_initialization_options())

    anyio.run(main)
else:  # http PORT: the SDK's app as the bridge serves it (JSON responses, sessions)
    import uvicorn

    app = server.streamable_http_app(streamable_http_path="/mcp", json_response=True,
                                     host="127.0.0.1")
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), lifespan="on",
                log_level="warning", access_log=False)
"""

Seen = tuple[bool, str]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_port(port: int, process: subprocess.Popen[bytes], timeout: float = 120.0) -> None:
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
def running(command: list[str], port: int, cwd: Path) -> Iterator[str]:
    """``command`` listening on ``port``: yields its MCP URL; SIGINT (then kill) at the end."""
    process = subprocess.Popen(
        command, cwd=str(cwd), env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
        process.send_signal(signal.SIGINT)
        process.wait(60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def seen(result: Any) -> Seen:
    return (bool(result.is_error), result.content[0].text if result.content else "")


def drive(target: Any, n: int, mode: str = "legacy") -> tuple[list[float], list[Seen], str]:
    """N ``call_tool`` calls after 20 unmeasured ones; per-call seconds, what each returned,
    and the protocol version the client negotiated."""

    async def main() -> tuple[list[float], list[Seen], str]:
        times: list[float] = []
        results: list[Seen] = []
        with anyio.fail_after(900):
            async with Client(target, mode=mode) as client:
                version = str(client.protocol_version)
                await client.list_tools()
                for i in range(n):
                    start = time.perf_counter()
                    result = await client.call_tool("lookup", {"n": i})
                    times.append(time.perf_counter() - start)
                    results.append(seen(result))
        return times, results, version

    return anyio.run(main)


def stats(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    q = statistics.quantiles(ordered, n=100, method="inclusive")
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 3),
        "p90_ms": round(q[89] * 1000, 3),
        "p99_ms": round(q[98] * 1000, 3),
    }


class Row:
    """One server on one transport with one client mode: its times over all repeats."""

    def __init__(self, server: str, transport: str, mode: str) -> None:
        self.server, self.transport, self.mode = server, transport, mode
        self.times: list[float] = []
        self.medians: list[float] = []
        self.protocol = ""

    @property
    def key(self) -> tuple[str, str]:
        return (self.transport, self.mode)

    def add(self, times: list[float], protocol: str) -> None:
        self.times.extend(times)
        self.medians.append(statistics.median(times))
        self.protocol = protocol


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--modes", default="legacy,auto", help="SDK client modes, comma-separated")
    parser.add_argument("--mcp-recorder", default="/tmp/venv-mcprec/bin/mcp-recorder")
    args = parser.parse_args(argv)
    n = args.calls
    modes = [m for m in args.modes.split(",") if m]
    py = sys.executable
    figures: dict[str, Any] = {"calls": n, "repeat": args.repeat}
    figures["loadavg_before"] = [round(x, 2) for x in os.getloadavg()]
    rows: dict[tuple[str, str, str], Row] = {}

    def row(server: str, transport: str, mode: str) -> Row:
        return rows.setdefault((server, transport, mode), Row(server, transport, mode))

    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        live = tmp / "live_server.py"
        live.write_text(LIVE_SERVER, encoding="utf-8")
        floor = tmp / "floor_server.py"
        floor.write_text(FLOOR_SERVER, encoding="utf-8")

        # 1. record with workbench record-mcp, promote
        record = StdioServerParameters(
            command=py,
            args=["-m", "workbench.cli", "record-mcp", "--out", str(tmp / "run.jsonl"),
                  "--", py, str(live)],
            env=_env(),
        )  # fmt: skip
        _, recorded, _ = drive(record, n)
        from workbench import load_runs, promote

        suite = promote(load_runs(tmp / "run.jsonl"), self_test=False).suite
        suite.save(tmp / "suite.json")
        figures["isErrorResults"] = sum(1 for is_error, _ in recorded if is_error)
        constant = [(False, "ok")] * n
        serve = ["-m", "workbench.cli", "serve-mcp", str(tmp / "suite.json")]

        # mcp-recorder records its own cassette of the same calls (HTTP in front of stdio)
        recorder = args.mcp_recorder
        cassette: Path | None = None
        if Path(recorder).exists():
            cassette = tmp / "cassette.json"
            port = free_port()
            command = [recorder, "record", "--target-stdio", f"{py} {live}", "--port", str(port),
                       "--output", str(cassette)]  # fmt: skip
            with running(command, port, tmp) as url:
                _, results, _ = drive(url, n)
            assert results == recorded, "mcp-recorder's recording differs from the live server"
        else:
            print(f"mcp-recorder not found at {recorder}: left out", file=sys.stderr)

        def measure(
            label: str, transport: str, mode: str, target: Any, expected: list[Seen]
        ) -> None:
            times, results, version = drive(target, n, mode)
            assert results == expected, f"{label} ({transport}, {mode}) answered wrongly"
            row(label, transport, mode).add(times, version)

        runs: list[Callable[[], None]] = []
        for mode in modes:

            def floor_stdio(mode: str = mode) -> None:
                target = StdioServerParameters(command=py, args=[str(floor), "stdio"], env=_env())
                measure("floor: SDK Server, constant", "stdio", mode, target, constant)

            def bridge_stdio(mode: str = mode) -> None:
                target = StdioServerParameters(command=py, args=serve, env=_env())
                measure("workbench serve-mcp", "stdio", mode, target, recorded)

            def floor_http(mode: str = mode) -> None:
                port = free_port()
                with running([py, str(floor), "http", str(port)], port, tmp) as url:
                    measure("floor: SDK Server, constant", "HTTP", mode, url, constant)

            def bridge_http(mode: str = mode) -> None:
                port = free_port()
                with running([py, *serve, "--http", f"127.0.0.1:{port}"], port, tmp) as url:
                    measure("workbench serve-mcp", "HTTP", mode, url, recorded)

            runs += [floor_stdio, bridge_stdio, floor_http, bridge_http]
            if cassette is not None and mode == "legacy":  # it has no 2026-07-28

                def recorder_http(mode: str = mode, cassette: Path = cassette) -> None:
                    port = free_port()
                    command = [recorder, "replay", "--cassette", str(cassette), "--port",
                               str(port), "--match", "sequential"]  # fmt: skip
                    with running(command, port, tmp) as url:
                        measure("mcp-recorder replay", "HTTP", mode, url, recorded)

                runs.append(recorder_http)
        for _ in range(args.repeat):
            for run in runs:
                run()

    figures["loadavg_after"] = [round(x, 2) for x in os.getloadavg()]
    floors = {r.key: r for r in rows.values() if r.server.startswith("floor")}
    print(f"{n} calls x {args.repeat} repeats, {figures['isErrorResults']} isError results")
    print(f"{'server':30} {'transport':9} {'mode':7} {'protocol':10} "
          f"{'median':>7} {'p90':>7} {'p99':>7} {'x floor':>8}  range")  # fmt: skip
    out: list[dict[str, Any]] = []
    for r in sorted(
        rows.values(), key=lambda r: (r.mode, r.transport, not r.server.startswith("floor"))
    ):
        figs = stats(r.times)
        base = floors.get(r.key)
        ratio = figs["median_ms"] / stats(base.times)["median_ms"] if base else float("nan")
        spread = [a / b for a, b in zip(r.medians, base.medians, strict=True)] if base else []
        span = f"{min(spread):.2f}-{max(spread):.2f}" if spread else ""
        print(
            f"{r.server:30} {r.transport:9} {r.mode:7} {r.protocol:10} {figs['median_ms']:7.3f} "
            f"{figs['p90_ms']:7.3f} {figs['p99_ms']:7.3f} {ratio:8.2f}  {span}"
        )
        out.append({"server": r.server, "transport": r.transport, "mode": r.mode,
                    "protocol": r.protocol, **figs, "ratio_to_floor": round(ratio, 3),
                    "ratio_range": [round(x, 3) for x in spread]})  # fmt: skip
    before = " ".join(f"{x:.2f}" for x in figures["loadavg_before"])
    after = " ".join(f"{x:.2f}" for x in figures["loadavg_after"])
    print(f"load average: {before} before, {after} after")
    figures["rows"] = out
    print(json.dumps(figures, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
