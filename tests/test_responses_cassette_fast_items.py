"""The Responses loader's usual-item path against its general one (SPEC R2, R4, R34, R35).

A cassette's usual items (a response's ``function_call``, a request's ``function_call_output``
of a string) are read by ``responses._usual_call`` / ``_usual_output``; every other item, and a
usual one they decline, by the general item reader. ``responses._FAST_ITEMS = False`` sends
every item the general way. On any cassette the two must give the same runs, boundaries,
conversations and problems. The cassettes here are SYNTHETIC: drawn by Hypothesis in the shape
of vcrpy's JSON serializer, with the oddities real clients write (resent history, a call resent
under its item id, outputs of parts, missing or mistyped ids and names, chains that continue by
``previous_response_id`` or by answering a call).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import workbench as wb
from workbench._load import pairing, responses

_IDS = st.sampled_from(["c1", "c2", "c3", "fc_1", "", None, 7])
_TEXT = st.sampled_from(["ok", "Error: no such city", "", "  Error: spaced", "27"])


@st.composite
def _call_item(draw: st.DrawFn) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "function_call"}
    for key, values in (
        ("call_id", _IDS),
        ("name", st.sampled_from(["get", "", None, 3])),
        ("arguments", st.sampled_from(['{"city": "NYC"}', "{}", "not json", "", None])),
        ("id", st.sampled_from(["fc_1", "fc_2", "c1", None])),
        ("status", st.just("completed")),
    ):
        if draw(st.booleans()) or key in ("call_id", "name"):
            value = draw(values)
            if value is not None or key == "id":
                item[key] = value
    return item


@st.composite
def _output_item(draw: st.DrawFn) -> dict[str, Any]:
    output = draw(
        st.one_of(
            _TEXT,
            st.just([{"type": "input_text", "text": "Error: parts"}]),
            st.none(),
            st.integers(0, 3),
        )
    )
    item: dict[str, Any] = {"type": "function_call_output", "call_id": draw(_IDS)}
    if output is not None or draw(st.booleans()):
        item["output"] = output
    return item


_OTHER_ITEMS = st.sampled_from(
    [
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "hi"}],
        },
        {"role": "user", "content": "next"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"type": "custom_tool_call", "call_id": "c2", "name": "run", "input": "print(1)"},
        {"type": "custom_tool_call_output", "call_id": "c2", "output": "1"},
        "not an item",
    ]
)
_ITEMS = st.lists(st.one_of(_call_item(), _output_item(), _OTHER_ITEMS), max_size=4)


@st.composite
def _cassette(draw: st.DrawFn) -> dict[str, Any]:
    interactions = []
    for index in range(draw(st.integers(1, 5))):
        request: dict[str, Any] = {"model": "m", "input": draw(_ITEMS)}
        if index and draw(st.booleans()):
            request["previous_response_id"] = f"resp{draw(st.integers(0, index - 1))}"
        response: dict[str, Any] = {
            "object": "response",
            "id": f"resp{index}",
            "output": draw(_ITEMS),
        }
        interactions.append(
            {
                "request": {
                    "uri": "https://api.openai.com/v1/responses",
                    "method": "POST",
                    "parsed_body": request,
                },
                "response": {"status": {"code": 200}, "parsed_body": response},
            }
        )
    return {"interactions": interactions}


@contextmanager
def _fast_items(on: bool) -> Iterator[None]:
    saved = responses._FAST_ITEMS
    responses._FAST_ITEMS = on
    try:
        yield
    finally:
        responses._FAST_ITEMS = saved


def _outcome(path: Path, rule: wb.ErrorRule) -> str:
    try:
        result = wb.load_runs(path, strict=False, error_rule=rule)
    except wb.LoadError as exc:
        return f"LoadError {exc}"
    return repr((result.format, result.runs, result.problems))


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cassette=_cassette(), rule=st.sampled_from([wb.ErrorRule(), wb.ErrorRule.regex("city$")]))
def test_the_usual_item_path_reads_every_cassette_as_the_general_one(
    tmp_path: Path, cassette: dict[str, Any], rule: wb.ErrorRule
) -> None:
    path = tmp_path / "cassette.json"
    path.write_text(json.dumps(cassette), encoding="utf-8")
    with _fast_items(False):
        general = _outcome(path, rule)
    with _fast_items(True):
        usual = _outcome(path, rule)
    assert usual == general


def test_the_usual_item_path_is_the_one_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chained cassette of usual items never reaches the general item reader (else the
    comparison above would compare the general path with itself)."""
    cassette = {
        "interactions": [
            {
                "request": {
                    "uri": "https://api.openai.com/v1/responses",
                    "method": "POST",
                    "parsed_body": {
                        "model": "m",
                        "input": []
                        if i == 0
                        else [
                            {"type": "function_call_output", "call_id": f"c{i - 1}", "output": "ok"}
                        ],
                        **({"previous_response_id": f"resp{i - 1}"} if i else {}),
                    },
                },
                "response": {
                    "status": {"code": 200},
                    "parsed_body": {
                        "object": "response",
                        "id": f"resp{i}",
                        "output": [
                            {
                                "type": "function_call",
                                "id": f"fc_{i}",
                                "call_id": f"c{i}",
                                "name": "get",
                                "arguments": "{}",
                            }
                        ]
                        if i < 3
                        else [{"type": "message", "role": "assistant", "content": "done"}],
                    },
                },
            }
            for i in range(4)
        ]
    }
    path = tmp_path / "cassette.json"
    path.write_text(json.dumps(cassette), encoding="utf-8")
    general: list[str] = []
    real_item = responses._item

    def counting(item: Any, *args: Any, **kwargs: Any) -> Any:
        general.append(str(item.get("type")))
        return real_item(item, *args, **kwargs)

    monkeypatch.setattr(responses, "_item", counting)
    result = wb.load_runs(path)
    assert [b.call_id for b in result.boundaries] == ["c0", "c1", "c2"]
    assert result.run.answer == "done"
    assert general == ["message"]  # only the closing message took the general way


def test_answers_out_of_call_order_are_indexed_in_call_order() -> None:
    """R2: boundaries are in call order whatever order the answers came in (the pairer
    numbers them as they come only while they come in call order)."""
    pairer = pairing.CallPairer("f")
    for call_id in ("a", "b", "c"):
        pairer.call(call_id, "t", {}, where=call_id, field_name="id")
    for call_id in ("b", "a", "c"):
        pairer.result(call_id, "ok", False, where=call_id, field_name="id")
    boundaries = pairer.finish()
    assert [(b.index, b.call_id) for b in boundaries] == [(0, "a"), (1, "b"), (2, "c")]
    in_order = pairing.CallPairer("f")
    for call_id in ("a", "b"):
        in_order.call(call_id, "t", {}, where=call_id, field_name="id")
        in_order.result(call_id, "ok", False, where=call_id, field_name="id")
    assert [(b.index, b.call_id) for b in in_order.finish()] == [(0, "a"), (1, "b")]
