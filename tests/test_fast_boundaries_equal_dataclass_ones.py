"""The loaders' fast boundary builder gives the very boundary the dataclass gives (SPEC R2, R3).

``records.new_boundary`` (and the OpenWOP loop's inline copy of it) stores the slots of an object
of the same layout and then sets its class to ``ToolBoundary``. These tests pin that the result is
an ordinary, frozen, complete ``ToolBoundary``, and that the builder covers every field, so a
field added to the record cannot be left unset by the loaders.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any

import pytest

from workbench import ToolBoundary
from workbench._load.records import UNBUILT_BOUNDARY, new_boundary

VALUES: tuple[int, str, str, Any, Any, bool, str, str, int, str] = (
    3,
    "call-1",
    "crm:get",
    {"id": 1},
    {"content": []},
    True,
    "E1",
    "boom",
    12,
    "agent",
)


def test_new_boundary_equals_the_dataclass_built_from_the_same_values() -> None:
    """R2: same fields, same values, same type; frozen like any other boundary."""
    fast = new_boundary(*VALUES, "log.jsonl:7", {"x": 1})
    slow = ToolBoundary(*VALUES, location="log.jsonl:7", extra={"x": 1})
    assert type(fast) is ToolBoundary
    assert fast == slow
    assert repr(fast) == repr(slow)
    assert pickle.loads(pickle.dumps(fast)) == slow
    assert copy.deepcopy(fast) == slow
    assert dataclasses.asdict(fast) == dataclasses.asdict(slow)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.index = 4  # type: ignore[misc]


def test_the_builder_has_exactly_the_records_fields_in_order() -> None:
    """Every field of ``ToolBoundary`` is a parameter of the builder, in the same order."""
    names = [field.name for field in dataclasses.fields(ToolBoundary)]
    assert list(UNBUILT_BOUNDARY.__slots__) == names
    code = UNBUILT_BOUNDARY.__init__.__code__
    assert list(code.co_varnames[1 : code.co_argcount]) == names
