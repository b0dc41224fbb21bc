"""HTTP cassettes of chat APIs (Chat Completions, Anthropic Messages) read as their conversations
(SPEC R2, R34-R36).

The real cassettes in ``fixtures/chat-cassettes/`` are loaded against their hand counts with the
other real recordings (``helpers/recordings.py``); this file checks what is particular to the
container, on real files and on generated (SYNTHETIC) ones: the exchanges of several
conversations in any interleaving, retried, failed or streamed, give each conversation's calls
once, and nothing else.
"""

from __future__ import annotations

import base64
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]  # no stubs in the test environment
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench as wb
from helpers.paths import FIXTURES

CASSETTES = FIXTURES / "chat-cassettes"
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

Call = tuple[str, dict[str, Any], bool]
"""A generated call: tool, arguments, whether its result is a failure."""
Turns = list[list[Call]]
"""A generated conversation: the calls of each model turn (the last reply is text)."""

TOOLS = st.sampled_from(["lookup", "refund", "get_weather", "search"])
ARGS = st.dictionaries(st.sampled_from(["id", "q", "n"]), st.integers(0, 99) | st.text(max_size=6))
TURNS = st.lists(
    st.lists(st.tuples(TOOLS, ARGS, st.booleans()), min_size=1, max_size=3), max_size=4
)
CONVERSATIONS = st.lists(TURNS, min_size=1, max_size=4).filter(lambda c: any(map(any, c)))


# --- real cassettes -------------------------------------------------------------------------


def test_a_pydantic_ai_output_tool_call_ends_the_run_and_is_kept_as_a_terminal_call() -> None:
    """R36: ``final_result`` is answered by no request, by design; it is not a problem."""
    result = wb.load_runs(CASSETTES / "pydantic_ai_openai_test_openai_tool_output.yaml")
    assert result.format == "openai-chat"
    run = result.run
    assert [b.tool for b in run.boundaries] == ["get_user_country"]
    assert [c["tool"] for c in run.metadata["terminalCalls"]] == ["final_result"]
    assert run.metadata["exchanges"] == [0, 1]


def test_a_call_no_request_answers_is_a_problem_naming_its_interaction() -> None:
    """R2: the cassette ends after a reply that called ``divide``; nothing answers it."""
    path = CASSETTES / "pydantic_ai_openrouter_test_openrouter_tool_calling.yaml"
    with pytest.raises(wb.LoadError) as raised:
        wb.load_runs(path)
    (problem,) = raised.value.problems
    assert problem.where == "interaction 0, response, tool call 0"
    assert "'divide' is never answered" in problem.message


def test_a_refused_model_call_is_kept_as_another_exchange_not_read_into_the_conversation() -> None:
    """R35: Groq refused the first request (HTTP 400); pydantic-ai retried with a tool call it
    made from the refused generation, and answered it with its validation errors."""
    path = CASSETTES / "pydantic_ai_groq_test_tool_use_failed_error.yaml"
    rule = wb.ErrorRule.regex(r"Fix the errors and try again\.$")
    run = wb.load_runs(path, error_rule=rule).run
    assert [(b.tool, b.args, b.is_error) for b in run.boundaries] == [
        ("get_something_by_name", {"foo": "bar"}, True),
        ("get_something_by_name", {"name": "test"}, False),
    ]
    other = run.metadata["otherExchanges"]
    assert [(o["interaction"], o["status"]) for o in other] == [(0, 400)]


AUDIO_REFUSED = [
    ("pydantic_ai_multimodal_direct-binary-audio-openai_chat.yaml", 1, "See file 2d36ae."),
    (
        "pydantic_ai_multimodal_tool_return_content-url-audio-openai_chat.yaml.gz",
        2,
        "File attached",
    ),
]
"""pydantic-ai's multimodal matrix: ``get_file`` called, its result sent with the audio, and
that request refused (HTTP 400: OpenAI takes no audio there); the refused exchange's index."""


@pytest.mark.parametrize(("name", "refused", "text"), AUDIO_REFUSED)
def test_a_call_answered_in_a_request_the_api_refused_is_answered(
    name: str, refused: int, text: str
) -> None:
    """R2, R35: the client did answer ``get_file`` (by hand: 1 call, 1 result, 0 failed); the
    request carrying the answer was refused, and is still kept as another exchange."""
    run = wb.load_runs(CASSETTES / name).run
    assert [(b.tool, b.args, b.is_error, b.response) for b in run.boundaries] == [
        ("get_file", {}, False, text)
    ]
    other = run.metadata["otherExchanges"]
    chat = [o for o in other if o["uri"].endswith("/chat/completions")]
    assert [(o["interaction"], o["status"]) for o in chat] == [(refused, 400)]
    assert run.metadata["exchanges"] == [0]


def test_only_the_first_refused_request_that_goes_on_from_the_last_reply_answers_it() -> None:
    """R2, R35: a refused request sent before the reply answers nothing; of two refused ones
    that send the reply back with its call answered, the first gives the answer. Both stay
    other exchanges (SYNTHETIC)."""
    first, second = _openai_exchanges(0, [[("lookup", {"id": 1}, False)]], stream=False)
    refusal = {"status": {"code": 400}, "body": {"string": '{"error": {}}'}}
    early, refused = json.loads(json.dumps(first)), json.loads(json.dumps(second))
    early["response"] = refused["response"] = refusal
    again = json.loads(json.dumps(refused))
    again["request"]["body"] = again["request"]["body"].replace('"ok 0"', '"ok again"')
    result = _load([early, first, refused, again])
    assert result.problems == ()
    assert [(b.tool, b.response) for b in result.boundaries] == [("lookup", "ok 0")]
    other = result.run.metadata["otherExchanges"]
    assert [(o["interaction"], o["status"]) for o in other] == [(0, 400), (2, 400), (3, 400)]
    for interactions in ([early, first], [refused, first]):  # nothing answers the call
        (problem,) = _load(interactions).problems
        assert "'lookup' is never answered" in problem.message


def test_a_cassette_mixing_apis_reads_the_chat_conversation_and_keeps_the_rest() -> None:
    """Gemini calls (not a chat API the workbench reads) then OpenAI chat with that history."""
    result = wb.load_runs(CASSETTES / "pydantic_ai_openai_test_multiple_agent_tool_calls.yaml")
    assert result.format == "openai-chat"
    assert [b.args for b in result.boundaries] == [{"country": "France"}, {"country": "England"}]
    other = result.run.metadata["otherExchanges"]
    assert [o["interaction"] for o in other] == [0, 1]
    assert all("generativelanguage" in o["uri"] for o in other)


def test_a_wrong_explicit_format_is_refused_with_what_the_cassette_holds() -> None:
    path = CASSETTES / "pydantic_ai_anthropic_test_multiple_parallel_tool_calls.yaml"
    with pytest.raises(wb.LoadError) as raised:
        wb.load_runs(path, format="openai-chat")
    (problem,) = raised.value.problems
    assert "--format openai-chat does not fit" in problem.message
    assert "Anthropic messages transcript (--format anthropic" in problem.message
    assert wb.load_runs(path, format="anthropic").format == "anthropic"


def test_streamed_server_tool_calls_are_assembled_from_their_events() -> None:
    """Anthropic's MCP connector, streamed: the call's input comes in ``input_json_delta``s."""
    result = wb.load_runs(
        CASSETTES / "pydantic_ai_anthropic_test_anthropic_mcp_servers_stream.yaml"
    )
    (boundary,) = result.boundaries
    assert boundary.call_id.startswith("mcptoolu_")
    assert isinstance(boundary.args, dict) and boundary.args  # parsed from the deltas


# --- generated cassettes (SYNTHETIC) ---------------------------------------------------------


def _openai_exchanges(number: int, turns: Turns, *, stream: bool) -> list[dict[str, Any]]:
    """One conversation's Chat Completions exchanges, each request resending the history."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You help."},
        {"role": "user", "content": f"task {number}"},
    ]
    out = []
    for t, calls in enumerate([*turns, []]):
        if calls:
            reply: dict[str, Any] = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"c{number}-{t}-{i}",
                        "type": "function",
                        "function": {"name": tool, "arguments": json.dumps(args)},
                    }
                    for i, (tool, args, _) in enumerate(calls)
                ],
            }
        else:
            reply = {"role": "assistant", "content": f"done {number}"}
        response: Any = {"object": "chat.completion", "choices": [{"index": 0, "message": reply}]}
        body = _sse(_openai_chunks(reply)) if stream else json.dumps(response)
        out.append(_exchange("https://api.example.com/v1/chat/completions", list(messages), body))
        messages.append(reply)
        for i, (_, _, failed) in enumerate(calls):
            text = f"Error: no such {i}" if failed else f"ok {i}"
            messages.append({"role": "tool", "tool_call_id": f"c{number}-{t}-{i}", "content": text})
    return out


def _openai_chunks(reply: dict[str, Any]) -> list[dict[str, Any]]:
    """A reply as streamed chunks: each call's arguments cut in two."""
    chunks: list[dict[str, Any]] = [{"choices": [{"index": 0, "delta": {"role": "assistant"}}]}]
    if reply.get("content"):
        chunks.append({"choices": [{"index": 0, "delta": {"content": reply["content"]}}]})
    for i, call in enumerate(reply.get("tool_calls") or ()):
        arguments = call["function"]["arguments"]
        half = len(arguments) // 2
        first = {"index": i, "id": call["id"], "type": "function"}
        first["function"] = {"name": call["function"]["name"], "arguments": arguments[:half]}
        rest = {"index": i, "function": {"arguments": arguments[half:]}}
        chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [first]}}]})
        chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [rest]}}]})
    return chunks


def _anthropic_exchanges(number: int, turns: Turns, *, stream: bool) -> list[dict[str, Any]]:
    """One conversation's Messages exchanges; the client moves ``cache_control`` to the newest
    user turn on every request, as prompt caching clients do."""
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": [{"type": "text", "text": f"task {number}"}]}
    ]
    out = []
    for t, calls in enumerate([*turns, []]):
        blocks: list[dict[str, Any]] = [
            {"type": "tool_use", "id": f"t{number}-{t}-{i}", "name": tool, "input": args}
            for i, (tool, args, _) in enumerate(calls)
        ] or [{"type": "text", "text": f"done {number}"}]
        reply = {"role": "assistant", "content": blocks}
        sent = json.loads(json.dumps(messages))
        sent[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
        response = {"type": "message", "role": "assistant", "content": blocks}
        body = _sse(_anthropic_events(blocks)) if stream else json.dumps(response)
        out.append(_exchange("https://api.anthropic.com/v1/messages", sent, body))
        messages.append(reply)
        if calls:
            results = [
                {
                    "type": "tool_result",
                    "tool_use_id": f"t{number}-{t}-{i}",
                    "content": f"result {i}",
                    "is_error": failed,
                }
                for i, (_, _, failed) in enumerate(calls)
            ]
            messages.append({"role": "user", "content": results})
    return out


def _anthropic_events(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [{"type": "message_start", "message": {"content": []}}]
    for index, block in enumerate(blocks):
        if block["type"] == "tool_use":
            start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            text = json.dumps(block["input"])
            deltas = [text[: len(text) // 2], text[len(text) // 2 :]]
            delta = [{"type": "input_json_delta", "partial_json": d} for d in deltas]
        else:
            start = {"type": "text", "text": ""}
            delta = [{"type": "text_delta", "text": block["text"]}]
        events.append({"type": "content_block_start", "index": index, "content_block": start})
        events.extend({"type": "content_block_delta", "index": index, "delta": d} for d in delta)
        events.append({"type": "content_block_stop", "index": index})
    events.append({"type": "message_stop"})
    return events


def _sse(events: list[dict[str, Any]]) -> str:
    return "".join(f"data: {json.dumps(event)}\n\n" for event in events) + "data: [DONE]\n\n"


def _exchange(uri: str, messages: list[dict[str, Any]], body: str) -> dict[str, Any]:
    request = {"model": "m", "messages": messages}
    return {
        "request": {"method": "POST", "uri": uri, "body": json.dumps(request)},
        "response": {"status": {"code": 200, "message": "OK"}, "body": {"string": body}},
    }


def _interleave(per_conversation: list[list[Any]], rng: random.Random) -> list[Any]:
    """The conversations' exchanges merged in a random order that keeps each one's order."""
    queues = [list(q) for q in per_conversation]
    out = []
    while any(queues):
        queue = rng.choice([q for q in queues if q])
        out.append(queue.pop(0))
    return out


def _expected(conversations: list[Turns], api: str) -> list[list[tuple[str, str, Any, bool]]]:
    prefix = "c" if api == "openai-chat" else "t"
    return [
        [
            (f"{prefix}{n}-{t}-{i}", tool, args, failed)
            for t, calls in enumerate(turns)
            for i, (tool, args, failed) in enumerate(calls)
        ]
        for n, turns in enumerate(conversations)
    ]


def _load(interactions: list[Any], *, as_yaml: bool = False) -> wb.LoadResult:
    cassette = {"interactions": interactions, "version": 1}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ("cassette.yaml" if as_yaml else "cassette.json")
        text = yaml.safe_dump(cassette) if as_yaml else json.dumps(cassette)
        path.write_text(text, encoding="utf-8")
        return wb.load_runs(path, strict=False)


def _by_run(result: wb.LoadResult) -> list[list[tuple[str, str, Any, bool]]]:
    return [
        [(b.call_id, b.tool, b.args, b.is_error) for b in run.boundaries] for run in result.runs
    ]


@SETTINGS
@given(
    CONVERSATIONS,
    st.sampled_from(["openai-chat", "anthropic"]),
    st.booleans(),
    st.booleans(),
    st.randoms(use_true_random=False),
)
def test_interleaved_conversations_give_each_call_once_in_its_own_run(
    conversations: list[Turns], api: str, stream: bool, one_prompt: bool, rng: random.Random
) -> None:
    """R2, R34: no call is lost or invented, whatever the interleaving of the conversations'
    exchanges, streamed or not, with ``cache_control`` moving (Anthropic), and when every
    conversation is a trial of one prompt (their first requests are the same)."""
    make = _openai_exchanges if api == "openai-chat" else _anthropic_exchanges
    exchanges = [make(n, turns, stream=stream) for n, turns in enumerate(conversations)]
    if one_prompt:
        for exchange in (e for conversation in exchanges for e in conversation):
            text = exchange["request"]["body"]
            for n in range(len(conversations)):
                text = text.replace(f'task {n}"', 'the task"')
            exchange["request"]["body"] = text
    result = _load(_interleave(exchanges, rng))
    assert result.problems == ()
    assert result.format == api
    expected = _expected(conversations, api)
    runs = sorted(_by_run(result), key=lambda run: run[0][0] if run else "")
    assert [run for run in runs if run] == sorted(
        [run for run in expected if run], key=lambda run: run[0][0]
    )
    assert len(result.runs) == len(conversations)


@SETTINGS
@given(TURNS.filter(bool), st.randoms(use_true_random=False))
def test_retried_and_refused_exchanges_add_no_call(turns: Turns, rng: random.Random) -> None:
    """A request sent again (a client retry) replaces the reply, whether it was answered the
    same or otherwise (after the first request: before it, another answer is another trial);
    a refused one (HTTP 429) is another exchange (R35). None adds or loses a call."""
    exchanges = _openai_exchanges(0, turns, stream=False)
    noisy: list[Any] = []
    for number, exchange in enumerate(exchanges):
        if rng.random() < 0.4:
            refused = json.loads(json.dumps(exchange))
            refused["response"] = {"status": {"code": 429}, "body": {"string": '{"error": {}}'}}
            noisy.append(refused)
        if rng.random() < 0.4:
            noisy.append(json.loads(json.dumps(exchange)))  # the same request, answered the same
        if number > 0 and rng.random() < 0.4:  # answered otherwise, and the answer dropped
            other = json.loads(json.dumps(exchange))
            other["response"]["body"]["string"] = json.dumps(
                {
                    "choices": [
                        {
                            "index": 0,
                            "message": {
                                "role": "assistant",
                                "tool_calls": [
                                    {
                                        "id": f"dropped-{number}",
                                        "type": "function",
                                        "function": {"name": "lookup", "arguments": "{}"},
                                    }
                                ],
                            },
                        }
                    ]
                }
            )
            noisy.append(other)
        noisy.append(exchange)
    result = _load(noisy, as_yaml=rng.random() < 0.3)
    assert result.problems == ()
    assert _by_run(result) == _expected([turns], "openai-chat")
    statuses = [o.get("status") for o in result.run.metadata.get("otherExchanges", ())]
    assert statuses == [429] * sum(1 for e in noisy if e["response"]["status"]["code"] == 429)


def test_two_thousand_trials_of_one_prompt_load_as_two_thousand_runs_at_once() -> None:
    """An eval that sent one prompt 2,000 times, the trials' exchanges interleaved (R34, real
    size): a run each, each request compared with a few conversations, not all of them."""
    trials = []
    for n in range(2000):
        exchanges = _openai_exchanges(n, [[("lookup", {"id": n}, n % 10 == 0)]], stream=False)
        for exchange in exchanges:
            exchange["request"]["body"] = exchange["request"]["body"].replace(f"task {n}", "the")
        trials.append(exchanges)
    start = time.process_time()
    result = _load(_interleave(trials, random.Random(0)))
    took = time.process_time() - start
    assert result.problems == () and len(result.runs) == 2000
    assert sum(b.is_error for b in result.boundaries) == 200
    assert took < 30, f"{took:.1f} s"  # a generous bound: about 0.3 s here (O(n^2) took 2 s)


def _same_id_trial(number: int, calls: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """A trial of the prompt "hi" whose reply makes ``calls`` calls with the ids ``call_1``,
    ``call_2``... (every trial's, as a mock or a server that numbers calls per response
    gives), then the request that answers them: its two exchanges."""
    user = {"role": "user", "content": "hi"}
    reply: dict[str, Any] = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": f"call_{i + 1}",
                "type": "function",
                "function": {"name": "f", "arguments": json.dumps({"trial": number, "i": i})},
            }
            for i in range(calls)
        ],
    }
    answers = [
        {"role": "tool", "tool_call_id": f"call_{i + 1}", "content": f"{number}.{i}"}
        for i in range(calls)
    ]
    uri = "https://api.openai.com/v1/chat/completions"
    done = {"role": "assistant", "content": f"done {number}"}
    return (
        _exchange(uri, [user], json.dumps({"choices": [{"index": 0, "message": reply}]})),
        _exchange(uri, [user, reply, *answers], json.dumps({"choices": [{"message": done}]})),
    )


def test_trials_that_reuse_a_call_id_each_go_on_from_their_own_reply() -> None:
    """Two trials of one prompt both call ``call_1`` (the second also ``call_2``): each next
    request continues the trial whose reply it sends back as recorded, not the latest one that
    made a call it sends (R34), and every call is answered in its own run (R2, R35)."""
    first_a, then_a = _same_id_trial(0, 1)
    first_b, then_b = _same_id_trial(1, 2)
    result = _load([first_a, first_b, then_a, then_b])
    assert result.problems == ()
    assert [run.metadata["exchanges"] for run in result.runs] == [[0, 2], [1, 3]]
    assert [run.answer for run in result.runs] == ["done 0", "done 1"]
    assert [[(b.call_id, b.response) for b in run.boundaries] for run in result.runs] == [
        [("call_1", "0.0")],
        [("call_1", "1.0"), ("call_2", "1.1")],
    ]
    assert [b.location.rsplit(": ", 1)[1] for b in result.boundaries] == [
        "interaction 0, response, tool call 0",
        "interaction 1, response, tool call 0",
        "interaction 1, response, tool call 1",
    ]


@SETTINGS
@given(
    st.lists(st.integers(1, 3), min_size=2, max_size=6),
    st.randoms(use_true_random=False),
)
def test_trials_sharing_call_ids_in_any_interleaving_keep_their_own_calls(
    calls: list[int], rng: random.Random
) -> None:
    """R2, R34: trials of one prompt whose replies reuse the ids ``call_1``, ``call_2``...,
    their exchanges in any order that keeps each trial's: a run each, every call answered in
    the run that made it."""
    trials = [list(_same_id_trial(n, count)) for n, count in enumerate(calls)]
    result = _load(_interleave(trials, rng))
    assert result.problems == ()
    runs = sorted(
        [(b.args["trial"], b.call_id, b.response) for b in run.boundaries] for run in result.runs
    )
    assert runs == [
        [(n, f"call_{i + 1}", f"{n}.{i}") for i in range(count)] for n, count in enumerate(calls)
    ]


def test_four_thousand_trials_sharing_a_call_id_load_at_once() -> None:
    """4,000 trials of one prompt, every reply calling ``call_1``, all first requests then all
    second ones (R34, real size): each second request finds its trial by the reply it sends
    back, not by scanning the trials that made ``call_1`` (4,000 took 4 s, O(n^2))."""
    trials = [_same_id_trial(n, 1) for n in range(4000)]
    interactions = [first for first, _ in trials] + [then for _, then in trials]
    start = time.process_time()
    result = _load(interactions)
    took = time.process_time() - start
    assert result.problems == () and len(result.runs) == 4000
    assert all(
        run.boundaries[0].args["trial"] == int(run.boundaries[0].response.split(".")[0])
        for run in result.runs
    )
    assert took < 3, f"{took:.1f} s"  # a generous bound: about 0.3 s here


def test_a_redacted_uri_is_no_matter_the_response_tells_the_api() -> None:
    """langchain's cassettes redact every ``uri``; the response's shape says which API it was."""
    exchanges = _openai_exchanges(0, [[("lookup", {"id": 1}, False)]], stream=False)
    exchanges += _anthropic_exchanges(1, [[("search", {"q": "x"}, True)]], stream=False)
    for exchange in exchanges:
        exchange["request"]["uri"] = "**REDACTED**"
    result = _load(exchanges)
    assert result.problems == ()
    assert [run.run_id for run in result.runs] == ["conversation-0", "conversation-1"]
    assert {(r.format, len(r.boundaries)) for r in result.runs} == {
        ("openai-chat", 1),
        ("anthropic", 1),
    }


# --- what clients do to the turns they resend ------------------------------------------------


def test_calls_a_client_leaves_out_of_the_resent_turn_are_problems_not_lost() -> None:
    """R2, R35: crewAI's model made five parallel calls; crewAI resent (and ran) the first only.
    The four it dropped are calls the model made that nothing answered: problems, each named."""
    path = CASSETTES / "crewai_test_max_usage_count_is_respected.yaml"
    result = wb.load_runs(path, strict=False)
    assert len(result.boundaries) == 5
    assert [p.where for p in result.problems] == [
        f"interaction 0, response, tool call {n}" for n in (1, 2, 3, 4)
    ]
    assert all("'iterating_tool' is never answered" in p.message for p in result.problems)


@pytest.mark.parametrize(
    "name", ["llm_test_tool_use_basic.yaml", "llm_test_tools_streaming_variant_a.yaml"]
)
def test_a_streamed_turn_resent_as_a_text_message_then_a_call_message_is_one_reply(
    name: str,
) -> None:
    """simonw/llm resends a streamed turn as two assistant messages, its (empty) text, then its
    calls: that is the reply sent back, so its call is the one the model made, answered once,
    and no second call under the same id (it was once a problem: the id "already open")."""
    result = wb.load_runs(CASSETTES / name, strict=False)
    assert result.problems == ()
    (run,) = result.runs
    assert len(run.boundaries) == 1 and not run.boundaries[0].is_error
    assert run.metadata["exchanges"] == [0, 1]
    assert run.conversation is not None
    roles = [m["role"] for m in run.conversation.messages]
    assert roles == ["user", "assistant", "tool", "assistant"]


def test_trials_whose_turns_are_resent_split_each_go_on_from_their_own_reply() -> None:
    """Two trials of one prompt, each reply resent as an empty text message and then its call
    (simonw/llm's way): each request continues the trial whose call it sends back."""
    prompt = [{"role": "user", "content": "go"}]
    interactions = []
    for n in (0, 1):
        reply = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": f"c{n}", "type": "function", "function": {"name": "f", "arguments": "{}"}}
            ],
        }
        body = json.dumps({"choices": [{"index": 0, "message": reply}]})
        interactions.append(_exchange("https://api.openai.com/v1/chat/completions", prompt, body))
    for n in (1, 0):
        sent: list[dict[str, Any]] = [
            *prompt,
            {"role": "assistant", "content": ""},
            {"role": "assistant", "tool_calls": [{**_call(f"c{n}")}]},
            {"role": "tool", "tool_call_id": f"c{n}", "content": f"r{n}"},
        ]
        body = json.dumps(
            {"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}}]}
        )
        interactions.append(_exchange("https://api.openai.com/v1/chat/completions", sent, body))
    result = _load(interactions)
    assert result.problems == ()
    assert [[(b.call_id, b.response) for b in run.boundaries] for run in result.runs] == [
        [("c0", "r0")],
        [("c1", "r1")],
    ]


def _split_resend(said_text: str | None, resent: list[dict[str, Any]]) -> wb.LoadResult:
    """A reply making calls c1 and c2 with ``said_text``, then a request resending it as
    ``resent`` (assistant messages) with both results, then the model's last word."""
    prompt = [{"role": "user", "content": "go"}]
    reply = {"role": "assistant", "content": said_text, "tool_calls": [_call("c1"), _call("c2")]}
    url = "https://api.openai.com/v1/chat/completions"
    sent = [
        *prompt,
        *resent,
        {"role": "tool", "tool_call_id": "c1", "content": "r1"},
        {"role": "tool", "tool_call_id": "c2", "content": "r2"},
    ]
    done = {"role": "assistant", "content": "done"}
    return _load(
        [
            _exchange(url, prompt, json.dumps({"choices": [{"index": 0, "message": reply}]})),
            _exchange(url, sent, json.dumps({"choices": [{"index": 0, "message": done}]})),
        ]
    )


@pytest.mark.parametrize("text", [None, "thinking"], ids=["calls-only", "text-first"])
def test_parallel_calls_resent_a_message_a_call_are_the_one_reply(text: str | None) -> None:
    """A client that resends parallel calls as a message a call (after the turn's text, when
    it had one) sends back the one reply: each call once, no "already open" problem."""
    resent: list[dict[str, Any]] = [{"role": "assistant", "content": text}] if text else []
    resent += [{"role": "assistant", "tool_calls": [_call(c)]} for c in ("c1", "c2")]
    result = _split_resend(text, resent)
    assert result.problems == ()
    assert [(b.call_id, b.response) for b in result.boundaries] == [("c1", "r1"), ("c2", "r2")]
    assert result.run.conversation is not None
    [turn] = [m for m in result.run.conversation.messages if m.get("toolCalls")]
    assert turn["content"] == text and [c["id"] for c in turn["toolCalls"]] == ["c1", "c2"]


def test_a_clients_own_assistant_message_before_the_reply_is_not_joined_to_it() -> None:
    """An assistant message the client put before the resent reply (text the model never
    said) is no part of the reply: its text is not joined to the model's, whatever else is
    reported. The same text resent twice is not the reply either."""
    calls = [_call("c1"), _call("c2")]
    injected: list[dict[str, Any]] = [
        {"role": "assistant", "content": "INJECTED by client"},
        {"role": "assistant", "content": "A", "tool_calls": calls},
    ]
    doubled: list[dict[str, Any]] = [
        {"role": "assistant", "content": "A"},
        {"role": "assistant", "content": "A", "tool_calls": calls},
    ]
    for resent in (injected, doubled):
        result = _split_resend("A", resent)
        assert result.run.conversation is not None
        texts = [m.get("content") for m in result.run.conversation.messages]
        assert "INJECTED by clientA" not in texts and "AA" not in texts
        assert sorted(b.call_id for b in result.boundaries) == ["c1", "c2"]


def test_a_datadog_test_agent_cassette_is_one_exchange_read_as_its_api(tmp_path: Path) -> None:
    """ddapm-test-agent's VCR proxy writes one exchange a JSON file (``{request: {method, url,
    headers, body}, response: {status: {code, message}, headers, body}}``, dd-trace-py's
    ``tests/cassettes``); it once was "cannot tell the format". A Mistral request whose history
    holds an answered call is that call; an Anthropic reply's call, never answered, a problem."""
    mistral = wb.load_runs(CASSETTES / "dd_trace_mistral_v1_chat_completions_post_5e983449.json")
    assert mistral.format == "openai-chat"
    assert [(b.call_id, b.tool) for b in mistral.boundaries] == [("Caf7Pyrd8", "get_weather")]
    anthropic = wb.load_runs(
        CASSETTES / "dd_trace_anthropic_v1_messages_post_28bbec95.json", strict=False
    )
    assert anthropic.format == "anthropic" and not anthropic.boundaries
    [problem] = anthropic.problems
    assert problem.where == "interaction 0, response, block 0"
    assert "'add' is never answered" in problem.message
    # a body the proxy kept as "base64:" and its bytes is read as those bytes
    cassette = json.loads(
        (CASSETTES / "dd_trace_mistral_v1_chat_completions_post_5e983449.json").read_text()
    )
    cassette["response"]["body"] = (
        "base64:" + base64.b64encode(cassette["response"]["body"].encode()).decode()
    )
    path = tmp_path / "cassette.json"
    path.write_text(json.dumps(cassette), encoding="utf-8")
    assert [b.call_id for b in wb.load_runs(path).boundaries] == ["Caf7Pyrd8"]
    # a body that says base64 and is none is a problem at its exchange, not silently nothing
    cassette["response"]["body"] = "base64:@@not base64"
    path.write_text(json.dumps(cassette), encoding="utf-8")
    [problem] = wb.load_runs(path, strict=False).problems
    assert (problem.where, problem.field) == ("interaction 0", "response.body")
    assert problem.message.startswith("not base64")


def test_one_http_exchange_saved_alone_is_read_only_as_a_recording_of_one() -> None:
    """One exchange in a file of its own is read as a cassette when it records a call to a
    server (an absolute URL): one HAR entry (``postData``, ``content``) as HAR, the Datadog
    agent's shape by its bodies. A mock server's mapping (WireMock: a relative URL, body
    patterns) is no recording: "cannot tell the format", not a cassette of nothing (review of
    9bf5f29)."""
    real = json.loads(
        (CASSETTES / "dd_trace_mistral_v1_chat_completions_post_5e983449.json").read_text()
    )
    entry = {
        "request": {
            "method": "POST",
            "url": real["request"]["url"],
            "postData": {"mimeType": "application/json", "text": real["request"]["body"]},
        },
        "response": {"status": 200, "content": {"mimeType": "application/json", "text": "{}"}},
    }
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "entry.json"
        path.write_text(json.dumps(entry), encoding="utf-8")
        har = wb.load_runs(path)
        assert har.format == "openai-chat"
        assert [b.call_id for b in har.boundaries] == ["Caf7Pyrd8"]
        mapping = {
            "request": {"url": "/v1/chat/completions", "method": "POST"},
            "response": {"status": 200, "body": real["response"]["body"]},
        }
        path.write_text(json.dumps(mapping), encoding="utf-8")
        [problem] = wb.load_runs(path, strict=False).problems
        assert problem.message.startswith("cannot tell the format: a JSON object")


def _call(call_id: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": "f", "arguments": "{}"}}


def test_server_tool_blocks_a_client_leaves_out_of_the_resent_turn_are_still_read() -> None:
    """Mirascope resends a streamed turn without its three web searches (call and result in the
    response): they happened, so they are boundaries, with the two of the next turn."""
    path = CASSETTES / "mirascope_test_web_search_tool_stream__anthropic_claude_sonnet_4_0.yaml.gz"
    result = wb.load_runs(path)
    assert [b.tool for b in result.boundaries] == ["web_search"] * 5
    assert len({b.call_id for b in result.boundaries}) == 5


def test_a_handoff_that_changes_the_system_prompt_continues_the_conversation() -> None:
    """The OpenAI Agents SDK hands the run to another agent: a new system prompt, the history
    kept, the handoff turn resent as text with its call's result. One run, both calls answered."""
    path = CASSETTES / "dd_trace_test_multiple_agent_handoffs_with_chat_completions.yaml"
    run = wb.load_runs(path).run
    assert [b.tool for b in run.boundaries] == ["research", "transfer_to_summarizer"]
    assert run.metadata["exchanges"] == [0, 1, 2]
    assert run.conversation is not None
    systems = [m for m in run.conversation.messages if m["role"] == "system"]
    assert len(systems) == 2  # each agent's prompt, where it was first sent


def test_python_tags_in_a_cassette_are_read_as_data_and_never_run(tmp_path: Path) -> None:
    """vcrpy writes aiohttp's header names as ``!!python/object/apply`` tags (a real cassette);
    they are read as the data under them, so a hostile one is a string, not a call."""
    marker = tmp_path / "ran"
    exchange = _openai_exchanges(0, [[("lookup", {"id": 1}, False)]], stream=False)
    text = yaml.safe_dump({"interactions": exchange, "version": 1})
    hostile = (
        f"x-evil: !!python/object/apply:os.system ['touch {marker}']\n"
        "tagged: !!python/object:builtins.dict {a: 1}\n"
        "header: !!python/object/apply:multidict._multidict.istr [Content-Type]\n"
    )
    path = tmp_path / "cassette.yaml"
    path.write_text(text + hostile, encoding="utf-8")
    result = wb.load_runs(path)
    assert len(result.boundaries) == 1
    assert not marker.exists()
    real = CASSETTES / "dd_trace_openai_chat_completions_post_1d538f35.yaml"
    assert "!!python/object/apply:multidict._multidict.istr" in real.read_text(encoding="utf-8")
    assert len(wb.load_runs(real, strict=False).boundaries) == 1


def test_an_http_archive_is_a_cassette_base64_bodies_included(tmp_path: Path) -> None:
    """HAR 1.2 (Polly.js, browsers): ``log.entries[]``; a ``base64`` content is its bytes."""
    entries = []
    for exchange in _anthropic_exchanges(0, [[("search", {"q": "x"}, True)]], stream=False):
        body = exchange["response"]["body"]["string"].encode()
        entries.append(
            {
                "request": {
                    "method": "POST",
                    "url": exchange["request"]["uri"],
                    "postData": {
                        "mimeType": "application/json",
                        "text": exchange["request"]["body"],
                    },
                },
                "response": {
                    "status": 200,
                    "content": {
                        "mimeType": "application/json",
                        "encoding": "base64",
                        "text": __import__("base64").b64encode(body).decode(),
                    },
                },
            }
        )
    path = tmp_path / "run.har"
    path.write_text(json.dumps({"log": {"version": "1.2", "entries": entries}}), encoding="utf-8")
    result = wb.load_runs(path)
    assert result.format == "anthropic"
    assert [(b.tool, b.is_error) for b in result.boundaries] == [("search", True)]
    real = wb.load_runs(CASSETTES / "mirascope_handles-tool-execution-errors-and-retries.har")
    assert [b.is_error for b in real.boundaries] == [True, False]
    entries[0]["response"]["content"]["text"] = "@@ not base64"
    path.write_text(json.dumps({"log": {"version": "1.2", "entries": entries}}), encoding="utf-8")
    [problem] = wb.load_runs(path, strict=False).problems
    assert (problem.where, problem.field) == ("interaction 0", "response.body")


def test_a_polly_har_body_recorded_as_chunks_reads_as_one_body(tmp_path: Path) -> None:
    """Polly.js records a response sent with a ``Content-Encoding`` as the JSON text of an array
    of its chunks, base64 (version 6, ``encoding: base64``) or hex (before 6, ``_isBinary``), so
    each chunk replays alone: the chunks joined are the gzip stream (a real HAR of
    openllmetry-js, whose one call is never answered in it; the hex copy is made here from it)."""
    real = CASSETTES / "openllmetry_js_openai_tool_calling.polly.har"
    [problem] = wb.load_runs(real, strict=False).problems
    assert "'call_m0dpaUwYpBdHG63EvxJH3FZU' to 'get_current_weather' is never answered" in (
        problem.message
    )
    har = json.loads(real.read_bytes())
    content = har["log"]["entries"][0]["response"]["content"]
    chunks = json.loads(content["text"])
    assert len(chunks) == 2
    for text, extra in (
        (json.dumps([base64.b64decode(c).hex() for c in chunks]), {"_isBinary": True}),
        (base64.b64encode(b"".join(base64.b64decode(c) for c in chunks)).decode(), {}),
    ):
        content.pop("encoding", None)
        content.update({"text": text, **extra, **({} if extra else {"encoding": "base64"})})
        path = tmp_path / "copy.har"
        path.write_text(json.dumps(har), encoding="utf-8")
        assert [p.message for p in wb.load_runs(path, strict=False).problems] == [problem.message]
    content.update({"text": json.dumps(["H4sI", "@@"]), "encoding": "base64"})
    content.pop("_isBinary")
    path.write_text(json.dumps(har), encoding="utf-8")
    [bad] = wb.load_runs(path, strict=False).problems
    assert (bad.where, bad.field) == ("interaction 0", "response.body")
    assert "not base64" in bad.message


def test_a_reply_left_out_for_a_new_system_prompt_is_read_and_its_calls_never_answered() -> None:
    """raix refuses the calls of a reply past its tool-call limit: its next request resends the
    user's message with a system prompt added, and not the reply (a real cassette). The reply
    is in the transcript before that system prompt, and its three calls are never answered
    (R2); they were dropped with no word when a request adding only a system prompt was
    taken for a retry (world 9b, D2)."""
    result = wb.load_runs(CASSETTES / "raix_respects_max_tool_calls_parameter.yml", strict=False)
    assert [p.message.split(" is ")[-1] for p in result.problems] == ["never answered"] * 3
    assert [p.where for p in result.problems] == [
        f"interaction 0, response, tool call {n}" for n in range(3)
    ]
    [run] = result.runs
    assert run.conversation is not None
    roles = [m["role"] for m in run.conversation.messages]
    assert roles == ["user", "assistant", "system", "assistant"]
    assert len(run.conversation.messages[1]["toolCalls"]) == 3


def test_gemini_api_calls_pair_by_place_and_name_and_an_error_response_fails(
    tmp_path: Path,
) -> None:
    """SYNTHETIC, in the Gemini API's documented shape: a reply's ``functionCall`` parts carry
    no id; the next request resends them and answers each with a ``functionResponse`` of its
    name, in another order; a ``response`` holding ``error`` (and no ``output``) is the API's
    failure. A real streamed cassette is pinned in ``tests/helpers/recordings.py``."""
    uri = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent"
    user = {"role": "user", "parts": [{"text": "weather and time in Paris?"}]}
    calls: dict[str, Any] = {
        "role": "model",
        "parts": [
            {"functionCall": {"name": "weather", "args": {"city": "Paris"}}},
            {"functionCall": {"name": "time", "args": {"city": "Paris"}}},
        ],
    }
    answers = {
        "role": "user",
        "parts": [
            {"functionResponse": {"name": "time", "response": {"output": "14:05"}}},
            {"functionResponse": {"name": "weather", "response": {"error": "service down"}}},
        ],
    }
    text = {"role": "model", "parts": [{"text": "It is 14:05; the weather is unknown."}]}

    def interaction(contents: list[Any], reply: dict[str, Any]) -> dict[str, Any]:
        return {
            "request": {"uri": uri, "method": "POST", "body": json.dumps({"contents": contents})},
            "response": {
                "status": {"code": 200},
                "body": {"string": json.dumps({"candidates": [{"content": reply}]})},
            },
        }

    path = tmp_path / "gemini.json"
    cassette = {
        "interactions": [interaction([user], calls), interaction([user, calls, answers], text)]
    }
    path.write_text(json.dumps(cassette), encoding="utf-8")
    result = wb.load_runs(path)
    assert result.format == "gemini-api" and result.problems == ()
    assert [(b.call_id, b.tool, b.is_error) for b in result.boundaries] == [
        ("gemini-0-0", "weather", True),
        ("gemini-0-1", "time", False),
    ]
    assert "service down" in (result.boundaries[0].error_message or "")
    assert (
        result.run.conversation is not None and result.run.conversation.model == "gemini-2.5-flash"
    )
    # Gemini 3 gives each call an id, which the client resends: kept on the boundary
    for number, part in enumerate(calls["parts"]):
        part["functionCall"]["id"] = f"g3-{number}"
    cassette = {
        "interactions": [interaction([user], calls), interaction([user, calls, answers], text)]
    }
    path.write_text(json.dumps(cassette), encoding="utf-8")
    given = wb.load_runs(path).boundaries
    assert [(b.call_id, b.extra.get("x-geminiCallId")) for b in given] == [
        ("gemini-0-0", "g3-0"),
        ("gemini-0-1", "g3-1"),
    ]


def test_gemini_answers_after_model_contents_in_a_row_answer_any_of_their_calls(
    tmp_path: Path,
) -> None:
    """R2, SYNTHETIC in the shape pydantic-ai gives Gemini another provider's history (its
    cross-provider tool search cassettes): a turn's parallel calls a model content each, then
    one user content answering both. The answers pair with the calls of every model content
    in the row, not the last one's only."""
    uri = "https://generativelanguage.googleapis.com/v1beta/models/gemini-3-flash:generateContent"
    contents = [
        {"role": "user", "parts": [{"text": "refund on order-123?"}]},
        {"role": "model", "parts": [{"functionCall": {"id": "a", "name": "load", "args": {}}}]},
        {"role": "model", "parts": [{"functionCall": {"id": "b", "name": "search", "args": {}}}]},
        {
            "role": "user",
            "parts": [
                {"functionResponse": {"id": "a", "name": "load", "response": {"output": "ok"}}},
                {"functionResponse": {"id": "b", "name": "search", "response": {"output": "[]"}}},
            ],
        },
    ]
    reply = {"role": "model", "parts": [{"text": "Yes."}]}
    exchange = {
        "request": {"uri": uri, "method": "POST", "body": json.dumps({"contents": contents})},
        "response": {
            "status": {"code": 200},
            "body": {"string": json.dumps({"candidates": [{"content": reply}]})},
        },
    }
    path = tmp_path / "gemini.json"
    path.write_text(json.dumps({"interactions": [exchange]}), encoding="utf-8")
    result = wb.load_runs(path)
    assert [(b.tool, b.extra.get("x-geminiCallId")) for b in result.boundaries] == [
        ("load", "a"),
        ("search", "b"),
    ]


def test_gemini_called_after_another_api_is_read_beside_it() -> None:
    """R34, R35: pydantic-ai's Anthropic model runs code (1 call), then its Gemini model is given
    that history (as text) and runs code twice. By hand: 3 calls, 0 failed. Gemini's were left
    in ``otherExchanges`` before (only ``--format gemini-api`` read them). A Gemini conversation
    that another API carries on (called after it) is still read as that API's history only."""
    path = CASSETTES / "pydantic_ai_google_test_receive_history_from_another_provider.yaml"
    result = wb.load_runs(path)
    assert result.format == "gemini-api"  # its runs hold the most calls
    assert {(run.format, len(run.boundaries)) for run in result.runs} == {
        ("anthropic", 1),
        ("gemini-api", 2),
    }
    assert sorted((b.tool, b.is_error) for b in result.boundaries) == [
        ("code_execution", False),
        ("code_execution", False),
        ("code_execution", False),
    ]
    assert "otherExchanges" not in result.runs[0].metadata


def test_an_azure_test_proxy_recording_reads_json_and_streamed_bodies() -> None:
    """The Azure SDKs' test proxy (OpenAI's .NET library) keeps a JSON body as JSON and a
    streamed one as its list of lines (real recordings): both read as any cassette's."""
    chat = wb.load_runs(CASSETTES / "openai_dotnet_ParallelToolCalls.test-proxy.json")
    assert [(b.tool, b.args["city_name"], b.response) for b in chat.boundaries] == [
        ("get_weather_for_city", "Santiago", "rainy"),
        ("get_weather_for_city", "Karachi", "sunny"),
    ]
    streamed = (
        FIXTURES / "openai-responses" / "openai_dotnet_FunctionCallStreamingWorks.test-proxy.json"
    )
    result = wb.load_runs(streamed, strict=False)
    [problem] = result.problems
    assert "'call_0UFGPwrziw5rbinYp7rthrTb' to 'get_weather_at_location' is never answered" in (
        problem.message
    )


def _chunked(body: bytes) -> bytes:
    """An httprr record whose response has a chunked body of these bytes."""
    request = b"POST /v1 HTTP/1.1\r\nHost: x\r\n\r\n"
    response = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + body
    return f"{len(request)} {len(response)}\n".encode() + request + response


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"12 x\nabc", "line 2: not an httprr trace: a record must start with two byte counts"),
        (b"5 5\nabcde", "line 2: not an httprr trace: a record is cut short"),
        (b"5 5\nabcdefghij", "line 2: not an httprr trace: the request has no blank line"),
        # chunked bodies: a negative size once looped for ever, eating memory
        (_chunked(b"-6\r\n-6\r\n"), "line 2: not an httprr trace: a chunked body"),
        (_chunked(b"ff\r\nabc\r\n0\r\n\r\n"), "line 2: not an httprr trace: a chunked body"),
        (_chunked(b"3\r\nabc\r\n"), "line 2: not an httprr trace: a chunked body"),
    ],
    ids=[
        "counts",
        "short",
        "no-blank-line",
        "negative-chunk",
        "chunk-past-the-end",
        "no-last-chunk",
    ],
)
def test_a_broken_httprr_trace_is_refused_with_its_line(
    tmp_path: Path, text: bytes, message: str
) -> None:
    """R35: an httprr trace (Go's raw HTTP recordings) that does not hold what its counts say
    is refused at the record's line; a real one reads as a cassette (recordings.py)."""
    path = tmp_path / "TestBroken.httprr"
    path.write_bytes(b"httprr trace v1\n" + text)
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path)
    [problem] = refused.value.problems
    assert f"{problem.where}: {problem.message}".startswith(message)
    real = wb.load_runs(CASSETTES / "langchaingo_TestOpenAIFunctionsAgentWithHTTPRR.httprr")
    assert [(b.tool, b.args, b.response) for b in real.boundaries] == [
        ("calculator", "15 * 4", "60")
    ]


def test_empty_call_ids_are_made_up_and_answered_in_order(tmp_path: Path) -> None:
    """Gemini's and Ollama's OpenAI-compatible APIs send ``"id": ""`` (a real cassette): each
    call gets an id, and tool replies with none answer the open ones in call order."""
    real = CASSETTES / "magentic_test_openai_chat_model_gemini_complete.yaml"
    (problem,) = wb.load_runs(real, strict=False).problems
    assert "call 'call-1' to 'return_bool' is never answered" in problem.message
    exchanges = _openai_exchanges(
        0, [[("lookup", {"id": 1}, False), ("refund", {"id": 2}, True)]], stream=False
    )
    text = json.dumps({"interactions": exchanges}).replace('"c0-0-0"', '""')
    text = text.replace('"c0-0-1"', '""').replace('\\"c0-0-0\\"', '\\"\\"')
    text = text.replace('\\"c0-0-1\\"', '\\"\\"')
    path = tmp_path / "cassette.json"
    path.write_text(text, encoding="utf-8")
    result = wb.load_runs(path)
    assert [(b.call_id, b.tool, b.is_error) for b in result.boundaries] == [
        ("call-1", "lookup", False),
        ("call-2", "refund", True),
    ]


def test_a_custom_tool_call_reads_its_free_text_input(tmp_path: Path) -> None:
    """Chat Completions custom tools: ``{"type": "custom", "custom": {"name", "input"}}``."""
    call = {"id": "k1", "type": "custom", "custom": {"name": "math_exp", "input": "2 ** 10"}}
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "k1", "content": "1024"},
    ]
    reply = {"role": "assistant", "content": "1024"}
    response = {"choices": [{"index": 0, "message": reply}]}
    exchanges = [_exchange("https://x/v1/chat/completions", messages, json.dumps(response))]
    result = _load(exchanges)
    (boundary,) = result.boundaries
    assert (boundary.tool, boundary.args) == ("math_exp", "2 ** 10")


def test_streamed_call_pieces_without_an_index_join_the_call_they_continue(tmp_path: Path) -> None:
    """Mistral, Ollama and Gemini stream tool calls with no ``index``: a piece with an id or a
    name starts a call, any other continues the last."""
    chunks: list[dict[str, Any]] = [
        {"choices": [{"index": 0, "delta": {"role": "assistant"}}]},
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": '{"x"'}}]
                    }
                }
            ]
        },
        {"choices": [{"delta": {"tool_calls": [{"function": {"arguments": ": 1}"}}]}}]},
        {
            "choices": [
                {
                    "delta": {
                        "tool_calls": [{"id": "b", "function": {"name": "g", "arguments": "{}"}}]
                    }
                }
            ]
        },
    ]
    first = [{"role": "user", "content": "go"}]
    said = {
        "role": "assistant",
        "tool_calls": [
            {"id": "a", "type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}},
            {"id": "b", "type": "function", "function": {"name": "g", "arguments": "{}"}},
        ],
    }
    answers = [
        {"role": "tool", "tool_call_id": "a", "content": "ok"},
        {"role": "tool", "tool_call_id": "b", "content": "ok"},
    ]
    done = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": "."}}]})
    exchanges = [
        _exchange("https://x/v1/chat/completions", first, _sse(chunks)),
        _exchange("https://x/v1/chat/completions", [*first, said, *answers], done),
    ]
    result = _load(exchanges)
    assert result.problems == ()
    assert [(b.call_id, b.tool, b.args) for b in result.boundaries] == [
        ("a", "f", {"x": 1}),
        ("b", "g", {}),
    ]


@SETTINGS
@given(TURNS.filter(bool), st.randoms(use_true_random=False))
def test_calls_left_out_of_resent_turns_are_each_one_problem(
    turns: Turns, rng: random.Random
) -> None:
    """No call is lost when a client trims the turns it resends: a call it keeps is answered, a
    call it drops (and so never runs) is one problem, and nothing is counted twice."""
    exchanges = _openai_exchanges(0, turns, stream=False)
    dropped: set[str] = set()
    seen: set[str] = set()  # a client trims a turn once, and resends it the same way after
    for exchange in exchanges[1:]:
        request = json.loads(exchange["request"]["body"])
        for message in request["messages"]:
            for call in list(message.get("tool_calls") or ()):
                fresh = call["id"] not in seen and len(message["tool_calls"]) > 1
                if fresh and rng.random() < 0.3:
                    dropped.add(call["id"])
                seen.add(call["id"])
                if call["id"] in dropped:
                    message["tool_calls"].remove(call)
        request["messages"] = [
            m for m in request["messages"] if m.get("tool_call_id") not in dropped
        ]
        exchange["request"]["body"] = json.dumps(request)
    result = _load(exchanges)
    expected = [call for call in _expected([turns], "openai-chat")[0] if call[0] not in dropped]
    assert _by_run(result) == [expected]
    assert sorted(p.message.split("'")[1] for p in result.problems) == sorted(dropped)


def test_a_few_shot_eval_finds_each_conversation_at_once() -> None:
    """4,000 conversations that share a few-shot prefix (an example question and answer, then
    their own question): each request is compared with a few conversations, not with every
    one that shares its first messages (16,000 took over 20 s before)."""
    trials = []
    for n in range(4000):
        exchanges = _openai_exchanges(n, [[("lookup", {"id": n}, False)]], stream=False)
        for exchange in exchanges:
            body = json.loads(exchange["request"]["body"])
            body["messages"][1:1] = [
                {"role": "user", "content": "an example question"},
                {"role": "assistant", "content": "an example answer"},
            ]
            exchange["request"]["body"] = json.dumps(body)
        trials.append(exchanges)
    start = time.process_time()
    result = _load(_interleave(trials, random.Random(1)))
    took = time.process_time() - start
    assert result.problems == () and len(result.runs) == 4000
    assert took < 30, f"{took:.1f} s"  # about 0.5 s here


def test_many_streamed_call_pieces_without_an_index_are_put_together_in_linear_time() -> None:
    """20,000 pieces of one call, none with an ``index``, then 20,000 more calls: the last call
    is found at once, and a call's arguments are joined once (both were quadratic)."""
    from workbench._load.chat_streams import openai_stream

    pieces: list[dict[str, Any]] = [{"id": "a", "function": {"name": "f", "arguments": ""}}]
    pieces += [{"function": {"arguments": "x"}} for _ in range(20_000)]
    pieces += [{"id": f"c{n}", "function": {"name": "g", "arguments": "{}"}} for n in range(20_000)]
    events = [{"choices": [{"index": 0, "delta": {"tool_calls": pieces}}]}]
    start = time.process_time()
    message = openai_stream(events)
    assert time.process_time() - start < 5
    assert message is not None
    calls = message["tool_calls"]
    assert len(calls) == 20_001 and calls[0]["function"]["arguments"] == "x" * 20_000


def test_a_model_call_with_no_response_recorded_is_a_problem() -> None:
    """R35: a cassette cut short keeps a request whose response is gone; the load says so at
    that interaction rather than loading as if whole. A response recorded empty is not one."""
    exchanges = _openai_exchanges(0, [[("lookup", {"id": 1}, False)]], stream=False)
    assert len(exchanges) == 2
    del exchanges[1]["response"]
    result = _load(exchanges)
    assert [(b.tool, b.is_error) for b in result.boundaries] == [("lookup", False)]
    assert [(p.where, p.field) for p in result.problems] == [("interaction 1", "response")]
    exchanges[1]["response"] = {"status": {"code": 200}, "body": {"string": ""}}
    assert not _load(exchanges).problems


def test_a_gemini_request_body_that_is_not_strict_json_is_named_at_its_exchange(
    tmp_path: Path,
) -> None:
    """R35: a Gemini exchange's body that does not decode (a NaN) was never named: the file
    was "no tool call found" (or a call "never answered", blaming another exchange)."""
    body = b'{"contents": [{"role": "user", "parts": [{"text": NaN}]}]}'
    request = (
        b"POST /v1beta/models/gemini-2.5-flash:generateContent HTTP/1.1\r\n"
        b"Host: generativelanguage.googleapis.com\r\nContent-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )
    reply = b'{"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"}]}}]}'
    response = (
        b"HTTP/1.1 200 OK\r\nContent-Length: " + str(len(reply)).encode() + b"\r\n\r\n" + reply
    )
    path = tmp_path / "TestNaN.httprr"
    path.write_bytes(
        b"httprr trace v1\n" + f"{len(request)} {len(response)}\n".encode() + request + response
    )
    result = wb.load_runs(path, strict=False)
    assert [(p.where, p.field) for p in result.problems][:1] == [("interaction 0", "request.body")]


def test_a_gemini_request_in_the_proto_s_names_answers_its_calls(tmp_path: Path) -> None:
    """R34: the Gemini API reads a request's members in its JSON names or its proto's; a client
    resending ``function_call`` and ``function_response`` (llm-gemini, a real cassette in
    fixtures/chat-cassettes) had every call "never answered"."""
    path = FIXTURES / "chat-cassettes" / "llm-gemini_test_tools.yaml"
    result = wb.load_runs(path)
    texts = [b.response["content"][0]["text"] for b in result.boundaries]
    assert [b.tool for b in result.boundaries] == ["pelican_name_generator"] * 2
    assert texts == ['{"output": "Charles"}', '{"output": "Sammy"}']
    camel = path.read_text(encoding="utf-8")
    assert "function_response" in camel
    renamed = tmp_path / "camel.yaml"
    renamed.write_text(
        camel.replace("function_call", "functionCall").replace(
            "function_response", "functionResponse"
        ),
        encoding="utf-8",
    )
    assert [b.response for b in wb.load_runs(renamed).boundaries] == [
        b.response for b in result.boundaries
    ]


def test_a_cassette_of_several_apis_and_no_call_says_each_api_it_held() -> None:
    """R35: the refusal says what the file held. A cassette of a Chat Completions and an
    Anthropic conversation, neither calling a tool, was "an HTTP cassette of an OpenAI chat
    transcript of 2 run(s)": one API's name (of the most calls: none), as if it held only
    that."""
    exchanges = [
        *_openai_exchanges(0, [], stream=False),
        *_anthropic_exchanges(1, [], stream=False),
    ]
    (problem,) = _load(exchanges).problems
    assert problem.message.startswith("no tool call found"), problem
    assert "2 conversation(s) (Chat Completions 1, Anthropic Messages 1)" in problem.message
