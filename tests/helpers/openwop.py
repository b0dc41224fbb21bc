"""OpenWOP event logs in tests: an independent validator against the official schema files,
reading and writing JSON and JSONL, and pairing a log's tool calls (SPEC R18-R20).

The validator loads the vendored official schema files themselves with jsonschema + referencing
(Draft 2020-12), not the library's validation layer, so it checks the library independently.
"""

from __future__ import annotations

import copy
import functools
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from referencing import Registry, Resource

from helpers.paths import OFFICIAL as SCHEMAS


def official_schema(name: str) -> dict[str, Any]:
    """The official schema file `name` (in the vendored folder), parsed."""
    with (SCHEMAS / name).open(encoding="utf-8") as f:
        schema: dict[str, Any] = json.load(f)
    return schema


@functools.cache
def _validators() -> tuple[jsonschema.protocols.Validator, dict[str, Any], Registry[Any]]:
    envelope = official_schema("run-event.schema.json")
    payloads = official_schema("run-event-payloads.schema.json")
    ids = official_schema("ids.schema.json")
    # SPEC R18: the official `properties.type` is a `oneOf` of a closed enum and a vendor-name
    # pattern, and every registered type matches both branches, so a strict 2020-12 `oneOf`
    # rejects every registered type. Read that `oneOf` as `anyOf`, on an in-memory copy only
    # (the vendored file stays byte-identical).
    envelope = copy.deepcopy(envelope)
    type_schema = envelope["properties"]["type"]
    type_schema["anyOf"] = type_schema.pop("oneOf")
    registry: Registry[Any] = Registry().with_resources(
        (schema["$id"], Resource.from_contents(schema)) for schema in (envelope, payloads, ids)
    )
    validator_cls = jsonschema.validators.validator_for(envelope)
    assert validator_cls is jsonschema.Draft202012Validator
    envelope_validator = validator_cls(
        envelope, registry=registry, format_checker=validator_cls.FORMAT_CHECKER
    )
    return envelope_validator, payloads, registry


@functools.cache
def _payload_validator(event_type: str) -> jsonschema.protocols.Validator | None:
    _, payloads, registry = _validators()
    if event_type not in payloads["_typeIndex"]["properties"]:
        return None
    # `_typeIndex.properties[type]` is the normative type -> payload schema map (RFC 0171 §A.4).
    schema = {"$ref": f"{payloads['$id']}#/_typeIndex/properties/{event_type}"}
    return jsonschema.Draft202012Validator(
        schema, registry=registry, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )


def event_problems(event: Any) -> list[str]:
    """Every way ``event`` breaks the official envelope or payload schema, as readable lines.

    An empty list means valid. Paths are JSON paths (``$.payload.inputs``) so a failure names
    the field.
    """
    envelope_validator, _, _ = _validators()
    problems = [
        f"{error.json_path}: {error.message}" for error in envelope_validator.iter_errors(event)
    ]
    if not isinstance(event, dict) or not isinstance(event.get("type"), str):
        return problems
    payload_validator = _payload_validator(event["type"])
    if payload_validator is None:
        problems.append(f"$.type: {event['type']!r} is not a registered v2 event type")
        return problems
    problems.extend(
        f"$.payload{error.json_path[1:]}: {error.message}"
        for error in payload_validator.iter_errors(event.get("payload"))
    )
    return problems


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The events of a JSONL file, failing with file and line on a line that is not JSON."""
    events: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError as exc:  # pragma: no cover - only on a broken fixture
                pytest.fail(f"{path.name}:{number}: not JSON: {exc}")
    return events


def assert_valid_log(path: Path) -> list[dict[str, Any]]:
    events = read_jsonl(path)
    assert events, f"{path.name} is empty"
    problems = [
        f"{path.name}:{number}: {problem}"
        for number, event in enumerate(events, start=1)
        for problem in event_problems(event)
    ]
    assert problems == []
    return events


def tool_calls(events: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(tool-called payload, tool-returned payload) pairs, in call order, checked to pair by id."""
    pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    open_calls: dict[str, dict[str, Any]] = {}
    for event in events:
        payload = event["payload"]
        if event["type"] == "agent.tool-called":
            assert payload["callId"] not in open_calls, f"call {payload['callId']} opened twice"
            open_calls[payload["callId"]] = payload
        elif event["type"] == "agent.tool-returned":
            called = open_calls.pop(payload["callId"])
            assert called["toolName"] == payload["toolName"]
            pairs.append((called, payload))
    assert open_calls == {}, f"calls never answered: {sorted(open_calls)}"
    return pairs


def write_json(path: Path, value: Any) -> Path:
    """Write ``value`` as JSON (UTF-8) to ``path``; return ``path``."""
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def write_jsonl(
    path: Path, events: Sequence[Any], *, newline: str = "\n", ensure_ascii: bool = True
) -> Path:
    """Write one JSON document a line (UTF-8 bytes, each line ended by ``newline``); return
    ``path``. ``ensure_ascii=False`` writes non-ASCII text as itself, not as ``\\u`` escapes."""
    text = "".join(json.dumps(e, ensure_ascii=ensure_ascii) + newline for e in events)
    path.write_bytes(text.encode("utf-8"))
    return path
