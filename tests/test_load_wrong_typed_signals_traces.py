"""A trace's failure signal of a type or value its format never writes is a problem, never a
success (R35: the call is not served).

An OTLP span's ``status.code`` of ``true``, ``"Error"``, ``["STATUS_CODE_ERROR"]`` (OTLP writes
0, 1, 2 or the enum's name), an SDK span's ``status.status_code`` of ``true`` (``to_json`` writes
``"UNSET"``, ``"OK"``, ``"ERROR"``), a JavaScript exporter's ``status.code`` of ``true`` or
``[2]`` (its ``SpanStatusCode`` is 0, 1, 2), a Jaeger span's ``error`` tag of a number or an
``otel.status_code`` of another value, and a LangChain ``ToolMessage.status`` of ``true`` (in a
Langfuse trace, in a Traceloop span; LangChain writes ``"success"`` or ``"error"``): each loaded
as a success. What those formats do write still reads as before: Jaeger's ``error`` tag as text
``"true"`` (Envoy's, which Jaeger's UI shows as an error) and ``otel.status_code`` in any case
(the OpenTelemetry Collector reads it so) fail, other text in ``error`` (Zipkin's message, an
OpenTelemetry attribute of that name) is no status. A Google ADK response's ``error`` that is
false or empty says no error (ADK writes its text). Each file here is a real fixture with one
value changed.
"""

from __future__ import annotations

import copy
import gzip
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import workbench as wb
from helpers.json_places import set_first
from helpers.paths import FIXTURES
from workbench.cli import main

_OTEL = FIXTURES / "otel"
_OTLP = _OTEL / "generated-pydantic-ai-2.78.0-raised-tool.otlp.json"
_JAEGER = _OTEL / "agentevals_kagent_helm_jaeger.json.gz"
_SDK = _OTEL / "console_exporter_spans.log"
_JS = _OTEL / "generated-copilot-cli-1.0.102-file-exporter.jsonl"
_TRACELOOP = _OTEL / "agentic-otel_framework_langchain.json.gz"
_LANGFUSE = FIXTURES / "langfuse" / "langgraph-python-2025-08-22.trace.json"
_ADK = FIXTURES / "google-adk" / "generated-adk-2.13.0-runner.session.snake.json"

_OTLP_CALL = "call_e1"
_JAEGER_CALL = "call_P09kjRKHTTJA02oB9HIe4u5t"
_JAEGER_SPAN = "75cdce51ad52a7c8"  # its span
_SDK_CALL = "call_1"
_JS_CALL = "call_main_0_0"
_TRACELOOP_CALL = "toolu_bdrk_011XV5e3byvLzPwTBhVaMajs"
_LANGFUSE_CALL = "call_1oGK863sxQHlPreFhDdEs3yl"
_TOOL_RESULT = "attributes.gen_ai.tool.call.result.output.kwargs.status"
_RESULTS = ("gen_ai.tool.call.result", "traceloop.entity.output")


def _read(source: Path) -> Any:
    raw = source.read_bytes()
    return json.loads(gzip.decompress(raw) if source.suffix == ".gz" else raw)


def _write(document: Any, source: Path, out: Path) -> Path:
    path = out / source.name
    text = json.dumps(document).encode()
    path.write_bytes(gzip.compress(text) if source.suffix == ".gz" else text)
    return path


def _set_in_text(node: Any, wanted: dict[str, Any], member: str, value: Any) -> bool:
    """Set ``member`` of the first object holding ``wanted``'s members at their values, in
    ``node`` or in JSON text inside it (re-encoded in place)."""
    if isinstance(node, dict):
        if all(node.get(k) == v for k, v in wanted.items()):
            node[member] = value
            return True
        items: list[tuple[Any, Any]] = list(node.items())
    elif isinstance(node, list):
        items = list(enumerate(node))
    else:
        return False
    for key, item in items:
        if isinstance(item, str) and item.lstrip().startswith("{"):
            try:
                decoded = json.loads(item)
            except ValueError:  # (Python's repr of a dict, as LangGraph writes an input)
                continue
            if _set_in_text(decoded, wanted, member, value):
                node[key] = json.dumps(decoded)
                return True
        elif _set_in_text(item, wanted, member, value):
            return True
    return False


def _otlp(value: Any) -> Callable[[Path], Path]:
    """The pydantic-ai trace with its tool span's ``status.code`` set to ``value``."""

    def change(out: Path) -> Path:
        document = _read(_OTLP)
        spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
        (span,) = [s for s in spans if s["name"] == "execute_tool explode"]
        span["status"] = {"code": value}
        return _write(document, _OTLP, out)

    return change


def _jaeger(tag: dict[str, Any]) -> Callable[[Path], Path]:
    """The kagent Jaeger export with ``tag`` added to its tool span."""

    def change(out: Path) -> Path:
        document = _read(_JAEGER)
        spans = [s for t in document["data"] for s in t["spans"]]
        (span,) = [s for s in spans if s["spanID"] == _JAEGER_SPAN]
        span["tags"].append(tag)
        return _write(document, _JAEGER, out)

    return change


def _sdk(value: Any) -> Callable[[Path], Path]:
    """The SDK console exporter's spans with ``call_1``'s ``status.status_code`` set."""

    def change(out: Path) -> Path:
        text, spans, at = _SDK.read_text(), [], 0
        decoder = json.JSONDecoder()
        while text[at:].strip():
            at += len(text[at:]) - len(text[at:].lstrip())
            span, at = decoder.raw_decode(text, at)
            spans.append(span)
        (span,) = [s for s in spans if s["attributes"].get("gen_ai.tool.call.id") == _SDK_CALL]
        span["status"]["status_code"] = value
        path = out / _SDK.name
        path.write_text("\n".join(json.dumps(s, indent=4) for s in spans) + "\n")
        return path

    return change


def _js(value: Any) -> Callable[[Path], Path]:
    """Copilot CLI's file export with its first call's ``status.code`` set to ``value``."""

    def change(out: Path) -> Path:
        wanted = {"type": "span", "status": {"code": 0}, "name": "execute_tool bash bash"}
        path, _ = set_first(_JS, wanted, "status", {"code": value}, out)
        return path

    return change


def _langfuse(value: Any) -> Callable[[Path], Path]:
    """The LangGraph trace with its tool span's ToolMessage ``status`` set (its JSON text)."""

    def change(out: Path) -> Path:
        document = _read(_LANGFUSE)
        (span,) = [o for o in document["observations"] if o["name"] == "Web-Search"]
        assert _set_in_text(span, {"tool_call_id": _LANGFUSE_CALL}, "status", value)
        return _write(document, _LANGFUSE, out)

    return change


def _traceloop(value: Any) -> Callable[[Path], Path]:
    """The Traceloop LangChain trace with its tool span's ToolMessage ``status`` set (in the
    result and in Traceloop's copy of it, ``traceloop.entity.output``)."""

    def change(out: Path) -> Path:
        document = _read(_TRACELOOP)
        spans = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
        (span,) = [s for s in spans if s["name"] == "execute_tool check_coverage"]
        results = [a for a in span["attributes"] if a["key"] in _RESULTS]
        wanted = {"tool_call_id": _TRACELOOP_CALL, "type": "tool"}
        assert len(results) == 2 and all(_set_in_text(a, wanted, "status", value) for a in results)
        return _write(document, _TRACELOOP, out)

    return change


_REFUSED: dict[str, tuple[Path, Callable[[Path], Path], str, str]] = {
    # OTLP: Status.code is an enum: 0, 1, 2 or the enum's name (STATUS_CODE_ERROR)
    "otlp-true": (_OTLP, _otlp(True), _OTLP_CALL, "status.code"),
    "otlp-Error": (_OTLP, _otlp("Error"), _OTLP_CALL, "status.code"),
    "otlp-list": (_OTLP, _otlp(["STATUS_CODE_ERROR"]), _OTLP_CALL, "status.code"),
    "otlp-lowercase": (_OTLP, _otlp("status_code_error"), _OTLP_CALL, "status.code"),
    # Jaeger: the error tag is a bool (or its text), otel.status_code "OK" or "ERROR"
    "jaeger-error-int": (
        _JAEGER,
        _jaeger({"key": "error", "type": "int64", "value": 1}),
        _JAEGER_CALL,
        "tags.error",
    ),
    "jaeger-status-FAILED": (
        _JAEGER,
        _jaeger({"key": "otel.status_code", "type": "string", "value": "FAILED"}),
        _JAEGER_CALL,
        "tags.otel.status_code",
    ),
    "jaeger-status-bool": (
        _JAEGER,
        _jaeger({"key": "otel.status_code", "type": "bool", "value": True}),
        _JAEGER_CALL,
        "tags.otel.status_code",
    ),
    # the Python SDK's to_json: "status_code": the StatusCode's name
    "sdk-true": (_SDK, _sdk(True), _SDK_CALL, "status.status_code"),
    "sdk-lowercase": (_SDK, _sdk("error"), _SDK_CALL, "status.status_code"),
    "sdk-number": (_SDK, _sdk(2), _SDK_CALL, "status.status_code"),
    # JavaScript exporters: SpanStatusCode 0, 1 or 2
    "js-true": (_JS, _js(True), _JS_CALL, "status.code"),
    "js-list": (_JS, _js([2]), _JS_CALL, "status.code"),
    "js-name": (_JS, _js("ERROR"), _JS_CALL, "status.code"),
    # LangChain's ToolMessage.status: Literal["success", "error"]
    "langfuse-true": (_LANGFUSE, _langfuse(True), _LANGFUSE_CALL, "output.status"),
    "langfuse-Error": (_LANGFUSE, _langfuse("Error"), _LANGFUSE_CALL, "output.status"),
    "traceloop-true": (_TRACELOOP, _traceloop(True), _TRACELOOP_CALL, _TOOL_RESULT),
    "traceloop-number": (_TRACELOOP, _traceloop(1), _TRACELOOP_CALL, _TOOL_RESULT),
}


def _outcomes(result: wb.LoadResult) -> dict[str, tuple[bool, str | None]]:
    return {b.call_id: (b.is_error, b.error_code) for b in result.boundaries}


@pytest.mark.parametrize("case", list(_REFUSED))
def test_a_failure_signal_of_a_type_never_written_is_a_problem(
    tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """R35: one problem naming the span's place and the field; the call is not loaded, the
    other calls load as before; the command line exits 2 with one line."""
    source, change, call_id, field = _REFUSED[case]
    path = change(tmp_path)
    with pytest.raises(wb.LoadError) as refused:
        wb.load_runs(path)
    (problem,) = refused.value.problems
    assert problem.field == field and "read as neither" in problem.message, problem
    assert problem.where and problem.where != "(file)", problem
    loaded = _outcomes(wb.load_runs(path, strict=False))
    before = _outcomes(wb.load_runs(source))
    assert call_id in before and call_id not in loaded
    assert loaded == {k: v for k, v in before.items() if k != call_id}
    assert main(["boundaries", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"(field {field})" in err, err


_READ: dict[str, tuple[Path, Callable[[Path], Path], str, bool]] = {
    # the values the formats write: ERROR fails, OK and UNSET do not
    "otlp-2": (_OTLP, _otlp(2), _OTLP_CALL, True),
    "otlp-name": (_OTLP, _otlp("STATUS_CODE_ERROR"), _OTLP_CALL, True),
    "otlp-ok": (_OTLP, _otlp("STATUS_CODE_OK"), _OTLP_CALL, False),
    "otlp-1": (_OTLP, _otlp(1), _OTLP_CALL, False),
    "otlp-null": (_OTLP, _otlp(None), _OTLP_CALL, False),
    "jaeger-error-bool": (
        _JAEGER,
        _jaeger({"key": "error", "type": "bool", "value": True}),
        _JAEGER_CALL,
        True,
    ),
    "jaeger-error-text-true": (
        _JAEGER,
        _jaeger({"key": "error", "type": "string", "value": "true"}),
        _JAEGER_CALL,
        True,
    ),
    "jaeger-error-message": (  # an attribute named error (Claude Code's): no status
        _JAEGER,
        _jaeger({"key": "error", "type": "string", "value": "Shell command failed"}),
        _JAEGER_CALL,
        False,
    ),
    "jaeger-status-lowercase": (
        _JAEGER,
        _jaeger({"key": "otel.status_code", "type": "string", "value": "error"}),
        _JAEGER_CALL,
        True,
    ),
    "sdk-ERROR": (_SDK, _sdk("ERROR"), _SDK_CALL, True),
    "sdk-OK": (_SDK, _sdk("OK"), _SDK_CALL, False),
    "js-2": (_JS, _js(2), _JS_CALL, True),
    "langfuse-error": (_LANGFUSE, _langfuse("error"), _LANGFUSE_CALL, True),
    "traceloop-error": (_TRACELOOP, _traceloop("error"), _TRACELOOP_CALL, True),
}


@pytest.mark.parametrize("case", list(_READ))
def test_a_failure_signal_the_format_writes_still_reads(tmp_path: Path, case: str) -> None:
    """The controls: the values each format writes load, failed or not, with no problem."""
    source, change, call_id, failed = _READ[case]
    loaded = wb.load_runs(change(tmp_path))
    outcomes = {k: v[0] for k, v in _outcomes(loaded).items()}
    before = {k: v[0] for k, v in _outcomes(wb.load_runs(source)).items()}
    assert outcomes == {**before, call_id: failed}


_DIVIDE = {"name": "divide", "response": ...}


@pytest.mark.parametrize("value", [False, 0, "", [], {}], ids=repr)
def test_an_adk_error_that_is_false_or_empty_is_no_failure(tmp_path: Path, value: Any) -> None:
    """ADK writes a tool's error as its text (``{"error": str(e)}``): a response whose
    ``error`` is false or empty says none, and the call is not read as failed."""
    document = _read(_ADK)
    path, _ = set_first(_ADK, _DIVIDE, "response", {"error": copy.deepcopy(value)}, tmp_path)
    loaded = wb.load_runs(path)
    (divide,) = [b for b in loaded.boundaries if b.tool == "divide"]
    assert (divide.is_error, divide.error_code) == (False, None)
    assert len(loaded.boundaries) == len(wb.load_runs(_ADK).boundaries)
    assert document == _read(_ADK)  # (the fixture itself unchanged)


@pytest.mark.parametrize("value", ["ZeroDivisionError: division by zero", True, {"code": 3}])
def test_an_adk_error_that_says_one_still_fails(tmp_path: Path, value: Any) -> None:
    """The control: ADK's text (and any other error that is not false or empty) fails."""
    path, _ = set_first(_ADK, _DIVIDE, "response", {"error": value}, tmp_path)
    (divide,) = [b for b in wb.load_runs(path).boundaries if b.tool == "divide"]
    assert (divide.is_error, divide.error_code) == (True, "error")


@pytest.mark.parametrize("value", [True, 1, ["error"]], ids=repr)
def test_an_adk_status_that_is_not_text_is_the_tools_own_output(tmp_path: Path, value: Any) -> None:
    """``status`` is a member of the tool's own output (ADK's documented convention reads
    ``"error"`` there): any other value is what the tool returned, loaded as a success."""
    wanted = {"status": "error", "error_message": ...}
    path, _ = set_first(_ADK, wanted, "status", value, tmp_path)
    loaded = wb.load_runs(path)
    (booked,) = [b for b in loaded.boundaries if b.tool == "book_room"]
    assert booked.is_error is False and not loaded.problems


_CLAUDE_OTEL = _OTEL / "kagent_alpha9_claude_recipe_2turn.json.gz"


def _claude_executions(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        if value.get("name") == "claude_code.tool.execution":
            yield value
        for item in value.values():
            yield from _claude_executions(item)
    elif isinstance(value, list):
        for item in value:
            yield from _claude_executions(item)


@pytest.mark.parametrize("code", [[2], True, "Error"], ids=["list", "true", "Error"])
def test_a_claude_code_execution_span_status_never_written_is_a_problem(
    tmp_path: Path, code: Any
) -> None:
    """R35: the status code of a Claude Code ``claude_code.tool.execution`` child span was
    compared with the error codes as it was (a list raised ``TypeError``, ``true`` read as
    no error); it is read as a span's status is, a code of another type or value a problem at
    the child's ``status.code``, its call not served."""
    log = json.loads(gzip.decompress(_CLAUDE_OTEL.read_bytes()))
    next(_claude_executions(log))["status"] = {"code": code}
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(log))
    result = wb.load_runs(path, strict=False)
    (problem,) = result.problems
    assert problem.field == "status.code", problem
    assert len(result.boundaries) == len(wb.load_runs(_CLAUDE_OTEL).boundaries) - 1
    for written in (2, "STATUS_CODE_ERROR"):  # the codes written fail the call, as before
        next(_claude_executions(log))["status"] = {"code": written}
        path.write_text(json.dumps(log))
        failed = sum(b.is_error for b in wb.load_runs(path).boundaries)
        assert failed == sum(b.is_error for b in wb.load_runs(_CLAUDE_OTEL).boundaries) + 1
