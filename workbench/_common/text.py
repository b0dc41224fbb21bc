"""Words for people: counts with the right plural."""

from __future__ import annotations

__all__ = ["plural"]


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 boundary``, ``2 boundaries``: the count and the word in the right number (``many``:
    the plural when it is not ``word + "s"``)."""
    if count == 1:
        return f"1 {word}"
    return f"{count} {many if many is not None else word + 's'}"
