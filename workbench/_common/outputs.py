"""Output safety: what the workbench will write over, and how it cleans up after itself.

Every file or folder the workbench writes is checked here first (:func:`check_output`):

- an output that is also an input of the same command (the same file, by device and inode, so
  hard links and symbolic links count) is refused;
- a folder, a device, a FIFO, a socket, or a symbolic link to one of them (or to nothing) is
  refused where a file is to be written, and a file where a folder is;
- an existing file the workbench did not write is refused unless the caller says
  ``overwrite=True`` (``--force`` on the command line). Workbench outputs are recognised by a
  marker each writer knows (:mod:`workbench._common.markers`);
- missing parent folders are an error unless the caller asks for them (``parents=True``).

The writing itself (atomic files, folders swapped in whole, temp clean-up) is in
:mod:`workbench._common.atomic`; the markers in :mod:`workbench._common.markers`.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Collection, Iterable
from pathlib import Path

from .markers import KINDS, OutputKind, Recogniser, is_temp_name

__all__ = [
    "OutputError",
    "OutputKind",
    "check_distinct_outputs",
    "check_output",
    "ensure_parent",
    "same_file",
]

StrPath = str | os.PathLike[str]


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
        recognise, folder, known_names = KINDS[kind]
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
