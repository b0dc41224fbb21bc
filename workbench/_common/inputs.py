"""Reading an input's bytes: a file, or a pipe (``/dev/stdin``), never a device, within a limit."""

from __future__ import annotations

import errno
import os
import stat

__all__ = ["MAX_INPUT_BYTES", "read_input_bytes"]

StrPath = str | os.PathLike[str]


MAX_INPUT_BYTES = 2 * 1024 * 1024 * 1024
"""The most an input may hold (2 GiB): a file over it is refused from its size, a pipe once it
has given that much (``cat /dev/zero | workbench ... /dev/stdin`` no longer reads without end)."""
_READ_CHUNK = 1 << 20


def read_input_bytes(path: StrPath, limit: int | None = MAX_INPUT_BYTES) -> bytes:
    """The whole content of an input file, refusing what is not one.

    A device (``/dev/zero`` never ends, ``/dev/tty`` waits for a person) and a folder are
    refused with an :class:`OSError` whose ``strerror`` says so. A named pipe (or ``/dev/stdin``
    fed by a pipe) is read to its end; one that no process writes to reads as empty at once
    instead of waiting forever for a writer (it is opened without blocking, then read with).

    Raises:
        OSError: the file cannot be opened or read, is a device or a folder, or holds more
            than ``limit`` bytes (``errno.EFBIG``; ``None``: no limit).
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            raise OSError(errno.ENODEV, "is a device, not a file", os.fspath(path))
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder, not a file", os.fspath(path))
        os.set_blocking(fd, True)
        handle = open(fd, "rb", closefd=True)  # noqa: SIM115 (closed below, fd with it)
    except BaseException:
        os.close(fd)
        raise
    with handle:
        if limit is None:  # (the workbench's own file, which it may grow past any limit)
            return handle.read()
        if stat.S_ISREG(mode):
            if os.fstat(handle.fileno()).st_size > limit:
                raise _too_large(path, limit)
            return handle.read()
        read = bytearray()
        while chunk := handle.read(_READ_CHUNK):  # a pipe's bytes, a chunk at a time
            read += chunk
            if len(read) > limit:
                raise _too_large(path, limit)
        return bytes(read)


def _too_large(path: StrPath, limit: int) -> OSError:
    size = f"{limit // (1 << 30)} GiB" if limit >= 1 << 30 else f"{limit} bytes"
    return OSError(errno.EFBIG, f"it is larger than {size}", os.fspath(path))
