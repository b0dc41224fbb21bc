"""Sweep charts: the branch tree, the recovery matrix, the divergence strip.

The charts take the sweep contract's DataFrames. ``helpers.hand_sweep`` builds them by hand for
a billing-like sweep (a baseline of 12 calls, 24 single-fault variants: hard ones end failed,
transient ones retry, rejoin the recorded calls and pass) and for 1,000 variants, so the charts
are pinned independently of the sweep engine.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import altair as alt
import pytest

from helpers.hand_sweep import PNG_SIGNATURE, HandSweep, hand_sweep, synthetic_sweep
from workbench import BRANCH_SELECTION, branch_chart, divergence_strip, recovery_matrix, save_chart
from workbench._report.render import chart_spec

ALTAIR_ROW_LIMIT = 5000


@pytest.fixture(scope="module")
def billing() -> HandSweep:
    return hand_sweep()


@pytest.fixture(scope="module")
def big() -> HandSweep:
    return synthetic_sweep(1000)


def _datasets(spec: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Every inline dataset of a spec (top-level ``datasets`` and any inline ``data.values``)."""
    found = [rows for rows in spec.get("datasets", {}).values()]

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            values = (
                node.get("data", {}).get("values") if isinstance(node.get("data"), dict) else None
            )
            if isinstance(values, list):
                found.append(values)
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit({k: v for k, v in spec.items() if k != "datasets"})
    return found


def _layer_rows(spec: dict[str, Any], mark: str) -> list[list[dict[str, Any]]]:
    out = []
    for layer in spec["layer"]:
        layer_mark = layer["mark"]["type"] if isinstance(layer["mark"], dict) else layer["mark"]
        if layer_mark == mark:
            name = layer["data"]["name"]
            out.append(spec["datasets"][name])
    return out


def _by_colour(spec: dict[str, Any], field: str) -> list[dict[str, Any]]:
    """The rows of the one layer coloured by ``field``."""
    layers: list[list[dict[str, Any]]] = [
        spec["datasets"][layer["data"]["name"]]
        for layer in spec["layer"]
        if layer["encoding"].get("color", {}).get("field") == field
    ]
    (rows,) = layers
    return rows


# ---- branch chart -------------------------------------------------------------------------


def test_branch_chart_draws_every_node_of_a_small_sweep(billing: HandSweep) -> None:
    """R33: all nodes of a 24-variant tree are drawn, with their counts."""
    tree = billing.branches()
    spec = chart_spec(branch_chart(tree))
    nodes = _by_colour(spec, "call")
    assert len(nodes) == len(tree)
    assert sum(r["count"] for r in nodes if r["key"] == "n0") == 24
    assert not any(r["key"].startswith("other") for r in nodes)


def test_branch_chart_spine_is_one_straight_line(billing: HandSweep) -> None:
    """R33: the baseline path is drawn on one y; no other node sits on that y."""
    spec = chart_spec(branch_chart(billing.branches()))
    nodes = _by_colour(spec, "call")
    spine = [r for r in nodes if r["spine"]]
    assert len(spine) == 13  # the root and 12 recorded calls
    assert {r["y"] for r in spine} == {0}
    assert all(r["y"] != 0 for r in nodes if not r["spine"])
    assert sorted(r["x"] for r in spine) == list(range(13))


def test_branches_leave_the_spine_at_their_divergence_step(billing: HandSweep) -> None:
    """R33: each branch's first node is one step right of the spine node it leaves."""
    tree = billing.branches()
    spec = chart_spec(branch_chart(tree))
    (edges,) = _layer_rows(spec, "rule")
    leaving = [e for e in edges if e["y"] == 0 and e["y2"] != 0]
    assert leaving and all(e["x2"] == e["x"] + 1 for e in leaving)
    divergence = {
        int(d) for d in billing.frame["divergenceStep"].dropna()
    }  # 0-based step; depth = step + 1
    assert {e["x2"] - 1 for e in leaving} == divergence


def test_branch_lanes_do_not_overlap(billing: HandSweep) -> None:
    """Two nodes never share a position, and no two horizontal edges overlap on one lane."""
    spec = chart_spec(branch_chart(billing.branches()))
    nodes = _by_colour(spec, "call")
    positions = [(r["x"], r["y"]) for r in nodes]
    assert len(positions) == len(set(positions))
    (edges,) = _layer_rows(spec, "rule")
    spans: dict[float, list[tuple[float, float]]] = {}
    for e in edges:
        if e["y"] == e["y2"]:
            for a, b in spans.get(e["y"], []):
                assert e["x2"] <= a or e["x"] >= b, f"overlap on lane {e['y']}"
            spans.setdefault(e["y"], []).append((e["x"], e["x2"]))


def test_branch_chart_encodes_outcome_width_and_tooltips(billing: HandSweep) -> None:
    """Node shape/colour by call result, end markers by final outcome, edge width by passedCount."""
    spec = chart_spec(branch_chart(billing.branches()))
    encodings = {layer["mark"]["type"]: layer["encoding"] for layer in spec["layer"]}
    assert encodings["rule"]["strokeWidth"]["field"] == "passedCount"
    point_layers = [layer for layer in spec["layer"] if layer["mark"]["type"] == "point"]
    fields = {layer["encoding"]["color"]["field"] for layer in point_layers}
    assert fields == {"call", "end"}
    node_layer = next(lay for lay in point_layers if lay["encoding"]["color"]["field"] == "call")
    assert node_layer["encoding"]["shape"]["field"] == "call"
    tips = {t["field"] for t in node_layer["encoding"]["tooltip"]}
    assert {"step", "tool", "args", "count", "passedCount", "variants"} <= tips
    ends = _by_colour(spec, "end")
    assert {r["end"] for r in ends} == {"ended passed", "ended failed"}
    nodes = _by_colour(spec, "call")
    assert {r["call"] for r in nodes} == {"start", "ok", "error served"}


def test_branch_chart_truncates_long_args_in_tooltips() -> None:
    sweep = hand_sweep(arg_text="x" * 500)
    spec = chart_spec(branch_chart(sweep.branches()))
    nodes = _by_colour(spec, "call")
    assert max(len(r["args"]) for r in nodes) <= 80


def test_branch_chart_layout_is_deterministic(billing: HandSweep) -> None:
    a = json.dumps(chart_spec(branch_chart(billing.branches())), sort_keys=True)
    b = json.dumps(chart_spec(branch_chart(hand_sweep().branches())), sort_keys=True)
    assert a == b


# ---- row limit at 1,000 variants -------------------------------------------------------------


def test_charts_stay_under_the_row_limit_at_1000_variants(big: HandSweep) -> None:
    """No dataset over 5,000 rows with Altair's data transformer left at its default."""
    assert alt.data_transformers.active == "default"
    assert len(big.frame) > 1000
    tree = big.branches()
    assert len(tree) > ALTAIR_ROW_LIMIT  # the raw tree would not fit
    for chart in (
        branch_chart(tree),
        recovery_matrix(big.per_boundary()),
        divergence_strip(big.frame, big.steps),
        divergence_strip(big.frame),
    ):
        spec = chart_spec(chart)  # raises MaxRowsError if a dataset is too big
        sizes = [len(rows) for rows in _datasets(spec)]
        assert sizes and max(sizes) <= ALTAIR_ROW_LIMIT
    assert alt.data_transformers.active == "default"


def test_branch_chart_merges_the_rest_into_other_branches(big: HandSweep) -> None:
    tree = big.branches()
    spec = chart_spec(branch_chart(tree, max_nodes=60))
    nodes = _by_colour(spec, "call")
    others = [r for r in nodes if r["key"].startswith("other@")]
    drawn = [r for r in nodes if not r["spine"] and not r["key"].startswith("other@")]
    assert others and len(drawn) <= 60
    assert len({r["y"] for r in others}) == 1
    assert min(r["y"] for r in nodes) == others[0]["y"]
    # Counts are kept: what leaves the spine at depth 1 is drawn or merged, never lost.
    depth1 = [r for r in nodes if r["x"] == 1 and not r["spine"]]
    total = int(tree[(tree["depth"] == 1) & ~tree["onBaseline"]]["count"].sum())
    assert sum(r["count"] for r in depth1) == total
    assert "merged" in json.dumps(spec["title"])


def test_a_deep_branch_tree_is_drawn_in_columns_of_steps(big: HandSweep) -> None:
    """R33 at scale: past ``max_steps`` steps one lane's nodes within a column of steps are
    drawn as one node; the spine keeps its counts, and every trial still ends somewhere."""
    tree = big.branches()
    depth = int(tree["depth"].max())
    assert depth > 400
    fine = chart_spec(branch_chart(tree, max_steps=10_000))
    coarse = chart_spec(branch_chart(tree, max_steps=100))
    fine_nodes, coarse_nodes = _by_colour(fine, "call"), _by_colour(coarse, "call")
    size = -(-(depth + 1) // 100)
    assert len(coarse_nodes) < len(fine_nodes) / 2
    spine = sorted((r for r in coarse_nodes if r["spine"]), key=lambda r: r["x"])
    assert {r["y"] for r in spine} == {0} and len(spine) <= 102
    # A spine column counts the trials reaching its first step, as the per-step chart does.
    fine_spine = {r["x"]: r["count"] for r in fine_nodes if r["spine"]}
    assert all(fine_spine[r["x"]] == r["count"] for r in spine)
    for column in ("endCount", "endPassed"):
        assert sum(r[column] for r in coarse_nodes) == sum(r[column] for r in fine_nodes)
    positions = [(r["x"], r["y"]) for r in coarse_nodes]
    assert len(positions) == len(set(positions))
    (edges,) = _layer_rows(coarse, "rule")
    keys = {(r["x"], r["y"]) for r in coarse_nodes}
    assert all((e["x"], e["y"]) in keys and (e["x2"], e["y2"]) in keys for e in edges)
    (labels,) = _layer_rows(coarse, "text")
    assert len([r for r in labels if r["label"].startswith("other branches")]) == 1
    assert f"{size} steps per column" in json.dumps(coarse["title"])
    assert "per column" not in json.dumps(fine["title"])


def test_branch_chart_has_no_selection_unless_asked(billing: HandSweep) -> None:
    """The report and PNGs draw the static chart: no params, no ``variant`` field."""
    spec = chart_spec(branch_chart(billing.branches()))
    assert "params" not in json.dumps(spec)
    assert all("variant" not in row for row in _by_colour(spec, "call"))


def test_branch_chart_select_adds_a_point_selection_on_the_first_variant(
    billing: HandSweep,
) -> None:
    """R33 chart: ``select=True`` adds the ``branch`` point selection (field ``variant``) to
    the node marks; each node carries the first variant through it, in full."""
    tree = billing.branches()
    spec = chart_spec(branch_chart(tree, select=True))
    (param,) = spec["params"]
    assert param["name"] == BRANCH_SELECTION == "branch"
    assert param["select"]["type"] == "point"
    assert param["select"]["fields"] == ["variant"]
    node_layer = next(
        layer for layer in spec["layer"] if layer["encoding"].get("shape", {}).get("field")
    )
    assert param["views"] == [node_layer["name"]]
    assert node_layer["encoding"]["opacity"]["condition"]["param"] == "branch"
    nodes = _by_colour(spec, "call")
    by_key = {row["key"]: row for row in nodes}
    for rec in tree.to_dict("records"):
        names = [n for n in str(rec["variants"] or "").split(",") if n]
        assert by_key[f"n{rec['node']}"]["variant"] == (names[0] if names else "")
    # The rest of the chart is the static one.
    static = chart_spec(branch_chart(tree))
    assert [len(rows) for rows in _datasets(spec)] == [len(rows) for rows in _datasets(static)]


def test_a_selected_node_reaches_python_through_jupyterchart(billing: HandSweep) -> None:
    """altair's JupyterChart turns the front end's ``_vl_selections`` into a PointSelection
    on ``.selections.branch`` holding the clicked node's ``variant``."""
    chart = alt.JupyterChart(branch_chart(billing.branches(), select=True))
    # altair adds one trait per named selection to ``Selections`` at run time (add_traits), so
    # no static type can know ``.branch``: the attribute the user reads is the point here.
    assert chart.selections.branch.value == []  # type: ignore[attr-defined]
    signal = {"vlPoint": {"or": [{"variant": "b03-hard"}]}, "variant": ["b03-hard"]}
    chart._vl_selections = {"branch": {"value": signal, "store": []}}
    assert chart.selections.branch.value == [{"variant": "b03-hard"}]  # type: ignore[attr-defined]


def test_divergence_strip_shows_at_most_n_variants_with_a_note(big: HandSweep) -> None:
    spec = chart_spec(divergence_strip(big.frame, big.steps, max_rows=25))
    cells = _by_colour(spec, "call")
    shown = list(dict.fromkeys(r["row"] for r in cells))
    assert len(shown) <= 25
    assert f"of {len(big.frame)} variant-trials" in json.dumps(spec["title"])


# ---- recovery matrix and divergence strip -------------------------------------------------------


def test_recovery_matrix_cells_carry_rate_and_text(billing: HandSweep) -> None:
    spec = chart_spec(recovery_matrix(billing.per_boundary()))
    (rows,) = spec["datasets"].values()
    assert len(rows) == 24
    rect = next(lay for lay in spec["layer"] if lay["mark"]["type"] == "rect")
    text = next(lay for lay in spec["layer"] if lay["mark"]["type"] == "text")
    assert rect["encoding"]["color"]["field"] == "rate"
    assert rect["encoding"]["x"]["field"] == "column"
    assert rect["encoding"]["y"]["field"] == "kind"
    assert text["encoding"]["text"]["field"] == "rateText"
    hard = {r["rateText"] for r in rows if r["kind"] == "hard"}
    transient = {r["rateText"] for r in rows if r["kind"] == "transient"}
    assert hard == {"0%"} and transient == {"100%"}


def test_recovery_matrix_bins_many_boundaries(big: HandSweep) -> None:
    spec = chart_spec(recovery_matrix(big.per_boundary(), max_columns=20))
    (rows,) = spec["datasets"].values()
    assert len({r["column"] for r in rows}) <= 20
    assert {r["trials"] for r in rows} != {1}
    assert all(r["rateText"] in ("0%", "100%") for r in rows)


def test_divergence_strip_marks_failed_calls_and_divergence(billing: HandSweep) -> None:
    """R17: failed calls are marked; the divergence step of each variant is marked."""
    spec = chart_spec(divergence_strip(billing.frame, billing.steps))
    cells = _by_colour(spec, "call")
    marks = next(
        spec["datasets"][lay["data"]["name"]]
        for lay in spec["layer"]
        if "opacity" in lay["encoding"]
    )
    hard = [r for r in cells if r["row"] == "b05-hard"]
    assert [r["call"] for r in hard][-2:] == ["error served", "error served"]
    assert {"row": "b05-hard", "step": 5, "mark": "divergence"} in marks
    order = list(dict.fromkeys(r["row"] for r in cells))
    assert order[0] == "baseline"
    assert len(marks) == 24
    # Without the steps mapping the compact trajectory gives the same calls.
    plain = chart_spec(divergence_strip(billing.frame))
    plain_cells = _by_colour(plain, "call")
    assert [(r["row"], r["call"]) for r in plain_cells] == [(r["row"], r["call"]) for r in cells]


# ---- rendering ----------------------------------------------------------------------------------


def test_save_chart_writes_a_png(billing: HandSweep, tmp_path: Path) -> None:
    path = save_chart(branch_chart(billing.branches()), tmp_path / "branches.png")
    data = path.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert len(data) > 20_000
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_save_chart_writes_svg_by_suffix_and_refuses_others(
    billing: HandSweep, tmp_path: Path
) -> None:
    path = save_chart(recovery_matrix(billing.per_boundary()), tmp_path / "m.svg")
    assert path.read_text(encoding="utf-8").lstrip().startswith("<svg")
    with pytest.raises(ValueError, match=r"\.png or \.svg"):
        save_chart(recovery_matrix(billing.per_boundary()), tmp_path / "m.jpg")


def test_a_long_strip_draws_runs_of_ok_calls_as_bars(big: HandSweep, billing: HandSweep) -> None:
    """Past DENSE_STRIP_STEPS steps a row's consecutive ok calls are one bar (a rule from half a
    step before the first to half a step after the last); failed calls stay points, and every
    step shown is in exactly one of the two. A short strip draws every call as before."""
    from workbench._report.strip import DENSE_STRIP_STEPS

    spec = chart_spec(divergence_strip(big.frame, big.steps, max_rows=10))
    (rule,) = [lay for lay in spec["layer"] if lay["mark"]["type"] == "rule"]
    runs = spec["datasets"][rule["data"]["name"]]
    points = _by_colour(spec, "call")
    assert all(p["call"] != "ok" for p in points)
    assert max(r["to"] for r in runs) + 1 > DENSE_STRIP_STEPS
    covered = {(r["row"], s) for r in runs for s in range(r["from"], r["to"] + 1)}
    assert len(covered) == sum(r["calls"] for r in runs)
    assert not covered & {(p["row"], p["step"]) for p in points}
    baseline = [r for r in runs if r["row"] == "baseline"]
    assert len(baseline) == 1 and baseline[0]["from"] == 0  # one bar, no recorded error
    assert len(runs) + len(points) < len(covered) // 10  # a few marks, not one per call
    short = chart_spec(divergence_strip(billing.frame, billing.steps))
    assert not [lay for lay in short["layer"] if lay["mark"]["type"] == "rule"]


def test_a_long_strip_shows_its_rows_by_marks_not_by_steps(big: HandSweep) -> None:
    """A row of 500 calls with one failure is a few marks, so the strip shows MAX_STRIP_ROWS
    rows of them (it showed 8: 4,000 points / 500 steps), every dataset under the row limit."""
    from workbench._report.common import MAX_STRIP_ROWS

    spec = chart_spec(divergence_strip(big.frame, big.steps))
    assert f"{MAX_STRIP_ROWS} of {len(big.frame)} variant-trials" in json.dumps(spec["title"])
    assert max(len(rows) for rows in _datasets(spec)) <= ALTAIR_ROW_LIMIT
