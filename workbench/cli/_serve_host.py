"""``workbench serve-host [SUITES...]``: an OpenWOP v2 host for the eval subset over HTTP (R43).

Suites are files (checked at start: a file that is not a valid suite is exit 2, naming the
file and the field) or folders (their suite files are found by id and by path, and read at each
run create). ``--runs`` loads recorded runs that a run create's ``fixtureRuns`` may name. The
bearer key is generated and printed at start unless ``--api-key-file`` gives the keys. Serves
on 127.0.0.1 unless ``--host`` says otherwise; SIGINT or SIGTERM stops it.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys
from typing import Any

from workbench import HostProfile, JSONFileError, LoadError, Suite, SuiteError

from ._common import fail


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "serve-host",
        help="serve suites as an OpenWOP v2 host over HTTP (eval runs, SSE, fork, diff)",
        description="Serve eval suites to OpenWOP clients: discovery at /.well-known/openwop, "
        "POST /runs with mode eval (evalSuiteRef names a suite by id or a file under a served "
        "folder), run status, events (SSE and poll), eval-summary, :fork and :diff. Runs are "
        "replays, byte-identical to 'workbench replay' of the same suite and seed.",
    )
    parser.add_argument(
        "suites", nargs="*", metavar="SUITE", help="suite files or folders of suite files"
    )
    parser.add_argument(
        "--runs",
        nargs="+",
        default=[],
        metavar="RUN_FILE",
        help="recorded runs (any format load_runs reads) that fixtureRuns may name (RFC 0252)",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="the IP address to bind (127.0.0.1; 0.0.0.0: all)"
    )
    parser.add_argument("--port", type=int, default=8000, help="the port (8000; 0: any free)")
    parser.add_argument(
        "--profile", default=None, metavar="P.json", help="advertise a narrower host profile"
    )
    parser.add_argument(
        "--api-key-file",
        default=None,
        metavar="F",
        help="bearer keys, one a line: KEY [run|read [SUBJECT]] (default: generate one)",
    )
    parser.add_argument(
        "--workers", type=int, default=4, metavar="N", help="runs executed at once (4)"
    )
    parser.set_defaults(handler=run)


def _shown(text: str) -> str:
    """Text from a file, safe for a terminal: control characters as escapes."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _is_address(host: str) -> bool:
    """An IP address (``[...]`` around IPv6 allowed) or ``localhost``: what may be bound. A name
    would need DNS, which can hang on a machine without it."""
    if host == "localhost":
        return True
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def _check_suite_file(path: str, profile: HostProfile) -> str | None:
    """An error line for a suite file that cannot be served, else ``None``: one the host would
    refuse at every run create whatever it advertises (invalid, trials over its limits) is
    refused before it serves. What ``profile`` does not advertise is refused at run create,
    naming the field (R11): a narrow profile is how a host shows its refusals."""
    from workbench import suite_problems  # the schemas load here, not for every command

    try:
        suite = Suite.load(path)
    except (JSONFileError, SuiteError) as exc:
        if path.endswith(".jsonl"):  # a recording given where a suite goes
            return f"{exc} (a recording? serve its suite: workbench promote {path} -o SUITE.json)"
        return str(exc)
    problems = [p for p in suite_problems(suite.data, profile) if p.kind != "host"]
    if problems:
        first = problems[0]
        if first.kind in ("schema", "suite"):
            return f"{path}: not a valid suite: {first}"
        return f"{path}: the host would refuse every run of it: {first}"
    return None


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except KeyboardInterrupt:  # Ctrl-C while the suites are checked, before serving
        return 130


def _run(args: argparse.Namespace) -> int:
    try:
        from workbench.server import OpenWopHost, load_api_keys
    except ImportError as exc:
        return fail(f"serve-host needs the server extra (pip install 'workbench[server]'): {exc}")
    if not _is_address(args.host):
        return fail(f"--host: {_shown(args.host)!r} is not an IP address (or localhost)")
    if not 0 <= args.port <= 65535:
        return fail(f"--port: {args.port} is out of range (0..65535)")
    if args.workers < 1:
        return fail(f"--workers: {args.workers} must be at least 1")
    try:
        profile = HostProfile.load(args.profile) if args.profile else None
    except (JSONFileError, ValueError, OSError) as exc:
        return fail(str(exc))
    for path in args.suites:
        if not os.path.exists(path):
            return fail(f"{path}: no such file or folder")
        if not os.path.isdir(path):
            problem = _check_suite_file(path, profile or HostProfile.workbench())
            if problem is not None:
                return fail(problem)
    try:
        keys = load_api_keys(args.api_key_file) if args.api_key_file else None
        host = OpenWopHost(
            args.suites, runs=args.runs, profile=profile, api_keys=keys, workers=args.workers
        )
    except (LoadError, JSONFileError, SuiteError, ValueError, OSError) as exc:
        # (a LoadError's text is its first problem and how many more: one line, as every
        # command says it)
        return fail(str(exc))

    def ready(url: str) -> None:
        err = sys.stderr
        print(f"workbench serve-host: serving {url}", file=err)
        if keys is None:
            print(f"  key: {host.api_key}  (generated; --api-key-file F to choose)", file=err)
        else:
            print(f"  keys: {len(keys)} from {args.api_key_file}", file=err)
        for suite_id, version, origin in host.suites.listing():
            print(f"  suite: {_shown(suite_id)}@{_shown(version)}  ({_shown(origin)})", file=err)
        for folder in host.suites.folders:
            print(f"  folder: {_shown(str(folder))}  (evalSuiteRef: a path under it)", file=err)
        if len(host.recorded):
            print(f"  recorded runs: {_shown(', '.join(host.recorded.ids()))}", file=err)
        if not _is_loopback(args.host):
            print(
                f"  warning: {args.host} is reachable from other machines; anyone with a key "
                "can run suites here",
                file=err,
            )
        err.flush()

    try:
        host.serve(args.host, args.port, on_ready=ready)
    except KeyboardInterrupt:
        pass
    except OSError as exc:  # the address cannot be bound (in use, not this machine's)
        return fail(exc.strerror if exc.strerror else str(exc))
    return 0
