"""Helpers shared by several test files: fixture paths, the real recordings with their hand
counts, suite builders, frame readers, OpenWOP event checks, CLI runners, a hand-built sweep,
and the OpenWOP host under test (raw HTTP, official v2 schemas).

pytest puts ``tests/`` on ``sys.path`` (the test files are not a package), so test files import
these as ``from helpers.paths import BILLING``; mypy finds them the same way. Fixtures stay in
``tests/conftest.py``; what is here is plain functions, constants and records.
"""
