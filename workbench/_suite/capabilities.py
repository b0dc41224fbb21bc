"""Host capability profiles and run-create refusal (SPEC R10, R11; RFC 0245 section C).

A host advertises what it implements. A suite that uses a member the host does not advertise is
refused before anything runs, with a ``400 validation_error`` body naming the first offending
field. The workbench's own host advertises everything; a narrower profile shows how a suite fares
on another host.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from .._common.jsonio import read_json

__all__ = [
    "MAX_TOTAL_TRIALS",
    "MAX_TRIALS",
    "HostProfile",
    "HostRefusal",
    "ProblemKind",
    "SuiteProblem",
    "check_suite",
    "first_unadvertised_field",
    "limit_problems",
    "suite_problems",
    "unadvertised_fields",
]


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
    recorded_fixtures: bool = True
    """``agents.evalSuite.recordedFixtures`` (RFC 0252): a run create's ``fixtureRuns`` names a
    recorded run whose calls become a task's fixtures (the HTTP host, R43)."""
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
            recorded_fixtures=suite.get("recordedFixtures") is True,
            pre_post_events=hooks.get("prePostEvents") is True,
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> HostProfile:
        """Read a profile file; schema problems are reported naming the file and field."""
        from .schemas import validate_host_profile

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
                    "recordedFixtures": self.recorded_fixtures,
                }
            },
            "toolHooks": {"supported": self.pre_post_events, "prePostEvents": self.pre_post_events},
        }


def _gated_fields(suite: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """Every gated member the suite uses, as ``(JSON path, capability)``, in document order.

    Document order is the order of the members in the suite's JSON object as loaded (a file's
    own order; Python keeps it), at every level: a suite whose root ``trials`` comes after
    ``tasks`` names a task's field first. ``fixtures.onMiss`` is not gated: R11 lists the gated
    members and R10 advertises no capability for it (the workbench's host implements it).
    """
    for key, value in suite.items():
        if key == "modes" and isinstance(value, list):
            for index, mode in enumerate(value):
                yield f"modes[{index}]", f"mode:{mode}"
        elif key == "trials":
            yield "trials", "trials"
        elif key == "tasks" and isinstance(value, list):
            for t_index, task in enumerate(value):
                if isinstance(task, Mapping):
                    yield from _task_gated_fields(task, f"tasks[{t_index}]")


def _task_gated_fields(task: Mapping[str, Any], base: str) -> Iterator[tuple[str, str]]:
    """A task's gated members in document order (see :func:`_gated_fields`)."""
    for key, value in task.items():
        if key == "fixtures" and isinstance(value, Mapping):
            entries = value.get("toolResponses")
            if not isinstance(entries, list):
                continue
            for e_index, entry in enumerate(entries):
                if not isinstance(entry, Mapping):
                    continue
                at = f"{base}.fixtures.toolResponses[{e_index}]"
                for member, item in entry.items():
                    if member in ("args", "argsMatch"):
                        yield f"{at}.{member}", "fixtureMatching"
                    elif member == "isError" and item is True:
                        yield f"{at}.isError", "fixtureErrors"
        elif key == "trials":
            yield f"{base}.trials", "trials"
        elif key == "trajectory":
            yield f"{base}.trajectory", "trajectory"


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
    return next(unadvertised_fields(suite, profile), None)


_PATH_PART = re.compile(r'\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\.?([^.\[]+)')


def _document_position(data: Any, path: str) -> tuple[int, ...]:
    """Where a problem's JSON path (``tasks[0].fixtures.toolResponses[1].isError``) sits in
    the document: per level, the member's position among its object's members as loaded, or
    the array index. A path that does not resolve sorts after the ones that do at that level."""
    position: list[int] = []
    node = data
    for match in _PATH_PART.finditer("" if path == "(root)" else path):
        index, quoted, name = match.groups()
        if index is not None:
            position.append(int(index))
            node = node[int(index)] if isinstance(node, list) and int(index) < len(node) else None
            continue
        key = json.loads(quoted) if quoted is not None else name
        if isinstance(node, Mapping) and key in node:
            position.append(list(node).index(key))
            node = node[key]
        else:
            position.append(sys.maxsize)
            node = None
    return tuple(position)


def _duplicate_task_ids(suite: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(field, message)`` for every task whose ``taskId`` an earlier task already has: the
    official schema says task ids are suite-unique, and a replay could not tell them apart."""
    tasks = suite.get("tasks")
    if not isinstance(tasks, list):
        return []
    seen: dict[str, int] = {}
    found: list[tuple[str, str]] = []
    for index, task in enumerate(tasks):
        task_id = task.get("taskId") if isinstance(task, Mapping) else None
        if not isinstance(task_id, str):
            continue
        if task_id in seen:
            found.append(
                (
                    f"tasks[{index}].taskId",
                    f"taskId {task_id!r} is already used by tasks[{seen[task_id]}] "
                    "(task ids are suite-unique)",
                )
            )
        else:
            seen[task_id] = index
    return found


ProblemKind = Literal["schema", "suite", "limit", "host", "script"]
"""What a suite problem is: ``schema`` (the extension schema refuses it), ``suite`` (valid
JSON but not a runnable suite: a ``taskId`` used twice), ``limit`` (more work than a host runs:
trials over :data:`MAX_TRIALS`), ``host`` (a member the host profile does not advertise, R11),
``script`` (a scripted task's input the scripted agent cannot run, R23)."""

MAX_TRIALS = 10_000
"""The most trials a host runs for one task (a suite asking for more is refused)."""
MAX_TOTAL_TRIALS = 1_000_000
"""The most trials a host runs for one suite, over all its tasks."""


@dataclass(frozen=True, slots=True)
class SuiteProblem:
    """One reason a host would refuse a suite before running it (what ``validate`` lists)."""

    kind: ProblemKind
    """What kind of problem it is: a schema problem, a host refusal, a script problem, ..."""
    field: str
    """The JSON path of the offending member (``(root)`` for the suite itself)."""
    message: str
    """Why, without the path."""

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"

    @property
    def is_refusal(self) -> bool:
        """True for what a host refuses although the schema allows it (host, limit)."""
        return self.kind in ("host", "limit")


def _trial_count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def limit_problems(suite: Mapping[str, Any]) -> list[SuiteProblem]:
    """Trials over the host's bounds (:data:`MAX_TRIALS` per task, :data:`MAX_TOTAL_TRIALS`)."""
    found: list[SuiteProblem] = []
    root = _trial_count(suite.get("trials"))
    if root is not None and root > MAX_TRIALS:
        found.append(
            SuiteProblem("limit", "trials", f"{root} trials is over the limit of {MAX_TRIALS}")
        )
    tasks = suite.get("tasks")
    total = 0
    for index, task in enumerate(tasks if isinstance(tasks, list) else ()):
        own = _trial_count(task.get("trials")) if isinstance(task, Mapping) else None
        if own is not None and own > MAX_TRIALS:
            found.append(
                SuiteProblem(
                    "limit",
                    f"tasks[{index}].trials",
                    f"{own} trials is over the limit of {MAX_TRIALS}",
                )
            )
        chosen = (
            own if own is not None and own >= 1 else root if root is not None and root >= 1 else 1
        )
        total += chosen
    if not found and total > MAX_TOTAL_TRIALS:
        found.append(
            SuiteProblem(
                "limit",
                "tasks",
                f"{total} trials over all tasks is over the limit of {MAX_TOTAL_TRIALS}",
            )
        )
    return found


def suite_problems(
    suite: Mapping[str, Any], profile: HostProfile, *, validate: bool = True
) -> list[SuiteProblem]:
    """Every reason the host would refuse ``suite`` at run create, in the order it checks them.

    First the schema problems and reused task ids (``validate=True``), in document order; then
    trials over the host's limits; then every member the profile does not advertise, in
    document order. :func:`check_suite` refuses with the first of these.
    """
    problems: list[SuiteProblem] = []
    if validate:
        from .schemas import validate_suite

        found = [("schema", p.path, p.message) for p in validate_suite(suite)]
        found += [("suite", field, why) for field, why in _duplicate_task_ids(suite)]
        found.sort(key=lambda item: _document_position(suite, item[1]))
        problems += [SuiteProblem(kind, field, why) for kind, field, why in found]  # type: ignore[arg-type]
    problems += limit_problems(suite)
    problems += [
        SuiteProblem("host", field, why) for field, why in unadvertised_fields(suite, profile)
    ]
    return problems


def unadvertised_fields(
    suite: Mapping[str, Any], profile: HostProfile
) -> Iterator[tuple[str, str]]:
    """Every field the host does not advertise, with the reason, in document order."""
    if (
        profile.fixture_matching
        and profile.fixture_errors
        and profile.trials
        and profile.trajectory
    ):
        # Only modes can be unadvertised: skip the walk over every fixture entry (hot in sweeps).
        modes = suite.get("modes")
        if not isinstance(modes, list) or all(m in profile.modes for m in modes):
            return
    for field, capability in _gated_fields(suite):
        if not _advertised(profile, capability):
            if capability.startswith("mode:"):
                mode = capability[5:]
                reason = f"eval mode {mode!r} is not advertised (agents.evalSuite.modes)"
            else:
                reason = _WHY[capability]
            yield field, f"host {profile.name!r} does not advertise it: {reason}"


def check_suite(suite: Mapping[str, Any], profile: HostProfile, *, validate: bool = True) -> None:
    """Refuse a suite the host cannot run faithfully, before anything runs (R11).

    The refusal names the first of :func:`suite_problems`: an invalid suite (against the
    extension schema, or with a ``taskId`` used twice) in document order, then trials over the
    host's limits, then a member the host does not advertise. A host never serves an
    ``isError`` entry as a success instead of refusing.
    """
    if validate:
        problems = suite_problems(suite, profile, validate=True)
        if problems:
            first = problems[0]
            if first.kind in ("schema", "suite"):
                raise HostRefusal(first.field, f"suite is not valid: {first}")
            raise HostRefusal(first.field, first.message)
        return
    limits = limit_problems(suite)
    if limits:
        raise HostRefusal(limits[0].field, limits[0].message)
    found = first_unadvertised_field(suite, profile)
    if found is not None:
        raise HostRefusal(*found)
