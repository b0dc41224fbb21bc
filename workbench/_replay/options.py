"""How a replay runs: one record for the options :func:`~workbench.replay`, the session and the
host share, with the defaults in one place (like httpx's ``Timeout``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from .._suite.capabilities import MAX_TRIALS, HostProfile

__all__ = ["LiveTool", "ReplayOptions", "ReplayOverrides"]

LiveTool = Callable[[Any], Any]
"""A live tool for ``onMiss: "live"``: called with the call's args; returns a
:class:`~workbench.ToolResult`, an MCP ``CallToolResult`` body (``content``, ``isError``), a
string, or any JSON (a success). An exception it raises is a tool error."""


@dataclass(frozen=True, slots=True)
class ReplayOptions:
    """The options of a replay. ``ReplayOptions(trials=4).replace(seed=1)`` makes a variant."""

    trials: int | None = None
    """Trials per task; ``None``: R8 (the task's ``trials``, then the suite's, then 1)."""
    seed: int = 0
    """Seeds the scripted agent's ``choose`` draws and the run's ids (R22)."""
    host_profile: HostProfile | None = None
    """What the host advertises (R10); ``None``: everything (:meth:`HostProfile.workbench`)."""
    live_tools: Mapping[str, LiveTool] | None = None
    """Python callables answering misses under ``onMiss: "live"`` (R16), by tool name."""
    events: bool = True
    """Whether to write the event log (off: faster, for sweeps)."""
    include_content: bool = False
    """Whether tool inputs, results and answers go on the event log (off by default, R20)."""
    wall_clock: bool = False
    """Wall-clock timestamps instead of the logical clock (breaks byte-for-byte reruns)."""
    validate: bool = True
    """Whether to check the suite against its schema before running (the capability check
    always runs); off for variants derived from a validated suite."""

    def __post_init__(self) -> None:
        if self.trials is not None and (
            isinstance(self.trials, bool) or not isinstance(self.trials, int) or self.trials < 1
        ):
            raise ValueError(f"trials must be at least 1, not {self.trials}")
        if self.trials is not None and self.trials > MAX_TRIALS:
            raise ValueError(f"trials: {self.trials} is over the limit of {MAX_TRIALS} per task")

    @property
    def profile(self) -> HostProfile:
        """The host profile in force (:attr:`host_profile`, or the workbench's own)."""
        return self.host_profile or HostProfile.workbench()

    def replace(self, **changes: Any) -> ReplayOptions:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)


class ReplayOverrides(TypedDict, total=False):
    """:class:`ReplayOptions` fields given as keywords (``replay(suite, trials=4)``)."""

    trials: int | None
    seed: int
    host_profile: HostProfile | None
    live_tools: Mapping[str, LiveTool] | None
    events: bool
    include_content: bool
    wall_clock: bool
    validate: bool


def resolve_options(options: ReplayOptions | None, overrides: Mapping[str, Any]) -> ReplayOptions:
    """``options`` (default: all defaults) with the keywords given on top."""
    base = options if options is not None else ReplayOptions()
    return base.replace(**overrides) if overrides else base
