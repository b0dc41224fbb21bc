"""Promotion keeps the model's side of a recorded run on the task input (SPEC R40), in one
neutral shape whatever the format, validated by the extension schema; R9 still holds."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import workbench as wb
from helpers.llm import CHAT_TRANSCRIPTS, OPENAI_REFUND, RESPONSES_RUN, promoted
from helpers.paths import SAMPLES, TAU_DEMO
from workbench._load.anthropic import load_anthropic
from workbench._load.openai_chat import load_openai_chat
from workbench._load.responses import load_openai_responses


def roles(conversation: wb.Conversation) -> list[str]:
    return [str(m["role"]) for m in conversation.messages]


def test_openai_chat_conversation_keeps_every_message_in_order() -> None:
    """R40: system, user, assistant turns (tool calls by boundary callId) and tool results."""
    run = wb.load_runs(OPENAI_REFUND).run
    talk = run.conversation
    assert talk is not None
    assert roles(talk)[:4] == ["system", "user", "assistant", "tool"]
    calls = [c for m in talk.messages for c in m.get("toolCalls", ())]
    assert [c["id"] for c in calls] == [b.call_id for b in run.boundaries]
    assert [c["args"] for c in calls] == [b.args for b in run.boundaries]
    failed = [m for m in talk.messages if m["role"] == "tool" and m["isError"]]
    assert [m["name"] for m in failed] == ["refund_item"]
    assert str(failed[0]["content"]).startswith("Error: payment method gift_card_5521")
    assert talk.messages[-1] == {"role": "assistant", "content": run.answer}


def test_tools_are_inferred_from_the_calls_and_marked_so() -> None:
    """R40: with no recorded definitions, tools come from the calls, marked inferred."""
    talk = wb.load_runs(OPENAI_REFUND).run.conversation
    assert talk is not None and talk.tools_inferred
    refund = next(t for t in talk.tools if t["name"] == "refund_item")
    assert refund["inputSchema"]["required"] == [
        "order_id",
        "item_id",
        "payment_method_id",
        "reason",
    ]
    assert refund["inputSchema"]["properties"]["order_id"] == {"type": "string"}


def test_recorded_tool_definitions_system_and_model_are_kept() -> None:
    """R40: a logged request's tools (each format's shape), system and model are read."""
    messages = [
        {"role": "user", "content": "Order 7?"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "get_order", "input": {"id": 7}}],
        },
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}],
        },
    ]
    record = {
        "model": "claude-x",
        "system": [{"type": "text", "text": "Be brief."}],
        "tools": [
            {"name": "get_order", "description": "Fetch", "input_schema": {"type": "object"}}
        ],
        "messages": messages,
    }
    runs, problems = load_anthropic(record, "a.json")
    talk = runs[0].conversation
    assert not problems and talk is not None
    assert talk.model == "claude-x" and not talk.tools_inferred
    assert talk.tools == (
        {"name": "get_order", "description": "Fetch", "inputSchema": {"type": "object"}},
    )
    assert talk.messages[0] == {"role": "system", "content": "Be brief."}
    chat = {
        "tools": [
            {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
        ],
        "messages": [{"role": "user", "content": "hi"}],
    }
    chat_runs, _ = load_openai_chat(chat, "c.json", wb.ErrorRule.prefix("Error:"))
    assert chat_runs[0].conversation is not None
    assert chat_runs[0].conversation.tools == ({"name": "f", "inputSchema": {"type": "object"}},)


def test_anthropic_conversation_has_a_tool_message_per_result_block() -> None:
    """R40: parallel results are separate tool messages; is_error is kept."""
    talk = wb.load_runs(SAMPLES / "anthropic-refund.json").run.conversation
    assert talk is not None
    assert roles(talk)[:6] == ["user", "assistant", "tool", "assistant", "tool", "tool"]
    assert talk.messages[1]["content"] == "I'll look up your account and that order."
    assert talk.messages[5]["isError"] is True
    assert talk.messages[5]["content"] == "returns service timed out after 10s"


def test_anthropic_server_tool_splits_the_turn_where_its_result_is() -> None:
    """R40: text, a server tool call, its result, then the rest of the message as a turn."""
    message = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Searching."},
            {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"q": "x"}},
            {
                "type": "web_search_tool_result",
                "tool_use_id": "srv_1",
                "content": [{"type": "text", "text": "a result"}],
            },
            {"type": "text", "text": "Found it."},
        ],
    }
    runs, problems = load_anthropic({"messages": [{"role": "user", "content": "q"}, message]}, "s")
    talk = runs[0].conversation
    assert not problems and talk is not None
    assert [dict(m) for m in talk.messages[1:]] == [
        {
            "role": "assistant",
            "content": "Searching.",
            "toolCalls": [
                {
                    "id": "srv_1",
                    "name": "web_search",
                    "args": {"q": "x"},
                    "x-blockType": "server_tool_use",
                }
            ],
        },
        {
            "role": "tool",
            "toolCallId": "srv_1",
            "name": "web_search",
            "content": "a result",
            "isError": False,
        },
        {"role": "assistant", "content": "Found it."},
    ]
    assert runs[0].answer == "Found it."


def test_responses_items_become_one_conversation() -> None:
    """R40: developer -> system, calls joined to the assistant turn before them, outputs."""
    runs, problems = load_openai_responses(RESPONSES_RUN, "r.json", wb.ErrorRule.prefix("Error:"))
    talk = runs[0].conversation
    assert not problems and talk is not None
    assert roles(talk) == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert talk.messages[4] == {
        "role": "assistant",
        "content": "Retrying.",
        "toolCalls": [{"id": "fc_2", "name": "get_order", "args": {"id": 7}}],
    }
    assert talk.messages[3]["isError"] is True


@pytest.mark.parametrize("path", CHAT_TRANSCRIPTS, ids=lambda p: p.name)
def test_promotion_puts_the_conversation_on_the_task_input(path: Any) -> None:
    """R40: every task input holds the conversation, valid against the extension schema, its
    tool messages carrying exactly what the fixtures serve."""
    promotion = promoted(path)
    assert promotion.suite.validate() == []
    for task, run in zip(promotion.suite.tasks, wb.load_runs(path).runs, strict=True):
        conversation = task["input"]["conversation"]
        assert len(conversation["messages"]) == len(run.conversation.messages)  # type: ignore[union-attr]
        tool_messages = [m for m in conversation["messages"] if m["role"] == "tool"]
        entries = task["fixtures"]["toolResponses"]
        assert len(tool_messages) == len(entries)
        for message, entry in zip(tool_messages, entries, strict=True):
            assert message["isError"] == entry.get("isError", False)
            assert (
                message["content"]
                == wb.ToolResult.from_response(entry["response"], is_error=False).text
            )


def test_extension_schema_refuses_a_malformed_conversation() -> None:
    """R40: the neutral shape is checked (an isError that is not a boolean is refused)."""
    data = copy.deepcopy(promoted(OPENAI_REFUND).suite.data)
    tool = next(
        m for m in data["tasks"][0]["input"]["conversation"]["messages"] if m["role"] == "tool"
    )
    tool["isError"] = "true"
    problems = wb.validate_suite(data)
    assert problems and problems[0].path.startswith("tasks[0].input.conversation.messages[")


def test_a_suite_with_a_conversation_and_no_extension_member_is_still_official() -> None:
    """R9: input is opaque in the official schema, so a conversation on it keeps a suite that
    uses no extension member valid there."""
    task = promoted(TAU_DEMO).suite.tasks[0]
    suite = {
        "suiteId": "local.workbench.evals.talk",
        "version": "1.0.0",
        "modes": ["golden"],
        "tasks": [
            {
                "taskId": "t",
                "input": {"conversation": task["input"]["conversation"]},
                "expected": {"kind": "golden", "match": {"strategy": "exact", "value": "x"}},
            }
        ],
    }
    assert wb.validate_suite(suite, official=True) == []
    assert wb.validate_suite(suite) == []


def test_secrets_in_a_conversation_are_redacted_and_copies_not_reported_twice() -> None:
    """R31 on the conversation: a user's pasted key is redacted and reported; a tool result's
    secret, a copy of the fixture's, is reported once (at the fixture)."""
    secret = "Bearer abcdefghijklmnopqrstuvwxyz012345"
    chat = {
        "messages": [
            {"role": "user", "content": f"my header is Authorization: {secret}"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": f"token {secret}"},
        ]
    }
    runs, _ = load_openai_chat(chat, "c.json", wb.ErrorRule.prefix("Error:"))
    promotion = wb.promote(runs)
    assert "abcdefghijklmnop" not in promotion.suite.to_json()
    paths = sorted(r.path for r in promotion.redactions)
    assert paths == [
        "tasks[0].fixtures.toolResponses[0].response.content[0].text",
        "tasks[0].input.conversation.messages[0].content",
    ]


def _inferred_by_hand(calls: list[tuple[str, Any]]) -> tuple[dict[str, Any], ...]:
    """R40's inference spelled out call by call, argument by argument (the oracle)."""
    kinds = [(bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
             (list, "array"), (dict, "object")]  # fmt: skip
    order: list[str] = []
    for name, _ in calls:
        if name not in order:
            order.append(name)
    out = []
    for name in order:
        objects = [args for tool, args in calls if tool == name and isinstance(args, dict)]
        types: dict[str, list[str]] = {}
        for args in objects:
            for key, value in args.items():
                kind = next((k for base, k in kinds if isinstance(value, base)), "null")
                if kind not in types.setdefault(key, []):
                    types[key].append(kind)
        schema: dict[str, Any] = {"type": "object"}
        if types:
            schema["properties"] = {
                k: {"type": t[0] if len(t) == 1 else t} for k, t in types.items()
            }
            required = [k for k in types if all(k in args for args in objects)]
            if required:
                schema["required"] = required
        out.append({"name": name, "inputSchema": schema})
    return tuple(out)


_ARG_VALUES = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=3)
_ARGS = st.dictionaries(
    st.sampled_from(["a", "b", "c", "d"]),
    _ARG_VALUES | st.lists(_ARG_VALUES, max_size=2),
    max_size=4,
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["f", "g", "h"]), _ARGS | st.none() | st.just([1])), max_size=30
    )
)
def test_tools_inferred_from_calls_match_the_rule_worked_out_call_by_call(
    calls: list[tuple[str, Any]],
) -> None:
    """R40: inferred tools are in first-use order; each arg has the JSON types its values had,
    in first-seen order; an arg in every object call is required (the loader reads each distinct
    shape of arguments once, which must not change any of this)."""
    from workbench._load.conversation import infer_tools

    assert infer_tools(calls) == _inferred_by_hand(calls)
