"""A zip member that Inspect AI compressed with Zstandard (zip method 93), as it writes ``.eval``
logs since 0.3.206, read within the size the archive's directory declares (R35)."""

from __future__ import annotations

import zipfile

__all__ = ["ZIP_ZSTANDARD", "zstd_member"]

ZIP_ZSTANDARD = 93
"""The zip method number of Zstandard (APPNOTE 4.4.5)."""


def zstd_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """A Zstandard-compressed member (what Inspect AI writes since 0.3.206), which the
    standard library's ``zipfile`` reads only from Python 3.14: its raw bytes, decompressed
    within the size limit and checked against the member's CRC-32."""
    import zlib

    import zstandard

    if info.flag_bits & 0x1:
        raise RuntimeError("the member is encrypted")
    handle = archive.fp
    if handle is None:
        raise ValueError("the archive is closed")
    handle.seek(info.header_offset)
    header = handle.read(30)
    if len(header) != 30 or header[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile("bad local file header")
    name_length = int.from_bytes(header[26:28], "little")
    extra_length = int.from_bytes(header[28:30], "little")
    handle.seek(info.header_offset + 30 + name_length + extra_length)
    raw = handle.read(info.compress_size)
    if len(raw) != info.compress_size:
        raise EOFError("the member is cut short")
    declared = info.file_size  # (within the limit: the caller checked)
    pieces: list[bytes] = []
    size = 0
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(raw)
        while size <= declared and (piece := reader.read(declared + 1 - size)):
            pieces.append(piece)  # no more than one byte past the size the directory says
            size += len(piece)
    except zstandard.ZstdError as exc:
        raise ValueError(f"not a valid Zstandard stream ({exc})") from None
    if size != declared:  # a member that inflates past its size was read whole before
        raise zipfile.BadZipFile(
            f"it inflates to {'more' if size > declared else 'less'} than the {declared:,} "
            "bytes the archive's directory says"
        )
    data = b"".join(pieces)
    if zlib.crc32(data) != info.CRC:
        raise zipfile.BadZipFile("CRC-32 of the decompressed member does not match")
    return data
