"""``workbench validate SUITE.json``: check a suite against the schemas."""

from __future__ import annotations

import argparse
from typing import Any

from workbench import JSONFileError, read_json, validate_suite

from ._common import fail


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "validate", help="validate a suite (exit 0 valid, 1 invalid, 2 unreadable)"
    )
    parser.add_argument("suite", metavar="SUITE.json")
    parser.add_argument(
        "--official",
        action="store_true",
        help="validate against the official RFC 0081 schema only (no extension members)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        data = read_json(args.suite)
    except JSONFileError as exc:
        return fail(str(exc))
    problems = validate_suite(data, official=args.official)
    which = "official" if args.official else "extension"
    if problems:
        for problem in problems:
            print(f"{args.suite}: {problem}")
        print(f"{len(problems)} problem(s) against the {which} schema")
        return 1
    print(f"{args.suite}: valid against the {which} schema")
    return 0
