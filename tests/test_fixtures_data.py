"""The bundled data in ``fixtures/``: provenance, shape, and validity against the official schemas.

The OpenWOP event validation (``helpers.openwop``) loads the official schema files themselves (the
vendored copies in ``workbench/schemas/openwop/``) with jsonschema + referencing, Draft 2020-12.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest

from helpers.openwop import (
    assert_valid_log,
    event_problems,
    official_schema,
    read_jsonl,
    tool_calls,
)
from helpers.paths import BILLING, FIXTURES, HOSTILE, SAMPLES, TAU_DEMO, TAU_FULL

TAU_FULL_SHA256 = "75dbb947028eb8ba34862d08087e22408f54d23edf664d314e82e6ad6300088b"
"""SHA-256 of the shared data file the copy was taken from (recorded in tau-bench/SOURCE.md)."""

CREDENTIAL_KEYS = ("authorization", "api_key", "apikey", "token", "password", "secret")


def _strings_and_keys(value: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _strings_and_keys(v, k)
    elif isinstance(value, list):
        for item in value:
            yield from _strings_and_keys(item, key)
    else:
        yield key, value


def _import_script(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_fixture_script_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- the validator itself --------------------------------------------------------------------


def _minimal_event(**changes: Any) -> dict[str, Any]:
    event: dict[str, Any] = {
        "eventId": "evt-0000000000000000",
        "runId": "acme/run-0000000000000000",
        "type": "agent.tool-called",
        "payload": {"agentId": "a1", "toolName": "t", "callId": "c1", "inputs": {}},
        "timestamp": "2026-11-29T10:00:00.000Z",
        "sequence": 0,
        "schemaVersion": 1,
    }
    event.update(changes)
    return event


def test_strict_official_oneof_rejects_registered_types_so_it_is_read_as_anyof() -> None:
    """SPEC R18: the official `type` oneOf overlaps; read strictly it rejects registered types."""
    official = official_schema("run-event.schema.json")
    strict = jsonschema.Draft202012Validator(official["properties"]["type"])
    assert not strict.is_valid("agent.tool-called")
    assert event_problems(_minimal_event()) == []


@pytest.mark.parametrize(
    ("changes", "path"),
    [
        ({"sequence": -1}, "$.sequence"),
        ({"eventId": "short"}, "$.eventId"),
        ({"runId": "no-tenant-part-here"}, "$.runId"),
        ({"timestamp": "yesterday"}, "$.timestamp"),
        ({"extra": 1}, "$"),
        ({"payload": {"agentId": "a1", "toolName": "t"}}, "$.payload"),
        ({"payload": {"agentId": "a1", "toolName": "t", "callId": "c1", "oops": 1}}, "$.payload"),
        ({"type": "agent.toolCalled"}, "$.type"),
    ],
)
def test_event_validator_names_the_broken_field(changes: dict[str, Any], path: str) -> None:
    """SPEC R18: the envelope and the payload are both checked, and the problem names its path."""
    problems = event_problems(_minimal_event(**changes))
    assert problems, "expected a problem"
    assert any(problem.startswith(path) for problem in problems), problems


# --- tau-bench ---------------------------------------------------------------------------------


def test_tau_bench_copy_is_byte_identical_to_the_shared_data_file() -> None:
    """The copy keeps the hash recorded in SOURCE.md (copied unchanged)."""
    assert hashlib.sha256(TAU_FULL.read_bytes()).hexdigest() == TAU_FULL_SHA256


def test_tau_bench_demo_file_is_task_3_trial_0_of_the_full_file() -> None:
    """The demo record is derived exactly as tau-bench/SOURCE.md says."""
    full = json.loads(TAU_FULL.read_text(encoding="utf-8"))
    picked = [r for r in full if r["task_id"] == 3 and r["trial"] == 0]
    assert len(picked) == 1
    assert TAU_DEMO.read_text(encoding="utf-8") == json.dumps(picked, indent=2) + "\n"


# --- billing-support.openwop.jsonl -------------------------------------------------------------


def test_billing_log_is_the_output_of_its_generator_script() -> None:
    """The committed log regenerates byte for byte from fixtures/make_billing_log.py."""
    script = _import_script(FIXTURES / "make_billing_log.py")
    assert script.render(script.build_events()) == BILLING.read_text(encoding="utf-8")


def test_billing_log_events_are_valid_against_the_official_schemas() -> None:
    """SPEC R18: envelope and per-type payload valid for every event."""
    assert_valid_log(BILLING)


def test_billing_log_sequence_is_strictly_increasing_from_zero() -> None:
    """SPEC R18: `sequence` from 0, strictly increasing (here: contiguous)."""
    events = read_jsonl(BILLING)
    assert [e["sequence"] for e in events] == list(range(len(events)))
    assert len({e["eventId"] for e in events}) == len(events)
    assert len({e["runId"] for e in events}) == 1
    timestamps = [e["timestamp"] for e in events]
    assert timestamps == sorted(timestamps)


def test_billing_log_events_come_in_the_recorded_run_order() -> None:
    """SPEC R19 (run form): run.started, invocation-started, call/return pairs, decided,
    invocation-completed, run.completed."""
    types = [e["type"] for e in read_jsonl(BILLING)]
    assert types[:2] == ["run.started", "agent.invocation-started"]
    assert types[-3:] == ["agent.decided", "agent.invocation-completed", "run.completed"]
    middle = types[2:-3]
    assert middle == ["agent.tool-called", "agent.tool-returned"] * (len(middle) // 2)
    events = read_jsonl(BILLING)
    assert events[-3]["payload"]["decision"]["outcome"] == "completed"
    assert events[-2]["payload"]["outcome"] == "completed"
    assert events[-1]["payload"]["outputs"]["answer"] == events[-3]["payload"]["decision"]["answer"]


def test_billing_log_has_twelve_give_or_take_two_tool_calls() -> None:
    """About 12 paired calls over at least six distinct tools."""
    pairs = tool_calls(read_jsonl(BILLING))
    assert 10 <= len(pairs) <= 14
    assert len({called["toolName"] for called, _ in pairs}) >= 6


def test_billing_log_has_one_upstream_down_failure_then_a_successful_identical_retry() -> None:
    """SPEC R3, R20: the failure has `error` + `status: error` and no outcome; the next call is the
    same tool with the same inputs and succeeds."""
    pairs = tool_calls(read_jsonl(BILLING))
    failed = [i for i, (_, returned) in enumerate(pairs) if "error" in returned]
    assert len(failed) == 1
    i = failed[0]
    called, returned = pairs[i]
    assert returned["error"] == {
        "code": "upstream_down",
        "message": "billing service unavailable (503)",
    }
    assert returned["status"] == "error"
    assert "outcome" not in returned
    retry_called, retry_returned = pairs[i + 1]
    assert retry_called["toolName"] == called["toolName"]
    assert retry_called["inputs"] == called["inputs"]
    assert retry_called["callId"] != called["callId"]
    assert retry_returned["status"] == "ok"
    assert "error" not in retry_returned
    assert all(r["status"] == "ok" for j, (_, r) in enumerate(pairs) if j != i)


def test_billing_log_outcomes_are_call_tool_result_shaped() -> None:
    """SPEC R5: each success outcome is a CallToolResult body; its text is its structuredContent."""
    for _, returned in tool_calls(read_jsonl(BILLING)):
        if "error" in returned:
            continue
        outcome = returned["outcome"]
        assert set(outcome) == {"content", "structuredContent"}
        [block] = outcome["content"]
        assert block["type"] == "text"
        assert json.loads(block["text"]) == outcome["structuredContent"]
        assert isinstance(returned["durationMs"], int)


def test_billing_log_carries_exactly_one_deliberate_fake_credential() -> None:
    """SPEC R31 test material: one `api_key` value, obviously fake; nothing else secret-shaped."""
    found = [
        (key, value)
        for event in read_jsonl(BILLING)
        for key, value in _strings_and_keys(event)
        if key.lower() in CREDENTIAL_KEYS
        or (isinstance(value, str) and ("sk-live" in value or "Bearer " in value))
    ]
    assert len(found) == 1
    key, value = found[0]
    assert key == "api_key"
    assert value.startswith("sk-live-FAKE-")


# --- samples -----------------------------------------------------------------------------------


def test_hostile_sample_is_a_valid_log_carrying_markup_in_args_and_result() -> None:
    """The escaping fixture is valid (SPEC R18), so loaders accept it and views must escape it."""
    events = assert_valid_log(HOSTILE)
    assert [e["sequence"] for e in events] == list(range(len(events)))
    [(called, returned)] = tool_calls(events)
    assert "<script>alert(2)</script>" in called["inputs"].values()
    assert returned["outcome"]["content"][0]["text"] == "<img src=x onerror=alert(1)>"


def test_openai_sample_pairs_every_reply_and_has_one_error_reply_and_a_parallel_call() -> None:
    """SPEC R1(b), R2, R3: arguments are JSON strings; one `Error: ` reply; one parallel pair."""
    messages = json.loads((SAMPLES / "openai-chat-refund.json").read_text())["messages"]
    open_ids: set[str] = set()
    errors = 0
    for message in messages:
        for tool_call in message.get("tool_calls") or []:
            assert isinstance(json.loads(tool_call["function"]["arguments"]), dict)
            open_ids.add(tool_call["id"])
        if message["role"] == "tool":
            open_ids.remove(message["tool_call_id"])
            errors += message["content"].startswith("Error: ")
    assert open_ids == set()
    assert errors == 1
    assert any(len(m.get("tool_calls") or []) == 2 for m in messages)


def test_anthropic_sample_pairs_every_result_and_has_one_is_error_result() -> None:
    """SPEC R1(c), R2, R3: tool_use/tool_result pair by id; str and list content; one is_error."""
    messages = json.loads((SAMPLES / "anthropic-refund.json").read_text())["messages"]
    open_ids: set[str] = set()
    results: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message["content"], str):
            continue
        for block in message["content"]:
            if block["type"] == "tool_use":
                assert isinstance(block["input"], dict)
                open_ids.add(block["id"])
            elif block["type"] == "tool_result":
                open_ids.remove(block["tool_use_id"])
                results.append(block)
    assert open_ids == set()
    assert sum(1 for r in results if r.get("is_error") is True) == 1
    assert {type(r["content"]) for r in results} == {str, list}
