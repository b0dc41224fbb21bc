"""Canonical JSON and fixture argument matching (SPEC R5, R12).

A fixture entry `{tool, args?, argsMatch?, ...}` (R5) is a candidate for a tool call when its tool
equals the call's tool and its `args` match the call's args under its `argsMatch` (R12):

- ``exact``: equal as canonical JSON, so key order does not matter and ``1`` equals ``1.0``;
  booleans stay distinct from numbers (``true`` is not ``1``);
- ``subset``: every key of the entry's args is present in the call with an equal value; objects are
  compared recursively the same way, arrays whole (``exact``); entry args that are not an object
  are compared ``exact``;
- ``any``: args are ignored.

Only JSON values are accepted: ``dict`` with ``str`` keys, ``list`` (or ``tuple``), ``str``,
``int``, finite ``float``, ``bool`` and ``None``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, Final, Literal, cast, get_args

__all__ = [
    "ArgsMatch",
    "args_match",
    "canonical_json",
    "default_args_match",
    "json_equal",
]

ArgsMatch = Literal["exact", "subset", "any"]
"""How fixture or trajectory args are compared (R5, R7, R12)."""

ARGS_MATCH_MODES: Final[tuple[str, ...]] = get_args(ArgsMatch)


class _PathError(Exception):
    """Internal: a bad value met while walking; carries the path segments back up the stack."""

    def __init__(self, exc_type: type[Exception], reason: str) -> None:
        super().__init__(reason)
        self.exc_type = exc_type
        self.reason = reason
        self.segments: list[str] = []


def _json_path(segments: list[str]) -> str:
    return "$" + "".join(reversed(segments))


def _normalise(value: Any) -> Any:
    """Return `value` with integral floats as ints (so ``-0.0`` becomes ``0``), tuples as lists."""
    if isinstance(value, str) or value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _PathError(ValueError, f"{value!r} is not a JSON number")
        return int(value) if value.is_integer() else value
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise _PathError(TypeError, f"object key {key!r} is not a string")
            try:
                out[key] = _normalise(item)
            except _PathError as err:
                err.segments.append(f"[{json.dumps(key, ensure_ascii=False)}]")
                raise
        return out
    if isinstance(value, (list, tuple)):
        items: list[Any] = []
        for index, item in enumerate(value):
            try:
                items.append(_normalise(item))
            except _PathError as err:
                err.segments.append(f"[{index}]")
                raise
        return items
    raise _PathError(TypeError, f"{type(value).__name__} is not a JSON value")


def canonical_json(value: Any) -> str:
    """Return the canonical JSON text of `value` (R12).

    Sorted keys, compact separators, non-ASCII kept as is; integral floats are written as
    integers (``1.0`` and ``-0.0`` become ``1`` and ``0``) so numbers that are equal give the same
    text, while ``True`` stays ``true`` and never equals ``1``. Tuples are written as arrays.

    Raises:
        ValueError: `value` contains NaN or an infinity (named by JSON path, e.g. ``$["a"][2]``).
        TypeError: `value` contains something that is not a JSON value, or a non-string key.
    """
    try:
        normalised = _normalise(value)
    except _PathError as err:
        raise err.exc_type(
            f"cannot write canonical JSON: {err.reason} at {_json_path(err.segments)}"
        ) from None
    return json.dumps(
        normalised, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def _check_finite(number: float) -> None:
    if not math.isfinite(number):
        raise ValueError(f"cannot compare JSON values: {number!r} is not a JSON number")


def _equal(a: Any, b: Any) -> bool:
    """Structural JSON equality, equivalent to comparing canonical texts but without building them.

    Checked against `canonical_json` by a property test; it stops at the first difference. Plain
    loops rather than ``all(...)``: this is the replay host's hot path.
    """
    if isinstance(a, dict):
        if not isinstance(b, dict) or len(a) != len(b):
            return False
        for key, item in a.items():  # noqa: SIM110 - faster than all() over a generator
            if key not in b or not _equal(item, b[key]):
                return False
        return True
    if isinstance(a, str):
        return isinstance(b, str) and a == b
    if a is None or a is True or a is False:
        return a is b
    if isinstance(a, (int, float)):
        if isinstance(a, float):
            _check_finite(a)
        if isinstance(b, float):
            _check_finite(b)
        elif b is True or b is False or not isinstance(b, int):
            return False
        return bool(a == b)
    if isinstance(a, (list, tuple)):
        if not isinstance(b, (list, tuple)) or len(a) != len(b):
            return False
        for item_a, item_b in zip(a, b, strict=True):  # noqa: SIM110 - see above
            if not _equal(item_a, item_b):
                return False
        return True
    raise TypeError(f"cannot compare JSON values: {type(a).__name__} is not a JSON value")


def json_equal(a: Any, b: Any) -> bool:
    """Whether `a` and `b` are equal as canonical JSON (R12 ``exact``).

    Key order does not matter, ``1 == 1.0``, ``True != 1``, arrays are ordered. Same answer as
    ``canonical_json(a) == canonical_json(b)``, computed by a walk that stops at the first
    difference. Raises ValueError for NaN or an infinity met during the walk, TypeError for a
    non-JSON value met during the walk.
    """
    return _equal(a, b)


def _subset(pattern: Any, actual: Any) -> bool:
    if isinstance(pattern, dict):
        if not isinstance(actual, dict):
            return False
        for key, item in pattern.items():
            if key not in actual or not _subset(item, actual[key]):
                return False
        return True
    return _equal(pattern, actual)


def _check_mode(mode: str) -> None:
    if mode not in ARGS_MATCH_MODES:
        raise ValueError(
            f"argsMatch must be one of {', '.join(map(repr, ARGS_MATCH_MODES))}, got {mode!r}"
        )


def args_match(entry_args: Any, call_args: Any, mode: ArgsMatch) -> bool:
    """Whether a call's args match an entry's (or expected call's) args under `mode` (R12).

    `entry_args` is the pattern (the fixture entry's or the expected call's args), `call_args` the
    args the agent sent. ``subset``: every key of the pattern is in the call with a matching
    value, nested objects recursively, arrays and scalars compared whole as in ``exact``; a
    pattern that is not an object is compared ``exact``. ``any`` is always true.
    """
    if mode == "exact":
        return _equal(entry_args, call_args)
    if mode == "subset":
        return _subset(entry_args, call_args)
    if mode == "any":
        return True
    _check_mode(mode)
    raise AssertionError("unreachable")  # pragma: no cover


def default_args_match(entry: Mapping[str, Any]) -> ArgsMatch:
    """The `argsMatch` that applies to a fixture entry (R5).

    The entry's own ``argsMatch`` when present; otherwise ``"exact"`` when the entry has an
    ``args`` member (even ``null``) and ``"any"`` when it has none.

    Raises:
        ValueError: the entry's ``argsMatch`` is not ``exact``, ``subset`` or ``any``.
    """
    if "argsMatch" in entry:
        mode = entry["argsMatch"]
        if not isinstance(mode, str):
            raise ValueError(f"argsMatch must be a string, got {mode!r}")
        _check_mode(mode)
        return cast(ArgsMatch, mode)
    return "exact" if "args" in entry else "any"
