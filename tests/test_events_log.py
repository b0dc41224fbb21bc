"""The event log a replay writes (SPEC R18-R22, RFC 0245 sections B and D).

Every replay made in any test is also validated by ``conftest.py`` against the official
envelope and payload schemas; the tests here pin order, sequence, status, content-freedom and
determinism, and check that the conftest check itself can fail.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import jsonschema
import pytest
import referencing

import workbench
import workbench._replay.session as replay_module
from helpers.paths import OFFICIAL, ROOT
from workbench import EventLog, HostProfile, load_runs, promote, replay, validate_event
from workbench._replay.events import events_to_jsonl, run_id_for

Checker = Callable[[list[dict[str, Any]]], list[str]]

SUITE_ID = "local.test.evals.events"
SECRET = "CONTENT-7f3a-should-never-reach-eval-events"


def suite(trials: int = 2) -> dict[str, Any]:
    """Two tasks; task one fails once then succeeds, misses once (skipped), then a success."""
    return {
        "suiteId": SUITE_ID,
        "version": "2.1.0",
        "modes": ["golden"],
        "trials": trials,
        "tasks": [
            {
                "taskId": "one",
                "input": {
                    "script": [
                        {"tool": "lookup", "args": {"q": SECRET}, "onError": {"retry": 1}},
                        {"tool": "missing", "args": {"q": SECRET}, "onError": "skip"},
                        {"tool": "write", "args": {"body": SECRET}},
                    ],
                    "answer": SECRET,
                },
                "expected": {
                    "kind": "golden",
                    "match": {"strategy": "contains", "value": SECRET},
                },
                "fixtures": {
                    "toolResponses": [
                        {
                            "tool": "lookup",
                            "isError": True,
                            "response": {"content": [{"type": "text", "text": SECRET}]},
                        },
                        {
                            "tool": "lookup",
                            "response": {"content": [{"type": "text", "text": SECRET}]},
                        },
                        {"tool": "write", "response": SECRET},
                    ],
                    "onMiss": "live",
                },
            },
            {
                "taskId": "two",
                "input": {"script": [{"tool": "write"}], "answer": "ok"},
                "expected": {"kind": "golden", "match": {"strategy": "exact", "value": "x"}},
                "fixtures": {"toolResponses": [{"tool": "write", "response": "ok"}]},
            },
        ],
    }


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def test_event_order_follows_r19_exactly() -> None:
    """R19: eval.started; per task and trial invocation-started, per call tool-called then its
    tool-returned (same callId), decided, invocation-completed; per task one eval.scored; then
    eval.completed; then run.completed."""
    result = replay(suite())
    trial_one = (
        ["agent.invocation-started"]
        + ["agent.tool-called", "agent.tool-returned"] * 4  # lookup!, lookup, missing!, write
        + ["agent.decided", "agent.invocation-completed"]
    )
    trial_two = [
        "agent.invocation-started",
        "agent.tool-called",
        "agent.tool-returned",
        "agent.decided",
        "agent.invocation-completed",
    ]
    expected = (
        ["eval.started"]
        + trial_one * 2
        + ["eval.scored"]
        + trial_two * 2
        + ["eval.scored", "eval.completed", "run.completed"]
    )
    assert types(result.events) == expected
    events = result.events
    for index, event in enumerate(events):
        if event["type"] == "agent.tool-called":
            following = events[index + 1]
            assert following["type"] == "agent.tool-returned"
            assert following["payload"]["callId"] == event["payload"]["callId"]
    call_ids = [e["payload"]["callId"] for e in events if e["type"] == "agent.tool-called"]
    assert len(set(call_ids)) == len(call_ids)
    scored = [e["payload"]["taskId"] for e in events if e["type"] == "eval.scored"]
    assert scored == ["one", "two"]


def test_envelopes_have_sequence_from_zero_and_the_run_id() -> None:
    """R18: RunEventDoc envelopes with eventId, runId, type, payload, timestamp, sequence from
    0 strictly increasing, schemaVersion; unique event ids."""
    result = replay(suite())
    events = result.events
    assert [e["sequence"] for e in events] == list(range(len(events)))
    for event in events:
        assert set(event) == {
            "eventId", "runId", "type", "payload", "timestamp", "sequence", "schemaVersion"
        }  # fmt: skip
        assert event["runId"] == result.run_id
    assert len({e["eventId"] for e in events}) == len(events)
    stamps = [e["timestamp"] for e in events]
    assert stamps == sorted(stamps)


def test_every_event_is_valid_against_the_official_files() -> None:
    """R18: every payload validates against ``run-event-payloads.schema.json`` and every
    envelope against ``run-event.schema.json`` (its ``type`` oneOf read as anyOf: the
    registered enum and the vendor pattern overlap), both loaded from the vendored files."""
    result = replay(suite())
    schemas = [json.loads(f.read_text(encoding="utf-8")) for f in OFFICIAL.glob("*.schema.json")]
    registry: referencing.Registry[Any] = referencing.Registry().with_resources(
        (s["$id"], referencing.Resource.from_contents(s)) for s in schemas
    )
    envelope = next(s for s in schemas if s["$id"].endswith("/run-event.schema.json"))
    payloads = next(s for s in schemas if s["$id"].endswith("/run-event-payloads.schema.json"))
    type_schema = envelope["properties"]["type"]
    type_schema["anyOf"] = type_schema.pop("oneOf")  # the overlap noted in SPEC R18
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    envelope_validator = jsonschema.Draft202012Validator(
        envelope, registry=registry, format_checker=checker
    )
    index = payloads["_typeIndex"]["properties"]
    checked = set()
    for event in result.events:
        assert [e.message for e in envelope_validator.iter_errors(event)] == []
        ref = urljoin(payloads["$id"], index[event["type"]]["$ref"])
        payload_validator = jsonschema.Draft202012Validator(
            {"$ref": ref}, registry=registry, format_checker=checker
        )
        assert [e.message for e in payload_validator.iter_errors(event["payload"])] == []
        checked.add(event["type"])
        assert validate_event(event) == []
    assert {"agent.tool-called", "agent.tool-returned", "eval.scored"} <= checked


def test_conftest_check_catches_bad_events(check_event_log: Checker) -> None:
    """R18/R20: the shared check in conftest fails on a broken log (so it can fail): a wrong
    sequence, a payload with both error and outcome, a payload missing required members."""
    events = replay(suite(trials=1)).events
    assert check_event_log(events) == []
    broken = json.loads(json.dumps(events))
    returned = next(e for e in broken if e["type"] == "agent.tool-returned")
    returned["payload"]["outcome"] = {"servedBy": "fixture"}
    returned["payload"]["error"] = {"code": "x.y", "message": "m"}
    broken[1]["sequence"] = 7
    del broken[0]["payload"]["suiteId"]
    problems = check_event_log(broken)
    assert any("error and outcome" in p for p in problems)
    assert any("sequence" in p for p in problems)
    assert any("suiteId" in p for p in problems)


def test_conftest_wraps_every_replay_alias() -> None:
    """The conftest wrapper is installed on ``workbench.replay`` and the session module."""
    assert workbench.replay is replay_module.replay
    assert getattr(workbench.replay, "__name__", "") == "checked_replay"


def test_error_xor_outcome_and_status_under_pre_post_events() -> None:
    """R20: a failure carries ``error`` (code + message) and no ``outcome``, a success carries
    ``outcome`` and no ``error``; with prePostEvents ``status`` is ``error`` / ``ok``."""
    result = replay(suite())
    returned = [e["payload"] for e in result.events if e["type"] == "agent.tool-returned"]
    codes = [p["error"]["code"] if "error" in p else None for p in returned]
    assert codes[:4] == [
        "workbench.tool_error",
        None,
        "workbench.fixture_miss",
        None,
    ]
    for payload in returned:
        assert ("error" in payload) != ("outcome" in payload)
        assert payload["status"] == ("error" if "error" in payload else "ok")
        if "error" in payload:
            assert payload["error"]["message"]


def test_status_absent_without_pre_post_events() -> None:
    """R20: without ``toolHooks.prePostEvents`` the tool events carry no ``status``."""
    result = replay(suite(), host_profile=HostProfile(pre_post_events=False))
    tool = [e["payload"] for e in result.events if e["type"].startswith("agent.tool-")]
    assert tool
    assert all("status" not in p for p in tool)
    assert all("argsHash" not in p for p in tool)
    returned = [p for p in tool if "callId" in p and ("error" in p or "outcome" in p)]
    assert any("error" in p for p in returned) and any("outcome" in p for p in returned)


def test_eval_payloads_are_content_free() -> None:
    """R21 / RFC 0245 D: ``eval.*`` payloads hold only ids, scores, counts and ``x-`` figures;
    no fixture text, no args, no answer. By default no event carries suite content at all."""
    result = replay(suite())
    allowed = {
        "eval.started": {"suiteId", "suiteVersion", "taskCount", "modes"},
        "eval.scored": {"taskId", "score", "passed"},
        "eval.completed": {"aggregateScore", "passed", "taskCount", "passedCount"},
    }
    for event in result.events:
        if event["type"].startswith("eval."):
            keys = {k for k in event["payload"] if not k.startswith("x-")}
            assert keys <= allowed[event["type"]], event["type"]
            assert SECRET not in json.dumps(event["payload"])
    assert SECRET not in events_to_jsonl(result.events)


def test_content_appears_only_when_asked() -> None:
    """R20/R21: with ``include_content=True`` tool events carry inputs and results, and still
    no ``eval.*`` payload carries content."""
    result = replay(suite(), include_content=True)
    tool_text = json.dumps([e for e in result.events if e["type"].startswith("agent.")])
    assert SECRET in tool_text
    for event in result.events:
        if event["type"].startswith("eval."):
            assert SECRET not in json.dumps(event["payload"])


def test_x_figures_on_eval_events() -> None:
    """R21: fixture misses, trials and pass^k travel under ``x-`` keys."""
    result = replay(suite())
    scored = [e["payload"] for e in result.events if e["type"] == "eval.scored"]
    assert scored[0]["x-fixtureMissCount"] == 2  # one miss per trial
    # onMiss "live" with no live tool registered is handled as "fail": the trials cannot pass (R16)
    assert scored[0]["x-trials"] == {"n": 2, "passed": 0}
    assert scored[1]["x-passHatK"] == {"1": 0.0, "2": 0.0}
    completed = next(e["payload"] for e in result.events if e["type"] == "eval.completed")
    assert completed["x-fixtureMissCount"] == 2


def test_same_suite_agent_seed_give_byte_identical_logs(tmp_path: Path) -> None:
    """R22: the same suite, agent and seed give byte-identical JSONL logs and summaries."""
    paths = []
    for run in range(2):
        result = replay(suite(), seed=7)
        events, summary = tmp_path / f"e{run}.jsonl", tmp_path / f"s{run}.json"
        result.write_events(events)
        result.write_summary(summary)
        paths.append((events.read_bytes(), summary.read_bytes()))
    assert paths[0] == paths[1]
    assert paths[0][0].decode("utf-8").count("\n") == len(result.events)


def test_different_seed_gives_different_ids() -> None:
    """R22: ids derive from the seed: another seed gives another run id and event ids."""
    a, b = replay(suite(), seed=1), replay(suite(), seed=2)
    assert a.run_id != b.run_id
    assert {e["eventId"] for e in a.events}.isdisjoint(e["eventId"] for e in b.events)
    assert a.summary == b.summary  # nothing in this suite is random


def test_timestamps_are_logical_unless_wall_clock() -> None:
    """R22: timestamps come from a logical clock, not the wall clock, unless asked for."""
    logical = replay(suite(trials=1)).events
    assert logical[0]["timestamp"] == "2026-01-01T00:00:00.000Z"
    assert logical[5]["timestamp"] == "2026-01-01T00:00:00.005Z"
    wall = replay(suite(trials=1), wall_clock=True).events
    pattern = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
    assert all(pattern.match(e["timestamp"]) for e in wall)
    assert wall[0]["timestamp"] != logical[0]["timestamp"]


def test_events_off_gives_an_empty_log_and_the_same_grades() -> None:
    """R22: with events off nothing is recorded; results and summary are unchanged."""
    on, off = replay(suite(), seed=3), replay(suite(), seed=3, events=False)
    assert off.events == []
    assert off.summary == on.summary
    assert [t.trials for t in off.tasks] == [t.trials for t in on.tasks]


def test_event_log_numbers_from_0_derives_ids_and_a_disabled_log_is_empty() -> None:
    """R18/R22: EventLog numbers events from 0, derives ids from the run id, writes JSONL
    atomically; a disabled log records nothing."""
    run_id = run_id_for("a.evals.b", "1.0.0", 0)
    assert run_id == run_id_for("a.evals.b", "1.0.0", 0) != run_id_for("a.evals.b", "1.0.0", 1)
    assert re.fullmatch(r"workbench/[0-9a-f]{24}", run_id)
    log = EventLog(run_id)
    first = log.emit("eval.started", {"suiteId": "a.evals.b"})
    assert first is not None and first["sequence"] == 0 and len(log) == 1
    assert log.emit("eval.completed", {})["sequence"] == 1  # type: ignore[index]
    assert [e["sequence"] for e in log] == [0, 1]
    off = EventLog(run_id, enabled=False)
    assert off.emit("eval.started", {}) is None and len(off) == 0


def test_event_log_jsonl_is_one_compact_key_sorted_event_a_line(tmp_path: Path) -> None:
    """R22: the JSONL text is one compact key-sorted event a line."""
    log = EventLog("local/x")
    log.emit("eval.started", {"b": 1, "a": "\u00e9"})
    path = tmp_path / "log.jsonl"
    log.write(path)
    text = path.read_text(encoding="utf-8")
    assert text == log.to_jsonl()
    (line,) = text.splitlines()
    assert json.loads(line)["payload"] == {"a": "\u00e9", "b": 1}
    assert line.index('"eventId"') < line.index('"payload"') < line.index('"runId"')


@pytest.mark.parametrize("path", ["billing-support.openwop.jsonl"])
def test_promoted_replay_log_is_valid_and_deterministic(
    path: str, check_event_log: Checker
) -> None:
    """R18/R22 on real data: the billing run's replay log validates and is reproducible."""
    promoted = promote(load_runs(ROOT / "fixtures" / path)).suite
    a, b = replay(promoted, trials=2), replay(promoted, trials=2)
    assert events_to_jsonl(a.events) == events_to_jsonl(b.events)
    assert check_event_log(a.events) == []


@pytest.mark.parametrize(
    "args",
    [
        {"b": 1, "a": [1, 2, {"z": None, "y": True}]},
        {"n": 1.0, "m": -0.0, "x": 2.5},
        {"text": "caf\u00e9 \u2603", "e": "1.0"},
        [],
    ],
)
def test_args_hash_is_the_sha256_of_canonical_json(args: Any) -> None:
    """R18/R22 (``agent.tool-called.argsHash`` under prePostEvents): the hash is of the args'
    canonical JSON, so ``1`` and ``1.0`` (and key order) give the same hash."""
    import hashlib

    from workbench import FixtureHost, TaskContext, TaskFixtures
    from workbench._common.canonical import canonical_json

    log = EventLog("local/x")
    host = FixtureHost(TaskFixtures({"fixtures": {}}), TaskContext("t", 0), log=log)
    host.call("tool", args)
    called = log.events[0]["payload"]
    expected = hashlib.sha256(canonical_json(args).encode("utf-8")).hexdigest()
    assert called["argsHash"] == expected
