"""The event log a replay writes: OpenWOP v2 RunEventDocs (SPEC R18-R22).

Ids and timestamps come from the seed and a logical clock, so the same suite, agent and seed give
byte-identical logs (R22); wall-clock time is used only when the caller asks for it. Tool events
carry no suite content: a served error has a fixed ``error.message`` (R20, RFC 0245 section D)
and a success's ``outcome`` says how it was served, not what was served, unless the caller asks
for content with ``include_content=True``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from .._common.jsonio import write_text_atomic

__all__ = [
    "FIXTURE_MISS",
    "LIVE_TOOL_ERROR",
    "TOOL_ERROR",
    "UNKNOWN_TOOL",
    "EventLog",
    "events_to_jsonl",
    "run_id_for",
]

TOOL_ERROR = "workbench.tool_error"
"""``error.code`` of a fixture-served tool error (R20)."""
FIXTURE_MISS = "workbench.fixture_miss"
"""``error.code`` of a call that matched no fixture entry under ``onMiss: "fail"`` (R16)."""
LIVE_TOOL_ERROR = "workbench.live_tool_error"
"""``error.code`` of a live tool call (``onMiss: "live"``) that failed."""
UNKNOWN_TOOL = "workbench.unknown_tool"
"""``error.code`` of a call to a tool the task has no fixture for (a miss, R16)."""

ERROR_MESSAGES: dict[str, str] = {
    TOOL_ERROR: "fixture served a recorded tool error",
    FIXTURE_MISS: "no fixture entry matches this call",
    LIVE_TOOL_ERROR: "live tool call failed",
    UNKNOWN_TOOL: "no fixture entry matches this call",
}
"""The short, fixed ``error.message`` per code: never the payload (R20)."""

_LOGICAL_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
_LOGICAL_DAY = "2026-01-01"
_MS_PER_DAY = 86_400_000
SCHEMA_VERSION = 1


def run_id_for(suite_id: str, suite_version: str, seed: int, salt: str = "") -> str:
    """A deterministic OpenWOP ``runId`` (``workbench/<24 hex>``) for a suite, version and seed."""
    digest = hashlib.sha256(f"{suite_id}\0{suite_version}\0{seed}\0{salt}".encode()).hexdigest()
    return f"workbench/{digest[:24]}"


class EventLog:
    """An append-only list of RunEventDocs with sequence, ids and logical timestamps.

    With ``enabled=False`` nothing is recorded (replays that only want results run faster).
    """

    __slots__ = ("_id_prefix", "_wall_clock", "enabled", "events", "run_id")

    def __init__(self, run_id: str, *, enabled: bool = True, wall_clock: bool = False) -> None:
        self.run_id = run_id
        """The run's id (``tenant/opaque``)."""
        self.enabled = enabled
        """Whether events are recorded."""
        self.events: list[dict[str, Any]] = []
        """The events so far, in sequence order."""
        self._wall_clock = wall_clock
        self._id_prefix = "evt-" + run_id.rsplit("/", 1)[-1]

    def timestamp(self, sequence: int) -> str:
        """The event's timestamp: logical (epoch + sequence ms) unless wall-clock was asked."""
        if not self._wall_clock and 0 <= sequence < _MS_PER_DAY:
            # Fast path: the logical clock's first day, formatted without datetime arithmetic.
            seconds, millis = divmod(sequence, 1000)
            minutes, seconds = divmod(seconds, 60)
            hours, minutes = divmod(minutes, 60)
            return f"{_LOGICAL_DAY}T{hours:02d}:{minutes:02d}:{seconds:02d}.{millis:03d}Z"
        moment = (
            datetime.now(UTC)
            if self._wall_clock
            else _LOGICAL_EPOCH + timedelta(milliseconds=sequence)
        )
        return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"

    def emit(self, event_type: str, payload: Mapping[str, Any]) -> dict[str, Any] | None:
        """Append one event and return it (``None`` when the log is disabled)."""
        if not self.enabled:
            return None
        sequence = len(self.events)
        event = {
            "eventId": f"{self._id_prefix}-{sequence:08d}",
            "runId": self.run_id,
            "type": event_type,
            "payload": dict(payload),
            "timestamp": self.timestamp(sequence),
            "sequence": sequence,
            "schemaVersion": SCHEMA_VERSION,
        }
        self.events.append(event)
        return event

    def __len__(self) -> int:
        return len(self.events)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.events)

    def to_jsonl(self) -> str:
        """The log as JSONL text (one compact, key-sorted event a line)."""
        return events_to_jsonl(self.events)

    def write(self, path: str | os.PathLike[str]) -> None:
        """Write the log as JSONL, atomically."""
        write_text_atomic(path, self.to_jsonl())


def events_to_jsonl(events: Iterable[Mapping[str, Any]]) -> str:
    """JSONL text of events: one compact JSON object a line, keys sorted, UTF-8."""
    import json

    return "".join(
        json.dumps(e, sort_keys=True, ensure_ascii=False, separators=(",", ":")) + "\n"
        for e in events
    )
