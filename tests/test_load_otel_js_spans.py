"""Spans as JavaScript exporters write them to a file, read as OTLP spans are (SPEC R34-R36).

``fixtures/otel/generated-copilot-cli-1.0.102-file-exporter.jsonl`` is SYNTHETIC: GitHub Copilot
CLI 1.0.102's own OpenTelemetry file exporter, the CLI driven by a scripted fake model (see
``fixtures/otel/SOURCE.md``); the session log of the same script is in ``fixtures/copilot-cli``.
The other shapes are made here from its spans: the JavaScript SDK's ``ReadableSpan`` as JSON
(ids in ``_spanContext``, the parent in ``parentSpanContext``) and files opening with a metric.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import workbench as wb
from helpers.paths import FIXTURES

EXPORT = FIXTURES / "otel" / "generated-copilot-cli-1.0.102-file-exporter.jsonl"
SESSION = FIXTURES / "copilot-cli" / "generated-copilot-1.0.102-mcp-subagent.events.jsonl"
LINES: list[dict[str, Any]] = [json.loads(line) for line in EXPORT.read_text().splitlines()]


def _facts(result: wb.LoadResult) -> list[tuple[Any, ...]]:
    return sorted((b.call_id, b.tool, b.args, b.is_error, b.agent_id) for b in result.boundaries)


def _write(tmp_path: Path, records: list[Any], name: str = "otel.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_copilots_export_gives_the_calls_its_session_log_gives() -> None:
    """R34, R36: each ``execute_tool`` span a call (arguments and result captured), status 2 a
    failure, the shell command that exited 3 a failure as the session log's reader has it, the
    sub-agent's call named by its ``invoke_agent`` span; metric lines counted (R35)."""
    exported = wb.load_runs(EXPORT)
    assert exported.format == "otel" and exported.problems == ()
    session = wb.load_runs(SESSION)
    assert _facts(exported) == _facts(session)
    failed = {b.call_id: b.error_code for b in exported.boundaries if b.is_error}
    assert failed["call_main_1_0"] == "exit_code:3"
    assert failed["call_main_2_0"] == "ToolError"
    assert exported.run.metadata["records"]["metric"] == 20


def test_a_file_opening_with_a_metric_line_is_still_spans(tmp_path: Path) -> None:
    metrics = [line for line in LINES if line["type"] == "metric"]
    spans = [line for line in LINES if line["type"] == "span"]
    result = wb.load_runs(_write(tmp_path, metrics + spans))
    assert result.format == "otel"
    assert _facts(result) == _facts(wb.load_runs(EXPORT))


def _readable_span(line: dict[str, Any]) -> dict[str, Any]:
    """The JavaScript SDK's ``ReadableSpan`` as ``JSON.stringify`` writes it: ids in the span
    context, the parent's in its own (2.x), no ``type``."""
    span = {k: v for k, v in line.items() if k not in ("type", "traceId", "spanId", "parentSpanId")}
    span["_spanContext"] = {"traceId": line["traceId"], "spanId": line["spanId"], "traceFlags": 1}
    if "parentSpanId" in line:
        span["parentSpanContext"] = {"traceId": line["traceId"], "spanId": line["parentSpanId"]}
    return span


def test_the_sdks_readable_span_json_loads_the_same(tmp_path: Path) -> None:
    spans = [_readable_span(line) for line in LINES if line["type"] == "span"]
    as_lines = wb.load_runs(_write(tmp_path, spans))
    array = tmp_path / "spans.json"
    array.write_text(json.dumps(spans), encoding="utf-8")
    assert _facts(as_lines) == _facts(wb.load_runs(array)) == _facts(wb.load_runs(EXPORT))


def test_a_bad_time_or_status_is_no_crash(tmp_path: Path) -> None:
    """R35: odd values where the exporter writes times and status load around them: a status
    that is no object says nothing of failure, a time that does not read is no duration."""
    spans = [line for line in LINES if line["type"] == "span"]
    first = next(
        i for i, s in enumerate(spans) if s["attributes"].get("gen_ai.tool.name") == "bash"
    )
    spans[first] = {**spans[first], "startTime": [-1, 5], "endTime": "soon", "status": [2]}
    result = wb.load_runs(_write(tmp_path, spans), strict=False)
    assert len(result.boundaries) == 10
    odd = next(
        b
        for b in result.boundaries
        if b.call_id == spans[first]["attributes"]["gen_ai.tool.call.id"]
    )
    assert (odd.is_error, odd.duration_ms) == (False, None)


def test_the_export_saved_as_one_array_counts_its_metrics(tmp_path: Path) -> None:
    """R35: the metric items of the lines saved as one JSON array are counted, as in JSONL."""
    path = tmp_path / "export.json"
    path.write_text(json.dumps(LINES), encoding="utf-8")
    result = wb.load_runs(path)
    assert result.problems == () and result.run.metadata["records"]["metric"] == 20
    assert _facts(result) == _facts(wb.load_runs(EXPORT))


def test_only_a_shell_tools_text_says_an_exit_code(tmp_path: Path) -> None:
    """R36: a ``view`` whose result ends like a shell's exit line is no failure."""
    spans = [dict(line) for line in LINES if line["type"] == "span"]
    viewed = next(
        s
        for s in spans
        if s["attributes"].get("gen_ai.tool.name") == "view" and s["status"]["code"] == 0
    )
    viewed["attributes"] = {
        **viewed["attributes"],
        "gen_ai.tool.call.result": "log\n<shellId: 3 completed with exit code 2>",
    }
    result = wb.load_runs(_write(tmp_path, spans))
    call = viewed["attributes"]["gen_ai.tool.call.id"]
    assert next(b for b in result.boundaries if b.call_id == call).is_error is False


@settings(max_examples=25, deadline=None)
@given(st.randoms(use_true_random=False))
def test_the_order_lines_were_written_in_does_not_matter(random: random.Random) -> None:
    """Property (issue 10): an exporter writes spans as they end, in batches; any order of the
    lines gives the same calls."""
    shuffled = list(LINES)
    random.shuffle(shuffled)
    text = "".join(json.dumps(r) + "\n" for r in shuffled)
    from tempfile import TemporaryDirectory

    with TemporaryDirectory() as folder:
        path = Path(folder) / "otel.jsonl"
        path.write_text(text, encoding="utf-8")
        assert _facts(wb.load_runs(path)) == _facts(wb.load_runs(EXPORT))
