"""Grading (R16, R26-R29): ``golden`` (R26), ``trajectory`` (R27, maximum matching), ``trials``
(pass@k, pass^k, thresholds; R28), and ``trial``, which grades a trial, a task and a run from
plain data so that every replay path grades alike (R16, R29).
"""
