"""Shared test fixtures.

Every replay any test makes is checked against the official OpenWOP schemas (SPEC R18): an
autouse fixture wraps the library's ``replay`` (and every module-level alias of it, such as
``workbench.replay`` and the CLI's import) so that each :class:`~workbench.ReplayResult` has its
``events`` validated with the library's ``validate_events`` (envelope + payload schemas),
its sequence checked (0, 1, 2, ... strictly increasing, R18) and every ``agent.tool-returned``
checked to carry ``error`` xor ``outcome`` (R20). Any problem fails the test that made the
replay, at teardown, listing the problems. A test that means to look at the problems itself can
read them from the ``replay_event_problems`` fixture (and clear the list).
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import workbench
import workbench._replay.session as replay_module
from workbench._suite.schemas import validate_events

_ORIGINAL_REPLAY = replay_module.replay

# Import every workbench module now, so each one that binds ``replay`` at import time (the CLI,
# sweeps) is in sys.modules when the wrapper is installed.
for _info in pkgutil.walk_packages(workbench.__path__, "workbench."):
    if _info.name.endswith("__main__"):
        continue
    # A module another helper is mid-way through writing is not ours to judge here.
    with contextlib.suppress(Exception):
        importlib.import_module(_info.name)


def event_log_problems(events: list[dict[str, Any]]) -> list[str]:
    """Every way an event log breaks R18/R20: schema problems, sequence, error xor outcome."""
    problems = [str(p) for p in validate_events(events)]
    for index, event in enumerate(events):
        if not isinstance(event, dict):
            continue
        if event.get("sequence") != index:
            problems.append(
                f"events[{index}].sequence: {event.get('sequence')!r}, expected {index}"
            )
        if event.get("type") == "agent.tool-returned":
            payload = event.get("payload", {})
            if ("error" in payload) == ("outcome" in payload):
                problems.append(f"events[{index}].payload: needs exactly one of error and outcome")
    return problems


@pytest.fixture
def check_event_log() -> Callable[[list[dict[str, Any]]], list[str]]:
    """The shared event-log check (for tests that check a log by hand)."""
    return event_log_problems


@pytest.fixture
def replay_event_problems() -> list[str]:
    """The problems found in this test's replays so far (filled by the autouse wrapper)."""
    return []


@pytest.fixture(autouse=True)
def _validate_every_replay(
    monkeypatch: pytest.MonkeyPatch, replay_event_problems: list[str]
) -> Iterator[list[int]]:
    """Wrap every alias of the library's ``replay`` so each replay's events are validated."""
    counter = [0]

    def checked_replay(*args: Any, **kwargs: Any) -> Any:
        result = _ORIGINAL_REPLAY(*args, **kwargs)
        counter[0] += 1
        for problem in event_log_problems(result.events):
            replay_event_problems.append(f"replay #{counter[0]}: {problem}")
        return result

    checked_replay.__wrapped__ = _ORIGINAL_REPLAY  # type: ignore[attr-defined]
    for name, module in list(sys.modules.items()):
        if (name == "workbench" or name.startswith("workbench.")) and getattr(
            module, "replay", None
        ) is _ORIGINAL_REPLAY:
            monkeypatch.setattr(module, "replay", checked_replay)
    yield counter
    if replay_event_problems:
        shown = "\n".join(replay_event_problems[:20])
        pytest.fail(f"replay events failed validation:\n{shown}", pytrace=False)
