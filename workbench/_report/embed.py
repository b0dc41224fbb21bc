"""Putting scripts, specs and SVGs into the report page so that nothing recorded runs.

Chart specs go in ``<script type="application/json">`` blocks (:func:`_json_for_script`; a
large one gzipped and base64-encoded, :func:`_spec_element`), code
in inline ``<script>`` elements that recorded text cannot end early (:func:`_script_element`),
rendered SVGs with their ids renamed per chart (:func:`_inline_svg`); :func:`_bundle` is the
Vega, Vega-Lite and vega-embed libraries, :data:`_BOOT` the code that hands each spec to
vega-embed (the static SVG stays if anything fails).
"""

from __future__ import annotations

import base64
import functools
import gzip
import json
import re
from typing import Any


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


_GEOMETRY = re.compile(
    r'(\s(?:d|transform|x|y|x1|y1|x2|y2|width|height|stroke-width|dx|dy)=")([^"]*)"'
)
_LONG_DECIMAL = re.compile(r"-?\d+\.\d{3,}")


def _short_decimal(match: re.Match[str]) -> str:
    text = f"{float(match.group(0)):.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _round_geometry(svg: str) -> str:
    """The SVG with coordinates and sizes written to 2 decimals (a hundredth of a pixel).

    Vega writes them with 13 or more digits, a tenth of a large chart's bytes. Only geometry
    attributes are touched: text content and labels (recorded text) are left as they are.
    """
    return _GEOMETRY.sub(
        lambda m: m.group(1) + _LONG_DECIMAL.sub(_short_decimal, m.group(2)) + '"', svg
    )


def _inline_svg(svg: str, name: str) -> str:
    """The ``<svg>`` element, its ids renamed ``<name>-<n>`` in order of appearance, its
    geometry rounded to 2 decimals (:func:`_round_geometry`).

    Renderers number gradients and clip paths with a process-wide counter, so the raw ids
    differ from run to run and could clash between two charts on one page.
    """
    start = svg.find("<svg")
    if start < 0:
        return ""
    body = _round_geometry(svg[start:])
    ids: dict[str, str] = {}
    for match in _SVG_ID.finditer(body):
        ids.setdefault(match.group(1), f"{name}-{len(ids) + 1}")
    body = _SVG_ID.sub(lambda m: f'id="{ids[m.group(1)]}"', body)
    return _SVG_REF.sub(lambda m: m.group(1) + ids.get(m.group(2), m.group(2)), body)


SPEC_GZIP_OVER = 16_384
"""A chart spec whose JSON is longer than this many bytes goes into the page gzipped."""


def _spec_element(chart_id: str, spec: Any) -> str:
    """The chart's Vega-Lite spec as an inert data block ``spec-<chart_id>``.

    A small spec is JSON (:func:`_json_for_script`). A large one (a long run's strip holds
    thousands of points, repeated key by key) is gzipped and base64-encoded, about a tenth of
    the bytes; :data:`_BOOT` unpacks it in the browser (``DecompressionStream``), and where it
    cannot the static SVG stays. gzip's header time is 0, so the bytes depend on the spec alone.
    """
    text = _json_for_script(spec)
    if len(text) <= SPEC_GZIP_OVER:
        return f'<script type="application/json" id="spec-{chart_id}">{text}</script>'
    packed = base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0))
    return f'<script type="application/gzip" id="spec-{chart_id}">{packed.decode("ascii")}</script>'


_BOOT = """
(function () {
  if (typeof window.vegaEmbed !== "function") { return; }
  function specOf(source) {
    if (source.type !== "application/gzip") {
      return Promise.resolve(JSON.parse(source.textContent));
    }
    if (typeof DecompressionStream !== "function") {
      return Promise.reject(new Error("this browser cannot unpack the chart"));
    }
    var text = atob(source.textContent.trim());
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) { bytes[i] = text.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).json();
  }
  document.querySelectorAll("div.chart[data-spec]").forEach(function (holder) {
    var source = document.getElementById(holder.getAttribute("data-spec"));
    if (!source) { return; }
    specOf(source).then(function (spec) {
      var target = document.createElement("div");
      return window.vegaEmbed(target, spec, {actions: false, renderer: "svg"}).then(function () {
        holder.replaceChildren(target);
      });
    }).catch(function () { /* keep the static SVG */ });
  });
})();
"""


@functools.cache
def _bundle() -> str | None:
    """The Vega, Vega-Lite and vega-embed libraries as one script (made once per process:
    vl-convert bundles them on each call, about 2 s of CPU)."""
    try:
        import vl_convert
    except ImportError:  # pragma: no cover - vl-convert-python is a dependency
        return None
    make = getattr(vl_convert, "javascript_bundle", None)
    if make is None:  # older vl-convert: the static SVGs carry the charts alone
        return None
    return str(make())
