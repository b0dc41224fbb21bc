"""The suite (R5-R11): ``model`` holds the suite as its JSON object with read-only task views,
``schemas`` validates suites, summaries and events against the vendored official schemas and the
extension schemas, ``generate`` writes the extension schemas from the official ones, and
``capabilities`` holds host profiles and the run-create refusal (R10, R11).
"""
