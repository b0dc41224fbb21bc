"""AWS event-stream frames written and taken apart, for tests that change them (R35).

A frame is its total length and its headers' length (4 bytes each, big-endian), a CRC-32 of
those eight bytes, the headers, the payload and a CRC-32 of everything before it. A header is
its name's length (one byte), its name, its value's type (one byte: 7 a string) and, for a
string, two bytes of length and the text. These helpers write frames as AWS does, or with a
length or checksum given wrong on purpose.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

__all__ = ["Frame", "frame_bytes", "frames_of", "string_header"]


@dataclass
class Frame:
    """One frame's headers (their bytes as written) and payload."""

    headers: bytes
    payload: bytes


def frames_of(data: bytes) -> list[Frame]:
    """The frames of a whole event stream (the checks are the reader's, not these)."""
    out = []
    at = 0
    while at < len(data):
        total = int.from_bytes(data[at : at + 4], "big")
        size = int.from_bytes(data[at + 4 : at + 8], "big")
        out.append(Frame(data[at + 12 : at + 12 + size], data[at + 12 + size : at + total - 4]))
        at += total
    return out


def frame_bytes(
    frame: Frame,
    *,
    total: int | None = None,
    headers_length: int | None = None,
    prelude_crc_off: int = 0,
    crc_off: int = 0,
) -> bytes:
    """``frame`` written as AWS writes it; ``total`` and ``headers_length`` (the prelude's
    counts) and the checksums (``*_off`` added to each, modulo 2**32) as given instead."""
    if total is None:
        total = 12 + len(frame.headers) + len(frame.payload) + 4
    if headers_length is None:
        headers_length = len(frame.headers)
    counts = (total % 2**32).to_bytes(4, "big") + (headers_length % 2**32).to_bytes(4, "big")
    prelude = counts + ((zlib.crc32(counts) + prelude_crc_off) % 2**32).to_bytes(4, "big")
    body = prelude + frame.headers + frame.payload
    return body + ((zlib.crc32(body) + crc_off) % 2**32).to_bytes(4, "big")


def string_header(name: bytes, value: bytes, kind: int = 7) -> bytes:
    """One header: a string (``kind`` 7) unless another type is given (its value's bytes
    then follow the type as given)."""
    if kind == 7:
        return bytes([len(name) % 256]) + name + bytes([7]) + len(value).to_bytes(2, "big") + value
    return bytes([len(name) % 256]) + name + bytes([kind]) + value
