"""The branch tree's layout, computed in Python before any chart (R33).

The baseline path is the spine (lane 0, a straight line), and each branch is a block of lanes
above or below it, packed so that no two branches share a lane over the same steps. Later branches
are packed first, nearest the spine, so an earlier branch's edge leaving the spine never crosses a
later branch's line. Past a node budget the busiest branches are kept and the rest merged into
one "other branches" node per depth.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from .common import (
    _LABEL_CHAR_PX,
    _STEP_PX,
    CallState,
    _call_state,
    _int,
    _is_nan,
    _names,
    _records,
    _truncate,
)


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


_CALL_RANK: dict[CallState, int] = {"start": 0, "ok": 1, "error served": 2, "miss": 3}


def _bin_size(depth_max: int, max_steps: int) -> int:
    """Steps per drawn column: 1 up to ``max_steps`` steps, else enough to fit in that many."""
    return max(1, -(-(depth_max + 1) // max(1, max_steps)))


def _binned(
    nodes: dict[str, _Node], edges: Sequence[tuple[str, str, int]], size: int
) -> tuple[dict[str, _Node], list[tuple[str, str, int]]]:
    """The laid-out tree with the nodes of one lane within ``size`` consecutive steps drawn as
    one node, and the edges between those groups (edges inside a group are dropped).

    A group sits at its first node's depth and keeps that node's key. Its counts are those of
    the variant-trials entering it: the sum over its members whose parent lies outside it
    (in a tree these are disjoint, and every other member's trials passed through one of
    them); ends are summed over every member; the call shown is the most notable one (a miss,
    else an error served). An edge's passing count is the sum over the tree edges it stands
    for, which enter the child group from outside and so are disjoint too.
    """
    if size <= 1:
        return nodes, list(edges)
    groups: dict[tuple[int, int, bool], list[_Node]] = {}
    for node in sorted(nodes.values(), key=lambda n: (n.depth, _key_order(n.key))):
        column = 0 if node.depth == 0 else 1 + (node.depth - 1) // size  # the root alone
        groups.setdefault((node.lane, column, node.merged), []).append(node)
    group_of: dict[str, str] = {}
    for members in groups.values():
        for member in members:
            group_of[member.key] = members[0].key
    out: dict[str, _Node] = {}
    for members in groups.values():
        first, last = members[0], members[-1]
        inside = {m.key for m in members}
        roots = [m for m in members if m.parent not in inside]
        tools = {m.tool for m in members}
        args = {m.args for m in members}
        names = list(dict.fromkeys(n for m in members for n in _names(m.variants)))
        out[first.key] = _Node(
            key=first.key,
            parent=group_of.get(first.parent) if first.parent is not None else None,
            depth=first.depth,
            step=first.step
            if len(members) == 1
            else f"{first.step} \u2026 {last.step} ({len(members)} steps)",
            tool=first.tool if len(tools) == 1 else "(several)",
            args=first.args if len(args) == 1 else "",
            call=max((m.call for m in members), key=_CALL_RANK.__getitem__),
            count=sum(m.count for m in roots),
            passed=sum(m.passed for m in roots),
            end_count=sum(m.end_count for m in members),
            end_passed=sum(m.end_passed for m in members),
            on_baseline=first.on_baseline,
            variants=",".join(names),
            merged=first.merged,
            merged_nodes=sum(m.merged_nodes for m in members),
            lane=first.lane,
        )
    totals: dict[tuple[str, str], int] = {}
    for source, target, passed in edges:
        pair = (group_of[source], group_of[target])
        if pair[0] != pair[1]:
            totals[pair] = totals.get(pair, 0) + passed
    return out, [(s, t, p) for (s, t), p in totals.items()]
