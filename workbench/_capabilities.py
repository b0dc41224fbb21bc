"""Host capability profiles and run-create refusal (SPEC R10, R11; RFC 0245 section C).

A host advertises what it implements. A suite that uses a member the host does not advertise is
refused before anything runs, with a ``400 validation_error`` body naming the first offending
field. The workbench's own host advertises everything; a narrower profile shows how a suite fares
on another host.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ._jsonio import read_json

__all__ = ["HostProfile", "HostRefusal", "check_suite", "first_unadvertised_field"]


class HostRefusal(Exception):
    """The host refused a suite at run create: HTTP 400 ``validation_error`` (R11).

    :attr:`body` is the error body ``{"error": "validation_error", "message": ...,
    "details": {"field": ...}}``; :attr:`field` is the offending field's JSON path.
    """

    status = 400

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.body: dict[str, Any] = {
            "error": "validation_error",
            "message": message,
            "details": {"field": field},
        }
        super().__init__(f"400 validation_error: {message} (field {field})")


@dataclass(frozen=True, slots=True)
class HostProfile:
    """What a host advertises (R10)."""

    name: str = "workbench"
    """A label for the profile."""
    modes: tuple[str, ...] = ("golden",)
    """``agents.evalSuite.modes``: the eval modes the host runs."""
    fixture_matching: bool = True
    """``agents.evalSuite.fixtureMatching``: ``args`` / ``argsMatch`` on fixture entries."""
    fixture_errors: bool = True
    """``agents.evalSuite.fixtureErrors``: ``isError`` entries served as tool errors (RFC 0245)."""
    trials: bool = True
    """``agents.evalSuite.trials``: ``trials`` on tasks and suites."""
    trajectory: bool = True
    """``agents.evalSuite.trajectory``: ``trajectory`` expectations."""
    pre_post_events: bool = True
    """``toolHooks.prePostEvents``: ``status`` (and ``argsHash``) on tool events."""

    @classmethod
    def workbench(cls) -> HostProfile:
        """The workbench's own host: every member advertised, and the ``golden`` mode (the one
        mode it grades; it has no rubric judge)."""
        return cls(name="workbench", modes=("golden",))

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, name: str | None = None) -> HostProfile:
        """A profile from its JSON form (the R10 object; absent members are not advertised)."""
        agents = data.get("agents")
        suite = agents.get("evalSuite") if isinstance(agents, Mapping) else None
        suite = suite if isinstance(suite, Mapping) else {}
        hooks = data.get("toolHooks")
        hooks = hooks if isinstance(hooks, Mapping) else {}
        modes = suite.get("modes")
        return cls(
            name=name or str(data.get("name", "host")),
            modes=tuple(m for m in modes if isinstance(m, str)) if isinstance(modes, list) else (),
            fixture_matching=suite.get("fixtureMatching") is True,
            fixture_errors=suite.get("fixtureErrors") is True,
            trials=suite.get("trials") is True,
            trajectory=suite.get("trajectory") is True,
            pre_post_events=hooks.get("prePostEvents") is True,
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> HostProfile:
        """Read a profile file; schema problems are reported naming the file and field."""
        from ._schemas import validate_host_profile

        file = os.fspath(path)
        data = read_json(file)
        if not isinstance(data, Mapping):
            raise ValueError(f"{file}: a host profile must be a JSON object")
        problems = validate_host_profile(data)
        if problems:
            raise ValueError(f"{file}: {problems[0]}")
        return cls.from_json(data, name=str(data.get("name", os.path.basename(file))))

    def to_json(self) -> dict[str, Any]:
        """The profile's R10 JSON object."""
        return {
            "name": self.name,
            "agents": {
                "evalSuite": {
                    "supported": True,
                    "modes": list(self.modes),
                    "fixtureMatching": self.fixture_matching,
                    "fixtureErrors": self.fixture_errors,
                    "trials": self.trials,
                    "trajectory": self.trajectory,
                }
            },
            "toolHooks": {"supported": self.pre_post_events, "prePostEvents": self.pre_post_events},
        }


def _gated_fields(suite: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """Every gated member the suite uses, as ``(JSON path, capability)``, in document order."""
    modes = suite.get("modes")
    if isinstance(modes, list):
        for index, mode in enumerate(modes):
            yield f"modes[{index}]", f"mode:{mode}"
    if "trials" in suite:
        yield "trials", "trials"
    tasks = suite.get("tasks")
    if not isinstance(tasks, list):
        return
    for t_index, task in enumerate(tasks):
        if not isinstance(task, Mapping):
            continue
        fixtures = task.get("fixtures")
        entries = fixtures.get("toolResponses") if isinstance(fixtures, Mapping) else None
        if isinstance(entries, list):
            for e_index, entry in enumerate(entries):
                if not isinstance(entry, Mapping):
                    continue
                base = f"tasks[{t_index}].fixtures.toolResponses[{e_index}]"
                if "args" in entry:
                    yield f"{base}.args", "fixtureMatching"
                if "argsMatch" in entry:
                    yield f"{base}.argsMatch", "fixtureMatching"
                if entry.get("isError") is True:
                    yield f"{base}.isError", "fixtureErrors"
        if "trials" in task:
            yield f"tasks[{t_index}].trials", "trials"
        if "trajectory" in task:
            yield f"tasks[{t_index}].trajectory", "trajectory"


def _advertised(profile: HostProfile, capability: str) -> bool:
    if capability.startswith("mode:"):
        return capability[5:] in profile.modes
    return bool(
        {
            "fixtureMatching": profile.fixture_matching,
            "fixtureErrors": profile.fixture_errors,
            "trials": profile.trials,
            "trajectory": profile.trajectory,
        }[capability]
    )


_WHY = {
    "fixtureErrors": "isError fixture entries need agents.evalSuite.fixtureErrors (RFC 0245)",
    "fixtureMatching": "fixture args matching needs agents.evalSuite.fixtureMatching",
    "trials": "trials need agents.evalSuite.trials",
    "trajectory": "trajectory expectations need agents.evalSuite.trajectory",
}


def first_unadvertised_field(
    suite: Mapping[str, Any], profile: HostProfile
) -> tuple[str, str] | None:
    """The first field the host does not advertise, with the reason, or ``None``."""
    if (
        profile.fixture_matching
        and profile.fixture_errors
        and profile.trials
        and profile.trajectory
    ):
        # Only modes can be unadvertised: skip the walk over every fixture entry (hot in sweeps).
        modes = suite.get("modes")
        if not isinstance(modes, list) or all(m in profile.modes for m in modes):
            return None
    for field, capability in _gated_fields(suite):
        if not _advertised(profile, capability):
            if capability.startswith("mode:"):
                mode = capability[5:]
                reason = f"eval mode {mode!r} is not advertised (agents.evalSuite.modes)"
            else:
                reason = _WHY[capability]
            return field, f"host {profile.name!r} does not advertise it: {reason}"
    return None


def check_suite(suite: Mapping[str, Any], profile: HostProfile, *, validate: bool = True) -> None:
    """Refuse a suite the host cannot run faithfully, before anything runs (R11).

    An invalid suite (against the extension schema) is refused naming its first problem's path;
    then a suite using an unadvertised member is refused naming the first such field. A host
    never serves an ``isError`` entry as a success instead of refusing.
    """
    if validate:
        from ._schemas import validate_suite

        problems = validate_suite(suite)
        if problems:
            first = problems[0]
            raise HostRefusal(first.path, f"suite is not valid: {first}")
    found = first_unadvertised_field(suite, profile)
    if found is not None:
        raise HostRefusal(*found)
