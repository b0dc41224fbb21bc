"""A sweep's report: one self-contained ``report.html`` plus the CSVs and PNGs it is made of.

:func:`write_report` writes into a folder:

- ``report.html``: the suite id and version, the host profile used, the charts, the
  per-boundary recovery table and the per-variant summary. It opens offline: the Vega,
  Vega-Lite and vega-embed libraries are inlined once (``vl_convert.javascript_bundle()``), each
  chart's spec sits in a JSON script block, and each chart is also inlined as a static SVG that
  stays when scripts do not run. The file refers to no ``http(s)://`` script or stylesheet.
- ``sweep.csv`` (the sweep frame), ``branches.csv`` (the branch tree), ``branches.png``,
  ``recovery.png``, ``divergence.png``.

All recorded text (tool names, args, payloads, variant names, task ids) is HTML-escaped; JSON
embedded in the page escapes ``<``, ``>`` and ``&`` so no recorded text can close a script block.
The same inputs give the same bytes: nothing in the report comes from the clock.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import altair as alt
import pandas as pd

if TYPE_CHECKING:
    from .._sweep.result import SweepResult

from .._common.atomic import replace_folder
from .._common.jsonio import write_bytes_atomic, write_text_atomic
from .._common.markers import GENERATOR_META, REPORT_FILES, is_report_folder
from .._sweep.tables import frame_csv
from .charts import branch_chart, chart_spec, divergence_strip, recovery_matrix
from .embed import _BOOT, _bundle, _inline_svg, _json_for_script, _script_element
from .render import spec_svg, svgs_png
from .sections import (
    _agent_note,
    _boundary_table,
    _headline,
    _legend,
    _pairs_table,
    _recovery_table,
    _text,
    _variant_table,
)

__all__ = ["REPORT_FILES", "write_report"]


def _profile_json(profile: Any) -> dict[str, Any]:
    if profile is None:
        from .._suite.capabilities import HostProfile

        return HostProfile.workbench().to_json()
    if hasattr(profile, "to_json"):
        data = profile.to_json()
        return dict(data) if isinstance(data, Mapping) else {"profile": str(data)}
    if isinstance(profile, Mapping):
        return dict(profile)
    raise TypeError(
        f"profile must be a HostProfile, a mapping or None, not {type(profile).__name__}"
    )


def _suite_identity(result: Any) -> tuple[str, str]:
    suite = getattr(result, "suite", None)
    if suite is None:
        return "", ""
    if isinstance(suite, Mapping):
        return str(suite.get("suiteId", suite.get("id", ""))), str(suite.get("version", ""))
    return str(getattr(suite, "suite_id", "") or ""), str(getattr(suite, "version", "") or "")


_STYLE = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px auto;
max-width:1500px;padding:0 16px;color:#1b1f24;line-height:1.4}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid
#d0d7de;padding-bottom:.2em}
dl.meta{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dl.meta dt{font-weight:600}
dl.meta dd{margin:0}
figure{margin:1em 0;overflow-x:auto}figcaption{color:#57606a;font-size:.9em}
.chart svg{max-width:100%;height:auto}
dl.terms{display:grid;grid-template-columns:max-content auto;gap:.25em 1em;font-size:.92em}
dl.terms dt{font-weight:600}dl.terms dd{margin:0}
p.headline{font-size:1.1em}p.note{color:#57606a;font-size:.92em}
section.task{border-top:2px solid #d0d7de;margin-top:2em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #d0d7de;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
td code{font-size:.95em;word-break:break-word}
pre{background:#f6f8fa;padding:8px;overflow-x:auto;font-size:.85em}
"""


def _task_charts(
    result: Any,
    task_id: str | None,
    frame: pd.DataFrame,
    per_boundary: pd.DataFrame,
    branches: pd.DataFrame | None = None,
) -> list[tuple[str, str, alt.TopLevelMixin, str]]:
    if branches is None:
        branches = result.branches() if task_id is None else result.branches(task_id)
    # In a multi-task report each chart names its task (the PNGs stack every task's chart).
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
    task and kind; then one section per task with its own branch tree, recovery matrix and
    divergence strip. The PNGs hold every task's chart, one under the other. ``interactive=False``
    leaves out the inlined Vega libraries (the static SVG charts remain), which makes the file
    about 900 kB smaller. Returns the path of ``report.html``.
    """
    with replace_folder(
        out_dir,
        inputs=inputs,
        overwrite=overwrite,
        parents=parents,
        recognise=is_report_folder,
        known_names=REPORT_FILES,
    ) as folder:
        _write_report_files(result, folder, profile, title, interactive)
    return Path(out_dir) / "report.html"


def _write_report_files(
    result: SweepResult, folder: Path, profile: Any, title: str | None, interactive: bool
) -> None:
    frame = result.frame
    per_boundary = result.per_boundary()
    profile_data = _profile_json(profile)
    task_ids = [str(t) for t in getattr(result, "task_ids", ())] or list(
        dict.fromkeys(str(t) for t in frame["taskId"])
    )
    multi = len(task_ids) > 1
    recovery = result.recovery() if hasattr(result, "recovery") else None

    all_branches = result.branches()
    # Vega (vl-convert) and the rasteriser (resvg) release the GIL: charts render on two
    # threads while this one builds the next charts, the CSVs and the tables. Each chart is
    # made into a spec once and rendered to SVG once; the PNGs are rasterised from those SVGs.
    # The specs are not validated against the Vega-Lite schema here (the chart tests do that
    # for every chart builder); Altair's row limit still applies.
    with ThreadPoolExecutor(max_workers=2) as pool:
        bundle_job = pool.submit(_bundle) if interactive else None
        pending: list[tuple[int, str, list[tuple[str, str, str, str, dict[str, Any], Any]]]] = []
        for number, task_id in enumerate(task_ids if multi else [None], start=1):
            tree = None if multi else all_branches
            jobs = []
            for name, heading, chart, caption in _task_charts(
                result, task_id, frame, per_boundary, tree
            ):
                spec = chart_spec(chart, validate=False)
                chart_id = f"{name}-{number}" if multi else name
                jobs.append((name, heading, caption, chart_id, spec, pool.submit(spec_svg, spec)))
            pending.append((number, task_id or (task_ids[0] if task_ids else ""), jobs))

        write_text_atomic(folder / "sweep.csv", frame_csv(frame))
        write_text_atomic(folder / "branches.csv", frame_csv(all_branches))
        if recovery is not None:
            write_text_atomic(folder / "recovery.csv", frame_csv(recovery))

        sections: list[str] = []
        specs: list[str] = []
        per_chart: dict[str, list[str]] = {}
        for number, task_id, jobs in pending:
            figures: list[str] = []
            for name, heading, caption, chart_id, spec, job in jobs:
                svg = _inline_svg(job.result(), chart_id)
                per_chart.setdefault(name, []).append(svg)
                figures.append(
                    f'<h3 id="{chart_id}">{html.escape(heading)}</h3>\n<figure>'
                    f'<div class="chart" data-spec="spec-{chart_id}">{svg}</div>'
                    f"<figcaption>{html.escape(caption)} "
                    f'(<a href="{name}.png">{name}.png</a>)</figcaption></figure>'
                )
                specs.append(
                    f'<script type="application/json" id="spec-{chart_id}">'
                    f"{_json_for_script(spec)}</script>"
                )
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


def _page(
    result: Any,
    frame: pd.DataFrame,
    task_ids: Sequence[str],
    recovery: pd.DataFrame | None,
    profile_data: Mapping[str, Any],
    sections: Sequence[str],
    specs: Sequence[str],
    title: str | None,
) -> list[str]:
    """The page's parts, up to the spec blocks (the scripts follow)."""
    suite_id, version = _suite_identity(result)
    multi = len(task_ids) > 1
    variants = frame[frame["variant"] != "baseline"] if "variant" in frame else frame
    n_pairs = len(
        {(str(v), str(t)) for v, t in zip(variants["variant"], variants["taskId"], strict=True)}
    )
    passed = int(sum(bool(p) for p in variants["passed"])) if len(variants) else 0
    heading = title or "Fault sweep report"
    note = str(getattr(result, "baseline_note", "") or "the suite as given")
    meta = [
        ("suite", _text(suite_id) or "(unnamed)"),
        ("version", _text(version) or "\u2013"),
        ("baseline", _text(note)),
        ("tasks", _text(", ".join(task_ids), 400)),
        ("variants", str(n_pairs)),
        ("variant-trials", f"{len(variants)} ({passed} passed)"),
        ("host profile", _text(profile_data.get("name", ""))),
    ]
    for attribute in ("trials", "seed"):
        value = getattr(result, attribute, None)
        if isinstance(value, int):
            meta.append((attribute, str(value)))
    faults = getattr(result, "faults", None)
    if isinstance(faults, str):
        meta.append(("faults", _text(faults)))
    kinds = getattr(result, "kinds", None)
    if kinds:
        meta.append(("fault kinds", _text(", ".join(str(k) for k in kinds))))
    meta_html = "".join(f"<dt>{html.escape(k)}</dt><dd>{v}</dd>" for k, v in meta)
    profile_text = html.escape(
        json.dumps(profile_data, indent=2, sort_keys=True, ensure_ascii=False)
    )
    files = " \u00b7 ".join(f'<a href="{n}">{n}</a>' for n in REPORT_FILES[1:])
    overall_html = ""
    if recovery is not None:
        levels = ["overall", "kind", "task"] if multi else ["overall", "kind"]
        overall_html = (
            '<h2 id="overall">Recovery overall</h2>'
            + _recovery_table(recovery, levels)
            + (
                "<h3>Per task and kind</h3>" + _recovery_table(recovery, ["task-kind"])
                if multi
                else ""
            )
        )
    toc = " \u00b7 ".join(
        f'<a href="#task-{n}">{_text(t, 60)}</a>' for n, t in enumerate(task_ids, start=1)
    )

    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        GENERATOR_META,
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{html.escape(heading)}: {_text(suite_id)} {_text(version)}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
        f"<h1>{html.escape(heading)}</h1>",
        f'<dl class="meta">{meta_html}</dl>',
        _agent_note(result),
        _headline(result),
        f"<p>Files: {files}</p>",
        _legend(result, note),
        overall_html,
        _pairs_table(result),
        f"<p>Tasks: {toc}</p>" if multi else "",
        *sections,
        '<h2 id="per-variant">Per variant</h2>',
        _variant_table(frame),
        '<h2 id="host-profile">Host profile</h2>',
        f"<pre>{profile_text}</pre>",
        *specs,
    ]
    return parts


def _baseline_calls(frame: pd.DataFrame, task_id: str) -> int:
    rows = frame[(frame["variant"] == "baseline") & (frame["taskId"].astype(str) == task_id)]
    return int(rows.iloc[0]["calls"]) if len(rows) else 0
