"""Every place in a decoded JSON value, and a copy with values swapped at some of them, for
the tests that change a value somewhere in a real recording and check that it loads what it
can or is refused with places (R35)."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import strategies as st


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


_ONE_TO_THREE = st.integers(1, 3)


def with_values_swapped(
    value: Any,
    data: st.DataObject,
    values: st.SearchStrategy[Any],
    changes: st.SearchStrategy[int] | None = None,
) -> Any:
    """A deep copy of ``value`` with a value drawn from ``values`` put at a drawn place (never
    the root), as many times as ``changes`` draws (1 to 3 unless given; fewer, once no place
    is left)."""
    changed = copy.deepcopy(value)
    for _ in range(data.draw(changes if changes is not None else _ONE_TO_THREE)):
        places = value_paths(changed)[1:]
        if not places:
            break
        place = data.draw(st.sampled_from(places))
        holder = changed
        for key in place[:-1]:
            holder = holder[key]
        holder[place[-1]] = copy.deepcopy(data.draw(values))
    return changed
