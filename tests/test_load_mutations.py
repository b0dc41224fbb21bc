"""Mutated real recordings never crash a load (SPEC R35).

A value swapped for one of another type (a list for a name, a number for a list, ...) at any
place of a real recording loads what it can or is refused with places: nothing but a
``LoadError`` is ever raised. The mutation fuzz of stop 28 and 29 found crashes this way (a
Responses item typed as a list, a Gemini system instruction whose parts were a number); this
property keeps trying it on the readers added last.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # no stubs in the test environment
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench as wb
from helpers.boundaries import loaded_around_or_refused
from helpers.json_places import with_values_swapped
from helpers.paths import FIXTURES

_SOURCES = [
    FIXTURES / "langfuse" / "google-adk-2025-08-28.trace.json",
    FIXTURES / "codex" / "generated-codex-0.171.0-unsupported-call.rollout.jsonl",
    FIXTURES / "gemini-cli" / "generated-gemini-0.61.0-bad.stream.jsonl",
    FIXTURES / "chat-cassettes" / "fantasy_gemini-2.5-flash_multi_tool_streaming.go-vcr.yaml",
    FIXTURES / "tau2-bench" / "blakeelias_tau2_airline_relaxed_grok-3-mini.json",
    FIXTURES / "copilot-cli" / "generated-copilot-1.0.102-denials.events.jsonl",
    FIXTURES / "bedrock-converse" / "otel-contrib_test_converse_tool_call_with_content.yaml",
    FIXTURES / "google-adk" / "generated-adk-2.13.0-error-callback.session.json",
    *sorted((FIXTURES / "cline").glob("*.json")),
    FIXTURES / "mcp" / "generated-mcp-debug-1.1.0-concurrent.jsonl",  # its "#" lines dropped
    FIXTURES / "mcp" / "goose-npx-y@modelcontextprotocol_server-everything",  # goose's replay
]
_ODD: list[Any] = [
    *(None, True, 0, -1, 1.5, "", "x", [], {}, [None], {"": None}, [[]]),
    *("Error: x", "[x] Result:"),  # an error prefix; a Cline result header
]


def _read(path: Path) -> tuple[str, Any]:
    text = path.read_text(encoding="utf-8")
    if path.name.startswith("goose-"):  # STDIN:/STDOUT: <message> lines; STDERR lines left out
        split = [line.partition(": ") for line in text.splitlines()]
        return "goose", [[p, json.loads(rest)] for p, _, rest in split if p != "STDERR"]
    if path.suffix == ".jsonl":
        lines = [line for line in text.splitlines() if line.strip()]
        return "jsonl", [json.loads(line) for line in lines if not line.startswith("#")]
    if path.suffix == ".yaml":
        return "yaml", yaml.safe_load(text)
    return "json", json.loads(text)


@settings(
    max_examples=160,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.sampled_from(_SOURCES), st.data())
def test_a_value_of_another_type_anywhere_is_loaded_around_or_refused(
    tmp_path: Path, source: Path, data: st.DataObject
) -> None:
    kind, value = _read(source)
    value = with_values_swapped(value, data, st.sampled_from(_ODD))
    path = tmp_path / source.name
    if kind == "goose":  # a [stream, message] pair or a stream swapped: a line of no stream
        lines = [
            f"{p if isinstance(p, str) else json.dumps(p)}: {json.dumps(entry[1])}"
            if isinstance(entry, list) and len(entry) == 2 and (p := entry[0]) is not None
            else json.dumps(entry)
            for entry in value
        ]
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    elif kind == "jsonl":
        path.write_text("".join(json.dumps(v) + "\n" for v in value), encoding="utf-8")
    elif kind == "yaml":
        path.write_text(yaml.safe_dump(value), encoding="utf-8")
    else:
        path.write_text(json.dumps(value), encoding="utf-8")
    loaded_around_or_refused(path)


@pytest.mark.parametrize("parts", [7, True, "text", {"text": "x"}])
def test_a_gemini_system_instruction_of_odd_parts_is_no_crash(tmp_path: Path, parts: Any) -> None:
    """R35: ``systemInstruction.parts`` that is not a list crashed the Gemini reader."""
    source = (
        FIXTURES / "chat-cassettes" / "fantasy_gemini-2.5-flash_multi_tool_streaming.go-vcr.yaml"
    )
    cassette = yaml.safe_load(source.read_text(encoding="utf-8"))
    request = cassette["interactions"][0]["request"]
    body = json.loads(request["body"])
    body["systemInstruction"] = {"parts": parts}
    request["body"] = json.dumps(body)
    path = tmp_path / source.name
    path.write_text(yaml.safe_dump(cassette), encoding="utf-8")
    assert len(wb.load_runs(path, strict=False).boundaries) == 2


def test_a_resent_call_named_by_a_list_is_no_crash(tmp_path: Path) -> None:
    """R35: a model call's input message resending a call whose name is a list (a mutant the
    stop-30 fuzz found) made the joining of client traces raise ``TypeError``."""
    source = FIXTURES / "otel" / "generated-openai-v2-eventonly.otlp-logs.json"
    text = source.read_text(encoding="utf-8")
    assert '"stringValue": "get_weather"' in text
    path = tmp_path / source.name
    path.write_text(text.replace('"stringValue": "get_weather"', '"stringValue": [[]]'), "utf-8")
    result = wb.load_runs(path, strict=False)
    assert all(p.where for p in result.problems)
