"""The trajectory view both the Replay and the Sweep parts show: a run beside the baseline.

A view only: it formats :class:`~workbench.Step` records and the library's
:func:`~workbench.divergence`; every recorded text is escaped.
"""

from __future__ import annotations

from collections.abc import Sequence

from workbench import Step, divergence

from ._escape import esc, html_table, markup, mono

__all__ = ["trajectory_html"]


def _note(step: Step) -> str:
    """The error text of a failure, or how a success was served when not by a fixture."""
    if step.is_error:
        return step.error
    return "" if step.served_by == "fixture" else step.served_by


def _cell(step: Step | None) -> str:
    if step is None:
        return ""
    mark = (
        '<span class="wb-failed" title="failed call">&#10007; failed</span> '
        if step.is_error
        else ""
    )
    note_text = _note(step)
    note = f' <span style="color:#666">{esc(note_text)}</span>' if note_text else ""
    tool_cls = "wb-failed" if step.is_error else "wb-ok"
    return (
        f'{mark}<b class="{tool_cls}">{esc(step.tool)}</b> {mono(step.args_json, limit=80)}{note}'
    )


def trajectory_html(
    baseline: Sequence[Step], steps: Sequence[Step], *, label: str = "this run"
) -> str:
    """Two trajectories side by side; the divergence row marked, failed calls marked failed."""
    at = divergence(baseline, steps)
    rows = []
    classes = []
    for i in range(max(len(baseline), len(steps))):
        base = baseline[i] if i < len(baseline) else None
        step = steps[i] if i < len(steps) else None
        marker = "&#9654; diverges" if i == at else ""
        rows.append([i, markup(_cell(base)), markup(_cell(step)), markup(marker)])
        classes.append("wb-diverged" if i == at else "")
    note = (
        "same trajectory as the baseline"
        if at is None
        else f"diverges from the baseline at step {at}"
    )
    table = html_table(["step", "baseline", label, ""], rows, row_classes=classes)
    return f'<div class="wb-trajectory-note">{esc(note)}</div>{table}'
