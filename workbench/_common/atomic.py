"""Atomic writes: a file or a whole folder appears complete or not at all, and no temp is left.

A file is written to a temporary file beside it, flushed, fsynced and renamed over the target
(:func:`atomic_file`); a folder is built beside the old one and swapped in
(:func:`replace_folder`). Temporary files and folders are named ``.NAME.PID.RANDOM.wbtmp``.
They are removed on every exit path the process survives (an exception, Ctrl-C, SIGTERM turned
into an exception by the command line); while they exist their names are kept, so that a
process about to end without unwinding (the command line's watchdog, when a stop takes too
long) removes them first (:func:`remove_live_temps`); those that a killed process left behind
(SIGKILL, power loss) are removed the next time the workbench writes into that folder, once the
process whose id they carry is gone (:func:`remove_stale_temps`).

What may be written where is checked first, by :mod:`workbench._common.outputs`.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import secrets
import shutil
import stat
import tempfile
from collections.abc import Collection, Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from .markers import TEMP_SUFFIX, Recogniser, temp_pid
from .outputs import OutputError, StrPath, check_output, ensure_parent

__all__ = [
    "TEMP_SUFFIX",
    "atomic_file",
    "remove_live_temps",
    "remove_stale_temps",
    "replace_folder",
    "umask",
]

_NAME_ROOM = 120  # characters of the output's name kept in a temp name (the limit is 255 bytes)

_LIVE: set[str] = set()
"""The temporary files and folders of this process that may exist now (named before made)."""


def remove_live_temps() -> None:
    """Remove this process's temporary files and folders now: for a process about to end
    without unwinding (``os._exit`` after a stop that took too long), which would leave them."""
    for name in list(_LIVE):
        if os.path.isdir(name) and not os.path.islink(name):
            for _ in range(3):  # a thread still writing into it may add a file meanwhile
                shutil.rmtree(name, ignore_errors=True)
                if not os.path.lexists(name):
                    break
        else:
            with contextlib.suppress(OSError):
                os.unlink(name)
        _LIVE.discard(name)


@contextlib.contextmanager
def atomic_file(
    path: StrPath,
    *,
    overwrite: bool = False,
    parents: bool = False,
    recognise: Recogniser | None = None,
    inputs: Iterable[StrPath | None] = (),
) -> Iterator[BinaryIO]:
    """A binary file handle whose contents replace ``path`` atomically when the block ends.

    ``path`` is checked first (:func:`~workbench._common.outputs.check_output`: not an input,
    not a folder, device or FIFO, not an existing file the workbench did not write unless
    ``overwrite``, its folder existing unless ``parents``). The bytes go to a temporary file in
    the same folder, which is flushed, fsynced and renamed over ``path`` when the ``with`` block
    ends without an error; the folder is fsynced afterwards where the system allows it. If the
    block raises (Ctrl-C included), the temporary file is removed and ``path`` is left as it
    was. A replaced file keeps its permission bits; a new one gets the usual ones for the
    process (``0o666`` less the umask). When ``path`` is a symbolic link to a file, that file is
    replaced and the link stays.
    """
    target = check_output(
        path, inputs=inputs, overwrite=overwrite, parents=parents, recognise=recognise
    )
    ensure_parent(target, parents=parents)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~umask()
    folder = target.parent
    remove_stale_temps(folder)
    # The temp's name is chosen before the file is made, so that a signal arriving while it is
    # made (inside mkstemp, before its name came back) still finds it to remove.
    temp_name = ""
    try:
        fd = -1
        for _ in range(100):
            temp_name = os.path.join(
                folder, f"{_temp_prefix(target)}{secrets.token_hex(4)}{TEMP_SUFFIX}"
            )
            _LIVE.add(temp_name)
            try:
                fd = os.open(temp_name, _CREATE, 0o600)
                break
            except FileExistsError:
                _LIVE.discard(temp_name)
                continue
        if fd < 0:
            raise FileExistsError(0, "no free temporary name")
    except OSError as exc:  # the open failed: nothing was made
        _LIVE.discard(temp_name)
        raise OutputError(path, f"cannot write here: {exc.strerror or exc}") from exc
    except BaseException:  # a signal, maybe as the file was made: the name has this process's id
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        _LIVE.discard(temp_name)
        raise
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp_name, mode)
        os.replace(temp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
    finally:
        _LIVE.discard(temp_name)
    _fsync_folder(folder)


def _fsync_folder(folder: Path) -> None:
    """Make the rename durable: fsync the folder, where the system supports it."""
    flags = getattr(os, "O_DIRECTORY", None)
    if flags is None:  # Windows: folders cannot be opened for fsync
        return
    try:
        fd = os.open(folder, os.O_RDONLY | flags)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems refuse fsync on a folder; the rename itself is done
        pass
    finally:
        os.close(fd)


# ---------------------------------------------------------------------------------------------
# Temporary files


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    except OSError:
        return True
    return True


def remove_stale_temps(folder: StrPath) -> list[str]:
    """Remove the temporary files and folders killed workbench runs left in ``folder``.

    A temp is stale when the process whose id is in its name is no longer running (temps of
    live processes, this one included, are left alone). Returns the names removed.
    """
    removed: list[str] = []
    own = os.getpid()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        pid = temp_pid(entry.name)
        if pid is None or pid == own or _alive(pid):
            continue
        with contextlib.suppress(OSError):
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
            removed.append(entry.name)
    return removed


_CREATE = (
    os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)


def _temp_prefix(target: Path) -> str:
    return f".{target.name[:_NAME_ROOM]}.{os.getpid()}."


# ---------------------------------------------------------------------------------------------
# Folders replaced whole


def umask() -> int:
    """The process umask, read without changing it where the system shows it (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    current = os.umask(0o022)  # no way to read it without setting it; put it back at once
    os.umask(current)
    return current


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


@functools.cache
def _renameat2() -> Any:
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # not Linux, or a C library without it
        return None
    function.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    function.restype = ctypes.c_int
    return function


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``); False if unsupported."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    result = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
    return bool(result == 0)


def _swap_in(new: Path, target: Path) -> None:
    """Put the folder ``new`` at ``target``; the folder that was there is removed."""
    if not os.path.lexists(target):
        os.rename(new, target)
        return
    if _exchange(new, target):
        shutil.rmtree(new, ignore_errors=True)  # ``new`` now holds the old folder
        return
    old = Path(tempfile.mkdtemp(prefix=_temp_prefix(target), suffix=TEMP_SUFFIX, dir=target.parent))
    os.rmdir(old)
    os.rename(target, old)
    try:
        os.rename(new, target)
    except BaseException:
        os.rename(old, target)
        raise
    shutil.rmtree(old, ignore_errors=True)


@contextlib.contextmanager
def replace_folder(
    path: StrPath,
    *,
    inputs: Iterable[StrPath | None] = (),
    overwrite: bool = False,
    parents: bool = False,
    recognise: Recogniser | None = None,
    known_names: Collection[str] = (),
) -> Iterator[Path]:
    """A new, empty folder whose contents replace the folder ``path`` when the block ends.

    Write the files into the folder the ``with`` gives. When the block ends without an error,
    the new folder is swapped in for ``path`` (in one step where the system can exchange two
    paths, else in two renames) and the old one is deleted; if the block raises, the new folder
    is deleted and ``path`` is left as it was. ``path`` is checked first
    (:func:`~workbench._common.outputs.check_output` with ``folder=True``): an existing folder
    must be empty or recognised; ``overwrite`` lifts that only for a folder whose every entry is
    a file named in ``known_names``; a folder holding anything else is never deleted.
    """
    target = check_output(
        path,
        inputs=inputs,
        overwrite=overwrite,
        parents=parents,
        recognise=recognise,
        folder=True,
        known_names=known_names,
    )
    ensure_parent(target, parents=parents)
    remove_stale_temps(target.parent)
    # As in atomic_file, the name is chosen before the folder is made: a signal arriving while
    # it is made (mkdtemp would not have returned its name yet) still finds it to remove. The
    # name carries this process's id, so no other process's folder can be removed by it.
    name = ""
    try:
        for _ in range(100):
            name = os.path.join(
                target.parent, f"{_temp_prefix(target)}{secrets.token_hex(4)}{TEMP_SUFFIX}"
            )
            _LIVE.add(name)
            try:
                os.mkdir(name, 0o700)
                break
            except FileExistsError:
                _LIVE.discard(name)
                name = ""
                continue
        if not name:
            raise FileExistsError(0, "no free temporary name")
        new = Path(name)
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = 0o777 & ~umask()
        os.chmod(new, mode)
    except OSError as exc:
        if name:
            shutil.rmtree(name, ignore_errors=True)
            _LIVE.discard(name)
        raise OutputError(path, f"cannot write here: {exc.strerror or exc}") from exc
    except BaseException:  # a signal, maybe as the folder was made
        if name:
            shutil.rmtree(name, ignore_errors=True)
            _LIVE.discard(name)
        raise
    try:
        yield new
        _swap_in(new, target)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise
    finally:
        _LIVE.discard(name)
