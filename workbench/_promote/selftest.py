"""The promotion self-test (SPEC R30).

Replaying an unmodified promoted suite with the scripted agent must reproduce each recorded call
sequence exactly, with zero misses. The recorded sequence of a task is its fixture entries in
order (promotion writes one per boundary, in call order). Any boundary where the replay differs
is reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._common.canonical import json_equal
from .._common.text import plural
from .._suite.model import Suite, task_tool_responses

__all__ = ["SelfTestMismatch", "SelfTestReport", "run_self_test"]


@dataclass(frozen=True, slots=True)
class SelfTestMismatch:
    """A boundary where the replay did not reproduce the recording."""

    task_id: str
    """The task."""
    index: int
    """The boundary's index (the first that differs)."""
    expected: str
    """The recorded call (``tool`` and args), or ``(end)``."""
    actual: str
    """The replayed call, or ``(end)``."""

    def __str__(self) -> str:
        return (
            f"{self.task_id} boundary {self.index}: "
            f"recorded {self.expected}, replayed {self.actual}"
        )


@dataclass(frozen=True, slots=True)
class SelfTestReport:
    """What the self-test found."""

    tasks: int
    """Tasks replayed."""
    boundaries: int
    """Recorded boundaries checked."""
    misses: int
    """Fixture misses over the replay (must be 0)."""
    mismatches: tuple[SelfTestMismatch, ...] = ()
    """Boundaries where the replayed sequence differs."""
    error: str | None = None
    """Why the self-test could not run (a refused or unscriptable suite), if it could not."""

    @property
    def passed(self) -> bool:
        """True when every recorded sequence was reproduced with zero misses."""
        return self.error is None and self.misses == 0 and not self.mismatches

    def summary_lines(self) -> list[str]:
        """Lines for people (the CLI)."""
        if self.error is not None:
            return [f"self-test could not run: {self.error}"]
        if self.passed:
            return [
                f"self-test passed: {plural(self.tasks, 'task')}, "
                f"{plural(self.boundaries, 'boundary', 'boundaries')} reproduced, 0 misses"
            ]
        lines = [
            f"self-test FAILED: {plural(len(self.mismatches), 'task')} differ, "
            f"{plural(self.misses, 'miss', 'misses')}"
        ]
        lines.extend(f"  {m}" for m in self.mismatches)
        return lines

    def to_json(self) -> dict[str, Any]:
        """The report as recorded on the suite (``x-promotion.selfTest``)."""
        body: dict[str, Any] = {
            "passed": self.passed,
            "tasks": self.tasks,
            "boundaries": self.boundaries,
            "fixtureMissCount": self.misses,
            "mismatches": [
                {"taskId": m.task_id, "index": m.index, "expected": m.expected, "actual": m.actual}
                for m in self.mismatches
            ],
        }
        if self.error is not None:
            body["error"] = self.error
        return body


def _describe(tool: str, args: Any) -> str:
    import json

    text = json.dumps(args, ensure_ascii=False, sort_keys=True)
    if len(text) > 80:
        text = text[:79] + "\u2026"
    return f"{tool}({text})"


def run_self_test(suite: Suite) -> SelfTestReport:
    """Replay ``suite`` unmodified with the scripted agent and compare with the recording."""
    from .._replay.session import replay
    from .._suite.capabilities import HostRefusal

    boundaries = sum(len(task_tool_responses(t)) for t in suite.tasks)
    try:
        result = replay(suite, events=False, trials=1, seed=0)
    except (HostRefusal, ValueError) as exc:
        return SelfTestReport(len(suite.tasks), boundaries, 0, (), str(exc))
    mismatches: list[SelfTestMismatch] = []
    for task, task_result in zip(suite.tasks, result.tasks, strict=True):
        recorded = task_tool_responses(task)
        calls = task_result.trials[0].calls
        for index in range(max(len(recorded), len(calls))):
            want = recorded[index] if index < len(recorded) else None
            got = calls[index] if index < len(calls) else None
            same = (
                want is not None
                and got is not None
                and want.get("tool") == got.tool
                and ("args" not in want or json_equal(want["args"], got.args))
            )
            if not same:
                mismatches.append(
                    SelfTestMismatch(
                        task_result.task_id,
                        index,
                        _describe(str(want.get("tool")), want.get("args")) if want else "(end)",
                        _describe(got.tool, got.args) if got else "(end)",
                    )
                )
                break
    return SelfTestReport(
        tasks=len(suite.tasks),
        boundaries=boundaries,
        misses=result.fixture_miss_count,
        mismatches=tuple(mismatches),
    )
