"""A sweep's report: one self-contained ``report.html`` plus the CSVs and PNGs it is made of.

:func:`write_report` writes into a folder:

- ``report.html``: the suite id and version, the host profile used, the charts, the
  per-boundary recovery table and the per-variant summary. It opens offline: the Vega,
  Vega-Lite and vega-embed libraries are inlined once (``vl_convert.javascript_bundle()``), each
  chart's spec sits in a JSON script block, and each chart is also inlined as a static SVG that
  stays when scripts do not run. The file refers to no ``http(s)://`` script or stylesheet.
- ``sweep.csv`` (the sweep frame), ``branches.csv`` (the branch tree), ``branches.png``,
  ``recovery.png``, ``divergence.png``.

A sweep of several tasks draws one chart of recovery by task (``overview``) and the three
per-task charts only for the ``task_charts`` most affected tasks: each chart costs about what
the whole replay does, so drawing every task's made the report grow with the task count (20
tasks of 100 calls: 27 MB, 19 s; 800 tasks: 185 s). The other tasks are in one per-boundary
table and in every figure table; the page says which tasks are charted and why. The page's
layout around the charts is ``page``.

All recorded text (tool names, args, payloads, variant names, task ids) is HTML-escaped; JSON
embedded in the page escapes ``<``, ``>`` and ``&`` so no recorded text can close a script block.
The same inputs give the same bytes: nothing in the report comes from the clock.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import altair as alt
import pandas as pd

if TYPE_CHECKING:
    from .._sweep.result import SweepResult

from .._common.atomic import replace_folder
from .._common.jsonio import write_bytes_atomic, write_text_atomic
from .._common.markers import REPORT_FILES, is_report_folder
from .._sweep.tables import frame_csv
from .charts import branch_chart, chart_spec, divergence_strip, recovery_matrix
from .embed import _BOOT, _bundle, _inline_svg, _script_element, _spec_element
from .overview import MAX_TASK_CHARTS, rank_tasks, task_matrix
from .page import _page, _profile_json
from .render import check_chart_engine, spec_svg, svgs_png
from .sections import _boundary_table, _other_tasks, _tasks_intro, _text

__all__ = ["REPORT_FILES", "write_report"]


def _task_charts(
    result: Any,
    task_id: str | None,
    frame: pd.DataFrame,
    per_boundary: pd.DataFrame,
    branches: pd.DataFrame | None = None,
) -> list[tuple[str, str, alt.TopLevelMixin, str]]:
    if branches is None:
        branches = result.branches() if task_id is None else result.branches(task_id)
    # In a multi-task report each chart names its task (the PNGs stack every charted task's).
    of = "" if task_id is None else f": task {task_id}"
    if task_id is not None:
        frame = frame[frame["taskId"].astype(str) == task_id]
        per_boundary = per_boundary[per_boundary["taskId"].astype(str) == task_id]
    return [
        (
            "branches", "Branch tree", branch_chart(branches, title=f"Branch tree{of}"),
            "Steps left to right; the baseline is the straight line, each fault branch leaves "
            "it where its trajectory first differs. Edge width: variant-trials through the edge "
            "that end passed.",
        ),
        (
            "recovery", "Recovery matrix",
            recovery_matrix(per_boundary, title=f"Recovery by boundary{of}"),
            "Per boundary and fault kind: recovered / triggered variant-trials (R38).",
        ),
        (
            "divergence", "Divergence strip",
            divergence_strip(frame, result.steps, title=f"Divergence strip{of}"),
            "Per variant-trial: the calls made, failed calls marked, the divergence step boxed.",
        ),
    ]  # fmt: skip


def write_report(
    result: SweepResult,
    out_dir: str | os.PathLike[str],
    *,
    profile: Any = None,
    title: str | None = None,
    interactive: bool = True,
    task_charts: int = MAX_TASK_CHARTS,
    overwrite: bool = False,
    parents: bool = False,
    inputs: Sequence[str | os.PathLike[str] | None] = (),
) -> Path:
    """Write ``report.html``, ``sweep.csv``, ``branches.csv``, ``recovery.csv`` and the chart
    PNGs for a sweep.

    ``result`` is a :class:`workbench.SweepResult`; ``profile`` the host profile the sweep ran
    against (a :class:`workbench.HostProfile` or its JSON; ``None``: the workbench's own host).
    The folder is replaced as a whole: the report is written into a new folder beside
    ``out_dir`` and swapped in when every file is done, so a failure leaves the old folder as it
    was. ``out_dir`` must be new, empty, or a report folder the workbench wrote
    (:func:`is_report_folder`); ``overwrite=True`` also replaces a folder of report files
    without the marker, but a folder holding other files is never replaced. Its parent folder
    must exist unless ``parents=True``; it may hold none of ``inputs``.

    The page starts with the terms it uses, the headline recovery figure and the figures per
    task and kind. A sweep of one task then shows its branch tree, recovery matrix and
    divergence strip. A sweep of several tasks shows one chart of recovery by task and kind
    (the 40 most affected tasks), then a section with the three charts for each of the
    ``task_charts`` most affected tasks (default 5: most triggered variant-trials not
    recovered, then the lowest rate, then suite order; every task when there are no more), and
    one per-boundary table for every other task: three charts cost about as much as replaying
    the whole sweep, so a report of hundreds of tasks cannot draw them all, and the page says
    which tasks have charts and why. Every task's figures are in the tables and the CSVs. The
    PNGs hold the charted tasks' charts, one under the other (``recovery.png`` starts with the
    chart by task). ``interactive=False`` leaves out the inlined Vega libraries (the static SVG
    charts remain), which makes the file about 900 kB smaller. Returns the path of
    ``report.html``.
    """
    if isinstance(task_charts, bool) or not isinstance(task_charts, int) or task_charts < 0:
        raise ValueError(f"task_charts must be an integer >= 0, not {task_charts!r}")
    check_chart_engine()  # (under too small a ulimit -v its engine kills the process)
    with replace_folder(
        out_dir,
        inputs=inputs,
        overwrite=overwrite,
        parents=parents,
        recognise=is_report_folder,
        known_names=REPORT_FILES,
    ) as folder:
        _write_report_files(result, folder, profile, title, interactive, task_charts)
    return Path(out_dir) / "report.html"


_Job = tuple[str, str, str, str, dict[str, Any], "Future[str]"]
"""A chart on its way: (file name, heading, caption, chart id, spec, its SVG)."""


def _figure(job: _Job, svg: str) -> str:
    name, heading, caption, chart_id, _, _ = job
    return (
        f'<h3 id="{chart_id}">{html.escape(heading)}</h3>\n<figure>'
        f'<div class="chart" data-spec="spec-{chart_id}">{svg}</div>'
        f"<figcaption>{html.escape(caption)} "
        f'(<a href="{name}.png">{name}.png</a>)</figcaption></figure>'
    )


def _write_report_files(
    result: SweepResult,
    folder: Path,
    profile: Any,
    title: str | None,
    interactive: bool,
    task_charts: int,
) -> None:
    frame = result.frame
    per_boundary = result.per_boundary()
    profile_data = _profile_json(profile)
    task_ids = [str(t) for t in getattr(result, "task_ids", ())] or list(
        dict.fromkeys(str(t) for t in frame["taskId"])
    )
    multi = len(task_ids) > 1
    recovery = result.recovery() if hasattr(result, "recovery") else None
    ranks = rank_tasks(recovery, task_ids)
    charted = {rank.task_id for rank in ranks[:task_charts]}

    all_branches = result.branches()
    # Vega (vl-convert) and the rasteriser (resvg) release the GIL: charts render on two
    # threads while this one builds the next charts, the CSVs and the tables. Each chart is
    # made into a spec once and rendered to SVG once; the PNGs are rasterised from those SVGs.
    # The specs are not validated against the Vega-Lite schema here (the chart tests do that
    # for every chart builder); Altair's row limit still applies.
    with ThreadPoolExecutor(max_workers=2) as pool:
        bundle_job = pool.submit(_bundle) if interactive else None

        def job(name: str, heading: str, chart: Any, caption: str, chart_id: str) -> _Job:
            spec = chart_spec(chart, validate=False)
            return (name, heading, caption, chart_id, spec, pool.submit(spec_svg, spec))

        overview: _Job | None = None
        if multi and recovery is not None:
            overview = job(
                "recovery", "Recovery by task", task_matrix(recovery, ranks),
                "Per task and fault kind: recovered / triggered variant-trials (R38), the "
                "most affected tasks first.", "tasks",
            )  # fmt: skip
        pending: list[tuple[int, str, list[_Job]]] = []
        for number, task_id in enumerate(task_ids if multi else [None], start=1):
            name_of = task_id or (task_ids[0] if task_ids else "")
            if name_of not in charted and (multi or task_charts == 0):
                continue
            tree = None if multi else all_branches
            jobs = [
                job(name, heading, chart, caption, f"{name}-{number}" if multi else name)
                for name, heading, chart, caption in _task_charts(
                    result, task_id, frame, per_boundary, tree
                )
            ]
            pending.append((number, name_of, jobs))

        write_text_atomic(folder / "sweep.csv", frame_csv(frame))
        write_text_atomic(folder / "branches.csv", frame_csv(all_branches))
        if recovery is not None:
            write_text_atomic(folder / "recovery.csv", frame_csv(recovery))

        sections: list[str] = []
        specs: list[str] = []
        per_chart: dict[str, list[str]] = {}
        for entry in ([overview] if overview is not None else []) + [
            j for _, _, jobs in pending for j in jobs
        ]:
            specs.append(_spec_element(entry[3], entry[4]))
        if multi:
            intro = _tasks_intro(ranks, charted, task_charts)
            if overview is not None:
                svg = _inline_svg(overview[5].result(), overview[3])
                per_chart.setdefault("recovery", []).append(svg)
                intro += _figure(overview, svg)
            sections.append(intro)
        for number, task_id, jobs in pending:
            figures: list[str] = []
            for entry in jobs:
                svg = _inline_svg(entry[5].result(), entry[3])
                per_chart.setdefault(entry[0], []).append(svg)
                figures.append(_figure(entry, svg))
            part = per_boundary[per_boundary["taskId"].astype(str) == task_id]
            calls = _baseline_calls(frame, task_id)
            sections.append(
                f'<section class="task" id="task-{number}"><h2>Task {_text(task_id)}</h2>'
                f'<p class="note">{calls} calls in the baseline trial 0.</p>'
                + "\n".join(figures)
                + "<h3>Recovery per boundary</h3>"
                + _boundary_table(part)
                + "</section>"
            )
        if len(charted) < len(task_ids) and (multi or task_charts == 0):
            sections.append(_other_tasks(per_boundary, task_ids, charted))
        pngs = {
            name: pool.submit(svgs_png, svgs, scale=2.0 if len(svgs) == 1 else 1.0)
            for name, svgs in per_chart.items()
        }
        parts = _page(result, frame, task_ids, recovery, profile_data, sections, specs, title)
        for name, png in pngs.items():
            write_bytes_atomic(folder / f"{name}.png", png.result())
        bundle = bundle_job.result() if bundle_job is not None else None
    if bundle is not None:
        parts.append(_script_element(bundle))
        parts.append(_script_element(_BOOT))
    parts += ["</body>", "</html>", ""]
    write_text_atomic(folder / "report.html", "\n".join(p for p in parts if p))


def _baseline_calls(frame: pd.DataFrame, task_id: str) -> int:
    rows = frame[(frame["variant"] == "baseline") & (frame["taskId"].astype(str) == task_id)]
    return int(rows.iloc[0]["calls"]) if len(rows) else 0
