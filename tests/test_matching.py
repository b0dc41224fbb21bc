"""Canonical JSON and fixture args matching (SPEC R5, R12)."""

from __future__ import annotations

import json
import math
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench._common.canonical import args_match, canonical_json, default_args_match, json_equal

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**60), max_value=2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=20,
)


def _shuffled_keys(value: Any, rng: random.Random) -> Any:
    """The same JSON value with every object's keys in a different order."""
    if isinstance(value, dict):
        keys = list(value)
        rng.shuffle(keys)
        return {key: _shuffled_keys(value[key], rng) for key in keys}
    if isinstance(value, list):
        return [_shuffled_keys(item, rng) for item in value]
    return value


def _ints_as_floats(value: Any) -> Any:
    """The same JSON value with every (small enough) int written as a float."""
    if isinstance(value, dict):
        return {key: _ints_as_floats(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_ints_as_floats(item) for item in value]
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 2**53:
        return float(value)
    return value


# ---------------------------------------------------------------------------------------------
# canonical JSON


def test_canonical_json_ignores_key_order_and_int_float_spelling() -> None:
    """R12: key order and ``1`` vs ``1.0`` do not matter to canonical JSON."""
    assert canonical_json({"b": 1.0, "a": [2, -0.0]}) == canonical_json({"a": [2.0, 0], "b": 1})
    assert canonical_json({"b": 1.0, "a": [2, -0.0]}) == '{"a":[2,0],"b":1}'


def test_canonical_json_keeps_true_distinct_from_one() -> None:
    """R12: a boolean is never a number, so ``true`` does not equal ``1`` (nor ``false`` ``0``)."""
    assert canonical_json(True) == "true"
    assert canonical_json([True, 1, False, 0]) == "[true,1,false,0]"
    assert canonical_json({"x": True}) != canonical_json({"x": 1})
    assert canonical_json({"x": False}) != canonical_json({"x": 0.0})


def test_canonical_json_keeps_non_integral_floats_and_unicode() -> None:
    """Canonical text is compact, sorted and not ASCII-escaped; 1.5 stays 1.5."""
    assert canonical_json({"z": 1.5, "é": "ü", "a": None}) == '{"a":null,"z":1.5,"é":"ü"}'


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_canonical_json_refuses_nan_and_infinity_naming_the_path(bad: float) -> None:
    """NaN and infinities are not JSON: a clear ValueError names where they are."""
    with pytest.raises(ValueError, match=r"not a JSON number at \$\[\"a\"\]\[1\]"):
        canonical_json({"a": [1, bad]})


def test_canonical_json_refuses_non_json_values() -> None:
    """A set or a non-string key is not JSON: TypeError naming the value."""
    with pytest.raises(TypeError, match="set is not a JSON value"):
        canonical_json({"a": {1, 2}})
    with pytest.raises(TypeError, match="object key 1 is not a string"):
        canonical_json({1: "x"})


@given(json_values)
def test_canonical_json_parses_back_to_an_equal_value(value: Any) -> None:
    """The canonical text is JSON that reads back as the same value (R12)."""
    assert json_equal(json.loads(canonical_json(value)), value)


# ---------------------------------------------------------------------------------------------
# json_equal


@given(json_values)
def test_json_equal_holds_across_a_json_roundtrip(value: Any) -> None:
    """R12: writing a value as JSON and reading it back gives an equal value."""
    assert json_equal(value, json.loads(json.dumps(value)))


@given(json_values, st.randoms(use_true_random=False))
def test_json_equal_ignores_key_order_and_int_spelling(value: Any, rng: random.Random) -> None:
    """R12: reordered keys and ints written as floats are still equal."""
    other = _ints_as_floats(_shuffled_keys(value, rng))
    assert json_equal(value, other)
    assert json_equal(other, value)


@given(json_values, json_values)
def test_json_equal_agrees_with_canonical_text(a: Any, b: Any) -> None:
    """json_equal is a shortcut for comparing canonical texts; it must give the same answer."""
    assert json_equal(a, b) == (canonical_json(a) == canonical_json(b))
    assert json_equal(a, b) == json_equal(b, a)


@given(json_values, st.randoms(use_true_random=False))
def test_json_equal_agrees_with_canonical_text_on_near_copies(
    value: Any, rng: random.Random
) -> None:
    """Same check on pairs that are equal or nearly so, where a wrong shortcut would show."""
    other = _ints_as_floats(_shuffled_keys(value, rng))
    assert json_equal(value, other) == (canonical_json(value) == canonical_json(other))
    wrapped = [value, True]
    wrapped_other = [other, 1]
    assert not json_equal(wrapped, wrapped_other)
    assert canonical_json(wrapped) != canonical_json(wrapped_other)


def test_json_equal_treats_bool_and_number_as_different() -> None:
    """R12: ``True`` is not ``1``, ``False`` is not ``0`` or ``0.0``, at any depth."""
    assert not json_equal(True, 1)
    assert not json_equal(1, True)
    assert not json_equal(False, 0.0)
    assert not json_equal({"a": [True]}, {"a": [1]})
    assert json_equal({"a": [True]}, {"a": [True]})


def test_json_equal_compares_arrays_in_order_and_distinguishes_null() -> None:
    """Arrays are ordered; null is neither missing nor false nor an empty string."""
    assert not json_equal([1, 2], [2, 1])
    assert not json_equal(None, False)
    assert not json_equal({"a": None}, {})
    assert not json_equal("1", 1)
    assert json_equal((1, 2), [1.0, 2.0])


def test_json_equal_keeps_large_ints_exact() -> None:
    """2**53 + 1 is not the float 2**53: equality is exact, as the canonical texts are."""
    assert not json_equal(2**53 + 1, float(2**53))
    assert json_equal(2**53, float(2**53))


def test_json_equal_refuses_nan() -> None:
    """A NaN met while comparing is an error, never silently equal or unequal."""
    with pytest.raises(ValueError, match="not a JSON number"):
        json_equal({"a": math.nan}, {"a": math.nan})


# ---------------------------------------------------------------------------------------------
# args_match


def test_exact_args_match_ignores_key_order_and_int_float_spelling() -> None:
    """R12 exact: equal as canonical JSON."""
    assert args_match({"id": 1, "q": "x"}, {"q": "x", "id": 1.0}, "exact")
    assert not args_match({"id": 1}, {"id": 1, "extra": 2}, "exact")
    assert not args_match({"flag": True}, {"flag": 1}, "exact")


def test_subset_args_match_needs_every_entry_key_with_an_equal_value() -> None:
    """R12 subset: every key of the entry's args is present in the call with an equal value."""
    entry = {"id": 1}
    assert args_match(entry, {"id": 1.0, "verbose": True}, "subset")
    assert not args_match(entry, {"id": 2, "verbose": True}, "subset")
    assert not args_match(entry, {"verbose": True}, "subset")
    assert args_match({}, {"anything": 1}, "subset")
    assert not args_match({}, [1], "subset")


def test_subset_args_match_recurses_into_objects() -> None:
    """R12 subset: nested objects are compared as subsets too."""
    entry = {"user": {"id": 7}}
    assert args_match(entry, {"user": {"id": 7, "name": "Ada"}, "page": 2}, "subset")
    assert not args_match(entry, {"user": {"id": 8, "name": "Ada"}}, "subset")
    assert not args_match(entry, {"user": 7}, "subset")


def test_subset_args_match_compares_arrays_whole() -> None:
    """R12 subset: arrays are compared whole, never element-wise subsets."""
    entry = {"ids": [1, 2]}
    assert args_match(entry, {"ids": [1, 2], "x": 0}, "subset")
    assert not args_match(entry, {"ids": [1, 2, 3]}, "subset")
    assert not args_match(entry, {"ids": [2, 1]}, "subset")
    assert not args_match({"rows": [{"a": 1}]}, {"rows": [{"a": 1, "b": 2}]}, "subset")


def test_subset_args_match_with_non_object_entry_args_is_exact() -> None:
    """R12 subset: entry args that are not an object fall back to exact equality."""
    assert args_match([1, 2], [1.0, 2], "subset")
    assert not args_match([1], [1, 2], "subset")
    assert args_match("q", "q", "subset")
    assert not args_match(None, {}, "subset")


def test_any_args_match_ignores_args() -> None:
    """R12 any: args are ignored."""
    assert args_match({"id": 1}, {"id": 2}, "any")
    assert args_match(None, "whatever", "any")


def test_args_match_refuses_an_unknown_mode() -> None:
    """R5: argsMatch is exact, subset or any; anything else is a clear error."""
    with pytest.raises(ValueError, match="argsMatch must be one of"):
        args_match({}, {}, "fuzzy")  # type: ignore[arg-type]


@given(json_values, json_values)
def test_exact_args_match_is_json_equal(a: Any, b: Any) -> None:
    """R12 exact is json_equal, in both directions."""
    assert args_match(a, b, "exact") == json_equal(a, b) == args_match(b, a, "exact")


@given(st.dictionaries(st.text(max_size=4), json_values, max_size=4), json_values)
def test_subset_args_match_accepts_any_superset_of_the_entry(
    entry: dict[str, Any], extra: Any
) -> None:
    """R12 subset: adding a key the entry does not name never breaks a match."""
    call = dict(entry)
    call["\x00extra"] = extra
    assert args_match(entry, call, "subset")
    assert args_match(entry, entry, "subset")


# ---------------------------------------------------------------------------------------------
# default_args_match


def test_default_args_match_is_exact_with_args_and_any_without() -> None:
    """R5: default argsMatch is exact when args are present (even null), any when absent."""
    assert default_args_match({"tool": "t", "args": {"a": 1}}) == "exact"
    assert default_args_match({"tool": "t", "args": None}) == "exact"
    assert default_args_match({"tool": "t"}) == "any"
    assert default_args_match({"tool": "t", "args": {}, "argsMatch": "subset"}) == "subset"
    assert default_args_match({"tool": "t", "argsMatch": "exact"}) == "exact"


def test_default_args_match_refuses_an_unknown_value() -> None:
    """R5: an argsMatch outside exact/subset/any is rejected with a clear message."""
    with pytest.raises(ValueError, match="'fuzzy'"):
        default_args_match({"tool": "t", "argsMatch": "fuzzy"})
    with pytest.raises(ValueError, match="must be a string"):
        default_args_match({"tool": "t", "argsMatch": 1})
