"""Promotion (R30, R31): ``promote`` turns recorded runs into a suite (a task per run, an entry
per boundary, a script, golden and trajectory expectations), ``redact`` removes secrets and
reports each by path, and ``selftest`` replays the unmodified suite to show it reproduces the
recording.
"""
