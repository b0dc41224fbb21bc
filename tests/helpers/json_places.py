"""Every place in a decoded JSON value, for the tests that change a value somewhere in a real
recording and check that it loads what it can or is refused with places (R35)."""

from __future__ import annotations

from typing import Any


def value_paths(value: Any, here: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """The paths (keys and indexes) to ``value`` itself and to every value inside it."""
    out = [here]
    if isinstance(value, dict):
        for key, item in value.items():
            out += value_paths(item, (*here, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += value_paths(item, (*here, index))
    return out
