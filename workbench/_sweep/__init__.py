"""Variants and sweeps (R32, R33): ``payloads`` (error payload presets), ``variants`` (fault
kinds and variant sets), ``edits`` (whole-suite edits: toggle, fault in place), ``plan`` (what
workers receive and return), ``run`` (the sweep over any executor), ``result`` (the sweep table,
its columns declared once) and ``branches`` (the branch tree, from plain data).
"""
