"""A Langfuse tool run's args are what the model sent; ADK's record of a result is read (SPEC
R34, R35).

The real exports are in ``fixtures/langfuse`` (SOURCE.md counts them by hand). A tool run's
observation holds what the framework gave the tool, which is not always what the model sent:
the Claude Agent SDK's integration wraps it (``{"input": {"city": "Berlin"}}``), LangGraph's
Python handler writes Python's repr (``{'query': 'example'}``). A promoted suite's fixtures are
matched on tool and args as an agent sends them at replay, so with the span's input as the args
no replay of those runs could match. The traces written here are SYNTHETIC or real exports
with observations taken out, as each test says.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench as wb
from helpers.boundaries import loaded_around_or_refused
from helpers.json_places import with_values_swapped
from helpers.paths import FIXTURES

FOLDER = FIXTURES / "langfuse"
CLAUDE = FOLDER / "claude-agent-2025-12-22.trace.json"
ADK = FOLDER / "google-adk-2025-08-28.trace.json"

# Read by eye from each export (fixtures/langfuse/SOURCE.md): each call's tool, the args the
# model's reply holds, and where the workbench reads them ("GENERATION": the model's request;
# None: a reader that takes calls from elsewhere, BeeAI's steps or the GENERATIONs alone).
BY_HAND: dict[str, list[tuple[str, Any, str | None]]] = {
    "agno-2025-06-11.trace.json": [
        ("duckduckgo_search", {"query": "currently trending on Twitter"}, "GENERATION")
    ],
    "anthropic-messages-api-2026-03-25.trace.json": [
        ("Read", {"file_path": "/workspace/project/README.md"}, None),
        ("Read", {"file_path": "/workspace/project/src/main.ts"}, None),
        ("Read", {"file_path": "/workspace/project/package.json"}, None),
        ("Read", {"file_path": "/workspace/project/tsconfig.json", "limit": 50}, None),
    ],
    "beeai-2025-08-01.trace.json": [
        ("Wikipedia", {"query": "Tourism in Barcelona"}, None),
        ("OpenMeteoTool", {"location_name": "Barcelona", "country": "Spain"}, None),
    ],
    "claude-agent-2025-12-22.trace.json": [
        ("mcp__weather__get_weather", {"city": "Berlin"}, "GENERATION"),
        ("mcp__weather__get_weather", {"city": "New York"}, "GENERATION"),
    ],
    "csharp-agent-with-gemini-2026-03-09.trace.json": [
        (
            "get_custom_report",
            {
                "dimensions": ["Campaign"],
                "filters": {"dateRange": {"from_date": "2025-10-01", "to_date": "2025-12-31"}},
                "timeDimension": "Month",
                "metrics": ["Cost", "Displays", "Clicks", "Ctr", "Sales", "Cvr"],
            },
            "GENERATION",
        ),
        ("final_result", "wrapped", "GENERATION"),  # the model's own {"input": {...}}: below
    ],
    "google-adk-2025-08-28.trace.json": [("say_hello", {}, "GENERATION")],
    "koog-2025-08-26.trace.json": [
        ("ByeTool", {"name": "Bob"}, "GENERATION"),
        ("HelloTool", {"name": "Bob"}, "GENERATION"),
    ],
    "langgraph-js-2025-10-30.trace.json": [
        ("get_weather", {"city": "San Francisco"}, "GENERATION")
    ],
    "langgraph-python-2025-08-22.trace.json": [("Web-Search", {"query": "example"}, "GENERATION")],
    "pydantic-ai-2025-06-06.trace.json": [],
    "pydantic-ai-tools-2025-12-04.trace.json": [
        ("get_pun_suggestion", {"topic": "programming"}, "GENERATION"),
        ("get_dad_joke_suggestion", {"topic": "programming"}, "GENERATION"),
        ("get_one_liner_suggestion", {"topic": "programming"}, "GENERATION"),
    ],
    "seeder-langgraph-2025-08-22.json": [("Web-Search", {"query": "example"}, "GENERATION")],
    "seeder-microsoft-agent-2025-10-14.json": [
        ("get_weather", {"location": "Portland"}, "GENERATION")
    ],
    "vercel-aisdk-2025-11-17.trace.json": [
        ("getWeather", {"location": "San Francisco"}, "GENERATION")
    ],
}


def test_every_real_export_is_pinned_by_hand() -> None:
    """The table above covers every Langfuse export of the fixtures."""
    assert sorted(BY_HAND) == sorted(p.name for p in FOLDER.glob("*.json"))


@pytest.mark.parametrize("name", sorted(BY_HAND))
def test_each_real_exports_calls_carry_the_args_the_model_sent(name: str) -> None:
    """R34: every real export's calls, with the args its model's replies hold (read by eye),
    and ``extra.argsFrom`` saying they were read from the model's request."""
    result = wb.load_runs(FOLDER / name, strict=False)
    got = [(b.tool, b.args, b.extra.get("argsFrom")) for b in result.boundaries]
    expected = BY_HAND[name]
    if name.startswith("csharp"):  # final_result: the model itself sent {"input": {...}}
        replies = [o["output"] for o in _observations(FOLDER / name) if o["type"] == "GENERATION"]
        (part,) = json.loads(replies[-1])[0]["parts"]  # the last reply: the final_result call
        assert part["name"] == "final_result"
        assert set(part["arguments"]) == {"input"}
        expected = [*expected[:1], ("final_result", part["arguments"], "GENERATION")]
    assert got == expected


def test_the_claude_agent_sdks_wrapped_span_input_is_not_the_args() -> None:
    """R34: the Claude Agent SDK's TOOL observations hold ``{"input": {"city": ...}}``; the
    model's ``tool_use`` blocks hold ``{"city": ...}``, which is what an agent sends at replay.
    The tool_use id is kept (``extra.modelCallId``), and the promoted fixtures match it."""
    result = wb.load_runs(CLAUDE)
    assert [(b.args, b.extra["modelCallId"]) for b in result.boundaries] == [
        ({"city": "Berlin"}, "toolu_01TKoqQLvY2UWuC49qnD48y7"),
        ({"city": "New York"}, "toolu_01NtVat4vJLFfVd5TqdLHcA7"),
    ]
    inputs = [json.loads(o["input"]) for o in _observations(CLAUDE) if o["type"] == "TOOL"]
    assert inputs == [{"input": {"city": "Berlin"}}, {"input": {"city": "New York"}}]
    suite = wb.promote(result).suite.data
    fixtures = suite["tasks"][0]["fixtures"]["toolResponses"]
    assert [f["args"] for f in fixtures] == [{"city": "Berlin"}, {"city": "New York"}]


def test_langgraph_pythons_repr_text_is_not_the_args() -> None:
    """R34: LangGraph's Python handler wrote the span's input as Python's repr,
    ``{'query': 'example'}`` (no JSON); the model asked for ``{"query": "example"}``, the same
    in the export that keeps it as text and the one that keeps it parsed."""
    for name in ("langgraph-python-2025-08-22.trace.json", "seeder-langgraph-2025-08-22.json"):
        (call,) = wb.load_runs(FOLDER / name).boundaries
        assert call.args == {"query": "example"}
        span = next(o for o in _observations(FOLDER / name) if o["name"] == "Web-Search")
        assert span["input"] == "{'query': 'example'}"


def test_with_no_model_request_the_span_input_is_the_args_and_says_so(tmp_path: Path) -> None:
    """R34: the real Claude Agent SDK export with its GENERATIONs taken out: no request
    matches, so the args are the TOOL observations' input, ``extra.argsFrom: input``."""
    data = json.loads(CLAUDE.read_text(encoding="utf-8"))
    kept = [o for o in data["observations"] if o["type"] != "GENERATION"]
    result = wb.load_runs(_written(tmp_path, data, kept))
    assert [(b.args, b.extra["argsFrom"]) for b in result.boundaries] == [
        ({"input": {"city": "Berlin"}}, "input"),
        ({"input": {"city": "New York"}}, "input"),
    ]
    assert all("modelCallId" not in b.extra for b in result.boundaries)


def test_the_vercel_sdks_two_copies_of_one_reply_are_one_request() -> None:
    """The Vercel AI SDK's ``ai.generateText`` and its ``doGenerate`` both hold the reply: one
    request, matched to the one TOOL observation by the id its ``ai.toolCall.id`` names, which
    is the call's id."""
    (call,) = wb.load_runs(FOLDER / "vercel-aisdk-2025-11-17.trace.json").boundaries
    assert call.call_id == "call_DgKARp7a7IhJPDczfifMp6Ra" and "modelCallId" not in call.extra
    assert call.args == {"location": "San Francisco"}


def _tool(
    n: int,
    name: str,
    call_id: str | None = None,
    given: Any = None,
    id_key: str = "gen_ai.tool.call.id",
    **fields: Any,
) -> dict[str, Any]:
    """A tool run at second ``n``; ``given``: its input (default ``{"wrapped": n}``, which
    agrees with no request)."""
    attributes: dict[str, Any] = {"gen_ai.operation.name": "execute_tool"}
    if call_id is not None:
        attributes[id_key] = call_id
    return {
        "id": f"obs-{n}",
        "traceId": "t1",
        "type": "TOOL",
        "name": name,
        "startTime": f"2026-01-01T00:00:{n:02d}.000Z",
        "endTime": f"2026-01-01T00:00:{n:02d}.500Z",
        "input": json.dumps({"wrapped": n} if given is None else given),
        "output": "ok",
        "metadata": {"attributes": attributes},
        **fields,
    }


def _reply(n: int, calls: list[tuple[str | None, str, dict[str, Any]]]) -> dict[str, Any]:
    """A GENERATION whose Chat Completions reply asks for ``calls`` (id, tool, args)."""
    asked = [
        {"id": i, "type": "function", "function": {"name": t, "arguments": json.dumps(a)}}
        for i, t, a in calls
    ]
    return {
        **_tool(n, "ChatOpenAI"),
        "type": "GENERATION",
        "metadata": None,
        "output": json.dumps({"role": "assistant", "content": None, "tool_calls": asked}),
    }


def test_a_run_matches_its_request_by_id_else_by_name_in_order(tmp_path: Path) -> None:
    """SYNTHETIC: two requests of one tool; runs carrying ids are matched by id whatever their
    order, runs carrying none by name in order (their inputs, wrapped as the Claude Agent SDK
    wraps them, agree); a run before any request, or after all are matched, keeps its input,
    ``argsFrom: input``."""
    observations = [
        _tool(0, "lookup"),
        _reply(1, [("c1", "lookup", {"q": 1}), ("c2", "lookup", {"q": 2})]),
        _tool(2, "lookup", "c2", {"input": {"q": 2}}),
        _tool(3, "lookup", "c1", {"input": {"q": 1}}),
        _reply(4, [("c3", "lookup", {"q": 3}), ("c4", "lookup", {"q": 4})]),
        _tool(5, "lookup", None, {"input": {"q": 3}}),
        _tool(6, "lookup", None, {"input": {"q": 4}}),
        _tool(7, "lookup"),
    ]
    result = wb.load_runs(_written(tmp_path, {"trace": {"id": "t1"}}, observations))
    got = [(b.args, b.extra["argsFrom"]) for b in result.boundaries]
    assert got == [
        ({"wrapped": 0}, "input"),
        ({"q": 2}, "GENERATION"),
        ({"q": 1}, "GENERATION"),
        ({"q": 3}, "GENERATION"),
        ({"q": 4}, "GENERATION"),
        ({"wrapped": 7}, "input"),
    ]


@pytest.mark.parametrize(
    "given",
    [
        lambda q: {"input": {"q": q}},  # the Claude Agent SDK's wrapping
        lambda q: {"q": q},  # the args as they are
        lambda q: f"{{'q': {q}}}",  # Python's repr (LangGraph's Python handler)
    ],
)
def test_runs_of_one_tool_in_another_order_take_the_request_their_input_agrees_with(
    tmp_path: Path, given: Any
) -> None:
    """R34: SYNTHETIC: one reply asks for two calls of a tool (no ids) and they run the other
    way round; each run takes the request its own input agrees with, never its neighbour's
    (they were crossed: a promoted suite then served each call the other's args)."""
    observations = [
        _reply(1, [(None, "weather", {"q": 1}), (None, "weather", {"q": 2})]),
        _tool(2, "weather", None, given(2)),
        _tool(3, "weather", None, given(1)),
    ]
    result = wb.load_runs(_written(tmp_path, {"trace": {"id": "t1"}}, observations))
    assert [(b.args, b.extra["argsFrom"]) for b in result.boundaries] == [
        ({"q": 2}, "GENERATION"),
        ({"q": 1}, "GENERATION"),
    ]


def test_a_run_that_recorded_no_input_takes_its_request_by_order(tmp_path: Path) -> None:
    """A run whose observation holds no input (``null``, ``{}``: ADK's) cannot disagree: the
    requests of its tool are taken in order."""
    observations = [
        _reply(1, [(None, "weather", {"q": 1}), (None, "weather", {"q": 2})]),
        _tool(2, "weather", None, {}),
        _tool(3, "weather", None, {}, input=None),
    ]
    result = wb.load_runs(_written(tmp_path, {"trace": {"id": "t1"}}, observations))
    assert [b.args for b in result.boundaries] == [{"q": 1}, {"q": 2}]


def test_a_run_ahead_of_its_generations_clock_does_not_shift_the_next_runs_args(
    tmp_path: Path,
) -> None:
    """SYNTHETIC: a run that starts before the GENERATION asking for it (clocks differ) keeps
    its input; the next run still takes its own request, not the one the first left open."""
    observations = [
        _tool(0, "lookup", None, {"input": {"k": "first"}}),
        _reply(1, [(None, "lookup", {"k": "first"}), (None, "lookup", {"k": "second"})]),
        _tool(2, "lookup", None, {"input": {"k": "second"}}),
    ]
    result = wb.load_runs(_written(tmp_path, {"trace": {"id": "t1"}}, observations))
    assert [(b.args, b.extra["argsFrom"]) for b in result.boundaries] == [
        ({"input": {"k": "first"}}, "input"),
        ({"k": "second"}, "GENERATION"),
    ]


def test_an_id_used_again_in_a_later_reply_matches_each_request_once(tmp_path: Path) -> None:
    """R2 lets an id be used again once its call is answered: two replies of the id ``X``,
    both runs after both replies; each run takes the request its input agrees with, the
    earlier first (the later reply's args were given to the first run)."""
    observations = [
        _reply(1, [("X", "lookup", {"k": "first"})]),
        _reply(2, [("X", "lookup", {"k": "second"})]),
        _tool(3, "lookup", "X", {"input": {"k": "first"}}),
        _tool(4, "lookup", "X", {}),
    ]
    result = wb.load_runs(_written(tmp_path, {"trace": {"id": "t1"}}, observations))
    assert [b.args for b in result.boundaries] == [{"k": "first"}, {"k": "second"}]


def test_the_vercel_sdks_tool_call_id_picks_the_run_s_request(tmp_path: Path) -> None:
    """The Vercel AI SDK names a run's call in ``ai.toolCall.id``: two calls of one tool, run
    the other way round, each take the request of their id (and it is the call's id)."""
    observations = [
        _reply(1, [("call_A", "getWeather", {"city": "SF"}), ("call_B", "getWeather", {})]),
        _tool(2, "getWeather", "call_B", {}, id_key="ai.toolCall.id"),
        _tool(3, "getWeather", "call_A", {}, id_key="ai.toolCall.id"),
    ]
    result = wb.load_runs(_written(tmp_path, {"trace": {"id": "t1"}}, observations))
    assert [(b.call_id, b.args) for b in result.boundaries] == [
        ("call_B", {}),
        ("call_A", {"city": "SF"}),
    ]


@pytest.mark.parametrize("args", [42, True, [1, 2]])
def test_a_request_whose_arguments_are_of_a_type_never_written_is_a_problem(
    tmp_path: Path, args: Any
) -> None:
    """R35: Chat Completions ``arguments`` are JSON text (or, as Langfuse's seeder keeps them,
    an object): a number, a boolean or a list is a problem naming the GENERATION's output, and
    that request gives no run its args."""
    reply = _reply(1, [("c1", "lookup", {})])
    output = json.loads(reply["output"])
    output["tool_calls"][0]["function"]["arguments"] = args
    reply["output"] = json.dumps(output)
    path = _written(tmp_path, {"trace": {"id": "t1"}}, [reply, _tool(2, "lookup", "c1")])
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path)
    (problem,) = refused.value.problems
    assert (problem.where, problem.field) == ("observations[0]", "output")
    assert "arguments of type" in problem.message
    (call,) = wb.load_runs(path, strict=False).boundaries
    assert (call.args, call.extra["argsFrom"]) == ({"wrapped": 2}, "input")


def test_adks_tool_response_attribute_is_the_result_not_the_empty_output() -> None:
    """R34, R35: ADK's TOOL observation's ``output`` is ``{}`` in the real export, but its
    ``gcp.vertex.agent.tool_response`` attribute holds what the tool gave (the
    ``function_response`` the next GENERATION sent the model): that is served, and says so."""
    (call,) = wb.load_runs(ADK).boundaries
    assert call.response == {"greeting": "Hello Langfuse 👋"}
    assert call.extra["resultFrom"] == "gcp.vertex.agent.tool_response"
    tool = next(o for o in _observations(ADK) if o["type"] == "TOOL")
    assert tool["output"] == "{}"
    sent = json.loads(_observations(ADK)[-1]["input"])["contents"][-1]["parts"][0]
    assert sent["function_response"]["response"] == call.response
    fixtures = wb.promote(wb.load_runs(ADK)).suite.data["tasks"][0]["fixtures"]
    served = fixtures["toolResponses"][0]["response"]  # an MCP result: the object as is
    assert served["structuredContent"] == {"greeting": "Hello Langfuse 👋"}


def test_adks_tool_call_args_attribute_is_read_when_no_request_matches(tmp_path: Path) -> None:
    """R34: the real ADK export with its GENERATIONs taken out: the args are ADK's
    ``gcp.vertex.agent.tool_call_args``; an attribute that is no object (ADK writes
    ``<not serializable>`` for what it cannot write) is not read, and the observation's own
    input and output are."""
    data = json.loads(ADK.read_text(encoding="utf-8"))
    kept = [o for o in data["observations"] if o["type"] != "GENERATION"]
    (call,) = wb.load_runs(_written(tmp_path, data, kept)).boundaries
    assert (call.args, call.extra["argsFrom"]) == ({}, "gcp.vertex.agent.tool_call_args")
    assert call.response == {"greeting": "Hello Langfuse 👋"}
    for observation in kept:
        if observation["type"] == "TOOL":
            metadata = json.loads(observation["metadata"])
            for key in ("gcp.vertex.agent.tool_call_args", "gcp.vertex.agent.tool_response"):
                metadata["attributes"][key] = "<not serializable>"
            observation["metadata"] = json.dumps(metadata)
            observation["input"] = json.dumps({"name": "x"})
    (call,) = wb.load_runs(_written(tmp_path, data, kept)).boundaries
    assert (call.args, call.extra["argsFrom"]) == ({"name": "x"}, "input")
    assert call.response == {} and "resultFrom" not in call.extra


@pytest.mark.parametrize(
    "response", ['{"greeting": NaN}', '{"n": 1' + "0" * 30 + "}", "42", '["a"]', "true"]
)
def test_an_adk_tool_response_adk_never_writes_is_a_problem(tmp_path: Path, response: str) -> None:
    """R35: ADK writes ``tool_response`` as JSON text of an object (a result of another type
    wrapped as ``{"result": ...}``): JSON of no object, or text opening as JSON that does not
    decode as strictly as a file, is a problem naming the attribute (it was dropped, and the
    output's ``{}`` served as the tool's answer)."""
    data = json.loads(ADK.read_text(encoding="utf-8"))
    for observation in data["observations"]:
        if observation["type"] == "TOOL":
            metadata = json.loads(observation["metadata"])
            metadata["attributes"]["gcp.vertex.agent.tool_response"] = response
            observation["metadata"] = json.dumps(metadata)
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(_written(tmp_path, data, data["observations"]))
    (problem,) = refused.value.problems
    assert problem.field == "metadata.attributes.gcp.vertex.agent.tool_response", problem


def _parsed(value: Any) -> Any:
    """``value`` with every JSON text of an object or array in it decoded (the reply the
    model's requests are read from, the metadata ADK's attributes are in)."""
    if isinstance(value, str) and value[:1] in ("{", "["):
        try:
            return _parsed(json.loads(value))
        except ValueError:
            return value
    if isinstance(value, dict):
        return {k: _parsed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_parsed(v) for v in value]
    return value


_ODD: list[Any] = [None, True, 0, -1, 1.5, "", "x", [], {}, [None], {"": None}, [[]], "Error: x"]


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.sampled_from(sorted(BY_HAND)), st.data())
def test_a_value_of_another_type_in_a_reply_or_an_attribute_is_no_crash(
    tmp_path: Path, name: str, data: st.DataObject
) -> None:
    """R35: every real export with its JSON texts decoded (so that a swap reaches inside the
    model's replies and ADK's attributes) and a value of another type put anywhere loads what
    it can or is refused with places (2,500 examples passed when this was written)."""
    value = _parsed(json.loads((FOLDER / name).read_text(encoding="utf-8")))
    path = tmp_path / name
    path.write_text(json.dumps(with_values_swapped(value, data, st.sampled_from(_ODD))), "utf-8")
    loaded_around_or_refused(path)


def _observations(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return sorted(data["observations"], key=lambda o: o["startTime"])


def _written(tmp_path: Path, data: dict[str, Any], observations: list[Any]) -> Path:
    """An export of ``data``'s trace holding ``observations`` (a copy), in a new file."""
    value = copy.deepcopy(data)
    value["observations"] = copy.deepcopy(observations)
    value["trace"] = {**value["trace"], "observations": value["observations"]}
    path = tmp_path / f"trace-{len(list(tmp_path.iterdir()))}.json"
    path.write_text(json.dumps(value), encoding="utf-8")
    return path
