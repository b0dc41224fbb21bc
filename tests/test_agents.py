"""Agents: the scripted agent's policies, script problems, and any object as an agent (R23-R25)."""

from __future__ import annotations

import pickle
import re
from typing import Any

import pytest

import workbench._replay.agents as agents_module
from workbench import (
    Agent,
    Decision,
    ScriptedAgent,
    ScriptError,
    TrialResult,
    replay,
)
from workbench._replay.agents import as_decision
from workbench._replay.policies import script_problems, seeded_draw

SUITE_ID = "local.test.evals.agents"
OK = {"content": [{"type": "text", "text": "ok"}]}


def err(tool: str, **extra: Any) -> dict[str, Any]:
    return {"tool": tool, "isError": True, **extra}


def ok(tool: str, **extra: Any) -> dict[str, Any]:
    return {"tool": tool, "response": OK, **extra}


def suite(
    script: list[Any], entries: list[dict[str, Any]], *, trials: int = 1, answer: Any = "fine"
) -> dict[str, Any]:
    return {
        "suiteId": SUITE_ID,
        "version": "1.0.0",
        "modes": ["golden"],
        "tasks": [
            {
                "taskId": "t",
                "input": {"script": script, "answer": answer},
                "expected": {
                    "kind": "golden",
                    "match": {"strategy": "contains", "value": '"outcome":"completed"'},
                },
                "fixtures": {"toolResponses": entries},
                "trials": trials,
            }
        ],
    }


def run(script: list[Any], entries: list[dict[str, Any]], **kwargs: Any) -> TrialResult:
    agent = kwargs.pop("agent", None)
    return replay(suite(script, entries), agent, **kwargs).tasks[0].trials[0]


def path(trial: TrialResult) -> str:
    return trial.trajectory


# --------------------------------------------------------------------------------------------
# R23 policies


def test_abort_is_the_default_and_stops() -> None:
    """R23: ``abort`` (the default) stops at the failed call with outcome ``failed``."""
    trial = run([{"tool": "a"}, {"tool": "b"}], [err("a"), ok("b")])
    assert path(trial) == "a!"
    assert trial.decision.outcome == "failed" and trial.decision.answer is None
    explicit = run([{"tool": "a", "onError": "abort"}, {"tool": "b"}], [err("a"), ok("b")])
    assert path(explicit) == "a!" and explicit.decision.outcome == "failed"


def test_skip_goes_on() -> None:
    """R23: ``skip`` goes on to the next step; the script ends ``completed`` with its answer."""
    trial = run([{"tool": "a", "onError": "skip"}, {"tool": "b"}], [err("a"), ok("b")])
    assert path(trial) == "a! > b"
    assert trial.decision == Decision("completed", "fine")


@pytest.mark.parametrize(
    ("n", "failures", "expected_path", "outcome"),
    [
        (2, 1, "a! > a > b", "completed"),  # succeeds on the first retry
        (2, 2, "a! > a! > a > b", "completed"),  # succeeds on the last retry
        (2, 3, "a! > a! > a!", "failed"),  # n retries used up: abort
        (0, 1, "a!", "failed"),
    ],
)
def test_retry_n_then_abort(n: int, failures: int, expected_path: str, outcome: str) -> None:
    """R23: ``{"retry": n}`` calls again with the same args up to n times, then aborts."""
    entries = [err("a", args={"k": 1})] * failures + [ok("a", args={"k": 1}), ok("b")]
    trial = run([{"tool": "a", "args": {"k": 1}, "onError": {"retry": n}}, {"tool": "b"}], entries)
    assert path(trial) == expected_path
    assert trial.decision.outcome == outcome
    assert all(c.args == {"k": 1} for c in trial.calls if c.tool == "a")


def test_retry_then_policy() -> None:
    """R23: ``{"retry": n, "then": policy}`` applies ``then`` once the retries are used up."""
    entries = [err("a"), err("a"), ok("b")]
    trial = run([{"tool": "a", "onError": {"retry": 1, "then": "skip"}}, {"tool": "b"}], entries)
    assert path(trial) == "a! > a! > b" and trial.decision.outcome == "completed"
    escalating = {"retry": 1, "then": {"escalate": {"tool": "handoff"}}}
    trial = run([{"tool": "a", "onError": escalating}, {"tool": "b"}], [*entries, ok("handoff")])
    assert path(trial) == "a! > a! > handoff" and trial.decision.outcome == "escalated"


def test_fallback_success_goes_on() -> None:
    """R23: ``{"fallback": {"tool", "args"}}`` calls the fallback; on success the script goes
    on."""
    step = {"tool": "a", "onError": {"fallback": {"tool": "cache", "args": {"k": 2}}}}
    trial = run([step, {"tool": "b"}], [err("a"), ok("cache", args={"k": 2}), ok("b")])
    assert path(trial) == "a! > cache > b"
    assert trial.calls[1].args == {"k": 2}
    assert trial.decision.outcome == "completed"


def test_fallback_failure_without_then_aborts() -> None:
    """R23: the fallback's own failure is handled by ``then``, default abort."""
    step = {"tool": "a", "onError": {"fallback": {"tool": "cache"}}}
    trial = run([step, {"tool": "b"}], [err("a"), err("cache"), ok("b")])
    assert path(trial) == "a! > cache!" and trial.decision.outcome == "failed"


@pytest.mark.parametrize(
    ("then", "expected_path", "outcome"),
    [
        ("skip", "a! > cache! > b", "completed"),
        ({"retry": 1}, "a! > cache! > cache > b", "completed"),
        ({"escalate": {"tool": "handoff"}}, "a! > cache! > handoff", "escalated"),
    ],
)
def test_fallback_with_then(then: Any, expected_path: str, outcome: str) -> None:
    """R23: ``{"fallback": ..., "then": policy}``: ``then`` handles the fallback's failure
    (a retry of ``then`` retries the fallback call)."""
    step = {"tool": "a", "onError": {"fallback": {"tool": "cache"}, "then": then}}
    entries = [err("a"), err("cache"), ok("cache"), ok("b"), ok("handoff")]
    trial = run([step, {"tool": "b"}], entries)
    assert path(trial) == expected_path and trial.decision.outcome == outcome


@pytest.mark.parametrize("handoff", [ok("handoff", args={"to": "human"}), err("handoff")])
def test_escalate_calls_the_handoff_tool_and_escalates(handoff: dict[str, Any]) -> None:
    """R23/R24: ``{"escalate": {"tool", "args"}}`` calls the hand-off tool and the outcome is
    ``escalated`` (whatever the hand-off call returned); later steps are not made."""
    step = {"tool": "a", "onError": {"escalate": {"tool": "handoff", "args": {"to": "human"}}}}
    trial = run([step, {"tool": "b"}], [err("a"), handoff, ok("b")])
    assert [c.tool for c in trial.calls] == ["a", "handoff"]
    assert trial.calls[1].args == {"to": "human"}
    assert trial.decision.outcome == "escalated"
    assert not trial.passed  # the golden expects completed


def test_success_never_triggers_a_policy() -> None:
    """R24: the agent reads ``isError``: a successful call never runs its ``onError``."""
    step = {"tool": "a", "onError": {"escalate": {"tool": "handoff"}}}
    trial = run([step, {"tool": "b"}], [ok("a"), ok("b"), ok("handoff")])
    assert path(trial) == "a > b" and trial.decision.outcome == "completed"


CHOOSE = {
    "choose": [
        {"p": 3, "policy": "skip"},
        {"p": 1, "policy": {"escalate": {"tool": "handoff"}}},
    ]
}


def test_choose_is_seeded_trials_differ_and_reruns_reproduce() -> None:
    """R23: ``choose`` picks with a draw seeded by seed, task, trial and step: over trials the
    picks differ, a rerun with the same seed picks the same, and the pick follows the draw
    against the normalised weights (3:1)."""
    script = [{"tool": "a", "onError": CHOOSE}, {"tool": "b"}]
    entries = [err("a"), ok("b"), ok("handoff")]
    the_suite = suite(script, entries, trials=16)
    first = replay(the_suite, seed=11)
    again = replay(the_suite, seed=11)
    outcomes = [t.decision.outcome for t in first.tasks[0].trials]
    assert outcomes == [t.decision.outcome for t in again.tasks[0].trials]
    assert set(outcomes) == {"completed", "escalated"}
    expected = [
        "completed" if seeded_draw(11, "t", trial, 0, 0) < 0.75 else "escalated"
        for trial in range(16)
    ]
    assert outcomes == expected
    other = [t.decision.outcome for t in replay(the_suite, seed=12).tasks[0].trials]
    assert other == [
        "completed" if seeded_draw(12, "t", trial, 0, 0) < 0.75 else "escalated"
        for trial in range(16)
    ]


def test_nested_choose_draws_are_numbered() -> None:
    """R23: a second draw within one step uses the next draw number (not the same draw)."""
    inner = {"choose": [{"p": 1, "policy": "skip"}, {"p": 1, "policy": "abort"}]}
    policy = {"retry": 1, "then": inner}
    script = [{"tool": "a", "onError": policy}, {"tool": "b"}]
    the_suite = suite(script, [err("a"), err("a"), ok("b")], trials=8)
    result = replay(the_suite, seed=5)
    for trial in result.tasks[0].trials:
        draw = seeded_draw(5, "t", trial.trial, 0, 0)
        assert trial.decision.outcome == ("completed" if draw < 0.5 else "failed")


def test_seeded_draw_is_stable_and_in_range() -> None:
    """R23: the draw is fixed by its inputs (SHA-256, not ``hash``) and lies in [0, 1)."""
    draws = [seeded_draw(0, "t", trial, 0) for trial in range(200)]
    assert draws == [seeded_draw(0, "t", trial, 0) for trial in range(200)]
    assert all(0.0 <= d < 1.0 for d in draws)
    assert len(set(draws)) == 200
    assert seeded_draw(0, "t", 0, 0) != seeded_draw(1, "t", 0, 0)
    assert seeded_draw(0, "t", 0, 0) != seeded_draw(0, "u", 0, 0)
    assert seeded_draw(0, "t", 0, 0) != seeded_draw(0, "t", 0, 1)


def test_default_policy_applies_to_steps_without_onerror() -> None:
    """R23: the agent's default policy is the policy of a step with no ``onError``."""
    trial = run([{"tool": "a"}, {"tool": "b"}], [err("a"), ok("b")], agent=ScriptedAgent("skip"))
    assert path(trial) == "a! > b"
    with pytest.raises(ScriptError, match="default_policy"):
        ScriptedAgent("sometimes")


def test_override_replaces_every_steps_own_policy() -> None:
    """R23: a promoted suite's steps all carry ``onError``, so the default never applies there;
    ``override`` is the policy of every failed step, in place of the steps' own."""
    script = [{"tool": "a", "onError": {"retry": 1}}, {"tool": "b"}]
    entries = [err("a"), ok("a"), ok("b")]
    assert path(run(script, entries, agent=ScriptedAgent("skip"))) == "a! > a > b"
    assert path(run(script, entries, agent=ScriptedAgent(override="skip"))) == "a! > b"
    aborted = run(script, entries, agent=ScriptedAgent(override="abort"))
    assert path(aborted) == "a!" and aborted.decision.outcome == "failed"
    restored = pickle.loads(pickle.dumps(ScriptedAgent("skip", override={"retry": 2})))
    assert (restored.default_policy, restored.override) == ("skip", {"retry": 2})
    with pytest.raises(ScriptError, match="override"):
        ScriptedAgent(override="sometimes")


# --------------------------------------------------------------------------------------------
# Script problems, named by field


@pytest.mark.parametrize(
    ("task_input", "field"),
    [
        ({}, "input.script"),
        ({"script": "a"}, "input.script"),
        ({"script": ["a"]}, "input.script[0]"),
        ({"script": [{"tool": ""}]}, "input.script[0].tool"),
        ({"script": [{"tool": "a"}, {"args": {}}]}, "input.script[1].tool"),
        ({"script": [{"tool": "a", "onError": "later"}]}, "input.script[0].onError"),
        ({"script": [{"tool": "a", "onError": {"retry": -1}}]}, "input.script[0].onError.retry"),
        ({"script": [{"tool": "a", "onError": {"retry": True}}]}, "input.script[0].onError.retry"),
        (
            {"script": [{"tool": "a", "onError": {"retry": 1, "then": "x"}}]},
            "input.script[0].onError.then",
        ),
        (
            {"script": [{"tool": "a", "onError": {"fallback": {}}}]},
            "input.script[0].onError.fallback.tool",
        ),
        (
            {"script": [{"tool": "a", "onError": {"escalate": "human"}}]},
            "input.script[0].onError.escalate",
        ),
        (
            {"script": [{"tool": "a", "onError": {"choose": []}}]},
            "input.script[0].onError.choose",
        ),
        (
            {"script": [{"tool": "a", "onError": {"choose": [{"p": -1, "policy": "skip"}]}}]},
            "input.script[0].onError.choose[0].p",
        ),
        (
            {"script": [{"tool": "a", "onError": {"choose": [{"p": 1, "policy": "nope"}]}}]},
            "input.script[0].onError.choose[0].policy",
        ),
        (
            {"script": [{"tool": "a", "onError": {"choose": [{"p": 0, "policy": "skip"}]}}]},
            "input.script[0].onError.choose",
        ),
        ({"script": [{"tool": "a", "onError": {"wait": 3}}]}, "input.script[0].onError"),
    ],
)
def test_script_problems_are_named_by_field(task_input: Any, field: str) -> None:
    """R23: a bad script is reported naming the field; ``replay`` refuses it before running,
    naming the task (``tasks[0].input...``)."""
    problems = script_problems(task_input)
    assert problems, task_input
    assert problems[0].split(":")[0] == field
    bad = suite([{"tool": "a"}], [ok("a")])
    bad["tasks"][0]["input"] = task_input
    trials: list[Any] = []
    with pytest.raises(ScriptError) as caught:
        replay(bad, on_trial=trials.append)
    assert str(caught.value).startswith(f"tasks[0].{field}")
    assert trials == []


def test_valid_scripts_have_no_problems() -> None:
    """R23: every policy form of R23 is accepted."""
    policies: list[Any] = [
        "abort",
        "skip",
        {"retry": 2},
        {"retry": 1, "then": "skip"},
        {"fallback": {"tool": "b", "args": {"x": 1}}},
        {"fallback": {"tool": "b"}, "then": {"escalate": {"tool": "h"}}},
        {"escalate": {"tool": "h", "args": {}}},
        {"choose": [{"p": 0.7, "policy": "skip"}, {"p": 0.3, "policy": {"retry": 1}}]},
    ]
    script = [{"tool": "a", "onError": p} for p in policies]
    assert script_problems({"script": script, "answer": 1}) == []


# --------------------------------------------------------------------------------------------
# R25: any object with the agent interface


def docstring_agent() -> Any:
    """The hand-written agent of the agents module's docstring, executed as shown."""
    doc = agents_module.__doc__ or ""
    block = doc.split("::", 1)[1]
    lines = [line[4:] for line in block.splitlines() if line.strip()]
    namespace: dict[str, Any] = {"Decision": Decision}
    exec(compile("\n".join(lines), "workbench._replay.agents docstring", "exec"), namespace)
    return namespace["CheckTwice"]()


@pytest.mark.parametrize(
    ("entries", "outcome", "path_"),
    [
        ([ok("billing:lookup")], "completed", "billing:lookup"),
        (
            [err("billing:lookup"), ok("billing:lookup")],
            "completed",
            "billing:lookup! > billing:lookup",
        ),
        (
            [err("billing:lookup"), err("billing:lookup")],
            "failed",
            "billing:lookup! > billing:lookup!",
        ),
    ],
)
def test_hand_written_agent_from_the_docstring_replays(
    entries: list[dict[str, Any]], outcome: str, path_: str
) -> None:
    """R25: the hand-written agent in the agents module's docstring replays: it calls tools,
    reads ``is_error`` and returns a Decision graded like the scripted agent's."""
    agent = docstring_agent()
    assert isinstance(agent, Agent)
    the_suite = suite([{"tool": "unused"}], entries)
    the_suite["tasks"][0]["input"] = {"customer": "c-1"}
    result = replay(the_suite, agent)
    trial = result.tasks[0].trials[0]
    assert trial.decision.outcome == outcome and trial.trajectory == path_
    assert all(c.args == {"id": "c-1"} for c in trial.calls)
    if outcome == "completed":
        assert trial.decision.answer == "ok" and trial.passed
    started = next(e for e in result.events if e["type"] == "agent.invocation-started")
    assert started["payload"]["agentId"] == "example.check-twice"


class Flaky:
    """Raises on trial 1 of task ``t``; otherwise calls ``a`` and completes."""

    def run(self, task_input: Any, tools: Any) -> Any:
        tools.call("a", {})
        if tools.context.trial == 1:
            raise RuntimeError("model timed out")
        return {"outcome": "completed", "answer": None}


def test_agent_that_raises_fails_its_trial_and_the_replay_goes_on() -> None:
    """R25: an agent that raises fails that trial (``agent_error`` recorded, outcome failed);
    the other trials still run, the log stays complete and valid."""
    the_suite = suite([{"tool": "a"}], [ok("a", argsMatch="any")] * 3, trials=3)
    the_suite["tasks"][0]["fixtures"]["toolResponses"] = [{"tool": "a"}]
    result = replay(the_suite, Flaky())
    trials = result.tasks[0].trials
    assert [t.passed for t in trials] == [True, False, True]
    assert trials[1].agent_error == "RuntimeError: model timed out"
    assert trials[1].decision.outcome == "failed"
    assert [len(t.calls) for t in trials] == [1, 1, 1]
    kinds = [e["type"] for e in result.events]
    assert kinds.count("agent.invocation-completed") == 3
    assert kinds[-1] == "run.completed"
    assert result.summary["tasks"][0]["trials"]["passed"] == 2


@pytest.mark.parametrize(
    ("returned", "decision"),
    [
        (Decision("escalated", 1), Decision("escalated", 1)),
        ({"outcome": "failed", "answer": 2, "reason": "r"}, Decision("failed", 2, "r")),
        (
            {"outcome": "maybe", "answer": 2},
            Decision("completed", {"outcome": "maybe", "answer": 2}),
        ),
        ("plain text", Decision("completed", "plain text")),
        (None, Decision("completed", None)),
    ],
)
def test_what_an_agent_returns_is_read_as_a_decision(returned: Any, decision: Decision) -> None:
    """R24/R25: a Decision, a mapping with a known ``outcome``, or any other value (the answer
    of a completed run)."""
    assert as_decision(returned) == decision


def test_agent_without_an_id_gets_a_default_id() -> None:
    """R25: any object with ``run`` works; without ``agent_id`` the log uses a default."""

    class Bare:
        def run(self, task_input: Any, tools: Any) -> Any:
            return tools.call("a").text

    result = replay(suite([{"tool": "a"}], [ok("a")]), Bare())
    trial = result.tasks[0].trials[0]
    assert trial.decision == Decision("completed", "ok")
    ids = {e["payload"].get("agentId") for e in result.events if e["type"].startswith("agent.")}
    assert ids == {"workbench.agent"}


def test_tool_interface_exposes_context_and_tool_names() -> None:
    """R23/R25: the tool interface tells the agent its task, trial, seed and tool names."""
    seen: list[Any] = []

    class Look:
        def run(self, task_input: Any, tools: Any) -> Any:
            seen.append((tools.context, tools.tool_names))
            return None

    the_suite = suite([{"tool": "a"}], [ok("b"), ok("a"), ok("b")], trials=2)
    replay(the_suite, Look(), seed=9)
    assert [(c.task_id, c.trial, c.seed) for c, _ in seen] == [("t", 0, 9), ("t", 1, 9)]
    assert seen[0][1] == ("b", "a")


def test_decision_output_is_what_golden_grades() -> None:
    """R24: the graded output is ``{"outcome", "answer"}``; ``reason`` is not part of it."""
    assert Decision("failed", 3, "why").output() == {"outcome": "failed", "answer": 3}
    assert re.search("completed", repr(Decision("completed")))
