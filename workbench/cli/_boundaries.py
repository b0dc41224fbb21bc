"""``workbench boundaries RUN``: print the table of tool boundaries.

The table fits 100 columns (long cells are cut with an ellipsis; ``--csv`` and ``--json`` hold
everything), shows a blank where a value is missing, and escapes recorded text so no control
character reaches the terminal. ``--json`` keeps each call's args as JSON. Nothing here imports
pandas: the rows come from the boundaries themselves.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
import unicodedata
from typing import Any

from ._common import add_run_arguments, load_run_file, plural, terminal_text

WIDTH = 100
"""The width the plain table fits."""

_COLUMNS = ("index", "callId", "tool", "args", "isError", "error", "response", "durationMs")
_FIXED = frozenset({"index", "isError", "durationMs"})
_LABELS = {"index": "#", "durationMs": "ms"}
"""Shorter headers for the plain table (``--csv`` and ``--json`` keep the column names)."""
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "boundaries",
        help="print the tool boundaries of a recorded run",
        description="Print one row per tool call of a recorded run: its index, call id, tool, "
        "args, whether it failed, the error text, a preview of the result and the duration.",
    )
    add_run_arguments(parser)
    out = parser.add_mutually_exclusive_group()
    out.add_argument(
        "--csv", action="store_true", help="print CSV with every cell in full (args as JSON text)"
    )
    out.add_argument(
        "--json",
        action="store_true",
        help="print a JSON array, one object a row, args as JSON values",
    )
    parser.set_defaults(handler=run)


def _rows(loaded: Any, *, whole: bool = False) -> tuple[list[dict[str, Any]], list[str]]:
    """The table rows (keys: the boundary columns, plus ``run`` when the file holds several
    runs and ``agent`` when its calls are made by more than one agent: sub-agents, a simulated
    user). ``whole``: each response as its whole text, not a preview (``--csv``, ``--json``)."""
    many = len(loaded.runs) > 1
    agents = len({b.agent_id for run in loaded.runs for b in run.boundaries}) > 1
    columns = (["run"] if many else []) + list(_COLUMNS)
    if agents:
        columns.insert(columns.index("tool") + 1, "agent")
    rows: list[dict[str, Any]] = []
    for run in loaded.runs:
        for boundary in run.boundaries:
            row: dict[str, Any] = {"run": run.task_key or run.run_id} if many else {}
            row.update(boundary.to_row())
            row["args"] = boundary.args
            if whole:
                row["response"] = boundary.response_text
            if agents:
                row["agent"] = boundary.agent_id
            rows.append(row)
    return rows, columns


def run(args: argparse.Namespace) -> int:
    loaded = load_run_file(args)
    rows, columns = _rows(loaded, whole=args.json or args.csv)
    if args.json:
        # the characters a terminal acts on unseen as their escapes, the rest as they are
        text = json.dumps(rows, ensure_ascii=False, indent=2)
        sys.stdout.write(_UNSEEN_OR_BREAK.sub(_escape, text) + "\n")
    elif args.csv:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([_csv_cell(column, row.get(column)) for column in columns])
    else:
        print_boundaries(rows, columns)
        count = len(rows)
        failed = sum(1 for row in rows if row["isError"])
        runs = len(loaded.runs)
        print(
            f"{plural(count, 'tool boundary', 'tool boundaries')} in "
            f"{plural(runs, 'run')}, {plural(failed, 'failed call')}"
        )
        unread = len(_notes(loaded, "subagentsNotFound"))
        if unread:
            print(
                f"{plural(unread, 'sub-agent')} named by a call's result had no transcript "
                "beside the session: their calls are not here (metadata.subagentsNotFound)"
            )
        blank = sum(1 for run in loaded.runs for b in run if b.extra.get("contentNotRecorded"))
        if blank:
            print(
                f"{plural(blank, 'call')} with no arguments or result recorded: the "
                "instrumentation captured no content, and a suite would serve it empty "
                "(extra.contentNotRecorded)"
            )
        ended = [c for c in _notes(loaded, "terminalCalls") if isinstance(c, dict)]
        if ended:
            reasons = [c["notRun"] for c in ended if c.get("notRun")]
            said = terminal_text("; ".join(sorted(set(map(str, reasons)))))
            why = f", {len(reasons)} never run ({said})" if reasons else " by design"
            print(
                f"{plural(len(ended), 'call')} ended a run with no result{why}: kept as "
                "terminal calls, not rows (metadata.terminalCalls)"
            )
        kept = len(_notes(loaded, "otherMessages"))
        if kept:
            print(
                f"{plural(kept, 'message')} of a role the format has not: kept as recorded, "
                "not read (metadata.otherMessages)"
            )
        crashed = [str(c) for c in _notes(loaded, "crashedBeforeAnyCall")]
        if crashed:
            shown = "; ".join(terminal_text(c) for c in crashed[:3])
            more = f"; and {len(crashed) - 3} more" if len(crashed) > 3 else ""
            print(
                f"{plural(len(crashed), 'run')} crashed before any tool call, kept with no "
                f"rows (metadata.crashedBeforeAnyCall): {shown}{more}"
            )
        for unit in ("line", "item"):  # a recording a line, or an item of one JSON array
            empty = len(_notes(loaded, f"{unit}sWithoutRun"))
            if empty:
                print(
                    f"{plural(empty, unit)} of the file gave no run (an instance with no "
                    f"events, listed in metadata.{unit}sWithoutRun)"
                )
    return 0


def _notes(loaded: Any, key: str) -> list[Any]:
    """What the loader noted under ``metadata[key]`` on every run, one list. A member of that
    name that is no list is the recording's own, kept as it was (AgentDojo keeps a result's
    members on its run), and no note: it is not counted."""
    return [item for run in loaded.runs if type(v := run.metadata.get(key)) is list for item in v]


def _csv_cell(column: str, value: Any) -> str:
    if value is None:
        return ""
    if column == "args":  # JSON text: its control and format characters as \u escapes
        return _UNSEEN.sub(_escape, json.dumps(value, ensure_ascii=False, sort_keys=True))
    text = str(value) if column in _FIXED else terminal_text(str(value))  # escapes shown
    # A cell a spreadsheet would run as a formula is shown as text (OWASP CSV injection).
    if column not in _FIXED and text.startswith(_FORMULA_START):
        return "'" + text
    return text


_UNSEEN = re.compile(r"[^\x20-\x7e]")
"""A character past printable ASCII: checked one by one (``str.isprintable``)."""
_UNSEEN_OR_BREAK = re.compile(r"[^\x20-\x7e\n]")
"""The same in indented JSON, whose line breaks are its layout (a string's are escaped)."""


def _escape(found: re.Match[str]) -> str:
    """A character a JSON text may hold raw that a terminal or a spreadsheet acts on unseen (DEL
    and C1 controls, format characters such as bidirectional marks and tags, line separators,
    private use) as its JSON ``\\u`` escape (two, past U+FFFF); a printable one as it is."""
    char = found.group(0)
    if char.isprintable():
        return char
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def _text(column: str, value: Any) -> str:
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if column == "args":
        value = json.dumps(value, ensure_ascii=False, sort_keys=True)
    elif column == "isError":
        value = "true" if value else "false"
    return terminal_text(str(value))


_CAPS = {"callId": 10, "run": 16, "tool": 24, "agent": 12}
"""Columns that get their natural width up to a cap first; the rest share what is left."""
_MIN = 6


def _widths(natural: dict[str, int], columns: list[str], width: int) -> dict[str, int]:
    """Column widths that fit ``width``: fixed columns whole, capped ones (call id, run, tool)
    up to their cap, and the payload columns sharing what is left."""
    gaps = 2 * (len(columns) - 1)
    widths = {c: natural[c] for c in columns if c in _FIXED}
    capped = [c for c in columns if c in _CAPS]
    shared = sorted(
        (c for c in columns if c not in _FIXED and c not in _CAPS), key=lambda c: natural[c]
    )
    for column in capped:
        widths[column] = min(natural[column], _CAPS[column])
    room = width - gaps - sum(widths.values())
    needed = sum(min(natural[c], _MIN) for c in shared)
    while room < needed and any(widths[c] > _MIN for c in capped):
        widest = max(capped, key=lambda c: widths[c])
        widths[widest] -= 1
        room += 1
    for position, column in enumerate(shared):
        share = max(room // (len(shared) - position), min(natural[column], _MIN))
        widths[column] = min(natural[column], share)
        room -= widths[column]
    return widths


def _display_width(text: str) -> int:
    """Terminal columns ``text`` takes (wide East Asian characters two, combining marks none)."""
    if text.isascii():
        return len(text)
    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
        for c in text
    )


def _cut(text: str, width: int) -> str:
    """``text`` in at most ``width`` columns, padded to exactly that (cut with an ellipsis)."""
    if _display_width(text) <= width:
        return text + " " * (width - _display_width(text))
    out, used = [], 0
    for char in text:
        step = _display_width(char)
        if used + step > width - 1:
            break
        out.append(char)
        used += step
    return "".join(out) + "\u2026" + " " * (width - 1 - used)


def print_boundaries(rows: list[dict[str, Any]], columns: list[str], width: int = WIDTH) -> None:
    """Print the rows as a table at most ``width`` characters wide."""
    cells = [{c: _text(c, row.get(c)) for c in columns} for row in rows]
    natural = {
        c: max([len(_LABELS.get(c, c))] + [_display_width(r[c]) for r in cells]) for c in columns
    }
    widths = _widths(natural, columns, width)

    def line(values: dict[str, str]) -> str:
        parts = []
        for column in columns:
            text = values[column]
            if column in ("index", "durationMs"):
                parts.append(text.rjust(widths[column]))
            else:
                parts.append(_cut(text, widths[column]))
        return "  ".join(parts).rstrip()

    print(line({c: _LABELS.get(c, c) for c in columns}))
    for values in cells:
        print(line(values))
