"""Files that are no recording, refused for what they are (SPEC R35; ``_load/file_kinds``).

An image, a program, another compressor's archive or a pickle given by mistake was refused as
"not UTF-8 text (byte 0x89)"; a recording saved as UTF-16 (PowerShell 5's ``>``) the same. Each
file here is made by the real tool of its kind (Python's compressors, ``pickle``, ``tarfile``,
NumPy) from a real fixture, or is a real program (the interpreter running the tests).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import pickle
import sys
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import setuptools  # type: ignore[import-untyped]

from helpers.paths import FIXTURES
from workbench._load.file_kinds import foreign_kind
from workbench.cli import main

_SESSION = FIXTURES / "claude-code" / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
_DB = FIXTURES / "opencode" / "generated-opencode-1.18.33.db"
_SETUPTOOLS_EXE = Path(setuptools.__file__).parent / "cli-64.exe"
"""A real Windows program: the launcher setuptools installs scripts with on Windows."""


def _tar(data: bytes) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as archive:
        member = tarfile.TarInfo("session.jsonl")
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))
    return out.getvalue()


def _zip(data: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("session.jsonl", data)
    return out.getvalue()


def _numpy(_: bytes) -> bytes:
    out = io.BytesIO()
    np.save(out, np.arange(10))
    return out.getvalue()


def _other_script(data: bytes) -> str:
    """The session's text with its first letters in other scripts (Chinese, French, Greek)."""
    return data.decode("utf-8").replace("e", "文", 40).replace("a", "é", 40).replace("o", "ω", 40)


_KINDS: dict[str, tuple[Callable[[bytes], bytes], str]] = {
    "xz": (lzma.compress, "xz-compressed: decompress it first"),
    "bzip2": (bz2.compress, "bzip2-compressed: decompress it first"),
    "tar": (_tar, "a tar archive: extract the recording from it first"),
    "tar.gz": (lambda d: gzip.compress(_tar(d)), "its gzip content is a tar archive: extract"),
    "zip.gz": (lambda d: gzip.compress(_zip(d)), "its gzip content is a zip archive"),
    "gzip twice": (lambda d: gzip.compress(gzip.compress(d)), "its gzip content is gzip again"),
    "db.gz": (lambda _: gzip.compress(_DB.read_bytes()), "its gzip content is a SQLite database"),
    "pickle": (lambda d: pickle.dumps(d.decode("utf-8").splitlines()), "a Python pickle"),
    "utf-16 with its mark": (lambda d: d.decode("utf-8").encode("utf-16"), "UTF-16 text"),
    "utf-16-le": (lambda d: d.decode("utf-8").encode("utf-16-le"), "UTF-16 text"),
    "utf-16-be": (lambda d: d.decode("utf-8").encode("utf-16-be"), "UTF-16 text"),
    # text in other scripts (no NUL beside each character): it was "not UTF-8 text (byte 0xe9)"
    "utf-16-le, not ASCII": (lambda d: _other_script(d).encode("utf-16-le"), "UTF-16 text"),
    "utf-16-be, not ASCII": (lambda d: _other_script(d).encode("utf-16-be"), "UTF-16 text"),
    "utf-32 with its mark": (lambda d: d.decode("utf-8").encode("utf-32"), "UTF-32 text"),
    "utf-32-le": (lambda d: d.decode("utf-8").encode("utf-32-le"), "UTF-32 text"),
    "utf-32-be": (lambda d: _other_script(d).encode("utf-32-be"), "UTF-32 text"),
    "numpy": (_numpy, "a NumPy array file, not a recorded run"),
    "program": (lambda _: Path(sys.executable).resolve().read_bytes()[:65536], "a program"),
    "windows program": (lambda _: _SETUPTOOLS_EXE.read_bytes(), "a program (Windows)"),
}


@pytest.mark.parametrize("kind", list(_KINDS))
def test_a_file_of_another_kind_is_refused_for_what_it_is(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: exit 2, one line naming the file and saying what it is (and what to do). A zip, a
    SQLite database or gzip inside gzip (the workbench reads them only as files) was refused as
    "not UTF-8 text (byte 0x93)"."""
    make, said = _KINDS[kind]
    path = tmp_path / "session.jsonl"
    path.write_bytes(make(_SESSION.read_bytes()))
    assert main(["boundaries", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert str(path) in err and said in err, err


def test_a_file_of_another_kind_from_a_pipe_is_refused_for_what_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pipe is read whole before it is looked at: the same refusal (R35). The data is in the
    pipe before the load opens it (a writer thread raced the load on a busy machine, which
    then read a pipe with no writer yet: empty)."""
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    data = lzma.compress(_SESSION.read_bytes())
    assert len(data) < 60_000  # fits the pipe's buffer: written whole before the load reads
    holder = os.open(pipe, os.O_RDONLY | os.O_NONBLOCK)  # keeps the pipe's data alive
    try:
        writer = os.open(pipe, os.O_WRONLY)
        os.write(writer, data)
        os.close(writer)
        assert main(["boundaries", str(pipe)]) == 2
    finally:
        os.close(holder)
    assert "xz-compressed" in capsys.readouterr().err


def test_no_fixture_recording_is_taken_for_another_kind() -> None:
    """Every recording the project holds (text, gzip, zip, SQLite: their first 4 KB, as the
    loader reads them) is told as none of those kinds, so none is refused by it."""
    checked = 0
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and not path.name.startswith(("SOURCE", "LICENSE", "README")):
            with open(path, "rb") as handle:
                assert foreign_kind(handle.read(4096)) is None, path
            checked += 1
    assert checked > 200
