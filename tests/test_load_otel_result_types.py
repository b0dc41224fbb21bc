"""An OpenTelemetry tool span's result may be of any attribute value type (SPEC R34, R35).

The GenAI semantic conventions declare ``gen_ai.tool.call.result`` (and
``gen_ai.tool.call.arguments``) ``type: any``: "expected to be an object", recorded in
structured form where the exporter can and as a JSON string where it cannot
(``model/gen-ai/registry.yaml`` of open-telemetry/semantic-conventions-genai). So no value type
is ruled out, and none is refused: each OTLP ``AnyValue`` kind is served as its JSON text (a
string as itself), never as an empty success (R35). What this pins is that choice.

What the conventions do rule out is an ``error.type`` that is not a string (its registry's
``type: string``: a class of error). Read as "failed" whatever its value, ``false`` or ``0``
made a failure of what may have said the opposite: it is a problem now.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import workbench as wb


def _trace(tmp_path: Path, result: dict[str, Any], *more: dict[str, Any]) -> Path:
    """SYNTHETIC, OTLP/JSON: one ``execute_tool`` span whose result attribute is ``result``
    (``more``: other attributes)."""
    attributes = [
        *more,
        {"key": "gen_ai.operation.name", "value": {"stringValue": "execute_tool"}},
        {"key": "gen_ai.tool.name", "value": {"stringValue": "get_weather"}},
        {"key": "gen_ai.tool.call.id", "value": {"stringValue": "call_1"}},
        {"key": "gen_ai.tool.call.arguments", "value": {"stringValue": '{"city": "Paris"}'}},
        {"key": "gen_ai.tool.call.result", "value": result},
    ]
    span = {
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": "b7ad6b7169203331",
        "name": "execute_tool get_weather",
        "kind": 1,
        "startTimeUnixNano": "1000000",
        "endTimeUnixNano": "3000000",
        "attributes": attributes,
        "status": {},
    }
    scope = {"scope": {"name": "example"}, "spans": [span]}
    path = tmp_path / "trace.json"
    document = {"resourceSpans": [{"resource": {"attributes": []}, "scopeSpans": [scope]}]}
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"stringValue": "sunny"}, "sunny"),
        ({"stringValue": '{"conditions": "sunny"}'}, '{"conditions": "sunny"}'),
        ({"intValue": "75"}, "75"),
        ({"doubleValue": 21.5}, "21.5"),
        ({"boolValue": False}, "false"),
        ({"bytesValue": "c3Vubnk="}, "c3Vubnk="),
        ({"arrayValue": {"values": [{"stringValue": "a"}, {"intValue": "1"}]}}, '["a", 1]'),
        (
            {"kvlistValue": {"values": [{"key": "high", "value": {"intValue": "75"}}]}},
            '{"high": 75}',
        ),
    ],
    ids=["string", "json-string", "int", "double", "bool", "bytes", "array", "kvlist"],
)
def test_a_tool_result_of_every_attribute_value_type_is_served_as_its_text(
    tmp_path: Path, value: dict[str, Any], text: str
) -> None:
    """R34, R35: ``gen_ai.tool.call.result`` is ``type: any`` in the conventions; each kind
    loads as a successful call whose response is the value's text, none as an empty one."""
    loaded = wb.load_runs(_trace(tmp_path, value))
    (boundary,) = loaded.boundaries
    assert (boundary.tool, boundary.args, boundary.is_error) == (
        "get_weather",
        {"city": "Paris"},
        False,
    )
    assert boundary.response_text == text


@pytest.mark.parametrize(
    "value",
    [{"boolValue": False}, {"boolValue": True}, {"intValue": "500"}, {"doubleValue": 0.0}],
    ids=["false", "true", "int", "double"],
)
def test_an_error_type_that_is_not_text_is_a_problem_never_a_failure_or_success(
    tmp_path: Path, value: dict[str, Any]
) -> None:
    """R35, R36: ``error.type`` is a string in the conventions; another type (``false`` was
    read as a failure with error code ``False``) is a problem naming the span and field."""
    error = {"key": "error.type", "value": value}
    loaded = wb.load_runs(_trace(tmp_path, {"stringValue": "sunny"}, error), strict=False)
    assert loaded.boundaries == ()
    (problem,) = loaded.problems
    assert problem.field == "attributes.error.type"
    assert problem.where.endswith(".spans[0]")
    assert "error.type is a string" in problem.message


def test_an_error_type_that_is_text_still_fails_the_call(tmp_path: Path) -> None:
    """R36: ``error.type`` as the conventions write it is the call's failure and error code."""
    error = {"key": "error.type", "value": {"stringValue": "500"}}
    (boundary,) = wb.load_runs(_trace(tmp_path, {"stringValue": "down"}, error)).boundaries
    assert (boundary.is_error, boundary.error_code) == (True, "500")
