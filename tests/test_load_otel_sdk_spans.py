"""Spans as the OpenTelemetry SDK writes them (its console exporter, its span JSON), read as
OTLP spans are (SPEC R34, R35, R36).

``fixtures/otel/console_exporter_spans.log`` is SYNTHETIC: a made-up run written by the real SDK's
``ConsoleSpanExporter`` (``fixtures/otel/make_console_exporter_spans.py``). The other shapes are
made here from its spans: a JSON array (what a test dumps from the in-memory exporter) and JSONL.
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
from workbench._load.json_sequence import json_sequence

CONSOLE = FIXTURES / "otel" / "console_exporter_spans.log"


def _spans() -> list[Any]:
    found = json_sequence(CONSOLE.read_bytes(), str(CONSOLE))
    assert found is not None
    return [span for _, span in found[0]]


def _facts(result: wb.LoadResult) -> list[tuple[Any, ...]]:
    return [
        (b.call_id, b.tool, b.args, b.is_error, b.error_code, b.error_message, b.agent_id)
        for b in result.boundaries
    ]


EXPECTED = [
    ("call_1", "get_weather", {"city": "Paris"}, False, None, None, "helper"),
    ("call_2", "book", {"seat": "1A"}, True, "TimeoutError", "timed out after 30 s", "helper"),
]


def test_the_console_exporters_output_loads_its_calls() -> None:
    """R34, R36: each ``execute_tool`` span a call (its status ERROR a failure), its agent the
    ``invoke_agent`` span above it; the other span counted."""
    result = wb.load_runs(CONSOLE)
    assert result.format == "otel"
    assert _facts(result) == EXPECTED
    assert result.runs[0].run_id == _spans()[0]["context"]["trace_id"][2:]


@pytest.mark.parametrize("shape", ["array", "jsonl"])
def test_the_sdks_span_json_as_an_array_or_jsonl_loads_the_same(tmp_path: Path, shape: str) -> None:
    spans = _spans()
    path = tmp_path / ("spans.json" if shape == "array" else "spans.jsonl")
    if shape == "array":
        path.write_text(json.dumps(spans), encoding="utf-8")
    else:
        path.write_text("".join(json.dumps(s) + "\n" for s in spans), encoding="utf-8")
    assert _facts(wb.load_runs(path)) == EXPECTED


@settings(max_examples=20, deadline=None)
@given(st.randoms(use_true_random=False))
def test_the_order_spans_were_printed_in_does_not_matter(
    tmp_path_factory: pytest.TempPathFactory, rng: random.Random
) -> None:
    """Spans end (and are printed) children first; calls come in start order whatever the
    order of the file."""
    spans = _spans()
    rng.shuffle(spans)
    path = tmp_path_factory.mktemp("otel") / "spans.jsonl"
    path.write_text("".join(json.dumps(s) + "\n" for s in spans), encoding="utf-8")
    assert _facts(wb.load_runs(path)) == EXPECTED


def test_an_item_that_is_no_span_is_a_problem_at_its_place(tmp_path: Path) -> None:
    """R35: in an array of the SDK's spans, an item that is not one is named, the rest load."""
    spans: list[Any] = [*_spans(), {"name": "x"}]
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(spans), encoding="utf-8")
    result = wb.load_runs(path, strict=False)
    assert _facts(result) == EXPECTED
    assert [p.where for p in result.problems] == ["(root)[3]"]


def test_a_span_exported_twice_is_one_call(tmp_path: Path) -> None:
    """R2: an exporter's retry (or files put together) lists a span twice: one call, the other
    counted as ``span:repeated`` (it was two calls of one id)."""
    spans = _spans()
    path = tmp_path / "spans.json"
    path.write_text(json.dumps([*spans, spans[0]]), encoding="utf-8")
    result = wb.load_runs(path)
    assert _facts(result) == EXPECTED
    assert result.runs[0].metadata["records"]["span:repeated"] == 1


def test_a_failed_span_s_exception_event_is_read_as_in_otlp(tmp_path: Path) -> None:
    """R36: the SDK's span JSON keeps its events; a failed span's ``exception`` event gives its
    error text, as the same span in OTLP does (the events were dropped: "tool call failed")."""
    spans = _spans()
    for span in spans:
        if span["name"] == "execute_tool book":
            span["status"] = {"status_code": "ERROR"}
            attributes = {"exception.type": "KeyError", "exception.message": "no seat 1A"}
            span["events"] = [
                {"name": "exception", "timestamp": span["start_time"], "attributes": attributes}
            ]
    path = tmp_path / "spans.json"
    path.write_text(json.dumps(spans), encoding="utf-8")
    (failed,) = [b for b in wb.load_runs(path).boundaries if b.is_error]
    assert failed.error_message == "KeyError: no seat 1A"
    assert failed.response["content"][0]["text"] == "KeyError: no seat 1A"
