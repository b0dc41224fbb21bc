"""Golden expectations: the three RFC 0081 strategies on the agent's output (SPEC R26)."""

from __future__ import annotations

import json
from typing import Any, Final, get_args

from .._common.canonical import canonical_json, json_equal
from .._common.vocab import GoldenStrategy

__all__ = ["golden_match"]

_GOLDEN_STRATEGIES: Final[tuple[str, ...]] = get_args(GoldenStrategy)


def _stringify(value: Any) -> str:
    """A str as is; anything else as canonical JSON (sorted keys, compact, ``1.0`` as ``1``)."""
    if isinstance(value, str):
        return value
    return canonical_json(value)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _parse_json_text(text: str) -> tuple[bool, Any]:
    """Parse `text` as strict JSON (no NaN/Infinity); ``(False, None)`` when it is not JSON."""
    try:
        return True, json.loads(text, parse_constant=_reject_constant)
    except ValueError:  # json.JSONDecodeError, NaN, or an integer too long to convert
        return False, None


def golden_match(output: Any, strategy: GoldenStrategy, value: Any) -> bool:
    """Whether the agent's output meets a golden expectation (R26, RFC 0081 ``match``).

    Both sides are *stringified* the same way: a str as is, anything else as canonical JSON
    (sorted keys, compact separators, integral floats written as integers).

    - ``exact``: ``stringify(output) == stringify(value)``. So the output ``"42"`` equals the value
      ``42`` and ``{"b": 1, "a": 2}`` equals ``{"a": 2, "b": 1.0}``.
    - ``contains``: ``stringify(value)`` is a substring of ``stringify(output)``. Decision: when the
      output is a list, the match is also true when one element json-equals `value` (so the value
      ``{"b": 2, "a": 1.0}`` is found in ``[{"a": 1, "b": 2}]``, not a substring of its text).
    - ``json-match``: ``json_equal(output, value)``. Decision: when the output is a str that parses
      as JSON, the parsed value is compared too (agents often return JSON as text), so the output
      ``'{"a": 1}'`` json-matches ``{"a": 1}``; a plain string still json-matches an equal string.

    An output that is not a JSON value (or holds NaN) matches nothing rather than failing the
    grading; a `value` that is not a JSON value is a suite error and raises ValueError/TypeError.
    """
    if strategy not in _GOLDEN_STRATEGIES:
        raise ValueError(
            f"golden strategy must be one of {', '.join(map(repr, _GOLDEN_STRATEGIES))}, "
            f"got {strategy!r}"
        )
    expected_text = _stringify(value)
    try:
        output_text = _stringify(output)
    except (TypeError, ValueError):
        return False
    if strategy == "exact":
        return output_text == expected_text
    if strategy == "contains":
        if expected_text in output_text:
            return True
        return isinstance(output, list) and any(
            _json_equal_or_false(item, value) for item in output
        )
    # json-match
    if _json_equal_or_false(output, value):
        return True
    if isinstance(output, str):
        parsed_ok, parsed = _parse_json_text(output)
        return parsed_ok and _json_equal_or_false(parsed, value)
    return False


def _json_equal_or_false(output: Any, value: Any) -> bool:
    try:
        return json_equal(output, value)
    except (TypeError, ValueError):
        return False
