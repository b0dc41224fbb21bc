"""Charts in notebooks: live and offline by construction, with a static twin for saved files.

**Offline by construction.** ``alt.JupyterChart`` loads vega-embed from a CDN unless
``JupyterChart.enable_offline()`` ran first, and altair runs that only when a chart is shown
through the ``jupyter`` renderer; a widget that builds its chart directly (as the Workbench does)
would reach for the network in a fresh kernel. :func:`live_chart` instead builds every chart from
:class:`OfflineChart`, a ``JupyterChart`` whose module is altair's own, bundled with Vega by
vl-convert (the bundle is made once per process, about 2 s, in a background thread started by the
first :class:`~workbench.widgets.Workbench`). Nothing is fetched, whatever was shown before.

**A static twin.** A widget output is only a reference to a model in the kernel: a notebook
opened later, on GitHub, or after a restart shows "Error displaying widget: model not found"
where the chart was. The ``workbench`` altair renderer (:func:`enable_renderer`, turned on by
:func:`~workbench.widgets.enable_offline_charts` in a kernel) therefore puts a PNG of the chart
(vl-convert, no browser) in the output just before the live chart. While the live chart is
shown, a stylesheet rule hides the PNG output that directly precedes it; where the live chart
cannot be shown, the PNG is what the reader sees.
"""

from __future__ import annotations

import base64
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import altair as alt

__all__ = [
    "enable_renderer",
    "live_chart",
    "selected_variants",
    "set_theme",
    "static_png",
    "warm_up",
]

RENDERER = "workbench"
"""The altair renderer that shows a live chart with its static twin."""

TWIN_CLASS = "wb-chart-with-twin"

MAX_CHART_ROWS = 60_000
"""The most rows in one dataset of a live chart (Altair's default guard is 5,000). A branch
tree's largest dataset has three rows per baseline step (a 1,500-call run: 4,500 rows, a 2 MB
spec), so this is a run of about 20,000 calls."""

# The PNG output directly before a live chart that has a twin is hidden while the chart shows.
# (JupyterLab and Notebook 7 mark each output with its MIME type; other front ends show both.)
TWIN_CSS = f"""
.jp-OutputArea-child:has(> .jp-OutputArea-output[data-mime-type="image/png"]):has(
    + .jp-OutputArea-child .{TWIN_CLASS}) {{
  display: none;
}}
"""

_lock = threading.Lock()
_chart_class: Any = None


def offline_chart_class() -> Any:
    """``OfflineChart``: ``alt.JupyterChart`` with Vega bundled into its module (built once)."""
    global _chart_class
    with _lock:
        if _chart_class is None:
            import altair as alt

            alt.JupyterChart.enable_offline(offline=True)  # vl-convert bundles vega-embed

            class OfflineChart(alt.JupyterChart):
                """``alt.JupyterChart`` with Vega bundled: renders with no network."""

                _esm = alt.JupyterChart._esm
                _css = alt.JupyterChart._css + TWIN_CSS

            OfflineChart.__module__ = __name__
            OfflineChart.__qualname__ = "OfflineChart"
            _chart_class = OfflineChart
        return _chart_class


def warm_up() -> threading.Thread:
    """Build the offline bundle in a background thread (the first chart then shows at once)."""
    thread = threading.Thread(target=offline_chart_class, name="workbench-vega-bundle", daemon=True)
    thread.start()
    return thread


def live_chart(
    chart: alt.TopLevelMixin, *, dark: bool = False, renderer: str = "svg"
) -> alt.JupyterChart:
    """The chart as an offline ``JupyterChart`` (selections sync back to the kernel).

    ``dark``: vega-embed's dark theme (the Workbench follows JupyterLab's). ``renderer``:
    ``svg`` keeps each mark an element a click or a test can find.
    """
    import altair as alt

    options: dict[str, Any] = {"renderer": renderer, "actions": False}
    if dark:
        options["theme"] = "dark"
    # Altair refuses data over 5,000 rows; a sweep's branch tree is bounded by the chart's
    # ``max_nodes`` off the spine, but the spine has a node per step, so a 2,000-call run's
    # tree passes 5,000 rows. It draws fine; past MAX_CHART_ROWS the chart says it is too big.
    with alt.data_transformers.enable(max_rows=MAX_CHART_ROWS):
        widget: alt.JupyterChart = offline_chart_class()(chart, embed_options=options)
    widget.add_class("wb-live-chart")
    return widget


def set_theme(widget: alt.JupyterChart, *, dark: bool) -> None:
    """Re-embed a live chart with vega-embed's dark theme, or without it."""
    options = dict(widget.embed_options or {})
    if dark:
        options["theme"] = "dark"
    else:
        options.pop("theme", None)
    widget.embed_options = options


def selected_variants(selection: Any) -> list[str]:
    """The variant names of the branch node a click selected (the node's ``variant`` first,
    then its comma-joined ``variants``); ``[]`` for a cleared selection."""
    values = getattr(selection, "value", None)
    if not isinstance(values, list | tuple):
        return []
    names: list[str] = []
    for item in values:
        if isinstance(item, dict):
            for name in [str(item.get("variant", "")), *str(item.get("variants", "")).split(",")]:
                if name.strip() and name.strip() not in names:
                    names.append(name.strip())
    return names


def static_png(spec: dict[str, Any], *, scale: float = 1.0) -> tuple[bytes, dict[str, Any]]:
    """The chart as PNG bytes (vl-convert, no browser) and its display metadata."""
    import altair as alt
    from altair.utils.mimebundle import spec_to_mimebundle

    bundle, metadata = spec_to_mimebundle(
        spec,
        format="png",
        mode="vega-lite",
        vega_version=alt.VEGA_VERSION,
        vegaembed_version=alt.VEGAEMBED_VERSION,
        vegalite_version=alt.VEGALITE_VERSION,
        scale_factor=scale,
    )
    data = bundle["image/png"]
    raw = base64.b64decode(data) if isinstance(data, str) else bytes(data)
    return raw, dict(metadata.get("image/png", {}))


def _render_with_twin(spec: dict[str, Any], **metadata: Any) -> Any:
    """The ``workbench`` renderer: a PNG output, then the live chart (see the module doc)."""
    import altair as alt
    from IPython.display import display

    try:
        png, png_meta = static_png(spec)
    except Exception:  # a chart vl-convert cannot draw still shows live
        png = b""
        png_meta = {}
    if png:
        display(  # type: ignore[no-untyped-call]
            {
                "image/png": base64.b64encode(png).decode("ascii"),
                "text/plain": "<static copy of the chart that follows>",
            },
            raw=True,
            metadata={"image/png": png_meta} if png_meta else None,
        )
    widget = live_chart(alt.Chart.from_dict(spec), renderer=metadata.get("renderer", "svg"))
    widget.add_class(TWIN_CLASS)
    return widget._repr_mimebundle_()


def enable_renderer() -> None:
    """Register and enable the ``workbench`` altair renderer."""
    import altair as alt

    if RENDERER not in alt.renderers.names():
        alt.renderers.register(RENDERER, _render_with_twin)
    alt.renderers.enable(RENDERER)
