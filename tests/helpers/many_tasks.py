"""Sweeps of many small tasks for the report tests (synthetic: written for the tests), and a
sweep result whose task ids are replaced by hostile ones."""

from __future__ import annotations

from typing import Any

import pandas as pd

from helpers.suites import entry, scripted_task, suite_of
from workbench import Suite, SweepResult

HOSTILE_IDS = (
    "<img src=x onerror=window.__wbRan=1>",
    "</script><script>window.__wbRan=2</script>",
    '=HYPERLINK("http://example.invalid","x")',
    "line\nbreak\x1b[31m",
)
"""Task ids built to break out of HTML, SVG, scripts, spreadsheets and terminals."""


def _task(task_id: str, fragile: bool) -> dict[str, object]:
    """Two calls; a fragile task aborts on any failure (nothing recovers), a sturdy one retries
    past a hard fault's repeats (everything recovers)."""
    policy: object = "abort" if fragile else {"retry": 5}
    steps = [{"tool": t, "args": {"q": task_id}, "onError": policy} for t in ("lookup", "send")]
    entries = [entry(t, {"q": task_id}) for t in ("lookup", "send")]
    return scripted_task(task_id, steps, entries)


def many_task_suite(n: int, fragile: set[int]) -> Suite:
    """``n`` two-call tasks ``task-000``...; those numbered in ``fragile`` recover nothing."""
    return suite_of(*(_task(f"task-{i:03d}", i in fragile) for i in range(n)))


class Renamed:
    """A sweep result whose task ids are replaced (a suite's ``taskId`` must match
    ``^[a-z0-9][a-z0-9-]*$``, but a report must not rely on that: results can be built or
    loaded from elsewhere)."""

    def __init__(self, result: SweepResult, names: dict[str, str]) -> None:
        self._result = result
        self._names = names
        self._back = {v: k for k, v in names.items()}

    def _mapped(self, frame: pd.DataFrame) -> pd.DataFrame:
        out = frame.copy()
        out["taskId"] = [self._names.get(str(t), t) for t in out["taskId"]]
        return out

    @property
    def frame(self) -> pd.DataFrame:
        return self._mapped(self._result.frame)

    @property
    def task_ids(self) -> tuple[str, ...]:
        return tuple(self._names.get(t, t) for t in self._result.task_ids)

    @property
    def steps(self) -> dict[tuple[str, str, int], Any]:
        return {(v, self._names.get(t, t), n): s for (v, t, n), s in self._result.steps.items()}

    def per_boundary(self) -> pd.DataFrame:
        return self._mapped(self._result.per_boundary())

    def recovery(self) -> pd.DataFrame:
        return self._mapped(self._result.recovery())

    def branches(self, task_id: str | None = None) -> pd.DataFrame:
        return self._result.branches(None if task_id is None else self._back[task_id])

    def __getattr__(self, name: str) -> Any:
        return getattr(self._result, name)
