"""Helpers shared by the subcommands: loading runs with clear errors, printing tables."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from workbench import (
    RUN_FORMATS,
    ErrorRule,
    JSONFileError,
    LoadError,
    LoadResult,
    load_runs,
    safe_text,
)

FORMATS = ("auto", *RUN_FORMATS)
"""The ``--format`` choices."""

__all__ = ["add_run_arguments", "fail", "load_run_file", "print_table"]


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


def fail(message: str, code: int = 2) -> int:
    """Print an error on stderr and return the exit code."""
    print(f"workbench: error: {message}", file=sys.stderr)
    return code


def load_run_file(args: argparse.Namespace) -> LoadResult | int:
    """Load ``args.run``, or print the load error and return exit code 2."""
    rule = ErrorRule.prefix(args.error_prefix) if args.error_prefix is not None else None
    try:
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
    """Print rows as an aligned plain-text table; control and separator characters in a cell
    (an escape sequence in a recorded tool name) are printed escaped (``\\x1b``), never sent
    to the terminal."""
    cells = [[safe_text(row.get(c, "")) for c in columns] for row in rows]
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip())
    for r in cells:
        print("  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip())
