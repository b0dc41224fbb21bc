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
import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any, Final, Literal, cast, get_args

__all__ = [
    "ArgsMatch",
    "args_match",
    "canonical_json",
    "default_args_match",
    "jcs_text",
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


_SAFE_INTEGER = 2**53
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _jcs_float(number: float) -> str:
    """ECMAScript ``Number.prototype.toString`` of a finite double (RFC 8785 section 3.2.2.3).

    Python's ``repr`` gives the same shortest round-trip digits; only the layout differs
    (``1e-05`` is ``0.00001``, ``1e+21`` stays, ``1e-07`` is ``1e-7``).
    """
    if number == 0:
        return "0"
    _, digits_tuple, exponent = Decimal(repr(abs(number))).as_tuple()
    digits = "".join(map(str, digits_tuple)).rstrip("0")
    exponent = int(exponent) + len(digits_tuple) - len(digits)
    k = len(digits)
    n = exponent + k  # the value is 0.digits * 10**n
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * -n + digits
    else:
        power = n - 1
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        text = f"{mantissa}e{'+' if power >= 0 else '-'}{abs(power)}"
    return ("-" if number < 0 else "") + text


def _jcs_string(text: str) -> str:
    out = json.dumps(text, ensure_ascii=False)
    if _LONE_SURROGATE.search(out):  # ES2019 JSON.stringify escapes them; UTF-8 cannot hold them
        out = _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", out)
    return out


def _jcs(value: Any, parts: list[str]) -> None:
    if isinstance(value, str):
        parts.append(_jcs_string(value))
    elif value is None:
        parts.append("null")
    elif value is True:
        parts.append("true")
    elif value is False:
        parts.append("false")
    elif isinstance(value, int):
        inside = -_SAFE_INTEGER <= value <= _SAFE_INTEGER
        parts.append(str(int(value)) if inside else _jcs_float(float(value)))
    elif isinstance(value, float):
        parts.append(_jcs_float(value))
    elif isinstance(value, dict):
        parts.append("{")
        keys = sorted(value, key=lambda key: key.encode("utf-16-be", "surrogatepass"))
        for number, key in enumerate(keys):
            if number:
                parts.append(",")
            parts.append(_jcs_string(key))
            parts.append(":")
            _jcs(value[key], parts)
        parts.append("}")
    else:
        parts.append("[")
        for number, item in enumerate(value):
            if number:
                parts.append(",")
            _jcs(item, parts)
        parts.append("]")


def jcs_text(value: Any) -> str:
    """The RFC 8785 (JCS) text of a JSON value: what ``argsHash`` hashes (RFC 0064).

    Keys sorted by UTF-16 code units, numbers laid out as ECMAScript does (integral values as
    integers, ``0.00001``, ``1e-7``, ``1e+21``; integers beyond 2**53 as the double they read
    as), strings escaped as ``JSON.stringify`` does (lone surrogates as ``\\udxxx``).

    Raises:
        ValueError: NaN or an infinity (named by JSON path).
        TypeError: something that is not a JSON value, or a non-string key.
    """
    normalised = canonical_value(value)
    parts: list[str] = []
    _jcs(normalised, parts)
    return "".join(parts)


def canonical_value(value: Any) -> Any:
    """`value` checked as JSON, with integral floats as ints and tuples as lists.

    Raises as :func:`canonical_json` does.
    """
    try:
        return _normalise(value)
    except _PathError as err:
        raise err.exc_type(
            f"cannot write canonical JSON: {err.reason} at {_json_path(err.segments)}"
        ) from None


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
