"""The tree of a Langfuse trace's observations: the agent above each tool run (SPEC R34).

An observation's ``parentObservationId`` names the observation it runs under; a tool run's agent
is the name of the nearest ``AGENT`` observation above it (``langfuse``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["Agents"]


class Agents:
    """The name of the nearest ``AGENT`` observation above each observation of a trace."""

    __slots__ = ("_by_id", "_memo", "_of_parent")

    def __init__(self, by_id: Mapping[str, Any]) -> None:
        self._by_id = by_id
        self._memo: dict[int, str | None] = {}
        """That name for each observation walked so far, at or above it (a deep tree is walked
        once, not once a call; a loop of parents ends the walk)."""
        self._of_parent: dict[str, str | None] = {}
        """That name by parent id: what an observation's is depends on its parent alone (the
        calls of a trace mostly share a few parents)."""

    def of(self, observation: Mapping[str, Any]) -> str | None:
        """The name of the nearest ``AGENT`` observation above ``observation``, if any."""
        parent_id = observation.get("parentObservationId")
        if type(parent_id) is not str:
            return None
        of_parent = self._of_parent
        if parent_id in of_parent:
            return of_parent[parent_id]
        found = of_parent[parent_id] = self._walk(_parent(observation, self._by_id))
        return found

    def _walk(self, node: Mapping[str, Any] | None) -> str | None:
        """The name of the nearest ``AGENT`` observation at or above ``node``."""
        memo, by_id = self._memo, self._by_id
        chain: list[int] = []
        walked: set[int] = set()  # the chain's keys, looked up in constant time (a loop ends it)
        found: str | None = None
        while node is not None:
            key = id(node)
            if key in memo:
                found = memo[key]
                break
            if key in walked:
                break
            chain.append(key)
            walked.add(key)
            if node.get("type") == "AGENT" and isinstance(node.get("name"), str):
                found = str(node["name"])
                break
            node = _parent(node, by_id)
        for key in chain:
            memo[key] = found
        return found


def _parent(observation: Mapping[str, Any], by_id: Mapping[str, Any]) -> Mapping[str, Any] | None:
    parent_id = observation.get("parentObservationId")
    parent = by_id.get(parent_id) if type(parent_id) is str else None
    return parent if type(parent) is dict or isinstance(parent, Mapping) else None
