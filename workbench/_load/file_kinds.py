"""Files that are no recording at all, told by their first bytes and refused for what they are
(SPEC R35).

An image, a PDF, a program or an archive given by mistake was refused as "not UTF-8 text" at a
byte of it; text saved as UTF-16 (PowerShell 5's ``>`` writes it) or UTF-32 the same. Their
first bytes say what they are, and the refusal says it, and what to do where there is something
to do.
"""

from __future__ import annotations

__all__ = ["foreign_kind", "gzip_content_kind"]

_STARTS: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "a PNG image, not a recorded run"),
    (b"\xff\xd8\xff", "a JPEG image, not a recorded run"),
    (b"GIF87a", "a GIF image, not a recorded run"),
    (b"GIF89a", "a GIF image, not a recorded run"),
    (b"%PDF-", "a PDF document, not a recorded run"),
    (b"\x7fELF", "a program (ELF), not a recorded run"),
    (b"\xcf\xfa\xed\xfe", "a program (Mach-O), not a recorded run"),
    (b"\xce\xfa\xed\xfe", "a program (Mach-O), not a recorded run"),
    (
        b"\xca\xfe\xba\xbe",
        "a program (a Mach-O universal binary or a Java class), not a recorded run",
    ),
    (b"MZ", "a program (Windows), not a recorded run"),
    (b"\x00asm", "a WebAssembly module, not a recorded run"),
    (b"PAR1", "a Parquet file, not a recorded run"),
    (b"\x93NUMPY", "a NumPy array file, not a recorded run"),
    (b"ARROW1", "an Arrow file, not a recorded run"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "an Office document, not a recorded run"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive: extract the recording from it first"),
    (b"Rar!\x1a\x07", "a RAR archive: extract the recording from it first"),
    (b"\xfd7zXZ\x00", "xz-compressed: decompress it first (xz -d; gzip is read as it is)"),
    (b"BZh", "bzip2-compressed: decompress it first (bunzip2; gzip is read as it is)"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed: decompress it first (zstd -d; gzip is read as it is)"),
)
"""First bytes of what a recording never starts with (a recording is UTF-8 text, gzip, a zip
``.eval`` or a SQLite database), and what they make the file."""

_PICKLE = (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05")


def foreign_kind(head: bytes) -> str | None:
    """What a file whose first bytes are ``head`` is (the refusal's words), when it is sure to
    be none the workbench reads as it is: its head is no text (a NUL, or bytes that are not
    UTF-8) and starts as one of those does."""
    if not _binary(head):
        return None
    for start, kind in _STARTS:
        if head.startswith(start):
            return kind
    if head.startswith(b"RIFF") and head[8:12] in (b"WEBP", b"WAVE", b"AVI "):
        return "a media file (RIFF), not a recorded run"
    if head[257:262] == b"ustar":
        return "a tar archive: extract the recording from it first"
    if head.startswith(_PICKLE):
        return "a Python pickle, not a recorded run (never unpickled: it could run code)"
    if (encoding := _wide_text(head)) is not None:
        return f"{encoding} text: save it as UTF-8 (JSON is read as UTF-8)"
    return None


_READ_ONLY_AS_FILES: tuple[tuple[bytes, str], ...] = (
    (b"PK\x03\x04", "a zip archive (an Inspect .eval is read as it is): decompress it first"),
    (b"SQLite format 3\x00", "a SQLite database (read as it is): decompress it first"),
    (b"\x1f\x8b", "gzip again: decompress it once first (one layer of gzip is read)"),
)
"""What the workbench reads only as a file of its own, never as a gzip file's content."""


def gzip_content_kind(content: bytes) -> str | None:
    """What a gzip file's (decompressed) content is, when it is none the workbench reads: one
    of :func:`foreign_kind`'s, or a zip archive, a SQLite database or gzip again."""
    for start, kind in _READ_ONLY_AS_FILES:
        if content.startswith(start):
            return kind
    return foreign_kind(content[:4096])


_WIDE_ENCODINGS: tuple[tuple[str, str, bytes, int], ...] = (
    ("UTF-32", "utf-32-le", b"\xff\xfe\x00\x00", 4),
    ("UTF-32", "utf-32-be", b"\x00\x00\xfe\xff", 4),
    ("UTF-16", "utf-16-le", b"\xff\xfe", 2),
    ("UTF-16", "utf-16-be", b"\xfe\xff", 2),
)
"""The encodings a recording may have been saved in by mistake (PowerShell 5's ``>`` writes
UTF-16; some editors offer UTF-32), each with its byte order mark and code unit, UTF-32's
first (its little-endian mark begins with UTF-16's)."""


def _wide_text(head: bytes) -> str | None:
    """The encoding (``"UTF-16"``, ``"UTF-32"``) of text saved in one, from the file's first
    bytes: with its byte order mark, or without, when the bytes decode in it as text. Text is
    what a recording is: it starts with JSON's or YAML's first characters (``{``, ``[``, a
    letter, ``-``, ``#``), holds no control character but tabs and line breaks, and at least a
    quarter of it is ASCII (JSON's brackets, quotes and names), in any script."""
    for name, codec, mark, unit in _WIDE_ENCODINGS:
        marked = head.startswith(mark)
        body = head[len(mark) :] if marked else head
        body = body[: len(body) - len(body) % unit]
        try:
            text = body.decode(codec)
        except UnicodeDecodeError as exc:  # a character the head cut, at its end only
            if exc.start < len(body) - 4:
                continue
            text = body[: exc.start].decode(codec)
        if marked and text[:1].isascii() and text[:1].isprintable():
            return name  # a mark and then text: no other file starts so
        if _looks_like_text(text):
            return name
    return None


def _looks_like_text(text: str) -> bool:
    start = text.lstrip(" \t\r\n")
    if len(start) < 4 or not (start[0] in "{[-#" or (start[0].isascii() and start[0].isalpha())):
        return False
    if any(not c.isprintable() and c not in "\t\r\n" for c in text):
        return False
    return 4 * sum(c.isascii() for c in text) >= len(text)


def _binary(head: bytes) -> bool:
    """Whether bytes are no UTF-8 text: a NUL, or a fault before the last character (which the
    head may have cut)."""
    if b"\x00" in head:
        return True
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start < len(head) - 3
    return False
