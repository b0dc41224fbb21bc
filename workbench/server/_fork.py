"""Fork bodies (``POST /runs/{id}:fork``), checked before anything runs (SPEC R11, R32, R43).

``{mode, fromSeq?, runOptionsOverlay?}``: ``replay`` re-runs the source's recipe as it was
(``fromSeq`` 0 unless given; no overlay), ``branch`` needs ``fromSeq`` and may change the
recipe: ``runOptionsOverlay.configurable.extensions.workbench`` takes ``seed``, ``trials``,
``includeContent``, ``fixtures`` (``{taskId: fixtures}``: a task's edited fixtures, whole) and
``faults``, ``[{"taskId", "boundary", "kind"}]`` (applied after ``fixtures``) with ``kind`` a fault
kind (R32: ``hard``, ``transient``, ``flip``) or ``toggle`` (``isError`` flipped either way, the
widget's toggle); ``tags`` and ``metadata`` replace the source's. A ``fromSeq`` past the source
log is ``422 fork_point_invalid``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from .._common.vocab import FAULT_KINDS
from .._suite.model import Suite
from .._sweep.edits import apply_faults, toggle_error
from .._sweep.variants import Fault
from ._catalog import AgentRegistry
from ._requests import (
    WORKBENCH_OPTIONS,
    RunRecipe,
    SuiteChecker,
    as_int,
    as_object,
    as_tags,
    checked,
    workbench_options,
)
from ._wire import WireError, member_path

__all__ = ["FORK_KINDS", "parse_fork"]

FORK_KINDS: Final = (*FAULT_KINDS, "toggle")


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
    data = as_object(body, "body")
    # Each member's own checks in the body's member order (R11: the first offending member is
    # the one named), then what the members say together.
    for key, value in data.items():
        if key == "mode":
            if value not in ("replay", "branch"):
                raise WireError.invalid("mode", 'mode must be "replay" or "branch"')
        elif key == "fromSeq":
            if value is not None:
                as_int(value, "fromSeq", 0)
        elif key == "runOptionsOverlay":
            if value is not None:
                as_object(value, "runOptionsOverlay")
        else:
            raise WireError.invalid(str(key), f"{key!r} is not a member of a fork request")
    mode = data.get("mode")
    if mode is None:
        raise WireError.invalid("mode", 'mode must be "replay" or "branch"')
    if data.get("fromSeq") is not None:
        from_seq = int(data["fromSeq"])
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
        given = as_object(overlay, "runOptionsOverlay")
        recipe = _overlay(given, source, trials_served=checker.profile.trials)
        try:
            checked(recipe, checker, agents)
        except WireError as refusal:
            raise _in_body(refusal, recipe.suite, given) from None
    return str(mode), from_seq, recipe


def _in_body(refusal: WireError, suite: Suite, overlay: Mapping[str, Any]) -> WireError:
    """A refusal of the forked suite naming a task's ``fixtures`` the body replaced, renamed to
    the body's member (``runOptionsOverlay.configurable.extensions.workbench.fixtures.<taskId>
    ...``): R11 names the field the caller sent."""
    field = str((refusal.details or {}).get("field", ""))
    configurable = overlay.get("configurable")
    extensions = configurable.get("extensions") if isinstance(configurable, Mapping) else None
    mine = extensions.get("workbench") if isinstance(extensions, Mapping) else None
    edited = mine.get("fixtures") if isinstance(mine, Mapping) else None
    if not isinstance(edited, Mapping):
        return refusal
    for index, task in enumerate(suite.tasks):
        task_id = str(task.get("taskId"))
        prefix = f"tasks[{index}].fixtures"
        if task_id in edited and (
            field == prefix or field.startswith((prefix + ".", prefix + "["))
        ):
            base = "runOptionsOverlay.configurable.extensions.workbench.fixtures"
            renamed = member_path(base, task_id) + field[len(prefix) :]
            details = {**(refusal.details or {}), "field": renamed}
            return WireError(refusal.code, refusal.message, details, headers=refusal.headers)
    return refusal


def _overlay(overlay: Mapping[str, Any], source: RunRecipe, *, trials_served: bool) -> RunRecipe:
    base = "runOptionsOverlay"
    changes: dict[str, Any] = {}
    for key, value in overlay.items():
        at = member_path(base, str(key))
        if key == "configurable":
            configurable, mine = workbench_options(
                value, at, (*WORKBENCH_OPTIONS, "fixtures", "faults"), trials_served=trials_served
            )
            changes["configurable"] = configurable
            if "seed" in mine:
                changes["seed"] = mine["seed"]
            if "trials" in mine:
                changes["trials"] = mine["trials"]
            if "includeContent" in mine:
                changes["include_content"] = mine["includeContent"]
            suite = source.suite
            if "fixtures" in mine:
                field = f"{at}.extensions.workbench.fixtures"
                suite = _with_fixtures(suite, mine["fixtures"], field)
                changes["suite"] = suite
            if "faults" in mine:
                faults = _faults(mine["faults"], f"{at}.extensions.workbench.faults", suite)
                changes["suite"] = _apply(suite, faults)
                changes["faults"] = (*source.faults, *faults)
        elif key == "tags":
            changes["tags"] = as_tags(value, at)
        elif key == "metadata":
            changes["metadata"] = dict(as_object(value, at))
        else:
            raise WireError.invalid(at, f"{key!r} is not a run option this host takes")
    return source.replace(**changes)


def _with_fixtures(suite: Suite, value: Any, field: str) -> Suite:
    """The suite with whole tasks' ``fixtures`` replaced (``{taskId: fixtures}``); the result
    is checked like any suite (R5, R11) before it runs."""
    given = as_object(value, field)
    ids = [str(t.get("taskId")) for t in suite.tasks]
    tasks = list(suite.tasks)
    for task_id, fixtures in given.items():
        at = member_path(field, str(task_id))
        if task_id not in ids:
            raise WireError.invalid(at, f"the suite has no task {task_id!r}")
        index = ids.index(task_id)
        tasks[index] = {**tasks[index], "fixtures": dict(as_object(fixtures, at))}
    return Suite({**suite.data, "tasks": tasks})


def _faults(value: Any, field: str, suite: Suite) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not value:
        raise WireError.invalid(field, "faults must be a non-empty list")
    tasks = {str(t.get("taskId")): t for t in suite.tasks}
    out: list[dict[str, Any]] = []
    for index, fault in enumerate(value):
        at = f"{field}[{index}]"
        item = as_object(fault, at)
        for key in item:
            if key not in ("taskId", "boundary", "kind"):
                raise WireError.invalid(
                    member_path(at, str(key)), "a fault is {taskId, boundary, kind}"
                )
        task_id = item.get("taskId")
        if not isinstance(task_id, str) or task_id not in tasks:
            raise WireError.invalid(f"{at}.taskId", f"the suite has no task {task_id!r}")
        entries = (tasks[task_id].get("fixtures") or {}).get("toolResponses") or []
        boundary = as_int(item.get("boundary"), f"{at}.boundary", 0)
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
