"""The branch tree of a sweep: trajectories merged on their common prefix (SPEC R33).

Each variant-trial's steps are a path from the root; two trajectories share nodes for as long as
their steps agree on ``(tool, args, isError)``. Every node counts the variant-trials passing
through it (each once) and how many of those ended passed, and the trials ending at it. The
baseline's trajectory is one path (``onBaseline``), present even where no variant follows it; a
variant's divergence step is where its path leaves the baseline's.

Counts add up: the root's count is the number of variant-trials, and a node's children's counts
sum to its count minus the trials ending at it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from .._common.step import Step
from .._common.vocab import BASELINE

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["BRANCH_COLUMNS", "SweepData", "branch_tree"]


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
    "passedCount", "endCount", "endPassed", "onBaseline", "variants", "taskId",
)  # fmt: skip
"""The columns of :func:`branch_tree`'s frame, in order."""


@dataclass(slots=True)
class _Node:
    parent: _Node | None
    depth: int
    label: str
    task_id: str
    tool: str = ""
    args: str = ""
    is_error: bool = False
    served_by: str = ""
    children: dict[Any, _Node] = field(default_factory=dict)
    count: int = 0
    passed: int = 0
    end_count: int = 0
    end_passed: int = 0
    on_baseline: bool = False
    variants: dict[str, None] = field(default_factory=dict)

    def child(self, key: Any, make: Any) -> _Node:
        node = self.children.get(key)
        if node is None:
            node = self.children[key] = make()
        return node


def _walk(start: _Node, steps: Sequence[Step], task_id: str) -> list[_Node]:
    path = [start]
    node = start
    for index, step in enumerate(steps):
        parent = node
        node = parent.child(
            step.key,
            lambda p=parent, s=step, i=index: _Node(
                parent=p,
                depth=p.depth + 1,
                label=f"{i} {s.tool}{'!' if s.is_error else ''}",
                task_id=task_id,
                tool=s.tool,
                args=s.args_json,
                is_error=s.is_error,
                served_by=s.served_by,
            ),
        )
        path.append(node)
    return path


def branch_tree(result: SweepData, task_id: str | None = None) -> pd.DataFrame:
    """The branch tree of a sweep's variant-trials as a frame, one row per node (R33).

    ``task_id``: one task's tree; ``None``: every task's (with several tasks, the root's
    children are one node per task). Columns :data:`BRANCH_COLUMNS`: ``node`` (pre-order
    number, root 0), ``parent``, ``depth``, ``step`` (``3 billing:lookup!``: step number, tool,
    ``!`` for a failure), ``tool``, ``args`` (canonical JSON), ``isError``, ``servedBy``,
    ``count`` / ``passedCount`` (variant-trials through the node / of those, ended passed),
    ``endCount`` / ``endPassed`` (ending at the node), ``onBaseline``, ``variants``
    (comma-joined names through the node) and ``taskId``.
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
    frame = result.frame
    for tid in task_ids:
        start = root
        if multi:
            start = root.child(
                ("task", tid),
                lambda t=tid: _Node(parent=root, depth=1, label=f"task {t}", task_id=t),
            )
            start.on_baseline = True
        for trial in range(result.trials):
            for node in _walk(start, result.steps.get((BASELINE, tid, trial), ()), tid):
                node.on_baseline = True
        rows = frame[(frame["taskId"] == tid) & (frame["variant"] != BASELINE)]
        for name, trial, passed in zip(rows["variant"], rows["trial"], rows["passed"], strict=True):
            path = _walk(start, result.steps[(name, tid, int(trial))], tid)
            ok = bool(passed)
            if multi:
                path.insert(0, root)
            for node in path:
                node.count += 1
                node.passed += ok
                node.variants[name] = None
            path[-1].end_count += 1
            path[-1].end_passed += ok
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
            }
        )
        stack.extend(reversed(list(node.children.values())))
    tree = pd.DataFrame(out, columns=list(BRANCH_COLUMNS))
    return tree.astype({"parent": "Int64", "isError": "bool", "onBaseline": "bool"})
