"""The branch chart: the sweep's branch tree as an Altair chart (R33)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

import altair as alt
import pandas as pd

from .common import (
    _CALL_COLOURS,
    _CALL_SHAPES,
    _CALL_STATES,
    _EDGE_COLOURS,
    _EDGE_KINDS,
    _END_COLOURS,
    _END_STATES,
    _LANE_PX,
    _NODE_COLUMNS,
    _STEP_PX,
    BRANCH_SELECTION,
    MAX_BRANCH_NODES,
    MAX_BRANCH_STEPS,
    _data,
    _end_state,
    _names,
    _require,
    _truncate,
    safe_text,
)
from .layout import (
    _bin_size,
    _binned,
    _keep,
    _key_order,
    _layout,
    _leaf_label,
    _merged_edges,
    _Node,
    _pad_steps,
    _tree_nodes,
)


def _axis_label_expr(spine: Sequence[_Node]) -> str:
    parts = []
    for node in spine:
        if node.depth == 0:
            continue
        # A JSON string literal is a Vega expression string literal; the label is safe_text
        # already (no control or separator character), and <, >, & are written as escapes.
        label = (
            json.dumps(_truncate(node.step.rstrip("!") or node.tool, 26), ensure_ascii=True)
            .replace("<", "\\u003c")
            .replace(">", "\\u003e")
            .replace("&", "\\u0026")
        )
        parts.append(f"datum.value == {node.depth} ? {label}")
    return " : ".join([*parts, "''"]) if parts else "''"


def _spaced_labels(rows: list[dict[str, Any]], steps_per_step: float) -> list[dict[str, Any]]:
    """Of the leaf labels of a binned tree, those that do not overlap the one before them on
    their lane (left to right); on the "other branches" lane only the last, unnumbered."""
    by_lane: dict[float, list[dict[str, Any]]] = {}
    for row in rows:
        by_lane.setdefault(row["y"], []).append(row)
    out: list[dict[str, Any]] = []
    for lane_rows in by_lane.values():
        lane_rows.sort(key=lambda r: r["x"])
        if all(str(r["label"]).startswith("other branches") for r in lane_rows):
            out.append({**lane_rows[-1], "label": "other branches"})
            continue
        free = float("-inf")
        for row in lane_rows:
            if row["x"] >= free:
                out.append(row)
                free = row["x"] + _pad_steps(str(row["label"])) * steps_per_step
    return sorted(out, key=lambda r: (r["x"], r["y"]))


def branch_chart(
    branches: pd.DataFrame,
    *,
    max_nodes: int = MAX_BRANCH_NODES,
    max_steps: int = MAX_BRANCH_STEPS,
    title: str | None = None,
    select: bool = False,
) -> alt.LayerChart:
    """The branch tree of a sweep (R33) from :func:`workbench.branch_tree`'s frame.

    Steps run left to right (x = depth). The baseline path is the spine, a straight line on one
    y; each fault branch leaves it at its divergence step into its own lane above or below.
    Node shape and colour say what the call got (ok, error served, miss); a square marks where
    trials end (passed, failed or mixed); edge width is the number of variant-trials through the
    edge that end passed. At most ``max_nodes`` nodes off the spine are drawn (the busiest); the
    rest are merged into one "other branches" node per depth on the bottom lane. A tree deeper
    than ``max_steps`` steps is drawn in columns of several steps: the nodes of one lane within
    a column become one node (counts of the variant-trials entering it, the most notable call
    shown), so a 2,000-call run draws a few hundred marks, not thousands a pixel apart, and
    leaf labels are drawn only where they do not overlap.

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
    merged_count = sum(1 for n in kept.values() if n.merged)
    drawn = sum(1 for n in kept.values() if not n.on_baseline and not n.merged)
    size = _bin_size(max((n.depth for n in kept.values()), default=0), max_steps)
    kept, edges = _binned(kept, edges, size)
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
    dense = size > 1
    # Long runs get narrower steps: the chart fits a page (about 1,100 px of plot).
    step_px = max(0.25, min(float(_STEP_PX), 1100 / max(1, depth_max)))
    if dense:
        label_rows = _spaced_labels(label_rows, _STEP_PX / step_px)
    label_room = max((_pad_steps(r["label"]) for r in label_rows), default=0.5)
    y_scale = alt.Scale(domain=[bottom - 0.7, top + 0.7], nice=False, zero=False)
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
        .mark_rule(strokeCap="round", aria=False)
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
        .mark_point(
            shape="square",
            filled=False,
            size=90 if dense else 230,
            strokeWidth=1.4 if dense else 2.2,
            aria=False,
        )
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
        .mark_point(
            filled=True,
            size=28 if dense else 70,
            opacity=1,
            cursor="pointer" if select else alt.Undefined,
        )
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
        .mark_text(align="left", baseline="middle", dx=11, fontSize=11, color="#333333", aria=False)
        .encode(x=x, y=y, text="label:N")
    )
    if dense:
        subtitle_columns = f"{size} steps per column (a node: that lane's calls in the column)"
    else:
        subtitle_columns = ""
    off_spine = sum(1 for n in all_nodes.values() if not n.on_baseline)
    subtitle = [
        "baseline on the straight line; branches leave it at their divergence step",
    ]
    if merged_count:
        subtitle.append(
            f"{drawn} of {off_spine} branch nodes drawn; the rest merged per step into "
            "'other branches' (bottom lane)"
        )
    if subtitle_columns:
        subtitle.append(subtitle_columns)
    return cast(
        alt.LayerChart,
        alt.layer(edge_layer, end_layer, node_layer, label_layer)
        .resolve_scale(color="independent", shape="independent")
        .properties(
            width=width,
            height=height,
            title=alt.TitleParams(
                safe_text(title or "Branch tree"), subtitle=subtitle, anchor="start"
            ),
        )
        .properties(view=alt.ViewBackground(stroke=None)),
    )
