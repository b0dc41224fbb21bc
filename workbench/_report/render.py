"""Rendering charts without a browser or network: vl-convert for PNG and SVG."""

from __future__ import annotations

import os
import zlib
from pathlib import Path
from typing import Any

import altair as alt

from .._common.jsonio import write_bytes_atomic
from .._common.markers import PNG_MARKER, PNG_SIGNATURE, SVG_MARKER, is_chart_file


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
    chart: alt.TopLevelMixin,
    path: str | os.PathLike[str],
    *,
    scale: float = 2.0,
    overwrite: bool = False,
    parents: bool = False,
) -> Path:
    """Write the chart as PNG or SVG, chosen by the file suffix, atomically.

    Rendering uses vl-convert-python, so it needs no browser and no network. The file carries a
    marker (a PNG ``Software`` text chunk, an SVG comment) by which the workbench recognises it
    as its own: an existing file without it is replaced only with ``overwrite=True``.
    """
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix == ".png":
        data = mark_png(render_png(chart, scale=scale))
    elif suffix == ".svg":
        data = mark_svg(render_svg(chart)).encode("utf-8")
    else:
        raise ValueError(f"{target}: save_chart writes .png or .svg, not {suffix or 'no suffix'!r}")
    write_bytes_atomic(target, data, overwrite=overwrite, parents=parents, recognise=is_chart_file)
    return target


def mark_svg(text: str) -> str:
    """SVG text with the workbench's marker comment after the opening ``<svg ...>`` tag."""
    start = text.find("<svg")
    end = text.find(">", start) if start >= 0 else -1
    if end < 0:
        return text
    return text[: end + 1] + SVG_MARKER + text[end + 1 :]


def mark_png(data: bytes) -> bytes:
    """PNG bytes with a ``tEXt`` chunk ``Software: workbench`` after the header chunk."""
    if not data.startswith(PNG_SIGNATURE) or len(data) < 33:
        return data
    end_of_ihdr = 8 + 4 + 4 + int.from_bytes(data[8:12], "big") + 4
    chunk = b"tEXt" + PNG_MARKER
    crc = zlib.crc32(chunk).to_bytes(4, "big")
    return (
        data[:end_of_ihdr] + len(PNG_MARKER).to_bytes(4, "big") + chunk + crc + data[end_of_ihdr:]
    )
