"""``workbench serve-mcp`` and ``workbench record-mcp``: the MCP bridge (needs ``workbench[mcp]``).

``serve-mcp SUITE.json --task ID`` serves one trial of a task's recorded tools with the MCP
SDK's server (stdio by default, ``--http [HOST:]PORT`` for streamable HTTP on 127.0.0.1 unless a
host is given) and, when the session ends (the client closes stdin; SIGINT, SIGTERM or SIGHUP),
writes the event log and the summary. Exit codes: 0 the trial passed, 1 it failed, 2 bad input
(a suite it cannot serve, a file it cannot open, an ``--http`` address it cannot listen on: the
port is taken), 3 the transport failed or the files could not be written, 4 the client made no
``tools/call`` (nothing to grade; the files are still written). A one-line reason goes to
stderr.

``record-mcp --out RUN.jsonl -- SERVER_COMMAND...`` runs a live MCP server behind a recording
stdio proxy and writes its traffic as an OpenWOP v2 event log, an event at a time. Exit codes:
0 recorded, 1 recorded but the server failed on its own (its exit code is reported), 2 bad
input (no command, a command that cannot start, a file that cannot be written). SIGINT, SIGTERM
or SIGHUP ends the session as the client's hang-up does (the server is stopped and the
recording is complete), so it exits 0 or 1 as above, not 130, 143 or 129: a signal is how a
recording is usually stopped.

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

from ._common import add_output_arguments, check_outputs, cut_text, fail

EXIT_PASSED = 0
EXIT_FAILED = 1
EXIT_CANNOT_SERVE = 3
EXIT_NO_CALL = 4


def register(sub: Any) -> None:
    serve: argparse.ArgumentParser = sub.add_parser(
        "serve-mcp",
        help="serve a task's recorded tools as an MCP server (stdio, or --http)",
        description="Serve one trial of a suite task's recorded tools over MCP, with the MCP "
        "SDK's server (protocol revisions 2024-11-05 to 2026-07-28). Every tools/call is "
        "served by the replay host (R12-R17) and answered as recorded (R42): results verbatim, "
        "recorded JSON-RPC errors as the same JSON-RPC errors, a miss as a tool error. When "
        "the session ends the event log and summary are written. Exit: 0 passed, 1 failed, "
        "2 bad input (including a port in use), 3 the transport failed or the files could "
        "not be written, 4 no tools/call was made.",
    )
    serve.add_argument("suite", metavar="SUITE.json")
    serve.add_argument("--task", default=None, metavar="ID", help="the task (needed if several)")
    serve.add_argument("--trial", type=int, default=0, metavar="N", help="trial number (0)")
    serve.add_argument("--seed", type=int, default=0, help="the run's seed (ids)")
    serve.add_argument(
        "--http",
        default=None,
        metavar="[HOST:]PORT",
        help="serve streamable HTTP at http://HOST:PORT/mcp (HOST defaults to 127.0.0.1; "
        "PORT 0 picks a free port, printed on stderr)",
    )
    serve.add_argument("--events", default=None, metavar="OUT.jsonl", help="write the event log")
    serve.add_argument("--summary", default=None, metavar="OUT.json", help="write the summary")
    serve.add_argument(
        "--tools",
        default=None,
        metavar="CATALOGUE.json",
        help="the tools to list (a tools/list result), ahead of the suite's x-mcpTools",
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
        help="record a live MCP server's traffic (stdio proxy) as an OpenWOP log",
        description="Run SERVER_COMMAND behind a recording stdio proxy: an MCP client talks to "
        "this process as it would to the server. Every tools/call and its answer (results as "
        "sent, isError included; JSON-RPC errors with their error object) and every tools/list "
        "answer is written to the OpenWOP v2 event log as it happens. Exit: 0 recorded, 1 the "
        "server failed on its own, 2 bad input.",
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
    if len(host) > 253 or not all(part and len(part) <= 63 for part in host.split(".")):
        raise ValueError(f"--http: {cut_text(host, 40)!r} is not a host name or address")
    return host, port


def run_serve(args: argparse.Namespace) -> int:
    try:
        from workbench.bridge import DEFAULT_AGENT_ID, McpBridge, bind_socket, summary_line
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
        http = _parse_http(args.http) if args.http is not None else None
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
    except HostRefusal as refusal:  # the body, one JSON line, as replay writes it
        print(json.dumps(refusal.body, sort_keys=True, ensure_ascii=False), file=sys.stderr)
        return 2
    except KeyError as exc:
        return fail(str(exc.args[0]) if exc.args else str(exc))
    except (JSONFileError, SuiteError, ValueError) as exc:
        return fail(str(exc))
    import anyio

    sock = None
    if http is not None:
        try:
            sock = bind_socket(*http)
        except OSError as exc:
            host, port = http
            reason = exc.strerror or str(exc)
            return fail(f"serve-mcp --http {host}:{port}: could not listen: {reason}")
    if args.events is not None:
        try:
            bridge.stream_events(args.events)
        except OSError as exc:
            if sock is not None:
                sock.close()
            return fail(f"serve-mcp could not write {args.events!r}: {exc.strerror or exc}")
    # Everything built so far (the SDK, the suite, the host) lives until exit: moved out of the
    # collector's reach, a full collection no longer walks it in the middle of a call.
    gc.collect()
    gc.freeze()

    async def serve() -> str:
        if http is None:
            return await bridge.run_stdio()
        host, port = http

        def ready(url: str) -> None:
            print(f"workbench serve-mcp: serving {url}", file=sys.stderr, flush=True)

        return await bridge.run_http(host, port, sock=sock, on_ready=ready)

    try:
        stopped = anyio.run(serve)
    except OSError as exc:
        stopped = f"transport failed: {exc}"
        code = EXIT_CANNOT_SERVE
    else:
        code = EXIT_PASSED
    try:
        result = bridge.write(args.events, args.summary, overwrite=args.force)
    except (OSError, ValueError) as exc:
        return fail(f"serve-mcp could not write its files: {exc}", EXIT_CANNOT_SERVE)
    print(summary_line(result, stopped), file=sys.stderr, flush=True)
    if code != EXIT_PASSED:
        return code
    if bridge.calls_served == 0:
        return EXIT_NO_CALL
    return EXIT_PASSED if result.passed else EXIT_FAILED


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
        where = exc.filename if exc.filename is not None else command[0]
        return fail(f"record-mcp: {where}: {exc.strerror or exc}")
    if args.tools_out and recording.catalogue is not None:
        try:
            write_json_atomic(args.tools_out, recording.catalogue, overwrite=args.force)
        except (OSError, ValueError) as exc:
            print(recording_text(recording), file=sys.stderr, flush=True)
            return fail(f"could not write {args.tools_out!r}: {exc}")
    print(recording_text(recording), file=sys.stderr, flush=True)
    for problem in recording.problems[:5]:
        print(f"workbench record-mcp: not recorded: {problem!r}", file=sys.stderr)
    return 1 if recording.server_failed else 0
