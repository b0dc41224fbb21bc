"""Run create bodies, checked before anything runs (SPEC R11, R43); forks are ``_fork``'s.

A body is read in its own member order and the first offending member is named, R11's way:
``400 validation_error`` with ``details.field``. Each member's own checks (its type, the suite
or agent it names) come in document order; checks that need two members (``fixtureRuns`` keys
are task ids of the suite ``evalSuiteRef`` names) follow; then the suite itself is checked
against the host profile (``check_suite``: its schema, then every member the host does not
advertise) and, for the scripted agent, every task's script. Only a body that passes all of it
becomes a :class:`RunRecipe`, and only a recipe is ever run.

Run options travel where OpenWOP puts vendor options: ``configurable.extensions.workbench``
``{seed, trials, includeContent}``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

from .._replay.policies import script_problems
from .._suite.capabilities import HostProfile, HostRefusal, check_suite
from .._suite.model import Suite
from ._catalog import AgentRegistry, RecordedRuns, SuiteCatalog
from ._wire import WireError, member_path

__all__ = [
    "MAX_TRIALS",
    "WORKBENCH_OPTIONS",
    "RunRecipe",
    "SuiteChecker",
    "as_int",
    "as_object",
    "as_tags",
    "checked",
    "parse_create",
    "workbench_options",
]

_AGENT_ID = re.compile(r"[A-Za-z0-9._~:-]{1,128}")
_ORG = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")
_UNSERVED: Final[Mapping[str, str]] = {
    "workflowId": "this host runs eval suites only: an eval run names no workflow",
    "inputs": "an eval run takes its inputs from the suite's tasks",
    "scopeId": "this host has no scopes",
    "residency": "this host makes no residency promise",
    "callbackUrl": "this host sends no webhooks",
    "evalModes": "eval modes per run need agents.evalSuite.baselineSelection (RFC 0251)",
    "baselineRunId": "baseline runs need agents.evalSuite.baselineSelection (RFC 0251)",
}
_SECTIONS = ("run", "ai", "distillation", "budget")
WORKBENCH_OPTIONS: Final = ("seed", "trials", "includeContent")
MAX_TRIALS: Final = 1000
"""The most trials per task a request may ask for: a run's log is held in memory (about 30
events a trial for the billing suite), and one request must not tie a worker up for hours."""


@dataclass(frozen=True, slots=True)
class RunRecipe:
    """Everything a run is made from; a fork changes a copy of its source's."""

    suite: Suite
    """The suite as it runs (``fixtureRuns`` and fork faults applied)."""
    suite_ref: str
    """The ``evalSuiteRef`` given."""
    origin: str
    """Where the suite was found."""
    agent_id: str
    """The ``agentId`` given."""
    seed: int = 0
    """The run's seed (R22)."""
    trials: int | None = None
    """Trials per task, or ``None`` for R8."""
    include_content: bool = False
    """Tool inputs and results on the event log (off: content-free, R20)."""
    fixture_runs: Mapping[str, str] = dataclasses.field(default_factory=dict)
    """RFC 0252: task id -> recorded run id."""
    faults: tuple[Mapping[str, Any], ...] = ()
    """The fork faults applied so far, in order."""
    tags: tuple[str, ...] | None = None
    """``tags`` as given."""
    metadata: Mapping[str, Any] | None = None
    """``metadata`` as given."""
    configurable: Mapping[str, Any] | None = None
    """``configurable`` as given (echoed on the snapshot)."""

    def replace(self, **changes: Any) -> RunRecipe:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)


class SuiteChecker:
    """R11's check of a suite on a profile, remembered by the suite's exact JSON (member order
    included, since the first offending field is in document order)."""

    def __init__(self, profile: HostProfile, size: int = 256) -> None:
        self.profile = profile
        self._seen: OrderedDict[tuple[bytes, bool], WireError | None] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def check(self, suite: Suite, *, scripted: bool) -> None:
        """Raise the refusal of ``suite`` (``400 validation_error`` naming the field)."""
        try:
            text = orjson.dumps(suite.data)
        except (TypeError, orjson.JSONEncodeError):
            text = repr(suite.data).encode()
        key = (hashlib.sha256(text).digest(), scripted)
        with self._lock:
            if key in self._seen:
                self._seen.move_to_end(key)
                found = self._seen[key]
                if found is not None:
                    raise found
                return
        found = self._refusal(suite, scripted)
        with self._lock:
            self._seen[key] = found
            if len(self._seen) > self._size:
                self._seen.popitem(last=False)
        if found is not None:
            raise found

    def _refusal(self, suite: Suite, scripted: bool) -> WireError | None:
        try:
            check_suite(suite.data, self.profile)
        except HostRefusal as refusal:
            return WireError("validation_error", refusal.body["message"], {"field": refusal.field})
        if scripted:
            for index, task in enumerate(suite.tasks):
                problems = script_problems(task.get("input"), f"tasks[{index}].input")
                if problems:
                    field, _, why = problems[0].partition(": ")
                    return WireError.invalid(field, f"the scripted agent cannot run it: {why}")
        return None


def as_int(value: Any, field: str, minimum: int, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise WireError.invalid(field, f"{field} must be an integer >= {minimum}")
    if maximum is not None and value > maximum:
        raise WireError.invalid(field, f"{field} must be at most {maximum}")
    return value


def as_object(value: Any, field: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise WireError.invalid(field, f"{field} must be a JSON object")
    return value


def as_tags(value: Any, field: str) -> tuple[str, ...]:
    if not isinstance(value, list) or len(value) > 100:
        raise WireError.invalid(field, "tags must be a list of at most 100 strings")
    for index, tag in enumerate(value):
        if not isinstance(tag, str) or len(tag) > 256:
            raise WireError.invalid(
                f"{field}[{index}]", "a tag is a string of at most 256 characters"
            )
    return tuple(value)


def workbench_options(
    configurable: Any, field: str, allowed: Sequence[str], *, trials_served: bool = True
) -> tuple[Mapping[str, Any], dict[str, Any]]:
    """``configurable`` checked (``configurable.schema.json``'s closed shape, null sections
    read as absent) and its ``extensions.workbench`` members. ``trials_served``: whether the
    profile advertises ``agents.evalSuite.trials``; if not, asking for trials is refused as a
    suite's ``trials`` would be (R11)."""
    value = as_object(configurable, field)
    for key, item in value.items():
        at = member_path(field, str(key))
        if key == "version":
            if item != 1 or isinstance(item, bool):
                raise WireError.invalid(at, "configurable.version must be 1")
        elif key in _SECTIONS:
            if item is not None:
                raise WireError.invalid(at, f"this host takes no {key} configuration")
        elif key == "extensions":
            if item is None:
                continue
            for org, options in as_object(item, at).items():
                org_at = member_path(at, str(org))
                if not isinstance(org, str) or not _ORG.fullmatch(org):
                    raise WireError.invalid(org_at, "an extensions key is a lowercase org name")
                as_object(options, org_at)
        else:
            raise WireError.invalid(at, f"{key!r} is not a member of configurable")
    if "version" not in value:
        raise WireError.invalid(f"{field}.version", "configurable.version (1) is required")
    extensions = value.get("extensions") or {}
    mine = dict(extensions.get("workbench") or {})
    base = f"{field}.extensions.workbench"
    for key, item in mine.items():
        at = member_path(base, str(key))
        if key not in allowed:
            raise WireError.invalid(at, f"{key!r} is not a workbench option ({', '.join(allowed)})")
        if key == "seed":
            as_int(item, at, 0)
        elif key == "trials" and item is not None:
            as_int(item, at, 1, MAX_TRIALS)
            if not trials_served:
                raise WireError.invalid(at, "trials need agents.evalSuite.trials")
        elif key == "includeContent" and not isinstance(item, bool):
            raise WireError.invalid(at, "includeContent must be true or false")
    return value, mine


def parse_create(
    body: Any,
    *,
    suites: SuiteCatalog,
    agents: AgentRegistry,
    recorded: RecordedRuns,
    checker: SuiteChecker,
    tenant: str,
) -> RunRecipe:
    """The recipe of a run create body, or the ``WireError`` naming its first offending field."""
    data = as_object(body, "body")
    found: dict[str, Any] = {}
    options: dict[str, Any] = {}
    resolved = None
    for key, value in data.items():
        if key == "mode":
            if value != "eval":
                raise WireError.invalid("mode", 'this host runs eval suites: mode must be "eval"')
        elif key == "evalSuiteRef":
            if not isinstance(value, str) or not value or len(value) > 2048:
                raise WireError.invalid(key, "evalSuiteRef must be a non-empty string")
            resolved = suites.resolve(value)
        elif key == "agentId":
            if not isinstance(value, str) or not _AGENT_ID.fullmatch(value):
                raise WireError.invalid(key, "agentId must match [A-Za-z0-9._~:-]{1,128}")
            if not agents.knows(value):
                raise WireError.invalid(
                    key, f"no agent {value!r} here (agents: {', '.join(agents.names())})"
                )
        elif key == "fixtureRuns":
            if not checker.profile.recorded_fixtures:
                raise WireError.invalid(
                    key, "fixtureRuns needs agents.evalSuite.recordedFixtures (RFC 0252)"
                )
            for task_id, run_id in as_object(value, key).items():
                if not isinstance(run_id, str) or not run_id:
                    raise WireError.invalid(member_path(key, str(task_id)), "a run id is a string")
        elif key == "configurable":
            found["configurable"], options = workbench_options(
                value, key, WORKBENCH_OPTIONS, trials_served=checker.profile.trials
            )
        elif key == "tags":
            found["tags"] = as_tags(value, key)
        elif key == "metadata":
            found["metadata"] = dict(as_object(value, key))
        elif key == "tenantId":
            if value != tenant:
                raise WireError.invalid(key, f"this host serves one tenant, {tenant!r}")
        elif key in _UNSERVED:
            raise WireError.invalid(key, _UNSERVED[key])
        else:
            raise WireError.invalid(key, f"{key!r} is not a member of a run create request")
    for required in ("mode", "evalSuiteRef", "agentId"):
        if required not in data:
            raise WireError.invalid(required, f"{required} is required")
    assert resolved is not None
    suite = resolved.suite
    fixture_runs = {str(k): str(v) for k, v in (data.get("fixtureRuns") or {}).items()}
    if fixture_runs:
        suite = _with_recorded_fixtures(suite, fixture_runs, recorded)
    recipe = RunRecipe(
        suite=suite,
        suite_ref=data["evalSuiteRef"],
        origin=resolved.origin,
        agent_id=data["agentId"],
        seed=int(options.get("seed", 0)),
        trials=options.get("trials"),
        include_content=bool(options.get("includeContent", False)),
        fixture_runs=fixture_runs,
        tags=found.get("tags"),
        metadata=found.get("metadata"),
        configurable=found.get("configurable"),
    )
    checked(recipe, checker, agents)
    return recipe


def _with_recorded_fixtures(
    suite: Suite, fixture_runs: Mapping[str, str], recorded: RecordedRuns
) -> Suite:
    ids = [t.get("taskId") for t in suite.tasks]
    tasks = list(suite.tasks)
    for task_id, run_id in fixture_runs.items():
        field = member_path("fixtureRuns", task_id)
        if task_id not in ids:
            raise WireError.invalid(field, f"the suite has no task {task_id!r}")
        fixtures = recorded.fixtures(run_id)
        if fixtures is None:  # RFC 0252: the same answer whatever the reason
            raise WireError.invalid(field, f"recorded run {run_id!r} cannot serve as fixtures")
        index = ids.index(task_id)
        tasks[index] = {**tasks[index], "fixtures": fixtures}
    return Suite({**suite.data, "tasks": tasks})


def checked(recipe: RunRecipe, checker: SuiteChecker, agents: AgentRegistry) -> None:
    try:
        checker.check(recipe.suite, scripted=agents.is_scripted(recipe.agent_id))
    except WireError as refusal:
        field = str((refusal.details or {}).get("field", ""))
        for index, task in enumerate(recipe.suite.tasks):
            task_id = str(task.get("taskId"))
            if task_id in recipe.fixture_runs and field.startswith(f"tasks[{index}].fixtures"):
                # A recorded run the host cannot serve faithfully (RFC 0252: one answer).
                raise WireError.invalid(
                    member_path("fixtureRuns", task_id),
                    f"recorded run {recipe.fixture_runs[task_id]!r} cannot serve as fixtures: "
                    f"{refusal.message}",
                ) from None
        raise
