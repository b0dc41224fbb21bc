"""``workbench promote RUN -o SUITE.json``: promote recorded runs into a suite."""

from __future__ import annotations

import argparse
import json
from typing import Any

from workbench import promote

from ._common import add_run_arguments, fail, load_run_file


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "promote", help="promote a recorded run into an eval suite with recorded fixtures"
    )
    add_run_arguments(parser)
    parser.add_argument(
        "--suite-id", default=None, help="the suite id (<scope>.<org>.evals.<name>)"
    )
    parser.add_argument("--version", default="1.0.0", help="the suite version (default 1.0.0)")
    parser.add_argument(
        "--policy",
        default=None,
        help='script policy for steps that succeeded, as JSON (default {"retry": 1})',
    )
    parser.add_argument(
        "--strict-trajectory",
        action="store_true",
        help="expect exactly the recorded calls (match strict; default superset)",
    )
    parser.add_argument("--no-redact", action="store_true", help="do not redact secrets")
    parser.add_argument(
        "--allow-empty",
        action="store_true",
        help="write the suite even when the runs record no tool call (it grades only answers)",
    )
    parser.add_argument("-o", "--output", required=True, metavar="SUITE.json")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    loaded = load_run_file(args)
    if isinstance(loaded, int):
        return loaded
    policy = None
    if args.policy is not None:
        try:
            policy = json.loads(args.policy)
        except json.JSONDecodeError:
            policy = args.policy  # "skip", "abort" given bare
    try:
        promotion = promote(
            loaded,
            suite_id=args.suite_id,
            version=args.version,
            policy=policy,
            trajectory_match="strict" if args.strict_trajectory else "superset",
            redact_secrets=not args.no_redact,
            allow_empty=args.allow_empty,
        )
    except ValueError as exc:
        return fail(str(exc))
    try:
        path = promotion.suite.save(args.output)
    except OSError as exc:
        return fail(f"{args.output}: cannot write: {exc.strerror or exc}")
    for line in promotion.summary_lines():
        print(line)
    print(f"wrote {path}")
    return 0 if promotion.self_test is None or promotion.self_test.passed else 1
