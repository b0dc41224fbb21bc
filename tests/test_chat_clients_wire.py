"""The chat clients speak each API through its official SDK (SPEC R40): what is sent (tools,
the conversation, failures in the API's own tool-result shape: ``is_error`` for Anthropic, an
``Error:`` text for OpenAI) and how the reply is read back. Offline: the SDKs' HTTP clients
run on ``httpx2.MockTransport``."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import workbench as wb
from helpers.llm import OPENAI_REFUND, flipped, promoted, require

openai = require("openai")
anthropic = require("anthropic")
httpx2 = require("httpx2")

Handler = Callable[[Any], Any]

FAILED = {
    "role": "tool",
    "toolCallId": "c:1",
    "name": "billing:lookup",
    "content": "",
    "isError": True,
}
REQUEST = wb.ChatRequest(
    messages=(
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Look up 7."},
        {
            "role": "assistant",
            "content": None,
            "toolCalls": [{"id": "c:1", "name": "billing:lookup", "args": {"id": 7}}],
        },
        FAILED,
    ),
    tools=({"name": "billing:lookup", "description": "Find", "inputSchema": {"type": "object"}},),
    model="m",
    client="openai-chat",
    params={"temperature": 0},
    seed=11,
    task_id="t",
    trial=0,
)


def openai_client(reply: dict[str, Any], seen: list[Any]) -> Any:
    def handler(request: Any) -> Any:
        seen.append((request.url.path, json.loads(request.content)))
        if request.url.path.endswith("/completions") and not request.url.path.endswith(
            "chat/completions"
        ):
            return httpx2.Response(
                200,
                json={
                    "id": "c",
                    "object": "text_completion",
                    "created": 0,
                    "model": "m",
                    "choices": [{"index": 0, "text": "0", "finish_reason": "length"}],
                },
            )
        return httpx2.Response(
            200,
            json={
                "id": "x",
                "object": "chat.completion",
                "created": 0,
                "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop", "message": reply}],
            },
        )

    return openai.OpenAI(
        base_url="http://model.test/v1",
        api_key="k",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )


def test_openai_native_sends_tools_and_a_failed_result_as_error_text() -> None:
    reply = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "r1",
                "type": "function",
                "function": {"name": "billing_lookup", "arguments": '{"id": 8}'},
            }
        ],
    }
    seen: list[Any] = []
    client = wb.OpenAIChatClient(openai_client(reply, seen), "m")
    turn = client.complete(REQUEST)
    path, body = seen[-1]
    assert path == "/v1/chat/completions"
    assert body["tools"][0]["function"] == {
        "name": "billing_lookup",
        "description": "Find",
        "parameters": {"type": "object"},
    }
    assert body["messages"][2]["tool_calls"][0]["function"] == {
        "name": "billing_lookup",
        "arguments": '{"id": 7}',
    }
    assert body["messages"][3] == {
        "role": "tool",
        "tool_call_id": "c:1",
        "content": "Error: Tool call failed",
    }
    assert body["seed"] == 11 and body["temperature"] == 0
    assert turn == {
        "role": "assistant",
        "content": None,
        "toolCalls": [{"id": "r1", "name": "billing:lookup", "args": {"id": 8}}],
    }


def test_openai_json_mode_never_sends_null_content_and_reads_the_json_call() -> None:
    """For llama.cpp's server: no null content (HTTP 500 there), a JSON-schema response format,
    the prompt cache reset with a one-token completion first."""
    seen: list[Any] = []
    reply = {"role": "assistant", "content": '{"tool": "billing_lookup", "args": {"id": 9}}'}
    client = wb.OpenAIChatClient(
        openai_client(reply, seen), "m", tool_mode="json", reset_prompt_cache=True
    )
    turn = client.complete(REQUEST)
    assert [p for p, _ in seen] == ["/v1/completions", "/v1/chat/completions"]
    body = seen[-1][1]
    assert all(isinstance(m["content"], str) for m in body["messages"])
    assert body["messages"][2]["content"] == '{"tool": "billing_lookup", "args": {"id": 7}}'
    assert "billing_lookup" in body["messages"][0]["content"]
    assert body["response_format"]["type"] == "json_object"
    assert body["response_format"]["schema"]["anyOf"][0]["properties"]["tool"] == {
        "const": "billing_lookup"
    }
    assert turn["toolCalls"][0]["name"] == "billing:lookup" and turn["toolCalls"][0]["args"] == {
        "id": 9
    }
    assert turn["toolCalls"][0]["id"] == f"call_{REQUEST.key[:16]}"


def test_anthropic_sends_is_error_tool_results_and_reads_tool_use() -> None:
    seen: list[Any] = []

    def handler(request: Any) -> Any:
        seen.append(json.loads(request.content))
        return httpx2.Response(
            200,
            json={
                "id": "m1",
                "type": "message",
                "role": "assistant",
                "model": "c",
                "stop_reason": "tool_use",
                "stop_sequence": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
                "content": [
                    {"type": "text", "text": "Again."},
                    {
                        "type": "tool_use",
                        "id": "toolu_2",
                        "name": "billing_lookup",
                        "input": {"id": 7},
                    },
                ],
            },
        )

    sdk = anthropic.Anthropic(
        api_key="k",
        base_url="http://model.test",
        max_retries=0,
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
    )
    turn = wb.AnthropicClient(sdk, "c").complete(REQUEST)
    body = seen[-1]
    assert body["system"] == "Be brief." and body["max_tokens"] == 1024
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    assert body["messages"][1]["content"] == [
        {"type": "tool_use", "id": "c_1", "name": "billing_lookup", "input": {"id": 7}}
    ]
    assert body["messages"][2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "c_1",
            "content": "Tool call failed",
            "is_error": True,
        }
    ]
    assert body["tools"] == [
        {"name": "billing_lookup", "description": "Find", "input_schema": {"type": "object"}}
    ]
    assert turn == {
        "role": "assistant",
        "content": "Again.",
        "toolCalls": [{"id": "toolu_2", "name": "billing:lookup", "args": {"id": 7}}],
    }


def test_the_llm_agent_drives_the_openai_sdk_after_a_flip() -> None:
    """R40, R41 end to end offline: the flipped result is in the HTTP request the SDK sends."""
    seen: list[Any] = []
    client = wb.OpenAIChatClient(
        openai_client({"role": "assistant", "content": "I could not find you."}, seen), "m"
    )
    result = wb.replay(flipped(promoted(OPENAI_REFUND), 0), wb.LLMAgent(client))
    trial = result.tasks[0].trials[0]
    assert trial.decision.answer == "I could not find you."
    assert trial.model_turns == wb.ModelTurns(recording=1, live=1)
    last = seen[-1][1]["messages"][-1]
    assert last["role"] == "tool" and last["content"].startswith(
        'Error: {"customer_id": "cust_20931"'
    )
