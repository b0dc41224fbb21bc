"""The report page around its charts: the head and style, the run's facts, the tables.

:func:`_page` lays out ``report.html`` up to the chart specs (``html`` adds the scripts);
every recorded value in it goes through ``sections._text``.
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .._common.markers import GENERATOR_META, REPORT_FILES
from .sections import (
    _agent_note,
    _headline,
    _legend,
    _pairs_table,
    _recovery_table,
    _text,
    _variant_table,
)


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
        ("tasks", (f"{len(task_ids)}: " if multi else "") + _text(", ".join(task_ids), 400)),
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
        *sections,
        '<h2 id="per-variant">Per variant</h2>',
        '<p class="note">One row per variant and task. A trajectory longer than its cell is '
        "shown from two steps before its divergence step (the calls before it are the "
        "baseline's); sweep.csv holds every trajectory whole.</p>",
        _variant_table(frame, getattr(result, "steps", None)),
        '<h2 id="host-profile">Host profile</h2>',
        f"<pre>{profile_text}</pre>",
        *specs,
    ]
    return parts
