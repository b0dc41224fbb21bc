"""``workbench boundaries RUN``: print the table of tool boundaries."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ._common import add_run_arguments, load_run_file


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "boundaries", help="print the tool boundaries of a promoted run"
    )
    add_run_arguments(parser)
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--csv", action="store_true", help="print CSV")
    out.add_argument("--json", action="store_true", help="print a JSON array, one object a row")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    loaded = load_run_file(args)
    if isinstance(loaded, int):
        return loaded
    frame = loaded.to_frame()
    if args.json:
        rows = []
        for record in frame.to_dict(orient="records"):
            row = {str(k): _plain(v) for k, v in record.items()}
            row["isError"] = bool(row["isError"])
            rows.append(row)
        json.dump(rows, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    elif args.csv:
        frame.to_csv(sys.stdout, index=False)
    else:
        with_pd_options(frame)
    return 0


def _plain(value: Any) -> Any:
    try:
        import pandas as pd

        if value is pd.NA or (isinstance(value, float) and value != value):
            return None
    except ImportError:  # pragma: no cover
        pass
    if hasattr(value, "item"):
        return value.item()
    return value


def with_pd_options(frame: Any) -> None:
    import pandas as pd

    shown = frame.copy()
    shown["args"] = shown["args"].str.slice(0, 60)
    shown["response"] = shown["response"].str.slice(0, 60)
    with pd.option_context("display.max_rows", None, "display.width", 200):
        print(shown.to_string(index=False))
