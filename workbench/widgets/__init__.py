"""Notebook widgets: the :class:`Workbench` (ipywidgets 8 and anywidget), a thin view over the
library.

    >>> from workbench.widgets import Workbench
    >>> wb = Workbench("fixtures/billing-support.openwop.jsonl")
    >>> wb   # a cell: a task picker over Load, Boundaries, Replay, Sweep & branches, Export

Charts render offline by construction (an ``alt.JupyterChart`` with Vega bundled by vl-convert),
whatever was displayed before. Imported inside a kernel, charts shown as cell outputs use the
``workbench`` altair renderer: live and offline, with a static PNG twin a saved notebook keeps.
"""

from ._settings import enable_offline_charts, in_kernel
from ._workbench import Workbench

__all__ = ["Workbench", "enable_offline_charts"]

if in_kernel():
    enable_offline_charts()
