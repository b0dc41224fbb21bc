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

import base64
import html
import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import altair as alt
import pandas as pd

if TYPE_CHECKING:
    from .._sweep.result import SweepResult

from .._common.jsonio import write_bytes_atomic, write_text_atomic
from .._sweep.tables import frame_csv
from .charts import (
    branch_chart,
    chart_spec,
    divergence_strip,
    recovery_matrix,
    render_png,
    render_svg,
)
from .common import safe_text

__all__ = ["REPORT_FILES", "write_report"]

REPORT_FILES: tuple[str, ...] = (
    "report.html",
    "sweep.csv",
    "branches.csv",
    "recovery.csv",
    "branches.png",
    "recovery.png",
    "divergence.png",
)
"""The files :func:`write_report` writes."""

_CELL_LIMIT = 200
"""Characters of recorded text shown per table cell (the CSVs hold everything)."""


def _text(value: Any, limit: int = _CELL_LIMIT) -> str:
    """Recorded text as escaped HTML (cut to ``limit`` characters)."""
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return ""
    text = safe_text(value)
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


_SCRIPT_END = re.compile(r"</(script)", re.IGNORECASE)


def _script_element(code: str) -> str:
    """An inline ``<script>`` element holding ``code``, which cannot end it early.

    HTML ends script data only at ``</script`` (any case), so only that sequence is broken, as
    ``<\\/script``: inside a JavaScript string, template or regular expression literal ``\\/``
    is ``/``. Every other ``</`` is left alone (a regular expression such as ``/</g`` in the
    Vega bundle must stay as it is). Code that also holds ``<!--`` and ``<script`` (which would
    put the parser in its double-escaped state) is inlined as a base64 ``data:`` URL instead.
    """
    lowered = code.lower()
    if "<!--" in code and "<script" in lowered:
        encoded = base64.b64encode(code.encode("utf-8")).decode("ascii")
        return f'<script src="data:text/javascript;base64,{encoded}"></script>'
    safe = _SCRIPT_END.sub(lambda m: "<\\/" + m.group(1), code)
    return f"<script>{safe}</script>"


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


_TERMS: tuple[tuple[str, str], ...] = (
    ("baseline", "The suite the sweep started from ({baseline}). Every variant runs the same "
     "trials with the same seed, and each variant-trial is compared with the baseline's trial "
     "of the same number."),
    ("variant, variant-trial", "A variant is the baseline with one fault (or a pair) injected "
     "at a boundary (a recorded tool call, numbered from 0); a variant-trial is one trial of it."),
    ("hard", "The call fails, and so do the next {repeats} identical calls: an agent that "
     "retries fewer times sees only failures."),
    ("transient", "The call fails once; the next identical call gets the recorded response."),
    ("flip", "The recorded response is served as a failure (isError: true)."),
    ("empty", "Silent: served as a success with no content."),
    ("truncated", "Silent: served as a success with its text cut to half."),
    ("recorded failures", "A fault on a call the recording already failed keeps the recorded "
     "failure, so it serves what the baseline served."),
    ("triggered", "The agent was served at least one result (isError or response) that "
     "differs from what the baseline trial was served at the same point of its call "
     "sequence. A fault on a call the agent never made, or one that serves the failure the "
     "recording already had, is untriggered: it is counted, has no recovered value and is "
     "left out of every rate."),
    ("recovered", "A triggered variant-trial that passes as graded: its golden expectation "
     "and expected trajectory met, and no call left without a fixture."),
    ("recovery rate", "Recovered / triggered variant-trials, with a Wilson 95% score interval "
     "(wide when there are few)."),
    ("extraCalls", "The mean number of calls a triggered variant-trial made beyond its "
     "baseline trial's (negative: it stopped earlier)."),
    ("pass^k", "The chance that k trials of a variant all pass (k = its triggered trials)."),
    ("divergence step", "The first step where a trajectory differs from the baseline's in "
     "tool, args or isError."),
)  # fmt: skip


def _legend(result: Any, note: str) -> str:
    variants = getattr(result, "variants", ()) or ()
    repeats: Any = 3
    for variant in variants:
        info = getattr(getattr(variant, "suite", None), "data", {}).get("x-variant", {})
        if isinstance(info, Mapping) and isinstance(info.get("hardRepeats"), int):
            repeats = info["hardRepeats"]
            break
    items = "".join(
        f"<dt>{html.escape(term)}</dt>"
        f"<dd>{_text(text.format(baseline=note, repeats=repeats), 2000)}</dd>"
        for term, text in _TERMS
    )
    return f'<h2 id="terms">What the terms mean</h2>\n<dl class="terms">{items}</dl>'


def _agent_note(result: Any) -> str:
    agent = str(getattr(result, "agent_name", "") or "workbench.scripted-agent")
    kinds = [str(k) for k in (getattr(result, "kinds", ()) or ())]
    text = f"Agent: {agent}."
    if agent == "workbench.scripted-agent":
        text += (
            " Its script's policies (each step's onError: abort, skip, retry, fallback, "
            "escalate, choose) decide the outcome of every fault: a recovery here says what the "
            "policy does, not what a model would do. It reads only isError, so it cannot notice "
            "the silent faults (empty, truncated): it goes on as after a success, and their "
            "rates say what grading makes of that."
        )
        if not any(k in ("empty", "truncated") for k in kinds):
            text += " No silent fault was swept here."
    return f'<p class="note">{_text(text, 2000)}</p>'


def _interval_text(low: Any, high: Any) -> str:
    if low is None or high is None or low is pd.NA or high is pd.NA:
        return ""
    if isinstance(low, float) and math.isnan(low):
        return ""
    return f"{float(low):.0%}\u2013{float(high):.0%}"


def _rate(value: Any) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "\u2013"
    return f"{float(value):.0%}"


def _recovery_table(table: pd.DataFrame, levels: Sequence[str]) -> str:
    headers = ["level", "taskId", "kind", "variant-trials", "triggered", "untriggered",
               "recovered", "recovery rate", "Wilson 95%"]  # fmt: skip
    rows = []
    for raw in table.to_dict("records"):
        rec = {str(k): v for k, v in raw.items()}
        if rec["level"] not in levels:
            continue
        rows.append(
            [
                _text(rec["level"]), _text(rec["taskId"]), _text(rec["kind"]),
                _number(rec["variantTrials"]), _number(rec["triggered"]),
                _number(rec["untriggered"]), _number(rec["recovered"]), _rate(rec["recoveryRate"]),
                _interval_text(rec["low95"], rec["high95"]),
            ]
        )  # fmt: skip
    return _table(headers, rows, numeric={3, 4, 5, 6, 7, 8})


def _headline(result: Any) -> str:
    overall = getattr(result, "overall", None)
    if overall is None:
        return ""
    figure = overall()
    low, high = figure.interval
    if figure.triggered:
        lead = (
            f"Recovered {figure.recovered} of {figure.triggered} triggered variant-trials: "
            f"{figure.rate:.0%} (Wilson 95% interval {low:.0%}\u2013{high:.0%})."
        )
    else:
        lead = "No fault was triggered: there is no recovery rate."
    rest = (
        f" {figure.untriggered} of {figure.variant_trials} variant-trials were untriggered "
        "(their fault changed nothing the agent was served) and are left out."
    )
    return f'<p class="headline">{_text(lead + rest, 2000)}</p>'


def _pairs_table(result: Any) -> str:
    found = getattr(result, "minimal_failing_pairs", None)
    if found is None or getattr(result, "faults", "") != "pairs":
        return ""
    table = found()
    rows = [
        [
            _text(r["taskId"]),
            _text(r["variant"]),
            _text(r["boundaries"]),
            _text(r["kind"]),
            _number(r["trial"]),
            _text(r["tools"]),
        ]
        for r in ({str(k): v for k, v in raw.items()} for raw in table.to_dict("records"))
    ]
    return (
        '<h2 id="minimal-pairs">Minimal failing pairs</h2>\n<p class="note">Pairs of faults '
        "that fail the task though each fault alone was recovered (same kind, same trial).</p>"
        + _table(["taskId", "variant", "boundaries", "kind", "trial", "tools"], rows, numeric={4})
    )


def _task_charts(
    result: Any, task_id: str | None, frame: pd.DataFrame, per_boundary: pd.DataFrame
) -> list[tuple[str, str, alt.TopLevelMixin, str]]:
    branches = result.branches() if task_id is None else result.branches(task_id)
    if task_id is not None:
        frame = frame[frame["taskId"].astype(str) == task_id]
        per_boundary = per_boundary[per_boundary["taskId"].astype(str) == task_id]
    return [
        (
            "branches", "Branch tree", branch_chart(branches),
            "Steps left to right; the baseline is the straight line, each fault branch leaves "
            "it where its trajectory first differs. Edge width: variant-trials through the edge "
            "that end passed.",
        ),
        (
            "recovery", "Recovery matrix", recovery_matrix(per_boundary),
            "Per boundary and fault kind: recovered / triggered variant-trials (R38).",
        ),
        (
            "divergence", "Divergence strip", divergence_strip(frame, result.steps),
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
) -> Path:
    """Write ``report.html``, ``sweep.csv``, ``branches.csv``, ``recovery.csv`` and the chart
    PNGs for a sweep.

    ``result`` is a :class:`workbench.SweepResult`; ``profile`` the host profile the sweep ran
    against (a :class:`workbench.HostProfile` or its JSON; ``None``: the workbench's own host).
    The page starts with the terms it uses, the headline recovery figure and the figures per
    task and kind; then one section per task with its own branch tree, recovery matrix and
    divergence strip. The PNGs hold every task's chart, one under the other. ``interactive=False``
    leaves out the inlined Vega libraries (the static SVG charts remain), which makes the file
    about 900 kB smaller. Every file is written atomically. Returns the path of ``report.html``.
    """
    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    frame = result.frame
    per_boundary = result.per_boundary()
    suite_id, version = _suite_identity(result)
    profile_data = _profile_json(profile)
    task_ids = [str(t) for t in getattr(result, "task_ids", ())] or list(
        dict.fromkeys(str(t) for t in frame["taskId"])
    )
    multi = len(task_ids) > 1
    recovery = result.recovery() if hasattr(result, "recovery") else None

    write_text_atomic(folder / "sweep.csv", frame_csv(frame))
    write_text_atomic(folder / "branches.csv", frame_csv(result.branches()))
    if recovery is not None:
        write_text_atomic(folder / "recovery.csv", frame_csv(recovery))

    sections: list[str] = []
    specs: list[str] = []
    per_chart: dict[str, list[alt.TopLevelMixin]] = {}
    for number, task_id in enumerate(task_ids if multi else [None], start=1):
        charts = _task_charts(result, task_id, frame, per_boundary)
        figures: list[str] = []
        for name, heading, chart, caption in charts:
            per_chart.setdefault(name, []).append(chart)
            chart_id = f"{name}-{number}" if multi else name
            svg = _inline_svg(render_svg(chart), chart_id)
            figures.append(
                f'<h3 id="{chart_id}">{html.escape(heading)}</h3>\n<figure>'
                f'<div class="chart" data-spec="spec-{chart_id}">{svg}</div>'
                f"<figcaption>{html.escape(caption)} "
                f'(<a href="{name}.png">{name}.png</a>)</figcaption></figure>'
            )
            specs.append(
                f'<script type="application/json" id="spec-{chart_id}">'
                f"{_json_for_script(chart_spec(chart))}</script>"
            )
        if task_id is None:
            task_id = task_ids[0] if task_ids else ""
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
    for name, charts_of in per_chart.items():
        one = len(charts_of) == 1
        combined = charts_of[0] if one else alt.vconcat(*cast(list[Any], charts_of))
        write_bytes_atomic(folder / f"{name}.png", render_png(combined, scale=2.0 if one else 1.0))

    bundle = _bundle() if interactive else None
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
    if bundle is not None:
        parts.append(_script_element(bundle))
        parts.append(_script_element(_BOOT))
    parts += ["</body>", "</html>", ""]
    target = folder / "report.html"
    write_text_atomic(target, "\n".join(p for p in parts if p))
    return target


def _baseline_calls(frame: pd.DataFrame, task_id: str) -> int:
    rows = frame[(frame["variant"] == "baseline") & (frame["taskId"].astype(str) == task_id)]
    return int(rows.iloc[0]["calls"]) if len(rows) else 0
