"""JSON Schema validation for suites, summaries, run events and host profiles.

The official OpenWOP schemas are vendored byte-identical under ``schemas/openwop/``. The project's
extension schemas (SPEC R5-R9 for suites, R29 for summaries, R10 for host profiles) sit beside them
in ``schemas/``. Validators are built once per schema, lazily, with
``jsonschema.validators.validator_for`` and one ``referencing.Registry`` that holds every packaged
schema under its ``$id`` (the official files ``$ref`` each other by relative URI, such as
``ids.schema.json#/$defs/agentId``).

Every error is reported, not just the first, as a :class:`SchemaProblem` whose ``path`` names the
offending member the way SPEC R11 does (``tasks[0].fixtures.toolResponses[1].isError``).

The two extension schemas for suites and summaries are generated from the official files by
``workbench._suite.generate`` (``python -m workbench._suite.generate`` rewrites them).

Longer than 400 lines: the walk over a suite's extension members (which it uses, and the suite
without them for ``validate --official``) shares this module's JSON-path formatting.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from importlib import resources
from pathlib import Path
from typing import Any, Final
from urllib.parse import urljoin

import referencing
import referencing.exceptions

from .._common.lazy import deferred_import

# jsonschema registers its optional format checkers when it is imported; the "iri" checker
# imports rfc3987-syntax (installed with JupyterLab), which builds a Lark grammar: 1.4 s of
# every validating command's start, for a format no workbench schema uses. Its import is
# deferred to the first "iri" check (never, here).
with deferred_import("rfc3987_syntax", "is_valid_syntax"):
    from jsonschema import FormatChecker, validators
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.protocols import Validator
from referencing.jsonschema import DRAFT202012

__all__ = [
    "HOST_PROFILE",
    "OFFICIAL_SUITE",
    "OFFICIAL_SUMMARY",
    "RUN_EVENT",
    "RUN_EVENT_PAYLOADS",
    "SUITE_EXT",
    "SUMMARY_EXT",
    "SchemaProblem",
    "load_schema",
    "schema_path",
    "uses_extension_members",
    "validate_event",
    "validate_events",
    "validate_host_profile",
    "validate_suite",
    "validate_summary",
    "without_extension_members",
]

# Names of the packaged schema files, relative to ``workbench/schemas/``.
OFFICIAL_SUITE: Final = "openwop/agent-eval-suite.schema.json"
OFFICIAL_SUMMARY: Final = "openwop/eval-summary.schema.json"
RUN_EVENT: Final = "openwop/run-event.schema.json"
RUN_EVENT_PAYLOADS: Final = "openwop/run-event-payloads.schema.json"
SUITE_EXT: Final = "agent-eval-suite-ext.schema.json"
SUMMARY_EXT: Final = "eval-summary-ext.schema.json"
HOST_PROFILE: Final = "host-profile.schema.json"

WORKBENCH_SCHEMA_BASE: Final = "https://workbench.dev/schemas/"
_DRAFT_2020_12: Final = "https://json-schema.org/draft/2020-12/schema"
_ROOT: Final = "(root)"


@dataclass(frozen=True, slots=True)
class SchemaProblem:
    """One way a document fails a schema."""

    path: str
    """JSON path of the offending member, e.g. ``tasks[0].fixtures.toolResponses[1].isError``;
    ``(root)`` for the document itself."""

    message: str
    """The validator's message, e.g. ``'true' is not of type 'boolean'``."""

    schema: str
    """Which packaged schema reported it, e.g. ``agent-eval-suite-ext.schema.json``."""

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


# --------------------------------------------------------------------------------------------
# Packaged files


def schema_path(name: str) -> Path:
    """Path of a packaged schema file, e.g. ``schema_path("openwop/ids.schema.json")``."""
    parts = name.split("/")
    if not name or any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"not a packaged schema name: {name!r}")
    path = Path(str(resources.files("workbench").joinpath("schemas", *parts)))
    if not path.is_file():
        raise FileNotFoundError(f"no packaged schema {name!r} (looked for {path})")
    return path


@functools.cache
def _schema(name: str) -> dict[str, Any]:
    """The parsed schema, shared by every validator; never mutated or handed out (see
    load_schema)."""
    with schema_path(name).open(encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, dict):
        raise ValueError(f"packaged schema {name!r} is not a JSON object")
    return data


def load_schema(name: str) -> dict[str, Any]:
    """A fresh copy of a packaged schema (the caller may change it freely)."""
    return copy.deepcopy(_schema(name))


def _schema_names() -> list[str]:
    """Every packaged ``*.schema.json`` file, as names relative to ``workbench/schemas/``."""
    root = schema_path(HOST_PROFILE).parent
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*.schema.json"))


# --------------------------------------------------------------------------------------------
# Registry and validators (each built once, on first use)


@functools.cache
def _registry() -> referencing.Registry[Any]:
    """Every packaged schema, keyed by its ``$id``."""
    pairs = []
    for name in _schema_names():
        contents = _schema(name)
        if "$id" in contents:
            resource = referencing.Resource.from_contents(
                contents, default_specification=DRAFT202012
            )
            pairs.append((str(contents["$id"]), resource))
    registry: referencing.Registry[Any] = referencing.Registry().with_resources(pairs)
    return registry.crawl()


def _is_rfc3339_date_time(value: object) -> bool:
    # Our own check rather than jsonschema's optional one, so the answer does not depend on
    # which extra packages are installed.
    if not isinstance(value, str):
        return True
    if not _RFC3339.fullmatch(value):
        return False
    try:
        datetime.fromisoformat(value.upper().replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


_RFC3339: Final = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})", re.ASCII
)
_FORMATS: Final = FormatChecker(formats=())
_FORMATS.checks("date-time")(_is_rfc3339_date_time)


def _build(schema: dict[str, Any]) -> Validator:
    cls = validators.validator_for(schema, default=validators.Draft202012Validator)
    cls.check_schema(schema)
    return cls(schema, registry=_registry(), format_checker=_FORMATS)


@functools.cache
def _validator(name: str) -> Validator:
    return _build(_schema(name))


def _envelope_schema() -> dict[str, Any]:
    """``run-event.schema.json`` with ``properties.type.oneOf`` read as ``anyOf`` (SPEC R18).

    The official ``type`` is a ``oneOf`` of (a) the closed enum of registered types and (b) the
    vendor pattern ``<org>.<name>``. Every registered type also matches the pattern, so under
    strict ``oneOf`` semantics every registered type fails ("valid under each of ..."). The
    intent stated in its description is "a registered type or a vendor type", which is ``anyOf``.
    The change is made on an in-memory copy; the vendored file stays byte-identical.
    """
    schema = load_schema(RUN_EVENT)
    type_schema = schema["properties"]["type"]
    type_schema["anyOf"] = type_schema.pop("oneOf")
    return schema


@functools.cache
def _envelope_validator() -> Validator:
    return _build(_envelope_schema())


@functools.cache
def _payload_validator(event_type: str) -> Validator:
    """Validator for a registered v2 type's payload, via the normative root ``_typeIndex``."""
    payloads = _schema(RUN_EVENT_PAYLOADS)
    ref = payloads["_typeIndex"]["properties"][event_type]["$ref"]
    return _build({"$schema": _DRAFT_2020_12, "$ref": urljoin(payloads["$id"], ref)})


def _payload_types() -> Mapping[str, Any]:
    index: Mapping[str, Any] = _schema(RUN_EVENT_PAYLOADS)["_typeIndex"]["properties"]
    return index


# --------------------------------------------------------------------------------------------
# Turning validation errors into problems

PathPart = str | int
_IDENTIFIER: Final = re.compile(r"[A-Za-z_$][A-Za-z0-9_$-]*")


def _format_path(parts: Iterable[PathPart]) -> str:
    text = ""
    for part in parts:
        if isinstance(part, int):
            text += f"[{part}]"
        elif _IDENTIFIER.fullmatch(part):
            text += f".{part}" if text else part
        else:
            text += f"[{json.dumps(part)}]"
    return text or _ROOT


def _sort_key(parts: tuple[PathPart, ...]) -> tuple[tuple[int, int, str], ...]:
    return tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in parts)


def _collect(
    validator: Validator,
    instance: Any,
    schema_name: str,
    prefix: tuple[PathPart, ...] = (),
) -> list[tuple[tuple[PathPart, ...], SchemaProblem]]:
    found = []
    errors = validator.iter_errors(instance)
    while True:
        try:
            error = next(errors)
        except StopIteration:
            break
        except referencing.exceptions.Unresolvable:
            # A few payload defs $ref schema files OpenWOP has not published to us (see
            # docs/formats.md); the payload is checked as far as the vendored files reach.
            break
        found.append(_to_problem(error, schema_name, prefix))
    return found


def _to_problem(
    error: ValidationError, schema_name: str, prefix: tuple[PathPart, ...]
) -> tuple[tuple[PathPart, ...], SchemaProblem]:
    # For a oneOf/anyOf failure, report the sub-error that explains it best (the deepest one with
    # a unique best relevance), the way altair groups errors by path.
    chosen = best_match([error]) or error
    parts = prefix + tuple(chosen.absolute_path)
    return parts, SchemaProblem(_format_path(parts), chosen.message, schema_name)


def _finish(found: Iterable[tuple[tuple[PathPart, ...], SchemaProblem]]) -> list[SchemaProblem]:
    unique = {
        (_sort_key(parts), problem.message, problem.schema): problem for parts, problem in found
    }
    return [unique[key] for key in sorted(unique)]


# --------------------------------------------------------------------------------------------
# Public validation API


def validate_suite(data: object, *, official: bool = False) -> list[SchemaProblem]:
    """Every way ``data`` fails the suite schema: the extension (SPEC R5-R8) by default, or
    the official ``agent-eval-suite.schema.json`` with ``official=True`` (SPEC R9)."""
    name = OFFICIAL_SUITE if official else SUITE_EXT
    return _finish(_collect(_validator(name), data, name))


def validate_summary(data: object, *, official: bool = False) -> list[SchemaProblem]:
    """Every way ``data`` fails the summary schema: the extension (SPEC R29) by default, or the
    official ``eval-summary.schema.json`` with ``official=True``."""
    name = OFFICIAL_SUMMARY if official else SUMMARY_EXT
    return _finish(_collect(_validator(name), data, name))


def validate_host_profile(data: object) -> list[SchemaProblem]:
    """Every way ``data`` fails the host capability profile schema (SPEC R10)."""
    return _finish(_collect(_validator(HOST_PROFILE), data, HOST_PROFILE))


def _event_problems(
    event: object, prefix: tuple[PathPart, ...]
) -> list[tuple[tuple[PathPart, ...], SchemaProblem]]:
    found = _collect(_envelope_validator(), event, RUN_EVENT, prefix)
    if isinstance(event, Mapping) and "payload" in event:
        event_type = event.get("type")
        # Unknown and vendor types get the envelope check only (SPEC R4: carried opaquely).
        if isinstance(event_type, str) and event_type in _payload_types():
            found += _collect(
                _payload_validator(event_type),
                event["payload"],
                RUN_EVENT_PAYLOADS,
                (*prefix, "payload"),
            )
    return found


def validate_event(event: object) -> list[SchemaProblem]:
    """Every way one RunEventDoc fails: the envelope (``run-event.schema.json``, with its
    ``type`` oneOf read as anyOf, SPEC R18) and, for a registered v2 type, its payload against
    ``run-event-payloads.schema.json`` (paths then start with ``payload``)."""
    return _finish(_event_problems(event, ()))


def validate_events(events: Iterable[object]) -> list[SchemaProblem]:
    """:func:`validate_event` over a log; paths start with ``events[i]``."""
    found = []
    for index, event in enumerate(events):
        found += _event_problems(event, ("events", index))
    return _finish(found)


# --------------------------------------------------------------------------------------------
# Which extension members a suite uses (SPEC R9)

_ROOT_MEMBERS: Final = frozenset({"trials", "x-promotion"})
_TASK_MEMBERS: Final = frozenset({"trials", "trajectory"})
_FIXTURES_MEMBERS: Final = frozenset({"onMiss"})
_ENTRY_MEMBERS: Final = frozenset({"args", "argsMatch", "isError"})


def _extension_keys(obj: Mapping[str, Any], members: frozenset[str]) -> Iterable[str]:
    return (key for key in obj if key in members or key.startswith("x-"))


def uses_extension_members(suite: object) -> list[str]:
    """JSON paths of every RFC 0244/0245 or project member ``suite`` uses, in document order.

    An empty list means the suite must also be valid against the official schema (SPEC R9).
    Presence counts, whatever the value (``isError: false`` is still a member the official
    schema refuses). A malformed suite is walked as far as its shape allows.
    """
    found: list[str] = []
    if not isinstance(suite, Mapping):
        return found
    for key, value in suite.items():
        if key in _ROOT_MEMBERS or key.startswith("x-"):
            found.append(_format_path((key,)))
        elif key == "tasks" and isinstance(value, list):
            for t, task in enumerate(value):
                if isinstance(task, Mapping):
                    found += _task_extension_paths(task, ("tasks", t))
    return found


def _task_extension_paths(task: Mapping[str, Any], at: tuple[PathPart, ...]) -> list[str]:
    found: list[str] = []
    for key, value in task.items():
        if key in _TASK_MEMBERS or key.startswith("x-"):
            found.append(_format_path((*at, key)))
        elif key == "fixtures" and isinstance(value, Mapping):
            for fkey, fvalue in value.items():
                if fkey in _FIXTURES_MEMBERS:
                    found.append(_format_path((*at, key, fkey)))
                elif fkey == "toolResponses" and isinstance(fvalue, list):
                    for e, entry in enumerate(fvalue):
                        if isinstance(entry, Mapping):
                            entry_at = (*at, key, fkey, e)
                            found += [
                                _format_path((*entry_at, k))
                                for k in _extension_keys(entry, _ENTRY_MEMBERS)
                            ]
    return found


def without_extension_members(suite: object) -> object:
    """A copy of ``suite`` without the members :func:`uses_extension_members` lists (what an
    official RFC 0081 host would see of it if it ignored them); anything else is kept as is."""
    if not isinstance(suite, Mapping):
        return suite
    out: dict[str, Any] = {}
    for key, value in suite.items():
        if key in _ROOT_MEMBERS or key.startswith("x-"):
            continue
        if key == "tasks" and isinstance(value, list):
            value = [_task_without(task) if isinstance(task, Mapping) else task for task in value]
        out[key] = value
    return out


def _task_without(task: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in task.items():
        if key in _TASK_MEMBERS or key.startswith("x-"):
            continue
        if key == "fixtures" and isinstance(value, Mapping):
            fixtures: dict[str, Any] = {}
            for fkey, fvalue in value.items():
                if fkey in _FIXTURES_MEMBERS:
                    continue
                if fkey == "toolResponses" and isinstance(fvalue, list):
                    fvalue = [
                        {
                            k: v
                            for k, v in e.items()
                            if k not in set(_extension_keys(e, _ENTRY_MEMBERS))
                        }
                        if isinstance(e, Mapping)
                        else e
                        for e in fvalue
                    ]
                fixtures[fkey] = fvalue
            value = fixtures
        out[key] = value
    return out
