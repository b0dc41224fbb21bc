"""A value of another type inside a real HTTP cassette's body never crashes a load (SPEC R35).

In an HTTP cassette (vcrpy's YAML, go-vcr's, Ruby's and R's VCR, an HTTP Archive, Datadog's test
agent, the Azure SDKs' test proxy) a request's or response's body is JSON text inside a string,
or server-sent events whose ``data:`` lines are JSON texts, so ``test_load_mutations``'s swaps
never reach the model's messages, tool calls and results in it. Here a body's JSON is decoded,
a value at a drawn place inside it is swapped for one of another type, and the body is encoded
back as the cassette held it (the same container, compressed as it was), so the readers of
each API meet the mutant where they do most of their work.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]  # no stubs in the test environment
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.boundaries import loaded_around_or_refused
from helpers.json_places import value_paths, with_values_swapped
from helpers.paths import FIXTURES

_CHAT = FIXTURES / "chat-cassettes"
_RESPONSES = FIXTURES / "openai-responses"
SOURCES = [
    # Chat Completions: vcrpy, streamed, Ruby's VCR, R's vcr, HAR, Polly.js, test proxy, Datadog
    _CHAT / "otel-contrib_chat_tool_calls_with_content.yaml",
    _CHAT / "mirascope_test_call_with_tools__openai_gpt_4o_completions__stream.yaml.gz",
    _CHAT / "pydantic_ai_groq_test_tool_use_failed_error_streaming.yaml",
    _CHAT / "ruby_llm_gpt-5-nano_tools_in_multi-turn_conversations.yml",
    _CHAT / "ellmer_parallel-tool-uneven.yml",
    _CHAT / "mirascope_handles-tool-execution-errors-and-retries.har",
    _CHAT / "openai_dotnet_ParallelToolCalls.test-proxy.json",
    _CHAT / "dd_trace_mistral_v1_chat_completions_post_5e983449.json",
    # Anthropic Messages: plain, streamed (SSE), on Bedrock's InvokeModel, in Datadog's agent
    _CHAT / "llm_anthropic_test_tools.yaml",
    _CHAT / "mirascope_test_web_search_tool_stream__anthropic_claude_sonnet_4_0.yaml.gz",
    *_CHAT.glob("crewai_TestAnthropicStructuredPlanning.*.yaml.gz"),
    _CHAT / "dd_trace_anthropic_v1_messages_post_28bbec95.json",
    _CHAT / "otel-contrib_bedrock_invoke_model_tool_call_anthropic.yaml",
    # Gemini API: plain, streamed (go-vcr), through ADK and Vertex AI
    _CHAT / "llm-gemini_test_tools.yaml",
    _CHAT / "fantasy_gemini-2.5-flash_multi_tool_streaming.go-vcr.yaml",
    _CHAT / "openinference_google_adk_multi_tool_call.yaml",
    _CHAT / "otel-contrib_vertexai_test_tool_events.yaml",
    # Responses: plain, streamed, the test proxy's streamed lines
    _RESPONSES / "openai_agents_test_agent_with_tool_errors.yaml",
    _RESPONSES / "openllmetry_openai_agents_router_handoff.yaml",
    _RESPONSES / "openai_dotnet_FunctionCallStreamingWorks.test-proxy.json",
    _RESPONSES / "openinference_agent_framework_multiple_tools.yaml",
    # Bedrock Converse, xAI, MCP over streamable HTTP
    FIXTURES / "bedrock-converse" / "otel-contrib_test_converse_tool_call_with_content.yaml",
    FIXTURES / "xai" / "pydantic-ai_test_xai_request_tool_call.xai.yaml",
    FIXTURES / "xai" / "pydantic-ai_test_xai_builtin_tools_with_custom_tools.xai.yaml",
    FIXTURES / "mcp" / "chatlas_test_call_http_mcp_tool.yaml",
    FIXTURES / "mcp" / "test_mcptoolset_in_temporal_workflow.yaml",
]
ODD: list[Any] = [
    *(None, True, 0, -1, 1.5, "", "x", [], {}, [None], {"": None}, [[]]),
    "Error: x",
]


def read_cassette(path: Path) -> Any:
    """The decoded cassette (YAML or JSON; a ``.gz`` one inflated)."""
    raw = path.read_bytes()
    name = path.name.removesuffix(".gz")
    text = (gzip.decompress(raw) if path.suffix == ".gz" else raw).decode("utf-8")
    return yaml.safe_load(text) if name.endswith((".yaml", ".yml")) else json.loads(text)


def write_cassette(path: Path, cassette: Any) -> None:
    """``cassette`` written as its source was (YAML or JSON; a ``.gz`` one compressed)."""
    name = path.name.removesuffix(".gz")
    yml = name.endswith((".yaml", ".yml"))
    text = yaml.safe_dump(cassette) if yml else json.dumps(cassette)
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if path.suffix == ".gz" else data)


class _Object(dict[str, Any]):
    """A JSON text of an object inside a body (a call's arguments, a tool's result), decoded."""


class _Array(list[Any]):
    """A JSON text of an array inside a body, decoded."""


def _json(text: str) -> Any:
    """``text``'s JSON object or array, or ``None``."""
    if not text.lstrip().startswith(("{", "[")):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict | list) else None


def _decoded(value: Any) -> Any:
    """``value`` with each JSON text of an object or array in it decoded (as an
    :class:`_Object` or :class:`_Array`, so that :func:`_encoded` encodes it back)."""
    if isinstance(value, str) and (inner := _json(value)) is not None:
        inner = _decoded(inner)
        return _Object(inner) if isinstance(inner, dict) else _Array(inner)
    if isinstance(value, dict):
        return {k: _decoded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decoded(v) for v in value]
    return value


def _encoded(value: Any) -> Any:
    """``value`` with each decoded JSON text in it encoded back."""
    if isinstance(value, dict):
        out: Any = {k: _encoded(v) for k, v in value.items()}
    elif isinstance(value, list):
        out = [_encoded(v) for v in value]
    else:
        return value
    return json.dumps(out) if isinstance(value, _Object | _Array) else out


def _swapped(value: Any, data: st.DataObject) -> Any:
    """``value`` (a body's JSON, or its events' data) with values of another type at one to
    three drawn places, in it or in the JSON texts it holds."""
    return _encoded(with_values_swapped(_decoded(value), data, st.sampled_from(ODD)))


def _events(text: str) -> list[tuple[int, str, Any]]:
    """The lines of server-sent events ``text`` whose data is a JSON object or array: each
    line's index, its ``data:`` prefix and its decoded data."""
    out = []
    for index, line in enumerate(text.split("\n")):
        if line.startswith("data:"):
            data = line[5:]
            prefix = "data:" + data[: len(data) - len(data.lstrip())]
            value = _json(data.rstrip("\r"))
            if value is not None:
                out.append((index, prefix, value))
    return out


def body_places(cassette: Any) -> list[tuple[Any, ...]]:
    """The places of the strings in ``cassette`` that are a JSON text of an object or array, or
    server-sent events with such data (the bodies of the requests and responses)."""
    found = []
    for place in value_paths(cassette):
        value = _at(cassette, place)
        if isinstance(value, str) and (_json(value) is not None or _events(value)):
            found.append(place)
    return found


def _at(value: Any, place: tuple[Any, ...]) -> Any:
    for key in place:
        value = value[key]
    return value


def swapped_in_a_body(cassette: Any, data: st.DataObject) -> Any:
    """``cassette`` (changed in place) with a drawn body's JSON given values of another type at
    one to three drawn places (inside the JSON texts it holds too), and encoded back as it was
    (JSON text, or events' lines)."""
    place = data.draw(st.sampled_from(body_places(cassette)))
    text = _at(cassette, place)
    if (value := _json(text)) is not None:
        new = json.dumps(_swapped(value, data))
    else:
        events = _events(text)
        changed = _swapped([e[2] for e in events], data)
        lines = text.split("\n")
        for (index, prefix, _), event in zip(events, changed, strict=True):
            end = "\r" if lines[index].endswith("\r") else ""
            lines[index] = prefix + json.dumps(event) + end
        new = "\n".join(lines)
    _at(cassette, place[:-1])[place[-1]] = new
    return cassette


def test_every_source_has_a_body_of_json() -> None:
    """Each chosen cassette holds a JSON body for the property to change."""
    assert all(body_places(read_cassette(source)) for source in SOURCES)


@settings(
    max_examples=100,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(st.sampled_from(SOURCES), st.data())
def test_a_value_of_another_type_in_a_body_is_loaded_around_or_refused(
    tmp_path: Path, source: Path, data: st.DataObject
) -> None:
    """R35: a real cassette with a value of another type somewhere inside one of its bodies'
    JSON loads what it can or is refused with places (20,000 examples over all 69 cassettes
    of the five folders with JSON bodies found no crash when this was written)."""
    path = tmp_path / source.name
    write_cassette(path, swapped_in_a_body(read_cassette(source), data))
    loaded_around_or_refused(path)
