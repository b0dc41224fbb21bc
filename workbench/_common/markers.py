"""How the workbench recognises what it wrote: the markers its outputs carry, and temp names.

Every writer says how an existing file at its output is recognised as the workbench's own, so
that it may be replaced without ``overwrite=True`` (:mod:`workbench._common.outputs`). No marker
adds a member to what is written:

- JSON (suites, summaries, catalogues) is the workbench's when its bytes are exactly the stable
  text of what it parses to (sorted keys, two-space indent, one trailing newline);
- an event log when its first line is a compact, key-sorted RunEventDoc;
- a report folder when its ``report.html`` carries the ``generator`` meta tag and it holds
  nothing but report files;
- a chart when its PNG has a ``Software: workbench`` text chunk, or its SVG a comment;
- a CSV when its header is the one about to be written (:func:`file_starts_with`).

Temporary files and folders are named ``.NAME.PID.RANDOM.wbtmp`` (:func:`is_temp_name`).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "GENERATOR_META",
    "KINDS",
    "PNG_MARKER",
    "PNG_SIGNATURE",
    "REPORT_FILES",
    "SVG_MARKER",
    "TEMP_SUFFIX",
    "OutputKind",
    "Recogniser",
    "compact_json_line",
    "file_starts_with",
    "is_chart_file",
    "is_event_log_file",
    "is_report_folder",
    "is_stable_json_file",
    "is_suite_json_file",
    "is_temp_name",
    "jsonl_recogniser",
    "stable_json_text",
    "temp_pid",
]

Recogniser = Callable[[Path], bool]
"""Says whether an existing regular file (or folder, for folder outputs) is one the workbench
wrote, and so may be replaced without ``overwrite=True``."""


# ---------------------------------------------------------------------------------------------
# Temp names (the writing is in ``atomic``)

TEMP_SUFFIX = ".wbtmp"
"""The suffix of every temporary file and folder the workbench makes beside an output."""

_TEMP_NAME = re.compile(r"^\..*\.(?P<pid>[0-9]+)\.[A-Za-z0-9_]+" + re.escape(TEMP_SUFFIX) + r"$")


def is_temp_name(name: str) -> bool:
    """Whether ``name`` is a workbench temp (``.NAME.PID.RANDOM.wbtmp``)."""
    return _TEMP_NAME.match(name) is not None


def temp_pid(name: str) -> int | None:
    """The process id in a temp's name, or None when ``name`` is not a temp."""
    match = _TEMP_NAME.match(name)
    return int(match.group("pid")) if match else None


# ---------------------------------------------------------------------------------------------
# Markers: how the workbench recognises what it wrote


def file_starts_with(prefix: bytes, *, within: int = 0) -> Recogniser:
    """A recogniser: the file begins with ``prefix`` (or holds it in its first ``within`` bytes)."""

    def recognise(path: Path) -> bool:
        try:
            with open(path, "rb") as handle:
                head = handle.read(max(len(prefix), within))
        except OSError:
            return False
        return head.startswith(prefix) if within == 0 else prefix in head

    return recognise


class _Constant(Exception):
    pass


def _refuse(name: str) -> Any:
    raise _Constant(name)


def stable_json_text(value: Any) -> str:
    """The stable JSON text of a parsed value (what :func:`~workbench.dumps_stable` writes)."""
    return json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def is_stable_json_file(path: Path) -> bool:
    """Whether the file holds exactly the stable JSON text of what it parses to.

    That is the workbench's marker on every JSON file it writes (sorted keys, two-space indent,
    one trailing newline): a file written by hand or by another tool is almost never byte for
    byte in that form, so it is not replaced without ``overwrite=True``.
    """
    try:
        data = Path(path).read_bytes()
        value = json.loads(data.decode("utf-8"), parse_constant=_refuse)
        return stable_json_text(value).encode("utf-8") == data
    except (OSError, ValueError, TypeError, RecursionError, _Constant):
        return False


def is_suite_json_file(path: Path) -> bool:
    """Whether the file is a suite as the workbench writes one: stable JSON text
    (:func:`is_stable_json_file`), or that text with its members in their order (a suite
    keeps its recorded payloads' member order, SPEC R42) of an object holding ``suiteId`` and
    ``tasks``. A rerun of ``promote`` replaces the suite it wrote before (it was refused as a
    file the workbench did not write)."""
    if is_stable_json_file(path):
        return True
    try:
        data = Path(path).read_bytes()
        value = json.loads(data.decode("utf-8"), parse_constant=_refuse)
        if not isinstance(value, dict) or "suiteId" not in value or "tasks" not in value:
            return False
        text = json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
        return text.encode("utf-8") == data
    except (OSError, ValueError, TypeError, RecursionError, _Constant):
        return False


def compact_json_line(value: Any) -> str:
    """One JSONL line as the workbench writes it: compact, keys sorted, UTF-8, a newline."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"


def jsonl_recogniser(*required: str, sorted_keys: bool = True) -> Recogniser:
    """A recogniser for the workbench's JSONL files (event logs): the first line is an object
    holding the ``required`` members, written as :func:`compact_json_line` writes it (with
    ``sorted_keys=False``: compact, in the order it has)."""

    def recognise(path: Path) -> bool:
        try:
            with open(path, "rb") as handle:
                first = handle.readline(1 << 20)
            value = json.loads(first.decode("utf-8"))
        except (OSError, ValueError, RecursionError):
            return False
        if not isinstance(value, dict) or not all(key in value for key in required):
            return False
        if sorted_keys:
            return compact_json_line(value).encode("utf-8") == first
        line = json.dumps(value, ensure_ascii=False, separators=(",", ":")) + "\n"
        return line.encode("utf-8") == first

    return recognise


is_event_log_file = jsonl_recogniser("eventId", "runId", "type", "sequence")
"""Whether a file is an event log the workbench wrote (its first line is a compact, key-sorted
RunEventDoc)."""

REPORT_FILES: tuple[str, ...] = (
    "report.html",
    "sweep.csv",
    "branches.csv",
    "recovery.csv",
    "branches.png",
    "recovery.png",
    "divergence.png",
)
"""The files a sweep's report folder holds (``workbench.write_report``)."""

GENERATOR_META = '<meta name="generator" content="workbench">'
"""The marker in every ``report.html``: a folder whose report carries it is the workbench's."""

_marked_html = file_starts_with(GENERATOR_META.encode("utf-8"), within=2048)


def is_report_folder(folder: Path) -> bool:
    """Whether ``folder`` is a report the workbench wrote: its ``report.html`` carries the
    generator marker and it holds nothing but report files."""
    try:
        names = {n for n in os.listdir(folder) if not is_temp_name(n)}
    except OSError:
        return False
    return (
        "report.html" in names
        and names <= set(REPORT_FILES)
        and _marked_html(folder / "report.html")
    )


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_MARKER = b"Software\x00workbench"
"""The ``tEXt`` chunk every PNG chart the workbench writes carries after its header."""
SVG_MARKER = "<!-- generator: workbench -->"
"""The comment every SVG chart the workbench writes has right after its ``<svg>`` tag."""

_marked_svg = file_starts_with(SVG_MARKER.encode("utf-8"), within=4096)


def is_chart_file(path: Path) -> bool:
    """Whether a PNG or SVG file is a chart the workbench wrote (it carries the marker)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(128)
    except OSError:
        return False
    if head.startswith(PNG_SIGNATURE):
        return b"tEXt" + PNG_MARKER in head
    return _marked_svg(path)


OutputKind = Literal["json", "events", "report", "chart"]
"""What an output is, for :func:`check_output`: ``json`` (suites, summaries, tool catalogues:
stable JSON), ``events`` (an event log), ``report`` (a sweep's report folder), ``chart``."""

KINDS: dict[str, tuple[Recogniser, bool, tuple[str, ...]]] = {
    "json": (is_suite_json_file, False, ()),
    "events": (is_event_log_file, False, ()),
    "report": (is_report_folder, True, REPORT_FILES),
    "chart": (is_chart_file, False, ()),
}
"""Each kind's recogniser, whether it is a folder, and the entry names a forced replacement of a
folder of that kind may hold."""
