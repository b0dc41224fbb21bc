"""Fault variants (SPEC R32): injection, generation counts, names, validity, export alone."""

from __future__ import annotations

import json
from math import comb
from pathlib import Path
from typing import Any

import pytest

from helpers.paths import BILLING
from helpers.suites import tool_responses
from workbench import Fault, Suite, inject, load_runs, promote, replay, toggle_error, validate_suite
from workbench._suite.model import task_tool_responses
from workbench._sweep.variants import (
    DEFAULT_PAYLOAD,
    pair_variants,
    single_fault_variants,
    tool_variants,
)


@pytest.fixture(scope="module")
def billing() -> Suite:
    return promote(load_runs(BILLING)).suite


def two_task_suite() -> Suite:
    def task(task_id: str) -> dict[str, Any]:
        return {
            "taskId": task_id,
            "input": {"script": [{"tool": "a", "args": {}}, {"tool": "b", "args": {}}]},
            "expected": {"kind": "golden", "match": {"strategy": "exact", "value": "x"}},
            "fixtures": {
                "toolResponses": [
                    {"tool": "a", "args": {}, "response": {"content": []}},
                    {"tool": "b", "args": {}, "response": {"content": []}},
                ]
            },
        }

    return Suite(
        {"suiteId": "t.x.evals.two", "version": "1.0.0", "modes": ["golden"],
         "tasks": [task("one"), task("two")]}
    )  # fmt: skip


def test_hard_fault_fails_the_entry_and_three_identical_copies(billing: Suite) -> None:
    """R32: hard = the entry fails and 3 more isError copies follow it."""
    variant = inject(billing, [Fault("run", 2, "hard")])
    before, after = tool_responses(billing), tool_responses(variant)
    assert len(after) == len(before) + 3
    for entry in after[2:6]:
        assert entry["isError"] is True
        assert entry["tool"] == before[2]["tool"] and entry["args"] == before[2]["args"]
        assert entry["response"] == DEFAULT_PAYLOAD
    assert after[6:] == before[3:]
    assert after[:2] == before[:2]


def test_hard_repeats_is_configurable(billing: Suite) -> None:
    """R32: the number of extra failing copies is configurable."""
    variant = inject(billing, [Fault("run", 2, "hard")], hard_repeats=1)
    assert len(tool_responses(variant)) == len(tool_responses(billing)) + 1


def test_transient_fault_inserts_one_failure_before_the_recorded_entry(billing: Suite) -> None:
    """R32: transient = fails once, then the recorded response."""
    variant = inject(billing, [Fault("run", 7, "transient")])
    after = tool_responses(variant)
    assert after[7]["isError"] is True and after[7]["response"] == DEFAULT_PAYLOAD
    assert after[8] == tool_responses(billing)[7]
    assert len(after) == len(tool_responses(billing)) + 1


def test_flip_sets_is_error_on_the_recorded_entry_only(billing: Suite) -> None:
    """R32: flip = just isError: true on that entry, the recorded payload kept."""
    variant = inject(billing, [Fault("run", 5, "flip")])
    after = tool_responses(variant)
    assert after[5] == {**tool_responses(billing)[5], "isError": True}
    assert len(after) == len(tool_responses(billing))


def test_inject_leaves_the_baseline_unchanged(billing: Suite) -> None:
    """R32: a variant is derived; the baseline suite is never modified."""
    text = billing.to_json()
    inject(billing, [Fault("run", 0, "hard"), Fault("run", 11, "transient")])
    single_fault_variants(billing, ["hard", "transient", "flip"])
    assert billing.to_json() == text


def test_pair_faults_apply_at_their_recorded_boundaries(billing: Suite) -> None:
    """R32: two faults in one variant each land on their own boundary."""
    variant = inject(billing, [Fault("run", 3, "hard"), Fault("run", 11, "transient")])
    after = tool_responses(variant)
    assert len(after) == len(tool_responses(billing)) + 4
    assert after[14]["isError"] is True and after[15] == tool_responses(billing)[11]


def test_variant_carries_its_faults_as_a_root_x_variant_member(billing: Suite) -> None:
    """R32: the variant names itself and its faults on the suite."""
    variant = inject(billing, [Fault("run", 7, "hard")])
    assert variant.data["x-variant"] == {
        "name": "b07-hard",
        "faults": [{"taskId": "run", "boundary": 7, "kind": "hard"}],
        "hardRepeats": 3,
    }


def test_single_fault_variants_count_is_boundaries_times_kinds(billing: Suite) -> None:
    """R32: every boundary once, per kind."""
    n = len(tool_responses(billing))
    for kinds in (["hard"], ["hard", "transient"], ["hard", "transient", "flip"]):
        assert len(single_fault_variants(billing, kinds)) == n * len(kinds)


def test_pair_variants_count_is_n_choose_2_times_kinds(billing: Suite) -> None:
    """R32: all pairs of boundaries, per kind."""
    n = len(tool_responses(billing))
    assert len(pair_variants(billing, ["hard", "transient"])) == comb(n, 2) * 2
    chosen = pair_variants(billing, ["flip"], pairs=[(3, 11), (0, 1)])
    assert [v.name for v in chosen] == ["b03+b11-flip", "b00+b01-flip"]


def test_tool_variants_fault_every_call_of_the_tool_once_per_kind(billing: Suite) -> None:
    """R32: every call of one tool, one variant per kind."""
    calls = [i for i, e in enumerate(tool_responses(billing)) if e["tool"] == "billing:get-invoice"]
    assert len(calls) == 2
    found = tool_variants(billing, "billing:get-invoice", ["hard", "flip"])
    assert [v.name for v in found] == [
        "tool:billing:get-invoice-hard",
        "tool:billing:get-invoice-flip",
    ]
    for variant in found:
        assert variant.boundaries == tuple(calls)
    with pytest.raises(ValueError, match="no task calls tool 'nope'"):
        tool_variants(billing, "nope")


def test_variant_names_are_readable(billing: Suite) -> None:
    """R32: names like b07-hard, b03+b11-transient, tool:billing:lookup-flip."""
    names = [v.name for v in single_fault_variants(billing, ["hard", "transient"])]
    assert names[:4] == ["b00-hard", "b00-transient", "b01-hard", "b01-transient"]
    assert "b07-hard" in names
    assert [v.name for v in pair_variants(billing, ["transient"], pairs=[(3, 11)])] == [
        "b03+b11-transient"
    ]
    assert tool_variants(billing, "billing:lookup", ["flip"])[0].name == "tool:billing:lookup-flip"


def test_every_variant_is_valid_against_the_extension_schema(billing: Suite) -> None:
    """R32, R5: each variant is itself a valid suite (x-variant allowed by the extension)."""
    kinds = ["hard", "transient", "flip"]
    variants = [
        *single_fault_variants(billing, kinds),
        *pair_variants(billing, kinds, pairs=[(0, 11), (3, 4)]),
        *tool_variants(billing, "billing:get-invoice", kinds),
    ]
    for variant in variants:
        assert validate_suite(variant.suite.data) == [], variant.name
        assert variant.suite.data["x-variant"]["name"] == variant.name


def test_a_variant_exported_alone_replays_the_same(billing: Suite, tmp_path: Path) -> None:
    """R32: a variant is a suite that can be exported and replayed on its own."""
    variant = single_fault_variants(billing, ["transient"])[4]
    path = tmp_path / "variant.json"
    variant.suite.save(path)
    loaded = Suite.load(path)
    assert loaded.to_json() == variant.suite.to_json()
    direct = replay(variant.suite, events=False)
    again = replay(loaded)
    assert again.passed and direct.passed
    assert [r.trajectory for r in again.tasks[0].trials] == [
        r.trajectory for r in direct.tasks[0].trials
    ]
    assert again.tasks[0].trials[0].errors_served == 2  # the recorded one + the injected one


def test_multi_task_variant_holds_only_its_task_and_is_prefixed() -> None:
    """R32 (API): in a multi-task suite a variant holds the task it changes, named <taskId>/."""
    suite = two_task_suite()
    found = single_fault_variants(suite, ["hard"])
    assert [v.name for v in found] == [
        "one/b00-hard",
        "one/b01-hard",
        "two/b00-hard",
        "two/b01-hard",
    ]
    for variant in found:
        assert [t["taskId"] for t in variant.suite.tasks] == [variant.task_id]
        assert validate_suite(variant.suite.data) == []


def test_inject_refuses_bad_faults(billing: Suite) -> None:
    """Bad input gets a clear error naming the task and boundary."""
    with pytest.raises(ValueError, match="boundary 12 out of range"):
        inject(billing, [Fault("run", 12, "hard")])
    with pytest.raises(ValueError, match="two faults on boundary 3"):
        inject(billing, [Fault("run", 3, "hard"), Fault("run", 3, "flip")])
    with pytest.raises(KeyError, match="no task 'other'"):
        inject(billing, [Fault("other", 0, "hard")])
    with pytest.raises(ValueError, match="unknown fault kind 'soft'"):
        single_fault_variants(billing, ["soft"])


def test_custom_payload_is_served_as_the_failure(billing: Suite) -> None:
    """R32: the injected payload is configurable; a string becomes MCP text content."""
    variant = inject(billing, [Fault("run", 0, "transient")], payload="rate limited")
    assert tool_responses(variant)[0]["response"] == {
        "content": [{"type": "text", "text": "rate limited"}]
    }
    result = replay(variant, events=False)
    assert result.tasks[0].trials[0].calls[0].error == "rate limited"


def test_toggle_error_flips_one_entry_and_back(billing: Suite) -> None:
    """The widget's toggle: isError on, then off again (member removed, R5 default false)."""
    on = toggle_error(billing, "run", 5)
    assert tool_responses(on)[5]["isError"] is True
    off = toggle_error(on, "run", 5)
    assert "isError" not in tool_responses(off)[5]
    assert json.loads(off.to_json())["tasks"] == json.loads(billing.to_json())["tasks"]
    assert "isError" not in tool_responses(billing)[5]


def test_toggle_error_leaves_the_input_unchanged_and_shares_what_it_does_not_change() -> None:
    """R32/R5: toggle_error is copy-on-write like inject: the input suite's bytes are unchanged,
    only the path to the flipped entry is new, every other task and entry is shared."""
    suite = two_task_suite()
    before = suite.to_json()
    on = toggle_error(suite, "two", 1)
    assert suite.to_json() == before
    assert "isError" not in task_tool_responses(suite.tasks[1])[1]
    assert task_tool_responses(on.tasks[1])[1]["isError"] is True
    # The untouched task, the untouched entry and the entry's members are the input's objects.
    assert on.tasks[0] is suite.tasks[0]
    assert task_tool_responses(on.tasks[1])[0] is task_tool_responses(suite.tasks[1])[0]
    assert on.tasks[1]["input"] is suite.tasks[1]["input"]
    flipped = task_tool_responses(on.tasks[1])[1]
    assert flipped["response"] is task_tool_responses(suite.tasks[1])[1]["response"]
    # The new path is new.
    assert on.data is not suite.data and on.tasks is not suite.tasks
    assert on.tasks[1] is not suite.tasks[1]
    assert on.tasks[1]["fixtures"] is not suite.tasks[1]["fixtures"]
    # Flipping back leaves the once-flipped suite as it was, too.
    flipped_json = on.to_json()
    off = toggle_error(on, "two", 1)
    assert on.to_json() == flipped_json
    assert off.to_json() == before


def test_toggle_error_refuses_bad_boundaries_and_tasks(billing: Suite) -> None:
    """Bad input gets a clear error naming the task and boundary."""
    with pytest.raises(ValueError, match="task 'run': boundary 12 out of range"):
        toggle_error(billing, "run", 12)
    with pytest.raises(ValueError, match="boundary -1 out of range"):
        toggle_error(billing, "run", -1)
    with pytest.raises(KeyError, match="no task 'other'"):
        toggle_error(billing, "other", 0)
