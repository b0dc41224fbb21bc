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
import math
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import altair as alt
import pandas as pd

if TYPE_CHECKING:
    from .._sweep.result import SweepResult

from .._common.atomic import replace_folder
from .._common.jsonio import write_bytes_atomic, write_text_atomic
from .._common.markers import GENERATOR_META, REPORT_FILES, is_report_folder
from .charts import (
    branch_chart,
    chart_spec,
    divergence_strip,
    recovery_matrix,
    render_png,
    render_svg,
)

__all__ = ["REPORT_FILES", "write_report"]


_CELL_LIMIT = 200
"""Characters of recorded text shown per table cell (the CSVs hold everything)."""


def _text(value: Any, limit: int = _CELL_LIMIT) -> str:
    """Recorded text as escaped HTML (cut to ``limit`` characters)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    text = str(value)
    if len(text) > limit:
        text = text[: limit - 1] + "\u2026"
    return html.escape(text, quote=True)


def _number(value: Any, digits: int = 2) -> str:
    if value is None or value is pd.NA:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value):
            return ""
        return f"{value:.{digits}f}"
    return html.escape(str(value))


def _json_for_script(value: Any) -> str:
    """JSON that is safe inside ``<script type="application/json">``."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _script_safe(code: str) -> str:
    """JavaScript that cannot end its ``<script>`` element early."""
    return code.replace("</", "<\\/").replace("<!--", "<\\!--")


_SVG_ID = re.compile(r'\bid="([^"]+)"')
_SVG_REF = re.compile(r'(url\(#|href="#)([^)"]+)')


def _inline_svg(svg: str, name: str) -> str:
    """The ``<svg>`` element, its ids renamed ``<name>-<n>`` in order of appearance.

    Renderers number gradients and clip paths with a process-wide counter, so the raw ids
    differ from run to run and could clash between two charts on one page.
    """
    start = svg.find("<svg")
    if start < 0:
        return ""
    body = svg[start:]
    ids: dict[str, str] = {}
    for match in _SVG_ID.finditer(body):
        ids.setdefault(match.group(1), f"{name}-{len(ids) + 1}")
    body = _SVG_ID.sub(lambda m: f'id="{ids[m.group(1)]}"', body)
    return _SVG_REF.sub(lambda m: m.group(1) + ids.get(m.group(2), m.group(2)), body)


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, numeric: set[int]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = "".join(
            f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>"
            for i, c in enumerate(row)
        )
        body.append(f"<tr>{cells}</tr>")
    return (
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        if rows
        else "<p>(none)</p>"
    )


def _boundary_table(per_boundary: pd.DataFrame) -> str:
    columns = ["taskId", "boundary", "tool", "kind", "variants", "trials", "recoveryRate",
               "passHatK", "extraCalls"]  # fmt: skip
    present = [c for c in columns if c in per_boundary.columns]
    rows = []
    for raw in per_boundary.to_dict("records"):
        rec = {str(k): v for k, v in raw.items()}
        row = []
        for column in present:
            value = rec.get(column)
            if column == "recoveryRate" and isinstance(value, float) and not math.isnan(value):
                row.append(f"{value:.0%}")
            elif column in ("passHatK", "extraCalls", "boundary", "variants", "trials"):
                row.append(_number(value))
            else:
                row.append(_text(value))
        rows.append(row)
    numeric = {i for i, c in enumerate(present) if c not in ("taskId", "tool", "kind")}
    return _table(present, rows, numeric=numeric)


def _variant_table(frame: pd.DataFrame) -> str:
    headers = ["variant", "taskId", "boundaries", "kind", "trials", "passed", "recovered",
               "divergence step", "mean calls", "errors served", "fixture misses",
               "trajectory (first trial)"]  # fmt: skip
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in frame.to_dict("records"):
        rec = {str(k): v for k, v in row.items()}
        groups.setdefault((str(rec["variant"]), str(rec["taskId"])), []).append(rec)
    rows = []
    for (variant, task_id), recs in groups.items():
        recs.sort(key=lambda r: int(r["trial"]))
        first = recs[0]
        recovered = [r.get("recovered") for r in recs]
        known = [bool(v) for v in recovered if v is not None and v is not pd.NA]
        divergence = [
            int(r["divergenceStep"])
            for r in recs
            if r.get("divergenceStep") is not None and r.get("divergenceStep") is not pd.NA
        ]
        rows.append(
            [
                _text(variant),
                _text(task_id),
                _text(first.get("boundaries")),
                _text(first.get("kind")),
                str(len(recs)),
                str(sum(bool(r.get("passed")) for r in recs)),
                str(sum(known)) if known or recovered[0] is not pd.NA else "",
                str(min(divergence)) if divergence else "",
                _number(sum(float(r.get("calls") or 0) for r in recs) / len(recs), 1),
                str(sum(int(r.get("errorsServed") or 0) for r in recs)),
                str(sum(int(r.get("fixtureMisses") or 0) for r in recs)),
                f"<code>{_text(first.get('trajectory'), 400)}</code>",
            ]
        )
    return _table(headers, rows, numeric={4, 5, 6, 7, 8, 9, 10})


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
.chart svg{max-width:none}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #d0d7de;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
td code{font-size:.95em;word-break:break-word}
pre{background:#f6f8fa;padding:8px;overflow-x:auto;font-size:.85em}
"""

_BOOT = """
(function () {
  if (typeof window.vegaEmbed !== "function") { return; }
  document.querySelectorAll("div.chart[data-spec]").forEach(function (holder) {
    var source = document.getElementById(holder.getAttribute("data-spec"));
    if (!source) { return; }
    var spec = JSON.parse(source.textContent);
    var target = document.createElement("div");
    window.vegaEmbed(target, spec, {actions: false, renderer: "svg"}).then(function () {
      holder.replaceChildren(target);
    }).catch(function () { /* keep the static SVG */ });
  });
})();
"""


def _bundle() -> str | None:
    try:
        import vl_convert
    except ImportError:  # pragma: no cover - vl-convert-python is a dependency
        return None
    make = getattr(vl_convert, "javascript_bundle", None)
    if make is None:  # older vl-convert: the static SVGs carry the charts alone
        return None
    return str(make())


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
    """Write ``report.html``, ``sweep.csv``, ``branches.csv`` and the chart PNGs for a sweep.

    ``result`` is a :class:`workbench.SweepResult`; ``profile`` the host profile the sweep ran
    against (a :class:`workbench.HostProfile` or its JSON; ``None``: the workbench's own host).
    ``interactive=False`` leaves out the inlined Vega libraries (the static SVG charts remain),
    which makes the file about 900 kB smaller. Returns the path of ``report.html``.

    The folder is replaced as a whole: the report is written into a new folder beside
    ``out_dir`` and swapped in when every file is done, so a failure leaves the old folder as it
    was. ``out_dir`` must be new, empty, or a report folder the workbench wrote
    (:func:`is_report_folder`); ``overwrite=True`` also replaces a folder of report files
    without the marker, but a folder holding other files is never replaced. Its parent folder
    must exist unless ``parents=True``; it may hold none of ``inputs``.
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
    branches = result.branches()
    suite_id, version = _suite_identity(result)
    profile_data = _profile_json(profile)

    charts: list[tuple[str, str, alt.TopLevelMixin, str]] = [
        (
            "branches",
            "Branch tree",
            branch_chart(branches),
            "Steps left to right; the baseline is the straight line, each fault branch leaves "
            "it where its trajectory first differs. Edge width: variant-trials through the edge "
            "that end passed.",
        ),
        (
            "recovery",
            "Recovery matrix",
            recovery_matrix(per_boundary),
            "Per boundary and fault kind: the share of fault trials that still pass.",
        ),
        (
            "divergence",
            "Divergence strip",
            divergence_strip(frame, result.steps),
            "Per variant-trial: the calls made, failed calls marked, the divergence step boxed.",
        ),
    ]

    csv_text = frame.to_csv(index=False, lineterminator="\n")
    write_text_atomic(folder / "sweep.csv", csv_text, overwrite=True)
    branches_text = branches.to_csv(index=False, lineterminator="\n")
    write_text_atomic(folder / "branches.csv", branches_text, overwrite=True)

    figures: list[str] = []
    specs: list[str] = []
    for name, heading, chart, caption in charts:
        write_bytes_atomic(folder / f"{name}.png", render_png(chart), overwrite=True)
        svg = _inline_svg(render_svg(chart), name)
        figures.append(
            f'<h2 id="{name}">{html.escape(heading)}</h2>\n<figure>'
            f'<div class="chart" data-spec="spec-{name}">{svg}</div>'
            f"<figcaption>{html.escape(caption)} "
            f'(<a href="{name}.png">{name}.png</a>)</figcaption></figure>'
        )
        specs.append(
            f'<script type="application/json" id="spec-{name}">'
            f"{_json_for_script(chart_spec(chart))}</script>"
        )

    bundle = _bundle() if interactive else None
    variants = frame[frame["variant"] != "baseline"] if "variant" in frame else frame
    n_pairs = len(
        {(str(v), str(t)) for v, t in zip(variants["variant"], variants["taskId"], strict=True)}
    )
    passed = int(sum(bool(p) for p in variants["passed"])) if len(variants) else 0
    recovered = [r for r in variants.get("recovered", pd.Series(dtype=object)) if r is not pd.NA]
    rate = f"{sum(bool(r) for r in recovered) / len(recovered):.0%}" if recovered else "\u2013"
    heading = title or "Fault sweep report"
    meta = [
        ("suite", _text(suite_id) or "(unnamed)"),
        ("version", _text(version) or "\u2013"),
        ("tasks", _text(", ".join(dict.fromkeys(str(t) for t in frame["taskId"])))),
        ("variants", str(n_pairs)),
        ("variant-trials", f"{len(variants)} ({passed} passed)"),
        ("recovery rate", rate),
        ("host profile", _text(profile_data.get("name", ""))),
    ]
    for attribute in ("trials", "seed"):
        value = getattr(result, attribute, None)
        if isinstance(value, int):
            meta.append((attribute, str(value)))
    kinds = getattr(result, "kinds", None)
    if kinds:
        meta.append(("fault kinds", _text(", ".join(str(k) for k in kinds))))
    meta_html = "".join(f"<dt>{html.escape(k)}</dt><dd>{v}</dd>" for k, v in meta)
    profile_text = html.escape(
        json.dumps(profile_data, indent=2, sort_keys=True, ensure_ascii=False)
    )
    files = " \u00b7 ".join(f'<a href="{n}">{n}</a>' for n in REPORT_FILES[1:])

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
        f"<p>Files: {files}</p>",
        *figures,
        '<h2 id="per-boundary">Recovery per boundary</h2>',
        _boundary_table(per_boundary),
        '<h2 id="per-variant">Per variant</h2>',
        _variant_table(frame),
        '<h2 id="host-profile">Host profile</h2>',
        f"<pre>{profile_text}</pre>",
        *specs,
    ]
    if bundle is not None:
        parts.append(f"<script>{_script_safe(bundle)}</script>")
        parts.append(f"<script>{_BOOT}</script>")
    parts += ["</body>", "</html>", ""]
    write_text_atomic(folder / "report.html", "\n".join(parts), overwrite=True)
