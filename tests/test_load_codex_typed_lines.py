"""A Codex rollout loads the same whether its usual lines are decoded typed or whole (R34, R35;
``workbench/_load/codex_typed.py``). The rollouts are generated (SYNTHETIC): usual lines and
lines a hair off them (a member more, a field of another type, an empty id, a duplicate key),
among the other records a rollout holds."""

from __future__ import annotations

import json
import random
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench as wb
from helpers.codex_rollouts import call_items, write_rollout
from helpers.paths import FIXTURES
from workbench._load.codex import load_codex
from workbench._load.codex_typed import TYPED_LINE, TypedEvent, TypedItem
from workbench._load.reading import decode_json_lines
from workbench._load.records import DEFAULT_ERROR_RULE, ErrorRule

IDS = st.sampled_from(["c1", "c2", "c3", "", "call_x"])
TEXT = st.sampled_from(["a.txt", "", "Process exited with code 2", "Exit code: 0", "{}", "é\u2028"])
ARGS = st.sampled_from(['{"command":["ls"]}', "{}", "not json", '{"x": NaN}', '{"a": [1, 2]}'])


def _call(call_id: str, name: Any, arguments: Any, odd: int) -> dict[str, Any]:
    payload: dict[str, Any] = {"type": "function_call", "name": name, "call_id": call_id}
    payload["arguments"] = arguments
    if odd == 1:
        payload["namespace"] = "mcp"
    elif odd == 2:
        payload["id"] = "fc_1"  # a member the typed record does not take
    return {"timestamp": "t", "type": "response_item", "payload": payload}


RECORDS = st.one_of(
    st.builds(
        _call, IDS, st.sampled_from(["shell", "", 3]), ARGS | st.just(None), st.integers(0, 3)
    ),
    st.builds(
        lambda i, o: {
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": i, "output": o},
        },
        IDS,
        TEXT | st.just({"output": "x", "metadata": {"exit_code": 1}}) | st.just(["a"]),
    ),
    st.builds(
        lambda i, c: {
            "type": "event_msg",
            "payload": {"type": "exec_command_end", "call_id": i, "exit_code": c},
        },
        IDS,
        st.sampled_from([0, 1, 127, -1, True, 1.0, "1", None]),
    ),
    st.just({"type": "event_msg", "payload": {"type": "token_count", "info": None}}),
    st.just(
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "done"}],
            },
        }
    ),
    st.just({"type": "response_item", "payload": {"type": "reasoning", "summary": []}}),
    st.just({"type": "turn_context", "payload": {"model": "gpt-5"}}),
)


def _line(record: dict[str, Any], rng: random.Random) -> str:
    text = json.dumps(record, ensure_ascii=rng.random() < 0.5)
    if rng.random() < 0.1 and text.startswith('{"type": "response_item"'):
        # a duplicate member: JSON takes the last; both decoders must agree
        text = '{"type": "event_msg", ' + text[1:]
    return text


def _load_both(text: str, rule: ErrorRule) -> tuple[str, str, int]:
    data = text.encode("utf-8")
    plain, plain_problems = decode_json_lines(data, "r.jsonl")
    typed, typed_problems = decode_json_lines(data, "r.jsonl", typed=TYPED_LINE)
    fitted = sum(type(doc) in (TypedItem, TypedEvent) for _, doc in typed)
    a = load_codex(plain, "r.jsonl", rule)
    b = load_codex(typed, "r.jsonl", rule)
    return repr((a, plain_problems)), repr((b, typed_problems)), fitted


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(RECORDS, min_size=1, max_size=25), st.randoms(use_true_random=False))
def test_a_rollout_loads_the_same_typed_or_whole(records: list[Any], rng: random.Random) -> None:
    session = {"type": "session_meta", "payload": {"id": "s-1", "timestamp": "t"}}
    text = "\n".join(_line(r, rng) for r in [session, *records]) + "\n"
    plain, typed, _ = _load_both(text, DEFAULT_ERROR_RULE)
    assert typed == plain
    rule = ErrorRule.regex("txt")
    plain, typed, _ = _load_both(text, rule)
    assert typed == plain


def test_the_usual_lines_are_the_ones_decoded_typed() -> None:
    """The fast path is the one taken: each usual line fits, and a line a member off does not."""
    usual: list[dict[str, Any]] = [
        {
            "type": "response_item",
            "payload": {
                "type": "function_call",
                "name": "shell",
                "call_id": "c",
                "arguments": "{}",
            },
        },
        {
            "type": "event_msg",
            "payload": {"type": "exec_command_end", "call_id": "c", "exit_code": 0},
        },
        {
            "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": "c", "output": "ok"},
        },
    ]
    desktop = {"id": "fc_1", "internal_chat_message_metadata_passthrough": {"turn_id": "t"}}
    usual += [  # Codex Desktop 0.145's items: an id and the turn they belong to
        {"type": "response_item", "payload": {**usual[0]["payload"], **desktop}},
        {"type": "response_item", "payload": {**usual[2]["payload"], **desktop}},
    ]
    odd_turn = {**usual[3], "payload": {**usual[3]["payload"]}}
    odd_turn["payload"]["internal_chat_message_metadata_passthrough"] = {"turn_id": "t", "x": 1}
    with pytest.raises(msgspec.DecodeError):  # a member the typed record does not keep
        TYPED_LINE(json.dumps(odd_turn).encode())
    for record in usual:
        assert type(TYPED_LINE(json.dumps(record).encode())) in (TypedItem, TypedEvent)
        odd = json.loads(json.dumps(record))
        odd["payload"]["more"] = 1
        try:
            TYPED_LINE(json.dumps(odd).encode())
        except msgspec.DecodeError:
            continue
        raise AssertionError(f"{odd} fitted a typed record")


def test_real_rollouts_load_the_same_typed_or_whole() -> None:
    """The real rollouts: the typed path reads most of their calls, with the same result
    (Codex Desktop 0.145's items too, with their ``id`` and
    ``internal_chat_message_metadata_passthrough`` kept on ``extra`` as the plain path keeps
    them; its code mode's ``custom_tool_call`` items are read whole)."""
    import gzip

    for path in sorted((FIXTURES / "codex").glob("*.jsonl.gz")):
        text = gzip.decompress(path.read_bytes()).decode("utf-8")
        plain, typed, fitted = _load_both(text, DEFAULT_ERROR_RULE)
        assert typed == plain, path.name
        assert fitted > 50, path.name
        assert wb.load_runs(path).format == "codex"


def test_codex_own_errors_fail_a_call_and_a_tool_output_alone_does_not(tmp_path: Any) -> None:
    """R36, SYNTHETIC lines: ``success: false`` in a structured output, the user's refusal and
    a spawn error, each the whole output, fail their call; the same words inside a longer
    output (a file that quotes them) do not."""
    outputs = {
        "c1": {"content": "apply failed", "success": False},
        "c2": "exec command rejected by user",
        "c3": "execution error: Permission denied (os error 13)",
        "c4": "line 3: the words patch rejected by user appear in this file",
    }
    items = [
        item
        for call_id, output in outputs.items()
        for item in call_items(call_id, output, name="exec", custom=True)
    ]
    path = write_rollout(tmp_path, items)
    result = wb.load_runs(path)
    assert [(b.call_id, b.is_error, b.error_code) for b in result.boundaries] == [
        ("c1", True, "failed"),
        ("c2", True, "rejected:user"),
        ("c3", True, "execution_error"),
        ("c4", False, None),
    ]
