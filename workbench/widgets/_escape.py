"""Recorded text shown as text: every payload, arg and error goes through :func:`esc`.

Suites and logs are untrusted input. A tool result such as ``<img src=x onerror=alert(1)>`` must
appear as those characters and run nothing, so widget code never puts recorded text into an HTML
widget except through these helpers (plain ``Label``/``Text`` values are text already).
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "DETAIL_LIMIT",
    "cell_text",
    "esc",
    "html_table",
    "json_text",
    "mono",
    "pretty",
    "result_text",
    "shorten",
]

DETAIL_LIMIT = 200_000
"""Characters of one detail part sent to the browser (the suite holds it all)."""


def json_text(value: Any) -> str:
    """Compact JSON with sorted keys (a string stays itself)."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def shorten(text: str, limit: int = 120) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "\u2026"


def esc(value: Any) -> str:
    """``value`` (JSON for non-strings) escaped for HTML, quotes included."""
    return html.escape(json_text(value), quote=True)


def mono(value: Any, *, limit: int | None = None, title: bool = True) -> str:
    """``value`` as escaped monospace HTML (cut to ``limit``; the full text as its tooltip)."""
    text = json_text(value)
    shown = shorten(text, limit) if limit else text
    tip = f' title="{html.escape(text, quote=True)}"' if title and shown != text else ""
    return f'<span class="wb-mono"{tip}>{html.escape(shown, quote=True)}</span>'


def html_table(
    headers: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    css_class: str = "wb-table",
    row_classes: Sequence[str] | None = None,
) -> str:
    """An HTML table; cells are escaped, except :class:`Markup` cells (already escaped here).
    Its look comes from the workbench stylesheet (``_static/workbench.css``)."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body: list[str] = []
    for i, row in enumerate(rows):
        cls = row_classes[i] if row_classes and i < len(row_classes) and row_classes[i] else ""
        attr = f' class="{html.escape(cls, quote=True)}"' if cls else ""
        cells = "".join(f"<td>{_cell(value)}</td>" for value in row)
        body.append(f"<tr{attr}>{cells}</tr>")
    return f'<table class="{css_class}"><tr>{head}</tr>{"".join(body)}</table>'


class Markup(str):
    """A string that is already safe HTML (built by this module from escaped parts)."""


def _cell(value: Any) -> str:
    if isinstance(value, Markup):
        return str(value)
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3g}"
    return html.escape(json_text(value) if not isinstance(value, int) else str(value), quote=True)


def markup(text: str) -> Markup:
    """Mark HTML built from escaped parts as safe for :func:`html_table`."""
    return Markup(text)


def pretty(value: Any) -> str:
    """JSON with two-space indents, non-ASCII kept, cut at :data:`DETAIL_LIMIT` characters."""
    text = value if isinstance(value, str) else json.dumps(value, indent=2, ensure_ascii=False)
    if len(text) > DETAIL_LIMIT:
        more = len(text) - DETAIL_LIMIT
        text = text[:DETAIL_LIMIT] + f"\n\u2026 ({more:,} more characters: read wb.suite)"
    return text


def result_text(response: Any) -> Any:
    """The text blocks of an MCP result, joined (parsed when the text is JSON); ``None`` when
    there are none."""
    content = response.get("content") if isinstance(response, Mapping) else None
    if not isinstance(content, list):
        return None
    texts = [
        b["text"]
        for b in content
        if isinstance(b, Mapping) and b.get("type") == "text" and isinstance(b.get("text"), str)
    ]
    if not texts:
        return None
    joined = "\n".join(texts)
    try:
        return json.loads(joined)
    except ValueError:
        return joined


def cell_text(value: Any) -> str:
    """A pandas cell as text (``<NA>`` -> empty)."""
    try:
        import pandas as pd

        if value is pd.NA or (not isinstance(value, str) and bool(pd.isna(value))):
            return ""
    except (TypeError, ValueError):
        pass
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
