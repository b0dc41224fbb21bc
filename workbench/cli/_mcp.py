"""``workbench serve-mcp`` and ``workbench record-mcp``: the MCP bridge (needs ``workbench[mcp]``).

``serve-mcp SUITE.json --task ID`` serves one trial of a task's fixture tools as an MCP server
(stdio by default, ``--http [HOST:]PORT`` for streamable HTTP on 127.0.0.1 unless a host is
given) and, on shutdown (the client closes stdin; SIGINT or SIGTERM), writes the event log and
the summary. ``record-mcp --out RUN.jsonl -- SERVER_COMMAND...`` runs a live MCP server behind a
recording stdio proxy and writes its ``tools/call`` traffic as an OpenWOP v2 event log.

Nothing but MCP traffic goes to stdout in stdio mode; reports go to stderr.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from typing import Any

from workbench import (
    HostProfile,
    HostRefusal,
    JSONFileError,
    Suite,
    SuiteError,
    read_json,
    write_json_atomic,
)

from ._common import add_output_arguments, check_outputs, fail


def register(sub: Any) -> None:
    serve: argparse.ArgumentParser = sub.add_parser(
        "serve-mcp",
        help="serve a task's recorded tools as an MCP server (stdio, or --http)",
        description="Serve one trial of a suite task's fixture tools over MCP. Every tools/call "
        "is served by the replay host (R12-R17): an isError entry comes back as isError: true, "
        "a miss follows onMiss. On shutdown the event log and summary are written.",
    )
    serve.add_argument("suite", metavar="SUITE.json")
    serve.add_argument("--task", default=None, metavar="ID", help="the task (needed if several)")
    serve.add_argument("--trial", type=int, default=0, metavar="N", help="trial number (0)")
    serve.add_argument("--seed", type=int, default=0, help="the run's seed (ids)")
    serve.add_argument(
        "--http",
        default=None,
        metavar="[HOST:]PORT",
        help="serve streamable HTTP at http://HOST:PORT/mcp (HOST defaults to 127.0.0.1)",
    )
    serve.add_argument(
        "--transport-impl",
        choices=("lean", "sdk"),
        default="lean",
        help="lean: the bridge's own JSON-RPC loop (default, fastest; protocol versions "
        "2024-11-05 to 2025-11-25); sdk: the MCP SDK's low-level server and transports",
    )
    serve.add_argument("--events", default=None, metavar="OUT.jsonl", help="write the event log")
    serve.add_argument("--summary", default=None, metavar="OUT.json", help="write the summary")
    serve.add_argument(
        "--tools", default=None, metavar="CATALOGUE.json", help="tool definitions (input schemas)"
    )
    serve.add_argument(
        "--agent-id", default=None, metavar="ID", help="agent id on the agent events"
    )
    serve.add_argument("--host-profile", default=None, metavar="P.json", help="a host profile")
    serve.add_argument(
        "--events-content",
        action="store_true",
        help="put tool inputs and results on the event log (off: content-free, RFC 0245 D)",
    )
    add_output_arguments(serve)
    serve.set_defaults(handler=run_serve)

    record: argparse.ArgumentParser = sub.add_parser(
        "record-mcp",
        help="record a live MCP server's tools/call traffic (stdio proxy) as an OpenWOP log",
        description="Run SERVER_COMMAND behind a recording stdio proxy: an MCP client talks to "
        "this process as it would to the server. Every tools/call and its result (isError "
        "included; JSON-RPC errors as failed boundaries with their code) is written as an "
        "OpenWOP v2 event log when the client hangs up.",
    )
    record.add_argument("--out", required=True, metavar="RUN.jsonl", help="the event log to write")
    record.add_argument(
        "--tools-out",
        default=None,
        metavar="CATALOGUE.json",
        help="also write the server's tools/list result (for serve-mcp --tools)",
    )
    record.add_argument(
        "command",
        nargs=argparse.REMAINDER,
        metavar="-- SERVER_COMMAND...",
        help="the MCP server to run and record, after --",
    )
    add_output_arguments(record)
    record.set_defaults(handler=run_record)


def _parse_http(value: str) -> tuple[str, int]:
    host, _, port_text = value.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"--http: {value!r} is not [HOST:]PORT") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"--http: port {port} is out of range")
    return host, port


def run_serve(args: argparse.Namespace) -> int:
    try:
        from workbench.bridge import DEFAULT_AGENT_ID, McpBridge, summary_line
    except ImportError as exc:
        return fail(f"serve-mcp needs the mcp extra (pip install 'workbench[mcp]'): {exc}")
    check_outputs(
        args,
        [("--events", args.events, "events"), ("--summary", args.summary, "json")],
        inputs=[args.suite, args.host_profile, args.tools],
    )
    try:
        suite = Suite.load(args.suite)
        profile = HostProfile.load(args.host_profile) if args.host_profile else None
        catalogue = read_json(args.tools) if args.tools else None
        http = _parse_http(args.http) if args.http else None
        bridge = McpBridge(
            suite,
            args.task,
            trial=args.trial,
            seed=args.seed,
            agent_id=args.agent_id or DEFAULT_AGENT_ID,
            host_profile=profile,
            catalogue=catalogue,
            events=True,
            include_content=args.events_content,
        )
    except HostRefusal as refusal:
        print(json.dumps(refusal.body, indent=2, sort_keys=True), file=sys.stderr)
        return 2
    except KeyError as exc:
        return fail(str(exc.args[0]) if exc.args else str(exc))
    except (JSONFileError, SuiteError, ValueError) as exc:
        return fail(str(exc))
    import anyio

    impl = args.transport_impl
    # Everything built so far (the SDK, the suite, the host) lives until exit: moved out of the
    # collector's reach, a full collection no longer walks it in the middle of a call.
    gc.collect()
    gc.freeze()

    async def serve() -> None:
        if http is None:
            await _until_signal(bridge.run_stdio)
        else:
            host, port = http

            def ready(url: str) -> None:
                print(f"workbench serve-mcp: serving {url}", file=sys.stderr, flush=True)

            await bridge.run_http(host, port, on_ready=ready, impl=impl)

    try:
        if http is None and impl == "lean":
            bridge.serve_stdio()  # blocking, no event loop: SIGINT/SIGTERM end it
        else:
            anyio.run(serve)
    except KeyboardInterrupt:
        pass
    finally:
        result = bridge.write(args.events, args.summary, overwrite=args.force)
        print(summary_line(result), file=sys.stderr, flush=True)
    return 0


async def _until_signal(serve: Any) -> None:
    """Run ``serve`` until it returns or SIGINT/SIGTERM arrives (then cancel it)."""
    import signal

    import anyio

    async with anyio.create_task_group() as group:

        async def watch() -> None:
            with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
                async for _ in signals:
                    group.cancel_scope.cancel()
                    return

        group.start_soon(watch)
        await serve()
        group.cancel_scope.cancel()


def run_record(args: argparse.Namespace) -> int:
    from workbench.bridge import record_mcp, recording_text

    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        return fail("record-mcp needs a server command after --")
    check_outputs(args, [("--out", args.out, "events"), ("--tools-out", args.tools_out, "json")])
    try:
        recording = record_mcp(command, args.out, overwrite=args.force)
    except OSError as exc:
        return fail(f"could not run {command[0]!r}: {exc}")
    if args.tools_out and recording.catalogue is not None:
        write_json_atomic(args.tools_out, recording.catalogue, overwrite=args.force)
    print(recording_text(recording), file=sys.stderr, flush=True)
    for problem in recording.problems[:5]:
        print(f"workbench record-mcp: not JSON (passed through): {problem!r}", file=sys.stderr)
    return 0
