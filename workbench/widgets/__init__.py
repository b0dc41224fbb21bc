"""Notebook widgets: the :class:`Workbench` (ipywidgets 8), a thin view over the library.

    >>> from workbench.widgets import Workbench
    >>> wb = Workbench("fixtures/billing-support.openwop.jsonl")
    >>> wb          # in a cell: Load, Boundaries, Replay, Sweep & branches, Export

Imported inside a kernel, charts render offline (``alt.JupyterChart`` with bundled Vega).
"""

from ._settings import enable_offline_charts, in_kernel
from ._workbench import Workbench

__all__ = ["Workbench", "enable_offline_charts"]

if in_kernel():
    enable_offline_charts()
