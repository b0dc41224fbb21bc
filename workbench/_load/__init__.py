"""Reading recorded runs (R1-R4, R34-R36): one module per format, detected from content by
``loader``, each producing the records of ``records`` (``ToolBoundary``, ``PromotedRun``,
``LoadResult``, problems and error rules); ``pairing`` holds the call-id rule every format shares
(R2), and ``synthetic`` writes large synthetic logs for benchmarks and tests.
"""
