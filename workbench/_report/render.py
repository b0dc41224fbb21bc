"""Rendering charts without a browser or network: vl-convert for PNG and SVG."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import altair as alt

from .._common.jsonio import write_bytes_atomic


def chart_spec(chart: alt.TopLevelMixin) -> dict[str, Any]:
    """The chart's Vega-Lite spec (validated by Altair, default row limit in force)."""
    spec = chart.to_dict()
    if not isinstance(spec, dict):  # pragma: no cover - Altair always returns a dict here
        raise TypeError("chart.to_dict() did not return a dict")
    return spec


def _vl_version() -> str | None:
    import vl_convert

    wanted = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    versions = vl_convert.get_vegalite_versions()
    return wanted if wanted in versions else None


def render_png(chart: alt.TopLevelMixin, *, scale: float = 2.0) -> bytes:
    """PNG bytes of the chart (vl-convert, no browser, no network)."""
    import vl_convert

    data = vl_convert.vegalite_to_png(chart_spec(chart), vl_version=_vl_version(), scale=scale)
    return bytes(data)


def render_svg(chart: alt.TopLevelMixin) -> str:
    """SVG text of the chart (vl-convert, no browser, no network)."""
    import vl_convert

    return str(vl_convert.vegalite_to_svg(chart_spec(chart), vl_version=_vl_version()))


def save_chart(
    chart: alt.TopLevelMixin, path: str | os.PathLike[str], *, scale: float = 2.0
) -> Path:
    """Write the chart as PNG or SVG, chosen by the file suffix, atomically.

    Rendering uses vl-convert-python, so it needs no browser and no network.
    """
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix == ".png":
        data = render_png(chart, scale=scale)
    elif suffix == ".svg":
        data = render_svg(chart).encode("utf-8")
    else:
        raise ValueError(f"{target}: save_chart writes .png or .svg, not {suffix or 'no suffix'!r}")
    write_bytes_atomic(target, data)
    return target
