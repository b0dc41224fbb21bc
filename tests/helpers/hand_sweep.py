"""A sweep result built by hand, so the charts and the report are pinned without the sweep engine.

``hand_sweep`` builds the sweep contract's frames for a billing-like sweep (a baseline of 12
calls, 24 single-fault variants: hard ones end failed, transient ones retry, rejoin the recorded
calls and pass) and ``synthetic_sweep`` for about 1,000 variants. ``branch_frame`` is an
independent R33 tree over them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, cast

import pandas as pd

from workbench import SweepResult

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

BILLING_TOOLS = (
    "tickets:get",
    "crm:get-customer",
    "billing:lookup",
    "billing:list-invoices",
    "billing:list-invoices",
    "billing:get-invoice",
    "payments:list-charges",
    "payments:refund",
    "billing:get-invoice",
    "crm:add-note",
    "email:send",
    "tickets:update",
)


@dataclass(frozen=True, slots=True)
class HandStep:
    """A step as the sweep contract's ``Step`` has it."""

    tool: str
    args_json: str
    is_error: bool
    served_by: str = "fixture"

    @property
    def key(self) -> tuple[str, str, bool]:
        return (self.tool, self.args_json, self.is_error)


@dataclass(frozen=True, slots=True)
class HandSuite:
    suite_id: str
    version: str


@dataclass(slots=True)
class HandSweep:
    """A sweep result built by hand: the attributes of :class:`workbench.SweepResult` that the
    charts and the report read."""

    frame: pd.DataFrame
    steps: dict[tuple[str, str, int], tuple[HandStep, ...]]
    boundary_rows: list[dict[str, Any]]
    suite: HandSuite = field(default_factory=lambda: HandSuite("billing-support", "1.0.0"))
    trials: int = 1
    seed: int = 0
    kinds: tuple[str, ...] = ("hard", "transient")

    def per_boundary(self) -> pd.DataFrame:
        return pd.DataFrame(
            self.boundary_rows,
            columns=[
                "taskId",
                "boundary",
                "kind",
                "variants",
                "trials",
                "recoveryRate",
                "passHatK",
                "extraCalls",
            ],
        )

    def recovery(self) -> pd.DataFrame:
        """The overall R38 row, every variant-trial taken as triggered."""
        from workbench import RECOVERY_COLUMNS, wilson_interval

        rows = self.frame[self.frame["variant"] != "baseline"]
        done = int(rows["passed"].sum())
        low, high = wilson_interval(done, len(rows))
        row = {
            "level": "overall", "taskId": "", "boundary": None, "tool": "", "kind": "",
            "variantTrials": len(rows), "triggered": len(rows), "untriggered": 0,
            "recovered": done, "needsModel": 0,
            "recoveryRate": done / len(rows) if len(rows) else None, "low95": low, "high95": high,
        }  # fmt: skip
        return pd.DataFrame([row], columns=list(RECOVERY_COLUMNS))

    def branches(self, task_id: str | None = None) -> pd.DataFrame:
        return branch_frame(self)


def branch_frame(sweep: HandSweep) -> pd.DataFrame:
    """The R33 tree of a hand sweep: trajectories merged on (tool, args, isError) prefixes."""
    root: dict[str, Any] = {
        "children": {},
        "depth": 0,
        "step": None,
        "count": 0,
        "passed": 0,
        "end": 0,
        "endPassed": 0,
        "base": True,
        "variants": {},
    }

    def walk(steps: tuple[HandStep, ...]) -> list[dict[str, Any]]:
        path, node = [root], root
        for index, step in enumerate(steps):
            child = node["children"].get(step.key)
            if child is None:
                child = node["children"][step.key] = {
                    "children": {},
                    "depth": node["depth"] + 1,
                    "step": step,
                    "index": index,
                    "count": 0,
                    "passed": 0,
                    "end": 0,
                    "endPassed": 0,
                    "base": False,
                    "variants": {},
                }
            path.append(child)
            node = child
        return path

    for node in walk(sweep.steps[("baseline", "billing", 0)]):
        node["base"] = True
    for rec in sweep.frame.to_dict("records"):
        if rec["variant"] == "baseline":
            continue
        path = walk(sweep.steps[(rec["variant"], rec["taskId"], int(rec["trial"]))])
        for node in path:
            node["count"] += 1
            node["passed"] += bool(rec["passed"])
            node["variants"][rec["variant"]] = None
        path[-1]["end"] += 1
        path[-1]["endPassed"] += bool(rec["passed"])
    rows: list[dict[str, Any]] = []
    stack: list[tuple[dict[str, Any], int | None]] = [(root, None)]
    while stack:
        node, parent = stack.pop()
        number = len(rows)
        step = node["step"]
        rows.append(
            {
                "node": number,
                "parent": parent,
                "depth": node["depth"],
                "step": "start"
                if step is None
                else f"{node['index']} {step.tool}{'!' if step.is_error else ''}",
                "tool": "" if step is None else step.tool,
                "args": "" if step is None else step.args_json,
                "isError": False if step is None else step.is_error,
                "servedBy": "" if step is None else step.served_by,
                "count": node["count"],
                "passedCount": node["passed"],
                "endCount": node["end"],
                "endPassed": node["endPassed"],
                "onBaseline": node["base"],
                "variants": ",".join(node["variants"]),
            }
        )
        stack.extend((c, number) for c in reversed(list(node["children"].values())))
    return pd.DataFrame(rows).astype({"parent": "Int64"})


def _divergence(steps: tuple[HandStep, ...], base: tuple[HandStep, ...]) -> int | None:
    for index, (a, b) in enumerate(zip(steps, base, strict=False)):
        if a.key != b.key:
            return index
    return None if len(steps) == len(base) else min(len(steps), len(base))


def hand_sweep(
    tools: tuple[str, ...] = BILLING_TOOLS,
    *,
    recorded_error: int | None = 3,
    arg_text: str = "",
    name_prefix: str = "",
) -> HandSweep:
    """Single hard and transient faults on every boundary of a recorded run of ``tools``."""
    base = tuple(
        HandStep(tool, json.dumps({"i": i, "note": arg_text}), i == recorded_error)
        for i, tool in enumerate(tools)
    )
    steps: dict[tuple[str, str, int], tuple[HandStep, ...]] = {("baseline", "billing", 0): base}
    rows: list[dict[str, Any]] = [_row("baseline", "", "", base, base, True, None)]
    boundary_rows: list[dict[str, Any]] = []
    for b, step in enumerate(base):
        failed = HandStep(step.tool, step.args_json, True)
        for kind in ("hard", "transient"):
            name = f"{name_prefix}b{b:02d}-{kind}"
            if kind == "hard":
                taken = (*base[:b], failed, failed)
                passed = False
            else:
                taken = (*base[:b], failed, *base[b:])
                passed = True
            steps[(name, "billing", 0)] = taken
            rows.append(_row(name, str(b), kind, taken, base, passed, passed))
            boundary_rows.append(
                {
                    "taskId": "billing",
                    "boundary": b,
                    "kind": kind,
                    "variants": 1,
                    "trials": 1,
                    "recoveryRate": float(passed),
                    "passHatK": float(passed),
                    "extraCalls": float(len(taken) - len(base)),
                }
            )
    frame = pd.DataFrame(rows).astype(
        {"divergenceStep": "Int64", "recovered": "boolean", "passed": "bool"}
    )
    return HandSweep(frame=frame, steps=steps, boundary_rows=boundary_rows)


def _row(
    name: str,
    boundaries: str,
    kind: str,
    taken: tuple[HandStep, ...],
    base: tuple[HandStep, ...],
    passed: bool,
    recovered: bool | None,
) -> dict[str, Any]:
    return {
        "variant": name,
        "taskId": "billing",
        "boundaries": boundaries,
        "kind": kind,
        "trial": 0,
        "passed": passed,
        "score": float(passed),
        "calls": len(taken),
        "errorsServed": sum(s.is_error for s in taken),
        "fixtureMisses": 0,
        "outcome": "completed" if passed else "failed",
        "divergenceStep": _divergence(taken, base),
        "recovered": recovered if recovered is not None else pd.NA,
        "trajectory": " > ".join(f"{s.tool}!" if s.is_error else s.tool for s in taken),
    }


def synthetic_sweep(n_variants: int = 1000) -> HandSweep:
    """About ``n_variants`` single-fault variants over a long recorded run (two per boundary)."""
    tools = tuple(f"svc{i % 7}:op{i % 11}" for i in range(n_variants // 2))
    return hand_sweep(tools, recorded_error=None)


def as_sweep_result(sweep: HandSweep) -> SweepResult:
    """``sweep`` where a :class:`workbench.SweepResult` is asked for: the report reads only the
    attributes a ``HandSweep`` has (``frame``, ``steps``, ``suite``, ``trials``, ``seed``,
    ``kinds``, ``per_boundary()``, ``branches()``), so the static type is all that differs."""
    return cast(SweepResult, sweep)
