"""Chart rendering settings for notebooks: offline Vega, a PNG fallback for static outputs.

Inside a kernel, charts render through ``alt.JupyterChart`` with the Vega libraries bundled
(``offline=True``: no CDN). Outside a kernel (scripts, static builds) charts render as PNG through
vl-convert, so a saved output still shows a picture.
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
    """Pick altair's renderer: ``jupyter`` offline in a kernel, else ``png`` (when vl-convert is
    installed). Returns the renderer enabled (``none``: altair or vl-convert missing).

    ``force`` picks one regardless of where the code runs (tests, static builds).
    """
    choice: ChartRenderer = force or ("jupyter" if in_kernel() else "png")
    if choice == "none":
        return "none"
    try:
        import altair as alt
    except ImportError:
        return "none"
    if choice == "jupyter":
        alt.renderers.enable("jupyter", offline=True)
        return "jupyter"
    try:
        import vl_convert  # noqa: F401
    except ImportError:
        return "none"
    alt.renderers.enable("png")
    return "png"
