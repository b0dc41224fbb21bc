"""Charts and reports over a sweep (R33): the branch chart (``branch_chart`` with its ``layout``),
the recovery ``matrix``, the divergence ``strip``, the ranking of a many-task sweep's tasks and
its chart by task (``overview``), shared sizes and helpers (``common``), rendering without a
browser (``render``), and the self-contained HTML report (``html``, laid out by ``page`` and
``sections``). No notebook code lives here (that is ``workbench.widgets``).
"""
