"""Replay (R12-R25): ``fixtures`` prepares a task's entries and what each serves, ``host`` serves
one trial (matching, consumption, errors, misses, live tools), ``events`` writes the OpenWOP
event log and every payload (R18-R22), ``agents`` is the agent protocol, ``policies`` and
``scripted`` the scripted agent (R23), ``options`` the one options record, ``results`` what a
replay gives, and ``session`` runs tasks x trials and grades them.
"""
