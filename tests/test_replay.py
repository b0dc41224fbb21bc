"""Replaying suites: RFC 0245's examples, refusal, grading through replay, promotion self-test.

Pins SPEC R10/R11, R26-R30 and the four examples of RFC 0245 (positive, negative capability,
negative schema; the negative-behaviour example is proved over random suites in
``test_replay_properties.py`` and per content shape in ``test_host.py``).
"""

from __future__ import annotations

import copy
import json
from math import comb
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from helpers.paths import BILLING, OFFICIAL, TAU_BENCH
from helpers.suites import golden
from workbench import (
    HostProfile,
    HostRefusal,
    ScriptedAgent,
    Suite,
    load_runs,
    promote,
    replay,
    validate_suite,
    validate_summary,
)
from workbench._promote.selftest import run_self_test
from workbench._replay.policies import seeded_draw
from workbench._suite.model import task_tool_responses

OFFICIAL_SUMMARY = OFFICIAL / "eval-summary.schema.json"
TAU_BENCH_FILES = sorted(TAU_BENCH.glob("tau-bench-airline-*.json"))  # (not the crashed run)
SUITE_ID = "local.test.evals.replay"

UPSTREAM_DOWN = {"content": [{"type": "text", "text": '{"error":"upstream_down"}'}]}
PLAN = {"content": [{"type": "text", "text": '{"plan":"team","status":"active"}'}]}


def rfc_0245_suite() -> dict[str, Any]:
    """RFC 0245's positive example: ``billing:lookup`` fails (upstream_down), then succeeds."""
    return {
        "suiteId": SUITE_ID,
        "version": "1.0.0",
        "modes": ["golden"],
        "tasks": [
            {
                "taskId": "fixture-error",
                "input": {
                    "script": [
                        {"tool": "billing:lookup", "args": {"id": "c-1"}, "onError": {"retry": 1}}
                    ],
                    "answer": "active",
                },
                "expected": golden({"outcome": "completed", "answer": "active"}),
                "fixtures": {
                    "toolResponses": [
                        {
                            "tool": "billing:lookup",
                            "args": {"id": "c-1"},
                            "argsMatch": "exact",
                            "isError": True,
                            "response": UPSTREAM_DOWN,
                        },
                        {"tool": "billing:lookup", "args": {"id": "c-1"}, "response": PLAN},
                    ]
                },
            }
        ],
    }


def tool_events(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e["payload"] for e in events if e["type"] == f"agent.tool-{kind}"]


# --------------------------------------------------------------------------------------------
# RFC 0245 examples


def test_rfc_0245_positive_error_then_success() -> None:
    """RFC 0245 Examples, positive (section B, SPEC R15/R20): two ``agent.tool-called``, two
    ``agent.tool-returned``; the first with ``error`` (non-empty code and message), no
    ``outcome`` and ``status: "error"``; the second with ``outcome``; fixtureMissCount 0."""
    result = replay(rfc_0245_suite())
    called, returned = tool_events(result.events, "called"), tool_events(result.events, "returned")
    assert len(called) == 2 and len(returned) == 2
    assert [c["callId"] for c in called] == [r["callId"] for r in returned]
    first, second = returned
    assert first["error"]["code"] and first["error"]["message"]
    assert "outcome" not in first
    assert first["status"] == "error"
    assert "outcome" in second and "error" not in second
    assert second["status"] == "ok"
    assert result.summary["fixtureMissCount"] == 0
    assert result.summary["tasks"][0]["fixtureMissCount"] == 0
    assert result.tasks[0].trials[0].trajectory == "billing:lookup! > billing:lookup"
    assert result.passed


def test_rfc_0245_error_message_is_short_and_fixed() -> None:
    """RFC 0245 section D / R20: the served error's message is fixed, never the payload."""
    result = replay(rfc_0245_suite())
    first = tool_events(result.events, "returned")[0]
    assert "upstream_down" not in json.dumps(result.events)
    assert first["error"] == {
        "code": "workbench.tool_error",
        "message": "fixture served a recorded tool error",
    }


class SpyAgent:
    """An agent that counts its runs and calls (to prove nothing ran)."""

    agent_id = "test.spy"

    def __init__(self) -> None:
        self.runs = 0

    def run(self, task_input: Any, tools: Any) -> Any:
        self.runs += 1
        tools.call("billing:lookup", {"id": "c-1"})
        return {"outcome": "completed", "answer": "active"}


NO_FIXTURE_ERRORS = HostProfile(name="narrow", fixture_errors=False)


def test_rfc_0245_negative_capability_refused_before_anything_runs() -> None:
    """RFC 0245 Examples, negative capability (section C, SPEC R11): the same suite on a host
    without ``fixtureErrors`` is refused with the 400 ``validation_error`` body naming
    ``tasks[0].fixtures.toolResponses[0].isError``, before any agent call or trial."""
    spy = SpyAgent()
    trials: list[Any] = []
    live_calls: list[Any] = []
    with pytest.raises(HostRefusal) as caught:
        replay(
            rfc_0245_suite(),
            spy,
            host_profile=NO_FIXTURE_ERRORS,
            on_trial=trials.append,
            live_tools={"billing:lookup": lambda args: live_calls.append(args)},
        )
    refusal = caught.value
    assert refusal.status == 400
    assert refusal.field == "tasks[0].fixtures.toolResponses[0].isError"
    body = refusal.body
    assert set(body) == {"error", "message", "details"}
    assert body["error"] == "validation_error"
    assert isinstance(body["message"], str) and "fixtureErrors" in body["message"]
    assert body["details"] == {"field": "tasks[0].fixtures.toolResponses[0].isError"}
    assert spy.runs == 0 and trials == [] and live_calls == []


def test_negative_capability_from_a_json_profile() -> None:
    """R10/R11: a profile read from its JSON form that advertises ``evalSuite`` without
    ``fixtureErrors`` refuses the suite the same way; the workbench's own profile runs it."""
    profile = HostProfile.from_json(
        {"agents": {"evalSuite": {"modes": ["golden"], "fixtureMatching": True}}}
    )
    with pytest.raises(HostRefusal) as caught:
        replay(rfc_0245_suite(), host_profile=profile)
    assert caught.value.field == "tasks[0].fixtures.toolResponses[0].isError"
    assert replay(rfc_0245_suite(), host_profile=HostProfile.workbench()).passed


def test_isError_false_entries_need_no_capability() -> None:
    """R11: only ``isError: true`` needs ``fixtureErrors``; a suite without it runs there."""
    suite = rfc_0245_suite()
    entries = suite["tasks"][0]["fixtures"]["toolResponses"]
    entries[0]["isError"] = False
    result = replay(suite, host_profile=NO_FIXTURE_ERRORS)
    assert tool_events(result.events, "returned")[0].get("outcome") is not None


@pytest.mark.parametrize(
    ("profile", "mutate", "field"),
    [
        (
            HostProfile(fixture_matching=False),
            lambda s: None,
            "tasks[0].fixtures.toolResponses[0].args",
        ),
        (HostProfile(trials=False), lambda s: s["tasks"][0].update(trials=2), "tasks[0].trials"),
        (HostProfile(trials=False), lambda s: s.update(trials=2), "trials"),
        (
            HostProfile(trajectory=False),
            lambda s: s["tasks"][0].update(
                trajectory={"expected": [{"tool": "billing:lookup"}], "match": "superset"}
            ),
            "tasks[0].trajectory",
        ),
        (HostProfile(modes=("rubric",)), lambda s: None, "modes[0]"),
    ],
)
def test_each_unadvertised_member_is_refused_by_field(
    profile: HostProfile, mutate: Any, field: str
) -> None:
    """R11: ``args``/``argsMatch`` need fixtureMatching, ``trials`` needs trials,
    ``trajectory`` needs trajectory, a mode needs advertising; the first offending field is
    named."""
    suite = rfc_0245_suite()
    mutate(suite)
    with pytest.raises(HostRefusal) as caught:
        replay(suite, host_profile=profile)
    assert caught.value.body["details"] == {"field": field}


def test_rfc_0245_negative_schema_string_iserror() -> None:
    """RFC 0245 Examples, negative schema (section A, SPEC R5): ``isError: "true"`` fails the
    type, and the host refuses the suite naming that field rather than serving it."""
    suite = rfc_0245_suite()
    suite["tasks"][0]["fixtures"]["toolResponses"][0]["isError"] = "true"
    problems = validate_suite(suite)
    assert [p.path for p in problems] == ["tasks[0].fixtures.toolResponses[0].isError"]
    spy = SpyAgent()
    with pytest.raises(HostRefusal) as caught:
        replay(suite, spy)
    assert caught.value.body["error"] == "validation_error"
    assert caught.value.field == "tasks[0].fixtures.toolResponses[0].isError"
    assert spy.runs == 0


def test_rfc_0245_suite_with_iserror_validates() -> None:
    """RFC 0245 Conformance, server-free leg: a suite with ``isError: true`` validates against
    the extension schema; the official schema (item ``additionalProperties: false``) refuses
    the unknown member (R9)."""
    suite = rfc_0245_suite()
    assert validate_suite(suite) == []
    official = validate_suite(suite, official=True)
    assert any(p.path.startswith("tasks[0].fixtures.toolResponses[0]") for p in official)


# --------------------------------------------------------------------------------------------
# R26: golden strategies through replay


@pytest.mark.parametrize(
    ("strategy", "value", "passes"),
    [
        ("exact", {"answer": "active", "outcome": "completed"}, True),
        ("exact", '{"answer":"active","outcome":"completed"}', True),
        ("exact", {"answer": "Active", "outcome": "completed"}, False),
        ("contains", "active", True),
        ("contains", '"outcome":"completed"', True),
        ("contains", "escalated", False),
        ("json-match", {"outcome": "completed", "answer": "active"}, True),
        ("json-match", {"outcome": "completed", "answer": "other"}, False),
        ("json-match", {"outcome": "completed"}, False),
    ],
)
def test_golden_strategies_grade_the_agent_output(strategy: str, value: Any, passes: bool) -> None:
    """R26/R24: golden ``exact`` / ``contains`` / ``json-match`` on the agent's output
    ``{"outcome", "answer"}``."""
    suite = rfc_0245_suite()
    suite["tasks"][0]["expected"] = golden(value, strategy)
    result = replay(suite)
    assert result.tasks[0].trials[0].golden_passed is passes
    assert result.passed is passes


def test_failed_outcome_does_not_meet_a_completed_golden() -> None:
    """R24: an aborted script decides ``failed`` and fails a ``completed`` expectation."""
    suite = rfc_0245_suite()
    suite["tasks"][0]["input"]["script"][0]["onError"] = "abort"
    result = replay(suite)
    trial = result.tasks[0].trials[0]
    assert trial.decision.outcome == "failed"
    assert trial.golden_passed is False and not result.passed


# --------------------------------------------------------------------------------------------
# R27: trajectory modes through replay

ACTUAL = [("a", {"n": 1}), ("b", {}), ("a", {"n": 2})]


def trajectory_suite(expected: list[dict[str, Any]], match: str, **extra: Any) -> dict[str, Any]:
    script = [{"tool": tool, "args": args} for tool, args in ACTUAL]
    return {
        "suiteId": SUITE_ID,
        "version": "1.0.0",
        "modes": ["golden"],
        "tasks": [
            {
                "taskId": "traj",
                "input": {"script": script},
                "expected": golden({"outcome": "completed", "answer": None}),
                "fixtures": {"toolResponses": [{"tool": "a"}, {"tool": "b"}, {"tool": "a"}]},
                "trajectory": {"expected": expected, "match": match, **extra},
            }
        ],
    }


A1, A2, B = {"tool": "a", "args": {"n": 1}}, {"tool": "a", "args": {"n": 2}}, {"tool": "b"}


@pytest.mark.parametrize(
    ("expected", "match", "extra", "passes"),
    [
        ([A1, {"tool": "b", "args": {}}, A2], "strict", {}, True),
        ([A2, {"tool": "b", "args": {}}, A1], "strict", {}, False),
        ([A2, {"tool": "b", "args": {}}, A1], "unordered", {}, True),
        ([A1, A2], "unordered", {}, False),
        ([A1, A2], "superset", {}, True),
        ([A1, A1], "superset", {}, False),  # each actual call matched at most once
        ([A1, {"tool": "b", "args": {}}, A2, {"tool": "c"}], "subset", {}, True),
        ([A1, A2], "subset", {}, False),
        ([{"tool": "a"}, {"tool": "a"}, B], "unordered", {"argsMatch": "any"}, True),
        ([{"tool": "a", "args": {}}], "superset", {"argsMatch": "subset"}, True),
    ],
)
def test_trajectory_modes_through_replay(
    expected: list[dict[str, Any]], match: str, extra: dict[str, Any], passes: bool
) -> None:
    """R27: strict / unordered / subset / superset over every ``agent.tool-called``, with the
    trajectory's ``argsMatch``; the trajectory verdict decides the trial."""
    result = replay(trajectory_suite(expected, match, **extra))
    trial = result.tasks[0].trials[0]
    assert trial.golden_passed is True
    assert trial.trajectory_passed is passes
    assert trial.passed is passes


def test_failed_calls_count_in_the_trajectory() -> None:
    """R27 / RFC 0245 B: a call answered with an error is still a call."""
    suite = rfc_0245_suite()
    suite["tasks"][0]["trajectory"] = {
        "expected": [{"tool": "billing:lookup", "args": {"id": "c-1"}}] * 2,
        "match": "strict",
    }
    assert replay(suite).tasks[0].trials[0].trajectory_passed is True


# --------------------------------------------------------------------------------------------
# R23 choose + R28 trials, pass@k, pass^k, thresholds; R29 summary


def choose_suite(thresholds: dict[str, Any] | None = None) -> dict[str, Any]:
    """A task whose only call fails; the agent skips (passes) with p 0.75, aborts with 0.25."""
    suite: dict[str, Any] = {
        "suiteId": SUITE_ID,
        "version": "1.0.0",
        "modes": ["golden"],
        "tasks": [
            {
                "taskId": "coin",
                "input": {
                    "script": [
                        {
                            "tool": "x",
                            "onError": {
                                "choose": [
                                    {"p": 0.75, "policy": "skip"},
                                    {"p": 0.25, "policy": "abort"},
                                ]
                            },
                        }
                    ],
                    "answer": 1,
                },
                "expected": golden({"outcome": "completed", "answer": 1}),
                "fixtures": {"toolResponses": [{"tool": "x", "isError": True}]},
                "trials": 4,
            }
        ],
    }
    if thresholds is not None:
        suite["thresholds"] = thresholds
    return suite


def expected_passes(seed: int, task_id: str = "coin", n: int = 4) -> list[bool]:
    """Which trials skip, computed from the seeded draw independently of the agent (R23)."""
    return [seeded_draw(seed, task_id, trial, 0, 0) * 1.0 < 0.75 for trial in range(n)]


def seed_with_three_of_four() -> int:
    for seed in range(200):
        if sum(expected_passes(seed)) == 3:
            return seed
    raise AssertionError("no seed below 200 gives 3 of 4")  # pragma: no cover


def test_choose_three_of_four_gives_hand_computed_pass_at_k_and_pass_hat_k() -> None:
    """R23/R28/R29: trials of a ``choose`` policy differ as the seeded draw says; with 3 of 4
    passing: score 0.75, pass@k = 0.75, 1, 1, 1 and pass^k = 0.75, 0.5, 0.25, 0 (unbiased,
    n=4, c=3); the task does not pass (not all trials passed)."""
    seed = seed_with_three_of_four()
    result = replay(choose_suite(), seed=seed)
    task = result.tasks[0]
    assert [t.passed for t in task.trials] == expected_passes(seed)
    entry = result.summary["tasks"][0]
    assert entry["score"] == 0.75
    # Hand computed: pass@k = 1 - C(1,k)/C(4,k); pass^k = C(3,k)/C(4,k).
    assert entry["trials"] == {
        "n": 4,
        "passed": 3,
        "passAtK": {"1": 0.75, "2": 1.0, "3": 1.0, "4": 1.0},
        "passHatK": {"1": 0.75, "2": 0.5, "3": 0.25, "4": 0.0},
    }
    for k in range(1, 5):
        assert entry["trials"]["passHatK"][str(k)] == pytest.approx(comb(3, k) / comb(4, k))
    assert entry["passed"] is False
    assert result.summary["aggregateScore"] == 0.75
    assert result.summary["passed"] is False


@pytest.mark.parametrize(("pass_score", "passes"), [(0.75, True), (0.7, True), (0.8, False)])
def test_pass_score_threshold_decides(pass_score: float, passes: bool) -> None:
    """R28: with ``thresholds.passScore`` a task passes when its score reaches it, and the
    summary's ``passed`` is ``aggregateScore >= passScore`` (RFC 0081)."""
    seed = seed_with_three_of_four()
    result = replay(choose_suite({"passScore": pass_score}), seed=seed)
    assert result.summary["tasks"][0]["passed"] is passes
    assert result.summary["passed"] is passes
    assert result.summary["passedCount"] == int(passes)


def test_trials_override_and_aggregate_mean() -> None:
    """R8/R28: ``trials=`` overrides the task's count; aggregateScore is the mean task score."""
    suite = choose_suite()
    second = copy.deepcopy(suite["tasks"][0])
    second["taskId"] = "sure"
    second["fixtures"]["toolResponses"][0]["isError"] = False
    suite["tasks"].append(second)
    seed = seed_with_three_of_four()
    result = replay(suite, seed=seed, trials=4)
    scores = [t["score"] for t in result.summary["tasks"]]
    assert scores[1] == 1.0
    assert result.summary["aggregateScore"] == pytest.approx(sum(scores) / 2)
    assert [t.stats.n for t in result.tasks] == [4, 4]
    assert replay(suite, seed=seed, trials=1).tasks[0].stats.n == 1


def drop_extensions(summary: dict[str, Any]) -> dict[str, Any]:
    """The summary without the R29 extension members (and any ``x-`` member)."""
    out = {k: v for k, v in summary.items() if k != "fixtureMissCount" and not k.startswith("x-")}
    out["tasks"] = [
        {
            k: v
            for k, v in task.items()
            if k not in ("fixtureMissCount", "trials") and not k.startswith("x-")
        }
        for task in summary["tasks"]
    ]
    return out


@pytest.mark.parametrize("thresholds", [None, {"passScore": 0.5}])
def test_summary_is_valid_extended_and_official_without_extensions(
    thresholds: dict[str, Any] | None,
) -> None:
    """R29: the summary validates against the extended schema and, with the extension members
    dropped, against the official ``eval-summary.schema.json`` loaded from the file itself."""
    result = replay(choose_suite(thresholds), seed=seed_with_three_of_four())
    summary = result.summary
    assert validate_summary(summary) == []
    official_schema = json.loads(OFFICIAL_SUMMARY.read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(official_schema)
    assert [e.message for e in validator.iter_errors(drop_extensions(summary))] == []
    # The extension members are really there (so the official schema would refuse them).
    assert "fixtureMissCount" in summary and "trials" in summary["tasks"][0]
    assert list(validator.iter_errors(summary))


def test_run_completed_outputs_hold_the_summary() -> None:
    """R19/R29: ``run.completed`` carries the summary in ``outputs``."""
    result = replay(rfc_0245_suite())
    last = result.events[-1]
    assert last["type"] == "run.completed"
    assert last["payload"]["outputs"]["evalSummary"] == result.summary


def test_written_summary_round_trips(tmp_path: Path) -> None:
    """R29/R22: ``write_summary`` writes the summary as stable JSON."""
    result = replay(rfc_0245_suite())
    path = tmp_path / "summary.json"
    result.write_summary(path)
    assert json.loads(path.read_text(encoding="utf-8")) == result.summary


# --------------------------------------------------------------------------------------------
# R30: promotion self-test on every bundled recording


def recorded_calls(task: dict[str, Any]) -> list[tuple[str, Any]]:
    return [(e["tool"], e.get("args")) for e in task_tool_responses(task)]


@pytest.mark.parametrize("path", [*TAU_BENCH_FILES, BILLING], ids=lambda p: p.name)
def test_promoted_recordings_replay_their_trajectories_with_zero_misses(path: Path) -> None:
    """R30: every tau-bench record and the billing run: promote, replay, and the self-test
    reproduces each recorded call sequence exactly with zero misses; the replayed calls and
    their failure marks equal the recording's."""
    promotion = promote(load_runs(path))
    assert promotion.self_test is not None and promotion.self_test.passed
    suite = promotion.suite
    result = replay(suite)
    assert result.fixture_miss_count == 0
    assert result.passed
    for task, task_result in zip(suite.tasks, result.tasks, strict=True):
        calls = task_result.trials[0].calls
        assert [(c.tool, c.args) for c in calls] == recorded_calls(task)
        flags = [e.get("isError") is True for e in task_tool_responses(task)]
        assert [c.is_error for c in calls] == flags
        assert [c.entry for c in calls] == list(range(len(calls)))
    report = run_self_test(suite)
    assert report.passed and report.misses == 0 and report.mismatches == ()
    assert report.boundaries == sum(len(task_tool_responses(t)) for t in suite.tasks)


def test_billing_run_replays_its_recorded_upstream_down_as_a_failure() -> None:
    """R30/R15: the bundled billing run's boundary 3 (a recorded upstream_down) replays as a
    failure followed by its successful retry."""
    result = replay(promote(load_runs(BILLING)).suite)
    calls = result.tasks[0].trials[0].calls
    assert calls[3].is_error and not calls[4].is_error
    assert calls[3].tool == calls[4].tool


@pytest.mark.parametrize("path", [TAU_BENCH_FILES[0], BILLING], ids=lambda p: p.name)
def test_modified_suite_makes_the_self_test_report_the_boundary(path: Path) -> None:
    """R30: changing one entry's args makes the self-test report that boundary (the scripted
    call no longer matches, so it misses and the sequence differs there)."""
    suite = promote(load_runs(path)).suite.copy()
    task = suite.tasks[-1]
    boundary = len(task_tool_responses(task)) // 2
    entry = task["fixtures"]["toolResponses"][boundary]
    entry["args"] = {"changed": True}
    report = run_self_test(Suite.coerce(suite.data))
    assert not report.passed
    assert report.misses >= 1
    (mismatch,) = report.mismatches
    assert mismatch.task_id == task["taskId"]
    assert mismatch.index == boundary
    assert '"changed"' in mismatch.expected
    assert any(str(boundary) in line for line in report.summary_lines())


def test_self_test_of_a_refused_suite_reports_why() -> None:
    """R30/R11: a suite the host refuses cannot be self-tested; the report says why."""
    suite = rfc_0245_suite()
    suite["tasks"][0]["fixtures"]["toolResponses"][0]["isError"] = "true"
    report = run_self_test(Suite.coerce(suite))
    assert not report.passed and report.error is not None
    assert "isError" in report.error


def test_scripted_agent_is_the_default() -> None:
    """R23: with no agent given, the scripted agent runs the task's script."""
    assert replay(rfc_0245_suite()).summary == replay(rfc_0245_suite(), ScriptedAgent()).summary
