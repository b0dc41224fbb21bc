"""The branch tree of a sweep (SPEC R33): merged prefixes, counts, the baseline path."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from helpers.frames import records, rows
from helpers.paths import BILLING
from helpers.suites import three_boundary_suite
from workbench import SweepResult, branch_tree, sweep
from workbench._sweep.branches import BRANCH_COLUMNS


def check_counts(tree: pd.DataFrame, total: int) -> None:
    """Root count = total variant-trials; children sum to parent count minus ends there."""
    assert tree.iloc[0]["count"] == total
    assert tree["parent"].isna().sum() == 1
    for row in records(tree):
        children = tree[tree["parent"] == row["node"]]
        assert children["count"].sum() == row["count"] - row["endCount"], row["step"]
        assert children["passedCount"].sum() == row["passedCount"] - row["endPassed"], row["step"]
        assert 0 <= row["passedCount"] <= row["count"]
        assert (children["depth"] == row["depth"] + 1).all()
    assert tree["endCount"].sum() == total


def paths(result: SweepResult, tree: pd.DataFrame) -> dict[tuple[str, int], list[int]]:
    """Each variant-trial's nodes, found by walking its steps down the tree."""
    found: dict[tuple[str, int], list[int]] = {}
    for (name, _task, trial), steps in result.steps.items():
        if name == "baseline":
            continue
        node, path = 0, [0]
        for step in steps:
            kids = tree[
                (tree["parent"] == node)
                & (tree["tool"] == step.tool)
                & (tree["args"] == step.args_json)
                & (tree["isError"] == step.is_error)
            ]
            assert len(kids) == 1
            node = int(kids.iloc[0]["node"])
            path.append(node)
        found[(name, trial)] = path
    return found


def test_hand_built_tree_merges_common_prefixes() -> None:
    """R33: trajectories share nodes while their (tool, args, isError) steps agree."""
    result = sweep(three_boundary_suite(), progress=False)
    tree = result.branches()
    assert list(tree.columns) == list(BRANCH_COLUMNS)
    columns = ["depth", "step", "count", "passedCount", "endCount", "onBaseline"]
    got = rows(tree, columns)
    assert got == [
        (0, "start", 6, 3, 0, True),
        (1, "0 a", 4, 2, 0, True),
        (2, "1 b", 2, 2, 0, True),
        (3, "2 c", 0, 0, 0, True),
        (3, "2 c!", 2, 2, 2, False),
        (2, "1 b!", 2, 0, 2, False),
        (1, "0 a!", 2, 1, 0, False),
        (2, "1 a!", 1, 0, 1, False),
        (2, "1 a", 1, 1, 0, False),
        (3, "2 b", 1, 1, 0, False),
        (4, "3 c", 1, 1, 1, False),
    ]
    assert tree.iloc[4]["variants"] == "b02-hard,b02-transient"
    check_counts(tree, 6)


def test_each_variant_trial_is_counted_once_per_node_on_its_path() -> None:
    """R33: count = number of variant-trials whose path holds the node."""
    result = sweep(BILLING, kinds=["hard", "transient", "flip"], trials=2, progress=False)
    tree = result.branches()
    walked = paths(result, tree)
    expected = {int(n): 0 for n in tree["node"]}
    for path in walked.values():
        assert len(set(path)) == len(path)
        for node in path:
            expected[node] += 1
    assert dict(zip(tree["node"], tree["count"], strict=True)) == expected
    check_counts(tree, len(walked))


def test_the_baseline_is_one_path_and_divergence_is_where_variants_leave_it() -> None:
    """R33: onBaseline nodes form a single path; each variant leaves it at its divergence step."""
    result = sweep(BILLING, progress=False)
    tree = result.branches()
    on = tree[tree["onBaseline"]]
    assert list(on["depth"]) == list(range(len(on)))
    assert len(on) == 1 + len(result.steps[("baseline", "run", 0)])
    walked = paths(result, tree)
    baseline_nodes = set(on["node"])
    frame = result.frame.set_index("variant")
    for (name, _trial), path in walked.items():
        off = next((i for i, n in enumerate(path) if n not in baseline_nodes), None)
        divergence = frame.loc[name, "divergenceStep"]
        assert (off is None) == (divergence is pd.NA)
        if off is not None:
            assert off - 1 == divergence  # path[0] is the root, path[i] is step i - 1


def test_multi_task_tree_has_a_node_per_task_and_task_filter() -> None:
    """With several tasks the root's children are the tasks; task_id picks one task's tree."""
    suite = three_boundary_suite()
    second = {**suite.tasks[0], "taskId": "u"}
    suite.data["tasks"] = [suite.tasks[0], second]
    result = sweep(suite, progress=False)
    tree = branch_tree(result)
    kids = tree[tree["parent"] == 0]
    assert list(kids["step"]) == ["task t", "task u"]
    assert list(kids["count"]) == [6, 6]
    check_counts(tree, 12)
    only = result.branches("u")
    check_counts(only, 6)
    assert set(only["taskId"]) == {"u"}
    with pytest.raises(KeyError, match="no task 'v'"):
        result.branches("v")


def test_a_long_sweep_tree_is_bounded_and_its_counts_still_add_up(tmp_path: Path) -> None:
    """R33 at scale: a 300-call run's single-fault sweep (600 variants) gives a tree whose
    rows are bounded by the baseline path plus ``max_nodes`` plus one merged node per baseline
    node, transient branches that go back to the baseline end in one ``rejoin`` node, and the
    counts add up as in the full tree."""
    from workbench._load.loader import load_runs
    from workbench._load.synthetic import write_synthetic_log
    from workbench._promote.promote import promote
    from workbench._sweep.branches import RUN_MIN_STEPS

    path = tmp_path / "long.jsonl"
    write_synthetic_log(path, n_calls=300, error_every=0)
    suite = promote(load_runs(path), self_test=False).suite
    result = sweep(suite, progress=False)
    tree = result.branches(max_nodes=200)
    spine = int(tree["onBaseline"].sum())
    assert spine == 301
    assert len(tree) <= 2 * spine + 200
    check_counts(tree, 600)
    rejoins = tree[tree["kind"] == "rejoin"]
    assert len(rejoins) > 0 and (rejoins["span"] >= RUN_MIN_STEPS).all()
    assert set(tree["kind"]) <= {"start", "step", "rejoin", "other"}
    assert tree.iloc[0]["variantCount"] == 600
    assert len(tree.iloc[0]["variants"].split(",")) == 20
