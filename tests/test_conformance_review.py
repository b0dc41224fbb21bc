"""Adversarial conformance review of replay, grading, variants and the event log (SPEC R5-R33).

Each test pins one rule, line by line, including the corners where an implementation could
drift from the SPEC while its happy-path tests stay green: document order of the refused field,
thresholds against an unhandled miss, RFC 8785 ``argsHash``, the agent id pattern, policy
objects that say two things at once. Official schema files are loaded here, not via the
project's validation layer, where official validity is the point.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from datetime import datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from helpers.paths import BILLING, OFFICIAL
from helpers.suites import golden
from workbench import (
    Decision,
    Fault,
    FixtureHost,
    HostProfile,
    HostRefusal,
    ReplayOptions,
    ReplaySession,
    ScriptedAgent,
    ScriptError,
    Suite,
    TaskContext,
    TaskFixtures,
    branch_tree,
    check_suite,
    inject,
    load_runs,
    promote,
    replay,
    sweep,
    toggle_error,
    validate_suite,
    validate_summary,
)
from workbench._common.canonical import jcs_text
from workbench._replay.fixtures import live_result
from workbench._replay.policies import seeded_draw
from workbench._replay.session import agent_id_for
from workbench._sweep.variants import single_fault_variants

SUITE_ID = "local.review.evals.conformance"

UPSTREAM_DOWN = {"content": [{"type": "text", "text": '{"error":"upstream_down"}'}]}


def official(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((OFFICIAL / name).read_text(encoding="utf-8"))
    return data


COMPLETED = golden("completed", "contains")


def task(
    task_id: str,
    script: list[dict[str, Any]],
    entries: list[dict[str, Any]],
    **members: Any,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "taskId": task_id,
        "input": {"script": script},
        "expected": COMPLETED,
        "fixtures": {"toolResponses": entries},
    }
    out.update(members)
    return out


def suite(*tasks: dict[str, Any], **members: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "suiteId": SUITE_ID,
        "version": "1.0.0",
        "modes": ["golden"],
        "tasks": list(tasks),
    }
    out.update(members)
    return out


def host(entries: list[dict[str, Any]], **fixtures: Any) -> FixtureHost:
    spec = {"fixtures": {"toolResponses": entries, **fixtures}}
    return FixtureHost(TaskFixtures(spec), TaskContext("t", 0, 0))


def payloads(result: Any, kind: str) -> list[dict[str, Any]]:
    return [e["payload"] for e in result.events if e["type"] == kind]


class Spy:
    """An agent that records whether it ran."""

    agent_id = "review.spy"

    def __init__(self) -> None:
        self.runs = 0

    def run(self, task_input: Any, tools: Any) -> Any:
        self.runs += 1
        return Decision("completed")


# --------------------------------------------------------------------------------------------
# R5-R8: defaults


def test_args_match_defaults_to_exact_with_args_and_any_without() -> None:
    """R5: ``argsMatch`` defaults to ``exact`` when ``args`` is present (other args miss) and
    to ``any`` when absent (any args are served)."""
    with_args = host([{"tool": "t", "args": {"id": 1}}])
    assert with_args.call("t", {"id": 1, "extra": 0}).is_error
    assert with_args.misses == 1
    without = host([{"tool": "t"}])
    assert not without.call("t", {"anything": [1, 2]}).is_error
    assert without.misses == 0


def test_explicit_args_match_without_args_matches_any_call() -> None:
    """R5 (decision where the SPEC is silent): an entry with ``argsMatch`` but no ``args`` has
    no pattern to compare, so it serves any call of its tool, whatever the mode says."""
    for mode in ("exact", "subset", "any"):
        assert not host([{"tool": "t", "argsMatch": mode}]).call("t", {"x": 1}).is_error


def test_is_error_defaults_to_false_and_a_string_is_refused() -> None:
    """R5: no ``isError`` (or ``false``) serves a success; ``"true"`` (a string) is invalid and
    the suite is refused before the agent runs rather than served either way."""
    assert not host([{"tool": "t"}]).call("t").is_error
    assert not host([{"tool": "t", "isError": False}]).call("t").is_error
    bad = suite(task("a", [{"tool": "t"}], [{"tool": "t", "isError": "true"}]))
    spy = Spy()
    with pytest.raises(HostRefusal) as caught:
        replay(bad, spy)
    assert caught.value.field == "tasks[0].fixtures.toolResponses[0].isError"
    assert spy.runs == 0


def test_on_miss_defaults_to_fail() -> None:
    """R6: without ``onMiss`` a miss is a ``workbench.fixture_miss`` tool error and the task
    cannot pass, even with a live tool registered for that name."""
    the_suite = suite(task("a", [{"tool": "t", "onError": "skip"}], []))
    result = replay(the_suite, live_tools={"t": lambda args: "live"})
    trial = result.tasks[0].trials[0]
    assert trial.calls[0].served_by == "miss"
    assert trial.calls[0].result.error_code == "workbench.fixture_miss"
    assert trial.decision.outcome == "completed" and not trial.passed
    assert result.fixture_miss_count == 1 and not result.passed


def test_trajectory_args_match_defaults_to_exact() -> None:
    """R7/R27: a trajectory without ``argsMatch`` compares args ``exact``: an actual call with
    one more key does not match; with ``argsMatch: "subset"`` it does."""
    call = {"tool": "t", "args": {"id": 1, "verbose": True}}
    trajectory = {"expected": [{"tool": "t", "args": {"id": 1}}], "match": "strict"}
    the_suite = suite(task("a", [call], [{"tool": "t"}], trajectory=trajectory))
    assert replay(the_suite).tasks[0].trials[0].trajectory_passed is False
    the_suite["tasks"][0]["trajectory"]["argsMatch"] = "subset"
    assert replay(the_suite).tasks[0].trials[0].trajectory_passed is True


def test_trials_task_wins_over_suite_and_the_caller_overrides_both() -> None:
    """R8: a task's ``trials`` wins over the suite's; a task without one takes the suite's;
    ``replay(trials=)`` (the CLI's ``--trials``) overrides both."""
    the_suite = suite(
        task("a", [{"tool": "t"}], [{"tool": "t"}], trials=2),
        task("b", [{"tool": "t"}], [{"tool": "t"}]),
        trials=3,
    )
    assert [t.stats.n for t in replay(the_suite).tasks] == [2, 3]
    assert [t.stats.n for t in replay(the_suite, trials=4).tasks] == [4, 4]
    del the_suite["trials"]
    assert [t.stats.n for t in replay(the_suite).tasks] == [2, 1]


# --------------------------------------------------------------------------------------------
# R9: export never adds members


def test_replay_and_export_add_no_member_to_an_official_suite() -> None:
    """R9: a suite using no RFC 0244/0245 member validates against the official schema, and
    replaying it, exporting it and toggling an entry on and off again leave it without
    ``isError``, ``onMiss``, ``argsMatch`` or any ``x-`` member."""
    plain = {
        "suiteId": SUITE_ID,
        "version": "1.0.0",
        "modes": ["golden"],
        "tasks": [
            {
                "taskId": "plain",
                "input": {"script": [{"tool": "t"}]},
                "expected": COMPLETED,
                "fixtures": {"toolResponses": [{"tool": "t", "response": "ok"}]},
            }
        ],
    }
    before = copy.deepcopy(plain)
    jsonschema.Draft202012Validator(official("agent-eval-suite.schema.json")).validate(plain)
    the_suite = Suite(plain)
    assert replay(the_suite).passed
    assert the_suite.data == before
    exported = json.loads(the_suite.to_json())
    assert exported == before
    round_trip = toggle_error(toggle_error(the_suite, "plain", 0), "plain", 0)
    assert round_trip.data == before
    for text in (the_suite.to_json(), round_trip.to_json()):
        assert not re.search(r'"(isError|onMiss|argsMatch|trials|trajectory|x-[^"]*)"', text)


# --------------------------------------------------------------------------------------------
# R10-R11: refusal


def test_refusal_names_the_first_offending_field_in_document_order() -> None:
    """R11: "the first offending field" is first in the suite as written: a root ``trials``
    after ``tasks`` comes after the tasks' fields; within a task and within an entry the
    members are taken in their own order."""
    narrow = HostProfile(
        fixture_matching=False, fixture_errors=False, trials=False, trajectory=False
    )
    entry = {"tool": "t", "isError": True, "args": {}}
    late_trials = suite(task("a", [{"tool": "t"}], [entry]))
    late_trials["trials"] = 2  # after "tasks"
    with pytest.raises(HostRefusal) as caught:
        check_suite(late_trials, narrow)
    assert caught.value.field == "tasks[0].fixtures.toolResponses[0].isError"

    first_trajectory = {
        "taskId": "a",
        "input": {"script": []},
        "expected": COMPLETED,
        "trajectory": {"expected": [], "match": "superset"},
        "trials": 2,
        "fixtures": {"toolResponses": [{"tool": "t", "args": {}}]},
    }
    with pytest.raises(HostRefusal) as caught:
        check_suite(suite(first_trajectory, trials=2), narrow)
    assert caught.value.field == "tasks[0].trajectory"

    early_trials = {"trials": 2, **suite(task("a", [{"tool": "t"}], [entry]))}
    with pytest.raises(HostRefusal) as caught:
        check_suite(early_trials, narrow)
    assert caught.value.field == "trials"
    body = caught.value.body
    assert set(body) == {"error", "message", "details"} and body["error"] == "validation_error"
    assert body["details"] == {"field": "trials"} and body["message"]


def test_an_invalid_suite_is_refused_at_its_first_problem_in_document_order() -> None:
    """R11 (with R5): two schema problems in one entry; the one written first is named, not
    the alphabetically first."""
    entry = {"tool": "t", "isError": "true", "argsMatch": "fuzzy"}
    with pytest.raises(HostRefusal) as caught:
        check_suite(suite(task("a", [], [entry])), HostProfile.workbench())
    assert caught.value.field == "tasks[0].fixtures.toolResponses[0].isError"
    entry = {"tool": "t", "argsMatch": "fuzzy", "isError": "true"}
    with pytest.raises(HostRefusal) as caught:
        check_suite(suite(task("a", [], [entry])), HostProfile.workbench())
    assert caught.value.field == "tasks[0].fixtures.toolResponses[0].argsMatch"


def test_a_task_id_used_twice_is_refused() -> None:
    """R11 / RFC 0081 (task ids are suite-unique): a second task with the same id would never
    run (the replay could not tell them apart), so the suite is refused naming it."""
    the_suite = suite(task("a", [], []), task("a", [], []))
    spy = Spy()
    with pytest.raises(HostRefusal) as caught:
        replay(the_suite, spy)
    assert caught.value.field == "tasks[1].taskId"
    assert spy.runs == 0


def test_refusal_comes_before_any_event_and_any_agent_call_on_every_path() -> None:
    """R11: refused at run create: no agent call, no trial callback, no live call, and a
    ``ReplaySession`` (the MCP bridge's path) is never created, so no event exists."""
    the_suite = suite(task("a", [{"tool": "t"}], [{"tool": "t", "isError": True}]))
    the_suite["tasks"][0]["fixtures"]["onMiss"] = "live"
    narrow = HostProfile(fixture_errors=False)
    spy = Spy()
    trials: list[Any] = []
    lives: list[Any] = []
    with pytest.raises(HostRefusal):
        replay(
            the_suite,
            spy,
            host_profile=narrow,
            on_trial=trials.append,
            live_tools={"t": lives.append},
        )
    assert (spy.runs, trials, lives) == (0, [], [])
    with pytest.raises(HostRefusal):
        ReplaySession(the_suite, host_profile=narrow)


def test_on_miss_live_is_not_gated() -> None:
    """R10/R11 (decision): ``onMiss`` is not one of the gated members R11 lists and R10 has no
    capability for it, so a host advertising nothing optional still runs an ``onMiss: "live"``
    suite that uses no gated member (the workbench's host implements it)."""
    the_suite = suite(task("a", [{"tool": "t"}], []))
    the_suite["tasks"][0]["fixtures"]["onMiss"] = "live"
    bare = HostProfile(fixture_matching=False, fixture_errors=False, trials=False, trajectory=False)
    result = replay(the_suite, host_profile=bare, live_tools={"t": lambda args: "ok"})
    assert result.passed and result.fixture_miss_count == 1


# --------------------------------------------------------------------------------------------
# R12-R13: matching and consumption


@pytest.mark.parametrize(
    ("entry_args", "call_args", "served"),
    [
        ({"a": 1, "b": {"c": 2}}, {"b": {"c": 2.0}, "a": 1.0}, True),  # key order, 1 vs 1.0
        ({"a": True}, {"a": 1}, False),  # true is not 1
        ({"a": 0}, {"a": False}, False),
        ({"a": [[1, 2], [3]]}, {"a": [[1, 2.0], [3]]}, True),
        ({"a": [[1, 2], [3]]}, {"a": [[3], [1, 2]]}, False),  # arrays ordered
        ({"s": "\u00e9"}, {"s": "e\u0301"}, False),  # no Unicode normalisation
        ({"a": None}, {"a": None}, True),
        ({"a": None}, {}, False),
        ([1, 2], [1, 2], True),
        ("x", "x", True),
    ],
)
def test_exact_is_canonical_json_equality(entry_args: Any, call_args: Any, served: bool) -> None:
    """R12 ``exact``: equal as canonical JSON (key order and ``1`` vs ``1.0`` do not matter;
    ``true`` is not ``1``; arrays keep order; strings are compared as written)."""
    result = host([{"tool": "t", "args": entry_args}]).call("t", call_args)
    assert (not result.is_error) is served


@pytest.mark.parametrize(
    ("entry_args", "call_args", "served"),
    [
        ({"a": {"b": 1}}, {"a": {"b": 1.0, "c": 2}, "d": 3}, True),  # objects recursively
        ({"a": {"b": {"c": 1}}}, {"a": {"b": {"c": 1, "d": 0}}}, True),
        ({"a": [1]}, {"a": [1, 2]}, False),  # arrays whole
        ({"a": [{"x": 1}]}, {"a": [{"x": 1, "y": 2}]}, False),
        ({}, {"x": 1}, True),
        ({"a": {}}, {"a": 5}, False),
        ({"a": 1}, {"a": True}, False),
        ({"a": 1}, {"b": 1}, False),
    ],
)
def test_subset_recurses_into_objects_and_compares_arrays_whole(
    entry_args: Any, call_args: Any, served: bool
) -> None:
    """R12 ``subset``: every key of the entry's args is in the call with an equal value,
    objects recursively, arrays whole."""
    entry = {"tool": "t", "args": entry_args, "argsMatch": "subset"}
    assert (not host([entry]).call("t", call_args).is_error) is served


def test_consumption_is_first_candidate_in_array_order_across_interleaved_tools() -> None:
    """R13: per call, the first unconsumed candidate in array order is served and consumed;
    other tools' entries in between do not disturb it; each entry serves once."""
    tools = host(
        [
            {"tool": "a", "response": "a0"},
            {"tool": "b", "response": "b0"},
            {"tool": "a", "args": {"x": 1}, "response": "a1"},
            {"tool": "b", "args": {"y": 1}, "response": "b1"},
            {"tool": "a", "response": "a2"},
        ]
    )
    calls = [("a", {"x": 1}), ("b", {"y": 1}), ("a", {"x": 1}), ("b", {"y": 1}), ("a", {})]
    texts = [tools.call(tool, args).text for tool, args in calls]
    assert texts[:4] == ["a0", "b0", "a1", "b1"]
    assert tools.calls[4].served_by == "fixture" and texts[4] == "a2"
    assert tools.call("a", {}).is_error and tools.misses == 1


# --------------------------------------------------------------------------------------------
# R14-R17: serving, on every path


def test_session_path_serves_success_error_and_miss_like_replay() -> None:
    """R14-R17 through ``ReplaySession`` (the MCP bridge's path): a success entry comes back
    ``isError: false`` with its response, an ``isError`` entry as a tool error with the
    response as content (not a miss), an unmatched call as a ``workbench.fixture_miss``
    error; the event log, trajectory string and records mark both failures."""
    entries: list[dict[str, Any]] = [
        {"tool": "t", "isError": True, "response": UPSTREAM_DOWN},
        {"tool": "t", "response": {"content": [{"type": "text", "text": "fine"}]}},
    ]
    session = ReplaySession(suite(task("a", [], entries)))
    tools = session.begin_trial("a", 0)
    failed, ok, missed = tools.call("t", {}), tools.call("t", {}), tools.call("t", {})
    assert failed.to_mcp() == {"content": UPSTREAM_DOWN["content"], "isError": True}
    assert failed.error == '{"error":"upstream_down"}'
    assert ok.to_mcp() == {"content": [{"type": "text", "text": "fine"}], "isError": False}
    assert missed.is_error and missed.error_code == "workbench.fixture_miss"
    trial = session.end_trial(Decision("completed"))
    assert trial.fixture_misses == 1 and not trial.passed
    assert [c.is_error for c in trial.calls] == [True, False, True]
    assert trial.calls[0].error == failed.error
    assert trial.trajectory == "t! > t > t!"
    result = session.finish()
    returned = payloads(result, "agent.tool-returned")
    assert ["error" in r for r in returned] == [True, False, True]
    assert all(("outcome" in r) != ("error" in r) for r in returned)
    assert [r["status"] for r in returned] == ["error", "ok", "error"]


def test_error_entry_is_never_sent_live_whatever_on_miss_says() -> None:
    """R15: an ``isError`` entry is served (not a miss) and never reaches the live tool; only
    the next, unmatched call goes live under ``onMiss: "live"``."""
    live_calls: list[Any] = []

    def live(args: Any) -> str:
        live_calls.append(args)
        return "live"

    spec = {"fixtures": {"toolResponses": [{"tool": "t", "isError": True}], "onMiss": "live"}}
    tools = FixtureHost(
        TaskFixtures(spec), TaskContext("t", 0, 0), ReplayOptions(live_tools={"t": live})
    )
    assert tools.call("t", {"n": 1}).is_error and live_calls == [] and tools.misses == 0
    assert tools.call("t", {"n": 2}).text == "live" and live_calls == [{"n": 2}]
    assert tools.misses == 1 and tools.calls[1].served_by == "live"


@pytest.mark.parametrize(
    ("returned", "is_error", "error"),
    [
        ("plain", False, None),
        ({"content": [{"type": "text", "text": "x"}], "isError": True}, True, "x"),
        ({"isError": True}, True, "Tool call failed"),
        ({"content": "not a list", "isError": True}, True, "Tool call failed"),
        (
            {
                "content": [{"type": "text", "text": ""}, {"type": "text", "text": 7}],
                "isError": True,
            },
            True,
            "[non-string text]",
        ),
        ({"structuredContent": {"a": 1}}, False, None),
        ({"a": 1}, False, None),
        (None, False, None),
    ],
)
def test_live_tool_results_read_by_their_shape(returned: Any, is_error: bool, error: Any) -> None:
    """R16/R17: a live tool's ``CallToolResult`` with ``isError: true`` is a failure (with or
    without content; its R17 text); a string, other JSON or a body without ``isError`` is a
    success."""
    result = live_result(returned)
    assert result.is_error is is_error
    assert result.error == error


def test_a_live_tool_that_raises_is_a_tool_error_not_a_crash() -> None:
    """R16/R17: an exception from the live tool is the agent's tool error."""

    def broken(args: Any) -> Any:
        raise RuntimeError("down")

    spec = {"fixtures": {"toolResponses": [], "onMiss": "live"}}
    tools = FixtureHost(
        TaskFixtures(spec), TaskContext("t", 0, 0), ReplayOptions(live_tools={"t": broken})
    )
    result = tools.call("t", {})
    assert result.is_error and result.error == "RuntimeError: down"
    assert result.error_code == "workbench.live_tool_error"


# --------------------------------------------------------------------------------------------
# R18-R22: the event log


def multi_suite() -> dict[str, Any]:
    e = {"tool": "t", "isError": True, "response": UPSTREAM_DOWN}
    return suite(
        task("one", [{"tool": "t", "onError": {"retry": 1}}], [e, {"tool": "t"}], trials=2),
        task("two", [{"tool": "u"}, {"tool": "t"}], [{"tool": "u"}, {"tool": "t"}]),
        trials=3,
    )


def test_envelopes_match_the_official_id_patterns_and_rfc_3339() -> None:
    """R18: ``eventId``/``runId``/``agentId`` match ``ids.schema.json``'s patterns, timestamps
    are RFC 3339 date-times, ``schemaVersion`` an integer >= 1, sequence 0, 1, 2, ..."""
    ids = official("ids.schema.json")["$defs"]
    event_id, run_id = re.compile(ids["eventId"]["pattern"]), re.compile(ids["runId"]["pattern"])
    agent_id = re.compile(ids["agentId"]["pattern"])
    for wall_clock in (False, True):
        result = replay(multi_suite(), wall_clock=wall_clock)
        assert [e["sequence"] for e in result.events] == list(range(len(result.events)))
        assert len({e["eventId"] for e in result.events}) == len(result.events)
        for event in result.events:
            assert event_id.fullmatch(event["eventId"]) and run_id.fullmatch(event["runId"])
            stamp = event["timestamp"]
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)", stamp)
            datetime.fromisoformat(stamp.replace("Z", "+00:00"))
            assert isinstance(event["schemaVersion"], int) and event["schemaVersion"] >= 1
            if "agentId" in event["payload"]:
                assert agent_id.fullmatch(event["payload"]["agentId"])


def test_an_agent_id_outside_the_pattern_is_made_valid() -> None:
    """R18/R25: a hand-written agent may call itself anything; the events carry a valid
    ``agentId`` derived from it, on ``replay`` and on ``ReplaySession``."""

    class Named(Spy):
        agent_id = "My agent (v2)"

    result = replay(suite(task("a", [], [])), Named())
    assert {p["agentId"] for p in payloads(result, "agent.decided")} == {"My-agent-v2-"}
    assert agent_id_for("ok.id:1") == "ok.id:1"
    assert agent_id_for("") == "workbench.agent" and agent_id_for("x" * 200) == "x" * 128
    assert ReplaySession(suite(task("a", [], [])), agent_id="a b").agent_id == "a-b"


def test_event_order_with_several_tasks_and_trials() -> None:
    """R19: ``eval.started``; per task and trial the invocation bracket around call/return
    pairs (same ``callId``) and ``agent.decided``; one ``eval.scored`` per task after its
    trials; ``eval.completed``; ``run.completed`` with the summary."""
    result = replay(multi_suite())
    types = [e["type"] for e in result.events]
    trial = ["agent.invocation-started"]
    one = trial + ["agent.tool-called", "agent.tool-returned"] * 2 + ["agent.decided"]
    one += ["agent.invocation-completed"]
    two = one  # two calls each: u, t
    expected = ["eval.started"] + one * 2 + ["eval.scored"] + two * 3 + ["eval.scored"]
    expected += ["eval.completed", "run.completed"]
    assert types == expected
    called = payloads(result, "agent.tool-called")
    returned = payloads(result, "agent.tool-returned")
    assert [c["callId"] for c in called] == [r["callId"] for r in returned]
    assert len({c["callId"] for c in called}) == len(called)
    assert [p["taskId"] for p in payloads(result, "eval.scored")] == ["one", "two"]
    assert payloads(result, "run.completed")[0]["outputs"]["evalSummary"] == result.summary


def test_status_and_duration_only_with_pre_post_events_and_error_never_with_outcome() -> None:
    """R20: ``status`` (``ok``/``error``) and ``durationMs`` only when the host advertises
    ``toolHooks.prePostEvents``; ``durationMs`` is 0 (a fixture answers in no tool time, and a
    logical figure keeps R22); ``error`` never beside ``outcome``."""
    for pre_post in (True, False):
        result = replay(multi_suite(), host_profile=HostProfile(pre_post_events=pre_post))
        for payload in payloads(result, "agent.tool-returned"):
            assert ("error" in payload) != ("outcome" in payload)
            assert ("status" in payload) is pre_post
            assert ("durationMs" in payload) is pre_post
            if pre_post:
                assert payload["status"] == ("error" if "error" in payload else "ok")
                assert payload["durationMs"] == 0
        for payload in payloads(result, "agent.tool-called"):
            assert ("argsHash" in payload) is pre_post


def test_eval_payloads_carry_no_suite_content() -> None:
    """R21: ``eval.*`` payloads hold ids, scores and counts only: no text from the suite's
    inputs, args, responses, answers or expectations, even with ``include_content=True``."""
    marker = "zq-secret-marker"
    entry = {"tool": "t", "args": {"q": marker}, "isError": True, "response": marker}
    the_suite = suite(
        task(
            "a",
            [{"tool": "t", "args": {"q": marker}, "onError": "skip"}],
            [entry],
            expected=golden(marker, "contains"),
        )
    )
    the_suite["tasks"][0]["input"]["answer"] = marker
    for include in (False, True):
        result = replay(the_suite, include_content=include)
        for event in result.events:
            if event["type"].startswith("eval."):
                assert marker not in json.dumps(event)
                for key, value in event["payload"].items():
                    assert key.startswith("x-") or key in {
                        "suiteId", "suiteVersion", "taskCount", "modes", "taskId", "score",
                        "passed", "aggregateScore", "passedCount",
                    }  # fmt: skip
                    assert not isinstance(value, str) or key in {
                        "suiteId",
                        "suiteVersion",
                        "taskId",
                    }
        assert marker not in json.dumps(result.summary)


def test_determinism_and_wall_clock_changes_only_timestamps() -> None:
    """R22: same suite, agent and seed: byte-identical logs and summaries; another seed gives
    another run id; ``wall_clock=True`` changes the timestamps and nothing else."""
    first, again = replay(multi_suite(), seed=7), replay(multi_suite(), seed=7)
    assert json.dumps(first.events) == json.dumps(again.events)
    assert json.dumps(first.summary) == json.dumps(again.summary)
    assert replay(multi_suite(), seed=8).run_id != first.run_id
    wall = replay(multi_suite(), seed=7, wall_clock=True)

    def strip(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in e.items() if k != "timestamp"} for e in events]

    assert strip(wall.events) == strip(first.events) and wall.summary == first.summary
    assert [e["timestamp"] for e in wall.events] != [e["timestamp"] for e in first.events]


def test_args_hash_is_sha256_of_the_rfc_8785_text() -> None:
    """R18/R20 with RFC 0064: ``argsHash`` is SHA-256 over the JCS (RFC 8785) text of the
    args: ECMAScript number layout (``0.00001``, ``1e-7``, ``1e+21``), keys sorted by UTF-16
    code units, integers past 2**53 as doubles; a lone surrogate does not crash the call."""
    cases = [
        ({"b": 1, "a": [1.0, None, True]}, '{"a":[1,null,true],"b":1}'),
        ({"x": 0.00001}, '{"x":0.00001}'),
        ({"x": 1.5e-7}, '{"x":1.5e-7}'),
        ({"x": 1e21}, '{"x":1e+21}'),
        ({"x": 2**60}, '{"x":1152921504606847000}'),
        ({"\ufb01": 1, "\U0001f600": 2}, '{"\U0001f600":2,"\ufb01":1}'),
        ({"s": "a\ud800"}, '{"s":"a\\ud800"}'),
    ]
    for args, text in cases:
        assert jcs_text(args) == text
        the_suite = suite(task("a", [{"tool": "t", "args": args}], [{"tool": "t"}]))
        called = payloads(replay(the_suite), "agent.tool-called")[0]
        assert called["argsHash"] == hashlib.sha256(text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------------------------
# R23-R26: the scripted agent and golden


def outcome_of(script: list[dict[str, Any]], entries: list[dict[str, Any]]) -> tuple[str, str]:
    result = replay(suite(task("p", script, entries)), events=False)
    trial = result.tasks[0].trials[0]
    return trial.decision.outcome, trial.trajectory


FAIL = {"tool": "t", "isError": True}


def test_policies_retry_zero_nested_then_and_escalate() -> None:
    """R23: ``{"retry": 0}`` makes no call and aborts; ``then`` nests (retry, then fallback,
    then escalate); escalation's outcome is ``escalated`` whether or not the hand-off call
    itself fails (the agent handed off; the SPEC ties the outcome to the policy)."""
    assert outcome_of([{"tool": "t", "onError": {"retry": 0}}], [FAIL]) == ("failed", "t!")
    skip = {"retry": 0, "then": "skip"}
    assert outcome_of([{"tool": "t", "onError": skip}], [FAIL]) == ("completed", "t!")
    nested = {"retry": 1, "then": {"fallback": {"tool": "f"}, "then": {"escalate": {"tool": "h"}}}}
    entries = [FAIL, FAIL, {"tool": "f", "isError": True}, {"tool": "h", "isError": True}]
    assert outcome_of([{"tool": "t", "onError": nested}], entries) == (
        "escalated",
        "t! > t! > f! > h!",
    )
    escalate = {"escalate": {"tool": "h"}}
    assert outcome_of([{"tool": "t", "onError": escalate}], [FAIL, {"tool": "h"}]) == (
        "escalated",
        "t! > h",
    )


def test_choose_weights_are_normalised_and_draws_are_seeded() -> None:
    """R23: ``choose`` weights that do not sum to 1 are normalised (3:1 picks like 0.75:0.25),
    the draw depends on seed, task, trial and step, and reruns repeat it."""
    policy = {"choose": [{"p": 3, "policy": "skip"}, {"p": 1, "policy": "abort"}]}
    the_suite = suite(task("c", [{"tool": "t", "onError": policy}], [FAIL], trials=40))
    outcomes = [t.decision.outcome for t in replay(the_suite, seed=5).tasks[0].trials]
    expected = [
        "completed" if seeded_draw(5, "c", trial, 0) < 0.75 else "failed" for trial in range(40)
    ]
    assert outcomes == expected
    assert "completed" in outcomes and "failed" in outcomes
    assert outcomes == [t.decision.outcome for t in replay(the_suite, seed=5).tasks[0].trials]


@pytest.mark.parametrize(
    ("policy", "where"),
    [
        ({"retry": 1, "fallback": {"tool": "f"}}, "onError"),
        ({"escalate": {"tool": "h"}, "choose": [{"p": 1, "policy": "skip"}]}, "onError"),
        ({"retry": 1, "thne": "skip"}, "onError.thne"),
        ({"escalate": {"tool": "h"}, "then": "skip"}, "onError.then"),
    ],
)
def test_a_policy_object_that_says_two_things_is_a_script_error(policy: Any, where: str) -> None:
    """R23: a policy is one of the listed forms; an object mixing two kinds, or carrying a
    member its kind does not have, is refused by field rather than half-ignored."""
    the_suite = suite(task("p", [{"tool": "t", "onError": policy}], [FAIL]))
    with pytest.raises(ScriptError, match=re.escape(f"tasks[0].input.script[0].{where}")):
        replay(the_suite)


def test_decision_output_is_outcome_and_answer() -> None:
    """R24: the graded output is ``{"outcome", "answer"}``; a hand-written agent's plain
    return value is the answer of a ``completed`` run."""

    class Plain:
        def run(self, task_input: Any, tools: Any) -> Any:
            return {"total": 3}

    the_suite = suite(
        task("a", [], [], expected=golden({"outcome": "completed", "answer": {"total": 3.0}}))
    )
    result = replay(the_suite, Plain())
    assert result.tasks[0].trials[0].decision.output() == {
        "outcome": "completed",
        "answer": {"total": 3},
    }
    assert result.passed
    assert ScriptedAgent().run({"script": [], "answer": "x"}, host([])).output() == {
        "outcome": "completed",
        "answer": "x",
    }


@pytest.mark.parametrize(
    ("answer", "strategy", "value", "passes"),
    [
        ("active", "exact", "active", False),  # the output is the decision object
        ("active", "contains", "active", True),
        ("active", "exact", {"answer": "active", "outcome": "completed"}, True),
        ({"a": [1, 2]}, "json-match", {"outcome": "completed", "answer": {"a": [1.0, 2]}}, True),
        ({"a": [1, 2]}, "json-match", {"outcome": "completed", "answer": {"a": [2, 1]}}, False),
        ({"a": 1}, "contains", '"a":1', True),
        ("x", "json-match", '{"answer":"x","outcome":"completed"}', False),
    ],
)
def test_golden_on_string_and_object_answers(
    answer: Any, strategy: str, value: Any, passes: bool
) -> None:
    """R26/R24: golden strategies apply to the output ``{"outcome", "answer"}``, stringified as
    canonical JSON for ``exact``/``contains``; ``json-match`` is deep equality (a string value
    is a string, not parsed)."""
    the_suite = suite(task("g", [], [], expected=golden(value, strategy)))
    the_suite["tasks"][0]["input"]["answer"] = answer
    assert replay(the_suite).tasks[0].trials[0].golden_passed is passes


# --------------------------------------------------------------------------------------------
# R27-R29: trajectory, trials, summary


def test_trajectory_uses_maximum_matching_and_counts_failed_calls() -> None:
    """R27: failed calls are calls; where a greedy pairing would take the wrong actual call,
    a maximum matching still fits every expected call (superset) / every actual call
    (subset)."""
    entries: list[dict[str, Any]] = [{"tool": "t", "isError": True}, {"tool": "t"}]
    script: list[dict[str, Any]] = [
        {"tool": "t", "args": {"a": 1, "b": 2}, "onError": {"retry": 1}}
    ]
    retry = {"tool": "t", "args": {"a": 1, "b": 2}}
    expected_two = [{"tool": "t", "args": {"a": 1}}, {"tool": "t", "args": {"a": 1, "b": 2}}]
    for match, passes in (
        ("superset", True),
        ("subset", True),
        ("unordered", True),
        ("strict", True),
    ):
        trajectory = {"expected": expected_two, "match": match, "argsMatch": "subset"}
        the_suite = suite(task("m", script, entries, trajectory=trajectory))
        assert replay(the_suite).tasks[0].trials[0].trajectory_passed is passes, match
    one = {"expected": [retry], "match": "strict"}
    the_suite = suite(task("m", script, entries, trajectory=one))
    assert replay(the_suite).tasks[0].trials[0].trajectory_passed is False  # two calls made


def test_pass_k_keys_thresholds_and_aggregate() -> None:
    """R28: pass@k / pass^k keyed "1".."n"; without thresholds a task passes when all its
    trials pass; with ``passScore`` when its score reaches it; ``aggregateScore`` is the mean
    task score; the summary's ``passed`` follows ``passScore``."""
    policy = {"choose": [{"p": 1, "policy": "skip"}, {"p": 1, "policy": "abort"}]}
    flaky = task("flaky", [{"tool": "t", "onError": policy}], [FAIL], trials=4)
    steady = task("steady", [{"tool": "t"}], [{"tool": "t"}], trials=4)
    the_suite = suite(flaky, steady)
    result = replay(the_suite, seed=3)
    stats = result.tasks[0].stats
    assert list(stats.pass_at_k) == ["1", "2", "3", "4"] == list(stats.pass_hat_k)
    assert 0 < stats.passed < 4 and not result.tasks[0].passed and result.tasks[1].passed
    mean = (stats.passed / 4 + 1.0) / 2
    assert result.summary["aggregateScore"] == pytest.approx(mean)
    assert not result.passed
    the_suite["thresholds"] = {"passScore": stats.passed / 4}
    with_bar = replay(the_suite, seed=3)
    assert with_bar.tasks[0].passed and with_bar.passed
    the_suite["thresholds"] = {"passScore": 1.0}
    assert not replay(the_suite, seed=3).passed


def test_a_task_with_an_unhandled_miss_cannot_pass_even_under_thresholds() -> None:
    """R16 over R28: a miss handled as a failure means the task cannot pass, even when a
    ``passScore`` below 1 (or 0) would pass it on its score."""
    the_suite = suite(
        task("m", [{"tool": "t", "onError": "skip"}], []), thresholds={"passScore": 0}
    )
    result = replay(the_suite)
    assert result.tasks[0].score == 0 and not result.tasks[0].passed
    assert result.summary["tasks"][0]["passed"] is False
    scored = payloads(result, "eval.scored")[0]
    assert scored["passed"] is False


def test_summary_is_valid_extended_and_official_with_extensions_dropped() -> None:
    """R29: with thresholds and many tasks, the summary validates against the extension
    schema, and against the official ``eval-summary.schema.json`` once ``fixtureMissCount``
    and the per-task ``fixtureMissCount``/``trials`` are dropped."""
    tasks = [
        task(
            f"t-{n}", [{"tool": "t", "onError": "skip"}], [FAIL] if n % 3 else [], trials=1 + n % 4
        )
        for n in range(12)
    ]
    the_suite = suite(*tasks, thresholds={"passScore": 0.5, "maxCostUsd": 1})
    summary = replay(the_suite).summary
    assert validate_summary(summary) == []
    assert summary["taskCount"] == 12 and summary["fixtureMissCount"] > 0
    trimmed = {k: v for k, v in summary.items() if k != "fixtureMissCount"}
    trimmed["tasks"] = [
        {k: v for k, v in entry.items() if k not in ("fixtureMissCount", "trials")}
        for entry in summary["tasks"]
    ]
    jsonschema.Draft202012Validator(official("eval-summary.schema.json")).validate(trimmed)
    for entry in summary["tasks"]:
        n = entry["trials"]["n"]
        assert list(entry["trials"]["passAtK"]) == [str(k) for k in range(1, n + 1)]


# --------------------------------------------------------------------------------------------
# R32-R33: variants and branch trees


def variant_base() -> dict[str, Any]:
    script: list[dict[str, Any]] = [
        {"tool": "t", "args": {"i": 0}, "onError": {"retry": 4}},
        {"tool": "u"},
    ]
    entries: list[dict[str, Any]] = [
        {"tool": "t", "args": {"i": 0}, "response": "recorded"},
        {"tool": "u"},
    ]
    return suite(task("v", script, entries), task("w", [{"tool": "u"}], [{"tool": "u"}]))


def test_fault_kinds_serve_exactly_as_specified() -> None:
    """R32: ``hard`` = the entry fails and 3 more ``isError`` copies follow (count
    configurable); ``transient`` = fails once, then the recorded response; ``flip`` =
    ``isError: true`` on that entry, its recorded payload served as the failure."""

    def served(variant: Suite) -> list[tuple[bool, str]]:
        calls = replay(variant).tasks[0].trials[0].calls
        return [(c.is_error, c.result.text) for c in calls if c.tool == "t"]

    down = '{"error":"upstream_down"}'
    hard = inject(variant_base(), [Fault("v", 0, "hard")])
    assert served(hard) == [(True, down)] * 4 + [
        (True, "no fixture entry matches this call to 't'")
    ]
    hard_one = inject(variant_base(), [Fault("v", 0, "hard")], hard_repeats=1)
    assert [e.get("isError") for e in hard_one.data["tasks"][0]["fixtures"]["toolResponses"]] == [
        True,
        True,
        None,
    ]
    transient = inject(variant_base(), [Fault("v", 0, "transient")])
    assert served(transient) == [(True, down), (False, "recorded")]
    flip = inject(variant_base(), [Fault("v", 0, "flip")])
    assert served(flip)[0] == (True, "recorded")


def test_variants_are_valid_suites_that_replay_alone(tmp_path: Path) -> None:
    """R32: each variant is a valid suite holding only the task it changes (named
    ``<taskId>/b00-hard`` in a multi-task suite), which saves, loads and replays on its own."""
    variants = single_fault_variants(variant_base(), ("hard", "transient", "flip"))
    names = [v.name for v in variants]
    assert names[:3] == ["v/b00-hard", "v/b00-transient", "v/b00-flip"]
    assert "w/b00-flip" in names
    for number, variant in enumerate(variants):
        assert validate_suite(variant.suite.data) == []
        assert [t["taskId"] for t in variant.suite.tasks] == [variant.task_id]
        path = variant.suite.save(tmp_path / f"{number}.json")
        result = replay(Suite.load(path))
        assert [t.task_id for t in result.tasks] == [variant.task_id]


def test_branch_tree_counts_add_up() -> None:
    """R33: the root counts every variant-trial once; a node's children count its trials
    minus those ending there (passes likewise); the baseline is one path."""
    promotion = promote(load_runs(BILLING).runs)
    result = sweep(promotion.suite, faults="single", kinds=("hard", "flip"), trials=2)
    tree = branch_tree(result)
    root = tree[tree["parent"].isna()].iloc[0]
    assert root["count"] == len(result.variants) * 2
    for _, node in tree.iterrows():
        children = tree[tree["parent"] == node["node"]]
        assert children["count"].sum() == node["count"] - node["endCount"]
        assert children["passedCount"].sum() == node["passedCount"] - node["endPassed"]
    baseline = tree[tree["onBaseline"]]
    assert (baseline.groupby("depth").size() == 1).all()
