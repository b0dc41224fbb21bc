"""Helpers shared by the subcommands: loading runs with clear errors, printing tables."""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from workbench import RUN_FORMATS, ErrorRule, JSONFileError, LoadError, LoadResult, load_runs

FORMATS = ("auto", *RUN_FORMATS)
"""The ``--format`` choices."""

__all__ = [
    "add_error_regex",
    "add_run_arguments",
    "error_rule",
    "fail",
    "load_run_file",
    "print_table",
]


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments every command that reads a promoted run takes."""
    parser.add_argument("run", metavar="RUN", help="a promoted-run file (OpenWOP log, chat)")
    parser.add_argument(
        "--format", choices=FORMATS, default="auto", help="the file's format (default: detect)"
    )
    parser.add_argument(
        "--error-prefix",
        default=None,
        metavar="P",
        help="for formats with no error flag: a tool reply starting with P is a failure "
        "(default 'Error:'; '' for none)",
    )
    add_error_regex(parser)


def add_error_regex(parser: argparse.ArgumentParser) -> None:
    """``--error-regex RE``, beside ``--error-prefix`` (R36)."""
    parser.add_argument(
        "--error-regex",
        default=None,
        metavar="RE",
        help="for formats with no error flag: a tool reply whose text matches RE (re.search) "
        "is a failure; overrides --error-prefix",
    )


def error_rule(args: argparse.Namespace) -> ErrorRule | None:
    """The error rule the arguments give (``--error-regex`` wins), or None for the default.

    Raises ValueError naming the option when the regular expression does not compile.
    """
    regex = getattr(args, "error_regex", None)
    if regex is not None:
        try:
            return ErrorRule.regex(regex)
        except re.error as exc:
            raise ValueError(f"--error-regex {regex!r} is not a regular expression: {exc}") from exc
    prefix = getattr(args, "error_prefix", None)
    return ErrorRule.prefix(prefix) if prefix is not None else None


def fail(message: str, code: int = 2) -> int:
    """Print an error on stderr and return the exit code."""
    print(f"workbench: error: {message}", file=sys.stderr)
    return code


def load_run_file(args: argparse.Namespace) -> LoadResult | int:
    """Load ``args.run``, or print the load error and return exit code 2."""
    try:
        rule = error_rule(args)
        return load_runs(args.run, format=args.format, error_rule=rule)
    except LoadError as exc:
        for problem in exc.problems[:20]:
            print(f"workbench: error: {problem}", file=sys.stderr)
        if len(exc.problems) > 20:
            print(f"workbench: ... and {len(exc.problems) - 20} more", file=sys.stderr)
        return 2
    except (JSONFileError, ValueError) as exc:
        return fail(str(exc))


def print_table(rows: list[dict[str, Any]], columns: list[str]) -> None:
    """Print rows as an aligned plain-text table."""
    cells = [[str(row.get(c, "")) for c in columns] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip())
    for r in cells:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip())
