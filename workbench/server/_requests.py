"""Run create and fork bodies, checked before anything runs (SPEC R11, R43).

A body is read in its own member order and the first offending member is named, R11's way:
``400 validation_error`` with ``details.field``. Each member's own checks (its type, the suite
or agent it names) come in document order; checks that need two members (``fixtureRuns`` keys
are task ids of the suite ``evalSuiteRef`` names) follow; then the suite itself is checked
against the host profile (``check_suite``: its schema, then every member the host does not
advertise) and, for the scripted agent, every task's script. Only a body that passes all of it
becomes a :class:`RunRecipe`, and only a recipe is ever run.

Run options travel where OpenWOP puts vendor options: ``configurable.extensions.workbench``
``{seed, trials, includeContent}``, and for a fork ``runOptionsOverlay.configurable.extensions
.workbench.faults``: ``[{"taskId", "boundary", "kind"}]`` with ``kind`` a fault kind (R32:
``hard``, ``transient``, ``flip``) or ``toggle`` (``isError`` flipped either way, the widget's
toggle).
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

from .._common.vocab import FAULT_KINDS
from .._replay.policies import script_problems
from .._suite.capabilities import HostProfile, HostRefusal, check_suite
from .._suite.model import Suite
from .._sweep.edits import apply_faults, toggle_error
from .._sweep.variants import Fault
from ._catalog import AgentRegistry, RecordedRuns, SuiteCatalog
from ._wire import WireError, member_path

__all__ = ["RunRecipe", "SuiteChecker", "parse_create", "parse_fork"]

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
FORK_KINDS: Final = (*FAULT_KINDS, "toggle")


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


def _int(value: Any, field: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise WireError.invalid(field, f"{field} must be an integer >= {minimum}")
    return value


def _object(value: Any, field: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise WireError.invalid(field, f"{field} must be a JSON object")
    return value


def _tags(value: Any, field: str) -> tuple[str, ...]:
    if not isinstance(value, list) or len(value) > 100:
        raise WireError.invalid(field, "tags must be a list of at most 100 strings")
    for index, tag in enumerate(value):
        if not isinstance(tag, str) or len(tag) > 256:
            raise WireError.invalid(
                f"{field}[{index}]", "a tag is a string of at most 256 characters"
            )
    return tuple(value)


def _workbench_options(
    configurable: Any, field: str, allowed: Sequence[str]
) -> tuple[Mapping[str, Any], dict[str, Any]]:
    """``configurable`` checked (``configurable.schema.json``'s closed shape, null sections
    read as absent) and its ``extensions.workbench`` members."""
    value = _object(configurable, field)
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
            for org, options in _object(item, at).items():
                org_at = member_path(at, str(org))
                if not isinstance(org, str) or not _ORG.fullmatch(org):
                    raise WireError.invalid(org_at, "an extensions key is a lowercase org name")
                _object(options, org_at)
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
            _int(item, at, 0)
        elif key == "trials" and item is not None:
            _int(item, at, 1)
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
    data = _object(body, "body")
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
            for task_id, run_id in _object(value, key).items():
                if not isinstance(run_id, str) or not run_id:
                    raise WireError.invalid(member_path(key, str(task_id)), "a run id is a string")
        elif key == "configurable":
            found["configurable"], options = _workbench_options(value, key, WORKBENCH_OPTIONS)
        elif key == "tags":
            found["tags"] = _tags(value, key)
        elif key == "metadata":
            found["metadata"] = dict(_object(value, key))
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
    _check(recipe, checker, agents)
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


def _check(recipe: RunRecipe, checker: SuiteChecker, agents: AgentRegistry) -> None:
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


def parse_fork(
    body: Any,
    source: RunRecipe,
    source_length: int,
    *,
    checker: SuiteChecker,
    agents: AgentRegistry,
) -> tuple[str, int, RunRecipe]:
    """``(mode, fromSeq, recipe)`` of a fork body; ``fromSeq`` outside ``0..len(log)`` is
    ``422 fork_point_invalid``."""
    data = _object(body, "body")
    for key in data:
        if key not in ("mode", "fromSeq", "runOptionsOverlay"):
            raise WireError.invalid(str(key), f"{key!r} is not a member of a fork request")
    mode = data.get("mode")
    if mode not in ("replay", "branch"):
        raise WireError.invalid("mode", 'mode must be "replay" or "branch"')
    if "fromSeq" in data and data["fromSeq"] is not None:
        from_seq = _int(data["fromSeq"], "fromSeq", 0)
    elif mode == "branch":
        raise WireError.invalid("fromSeq", "a branch fork needs fromSeq")
    else:
        from_seq = 0
    overlay = data.get("runOptionsOverlay")
    if mode == "replay" and overlay:
        raise WireError.invalid("runOptionsOverlay", "a replay fork takes no runOptionsOverlay")
    if from_seq > source_length:
        raise WireError(
            "fork_point_invalid",
            f"fromSeq {from_seq} is past the source run's log (sequences 0..{source_length - 1})",
            {"field": "fromSeq"},
        )
    recipe = source
    if overlay:
        recipe = _overlay(_object(overlay, "runOptionsOverlay"), source)
        _check(recipe, checker, agents)
    return str(mode), from_seq, recipe


def _overlay(overlay: Mapping[str, Any], source: RunRecipe) -> RunRecipe:
    base = "runOptionsOverlay"
    changes: dict[str, Any] = {}
    for key, value in overlay.items():
        at = member_path(base, str(key))
        if key == "configurable":
            configurable, mine = _workbench_options(value, at, (*WORKBENCH_OPTIONS, "faults"))
            changes["configurable"] = configurable
            if "seed" in mine:
                changes["seed"] = mine["seed"]
            if "trials" in mine:
                changes["trials"] = mine["trials"]
            if "includeContent" in mine:
                changes["include_content"] = mine["includeContent"]
            if "faults" in mine:
                faults = _faults(mine["faults"], f"{at}.extensions.workbench.faults", source.suite)
                changes["suite"] = _apply(source.suite, faults)
                changes["faults"] = (*source.faults, *faults)
        elif key == "tags":
            changes["tags"] = _tags(value, at)
        elif key == "metadata":
            changes["metadata"] = dict(_object(value, at))
        else:
            raise WireError.invalid(at, f"{key!r} is not a run option this host takes")
    return source.replace(**changes)


def _faults(value: Any, field: str, suite: Suite) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not value:
        raise WireError.invalid(field, "faults must be a non-empty list")
    tasks = {str(t.get("taskId")): t for t in suite.tasks}
    out: list[dict[str, Any]] = []
    for index, fault in enumerate(value):
        at = f"{field}[{index}]"
        item = _object(fault, at)
        for key in item:
            if key not in ("taskId", "boundary", "kind"):
                raise WireError.invalid(
                    member_path(at, str(key)), "a fault is {taskId, boundary, kind}"
                )
        task_id = item.get("taskId")
        if not isinstance(task_id, str) or task_id not in tasks:
            raise WireError.invalid(f"{at}.taskId", f"the suite has no task {task_id!r}")
        entries = (tasks[task_id].get("fixtures") or {}).get("toolResponses") or []
        boundary = _int(item.get("boundary"), f"{at}.boundary", 0)
        if boundary >= len(entries):
            raise WireError.invalid(
                f"{at}.boundary", f"task {task_id!r} has {len(entries)} fixture entries"
            )
        if item.get("kind") not in FORK_KINDS:
            raise WireError.invalid(f"{at}.kind", f"kind is one of {', '.join(FORK_KINDS)}")
        out.append({"taskId": task_id, "boundary": boundary, "kind": item["kind"]})
    return out


def _apply(suite: Suite, faults: Sequence[Mapping[str, Any]]) -> Suite:
    """Toggles first (they move no entry), then the fault kinds, by baseline index."""
    for fault in faults:
        if fault["kind"] == "toggle":
            suite = toggle_error(suite, fault["taskId"], fault["boundary"])
    injected = [
        Fault(f["taskId"], f["boundary"], f["kind"]) for f in faults if f["kind"] != "toggle"
    ]
    return apply_faults(suite, injected) if injected else suite
