"""The branch tree of a sweep: trajectories merged on their common prefix (SPEC R33).

Each variant-trial's steps are a path from the root; two trajectories share nodes for as long as
their steps agree on ``(tool, args, isError)``. Every node counts the variant-trials passing
through it (each once) and how many of those ended passed, and the trials ending at it. The
baseline's trajectory is one path (``onBaseline``), present even where no variant follows it; a
variant's divergence step is where its path leaves the baseline's.

The tree is pruned and aggregated here, as data, so its rows stay bounded however many variants
a sweep has (a chart never sees more):

- a branch that goes back to doing exactly what the baseline did for its last
  :data:`RUN_MIN_STEPS` calls or more (a transient fault the agent retried past) ends in one
  ``rejoin`` node standing for those calls (``span``), instead of one node per call;
- past ``max_nodes`` nodes off the baseline path, the busiest branches are kept whole and the
  others leaving one baseline node are merged into one ``other`` node there.

Counts add up: the root's count is the number of variant-trials, and a node's children's counts
sum to its count minus the trials ending at it.

Longer than 400 lines: building, pruning and counting the tree are one pass over the same
nodes; the counts stay right only if the pruning sees how they were made.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol

from .._common.step import Step
from .._common.vocab import BASELINE

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["BRANCH_COLUMNS", "MAX_TREE_NODES", "RUN_MIN_STEPS", "SweepData", "branch_tree"]

RUN_MIN_STEPS: Final = 32
"""A branch whose last calls equal the baseline's last calls, this many or more, ends in one
``rejoin`` node."""
MAX_TREE_NODES: Final = 1000
"""Nodes off the baseline path :func:`branch_tree` keeps by default before merging branches."""
_MAX_NAMES: Final = 20
"""Variant names a node lists (its ``variantCount`` says how many there are)."""


class SweepData(Protocol):
    """What the branch tree reads of a sweep (a :class:`~workbench.SweepResult` has it all)."""

    @property
    def task_ids(self) -> Sequence[str]:
        """The tasks, in order."""
        ...

    @property
    def trials(self) -> int:
        """Trials per variant."""
        ...

    @property
    def steps(self) -> Mapping[tuple[str, str, int], Sequence[Step]]:
        """Each trial's steps by ``(variant, taskId, trial)``."""
        ...

    @property
    def frame(self) -> pd.DataFrame:
        """One row per variant x trial, with ``variant``, ``taskId``, ``trial``, ``passed``."""
        ...


BRANCH_COLUMNS: tuple[str, ...] = (
    "node", "parent", "depth", "step", "tool", "args", "isError", "servedBy", "count",
    "passedCount", "endCount", "endPassed", "onBaseline", "variants", "taskId", "kind", "span",
    "variantCount",
)  # fmt: skip
"""The columns of :func:`branch_tree`'s frame, in order."""


@dataclass(slots=True, eq=False)
class _Node:
    parent: _Node | None
    depth: int
    label: str
    task_id: str
    tool: str = ""
    args: str = ""
    is_error: bool = False
    served_by: str = ""
    kind: str = "step"
    span: int = 1
    children: dict[Any, _Node] = field(default_factory=dict)
    count: int = 0
    passed: int = 0
    end_count: int = 0
    end_passed: int = 0
    on_baseline: bool = False
    variants: dict[str, None] = field(default_factory=dict)
    more_variants: set[str] = field(default_factory=set)
    extra: int = 0
    """Variants through a baseline node beyond those named (counted, not listed)."""

    def child(self, key: Any, make: Any) -> _Node:
        node = self.children.get(key)
        if node is None:
            node = self.children[key] = make()
        return node

    def name(self, variant: str) -> None:
        if variant in self.variants or variant in self.more_variants:
            return
        if len(self.variants) < _MAX_NAMES:
            self.variants[variant] = None
        else:
            self.more_variants.add(variant)


def _step_node(parent: _Node, step: Step, index: int, task_id: str) -> _Node:
    return _Node(
        parent=parent,
        depth=parent.depth + 1,
        label=f"{index} {step.tool}{'!' if step.is_error else ''}",
        task_id=task_id,
        tool=step.tool,
        args=step.args_json,
        is_error=step.is_error,
        served_by=step.served_by,
    )


def _spine(start: _Node, steps: Sequence[Step], task_id: str) -> list[_Node]:
    path = [start]
    node = start
    for index, step in enumerate(steps):
        parent = node
        node = parent.child(
            step.key, lambda p=parent, s=step, i=index: _step_node(p, s, i, task_id)
        )
        node.on_baseline = True
        path.append(node)
    return path


def _parts(result: SweepData, key: tuple[str, str, int]) -> tuple[int, tuple[Step, ...], int]:
    found = getattr(result.steps, "parts", None)
    if found is not None:
        parts: tuple[int, tuple[Step, ...], int] = found(key)
        return parts
    return (0, tuple(result.steps[key]), -1)


def _canonical(
    base: Sequence[Step], prefix: int, own: tuple[Step, ...], rejoin: int
) -> tuple[int, tuple[Step, ...], int]:
    """A path as ``(divergence, own steps, rejoin)``: the baseline's first ``divergence`` steps,
    steps of its own, then (``rejoin`` >= 0) the baseline's last steps from ``rejoin``, taken as
    long as they go and only when there are :data:`RUN_MIN_STEPS` of them or more. The same
    trajectory gives the same parts however it was held."""
    skip = 0
    while (
        skip < len(own) and prefix + skip < len(base) and own[skip].key == base[prefix + skip].key
    ):
        skip += 1
    if rejoin >= 0 and skip == len(own) and prefix + skip == rejoin:
        return (len(base), (), -1)  # exactly the baseline
    start = prefix + skip
    own = own[skip:]
    if rejoin < 0:
        # A path held whole: its common suffix with the baseline (after the divergence).
        tail = 0
        limit = min(len(own), len(base) - start)
        while tail < limit and own[-1 - tail].key == base[len(base) - 1 - tail].key:
            tail += 1
        if tail:
            own, rejoin = own[: len(own) - tail], len(base) - tail
    else:
        while own and rejoin > start and own[-1].key == base[rejoin - 1].key:
            own, rejoin = own[:-1], rejoin - 1
    if rejoin >= 0 and len(base) - rejoin < RUN_MIN_STEPS:
        own, rejoin = (*own, *base[rejoin:]), -1
    return (start, own, rejoin)


def branch_tree(
    result: SweepData, task_id: str | None = None, *, max_nodes: int | None = MAX_TREE_NODES
) -> pd.DataFrame:
    """The branch tree of a sweep's variant-trials as a frame, one row per node (R33).

    ``task_id``: one task's tree; ``None``: every task's (with several tasks, the root's
    children are one node per task). ``max_nodes``: nodes off the baseline path kept before
    branches are merged (``None``: no limit). Columns :data:`BRANCH_COLUMNS`: ``node``
    (pre-order number, root 0), ``parent``, ``depth``, ``step`` (``3 billing:lookup!``: step
    number, tool, ``!`` for a failure), ``tool``, ``args`` (canonical JSON), ``isError``,
    ``servedBy``, ``count`` / ``passedCount`` (variant-trials through the node / of those,
    ended passed), ``endCount`` / ``endPassed`` (ending at the node), ``onBaseline``,
    ``variants`` (the first 20 names through the node, comma-joined), ``taskId``, ``kind``
    (``start``, ``task``, ``step``, ``rejoin``: the rest is the baseline's last ``span``
    calls, ``other``: merged branches), ``span`` (calls the node stands for) and
    ``variantCount`` (variants through the node).
    """
    import pandas as pd

    task_ids = list(result.task_ids)
    if task_id is not None:
        if task_id not in task_ids:
            raise KeyError(f"no task {task_id!r} in the sweep (tasks: {', '.join(task_ids)})")
        task_ids = [task_id]
    multi = len(task_ids) > 1
    root = _Node(parent=None, depth=0, label="start", task_id="" if multi else task_ids[0])
    root.on_baseline = True
    root.kind = "start"
    root.span = 0
    frame = result.frame
    # Each task's variant rows, found in one pass (a filter per task made a sweep of
    # thousands of tasks quadratic).
    variant_rows: dict[str, list[tuple[Any, Any, Any]]] = {tid: [] for tid in task_ids}
    others = frame[frame["variant"] != BASELINE]
    for row_task, name, trial, passed in zip(
        others["taskId"], others["variant"], others["trial"], others["passed"], strict=True
    ):
        found_rows = variant_rows.get(str(row_task))
        if found_rows is not None:
            found_rows.append((name, trial, passed))
    for tid in task_ids:
        start = root
        if multi:
            start = root.child(
                ("task", tid),
                lambda t=tid: _Node(
                    parent=root, depth=1, label=f"task {t}", task_id=t, kind="task", span=0
                ),
            )
            start.on_baseline = True
        bases: dict[int, tuple[Sequence[Step], list[_Node]]] = {}
        for trial in range(result.trials):
            steps = result.steps.get((BASELINE, tid, trial), ())
            bases[trial] = (steps, _spine(start, steps, tid))
        # Spine counts by difference arrays (a path holds spine nodes 0..divergence).
        spine_in: dict[int, list[int]] = {t: [0] * (len(p) + 1) for t, (_, p) in bases.items()}
        spine_ok: dict[int, list[int]] = {t: [0] * (len(p) + 1) for t, (_, p) in bases.items()}
        spine_names: dict[int, list[tuple[str, int]]] = {t: [] for t in bases}
        for name, trial, passed in variant_rows[tid]:
            name, trial, ok = str(name), int(trial), bool(passed)
            base, spine = bases.get(trial, ((), [start]))
            prefix, own, rejoin = _parts(result, (name, tid, trial))
            divergence, own, rejoin = _canonical(base, prefix, own, rejoin)
            spine_in[trial][divergence + 1] -= 1
            spine_in[trial][0] += 1
            spine_ok[trial][divergence + 1] -= ok
            spine_ok[trial][0] += ok
            spine_names[trial].append((name, divergence))
            node = spine[min(divergence, len(spine) - 1)]
            for index, step in enumerate(own, start=divergence):
                parent = node
                found = parent.children.get(step.key)
                if found is None:
                    found = parent.children[step.key] = _step_node(parent, step, index, tid)
                node = found
                node.count += 1
                node.passed += ok
                node.name(name)
            if rejoin >= 0:
                span = len(base) - rejoin
                parent = node
                key = ("rejoin", rejoin, span)
                found = parent.children.get(key)
                if found is None:
                    found = parent.children[key] = _Node(
                        parent=parent, depth=parent.depth + 1,
                        label=f"{divergence + len(own)} \u2026 then as the baseline from step "
                        f"{rejoin} ({span:,} calls)",
                        task_id=tid, tool="(as the baseline)", kind="rejoin", span=span,
                    )  # fmt: skip
                node = found
                node.count += 1
                node.passed += ok
                node.name(name)
            node.end_count += 1
            node.end_passed += ok
            if multi:
                root.count += 1
                root.passed += ok
                root.name(name)
        for trial, (_, spine) in bases.items():
            total = ok_total = 0
            for depth, node in enumerate(spine):
                total += spine_in[trial][depth]
                ok_total += spine_ok[trial][depth]
                node.count += total
                node.passed += ok_total
        _name_spines(bases, spine_names)
    if max_nodes is not None:
        _prune(root, max(0, max_nodes))
    tree: pd.DataFrame = _frame(root, pd)
    return tree


def _name_spines(
    bases: Mapping[int, tuple[Sequence[Step], list[_Node]]],
    names: Mapping[int, list[tuple[str, int]]],
) -> None:
    """Each baseline node's variants: how many paths of distinct variants hold it, and the
    first 20 names in sweep order. Trials with the same baseline path share its nodes, so a
    variant counts once there (with its deepest divergence)."""
    groups: list[tuple[list[_Node], dict[str, int]]] = []
    for trial, (_, spine) in bases.items():
        deepest: dict[str, int] | None = None
        for nodes, found in groups:
            if len(nodes) == len(spine) and all(a is b for a, b in zip(nodes, spine, strict=True)):
                deepest = found
        if deepest is None:
            deepest = {}
            groups.append((spine, deepest))
        for name, divergence in names[trial]:
            deepest[name] = max(deepest.get(name, -1), divergence)
    for spine, deepest in groups:
        last = len(spine) - 1
        through = [0] * (len(spine) + 1)
        filled = 0
        for name, divergence in deepest.items():
            end = min(divergence, last)
            through[0] += 1
            through[end + 1] -= 1
            while filled <= last and len(spine[filled].variants) >= _MAX_NAMES:
                filled += 1
            for depth in range(filled, end + 1):
                spine[depth].variants[name] = None
        running = 0
        for depth, node in enumerate(spine):
            running += through[depth]
            node.extra = max(node.extra, running - len(node.variants))


def _subtree_size(node: _Node) -> int:
    size, stack = 0, [node]
    while stack:
        item = stack.pop()
        size += 1
        stack.extend(item.children.values())
    return size


def _prune(root: _Node, budget: int) -> None:
    """Keep the busiest branches off the baseline path whole, within ``budget`` nodes; merge
    the others leaving one baseline node into one ``other`` node there."""
    heads: list[tuple[_Node, _Node, Any]] = []
    stack = [root]
    order = 0
    rank: dict[int, int] = {}
    while stack:
        node = stack.pop()
        rank[id(node)] = order
        order += 1
        for key, child in node.children.items():
            if child.on_baseline:
                stack.append(child)
            else:
                heads.append((node, child, key))
    sizes = {id(child): _subtree_size(child) for _, child, _ in heads}
    if sum(sizes.values()) <= budget:
        return
    heads.sort(key=lambda h: (-h[1].count, h[1].depth, rank[id(h[0])]))
    left = budget
    for parent, child, key in heads:
        size = sizes[id(child)]
        if size <= left:
            left -= size
            continue
        del parent.children[key]
        other = parent.children.get(("other",))
        if other is None:
            other = parent.children[("other",)] = _Node(
                parent=parent, depth=parent.depth + 1,
                label=f"{child.label.split(' ', 1)[0]} other branches",
                task_id=child.task_id, tool="(several)", kind="other", span=0,
            )  # fmt: skip
        other.count += child.count
        other.passed += child.passed
        other.end_count += child.count
        other.end_passed += child.passed
        for name in child.variants:
            other.name(name)
        other.more_variants |= child.more_variants


def _frame(root: _Node, pd: Any) -> Any:
    out: list[dict[str, Any]] = []
    numbers: dict[int, int] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        number = len(out)
        numbers[id(node)] = number
        out.append(
            {
                "node": number,
                "parent": numbers[id(node.parent)] if node.parent is not None else None,
                "depth": node.depth,
                "step": node.label,
                "tool": node.tool,
                "args": node.args,
                "isError": node.is_error,
                "servedBy": node.served_by,
                "count": node.count,
                "passedCount": node.passed,
                "endCount": node.end_count,
                "endPassed": node.end_passed,
                "onBaseline": node.on_baseline,
                "variants": ",".join(node.variants),
                "taskId": node.task_id,
                "kind": node.kind,
                "span": node.span,
                "variantCount": len(node.variants) + len(node.more_variants) + node.extra,
            }
        )
        stack.extend(reversed(list(node.children.values())))
    tree = pd.DataFrame(out, columns=list(BRANCH_COLUMNS))
    return tree.astype({"parent": "Int64", "isError": "bool", "onBaseline": "bool"})
