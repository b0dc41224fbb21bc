"""Shared records and vocabularies, at the bottom of every room: the closed words of the contract
as ``Literal`` types (``vocab``), stable JSON and atomic writes (``jsonio``), canonical JSON and
args matching (``canonical``, R12), the agent-facing ``ToolResult`` with the one error-text rule
(``toolresult``, R17), and the one trajectory ``Step`` with ``divergence`` (``step``, R33).
"""
