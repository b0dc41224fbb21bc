"""A stateless Responses API client's whole history, sent again each request (SPEC R34, R2, R40).

The first test reads a real pydantic-ai cassette (``fixtures/openai-responses``, its SOURCE.md
counts it); the others write cassettes here (SYNTHETIC), in the shapes of OpenAI's API
reference, to pin what tells a copy of the history from new items.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import workbench as wb
from helpers.paths import FIXTURES

URI = "https://api.openai.com/v1/responses"


def _cassette(tmp_path: Path, exchanges: list[tuple[list[Any], list[Any]]]) -> wb.LoadResult:
    interactions = [
        {
            "request": {
                "uri": URI,
                "method": "POST",
                "body": {"string": json.dumps({"model": "m", "input": inputs})},
            },
            "response": {
                "status": {"code": 200},
                "body": {
                    "string": json.dumps(
                        {"object": "response", "id": f"resp_{n}", "output": outputs}
                    )
                },
            },
        }
        for n, (inputs, outputs) in enumerate(exchanges)
    ]
    path = tmp_path / "cassette.json"
    path.write_text(json.dumps({"interactions": interactions}), encoding="utf-8")
    return wb.load_runs(path, strict=False)


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _said(text: str, item_id: str | None = None) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": text}],
    }
    return item | ({"id": item_id} if item_id else {})


def _call(call_id: str, item_id: str | None = None) -> dict[str, Any]:
    item = {"type": "function_call", "call_id": call_id, "name": "roll", "arguments": "{}"}
    return item | ({"id": item_id} if item_id else {})


def _output(call_id: str, text: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


def _roles(run: wb.PromotedRun) -> list[tuple[str, str]]:
    assert run.conversation is not None
    return [
        (m["role"], str(m.get("content") or [c["name"] for c in m.get("toolCalls", ())]))
        for m in run.conversation.messages
    ]


def test_a_real_stateless_history_without_item_ids_is_one_conversation_read_once() -> None:
    """pydantic-ai resends the whole history without item ids and rewrites its hosted search:
    one conversation, the search read once, no message twice in the transcript."""
    path = (
        FIXTURES
        / "openai-responses"
        / "pydantic_ai_hosted_tool_search_stateless_without_item_ids.yaml"
    )
    [run] = wb.load_runs(path).runs
    assert [b.tool for b in run.boundaries] == ["tool_search", "get_exchange_rate"]
    assert run.metadata["exchanges"] == [0, 1, 2]
    roles = [role for role, _ in _roles(run)]
    assert roles == [
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]


def test_the_copy_of_the_history_is_skipped_and_the_new_items_read(tmp_path: Path) -> None:
    """Each request sends the last input, the last output as the client kept it (no ids, the
    reasoning left out) and then the new items: each message is in the transcript once."""
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": []}
    first = [_user("roll")]
    second = [*first, {"type": "function_call", "call_id": "c1", "name": "roll", "arguments": "{}"}]
    second.append(_output("c1", "4"))
    result = _cassette(
        tmp_path,
        [
            (first, [reasoning, _call("c1", "fc_1")]),
            (second, [_said("You rolled 4", "msg_1")]),
            (
                [*second, {"role": "assistant", "content": "You rolled 4"}, _user("again")],
                [_said("Sure", "msg_2")],
            ),
        ],
    )
    [run] = result.runs
    assert [(b.call_id, b.response) for b in run.boundaries] == [("c1", "4")]
    assert _roles(run) == [
        ("user", "roll"),
        ("assistant", "['roll']"),
        ("tool", "4"),
        ("assistant", "You rolled 4"),
        ("user", "again"),
        ("assistant", "Sure"),
    ]


def test_trials_of_one_prompt_each_go_on_from_their_own_reply(tmp_path: Path) -> None:
    """Two trials send the same first request; each goes on with the reply it got (the copy
    tells them apart), and a request that sends the first input again and adds nothing is
    one more trial, not a continuation."""
    prompt = [_user("say a colour")]
    result = _cassette(
        tmp_path,
        [
            (prompt, [_said("red")]),
            (prompt, [_said("blue")]),
            ([*prompt, {"role": "assistant", "content": "blue"}, _user("why?")], [_said("sky")]),
            ([*prompt, {"role": "assistant", "content": "red"}, _user("why?")], [_said("roses")]),
            (prompt, [_said("green")]),
        ],
    )
    assert [run.metadata["exchanges"] for run in result.runs] == [[0, 3], [1, 2], [4]]
    assert [_roles(run)[-1] for run in result.runs] == [
        ("assistant", "roses"),
        ("assistant", "sky"),
        ("assistant", "green"),
    ]


def test_a_call_resent_under_its_item_id_keeps_its_conversation(tmp_path: Path) -> None:
    """Trials whose first requests are the same, continued by a client that resends each call
    under its item id (ellmer): each is answered in its own conversation (R2)."""
    prompt = [_user("roll")]
    result = _cassette(
        tmp_path,
        [
            (prompt, [_call("call_a", "fc_a")]),
            (prompt, [_call("call_b", "fc_b")]),
            ([*prompt, _call("fc_a"), _output("fc_a", "1")], [_said("You rolled 1")]),
            ([*prompt, _call("fc_b"), _output("fc_b", "2")], [_said("You rolled 2")]),
        ],
    )
    assert result.problems == ()
    assert [[(b.call_id, b.response) for b in run.boundaries] for run in result.runs] == [
        [("call_a", "1")],
        [("call_b", "2")],
    ]


def test_an_item_whose_type_is_not_a_string_is_no_crash(tmp_path: Path) -> None:
    """R35: an output item whose ``type`` is a list or an object (a mutation fuzz of a real
    cassette found it) was keyed as a hosted item and crashed the load with "unhashable type";
    it is an item of no known type, and the call beside it still loads."""
    call = {"type": "function_call", "call_id": "c1", "name": "get", "arguments": "{}"}
    answer = {"type": "function_call_output", "call_id": "c1", "output": "ok"}
    for odd in ([], {"a": 1}, ["function_call"]):
        result = _cassette(
            tmp_path,
            [([_user("go")], [call, {"type": odd}]), ([_user("go"), call, answer], [])],
        )
        assert [(b.call_id, b.response) for b in result.boundaries] == [("c1", "ok")]
