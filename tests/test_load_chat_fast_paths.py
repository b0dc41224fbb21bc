"""The short paths of the chat cassette loaders give what the general ones give (SPEC R34, R35).

Each short path is a statement about the general one: a quick look that tells what the full
reading would tell, or a common case read without the general code's detours. Each property
here holds it to that on generated (SYNTHETIC) inputs.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench._load.anthropic import load_anthropic
from workbench._load.cassettes import Exchange
from workbench._load.chat_cassettes import chat_api_of, chat_apis_of
from workbench._load.chat_conversations import _Conversation
from workbench._load.chat_replies import _merged_blocks, _merged_calls, merged_reply
from workbench._load.common import is_output_tool
from workbench._load.conversation import _one_shape, _shapes_schema
from workbench._load.messages import chat_records, where
from workbench._load.openai_chat import load_openai_chat
from workbench._load.reading import decode_json, may_be_json
from workbench._load.records import DEFAULT_ERROR_RULE

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_ALPHABET = '{}[]":,\\ \t\n\r\x0b0123456789-+.eEtrufalsnNIiy\ud800\u00e9'
_JSONISH = st.text(alphabet=_ALPHABET, max_size=24)
_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=8,
)


def _pretty_lines(value: Any, indent: int | None) -> list[bytes]:
    text = json.dumps(value, indent=indent, ensure_ascii=False)
    return text.encode("utf-8", "surrogatepass").split(b"\n")


@SETTINGS
@given(
    st.binary(max_size=24)
    | _JSONISH.map(lambda t: t.encode("utf-8", "surrogatepass"))
    | st.builds(_pretty_lines, _VALUES, st.sampled_from([None, 0, 1, 2])).flatmap(st.sampled_from)
)
def test_bytes_may_be_json_says_no_only_to_bytes_decode_json_refuses(data: bytes) -> None:
    """The OpenWOP sniff skips, without decoding it, a line :func:`may_be_json` says no to:
    every such line is one the strict decode refuses (a pretty-printed document's lines)."""
    if not may_be_json(data):
        assert decode_json(data, "")[1] is not None
    if decode_json(data, "")[1] is None:
        assert may_be_json(data)


@SETTINGS
@given(_VALUES, st.sampled_from([None, 1]))
def test_every_json_document_may_be_json(value: Any, indent: int | None) -> None:
    """The other way round: a JSON document, however laid out, is never skipped."""
    assert may_be_json(json.dumps(value, indent=indent).encode())
    assert may_be_json(b" \r\n" + json.dumps(value).encode() + b"\t ")


# --- transcripts: a message's place read from the cassette's places ------------------------

_IDS = st.sampled_from(["c1", "c2", "", None, 7])
_CALL = st.fixed_dictionaries(
    {"id": _IDS, "type": st.sampled_from(["function", "custom"])},
    optional={
        "function": st.fixed_dictionaries(
            {"name": st.sampled_from(["lookup", "final_result"])},
            optional={"arguments": st.sampled_from(['{"a": 1}', "[", "{}"])},
        ),
        "custom": st.fixed_dictionaries({"name": st.just("grep"), "input": st.just("x")}),
        "index": st.integers(0, 2),
    },
)
_OPENAI_MESSAGE = st.one_of(
    st.fixed_dictionaries(
        {"role": st.just("assistant")},
        optional={"content": st.sampled_from([None, "ok"]), "tool_calls": st.lists(_CALL)},
    ),
    st.fixed_dictionaries(
        {"role": st.just("tool"), "tool_call_id": _IDS, "content": st.sampled_from(["ok", "Error"])}
    ),
    st.fixed_dictionaries({"role": st.sampled_from(["user", "system"]), "content": st.just("hi")}),
    st.sampled_from([None, "text", 3]),
)
_BLOCK = st.one_of(
    st.fixed_dictionaries(
        {"type": st.just("tool_use"), "id": _IDS, "name": st.sampled_from(["lookup", ""])},
        optional={"input": st.just({"a": 1})},
    ),
    st.fixed_dictionaries(
        {"type": st.just("tool_result"), "tool_use_id": _IDS},
        optional={"is_error": st.booleans(), "content": st.just("found")},
    ),
    st.fixed_dictionaries({"type": st.just("text"), "text": st.just("hi")}),
    st.just("not a block"),
)
_ANTHROPIC_MESSAGE = st.one_of(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["user", "assistant"])},
        optional={"content": st.lists(_BLOCK, max_size=3) | st.just("text")},
    ),
    st.sampled_from([None, 3]),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["openai-chat", "anthropic"]),
    st.data(),
    st.lists(st.integers(0, 8), min_size=1, max_size=3),
)
def test_places_given_for_every_message_read_as_place_gives_them(
    api: str, data: st.DataObject, named: list[int]
) -> None:
    """A cassette's transcripts name each message's place; the loaders read it from the list
    rather than through ``messages.place``. Places given for the first messages only (the
    rest through ``place``) and places for none give the same runs and problems, in order."""
    message = _OPENAI_MESSAGE if api == "openai-chat" else _ANTHROPIC_MESSAGE
    records = [
        {"id": f"r{n}", "messages": data.draw(st.lists(message, max_size=8))}
        for n in range(len(named))
    ]
    found = chat_records(records)
    assert found is not None
    full = [
        [where(path, n, len(found), m) for m in range(len(messages))]
        for n, (path, _, messages) in enumerate(found)
    ]
    some = [places[:count] for places, count in zip(full, named, strict=True)]
    none: list[list[str]] = [[] for _ in records]

    def load(places: list[list[str]]) -> Any:
        if api == "anthropic":
            return load_anthropic(records, "f", places=places, terminal=is_output_tool)
        return load_openai_chat(
            records, "f", DEFAULT_ERROR_RULE, places=places, terminal=is_output_tool
        )

    assert repr(load(full)) == repr(load(some)) == repr(load(none))


# --- grouping: the usual request, read by go_on ---------------------------------------------

_ROLE_MESSAGE = st.one_of(
    st.fixed_dictionaries(
        {"role": st.sampled_from(["system", "developer"]), "content": st.sampled_from("AB")}
    ),
    st.fixed_dictionaries({"role": st.just("user"), "content": st.sampled_from("xy")}),
    st.fixed_dictionaries({"role": st.just("tool"), "tool_call_id": st.just("c1")}),
    st.fixed_dictionaries({"role": st.just("assistant"), "content": st.just("hm")}),
    st.sampled_from([None, 3, "text"]),
)
_REPLY = st.one_of(
    st.fixed_dictionaries(
        {
            "role": st.just("assistant"),
            "tool_calls": st.lists(
                st.fixed_dictionaries({"id": st.sampled_from(["c1", "c2", "", 5])}), max_size=2
            ),
        }
    ),
    st.fixed_dictionaries(
        {
            "role": st.just("assistant"),
            "content": st.lists(
                st.fixed_dictionaries(
                    {"type": st.sampled_from(["tool_use", "text"]), "id": st.sampled_from("ab")}
                ),
                max_size=2,
            ),
        }
    ),
    st.none(),
)


def _state(conversation: Any) -> str:
    return repr([getattr(conversation, slot) for slot in type(conversation).__slots__])


@SETTINGS
@given(
    st.lists(_ROLE_MESSAGE, max_size=4),
    _REPLY,
    _REPLY.filter(lambda r: r is not None),
    st.lists(_ROLE_MESSAGE, max_size=4),
    _REPLY,
)
def test_the_usual_request_reads_as_the_general_take_reads_it(
    first: list[Any], said: Any, resent: Any, more: list[Any], reply: Any
) -> None:
    """``go_on`` (a request whose message ``at`` sends the last reply back) leaves the
    conversation as ``take(..., same=True)`` leaves it: messages, places, system prompts,
    replies, exchanges."""
    request = {"messages": [*first]}
    start = Exchange(0, "u", "POST", request, None)
    again = Exchange(1, "u", "POST", {"messages": [*first, resent, *more]}, None)
    general, short = _Conversation(), _Conversation()
    for conversation in (general, short):
        conversation.take(start, 0, said, same=True)
    general.take(again, len(first), reply, same=True)
    short.go_on(again, len(first), reply)
    assert _state(short) == _state(general)


# --- replies: one resent as the model said it -----------------------------------------------

_BLOCKS = st.lists(
    st.one_of(
        st.fixed_dictionaries(
            {"type": st.sampled_from(["tool_use", "server_tool_use", "text", 1])},
            optional={"id": st.sampled_from(["a", "b", 1]), "text": st.just("t")},
        ),
        st.fixed_dictionaries(
            {"type": st.sampled_from(["tool_result", "web_search_tool_result"])},
            optional={"tool_use_id": st.sampled_from(["a", True])},
        ),
        st.sampled_from([None, 1, True, 1.0, "x"]),
    ),
    max_size=4,
)


@SETTINGS
@given(_BLOCKS, st.one_of(_BLOCKS, st.just("text"), st.none()), st.booleans())
def test_a_reply_resent_as_said_merges_as_the_general_path_merges_it(
    said: list[Any], other: Any, same: bool
) -> None:
    """``merged_reply`` gives an Anthropic reply resent with the content the model sent (equal
    blocks) back as it is: what the general merge gives it, and the same object."""
    content = json.loads(json.dumps(said)) if same else other
    sent = {"role": "assistant", "content": content}
    merged = merged_reply(sent, {"role": "assistant", "content": said})
    general = _merged_blocks(sent, content, said)
    assert merged == general and (merged is sent) is (general is sent)


# --- inferred tools: one shape of arguments -------------------------------------------------


@SETTINGS
@given(
    st.lists(st.text(max_size=3), unique=True, max_size=4).flatmap(
        lambda keys: st.tuples(
            st.just(tuple(keys)),
            st.tuples(
                *(st.sampled_from([bool, int, float, str, list, dict, type(None)]) for _ in keys)
            ),
        )
    ),
    st.integers(1, 5),
)
def test_one_shape_of_arguments_gives_the_schema_the_general_reading_gives(
    shape: tuple[tuple[str, ...], tuple[type, ...]], times: int
) -> None:
    """The schema of a tool whose calls all pass one shape of args, member order included."""
    keys, types = shape
    assert json.dumps(_one_shape(keys, types)) == json.dumps(_shapes_schema({shape: times}, times))


_CALLS = st.lists(
    st.one_of(
        st.fixed_dictionaries(
            {"id": st.sampled_from(["a", "b", "", 1, True, None])},
            optional={
                "function": st.one_of(
                    st.fixed_dictionaries(
                        {"name": st.sampled_from(["f", 1, True]), "arguments": st.just("{}")}
                    ),
                    st.sampled_from([1, True, 1.0]),
                )
            },
        ),
        st.sampled_from([None, 1, True, 1.0, "x"]),
    ),
    max_size=3,
)


@SETTINGS
@given(_CALLS, st.one_of(_CALLS, st.none(), st.just("x")), st.booleans())
def test_calls_resent_as_said_merge_as_the_general_path_merges_them(
    said: list[Any], other: Any, same: bool
) -> None:
    """The same for a Chat Completions reply: calls resent as the model made them (each with
    an id) are the merge, as the general merge finds; equal calls of other kinds (``1`` and
    ``true`` are equal, their keys are not) go the general way."""
    calls = json.loads(json.dumps(said)) if same else other
    sent = {"role": "assistant", "tool_calls": calls}
    merged = merged_reply(sent, {"role": "assistant", "tool_calls": said})
    general = _merged_calls(sent, calls, said)
    assert merged == general and (merged is sent) is (general is sent)


@SETTINGS
@given(
    st.lists(
        st.builds(
            Exchange,
            st.integers(0, 9),
            st.sampled_from(
                [
                    "https://api.openai.com/v1/chat/completions",
                    "https://api.anthropic.com/v1/messages/?beta=1",
                    "https://x/redacted",
                    "",
                ]
            ),
            st.just("POST"),
            st.one_of(st.none(), st.just({"messages": []}), st.just({"messages": "x"})),
            st.sampled_from(
                [None, {"type": "message", "content": []}, {"choices": []}, {"choices": 1}]
            ),
            st.sampled_from([(), ({"type": "message_start"},), ({"choices": []},), (1,)]),
        ),
        max_size=8,
    )
)
def test_the_apis_of_a_cassette_read_together_are_each_exchange_s(
    exchanges: list[Exchange],
) -> None:
    """``chat_apis_of`` reads a URI's path once for all the exchanges sent to it."""
    assert chat_apis_of(exchanges) == [chat_api_of(exchange) for exchange in exchanges]
