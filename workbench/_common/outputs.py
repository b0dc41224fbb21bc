"""Output safety: what the workbench will write over, and how it cleans up after itself.

Every file or folder the workbench writes is checked here first (:func:`check_output`):

- an output that is also an input of the same command (the same file, by device and inode, so
  hard links and symbolic links count) is refused;
- a folder, a device, a FIFO, a socket, or a symbolic link to one of them (or to nothing) is
  refused where a file is to be written, and a file where a folder is;
- an existing file the workbench did not write is refused unless the caller says
  ``overwrite=True`` (``--force`` on the command line). Workbench outputs are recognised by a
  marker each writer knows (:data:`Recogniser`): stable JSON text byte for byte, the compact
  key-sorted lines of an event log, a CSV header, the report's ``generator`` meta tag;
- missing parent folders are an error unless the caller asks for them (``parents=True``).

The writing itself (atomic files, folders swapped in whole, temp clean-up) is in
:mod:`workbench._common.atomic`.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "GENERATOR_META",
    "PNG_MARKER",
    "REPORT_FILES",
    "SVG_MARKER",
    "TEMP_SUFFIX",
    "OutputError",
    "OutputKind",
    "Recogniser",
    "check_distinct_outputs",
    "check_output",
    "compact_json_line",
    "ensure_parent",
    "file_starts_with",
    "is_chart_file",
    "is_event_log_file",
    "is_report_folder",
    "is_stable_json_file",
    "is_temp_name",
    "jsonl_recogniser",
    "same_file",
    "stable_json_text",
    "temp_pid",
]

StrPath = str | os.PathLike[str]

Recogniser = Callable[[Path], bool]
"""Says whether an existing regular file (or folder, for folder outputs) is one the workbench
wrote, and so may be replaced without ``overwrite=True``."""


class OutputError(ValueError):
    """An output path the workbench refuses to write, with the path and the reason.

    ``needs_force`` is true when the only objection is that the file exists and was not written
    by the workbench: ``overwrite=True`` (``--force``) would replace it.
    """

    path: str
    """The output as the caller named it."""
    reason: str
    """Why it is refused, without the path."""
    needs_force: bool
    """True when ``overwrite=True`` would lift the refusal."""

    def __init__(self, path: StrPath, reason: str, *, needs_force: bool = False) -> None:
        self.path = os.fspath(path)
        self.reason = reason
        self.needs_force = needs_force
        hint = "; pass overwrite=True to replace it" if needs_force else ""
        super().__init__(f"{self.path}: {reason}{hint}")


# ---------------------------------------------------------------------------------------------
# Checks


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words (None for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _stat(path: StrPath) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENAMETOOLONG):
            raise OutputError(path, exc.strerror or str(exc)) from None
        return None


def same_file(a: StrPath, b: StrPath) -> bool:
    """Whether two paths name the same existing file (device and inode: links count)."""
    sa, sb = _stat(a), _stat(b)
    if sa is None or sb is None:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def _inside(inner: Path, folder: Path) -> bool:
    try:
        inner.relative_to(folder)
    except ValueError:
        return False
    return True


def check_output(
    path: StrPath,
    kind: OutputKind | None = None,
    *,
    inputs: Iterable[StrPath | None] = (),
    overwrite: bool = False,
    parents: bool = False,
    recognise: Recogniser | None = None,
    folder: bool = False,
    known_names: Collection[str] = (),
) -> Path:
    """Check that ``path`` may be written; return the path to write (a symlink's target).

    ``kind`` names what will be written there (:data:`OutputKind`), which says how an existing
    output is recognised as the workbench's; a writer may pass its own ``recognise`` instead
    (without either, every existing file counts as foreign). ``inputs`` are the files the same
    command reads: the output may be none of them (and a folder output may hold none of them).
    An existing foreign file is refused unless ``overwrite``. A folder output (``kind="report"``
    or ``folder=True``) may exist when it is empty or recognised; with ``overwrite`` also when
    every entry is a file named in ``known_names``; a folder holding anything else is refused
    whatever the caller says. A missing parent folder is refused unless ``parents``.

    Raises:
        OutputError: naming the path and why it may not be written.
    """
    if kind is not None:
        recognise, folder, known_names = _KINDS[kind]
    name = os.fspath(path)
    if not name:
        raise OutputError(name, "an empty path names no file")
    if "\x00" in name:
        raise OutputError(name.replace("\x00", "\\0"), "a path may not hold a NUL character")
    target = Path(name)
    if not folder and (name.endswith(("/", os.sep)) or target.name in ("", ".", "..")):
        raise OutputError(name, "names a folder, not a file")
    target, existing = _resolve(name, target, folder)
    for source in inputs:
        if source is None:
            continue
        if same_file(target, source) or os.path.abspath(target) == os.path.abspath(source):
            raise OutputError(
                name, f"is also an input of this command ({os.fspath(source)}); write elsewhere"
            )
        if folder and _inside(Path(os.path.realpath(source)), Path(os.path.realpath(target))):
            raise OutputError(
                name,
                f"holds an input of this command ({os.fspath(source)}), which replacing the "
                "folder would delete; write elsewhere",
            )
    if existing is not None:
        if folder:
            _check_folder(name, target, overwrite, recognise, known_names)
        elif not overwrite and (recognise is None or not recognise(target)):
            raise OutputError(
                name, "the file exists and was not written by the workbench", needs_force=True
            )
    parent = target.parent
    pstat = _stat(parent)
    if pstat is None:
        if not parents:
            raise OutputError(
                name, f"the folder {os.fspath(parent)!s} does not exist (create it first)"
            )
        _check_missing_parents(name, parent)
    elif not stat.S_ISDIR(pstat.st_mode):
        raise OutputError(name, f"{os.fspath(parent)} is not a folder")
    return target


def _resolve(name: str, target: Path, folder: bool) -> tuple[Path, os.stat_result | None]:
    """The path to write (a symlink's target) and its stat; refuses the wrong kind of file."""
    try:
        lstat = os.lstat(target)
    except FileNotFoundError:
        lstat = None
    except NotADirectoryError:
        raise OutputError(name, "a part of the path is a file, not a folder") from None
    except OSError as exc:
        raise OutputError(name, exc.strerror or str(exc)) from None
    existing = lstat
    link = ""
    if lstat is not None and stat.S_ISLNK(lstat.st_mode):
        existing = _stat(target)
        if existing is None:
            raise OutputError(name, "is a symbolic link to nothing (a missing file)")
        target = Path(os.path.realpath(target))
        link = "a symbolic link to "
    if existing is not None:
        kind = _kind(existing.st_mode)
        if folder and kind != "a folder":
            raise OutputError(name, f"is {link}{kind or 'a file'}, not a folder")
        if not folder and kind is not None:
            raise OutputError(name, f"is {link}{kind}; name a file to write")
    return target, existing


def _check_folder(
    name: str,
    target: Path,
    overwrite: bool,
    recognise: Recogniser | None,
    known_names: Collection[str],
) -> None:
    if _empty_folder(target) or (recognise is not None and recognise(target)):
        return
    foreign = _foreign_entries(target, known_names)
    if foreign:
        shown = ", ".join(foreign[:3]) + (", ..." if len(foreign) > 3 else "")
        raise OutputError(
            name,
            f"the folder holds files the workbench did not write ({shown}); it is never "
            "replaced: choose a new or empty folder",
        )
    if not overwrite:
        raise OutputError(
            name, "the folder holds a report the workbench cannot recognise", needs_force=True
        )


def _empty_folder(path: Path) -> bool:
    try:
        with os.scandir(path) as entries:
            return next(iter(entries), None) is None
    except OSError:
        return False


def _foreign_entries(folder: Path, known_names: Collection[str]) -> list[str]:
    try:
        with os.scandir(folder) as entries:
            return sorted(
                e.name
                for e in entries
                if not (e.name in known_names and e.is_file(follow_symlinks=False))
                and not is_temp_name(e.name)
            )
    except OSError as exc:
        return [f"(unreadable: {exc.strerror})"]


def _check_missing_parents(name: str, parent: Path) -> None:
    """With ``parents=True``: the nearest existing ancestor must be a folder."""
    for ancestor in parent.parents:
        st = _stat(ancestor)
        if st is not None:
            if not stat.S_ISDIR(st.st_mode):
                raise OutputError(name, f"{os.fspath(ancestor)} is not a folder")
            return


def check_distinct_outputs(outputs: Iterable[tuple[str, StrPath | None]]) -> None:
    """Refuse two outputs of one command that name the same file (``(label, path)`` pairs)."""
    seen: list[tuple[str, str]] = []
    for label, path in outputs:
        if path is None:
            continue
        text = os.fspath(path)
        for other_label, other in seen:
            if os.path.abspath(other) == os.path.abspath(text) or same_file(other, text):
                raise OutputError(text, f"is given as both {other_label} and {label}")
        seen.append((label, text))


def ensure_parent(target: Path, *, parents: bool) -> None:
    """Create the missing parent folders of ``target`` when asked (``check_output`` has checked)."""
    if parents:
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(target, f"cannot create its folder: {exc.strerror or exc}") from exc


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

_KINDS: dict[str, tuple[Recogniser, bool, tuple[str, ...]]] = {
    "json": (is_stable_json_file, False, ()),
    "events": (is_event_log_file, False, ()),
    "report": (is_report_folder, True, REPORT_FILES),
    "chart": (is_chart_file, False, ()),
}
