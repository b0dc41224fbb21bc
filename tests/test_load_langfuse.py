"""Langfuse trace exports (SPEC R34, R35, R36).

The real exports are in ``fixtures/langfuse`` (their SOURCE.md counts them) and pinned in
``tests/helpers/recordings.py``; the traces written here are SYNTHETIC, in the shape of those
exports, for what no real one holds (a failed call, a call that never finished, the API's
shape, an agent above a call).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench as wb
from helpers.paths import FIXTURES
from workbench.cli import main

KOOG = FIXTURES / "langfuse" / "koog-2025-08-26.trace.json"


def _observation(n: int, kind: str = "TOOL", **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": f"obs-{n}",
        "traceId": "t1",
        "type": kind,
        "name": f"tool_{n}",
        "startTime": f"2026-01-01T00:00:{n:02d}.000Z",
        "endTime": f"2026-01-01T00:00:{n:02d}.250Z",
        "level": "DEFAULT",
        "input": json.dumps({"n": n}),
        "output": json.dumps(f"result {n}"),
        "parentObservationId": None,
    }
    out.update(fields)
    return out


def _export(tmp_path: Path, observations: list[Any], shape: str = "download") -> Path:
    trace = {"id": "t1", "projectId": "p", "name": "agent run", "output": "done"}
    if shape == "download":
        value: Any = {
            "trace": {**trace, "observations": observations},
            "observations": observations,
        }
    elif shape == "nested":
        value = {"trace": {**trace, "observations": observations}}
    else:  # the public API's GET /api/public/traces/{id}
        value = {**trace, "htmlPath": "/project/p/traces/t1", "observations": observations}
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
    return path


@pytest.mark.parametrize("shape", ["download", "nested", "api"])
def test_tool_observations_are_calls_in_start_order(tmp_path: Path, shape: str) -> None:
    """R34: each TOOL observation is a call and its result, in ``startTime`` order; input and
    output kept as JSON text are decoded; the call lasts from start to end."""
    observations = [_observation(2), _observation(0, "GENERATION"), _observation(1)]
    result = wb.load_runs(_export(tmp_path, observations, shape))
    assert result.format == "langfuse"
    got = [(b.call_id, b.tool, b.args, b.response, b.duration_ms) for b in result.boundaries]
    assert got == [
        ("obs-1", "tool_1", {"n": 1}, {"content": [{"type": "text", "text": "result 1"}]}, 250),
        ("obs-2", "tool_2", {"n": 2}, {"content": [{"type": "text", "text": "result 2"}]}, 250),
    ]
    assert result.runs[0].metadata["records"] == {
        "observation:GENERATION": 1,
        "observation:TOOL": 2,
    }


def test_level_error_fails_a_call_with_its_status_message(tmp_path: Path) -> None:
    """R36: ``level: ERROR`` is a failure, its ``statusMessage`` the error; the error rule
    reads any other output's text."""
    observations = [
        _observation(0, level="ERROR", statusMessage="timeout after 30 s", output=None),
        _observation(1, output="Error: no such city"),
        _observation(2),
    ]
    result = wb.load_runs(_export(tmp_path, observations))
    assert [(b.is_error, b.error_message) for b in result.boundaries] == [
        (True, "timeout after 30 s"),
        (True, "Error: no such city"),
        (False, None),
    ]


def test_otel_attributes_name_the_tool_and_its_call_id_and_an_agent_above_it(
    tmp_path: Path,
) -> None:
    """R34: ``gen_ai.tool.name`` and ``gen_ai.tool.call.id`` (OpenTelemetry, as Logfire sends
    them) name the call; a span marked ``execute_tool`` is a call whatever its type; the nearest
    AGENT observation above a call is its agent."""
    attributes = {"gen_ai.tool.name": "lookup", "gen_ai.tool.call.id": "call_9"}
    observations = [
        _observation(0, "AGENT", name="planner"),
        _observation(1, "SPAN", name="step", parentObservationId="obs-0"),
        _observation(2, name="running tool: lookup", parentObservationId="obs-1"),
        _observation(
            3,
            "SPAN",
            name="execute_tool lookup",
            metadata={"attributes": {"gen_ai.operation.name": "execute_tool", **attributes}},
        ),
    ]
    result = wb.load_runs(_export(tmp_path, observations))
    got = [(b.call_id, b.tool, b.agent_id, dict(b.extra)) for b in result.boundaries]
    assert got == [
        ("obs-2", "lookup", "planner", {"argsFrom": "input"}),
        ("call_9", "lookup", None, {"observationId": "obs-3", "argsFrom": "input"}),
    ]


def test_a_tool_that_never_finished_and_a_wrong_level_are_problems(tmp_path: Path) -> None:
    """R2, R35: a TOOL observation with neither output nor end never finished; a level that is
    not one of Langfuse's is a problem at its place, and the other calls load."""
    observations = [
        _observation(0, output=None, endTime=None),
        _observation(1, level=3),
        _observation(2),
        "not an observation",
    ]
    result = wb.load_runs(_export(tmp_path, observations), strict=False)
    assert [b.call_id for b in result.boundaries] == ["obs-2"]
    assert sorted((p.where, p.field) for p in result.problems) == [
        ("observations[0]", "id"),
        ("observations[1]", "level"),
        ("observations[3]", ""),
    ]


def test_koogs_tool_spans_are_its_calls(tmp_path: Path) -> None:
    """R34: Koog marks its tool runs only by a span's name (``tool.ByeTool``): the real export
    has no TOOL observation, and those spans are its calls (ids from their attributes)."""
    result = wb.load_runs(KOOG)
    assert [(b.tool, b.args, b.response, b.is_error) for b in result.boundaries] == [
        (
            "ByeTool",
            {"name": "Bob"},
            {"content": [{"type": "text", "text": "Bye my dear Bob!"}]},
            False,
        ),
        (
            "HelloTool",
            {"name": "Bob"},
            {"content": [{"type": "text", "text": "Hello my darling Bob!"}]},
            False,
        ),
    ]
    assert result.run.metadata["records"]["observation:SPAN"] == 5


def test_a_tool_named_span_is_no_call_beside_tool_observations(tmp_path: Path) -> None:
    """A trace with TOOL observations reads those only: a ``tool.*`` span beside them (a
    framework's wrapper of the same run) is counted, not a second call."""
    observations = [
        _observation(1),
        _observation(2, "SPAN", name="tool.tool_1"),
    ]
    result = wb.load_runs(_export(tmp_path, observations))
    assert [b.tool for b in result.boundaries] == ["tool_1"]
    assert result.run.metadata["records"]["observation:SPAN"] == 1


def test_a_trace_with_no_tool_observation_says_what_it_held(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: a trace with no call says so with what it held."""
    path = _export(tmp_path, [_observation(1, "SPAN"), _observation(2, "GENERATION")])
    assert main(["boundaries", str(path)]) == 2
    said = capsys.readouterr().err
    assert "no tool call found: the file is a Langfuse trace export" in said
    assert "observation:SPAN 1" in said


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 12), st.randoms(use_true_random=False))
def test_no_call_is_lost_or_invented_whatever_the_order_of_observations(
    tmp_path_factory: pytest.TempPathFactory, count: int, rng: random.Random
) -> None:
    """The observations' order in the file does not matter: calls come in start order."""
    observations = [_observation(n, "TOOL" if n % 3 else "SPAN") for n in range(count)]
    rng.shuffle(observations)
    result = wb.load_runs(_export(tmp_path_factory.mktemp("lf"), observations), strict=False)
    expected = [f"obs-{n}" for n in range(count) if n % 3]
    assert [b.call_id for b in result.boundaries] == expected


def test_the_downloads_metadata_as_json_text_names_the_call() -> None:
    """R34: the UI's download keeps ``metadata`` as JSON text; the call id and tool name in its
    OpenTelemetry attributes are read (the real ADK export's call id was its observation's)."""
    result = wb.load_runs(FIXTURES / "langfuse" / "google-adk-2025-08-28.trace.json")
    ((call_id, tool, extra),) = [(b.call_id, b.tool, dict(b.extra)) for b in result.boundaries]
    assert (call_id, tool) == ("adk-8bd8dc65-717d-4102-858b-3a1dd6b75a00", "say_hello")
    assert extra["observationId"] == "04290e4d82aba1bc"


def _snake(value: Any) -> Any:
    names = {"traceId": "trace_id", "parentObservationId": "parent_observation_id"}
    names |= {"startTime": "start_time", "endTime": "end_time", "projectId": "project_id"}
    if isinstance(value, dict):
        return {names.get(k, k): _snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_snake(v) for v in value]
    return value


@pytest.mark.parametrize("shape", ["bare list", "api list", "jsonl", "snake case"])
def test_lists_of_observations_load_a_run_a_trace(tmp_path: Path, shape: str) -> None:
    """R34: what export scripts write: the API's list of observations (``{data, meta}``), a
    bare list, JSONL, the Python SDK's ``model_dump()`` names; a run for each trace."""
    first = [_observation(n) for n in range(2)]
    second = [_observation(n, traceId="t2", id=f"other-{n}") for n in range(3)]
    observations: list[Any] = [first[0], *second, first[1]]
    path = tmp_path / ("observations.jsonl" if shape == "jsonl" else "observations.json")
    if shape == "jsonl":
        path.write_text("".join(json.dumps(o) + "\n" for o in observations), encoding="utf-8")
    elif shape == "api list":
        path.write_text(json.dumps({"data": observations, "meta": {"page": 1}}), encoding="utf-8")
    elif shape == "snake case":
        path.write_text(json.dumps(_snake({"data": observations})), encoding="utf-8")
    else:
        path.write_text(json.dumps(observations), encoding="utf-8")
    result = wb.load_runs(path)
    assert result.format == "langfuse"
    assert [(r.run_id, [b.call_id for b in r.boundaries]) for r in result.runs] == [
        ("t1", ["obs-0", "obs-1"]),
        ("t2", ["other-0", "other-1", "other-2"]),
    ]


def test_a_start_with_a_zone_and_an_end_without_is_no_duration_not_a_crash(
    tmp_path: Path,
) -> None:
    """R35: times that cannot be subtracted (one with a zone, one without) give no duration."""
    observation = _observation(0, endTime="2026-01-01T00:00:00.250")
    (boundary,) = wb.load_runs(_export(tmp_path, [observation])).boundaries
    assert boundary.duration_ms is None


def test_a_deep_tree_is_walked_once_and_a_list_for_an_id_is_a_problem(tmp_path: Path) -> None:
    """A call under each of 3,000 nested spans finds the agent at the top without walking the
    tree once a call (it took time that grew with the square of the depth); an observation
    whose id or parent is a list is a problem at its place, not a crash (R35)."""
    observations: list[Any] = [_observation(0, "AGENT", name="boss")]
    for n in range(1, 3001):
        parent = "obs-0" if n == 1 else f"span-{n - 1}"
        observations.append(_observation(0, "SPAN", id=f"span-{n}", parentObservationId=parent))
        observations.append(_observation(1, id=f"call-{n}", parentObservationId=f"span-{n}"))
    observations.append(_observation(2, id=["x"], parentObservationId=["obs-0"]))
    result = wb.load_runs(_export(tmp_path, observations), strict=False)
    assert len(result.boundaries) == 3000
    assert {b.agent_id for b in result.boundaries} == {"boss"}
    assert [(p.where, p.field) for p in result.problems] == [("observations[6001]", "id")]


def test_calls_come_in_the_order_of_their_start_times_not_of_their_texts(tmp_path: Path) -> None:
    """R2: start times of other precisions or zones are compared as times (as text, ``...00Z``
    sorted after ``...00.500Z`` and a ``+02:00`` time out of place)."""
    observations = [
        _observation(0, id="late", startTime="2025-01-01T00:00:00.500Z"),
        _observation(1, id="early", startTime="2025-01-01T00:00:00Z"),
        _observation(2, id="tz", startTime="2025-01-01T01:59:59+02:00"),
    ]
    result = wb.load_runs(_export(tmp_path, observations))
    assert [b.call_id for b in result.boundaries] == ["tz", "early", "late"]


def test_an_observation_listed_twice_is_one_call(tmp_path: Path) -> None:
    """R2: export files put together list an observation twice: one call, counted once more
    as ``observation:repeated`` (it was two calls of one id)."""
    observations = [_observation(0), _observation(1), _observation(1)]
    result = wb.load_runs(_export(tmp_path, observations))
    assert [b.call_id for b in result.boundaries] == ["obs-0", "obs-1"]
    assert result.runs[0].metadata["records"]["observation:repeated"] == 1


def test_spans_named_after_the_tools_the_model_asked_for_are_its_calls() -> None:
    """R34: Agno and LangGraph send no TOOL observation; the span named after a tool a
    GENERATION asked for is its run, with the request's call id; a LangGraph ToolMessage's
    content is what the model was sent (real exports; fixtures/langfuse/SOURCE.md)."""
    folder = FIXTURES / "langfuse"
    found = {
        name: [(b.call_id, b.tool, b.is_error) for b in wb.load_runs(folder / name).boundaries]
        for name in (
            "agno-2025-06-11.trace.json",
            "langgraph-python-2025-08-22.trace.json",
            "langgraph-js-2025-10-30.trace.json",
        )
    }
    assert found == {
        "agno-2025-06-11.trace.json": [
            ("call_VybxG748CQId8Xxo6wb2pWy1", "duckduckgo_search", False)
        ],
        "langgraph-python-2025-08-22.trace.json": [
            ("call_1oGK863sxQHlPreFhDdEs3yl", "Web-Search", False)
        ],
        "langgraph-js-2025-10-30.trace.json": [
            ("call_VEZJgIQLgzcb80IIyQJm7JCi", "get_weather", False)
        ],
    }
    weather = wb.load_runs(folder / "langgraph-js-2025-10-30.trace.json").boundaries[0]
    assert weather.args == {"city": "San Francisco"}
    assert weather.response["content"][0]["text"].startswith("It's always sunny in San Francisco")


def test_a_span_is_read_as_a_tool_only_when_the_model_asked_for_that_tool(tmp_path: Path) -> None:
    """A graph's own spans (``agent``, ``tools``) are no calls; a span named after a requested
    tool is, and its ToolMessage's ``status: error`` fails it (R36). Two requests of one tool
    are answered by its spans in start order."""
    asked = {
        "role": "assistant",
        "tool_calls": [
            {"id": "c1", "function": {"name": "lookup", "arguments": "{}"}},
            {"id": "c2", "function": {"name": "lookup", "arguments": "{}"}},
        ],
    }
    failed = {"type": "tool", "tool_call_id": "c2", "content": "no such id", "status": "error"}
    observations = [
        _observation(1, "GENERATION", name="ChatOpenAI", output=json.dumps(asked)),
        _observation(2, "SPAN", name="tools"),
        _observation(3, "SPAN", name="lookup", input=json.dumps({"id": 1})),
        _observation(4, "SPAN", name="lookup", output=json.dumps(failed)),
        _observation(5, "SPAN", name="agent"),
    ]
    result = wb.load_runs(_export(tmp_path, observations))
    assert [(b.call_id, b.tool, b.is_error) for b in result.boundaries] == [
        ("c1", "lookup", False),
        ("c2", "lookup", True),
    ]
    assert result.boundaries[1].response["content"][0]["text"] == "no such id"


def test_beeai_s_events_of_a_tool_run_are_no_tool_of_their_own(tmp_path: Path) -> None:
    """BeeAI names each event of a run ``tool.<path>.<event>-<n>``: not Koog's ``tool.<Name>``
    (they were read as a tool named ``search.wikipedia.success-12``)."""
    observations = [
        _observation(1, "SPAN", name="tool.search.wikipedia.start-12"),
        _observation(2, "SPAN", name="tool.search.wikipedia.success-12"),
    ]
    result = wb.load_runs(_export(tmp_path, observations), strict=False)
    assert result.boundaries == ()
    assert "no tool call found" in result.problems[0].message


def _react_update(
    n: int, parent: str | None, level: str = "DEFAULT", **said: Any
) -> dict[str, Any]:
    attributes = {"target": "agent.react.update", "name": "update", **said}
    return _observation(
        n,
        "SPAN",
        name=f"agent.react.update-{n}",
        parentObservationId=parent,
        level=level,
        input=None,
        output=None,
        metadata=json.dumps({"attributes": attributes}),
    )


@pytest.mark.parametrize("under_iterations", [True, False])
def test_beeai_react_steps_are_read_as_calls(tmp_path: Path, under_iterations: bool) -> None:
    """R34: BeeAI's ReAct agent records its calls only in its step updates (the real trace is
    fixtures/langfuse/beeai-2025-08-01.trace.json): each step's last update is the call, its
    ``output.value`` the result the agent read; a step with no tool is the answer. Steps are
    told apart by their iteration, else by their thought. R36: the error rule fails a result."""
    first = "it1" if under_iterations else None
    second = "it2" if under_iterations else None
    third = "it3" if under_iterations else None
    observations = [
        _react_update(1, first, thought="look it up", **{"tool.parameters": "null"}),
        _react_update(
            2, first, thought="look it up", **{"tool.name": "Search", "tool.parameters": "null"}
        ),
        _react_update(
            3,
            first,
            thought="look it up",
            **{"tool.name": "Search", "tool.parameters": '{"q": "x"}'},
        ),
        _react_update(
            4,
            first,
            thought="look it up",
            **{"tool.name": "Search", "tool.parameters": '{"q": "x"}', "output.value": "found x"},
        ),
        _react_update(
            5,
            second,
            thought="now the weather",
            **{
                "tool.name": "Weather",
                "tool.parameters": '{"city": "y"}',
                "output.value": "Error: down",
            },
        ),
        _react_update(
            6, third, thought="done", **{"tool.parameters": "null", "output.value": "x, y"}
        ),
    ]
    result = wb.load_runs(
        _export(tmp_path, observations), strict=False, error_rule=wb.ErrorRule.prefix("Error:")
    )
    assert result.problems == ()
    assert [(b.call_id, b.tool, b.args, b.is_error) for b in result.boundaries] == [
        ("obs-4", "Search", {"q": "x"}, False),
        ("obs-5", "Weather", {"city": "y"}, True),
    ]
    assert result.boundaries[0].response["content"][0]["text"] == "found x"


def test_a_beeai_step_whose_tool_gave_no_output_is_never_answered(tmp_path: Path) -> None:
    """R2: a step cut off after the model named its call (no output) is a call left open."""
    observations = [
        _react_update(1, "it1", thought="t", **{"tool.name": "Search", "tool.parameters": "{}"}),
    ]
    result = wb.load_runs(_export(tmp_path, observations), strict=False)
    assert result.boundaries == ()
    assert "never answered" in result.problems[0].message


def test_beeai_steps_under_another_span_are_told_apart_by_their_thought(tmp_path: Path) -> None:
    """Updates under a span that is no ``iteration-<n>`` (the run's own) are grouped by their
    thought, as updates under none are (a review of stop 36: they made one step, and the calls
    of all but the last were lost)."""
    root = _observation(0, "SPAN", name="beeai-framework-main")
    observations = [
        root,
        _react_update(1, "obs-0", thought="a", **{"tool.name": "A", "tool.parameters": "{}"}),
        _react_update(
            2,
            "obs-0",
            thought="a",
            **{"tool.name": "A", "tool.parameters": "{}", "output.value": "1"},
        ),
        _react_update(
            3,
            "obs-0",
            thought="b",
            **{"tool.name": "B", "tool.parameters": "{}", "output.value": "2"},
        ),
    ]
    result = wb.load_runs(_export(tmp_path, observations), strict=False)
    assert [(b.call_id, b.tool) for b in result.boundaries] == [("obs-2", "A"), ("obs-3", "B")]


def test_a_beeai_tool_s_error_event_fails_its_step_s_call(tmp_path: Path) -> None:
    """R36: BeeAI sends a tool's ``error`` event as a span (``tool.<path>.error-<n>``) under the
    update that called it: the step's call failed."""
    iteration = _observation(0, "SPAN", name="iteration-1")
    observations = [
        iteration,
        _react_update(1, "obs-0", thought="t", **{"tool.name": "Search", "tool.parameters": "{}"}),
        _observation(2, "SPAN", name="tool.search.wikipedia.error-12", parentObservationId="obs-1",
                     level="ERROR", input=None, output=None),
        _react_update(
            3, "obs-0", thought="t",
            **{"tool.name": "Search", "tool.parameters": "{}", "output.value": "timed out"},
        ),
    ]  # fmt: skip
    result = wb.load_runs(_export(tmp_path, observations), strict=False)
    assert [(b.call_id, b.is_error) for b in result.boundaries] == [("obs-3", True)]


# --- a model client traced alone: calls in GENERATIONs (langfuse_generations) ------------------

ANTHROPIC_ONLY = FIXTURES / "langfuse" / "anthropic-messages-api-2026-03-25.trace.json"


def _generation(n: int, sent: Any, said: Any, **fields: Any) -> dict[str, Any]:
    """A GENERATION of an instrumented model client (input and output as JSON text, as the
    UI's download keeps them)."""
    return _observation(
        n,
        "GENERATION",
        name="OpenAI-generation",
        input=json.dumps(sent),
        output=None if said is None else json.dumps(said),
        **fields,
    )


def _openai_call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    function = {"name": name, "arguments": json.dumps(args)}
    return {"id": call_id, "type": "function", "function": function}


def _openai_turns() -> tuple[list[Any], list[Any], list[Any]]:
    """The messages of three model calls of one conversation: a call, its result and a
    second call, its result (an error) and the answer."""
    first = [{"role": "user", "content": "What is in the README?"}]
    ask = {"role": "assistant", "content": None, "tool_calls": [_openai_call("c1", "read", {})]}
    second = [*first, ask, {"role": "tool", "tool_call_id": "c1", "content": "# Readme"}]
    ask2 = {"role": "assistant", "content": None, "tool_calls": [_openai_call("c2", "ls", {})]}
    third = [*second, ask2, {"role": "tool", "tool_call_id": "c2", "content": "Error: denied"}]
    return first, second, third


def test_a_trace_of_an_anthropic_client_alone_reads_its_calls_from_its_generations() -> None:
    """R34, R40: the fixture (a real session, sanitized by Langfuse) holds only GENERATIONs of
    the Messages API; its 4 calls (one, then three at once) are read from the replies and
    answered by the next requests' tool_result blocks, counted by hand (fixtures/langfuse)."""
    result = wb.load_runs(ANTHROPIC_ONLY)
    assert result.format == "langfuse"
    (run,) = result.runs
    assert run.run_id == "trace-enter-agent-sdk-001"
    assert [b.call_id for b in run.boundaries] == [
        "toolu_01AAA",
        "toolu_01BBB",
        "toolu_01CCC",
        "toolu_01DDD",
    ]
    assert {b.tool for b in run.boundaries} == {"Read"}
    assert not any(b.is_error for b in run.boundaries)
    assert run.boundaries[1].location.endswith(": observations[1] output, block 0")
    assert run.metadata["callsFrom"] == "GENERATION"
    assert run.metadata["records"] == {"observation:GENERATION": 3}
    assert run.conversation is not None  # the model's side, as a cassette's (R40)
    assert run.answer is not None and "overview of the repository" in run.answer


@pytest.mark.parametrize("shape", ["messages", "body"])
def test_an_openai_clients_generations_pair_calls_with_the_next_calls_tool_messages(
    tmp_path: Path, shape: str
) -> None:
    """Langfuse's OpenAI integration keeps the messages alone as input and the assistant
    message alone as output (a text reply as its text); a request body and a completion read
    the same. A failure is the error rule's (Chat Completions has no flag)."""
    first, second, third = _openai_turns()
    last: Any = "It says Readme." if shape == "messages" else None
    replies = [second[1], third[3], last or {"role": "assistant", "content": "It says Readme."}]
    generations = []
    for n, (sent, said) in enumerate(zip([first, second, third], replies, strict=True)):
        if shape == "body":
            sent = {"model": "gpt-4o", "messages": sent}  # type: ignore[assignment]
            said = {"object": "chat.completion", "choices": [{"index": 0, "message": said}]}
        generations.append(_generation(n, sent, said))
    result = wb.load_runs(_export(tmp_path, generations), error_rule=wb.ErrorRule.prefix("Error:"))
    assert [(b.call_id, b.tool, b.is_error) for b in result.boundaries] == [
        ("c1", "read", False),
        ("c2", "ls", True),
    ]
    assert result.boundaries[1].location.endswith(": observations[1] output, tool call 0")
    assert result.runs[0].answer == "It says Readme."


def test_a_call_in_a_generations_last_reply_is_never_answered(tmp_path: Path) -> None:
    """R2: the trace ends before the call's result was sent; the problem names the
    observation, and the call before it still loads with --skip-problems."""
    first, second, _ = _openai_turns()
    generations = [_generation(0, first, second[1]), _generation(1, second, _openai_turns()[2][3])]
    with pytest.raises(wb.LoadError, match=r"observations\[1\] output, tool call 0 .*never"):
        wb.load_runs(_export(tmp_path, generations))
    result = wb.load_runs(_export(tmp_path, generations), strict=False)
    assert [b.call_id for b in result.boundaries] == ["c1"]


def test_tool_observations_win_over_the_calls_generations_hold(tmp_path: Path) -> None:
    """A trace with TOOL observations is read from them: the GENERATIONs' copies of the same
    calls are not read a second time."""
    first, second, _ = _openai_turns()
    observations = [
        _generation(0, first, second[1]),
        _observation(1, "TOOL", name="read"),
        _generation(2, second, {"role": "assistant", "content": "done"}),
    ]
    result = wb.load_runs(_export(tmp_path, observations))
    assert [b.call_id for b in result.boundaries] == ["obs-1"]
    assert "callsFrom" not in result.runs[0].metadata


def test_a_failed_generation_is_no_turn_and_text_only_generations_hold_no_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A model call Langfuse marks ERROR (a rate limit) is no turn of the conversation; a
    trace whose GENERATIONs call no tool is still refused, saying what it held (R35)."""
    first, second, third = _openai_turns()
    observations = [
        _generation(0, first, second[1]),
        _generation(1, second, {"error": "rate limited"}, level="ERROR"),
        _generation(2, second, third[3]),
        _generation(3, third, {"role": "assistant", "content": "It says Readme."}),
    ]
    result = wb.load_runs(_export(tmp_path, observations), error_rule=wb.ErrorRule.prefix("Error:"))
    assert [(b.call_id, b.is_error) for b in result.boundaries] == [("c1", False), ("c2", True)]
    talk = [_generation(0, first, {"role": "assistant", "content": "Hello."})]
    assert main(["boundaries", str(_export(tmp_path, talk))]) == 2
    assert "observation:GENERATION 1" in capsys.readouterr().err


def _anthropic_turns() -> tuple[list[Any], dict[str, Any], list[Any]]:
    """An Anthropic client's first request, its reply (a call) and the next request."""
    first = [{"role": "user", "content": "Look it up."}]
    use = {"type": "tool_use", "id": "tu1", "name": "lookup", "input": {"q": "x"}}
    reply = {"role": "assistant", "content": [use]}
    answer = {"type": "tool_result", "tool_use_id": "tu1", "content": "found"}
    return first, reply, [*first, reply, {"role": "user", "content": [answer]}]


def test_generations_of_two_apis_each_read_their_calls(tmp_path: Path) -> None:
    """An agent switching providers: its OpenAI and its Anthropic generations are each read
    as their conversation (a run each), neither dropped."""
    first, second, _ = _openai_turns()
    a_first, a_reply, a_second = _anthropic_turns()
    done = {"role": "assistant", "content": "done"}
    observations = [
        _generation(0, first, second[1]),
        _generation(1, second, done),
        _generation(2, a_first, a_reply),
        _generation(
            3, a_second, {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}
        ),
    ]
    result = wb.load_runs(_export(tmp_path, observations))
    assert sorted(b.call_id for b in result.boundaries) == ["c1", "tu1"]
    assert len(result.runs) == 2


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"level": "FATAL"}, "level"),
        ({"level": "error"}, "level"),
        ({"level": 3}, "level"),
        ({"input": '[{"role": "user", "content": NaN}]'}, "input"),
        ({"input": "[{broken"}, "input"),
        ({"output": 7}, "output"),
        ({"output": None}, "output"),
    ],
)
def test_a_broken_generation_is_a_problem_naming_its_field(
    tmp_path: Path, change: dict[str, Any], field: str
) -> None:
    """R35: a level Langfuse has not, input text that does not decode, an output that is no
    reply, or none at all: a problem at the observation and its field, never a load that
    drops the GENERATION and says nothing, nor one that blames another observation."""
    first, second, _ = _openai_turns()
    broken = {**_generation(1, second, {"role": "assistant", "content": "done"}), **change}
    result = wb.load_runs(
        _export(tmp_path, [_generation(0, first, second[1]), broken]), strict=False
    )
    assert ("observations[1]", field) in {(p.where, p.field) for p in result.problems}


def test_a_failed_last_generation_still_answers_the_calls_its_request_carries(
    tmp_path: Path,
) -> None:
    """A model call Langfuse marks ERROR has no reply, but its request carried the result of
    the call before it: that call is answered, and no problem says the reply is missing."""
    first, second, _ = _openai_turns()
    observations = [
        _generation(0, first, second[1]),
        _generation(1, second, {"error": "overloaded"}, level="ERROR"),
    ]
    result = wb.load_runs(_export(tmp_path, observations))
    assert [(b.call_id, b.is_error) for b in result.boundaries] == [("c1", False)]


def test_a_failed_first_call_takes_the_traces_api_and_a_copy_is_read_once(
    tmp_path: Path,
) -> None:
    """A reviewer's traces: an Anthropic client whose first call failed (its plain-text
    request names no API) made a phantom Chat Completions run; a GENERATION listed twice
    placed its call at the copy and reported a retry that never happened."""
    a_first, a_reply, a_second = _anthropic_turns()
    done = {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}
    observations = [
        _generation(0, a_first, {"error": "overloaded"}, level="ERROR"),
        _generation(1, a_first, a_reply),
        _generation(2, a_second, done),
    ]
    result = wb.load_runs(_export(tmp_path, observations))
    assert [run.run_id for run in result.runs] == ["t1"]
    assert [b.call_id for b in result.boundaries] == ["tu1"]
    first, second, _ = _openai_turns()
    twice = _generation(0, first, second[1])
    observations = [
        twice,
        dict(twice),
        _generation(1, second, {"role": "assistant", "content": "x"}),
    ]
    (run,) = wb.load_runs(_export(tmp_path, observations)).runs
    assert run.boundaries[0].location.endswith(": observations[0] output, tool call 0")
    assert "retriedExchanges" not in run.metadata
