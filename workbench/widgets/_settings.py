"""Chart rendering settings for notebooks: live and offline in a kernel, PNG elsewhere.

Inside a kernel, charts shown as cell outputs render through the ``workbench`` altair renderer:
a live ``JupyterChart`` with Vega bundled (no CDN), preceded by a static PNG that a saved notebook
keeps (see :mod:`workbench.widgets._charts`). Outside a kernel (scripts, static builds) charts
render as PNG through vl-convert, so a saved output still shows a picture.
"""

from __future__ import annotations

import sys
from typing import Literal

__all__ = ["enable_offline_charts", "in_kernel"]

ChartRenderer = Literal["jupyter", "png", "none"]


def in_kernel() -> bool:
    """Whether this Python runs inside an IPython kernel (not a plain interpreter or terminal)."""
    ipython_module = sys.modules.get("IPython")
    if ipython_module is None:
        return False
    get_ipython = getattr(ipython_module, "get_ipython", None)
    shell = get_ipython() if callable(get_ipython) else None
    return shell is not None and getattr(shell, "kernel", None) is not None


def enable_offline_charts(*, force: ChartRenderer | None = None) -> ChartRenderer:
    """Pick altair's renderer: live and offline in a kernel (``jupyter``: the ``workbench``
    renderer, a ``JupyterChart`` with bundled Vega and a static PNG twin), else ``png`` (when
    vl-convert is installed). Returns the choice made (``none``: altair or vl-convert missing).

    ``force`` picks one regardless of where the code runs (tests, static builds).
    """
    choice: ChartRenderer = force or ("jupyter" if in_kernel() else "png")
    if choice == "none":
        return "none"
    try:
        import altair as alt
        import vl_convert  # noqa: F401
    except ImportError:
        return "none"
    if choice == "jupyter":
        from ._charts import enable_renderer

        enable_renderer()
        return "jupyter"
    alt.renderers.enable("png")
    return "png"
