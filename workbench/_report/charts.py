"""Charts of a fault sweep (R33): the branch tree, the recovery matrix and the divergence strip.

Every chart aggregates its input before it reaches Altair, so a sweep of any size stays under
Altair's default row limit (5,000 rows per dataset) and stays readable: the branch chart keeps the
baseline path and the busiest branches and merges the rest into one "other branches" node per
depth; the recovery matrix bins boundaries when there are too many columns; the divergence strip
shows at most a fixed number of variant-trials, sorted by divergence step, and says so. The row
limit is never raised or disabled here.

The branch layout is computed in Python: the baseline path is the spine (lane 0, a straight
line), and each branch is a block of lanes above or below it, packed so that no two branches
share a lane over the same steps. Later branches are packed first, nearest the spine, so an
earlier branch's edge leaving the spine never crosses a later branch's line.

Rendering uses vl-convert (no browser, no network): :func:`save_chart` writes PNG or SVG, and
:func:`enable_offline` makes notebook output work without a CDN.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

import altair as alt
import pandas as pd

from .._common.jsonio import write_bytes_atomic

__all__ = [
    "BRANCH_SELECTION",
    "MAX_BRANCH_NODES",
    "MAX_STRIP_ROWS",
    "branch_chart",
    "chart_spec",
    "divergence_strip",
    "enable_offline",
    "recovery_matrix",
    "save_chart",
]

BRANCH_SELECTION = "branch"
"""The name of the point selection ``branch_chart(..., select=True)`` adds (field ``variant``)."""
MAX_BRANCH_NODES = 160
"""Default number of tree nodes the branch chart draws besides the spine and the merged nodes."""
MAX_STRIP_ROWS = 40
"""Default number of variant-trials the divergence strip shows."""
MAX_MATRIX_COLUMNS = 40
"""Boundaries per task the recovery matrix shows one by one; more are binned into ranges."""
_ROW_BUDGET = 4000
"""Rows a single chart dataset may use (Altair refuses more than 5,000 by default)."""

CallState = Literal["start", "ok", "error served", "miss"]
EndState = Literal["ended passed", "ended failed", "ended mixed"]

_CALL_STATES: tuple[CallState, ...] = ("start", "ok", "error served", "miss")
_CALL_COLOURS = ("#222222", "#4c78a8", "#d62728", "#ff7f0e")
_CALL_SHAPES = ("diamond", "circle", "cross", "triangle-up")
_END_STATES: tuple[EndState, ...] = ("ended passed", "ended failed", "ended mixed")
_END_COLOURS = ("#2ca02c", "#d62728", "#b8a200")
_EDGE_KINDS = ("baseline", "branch", "other branches")
_EDGE_COLOURS = ("#1f3b73", "#9aa5b1", "#c7ccd1")

_STEP_PX = 64
"""Horizontal space per step in the branch chart."""
_LANE_PX = 24
"""Vertical space per lane in the branch chart."""
_LABEL_CHAR_PX = 6.2
"""Approximate width of one label character at the chart's label font size."""


# --------------------------------------------------------------------------------------------
# small helpers


def _truncate(text: Any, limit: int) -> str:
    value = "" if text is None or (isinstance(text, float) and math.isnan(text)) else str(text)
    return value if len(value) <= limit else value[: max(0, limit - 1)] + "\u2026"


def _int(value: Any, default: int = 0) -> int:
    if value is None or value is pd.NA:
        return default
    try:
        if isinstance(value, float) and math.isnan(value):
            return default
        return int(value)
    except (TypeError, ValueError):
        return default


def _call_state(is_error: Any, served_by: Any, depth: int) -> CallState:
    if depth == 0:
        return "start"
    if str(served_by) == "miss":
        return "miss"
    return "error served" if bool(is_error) else "ok"


def _end_state(end_count: int, end_passed: int) -> EndState | None:
    if end_count <= 0:
        return None
    if end_passed >= end_count:
        return "ended passed"
    return "ended failed" if end_passed == 0 else "ended mixed"


def _require(frame: pd.DataFrame, columns: Iterable[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{what}: missing column(s) {', '.join(missing)}")


_NODE_COLUMNS = ("key", "x", "y", "step", "tool", "args", "call", "count", "passedCount",
                 "endCount", "endPassed", "variants", "spine")  # fmt: skip
_MATRIX_COLUMNS = ("column", "order", "task", "kind", "rate", "rateText", "variants", "trials",
                   "passHatK", "extraCalls")  # fmt: skip


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The frame's rows as plain dicts keyed by column name."""
    return [{str(k): v for k, v in row.items()} for row in frame.to_dict("records")]


def _data(rows: list[dict[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    """A chart's data: a frame, so Altair's row limit applies to it like to any other."""
    return pd.DataFrame(rows, columns=list(columns))


def _names(variants: Any) -> list[str]:
    text = "" if variants is None or variants is pd.NA else str(variants)
    return [n for n in (part.strip() for part in text.split(",")) if n]


# --------------------------------------------------------------------------------------------
# the branch chart


@dataclass(slots=True)
class _Node:
    """One drawn node of the branch chart (a tree node or a merged "other branches" node)."""

    key: str
    """``n<node>`` for a tree node, ``other@<depth>`` for a merged one."""
    parent: str | None
    """The parent's key (``None`` at the root)."""
    depth: int
    """Steps from the root (the root is 0)."""
    step: str
    """The step label."""
    tool: str
    """The tool called at this step."""
    args: str
    """The call's arguments as JSON text."""
    call: CallState
    """What the call got."""
    count: int
    """Variant-trials through the node."""
    passed: int
    """Of those, how many ended passed."""
    end_count: int
    """Variant-trials that end here."""
    end_passed: int
    """Of those, how many passed."""
    on_baseline: bool
    """Whether the node is on the baseline path (the spine)."""
    variants: str
    """The variants through the node, comma-joined."""
    merged: bool = False
    """Whether this is an "other branches" node."""
    merged_nodes: int = 0
    """How many tree nodes a merged node stands for."""
    lane: int = 0
    """The computed lane (0 = spine; positive above, negative below)."""


def _tree_nodes(branches: pd.DataFrame) -> dict[str, _Node]:
    nodes: dict[str, _Node] = {}
    for rec in _records(branches):
        depth = _int(rec["depth"])
        parent = rec["parent"]
        parent_key = (
            None if parent is None or parent is pd.NA or _is_nan(parent) else f"n{int(parent)}"
        )
        key = f"n{int(rec['node'])}"
        nodes[key] = _Node(
            key=key,
            parent=parent_key,
            depth=depth,
            step=str(rec.get("step", "") or ""),
            tool=str(rec.get("tool", "") or ""),
            args=str(rec.get("args", "") or ""),
            call=_call_state(rec.get("isError"), rec.get("servedBy"), depth),
            count=_int(rec["count"]),
            passed=_int(rec["passedCount"]),
            end_count=_int(rec.get("endCount")),
            end_passed=_int(rec.get("endPassed")),
            on_baseline=bool(rec["onBaseline"]),
            variants=str(rec.get("variants", "") or ""),
        )
    return nodes


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _children(nodes: Mapping[str, _Node]) -> dict[str, list[str]]:
    """Each node's children, busiest first (ties by node number)."""
    children: dict[str, list[str]] = {}
    for key, node in nodes.items():
        if node.parent is not None and node.parent in nodes and not node.merged:
            children.setdefault(node.parent, []).append(key)
    for kids in children.values():
        kids.sort(key=lambda k: (-nodes[k].count, _key_order(k)))
    return children


def _heavy_path(
    start: str, nodes: Mapping[str, _Node], children: Mapping[str, list[str]]
) -> list[str]:
    """From ``start`` down: the baseline child on the spine, else the busiest child."""
    path = [start]
    while True:
        kids = children.get(path[-1], [])
        if not kids:
            return path
        spine = [k for k in kids if nodes[k].on_baseline]
        path.append(spine[0] if nodes[path[-1]].on_baseline and spine else kids[0])


def _side_branches(
    path: Sequence[str], nodes: Mapping[str, _Node], children: Mapping[str, list[str]]
) -> list[str]:
    """The children leaving ``path``, latest first (then busiest)."""
    on_path = set(path)
    found = [k for p in path for k in children.get(p, []) if k not in on_path]
    return sorted(found, key=lambda k: (-nodes[k].depth, -nodes[k].count, _key_order(k)))


def _keep(nodes: dict[str, _Node], max_nodes: int) -> dict[str, _Node]:
    """The spine and whole branches, busiest first, within ``max_nodes`` nodes off the spine; a
    branch too big for what is left keeps its main path and the side branches that fit. The
    rest is merged into one "other branches" node per depth."""
    children = _children(nodes)
    sizes: dict[str, int] = {}
    for key in sorted(nodes, key=lambda k: -nodes[k].depth):
        sizes[key] = 1 + sum(sizes[c] for c in children.get(key, []))

    def busiest(keys: Iterable[str]) -> list[str]:
        return sorted(keys, key=lambda k: (-nodes[k].count, nodes[k].depth, _key_order(k)))

    def select(start: str, budget: int) -> list[str]:
        if sizes[start] <= budget:
            out, stack = [], [start]
            while stack:
                key = stack.pop()
                out.append(key)
                stack.extend(children.get(key, []))
            return out
        path = _heavy_path(start, nodes, children)[:budget]
        out = list(path)
        left = budget - len(path)
        for branch in busiest(_side_branches(path, nodes, children)):
            if left <= 0:
                break
            part = select(branch, left)
            out.extend(part)
            left -= len(part)
        return out

    kept = {k: n for k, n in nodes.items() if n.on_baseline}
    spine = [k for k in kept if not kept[k].merged]
    left = max(0, max_nodes)
    for branch in busiest(_side_branches(spine, nodes, children)):
        if left <= 0:
            break
        part = select(branch, left)
        kept.update((k, nodes[k]) for k in part)
        left -= len(part)
    dropped = [n for k, n in nodes.items() if k not in kept]
    if not dropped:
        return kept
    dropped_keys = {n.key for n in dropped}
    merged: dict[int, _Node] = {}
    for node in sorted(dropped, key=lambda n: (n.depth, _key_order(n.key))):
        if node.parent in dropped_keys:
            parent_key: str | None = f"other@{node.depth - 1}"
        else:
            parent_key = node.parent
        other = merged.get(node.depth)
        if other is None:
            other = merged[node.depth] = _Node(
                key=f"other@{node.depth}",
                parent=parent_key,
                depth=node.depth,
                step=f"{node.depth - 1} other branches",
                tool="(several)",
                args="",
                call="ok",
                count=0,
                passed=0,
                end_count=0,
                end_passed=0,
                on_baseline=False,
                variants="",
                merged=True,
            )
        other.count += node.count
        other.passed += node.passed
        other.end_count += node.end_count
        other.end_passed += node.end_passed
        other.merged_nodes += 1
    result = dict(kept)
    for depth in sorted(merged):
        result[merged[depth].key] = merged[depth]
    return result


def _merged_edges(nodes: dict[str, _Node], kept: dict[str, _Node]) -> list[tuple[str, str, int]]:
    """Edges (parent key, child key, passing trials) of the drawn tree."""
    dropped = {k for k in nodes if k not in kept}
    totals: dict[tuple[str, str], int] = {}
    order: list[tuple[str, str]] = []
    for key, node in sorted(nodes.items(), key=lambda kv: (kv[1].depth, _key_order(kv[0]))):
        if node.parent is None:
            continue
        child = key if key in kept else f"other@{node.depth}"
        parent = node.parent if node.parent not in dropped else f"other@{node.depth - 1}"
        pair = (parent, child)
        if pair not in totals:
            totals[pair] = 0
            order.append(pair)
        totals[pair] += node.passed
    return [(p, c, totals[(p, c)]) for p, c in order if p in kept and c in kept]


def _key_order(key: str) -> tuple[int, int]:
    kind, _, number = key.partition("@") if key.startswith("other") else ("n", "", key[1:])
    return (1 if kind != "n" else 0, int(number) if number.lstrip("-").isdigit() else 0)


def _leaf_label(node: _Node, children: Mapping[str, list[str]]) -> str | None:
    if children.get(node.key):
        return None
    if node.merged:
        return f"other branches ({node.count})"
    if node.on_baseline:
        return "baseline"
    names = _names(node.variants)
    if not names:
        return None
    # Several trials of one variant list its name once.
    unique = list(dict.fromkeys(names))
    first = _truncate(unique[0], 28)
    return first if len(unique) == 1 else f"{first} +{len(unique) - 1}"


def _pad_steps(label: str | None) -> float:
    if not label:
        return 0.5
    return 0.4 + (len(label) * _LABEL_CHAR_PX + 14) / _STEP_PX


Occupancy = dict[int, list[tuple[float, float]]]


def _fits(
    block: Sequence[tuple[int, float, float]], offset: int, sign: int, occ: Occupancy
) -> bool:
    for rel, lo, hi in block:
        lane = sign * (offset + rel)
        for a, b in occ.get(lane, ()):
            if lo <= b and a <= hi:
                return False
    return True


def _occupy(
    block: Sequence[tuple[int, float, float]], offset: int, sign: int, occ: Occupancy
) -> None:
    for rel, lo, hi in block:
        occ.setdefault(sign * (offset + rel), []).append((lo, hi))


def _layout(nodes: dict[str, _Node]) -> None:
    """Give each node a lane: the spine on lane 0, branch blocks packed above and below it."""
    children = _children(nodes)
    labels = {k: _leaf_label(n, children) for k, n in nodes.items()}

    def heavy_path(start: str) -> list[str]:
        return _heavy_path(start, nodes, children)

    def side_branches(path: list[str]) -> list[str]:
        # Latest branch first: it goes nearest its path, so earlier ones never cross it.
        return _side_branches(path, nodes, children)

    def block(start: str) -> tuple[dict[str, int], list[tuple[int, float, float]]]:
        path = heavy_path(start)
        lanes = {k: 0 for k in path}
        parent = nodes[start].parent
        lo = float(nodes[parent].depth if parent in nodes else nodes[start].depth)
        end = nodes[path[-1]]
        occ_list: list[tuple[int, float, float]] = [
            (0, lo, end.depth + _pad_steps(labels[end.key]))
        ]
        occ: Occupancy = {0: [(occ_list[0][1], occ_list[0][2])]}
        for branch in side_branches(path):
            sub_lanes, sub_occ = block(branch)
            offset = 1
            while not _fits(sub_occ, offset, 1, occ):
                offset += 1
            _occupy(sub_occ, offset, 1, occ)
            occ_list.extend((offset + rel, a, b) for rel, a, b in sub_occ)
            lanes.update({k: offset + rel for k, rel in sub_lanes.items()})
        return lanes, occ_list

    roots = [k for k, n in nodes.items() if n.parent is None and not n.merged]
    if not roots:
        return
    spine = heavy_path(sorted(roots, key=_key_order)[0])
    occ: Occupancy = {0: [(-1.0, float("inf"))]}
    for key in spine:
        nodes[key].lane = 0
    prefer = 1
    for branch in side_branches(spine):
        sub_lanes, sub_occ = block(branch)
        best: tuple[int, int] | None = None
        for offset in range(1, 10_000):
            candidates = [s for s in (prefer, -prefer) if _fits(sub_occ, offset, s, occ)]
            if candidates:
                best = (offset, candidates[0])
                break
        offset, sign = best if best is not None else (1, 1)
        _occupy(sub_occ, offset, sign, occ)
        for key, rel in sub_lanes.items():
            nodes[key].lane = sign * (offset + rel)
        if sign == prefer:
            prefer = -prefer
    merged = [n for n in nodes.values() if n.merged]
    if merged:
        lowest = min([n.lane for n in nodes.values() if not n.merged] + [0])
        for node in merged:
            node.lane = lowest - 1


def _axis_label_expr(spine: Sequence[_Node]) -> str:
    parts = []
    for node in spine:
        if node.depth == 0:
            continue
        label = (
            _truncate(node.step.rstrip("!") or node.tool, 26)
            .replace("\\", "\\\\")
            .replace("'", "\\'")
        )
        parts.append(f"datum.value == {node.depth} ? '{label}'")
    return " : ".join([*parts, "''"]) if parts else "''"


def branch_chart(
    branches: pd.DataFrame,
    *,
    max_nodes: int = MAX_BRANCH_NODES,
    title: str | None = None,
    select: bool = False,
) -> alt.LayerChart:
    """The branch tree of a sweep (R33) from :func:`workbench.branch_tree`'s frame.

    Steps run left to right (x = depth). The baseline path is the spine, a straight line on one
    y; each fault branch leaves it at its divergence step into its own lane above or below.
    Node shape and colour say what the call got (ok, error served, miss); a square marks where
    trials end (passed, failed or mixed); edge width is the number of variant-trials through the
    edge that end passed. At most ``max_nodes`` nodes off the spine are drawn (the busiest); the
    rest are merged into one "other branches" node per depth on the bottom lane.

    ``select=True`` makes the nodes clickable, for an interactive view (``alt.JupyterChart``):
    a point selection named :data:`BRANCH_SELECTION` (``"branch"``) on a ``variant`` field that
    each node carries, the first variant through it (empty on merged nodes); a click selects the
    node, a double click clears the selection, and unselected nodes fade. The default
    (``False``) draws exactly the static chart the report and the PNGs use.
    """
    _require(
        branches,
        ("node", "parent", "depth", "step", "count", "passedCount", "onBaseline"),
        "branch_chart",
    )
    all_nodes = _tree_nodes(branches)
    kept = _keep(all_nodes, max_nodes)
    # A merged node may have several parents: its ``parent`` is the first, the edges all of them.
    edges = _merged_edges(all_nodes, kept)
    _layout(kept)
    spine = sorted((n for n in kept.values() if n.on_baseline), key=lambda n: n.depth)
    children: dict[str, list[str]] = {}
    for source, target, _ in edges:
        children.setdefault(source, []).append(target)

    node_rows: list[dict[str, Any]] = []
    end_rows: list[dict[str, Any]] = []
    label_rows: list[dict[str, Any]] = []
    for item in sorted(kept.values(), key=lambda n: (n.depth, n.lane, _key_order(n.key))):
        names = _names(item.variants) if not item.merged else []
        variants_text = (
            f"{item.merged_nodes} merged nodes"
            if item.merged
            else _truncate(", ".join(dict.fromkeys(names)), 120)
        )
        row = {
            "key": item.key,
            "x": item.depth,
            "y": item.lane,
            "step": _truncate(item.step, 60),
            "tool": _truncate(item.tool, 60),
            "args": _truncate(item.args, 80),
            "call": "ok" if item.merged else item.call,
            "count": item.count,
            "passedCount": item.passed,
            "endCount": item.end_count,
            "endPassed": item.end_passed,
            "variants": variants_text,
            "spine": item.on_baseline,
        }
        if select:
            row["variant"] = names[0] if names else ""
        node_rows.append(row)
        end = _end_state(item.end_count, item.end_passed)
        if end is not None:
            end_rows.append({**row, "end": end})
        label = _leaf_label(item, children)
        if label:
            label_rows.append({"x": item.depth, "y": item.lane, "label": label})

    edge_rows: list[dict[str, Any]] = []
    for parent_key, child_key, passed in edges:
        parent, child = kept[parent_key], kept[child_key]
        kind = (
            "baseline"
            if parent.on_baseline and child.on_baseline
            else "other branches"
            if child.merged
            else "branch"
        )
        edge_rows.append(
            {
                "x": parent.depth,
                "y": parent.lane,
                "x2": child.depth,
                "y2": child.lane,
                "edge": kind,
                "passedCount": passed,
                "count": child.count,
                "step": _truncate(child.step, 60),
            }
        )

    lanes = [n.lane for n in kept.values()] or [0]
    top, bottom = max(lanes), min(lanes)
    depth_max = max((n.depth for n in kept.values()), default=1)
    label_room = max((_pad_steps(r["label"]) for r in label_rows), default=0.5)
    y_scale = alt.Scale(domain=[bottom - 0.7, top + 0.7], nice=False, zero=False)
    # Long runs get narrower steps (the chart stays under about 2,400 px wide).
    step_px = max(6.0, min(float(_STEP_PX), 2400 / max(1, depth_max)))
    width = int((depth_max + label_room * _STEP_PX / step_px + 0.3) * step_px)
    x_scale = alt.Scale(
        domain=[-0.3, depth_max + label_room * _STEP_PX / step_px], nice=False, zero=False
    )
    few_steps = depth_max <= 40
    height = max(120, int((top - bottom + 1.4) * _LANE_PX))
    max_passed = max([r["passedCount"] for r in edge_rows] + [1])

    x_axis = (
        alt.Axis(
            title="step (baseline call at that step)",
            values=[n.depth for n in spine if n.depth > 0],
            labelExpr=_axis_label_expr(spine),
            labelAngle=-40,
            labelLimit=170,
            labelOverlap=False,
            grid=True,
            gridDash=[2, 4],
            gridColor="#e3e6ea",
        )
        if few_steps
        else alt.Axis(title="depth (calls from the start)", format="d", grid=False)
    )
    x = alt.X("x:Q", scale=x_scale, axis=x_axis)
    y = alt.Y("y:Q", scale=y_scale, axis=None)

    edge_layer = (
        alt.Chart(_data(edge_rows, ("x", "y", "x2", "y2", "edge", "passedCount", "count", "step")))
        .mark_rule(strokeCap="round")
        .encode(
            x=x,
            y=y,
            x2="x2:Q",
            y2="y2:Q",
            color=alt.Color(
                "edge:N",
                scale=alt.Scale(domain=list(_EDGE_KINDS), range=list(_EDGE_COLOURS)),
                legend=alt.Legend(title="path", orient="right"),
            ),
            strokeWidth=alt.StrokeWidth(
                "passedCount:Q",
                scale=alt.Scale(domain=[0, max_passed], range=[1.2, 9]),
                legend=alt.Legend(title="passing variant-trials", orient="right"),
            ),
            tooltip=[
                alt.Tooltip("step:N", title="to step"),
                alt.Tooltip("count:Q", title="variant-trials"),
                alt.Tooltip("passedCount:Q", title="passed"),
            ],
        )
    )
    tooltip = [
        alt.Tooltip("step:N", title="step"),
        alt.Tooltip("tool:N", title="tool"),
        alt.Tooltip("args:N", title="args"),
        alt.Tooltip("call:N", title="call"),
        alt.Tooltip("count:Q", title="variant-trials"),
        alt.Tooltip("passedCount:Q", title="passed"),
        alt.Tooltip("endCount:Q", title="end here"),
        alt.Tooltip("endPassed:Q", title="end here passed"),
        alt.Tooltip("variants:N", title="variants"),
    ]
    end_layer = (
        alt.Chart(_data(end_rows, (*_NODE_COLUMNS, "end")))
        .mark_point(shape="square", filled=False, size=230, strokeWidth=2.2)
        .encode(
            x=x,
            y=y,
            color=alt.Color(
                "end:N",
                scale=alt.Scale(domain=list(_END_STATES), range=list(_END_COLOURS)),
                legend=alt.Legend(title="trials end", orient="right"),
            ),
            tooltip=tooltip,
        )
    )
    node_columns: tuple[str, ...] = (*_NODE_COLUMNS, "variant") if select else _NODE_COLUMNS
    node_layer = (
        alt.Chart(_data(node_rows, node_columns))
        .mark_point(filled=True, size=70, opacity=1, cursor="pointer" if select else alt.Undefined)
        .encode(
            x=x,
            y=y,
            color=alt.Color(
                "call:N",
                scale=alt.Scale(domain=list(_CALL_STATES), range=list(_CALL_COLOURS)),
                legend=alt.Legend(title="call", orient="right"),
            ),
            shape=alt.Shape(
                "call:N",
                scale=alt.Scale(domain=list(_CALL_STATES), range=list(_CALL_SHAPES)),
                legend=alt.Legend(title="call", orient="right"),
            ),
            tooltip=tooltip,
        )
    )
    if select:
        picked = alt.selection_point(
            fields=["variant"], name=BRANCH_SELECTION, on="click", clear="dblclick"
        )
        node_layer = node_layer.add_params(picked).encode(
            opacity=alt.condition(picked, alt.value(1.0), alt.value(0.35))
        )
    label_layer = (
        alt.Chart(_data(label_rows, ("x", "y", "label")))
        .mark_text(align="left", baseline="middle", dx=11, fontSize=11, color="#333333")
        .encode(x=x, y=y, text="label:N")
    )
    merged_count = sum(1 for n in kept.values() if n.merged)
    off_spine = sum(1 for n in all_nodes.values() if not n.on_baseline)
    subtitle = [
        "baseline on the straight line; branches leave it at their divergence step",
    ]
    if merged_count:
        drawn = sum(1 for n in kept.values() if not n.on_baseline and not n.merged)
        subtitle.append(
            f"{drawn} of {off_spine} branch nodes drawn; the rest merged per step into "
            "'other branches' (bottom lane)"
        )
    return cast(
        alt.LayerChart,
        alt.layer(edge_layer, end_layer, node_layer, label_layer)
        .resolve_scale(color="independent", shape="independent")
        .properties(
            width=width,
            height=height,
            title=alt.TitleParams(title or "Branch tree", subtitle=subtitle, anchor="start"),
        )
        .configure_view(stroke=None),
    )


# --------------------------------------------------------------------------------------------
# the recovery matrix


def _rate_text(rate: float) -> str:
    return "\u2013" if math.isnan(rate) else f"{rate:.0%}"


def recovery_matrix(
    per_boundary: pd.DataFrame,
    *,
    max_columns: int = MAX_MATRIX_COLUMNS,
    title: str | None = None,
) -> alt.LayerChart:
    """Boundaries x fault kinds, coloured by recovery rate, the rate written in each cell.

    ``per_boundary`` is :meth:`SweepResult.per_boundary`'s frame (taskId, boundary, kind,
    variants, trials, recoveryRate, passHatK, extraCalls). A task with more than
    ``max_columns`` boundaries has them binned into equal ranges (rates weighted by trials).
    """
    _require(
        per_boundary, ("taskId", "boundary", "kind", "recoveryRate", "trials"), "recovery_matrix"
    )
    tasks = sorted({str(t) for t in per_boundary["taskId"]})
    multi = len(tasks) > 1
    rows: list[dict[str, Any]] = []
    binned = False
    for task in tasks:
        part = per_boundary[per_boundary["taskId"].astype(str) == task]
        boundaries = sorted({_int(b) for b in part["boundary"]})
        size = max(1, math.ceil(len(boundaries) / max(1, max_columns)))
        binned = binned or size > 1
        groups: dict[tuple[int, str], list[Mapping[str, Any]]] = {}
        for rec in _records(part):
            position = boundaries.index(_int(rec["boundary"])) // size
            groups.setdefault((position, str(rec["kind"])), []).append(rec)
        for (position, kind), recs in sorted(groups.items()):
            members = boundaries[position * size : (position + 1) * size]
            label = (
                f"b{members[0]:02d}" if len(members) == 1 else f"b{members[0]}\u2013b{members[-1]}"
            )
            trials = sum(_int(r.get("trials")) for r in recs)
            rate = _weighted(recs, "recoveryRate", trials)
            rows.append(
                {
                    "column": f"{task} {label}" if multi else label,
                    "order": position,
                    "task": task,
                    "kind": f"{task} \u00b7 {kind}" if multi else kind,
                    "rate": None if math.isnan(rate) else round(rate, 6),
                    "rateText": _rate_text(rate),
                    "variants": sum(_int(r.get("variants")) for r in recs),
                    "trials": trials,
                    "passHatK": _round_or_none(_weighted(recs, "passHatK", trials)),
                    "extraCalls": _round_or_none(_weighted(recs, "extraCalls", trials)),
                }
            )
    columns = list(
        dict.fromkeys(r["column"] for r in sorted(rows, key=lambda r: (r["task"], r["order"])))
    )
    base = alt.Chart(_data(rows, _MATRIX_COLUMNS)).encode(
        x=alt.X("column:O", sort=columns, title="boundary", axis=alt.Axis(labelAngle=-40)),
        y=alt.Y("kind:N", title="fault kind"),
    )
    tooltip = [
        alt.Tooltip("column:N", title="boundary"),
        alt.Tooltip("kind:N", title="kind"),
        alt.Tooltip("rateText:N", title="recovery rate"),
        alt.Tooltip("variants:Q", title="variants"),
        alt.Tooltip("trials:Q", title="trials"),
        alt.Tooltip("passHatK:Q", title="pass^k", format=".2f"),
        alt.Tooltip("extraCalls:Q", title="extra calls", format=".2f"),
    ]
    cells = base.mark_rect(stroke="white", strokeWidth=1).encode(
        color=alt.Color(
            "rate:Q",
            scale=alt.Scale(domain=[0, 1], scheme="redyellowgreen"),
            legend=alt.Legend(title="recovery rate", format=".0%"),
        ),
        tooltip=tooltip,
    )
    text = base.mark_text(fontSize=10, color="#111111").encode(text="rateText:N", tooltip=tooltip)
    subtitle = ["share of fault trials that still pass"]
    if binned:
        subtitle.append(f"boundaries binned into ranges (at most {max_columns} columns per task)")
    n_columns = max(1, len(columns))
    n_rows = max(1, len({r["kind"] for r in rows}))
    chart = alt.layer(cells, text).properties(
        width=max(160, min(34 * n_columns, 1400)),
        height=max(40, 28 * n_rows),
        title=alt.TitleParams(title or "Recovery by boundary", subtitle=subtitle, anchor="start"),
    )
    return cast(alt.LayerChart, chart)


def _weighted(recs: Sequence[Mapping[str, Any]], column: str, trials: int) -> float:
    total = 0.0
    weight = 0
    for rec in recs:
        value = rec.get(column)
        if value is None or value is pd.NA or _is_nan(value):
            continue
        w = max(1, _int(rec.get("trials"), 1))
        total += float(value) * w
        weight += w
    return total / weight if weight else float("nan")


def _round_or_none(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 6)


# --------------------------------------------------------------------------------------------
# the divergence strip

_TRAJECTORY_SPLIT = re.compile(r" > ")


def _steps_from_trajectory(trajectory: Any) -> list[tuple[str, str, bool, str]]:
    text = (
        "" if trajectory is None or trajectory is pd.NA or _is_nan(trajectory) else str(trajectory)
    )
    if not text:
        return []
    out = []
    for part in _TRAJECTORY_SPLIT.split(text):
        failed = part.endswith("!")
        out.append((part[:-1] if failed else part, "", failed, ""))
    return out


def divergence_strip(
    frame: pd.DataFrame,
    steps: Mapping[tuple[str, str, int], Sequence[Any]] | None = None,
    *,
    max_rows: int = MAX_STRIP_ROWS,
    title: str | None = None,
) -> alt.LayerChart:
    """Per variant-trial (rows), the steps taken (x = step), failed calls marked, the
    divergence step marked.

    ``frame`` is :attr:`SweepResult.frame`; ``steps`` (``SweepResult.steps``) adds args and
    misses to each step, otherwise the compact ``trajectory`` is used. Baseline rows come
    first, then variants sorted by divergence step; at most ``max_rows`` rows (fewer when the
    trajectories are long, to stay under the row limit) are shown, and the subtitle says so.
    """
    _require(
        frame, ("variant", "taskId", "trial", "trajectory", "divergenceStep"), "divergence_strip"
    )
    records = _records(frame)
    multi_trial = frame["trial"].nunique() > 1 if len(frame) else False
    multi_task = frame["taskId"].nunique() > 1 if len(frame) else False

    def trial_steps(rec: Mapping[str, Any]) -> list[tuple[str, str, bool, str]]:
        key = (str(rec["variant"]), str(rec["taskId"]), _int(rec["trial"]))
        if steps is not None and key in steps:
            return [
                (
                    str(getattr(s, "tool", "")),
                    str(getattr(s, "args_json", "")),
                    bool(getattr(s, "is_error", False)),
                    str(getattr(s, "served_by", "")),
                )
                for s in steps[key]
            ]
        return _steps_from_trajectory(rec.get("trajectory"))

    def sort_key(rec: Mapping[str, Any]) -> tuple[int, int, str, str, int]:
        div = rec.get("divergenceStep")
        baseline = rec.get("recovered") is pd.NA or rec.get("recovered") is None
        is_na = div is None or div is pd.NA or _is_nan(div)
        return (
            0 if baseline and _is_baseline(rec) else 1,
            1_000_000_000 if is_na else _int(div),
            str(rec["taskId"]),
            str(rec["variant"]),
            _int(rec["trial"]),
        )

    ordered = sorted(records, key=sort_key)
    longest = max((len(trial_steps(r)) for r in ordered[: max(1, max_rows)]), default=1)
    limit = max(1, min(max_rows, _ROW_BUDGET // max(1, longest)))
    shown = ordered[:limit]
    rows: list[dict[str, Any]] = []
    marks: list[dict[str, Any]] = []
    labels: list[str] = []
    truncated_steps = False
    per_row_cap = _ROW_BUDGET // max(1, len(shown))
    for rec in shown:
        label = str(rec["variant"])
        if multi_task and not label.startswith(f"{rec['taskId']}/"):
            label = f"{rec['taskId']}/{label}"
        if multi_trial:
            label = f"{label} #{_int(rec['trial'])}"
        label = _truncate(label, 40)
        labels.append(label)
        taken = trial_steps(rec)
        if len(taken) > per_row_cap:
            taken = taken[:per_row_cap]
            truncated_steps = True
        outcome = "passed" if bool(rec.get("passed")) else "failed"
        for index, (tool, args, failed, served_by) in enumerate(taken):
            state = "miss" if served_by == "miss" else "error served" if failed else "ok"
            rows.append(
                {
                    "row": label,
                    "step": index,
                    "tool": _truncate(tool, 60),
                    "args": _truncate(args, 80),
                    "call": state,
                    "outcome": outcome,
                }
            )
        div = rec.get("divergenceStep")
        if not (div is None or div is pd.NA or _is_nan(div)):
            marks.append({"row": label, "step": _int(div), "mark": "divergence"})
    last = max((r["step"] for r in rows), default=0)
    x = alt.X(
        "step:Q",
        title="step",
        scale=alt.Scale(domain=[-0.7, last + 0.7], nice=False, zero=False),
        axis=alt.Axis(tickMinStep=1, format="d"),
    )
    y = alt.Y("row:N", sort=labels, title=None, axis=alt.Axis(labelLimit=220))
    call_colours: dict[str, str] = dict(zip(_CALL_STATES, _CALL_COLOURS, strict=True))
    states = ["ok", "error served", "miss"]
    cells = (
        alt.Chart(_data(rows, ("row", "step", "tool", "args", "call", "outcome")))
        .mark_point(size=90, filled=True, opacity=0.95)
        .encode(
            x=x,
            y=y,
            color=alt.Color(
                "call:N",
                scale=alt.Scale(domain=states, range=[call_colours[s] for s in states]),
                legend=alt.Legend(title="call"),
            ),
            shape=alt.Shape(
                "call:N",
                scale=alt.Scale(domain=states, range=["square", "cross", "triangle-up"]),
                legend=alt.Legend(title="call"),
            ),
            tooltip=[
                alt.Tooltip("row:N", title="variant"),
                alt.Tooltip("step:Q", title="step"),
                alt.Tooltip("tool:N", title="tool"),
                alt.Tooltip("args:N", title="args"),
                alt.Tooltip("call:N", title="call"),
                alt.Tooltip("outcome:N", title="trial"),
            ],
        )
    )
    divergence = (
        alt.Chart(_data(marks, ("row", "step", "mark")))
        .mark_point(shape="square", filled=False, size=240, strokeWidth=2, color="#111111")
        .encode(
            x=x,
            y=y,
            opacity=alt.Opacity(
                "mark:N",
                scale=alt.Scale(domain=["divergence"], range=[1]),
                legend=alt.Legend(title=""),
            ),
            tooltip=[
                alt.Tooltip("row:N", title="variant"),
                alt.Tooltip("step:Q", title="diverges at"),
            ],
        )
    )
    subtitle = [
        f"{len(shown)} of {len(records)} variant-trials, baseline first, then by divergence step"
    ]
    if truncated_steps:
        subtitle.append(f"long trajectories cut at {per_row_cap} steps")
    return cast(
        alt.LayerChart,
        alt.layer(cells, divergence)
        .resolve_scale(color="independent", shape="independent")
        .properties(
            width=max(240, min(20 * (last + 2), 1400)),
            height=max(60, 18 * len(shown)),
            title=alt.TitleParams(title or "Divergence strip", subtitle=subtitle, anchor="start"),
        ),
    )


def _is_baseline(rec: Mapping[str, Any]) -> bool:
    kind = rec.get("kind")
    name = str(rec.get("variant", ""))
    return name == "baseline" or name.endswith("/baseline") or str(kind) in ("", "baseline", "<NA>")


# --------------------------------------------------------------------------------------------
# rendering


def chart_spec(chart: alt.TopLevelMixin) -> dict[str, Any]:
    """The chart's Vega-Lite spec (validated by Altair, default row limit in force)."""
    spec = chart.to_dict()
    if not isinstance(spec, dict):  # pragma: no cover - Altair always returns a dict here
        raise TypeError("chart.to_dict() did not return a dict")
    return spec


def _vl_version() -> str | None:
    import vl_convert

    wanted = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    versions = vl_convert.get_vegalite_versions()
    return wanted if wanted in versions else None


def render_png(chart: alt.TopLevelMixin, *, scale: float = 2.0) -> bytes:
    """PNG bytes of the chart (vl-convert, no browser, no network)."""
    import vl_convert

    data = vl_convert.vegalite_to_png(chart_spec(chart), vl_version=_vl_version(), scale=scale)
    return bytes(data)


def render_svg(chart: alt.TopLevelMixin) -> str:
    """SVG text of the chart (vl-convert, no browser, no network)."""
    import vl_convert

    return str(vl_convert.vegalite_to_svg(chart_spec(chart), vl_version=_vl_version()))


def save_chart(
    chart: alt.TopLevelMixin, path: str | os.PathLike[str], *, scale: float = 2.0
) -> Path:
    """Write the chart as PNG or SVG, chosen by the file suffix, atomically.

    Rendering uses vl-convert-python, so it needs no browser and no network.
    """
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix == ".png":
        data = render_png(chart, scale=scale)
    elif suffix == ".svg":
        data = render_svg(chart).encode("utf-8")
    else:
        raise ValueError(f"{target}: save_chart writes .png or .svg, not {suffix or 'no suffix'!r}")
    write_bytes_atomic(target, data)
    return target


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def enable_offline() -> str:
    """Make Altair render without a CDN; returns the renderer enabled.

    In a Jupyter kernel: the ``jupyter`` renderer with ``offline=True`` (anywidget, with the Vega
    libraries bundled). Elsewhere (a plain Python process, a converted notebook): the ``png``
    renderer, which draws with vl-convert.
    """
    if _in_kernel():
        try:
            alt.renderers.enable("jupyter", offline=True)
            return "jupyter"
        except Exception:  # anywidget missing or refusing: fall back to static images
            pass
    alt.renderers.enable("png")
    return "png"
