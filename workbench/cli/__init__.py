"""The ``workbench`` command line: one module per subcommand, registered here."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import _boundaries, _mcp, _promote, _replay, _serve_host, _sweep, _validate

__all__ = ["main"]

_COMMANDS = (_boundaries, _promote, _validate, _replay, _mcp, _serve_host, _sweep)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="workbench",
        description="Record-and-replay eval workbench for how agents recover from tool failures.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in _COMMANDS:
        command.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 failed check, 2 bad input)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
    except BrokenPipeError:  # `workbench boundaries ... | head`
        return 0
    return code


if __name__ == "__main__":
    sys.exit(main())
