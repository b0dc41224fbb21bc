"""Charts of a fault sweep (R33): the branch tree, the recovery matrix and the divergence strip.

One module each (``branch_chart``, ``matrix``, ``strip``), the branch layout in ``layout``, the
shared sizes and helpers in ``common``, and rendering (PNG/SVG through vl-convert, no browser and
no network) in ``render``; this module gathers the public names.
"""

from __future__ import annotations

from .branch_chart import branch_chart
from .common import BRANCH_SELECTION, MAX_BRANCH_NODES, MAX_BRANCH_STEPS, MAX_STRIP_ROWS
from .matrix import recovery_matrix
from .render import chart_spec, render_png, render_svg, save_chart
from .strip import divergence_strip

__all__ = [
    "BRANCH_SELECTION",
    "MAX_BRANCH_NODES",
    "MAX_BRANCH_STEPS",
    "MAX_STRIP_ROWS",
    "branch_chart",
    "chart_spec",
    "divergence_strip",
    "recovery_matrix",
    "render_png",
    "render_svg",
    "save_chart",
]
