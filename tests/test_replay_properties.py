"""Properties of replay over random suites and scripts (Hypothesis).

SPEC R12-R16, R19-R22 and RFC 0245 section B (its negative-behaviour example: a served error
is never emitted with ``outcome``), checked against an independent model of matching and
consumption written here, not taken from the host.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench import ReplayResult, replay
from workbench._replay.events import events_to_jsonl

TOOLS = ["a", "b", "c"]
ARGS: list[dict[str, Any]] = [{}, {"k": 0}, {"k": 1}, {"k": 1, "j": [1, 2]}]

SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

entries_st = st.lists(
    st.fixed_dictionaries(
        {"tool": st.sampled_from(TOOLS)},
        optional={
            "args": st.sampled_from(ARGS),
            "argsMatch": st.sampled_from(["exact", "subset", "any"]),
            "isError": st.booleans(),
        },
    ).map(
        lambda e: {
            **e,
            "response": {"content": [{"type": "text", "text": f"r-{e['tool']}"}]},
        }
    ),
    max_size=8,
)

leaf_policy_st = st.sampled_from(["abort", "skip"])
policy_st = st.one_of(
    leaf_policy_st,
    st.builds(lambda n: {"retry": n}, st.integers(0, 3)),
    st.builds(lambda n, t: {"retry": n, "then": t}, st.integers(0, 2), leaf_policy_st),
    st.builds(
        lambda tool, t: {"fallback": {"tool": tool}, "then": t},
        st.sampled_from(TOOLS),
        leaf_policy_st,
    ),
    st.builds(lambda tool: {"escalate": {"tool": tool}}, st.sampled_from(TOOLS)),
    st.builds(
        lambda p, x, y: {"choose": [{"p": p, "policy": x}, {"p": 1 - p, "policy": y}]},
        st.sampled_from([0.25, 0.5, 0.75]),
        leaf_policy_st,
        leaf_policy_st,
    ),
)
step_st = st.fixed_dictionaries(
    {"tool": st.sampled_from(TOOLS)},
    optional={"args": st.sampled_from(ARGS), "onError": policy_st},
)


@st.composite
def suites(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, str]]:
    n_tasks = draw(st.integers(1, 3))
    tasks = []
    for index in range(n_tasks):
        fixtures: dict[str, Any] = {"toolResponses": draw(entries_st)}
        on_miss = draw(st.sampled_from([None, "fail", "live"]))
        if on_miss is not None:
            fixtures["onMiss"] = on_miss
        tasks.append(
            {
                "taskId": f"t{index}",
                "input": {"script": draw(st.lists(step_st, min_size=1, max_size=6)), "answer": 1},
                "expected": {
                    "kind": "golden",
                    "match": {"strategy": "contains", "value": "completed"},
                },
                "fixtures": fixtures,
                "trials": draw(st.integers(1, 3)),
            }
        )
    suite: dict[str, Any] = {
        "suiteId": "local.prop.evals.s",
        "version": "1.0.0",
        "modes": ["golden"],
        "tasks": tasks,
    }
    live = draw(st.sets(st.sampled_from(TOOLS)))
    return suite, {tool: tool for tool in live}


class LiveCounters:
    """Live tools that count invocations (RFC 0244 G2's effect counter)."""

    def __init__(self, names: dict[str, str]) -> None:
        self.counts = dict.fromkeys(names, 0)

    def tools(self) -> dict[str, Any]:
        def make(name: str) -> Any:
            def live(args: Any) -> Any:
                self.counts[name] += 1
                return {"content": [{"type": "text", "text": f"live-{name}"}]}

            return live

        return {name: make(name) for name in self.counts}


def model_match(entry: dict[str, Any], tool: str, args: Any) -> bool:
    """R12, written independently: tool equal; args by the entry's mode (ints only here)."""
    if entry["tool"] != tool:
        return False
    if "args" not in entry:
        return True
    mode = entry.get("argsMatch", "exact")
    if mode == "any":
        return True
    if mode == "exact":
        return json.dumps(entry["args"], sort_keys=True) == json.dumps(args, sort_keys=True)
    return isinstance(args, dict) and all(
        k in args and json.dumps(v, sort_keys=True) == json.dumps(args[k], sort_keys=True)
        for k, v in entry["args"].items()
    )


def model_serve(entries: list[dict[str, Any]], calls: list[tuple[str, Any]]) -> list[int | None]:
    """R13, written independently: the first unconsumed matching entry in array order."""
    consumed = [False] * len(entries)
    served: list[int | None] = []
    for tool, args in calls:
        for index, entry in enumerate(entries):
            if not consumed[index] and model_match(entry, tool, args):
                consumed[index] = True
                served.append(index)
                break
        else:
            served.append(None)
    return served


def run(case: tuple[dict[str, Any], dict[str, str]], seed: int) -> tuple[ReplayResult, Any]:
    suite, live_names = case
    counters = LiveCounters(live_names)
    return replay(suite, seed=seed, live_tools=counters.tools()), counters


@SETTINGS
@given(suites(), st.integers(0, 3))
def test_every_call_gets_exactly_one_return_and_error_xor_outcome(
    case: tuple[dict[str, Any], dict[str, str]], seed: int
) -> None:
    """R19/R20: per call one ``agent.tool-called`` immediately followed by its one
    ``agent.tool-returned`` (same callId); every return carries ``error`` xor ``outcome``, and
    ``error`` exactly when the agent received a failure."""
    result, _ = run(case, seed)
    records = {c.call_id: c for t in result.tasks for r in t.trials for c in r.calls}
    called = [e for e in result.events if e["type"] == "agent.tool-called"]
    returned = [e for e in result.events if e["type"] == "agent.tool-returned"]
    assert len(called) == len(returned) == len(records)
    assert sorted(e["payload"]["callId"] for e in returned) == sorted(records)
    for event in called:
        following = result.events[event["sequence"] + 1]
        assert following["type"] == "agent.tool-returned"
        assert following["payload"]["callId"] == event["payload"]["callId"]
    for event in returned:
        payload = event["payload"]
        assert ("error" in payload) != ("outcome" in payload)
        assert ("error" in payload) is records[payload["callId"]].is_error


@SETTINGS
@given(suites(), st.integers(0, 3))
def test_serving_follows_an_independent_model_and_misses_are_counted_exactly(
    case: tuple[dict[str, Any], dict[str, str]], seed: int
) -> None:
    """R12/R13/R16: each call is served by the entry an independent model of matching and
    consumption picks; the misses (calls the model serves nothing) are counted exactly per
    trial, per task and in the summary."""
    suite, _ = case
    result, _ = run(case, seed)
    total = 0
    for task, task_result in zip(suite["tasks"], result.tasks, strict=True):
        entries = task["fixtures"]["toolResponses"]
        task_misses = 0
        for trial in task_result.trials:
            served = model_serve(entries, [(c.tool, c.args) for c in trial.calls])
            assert [c.entry for c in trial.calls] == served
            misses = served.count(None)
            assert trial.fixture_misses == misses
            assert [c.served_by != "fixture" for c in trial.calls] == [s is None for s in served]
            task_misses += misses
        summary_task = next(t for t in result.summary["tasks"] if t["taskId"] == task["taskId"])
        assert summary_task["fixtureMissCount"] == task_misses
        total += task_misses
    assert result.summary["fixtureMissCount"] == total == result.fixture_miss_count


@SETTINGS
@given(suites(), st.integers(0, 3))
def test_an_error_entry_is_never_served_as_success(
    case: tuple[dict[str, Any], dict[str, str]], seed: int
) -> None:
    """R14/R15, RFC 0245 B and its negative-behaviour example: a served ``isError`` entry
    reaches the agent as a failure and its ``agent.tool-returned`` has ``error`` and never
    ``outcome`` (``status: "error"``); a served success entry is a success."""
    suite, _ = case
    result, _ = run(case, seed)
    returned = {
        e["payload"]["callId"]: e["payload"]
        for e in result.events
        if e["type"] == "agent.tool-returned"
    }
    for task, task_result in zip(suite["tasks"], result.tasks, strict=True):
        entries = task["fixtures"]["toolResponses"]
        for trial in task_result.trials:
            for call in trial.calls:
                if call.served_by != "fixture":
                    continue
                assert call.entry is not None
                flagged = entries[call.entry].get("isError") is True
                assert call.is_error is flagged
                payload = returned[call.call_id]
                if flagged:
                    assert "outcome" not in payload and payload["status"] == "error"
                    assert payload["error"]["code"] and payload["error"]["message"]
                    assert call.error == f"r-{call.tool}"


@SETTINGS
@given(suites(), st.integers(0, 3))
def test_live_tools_run_only_for_misses_under_onmiss_live(
    case: tuple[dict[str, Any], dict[str, str]], seed: int
) -> None:
    """R15/R16: the live counter never moves for a served entry (error or success); it moves
    exactly once per miss under ``onMiss: "live"`` with that tool registered, and never under
    ``onMiss: "fail"``."""
    suite, live_names = case
    result, counters = run(case, seed)
    expected = dict.fromkeys(live_names, 0)
    for task, task_result in zip(suite["tasks"], result.tasks, strict=True):
        live_task = task["fixtures"].get("onMiss") == "live"
        for trial in task_result.trials:
            for call in trial.calls:
                is_live = live_task and call.entry is None and call.tool in live_names
                assert (call.served_by == "live") is is_live
                if is_live:
                    expected[call.tool] += 1
    assert counters.counts == expected


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(suites(), st.integers(0, 3))
def test_replay_is_deterministic(case: tuple[dict[str, Any], dict[str, str]], seed: int) -> None:
    """R22: the same suite, agent and seed give byte-identical event logs and summaries."""
    first, _ = run(case, seed)
    second, _ = run(case, seed)
    assert events_to_jsonl(first.events) == events_to_jsonl(second.events)
    assert json.dumps(first.summary, sort_keys=True) == json.dumps(second.summary, sort_keys=True)
