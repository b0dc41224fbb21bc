"""The fixture host: matching, consumption, serving, misses and one failure on every path.

Pins SPEC R12-R17 and RFC 0245 section B on :class:`workbench.FixtureHost` directly and through
:func:`workbench.replay`.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from helpers.suites import text
from workbench import (
    EventLog,
    FixtureHost,
    ReplayOptions,
    ReplayResult,
    ScriptedAgent,
    TaskContext,
    TaskFixtures,
    ToolResult,
    replay,
)
from workbench._common.vocab import FIXTURE_MISS, LIVE_TOOL_ERROR, TOOL_ERROR
from workbench._replay.fixtures import live_result

SUITE_ID = "local.test.evals.host"


def host_for(
    entries: list[dict[str, Any]],
    *,
    on_miss: str | None = None,
    live_tools: dict[str, Any] | None = None,
    log: EventLog | None = None,
) -> FixtureHost:
    fixtures: dict[str, Any] = {"toolResponses": entries}
    if on_miss is not None:
        fixtures["onMiss"] = on_miss
    task = {"taskId": "t", "input": {}, "fixtures": fixtures}
    return FixtureHost(
        TaskFixtures(task), TaskContext("t", 0), ReplayOptions(live_tools=live_tools), log=log
    )


def suite_with(
    entries: list[dict[str, Any]],
    script: list[dict[str, Any]],
    *,
    on_miss: str | None = None,
    answer: Any = "done",
) -> dict[str, Any]:
    fixtures: dict[str, Any] = {"toolResponses": entries}
    if on_miss is not None:
        fixtures["onMiss"] = on_miss
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
                    "match": {
                        "strategy": "json-match",
                        "value": {"outcome": "completed", "answer": answer},
                    },
                },
                "fixtures": fixtures,
            }
        ],
    }


class Counter:
    """A live tool that counts its invocations (RFC 0244 G2's effect counter)."""

    def __init__(self, response: Any = None) -> None:
        self.count = 0
        self.response = response if response is not None else text("live answer")

    def __call__(self, args: Any) -> Any:
        self.count += 1
        return self.response


# --------------------------------------------------------------------------------------------
# R12: matching


@pytest.mark.parametrize(
    ("entry_args", "call_args"),
    [
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}),
        ({"n": 1}, {"n": 1.0}),
        ({"n": [1, {"x": 2, "y": 3}]}, {"n": [1.0, {"y": 3, "x": 2}]}),
        ({"n": [1, 2]}, {"n": (1, 2)}),  # a Python agent's tuple is a JSON array
        ({"f": 2.5, "z": -0.0}, {"z": 0, "f": 2.5}),
    ],
)
def test_exact_match_is_canonical_json_equality(entry_args: Any, call_args: Any) -> None:
    """R12 exact: key order and ``1`` vs ``1.0`` do not matter."""
    host = host_for([{"tool": "x", "args": entry_args, "response": text("ok")}])
    result = host.call("x", call_args)
    assert not result.is_error
    assert host.calls[0].served_by == "fixture"
    assert host.misses == 0


@pytest.mark.parametrize(
    "call_args",
    [
        {"a": 1},
        {"a": 1, "b": 2, "c": 3},
        {"a": True, "b": 2},
        {"a": 1.5, "b": 2},
        {"a": "1", "b": 2},
        {"a": [1], "b": 2},
        {},
    ],
)
def test_exact_match_rejects_different_args(call_args: Any) -> None:
    """R12 exact: a missing, extra or differently typed value is not equal (true is not 1)."""
    host = host_for([{"tool": "x", "args": {"a": 1, "b": 2}, "response": text("ok")}])
    result = host.call("x", call_args)
    assert result.is_error and result.error_code == FIXTURE_MISS
    assert host.misses == 1


def test_explicit_exact_argsmatch_behaves_as_default() -> None:
    """R5/R12: ``argsMatch: "exact"`` is the default when ``args`` is present."""
    host = host_for([{"tool": "x", "args": {"a": 1}, "argsMatch": "exact", "response": text("ok")}])
    assert host.call("x", {"a": 1, "extra": 0}).is_error
    assert not host.call("x", {"a": 1.0}).is_error


NESTED: dict[str, Any] = {"a": 1, "nested": {"k": 1}}
LISTED: dict[str, Any] = {"a": 1, "list": [1, 2]}


@pytest.mark.parametrize(
    ("entry_args", "call_args", "matches"),
    [
        (NESTED, {"a": 1, "nested": {"k": 1}, "extra": True}, True),
        (NESTED, {"a": 1.0, "nested": {"k": 1, "more": 2}, "z": 0}, True),
        (NESTED, {"nested": {"k": 1}}, False),  # a missing
        (NESTED, {"a": 1, "nested": {"more": 2}}, False),  # nested k missing (recursive)
        (NESTED, {"a": 1, "nested": {"k": 2}}, False),
        (NESTED, {"a": 1, "nested": "not an object"}, False),
        (LISTED, {"a": 1, "list": [1, 2], "b": 0}, True),
        (LISTED, {"a": 1, "list": [1, 2, 3]}, False),  # arrays compared whole
        (LISTED, {"a": 1, "list": [2, 1]}, False),
    ],
)
def test_subset_match_is_recursive_with_arrays_whole(
    entry_args: Any, call_args: Any, matches: bool
) -> None:
    """R12 subset: every key of the entry's args present and equal, objects recursively,
    arrays whole."""
    entry = {"tool": "x", "args": entry_args, "argsMatch": "subset", "response": text("ok")}
    host = host_for([entry])
    assert (not host.call("x", call_args).is_error) is matches


@pytest.mark.parametrize("entry", [{"argsMatch": "any", "args": {"a": 1}}, {}])
def test_any_match_ignores_args(entry: dict[str, Any]) -> None:
    """R12 any (explicit, or by default when ``args`` is absent, R5): args are ignored."""
    host = host_for([{"tool": "x", **entry, "response": text("ok")}] * 2)
    assert not host.call("x", {"whatever": [1, 2]}).is_error
    assert not host.call("x", None).is_error
    assert host.misses == 0


def test_tool_name_must_match() -> None:
    """R12: candidates have ``tool`` equal to the call's tool."""
    host = host_for([{"tool": "billing:lookup", "response": text("ok")}])
    assert host.call("billing:lookup2", {}).error_code == FIXTURE_MISS
    assert host.call("billing:Lookup", {}).error_code == FIXTURE_MISS
    assert not host.call("billing:lookup", {}).is_error


# --------------------------------------------------------------------------------------------
# R13: consumption


def test_first_candidate_in_array_order_is_served_and_consumed() -> None:
    """R13: the first unconsumed candidate in array order is served; each entry serves once."""
    entries = [
        {"tool": "x", "args": {"id": 1}, "response": text("one-a")},
        {"tool": "y", "response": text("y")},
        {"tool": "x", "response": text("any-x")},
        {"tool": "x", "args": {"id": 1}, "response": text("one-b")},
    ]
    host = host_for(entries)
    assert host.call("x", {"id": 1}).text == "one-a"
    assert host.call("x", {"id": 1}).text == "any-x"  # entry 2 comes before entry 3
    assert host.call("x", {"id": 1}).text == "one-b"
    assert host.call("x", {"id": 1}).error_code == FIXTURE_MISS  # all consumed
    assert [c.entry for c in host.calls] == [0, 2, 3, None]
    assert host.unconsumed == [1]


def test_fail_then_succeed_is_two_entries() -> None:
    """R13 / RFC 0245 A: "fails on the first call, succeeds on the second" is two entries."""
    host = host_for(
        [
            {"tool": "b", "isError": True, "response": text('{"error":"upstream_down"}')},
            {"tool": "b", "response": text('{"plan":"team"}')},
        ]
    )
    first, second = host.call("b", {}), host.call("b", {})
    assert first.is_error and first.error == '{"error":"upstream_down"}'
    assert not second.is_error and second.text == '{"plan":"team"}'
    assert host.misses == 0


def test_consumption_is_per_trial() -> None:
    """R13: consumption state belongs to one trial; a second host over the same prepared
    fixtures starts fresh."""
    fixtures = TaskFixtures({"taskId": "t", "fixtures": {"toolResponses": [{"tool": "x"}]}})
    first = FixtureHost(fixtures, TaskContext("t", 0))
    second = FixtureHost(fixtures, TaskContext("t", 1))
    assert not first.call("x").is_error
    assert first.call("x").is_error
    assert not second.call("x").is_error


# --------------------------------------------------------------------------------------------
# R14 / R15: serving


def test_success_entry_is_served_as_success_with_its_response() -> None:
    """R14: ``isError: false`` and the entry's response (content and structuredContent)."""
    response = {"content": [{"type": "text", "text": "ok"}], "structuredContent": {"n": 1}}
    host = host_for([{"tool": "x", "isError": False, "response": response}])
    result = host.call("x")
    assert result.to_mcp() == {**response, "isError": False}
    assert result.error is None


def test_nested_iserror_in_response_does_not_change_a_success_entry() -> None:
    """R14 / RFC 0245 alternative 2: ``response`` is opaque; only the entry's own ``isError``
    makes a served error."""
    host = host_for([{"tool": "x", "response": {"content": [], "isError": True}}])
    assert host.call("x").is_error is False


def test_error_entry_is_served_as_tool_error() -> None:
    """R15: ``isError: true`` gives a tool error whose content is the entry's response, with
    the fixture error code; it is served (not a miss)."""
    response = text('{"error":"upstream_down"}')
    host = host_for([{"tool": "x", "isError": True, "response": response}])
    result = host.call("x")
    assert result.is_error
    assert result.to_mcp() == {**response, "isError": True}
    assert result.error_code == TOOL_ERROR
    assert host.misses == 0
    assert host.errors_served == 1
    assert host.calls[0].served_by == "fixture"


@pytest.mark.parametrize("on_miss", ["fail", "live"])
def test_error_entry_never_reaches_a_live_tool(on_miss: str) -> None:
    """R15 / RFC 0245 B: an ``isError`` entry is never sent to a live tool, whatever
    ``onMiss`` says; the live tool's invocation counter stays at 0 for served entries."""
    counter = Counter()
    host = host_for(
        [
            {"tool": "x", "isError": True, "response": text("down")},
            {"tool": "x", "args": {"a": 1}, "isError": True},
            {"tool": "x", "response": text("fine")},
        ],
        on_miss=on_miss,
        live_tools={"x": counter},
    )
    assert host.call("x", {"a": 1}).is_error
    assert host.call("x", {"a": 1}).is_error
    assert not host.call("x", {"a": 1}).is_error
    assert counter.count == 0
    assert host.live_calls == 0
    assert host.misses == 0


# --------------------------------------------------------------------------------------------
# R16: misses


def test_miss_under_fail_is_a_fixture_miss_tool_error() -> None:
    """R16: a call matching no unconsumed entry is a miss; under ``onMiss: "fail"`` the agent
    gets a tool error with code ``workbench.fixture_miss``."""
    counter = Counter()
    host = host_for([], on_miss="fail", live_tools={"x": counter})
    result = host.call("x", {"a": 1})
    assert result.is_error and result.error_code == FIXTURE_MISS
    assert host.misses == 1
    assert counter.count == 0
    assert host.calls[0].served_by == "miss"


def test_miss_under_fail_cannot_pass_even_when_the_agent_completes() -> None:
    """R16: with ``onMiss: "fail"`` a task with a miss cannot pass (here the agent skips the
    failed call and its golden output matches)."""
    suite = suite_with(
        [{"tool": "x", "response": text("ok")}],
        [{"tool": "x"}, {"tool": "unknown", "onError": "skip"}],
        on_miss="fail",
    )
    result = replay(suite)
    trial = result.tasks[0].trials[0]
    assert trial.golden_passed is True
    assert trial.fixture_misses == 1
    assert not trial.passed and not result.passed
    assert result.fixture_miss_count == 1


def test_miss_under_live_calls_the_registered_callable() -> None:
    """R16: under ``onMiss: "live"`` a miss goes to the caller's Python callable for that tool
    (it is still counted as a miss) and the task can pass."""
    counter = Counter(text("from live"))
    seen: list[Any] = []

    def live(args: Any) -> Any:
        seen.append(args)
        return counter(args)

    suite = suite_with(
        [{"tool": "x", "args": {"id": 1}, "response": text("recorded")}],
        [{"tool": "x", "args": {"id": 1}}, {"tool": "x", "args": {"id": 2}}],
        on_miss="live",
    )
    result = replay(suite, live_tools={"x": live})
    calls = result.tasks[0].trials[0].calls
    assert [c.served_by for c in calls] == ["fixture", "live"]
    assert calls[1].result.text == "from live"
    assert seen == [{"id": 2}]
    assert counter.count == 1
    assert result.fixture_miss_count == 1
    assert result.passed


def test_miss_under_live_without_a_callable_is_handled_as_fail() -> None:
    """R16: under ``onMiss: "live"`` with no callable registered for the tool, the miss is
    handled as ``"fail"`` (a ``workbench.fixture_miss`` tool error)."""
    other = Counter()
    host = host_for([], on_miss="live", live_tools={"other": other})
    result = host.call("x", {})
    assert result.is_error and result.error_code == FIXTURE_MISS
    assert host.calls[0].served_by == "miss"
    assert other.count == 0 and host.misses == 1


def test_task_with_unhandled_live_miss_cannot_pass() -> None:
    """R16: a miss under ``onMiss: "live"`` with no callable registered is handled as
    ``"fail"``, so the task cannot pass."""
    suite = suite_with(
        [{"tool": "x", "response": text("ok")}],
        [{"tool": "x"}, {"tool": "unknown", "onError": "skip"}],
        on_miss="live",
    )
    result = replay(suite)
    assert result.fixture_miss_count == 1
    assert not result.passed


def test_live_tool_exception_is_a_tool_error() -> None:
    """R16/R17: a live tool that raises gives the agent a tool error (code
    ``workbench.live_tool_error``), never an exception through the agent."""

    def broken(args: Any) -> Any:
        raise ConnectionError("refused")

    host = host_for([], on_miss="live", live_tools={"x": broken})
    result = host.call("x", {})
    assert result.is_error and result.error_code == LIVE_TOOL_ERROR
    assert result.error == "ConnectionError: refused"
    assert host.calls[0].served_by == "live"


@pytest.mark.parametrize(
    ("returned", "is_error", "error_text"),
    [
        (ToolResult([{"type": "text", "text": "t"}], True), True, "t"),
        ({"content": [{"type": "text", "text": "bad"}], "isError": True}, True, "bad"),
        ({"isError": True}, True, "Tool call failed"),
        ({"isError": True, "detail": "x"}, True, "Tool call failed"),
        ({"isError": False, "structuredContent": {"n": 1}}, False, None),
        ({"content": [{"type": "text", "text": "fine"}]}, False, None),
        ("plain", False, None),
        ({"rows": 3}, False, None),
    ],
)
def test_live_results_read_as_mcp(returned: Any, is_error: bool, error_text: str | None) -> None:
    """R16/R17: what a live tool returns is read like an MCP ``CallToolResult``: an
    ``isError: true`` body is a failure (also with no ``content``), anything else a success."""
    result = live_result(returned)
    assert result.is_error is is_error
    assert result.error == error_text


# --------------------------------------------------------------------------------------------
# R17: one failure on every path, for every content shape of the seed PR

SHAPES: list[tuple[str, Any, str]] = [
    ("one-text", {"content": [{"type": "text", "text": "no such row"}]}, "no such row"),
    (
        "two-texts",
        {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
        "a\nb",
    ),
    ("non-string-text", {"content": [{"type": "text", "text": 42}]}, "[non-string text]"),
    ("no-text", {"content": []}, "Tool call failed"),
    ("no-content", {"structuredContent": {"code": 503}}, "Tool call failed"),
    ("no-response", None, "Tool call failed"),
    ("content-not-a-list", {"content": "no such row"}, "Tool call failed"),
    (
        "empty-text-beside-another",
        {"content": [{"type": "text", "text": ""}, {"type": "text", "text": "kept"}]},
        "kept",
    ),
    (
        "image-beside-text",
        {
            "content": [
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
                {"type": "text", "text": "see image"},
            ]
        },
        "see image",
    ),
]


class ToolInterfaceAgent:
    """An agent that records what its tool interface handed back (the agent's path)."""

    agent_id = "test.recording-agent"

    def __init__(self) -> None:
        self.seen: list[ToolResult] = []

    def run(self, task_input: Any, tools: Any) -> dict[str, Any]:
        result = tools.call("billing:lookup", {"id": "c-1"})
        self.seen.append(result)
        return {"outcome": "failed" if result.is_error else "completed", "answer": None}


@pytest.mark.parametrize(("name", "response", "expected"), SHAPES, ids=[s[0] for s in SHAPES])
def test_error_is_one_failure_on_every_path(name: str, response: Any, expected: str) -> None:
    """R17 (and the MCP isError seed PR): for each content shape, the agent's tool interface,
    a direct ``FixtureHost.call``, the trajectory record and the event log all read the served
    ``isError`` entry as a failure, and the error text follows R17 exactly."""
    entry: dict[str, Any] = {"tool": "billing:lookup", "args": {"id": "c-1"}, "isError": True}
    if response is not None:
        entry["response"] = response
    suite = suite_with([entry], [{"tool": "billing:lookup", "args": {"id": "c-1"}}])

    # The agent's tool interface, through a full replay (content on the log, to compare texts).
    agent = ToolInterfaceAgent()
    result: ReplayResult = replay(suite, agent, include_content=True)
    (seen,) = agent.seen
    assert seen.is_error and seen.error == expected

    # A direct Python call on the host.
    direct = host_for([copy.deepcopy(entry)]).call("billing:lookup", {"id": "c-1"})
    assert direct.is_error and direct.error == expected

    # The trajectory record.
    trial = result.tasks[0].trials[0]
    (record,) = trial.calls
    assert record.is_error and record.error == expected
    assert trial.trajectory == "billing:lookup!"
    assert trial.errors_served == 1 and trial.fixture_misses == 0
    assert result.trials_frame()["trajectory"].tolist() == ["billing:lookup!"]

    # The event log: error, status error, no outcome; the detail text is the same R17 text.
    (returned,) = [e for e in result.events if e["type"] == "agent.tool-returned"]
    payload = returned["payload"]
    assert "outcome" not in payload
    assert payload["status"] == "error"
    assert payload["error"]["code"] == TOOL_ERROR and payload["error"]["message"]
    assert payload["error"]["details"]["text"] == expected

    # Content-free log (the default): the same failure, with no payload text.
    quiet = replay(suite, ToolInterfaceAgent())
    (q_returned,) = [e for e in quiet.events if e["type"] == "agent.tool-returned"]
    assert "outcome" not in q_returned["payload"]
    assert q_returned["payload"]["status"] == "error"
    assert "details" not in q_returned["payload"]["error"]


@pytest.mark.parametrize(("name", "response", "expected"), SHAPES, ids=[s[0] for s in SHAPES])
def test_live_error_is_one_failure_on_every_path(name: str, response: Any, expected: str) -> None:
    """R17: a live tool's ``isError`` result (``onMiss: "live"``) reads the same way on every
    path as a fixture-served one: same error text, trajectory mark, and event."""
    body = {"isError": True} if response is None else {**response, "isError": True}
    direct = host_for([], on_miss="live", live_tools={"billing:lookup": lambda a: body})
    assert direct.call("billing:lookup", {"id": "c-1"}).error == expected
    suite = suite_with([], [{"tool": "billing:lookup", "args": {"id": "c-1"}}], on_miss="live")
    agent = ToolInterfaceAgent()
    result = replay(suite, agent, live_tools={"billing:lookup": lambda a: body})
    assert agent.seen[0].error == expected
    trial = result.tasks[0].trials[0]
    assert trial.calls[0].error == expected and trial.trajectory == "billing:lookup!"
    (returned,) = [e for e in result.events if e["type"] == "agent.tool-returned"]
    assert "outcome" not in returned["payload"]
    assert returned["payload"]["error"]["code"] == LIVE_TOOL_ERROR


def test_success_text_follows_the_same_rule() -> None:
    """R17: a success's text uses the same joining rule (non-text blocks left out); its
    ``error`` is ``None`` and the trajectory does not mark it."""
    response = SHAPES[-1][1]
    host = host_for([{"tool": "x", "response": response}])
    result = host.call("x")
    assert result.text == "see image" and result.error is None
    assert not host.calls[0].is_error


def test_direct_calls_are_recorded_like_agent_calls() -> None:
    """R17: a direct call on the host is recorded on ``calls`` and on the event log exactly as
    the agent's call would be."""
    log = EventLog("local/test")
    host = host_for([{"tool": "x", "isError": True, "response": text("down")}], log=log)
    host.call("x", {"a": 1})
    assert [e["type"] for e in log.events] == ["agent.tool-called", "agent.tool-returned"]
    assert log.events[1]["payload"]["status"] == "error"
    assert host.calls[0].as_call() == {"tool": "x", "args": {"a": 1}}


def test_prepared_results_are_not_shared_mutably_with_the_suite() -> None:
    """R14: serving a response does not let the suite dict and a served result alias in a way
    that changes a later replay (replays of one suite are repeatable)."""
    suite = suite_with([{"tool": "x", "response": text("ok")}], [{"tool": "x"}], answer="done")
    before = copy.deepcopy(suite)
    replay(suite)
    replay(suite, ScriptedAgent())
    assert suite == before
