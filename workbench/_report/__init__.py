"""Charts and reports over a sweep (R33): the branch chart (``branch_chart`` with its ``layout``),
the recovery ``matrix``, the divergence ``strip``, shared sizes and helpers (``common``),
rendering without a browser (``render``), and the self-contained HTML report (``html``). No
notebook code lives here (that is ``workbench.widgets``).
"""
