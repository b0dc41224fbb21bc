"""Rendering charts without a browser or network: vl-convert for PNG and SVG."""

from __future__ import annotations

import errno
import os
import re
import zlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import altair as alt

from .._common.jsonio import write_bytes_atomic
from .._common.markers import PNG_MARKER, PNG_SIGNATURE, SVG_MARKER, is_chart_file


def chart_spec(chart: alt.TopLevelMixin, *, validate: bool = True) -> dict[str, Any]:
    """The chart's Vega-Lite spec (validated against the Vega-Lite schema by Altair unless
    ``validate=False``; Altair's default row limit is in force either way)."""
    spec = chart.to_dict(validate=validate)
    if not isinstance(spec, dict):  # pragma: no cover - Altair always returns a dict here
        raise TypeError("chart.to_dict() did not return a dict")
    return spec


ENGINE_ADDRESS_SPACE = 65 << 30
"""The address space vl-convert's JavaScript engine (V8) needs: it reserves about 64 GiB when it
starts, and under a smaller ``ulimit -v`` the whole process dies (SIGTRAP), where no error can
be caught (bisected: 64 GiB died, 65 GiB and more drew). Its rasteriser, resvg, needs none."""


def check_chart_engine() -> None:
    """Raise ``OSError`` (ENOMEM) when the process's address-space limit is too small for the
    engine that draws charts (:data:`ENGINE_ADDRESS_SPACE`): said before, not died of."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not on POSIX: no such limit
        return
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft != resource.RLIM_INFINITY and soft < ENGINE_ADDRESS_SPACE:
        raise OSError(
            errno.ENOMEM,
            "cannot draw the charts: their engine (vl-convert's V8) reserves about 64 GiB of "
            f"address space, and the address-space limit (ulimit -v) is {soft >> 20} MiB; "
            "raise it (ulimit -v unlimited)",
        )


def _vl_version() -> str | None:
    import vl_convert

    wanted = ".".join(alt.SCHEMA_VERSION.lstrip("v").split(".")[:2])
    versions = vl_convert.get_vegalite_versions()
    return wanted if wanted in versions else None


def spec_svg(spec: dict[str, Any]) -> str:
    """SVG text of a Vega-Lite spec made by :func:`chart_spec` (vl-convert, no browser)."""
    import vl_convert

    check_chart_engine()

    return str(vl_convert.vegalite_to_svg(spec, vl_version=_vl_version()))


_SVG_SIZE = re.compile(r'<svg\b[^>]*?\swidth="([0-9.]+)"[^>]*?\sheight="([0-9.]+)"')


def svgs_png(svgs: Sequence[str], *, scale: float = 2.0, gap: int = 24) -> bytes:
    """One PNG of rendered SVG charts, one under the other ``gap`` px apart, on white.

    The charts are rasterised from their SVG (resvg, through vl-convert) rather than rendered
    again by Vega. Ids inside the SVGs must not clash (``embed._inline_svg`` renames them).
    """
    import vl_convert

    if len(svgs) == 1:
        return bytes(vl_convert.svg_to_png(svgs[0], scale=scale))
    parts: list[str] = []
    width = 0.0
    top = 0.0
    for svg in svgs:
        start = svg.find("<svg")
        size = _SVG_SIZE.match(svg, start) if start >= 0 else None
        if size is None:
            raise ValueError("svgs_png: not an SVG document with a width and a height")
        w, h = float(size.group(1)), float(size.group(2))
        parts.append(f'<svg x="0" y="{top:g}"' + svg[start + 4 :])
        width = max(width, w)
        top += h + gap
    height = max(0.0, top - gap)
    document = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
        f'version="1.1" width="{width:g}" height="{height:g}" viewBox="0 0 {width:g} {height:g}">'
        f'<rect width="{width:g}" height="{height:g}" fill="white"/>' + "".join(parts) + "</svg>"
    )
    return bytes(vl_convert.svg_to_png(document, scale=scale))


def render_png(chart: alt.TopLevelMixin, *, scale: float = 2.0) -> bytes:
    """PNG bytes of the chart (vl-convert, no browser, no network)."""
    import vl_convert

    check_chart_engine()

    data = vl_convert.vegalite_to_png(chart_spec(chart), vl_version=_vl_version(), scale=scale)
    return bytes(data)


def render_svg(chart: alt.TopLevelMixin) -> str:
    """SVG text of the chart (vl-convert, no browser, no network)."""
    import vl_convert

    check_chart_engine()

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
