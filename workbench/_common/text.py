"""Words for people: counts with the right plural, and recorded text made safe to show."""

from __future__ import annotations

import math
import unicodedata
from typing import Any

__all__ = ["cut", "plural", "safe_text"]


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 boundary``, ``2 boundaries``: the count and the word in the right number (``many``:
    the plural when it is not ``word + "s"``)."""
    if count == 1:
        return f"1 {word}"
    return f"{count} {many if many is not None else word + 's'}"


def cut(text: str, limit: int) -> str:
    """``text`` of at most ``limit`` characters: a longer one cut, ending ``…`` (a name or value
    from a file can be megabytes long where it is shown or repeated)."""
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _unsafe_char(char: str) -> bool:
    code = ord(char)
    if code < 0x20 or 0x7F <= code <= 0x9F:
        return True  # C0 and C1 controls (ESC, BEL, NUL-free control sequences, newline, tab)
    if 0xD800 <= code <= 0xDFFF or code in (0xFFFE, 0xFFFF) or 0xFDD0 <= code <= 0xFDEF:
        return True  # surrogates and non-characters: not XML characters
    if (code & 0xFFFE) == 0xFFFE:
        return True  # the last two code points of every plane
    return unicodedata.category(char) in ("Zl", "Zp", "Cf")  # U+2028/9, bidi overrides, ...


def safe_text(text: Any) -> str:
    """Recorded text as a chart, table or terminal may show it: every control, separator,
    format (bidi override, zero-width) or non-XML character written as a visible escape
    (``\\x1b``, ``\\n``, ``\\u2028``), so a renderer never sees one and a reader sees what
    was there. Other text is kept as it is."""
    value = "" if text is None or (isinstance(text, float) and math.isnan(text)) else str(text)
    if value.isprintable():
        return value  # no control, format, separator, surrogate or unassigned character
    out = []
    for char in value:
        if char.isprintable() or not _unsafe_char(char):
            out.append(char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char == "\r":
            out.append("\\r")
        elif ord(char) < 0x100:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) < 0x10000:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return "".join(out)
