"""OpenTelemetry GenAI spans exported as OTLP JSON, as promoted runs (SPEC R34-R36).

The file is an OTLP/JSON ``ExportTraceServiceRequest`` (``{"resourceSpans": [{"resource",
"scopeSpans": [{"scope", "spans": [...]}]}]}``), or JSONL of them (the collector's file exporter
writes one a line), or a trace as Grafana Tempo's API returns it (``{"batches": [{"resource",
"instrumentationLibrarySpans": [{"instrumentationLibrary", "spans"}]}]}``, the names OTLP had
before 0.15), or a Jaeger JSON export (``{"data": [{"traceID", "spans": [{"spanID",
"operationName", "references", "startTime", "duration", "tags"}]}]}``, as Jaeger's UI and API give
it: its tags read as attributes, ``otel.status_code`` and ``error`` as the status, times in
microseconds), or spans as the OpenTelemetry SDK writes them (its console exporter's indented
objects, a JSON array or JSONL of them; ``otel_sdk``), or as JavaScript exporters write them
(Copilot CLI's file exporter; ``otel_js``). A span of ``execute_tool`` is a tool call and its
result in one: tool ``gen_ai.tool.name`` (else the span name after ``execute_tool ``), call id
``gen_ai.tool.call.id`` (the last of a list; else the span id), args ``gen_ai.tool.call.arguments``
(JSON text decoded), result ``gen_ai.tool.call.result``, or the attributes Google ADK writes in
their place (``gcp.vertex.agent.tool_call_args`` and ``gcp.vertex.agent.tool_response``), duration
from the span's start and end. A result that is an MCP ``CallToolResult`` (an object with a
``content`` list, or JSON text of one) is the response as it is. It failed when it has an
``error.type`` attribute (the boundary's ``error_code``), its status code is ERROR (``2`` or
``"STATUS_CODE_ERROR"``; ``status.message`` is the error text; another code is a problem, R35),
or its result says ``isError: true`` (ADK leaves an MCP tool's failure in the result). The agent is
the ``gen_ai.agent.name`` of the span or of its nearest ``invoke_agent`` ancestor. An MCP
``tools/call`` traced on both sides (the client's span, the server's nested in it, as the MCP
semantic conventions trace it) is one call: the outer span's; the inner one is counted as
``span:execute_tool:inner``. Google ADK's ``execute_tool (merged)`` span (tool name ``(merged
tools)``, written beside or around the spans of calls the model made at once) records no call of
its own: it is counted as ``span:execute_tool:merged``. OpenInference's ``TOOL`` spans and
Logfire's ``Function: {name}`` spans are tool calls too, their names read as GenAI's
(``otel_conventions``). Claude Code's own spans (``claude_code.tool``: a call, whether or not a
collector added ``gen_ai.operation.name``) are read as ``otel_claude`` says. A failed span's error
text is its status message, else what its ``exception`` event says was raised; a failed call with
no result is served that text. A call whose span records neither arguments nor result (its
instrumentation captured no content) is marked ``extra.contentNotRecorded``.

Spans are grouped into runs by ``traceId`` (in order of first appearance) and ordered by start
time. Other spans (``chat``, ``invoke_agent``, HTTP, ...) are counted as non-tool records (R35),
and so are the log records of a ``resourceLogs`` section in the same document (GenAI events),
in the run of their trace. Where a tool span holds no arguments or result, or only Google ADK's
``"{}"`` placeholder, they are read from the model calls' messages on their spans or events
(``otel_chat_parts``; the boundary's ``extra.contentFrom`` says so), and the calls those
messages record that no tool span does are read from them (a model client traced alone; their
failures by the error rule). An unanswered handoff (``transfer_to_*``) ends its run (R36).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from .._common.toolresult import result_text
from .common import RecordTally, gen_ai_call_id, json_args
from .otel_chat_parts import LEGACY_EVENTS, ChatParts, calls_of_messages, ends_the_run, own_content
from .otel_claude import claude_execution, event_attribute
from .otel_conventions import as_genai, needs_genai
from .otel_jaeger import is_jaeger, jaeger_spans
from .otel_js import is_js_record, is_js_span, js_span, not_a_js_span
from .otel_links import linked
from .otel_logs import Event, event_time, holds_genai_events, log_records
from .otel_sdk import is_sdk_span, sdk_spans
from .otel_traceloop import chain_failed, langchain_tool
from .otel_tree import agent_of, inside_its_call, once
from .otel_values import (
    NO_CALL_ID,
    attributes_of,
    elided,
    failure_said,
    first_of,
    span_exception,
    span_nanos,
    status_failed,
    tool_response,
    with_details,
)
from .pairing import CallPairer
from .records import ErrorRule, LoadProblem, PromotedRun

__all__ = ["load_otel", "sniff_otel"]


Entry = tuple[str, Mapping[str, Any], dict[str, Any]]
"""A span read: its place, the span, its attributes."""
_RESOURCE_KEYS = ("resourceSpans", "batches")  # OTLP; Grafana Tempo's trace API
_SCOPE_KEYS = ("scopeSpans", "instrumentationLibrarySpans")  # OTLP; before OTLP 0.15
_ARGS_KEYS = ("gen_ai.tool.call.arguments", "gcp.vertex.agent.tool_call_args")
_RESULT_KEYS = ("gen_ai.tool.call.result", "gcp.vertex.agent.tool_response")
_MERGED_TOOLS = "(merged tools)"  # Google ADK's name for the span around parallel calls
_CLAUDE_TOOL_SPAN = "claude_code.tool"  # Claude Code's own tool span (no GenAI operation)


def sniff_otel(data: Any) -> bool:
    if isinstance(data, list):  # spans as the SDK writes them (its in-memory exporter's dump)
        return bool(data) and (is_sdk_span(data[0]) or is_js_span(data[0]))
    if not isinstance(data, dict):
        return False
    if is_sdk_span(data) or is_js_span(data):  # a JSONL line, or the console's indented objects
        return True
    if isinstance(data.get("resourceSpans"), list) or is_jaeger(data):
        return True
    if isinstance(data.get("resourceLogs"), list) and holds_genai_events(data["resourceLogs"]):
        return True  # GenAI events exported alone (their own pipeline, their own file)
    batches = data.get("batches")
    return (
        isinstance(batches, list)
        and bool(batches)
        and all(isinstance(b, dict) and _scopes_key(b) is not None for b in batches)
    )


def _resources_key(request: Mapping[str, Any]) -> str:
    return next((k for k in _RESOURCE_KEYS if k in request), "resourceSpans")


def _scopes_key(resource: Mapping[str, Any]) -> str | None:
    return next((k for k in _SCOPE_KEYS if k in resource), None)


_READ_ATTRIBUTES = frozenset(
    {
        "gen_ai.tool.name",
        "gen_ai.tool.call.id",
        *_ARGS_KEYS,
        *_RESULT_KEYS,
        "gen_ai.input.messages",  # a tool span's own (own_content)
        "gen_ai.output.messages",
        "gen_ai.operation.name",
        "error.type",
        "tool_name",
        "tool_use_id",
    }
)
"""Span attributes read into the boundary; the others are kept in its ``extra``."""


def load_otel(
    docs: Sequence[tuple[str, Any]], file: str, rule: ErrorRule | None = None
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """Runs from OTLP requests ``(where, request)`` (one for a JSON file, one a line for JSONL).
    ``rule``: what tells a failed result of a call only the model's messages record (they
    have no failure flag; default: text starting ``Error:``)."""
    problems: list[LoadProblem] = []
    spans: list[tuple[str, Mapping[str, Any], dict[str, Any]]] = []
    logs: dict[str, list[str]] = {}  # trace id -> its log records' event names
    events: dict[str, list[Event]] = {}  # ... and those holding calls or results
    for where, request in docs:
        if is_js_span(request):  # a JavaScript exporter's span (the usual line of its file)
            spans.append((where, *js_span(request)))
            continue
        if is_js_record(request):  # a JavaScript exporter's metric or log line: counted
            logs.setdefault("", []).append(str(request["type"]))
            continue
        if (wrong := not_a_js_span(request)) is not None:
            problems.append(LoadProblem(file, where, "", wrong))
            continue
        if is_sdk_span(request) or is_js_span(request) or (isinstance(request, list) and request):
            spans.extend(sdk_spans(request, where, problems, file, logs.setdefault("", [])))
            continue
        if not isinstance(request, dict):
            problems.append(LoadProblem(file, where, "resourceSpans", "missing or not a list"))
            continue
        if is_jaeger(request):
            spans.extend(jaeger_spans(request, where, problems, file))
            continue
        resources_key = _resources_key(request)
        resources = request.get(resources_key)
        if resources is None and isinstance(request.get("resourceLogs"), list):
            resources = []  # a logs export alone: the GenAI events hold the calls
        if not isinstance(resources, list):
            problems.append(LoadProblem(file, where, resources_key, "missing or not a list"))
            continue
        for r_index, resource in enumerate(resources):
            scopes_key = _scopes_key(resource) if isinstance(resource, dict) else None
            scopes = resource.get(scopes_key) if scopes_key and isinstance(resource, dict) else None
            for s_index, scope in enumerate(scopes if isinstance(scopes, list) else []):
                found = scope.get("spans") if isinstance(scope, dict) else None
                for p_index, span in enumerate(found if isinstance(found, list) else []):
                    place = (
                        f"{where}, {resources_key}[{r_index}].{scopes_key}[{s_index}]"
                        f".spans[{p_index}]"
                    )
                    if not isinstance(span, dict):
                        problems.append(LoadProblem(file, place, "", "a span must be an object"))
                        continue
                    attrs = attributes_of(span.get("attributes"))
                    spans.append(
                        (place, span, with_details(span, attrs) if "events" in span else attrs)
                    )
        log_records(request.get("resourceLogs"), logs, events, where)
    traces: dict[str, list[tuple[str, Mapping[str, Any], dict[str, Any]]]] = {}
    for entry in spans:
        trace = entry[1].get("traceId")
        traces.setdefault(trace if isinstance(trace, str) else "", []).append(entry)
    if len(traces) == 1 and "" in events:  # events that name no trace, in a file of one
        events.setdefault(next(iter(traces)), []).extend(events.pop(""))
    for trace in events:  # events of a trace no span of the file is of (a logs export)
        traces.setdefault(trace, [])
    traces = linked(traces, events)  # a model client traced alone: a trace a model call
    runs: list[PromotedRun] = []
    for number, (trace, entries) in enumerate(traces.items()):
        parts = ChatParts()
        for _, place, name, attrs, body in sorted(events.pop(trace, []), key=event_time):
            if name in LEGACY_EVENTS:
                parts.add_event(name, body, place)
            else:
                parts.add(attrs, place)
        run, found = _trace(
            trace, entries, file, number, len(traces), logs.pop(trace, []), parts, rule
        )
        found = [*found, *(LoadProblem(file, at, key, _UNREAD) for at, key in parts.unread)]
        runs.append(run)
        problems.extend(found)
    if runs and logs:  # log records of traces with no span: counted on the first run
        tally = runs[0].metadata["records"]
        for names in logs.values():
            for name in names:
                tally[name] = tally.get(name, 0) + 1
    elif held := sorted(Counter(n for names in logs.values() for n in names).items()):
        said = ", ".join(f"{name} {count}" for name, count in held)
        problems.append(LoadProblem(file, "(file)", "", f"no span, no tool call: it holds {said}"))
    return runs, problems


def _trace(
    trace: str,
    entries: list[tuple[str, Mapping[str, Any], dict[str, Any]]],
    file: str,
    number: int,
    total: int,
    logs: list[str],
    parts: ChatParts,
    rule: ErrorRule | None,
) -> tuple[PromotedRun, list[LoadProblem]]:
    pairer = CallPairer(file)
    spanned: set[str] = set()  # the call ids the tool spans gave
    tally = RecordTally()
    for log_name in logs:
        tally.add(log_name)
    entries = once(entries, tally, pairer)
    if any(needs_genai(a) for _, _, a in entries):  # (otel_conventions)
        entries = [(w, s, as_genai(s, a)) for w, s, a in entries]
    by_id = {e[1].get("spanId"): e for e in entries if isinstance(e[1].get("spanId"), str)}
    children: dict[str, list[tuple[str, Mapping[str, Any], dict[str, Any]]]] = {}
    for entry in entries:
        parent_id = entry[1].get("parentSpanId")
        if isinstance(parent_id, str) and parent_id:
            children.setdefault(parent_id, []).append(entry)
    starts = [span_nanos(e[1].get("startTimeUnixNano")) or 0 for e in entries]  # (sort: stable)
    ordered = [entries[i] for i in sorted(range(len(entries)), key=starts.__getitem__)]
    for place, _, attrs in ordered:  # the model calls' messages, before the tool spans
        if attrs.get("gen_ai.operation.name") != "execute_tool" and parts.holds_messages(attrs):
            parts.add(attrs, place)
    for where, span, attrs in ordered:
        operation = attrs.get("gen_ai.operation.name")
        if operation == "execute_tool" and inside_its_call(span, attrs, by_id):
            tally.add("span:execute_tool:inner")  # the server's side of the call above it
            continue
        if operation == "execute_tool" and attrs.get("gen_ai.tool.name") == _MERGED_TOOLS:
            tally.add("span:execute_tool:merged")  # ADK's span around parallel calls: no call
            continue
        claude = span.get("name") == _CLAUDE_TOOL_SPAN
        if isinstance(operation, str):  # (the usual span's kind: no text made for it)
            tally.add("span:execute_tool" if operation == "execute_tool" else f"span:{operation}")
        else:
            tally.add(f"span:{_CLAUDE_TOOL_SPAN}" if claude else "span")
        if operation != "execute_tool" and not claude:
            continue
        name = attrs.get("gen_ai.tool.name")
        if claude and (not isinstance(name, str) or not name):
            name = attrs.get("tool_name")
        if not isinstance(name, str) or not name:
            span_name = span.get("name")
            name = (
                span_name[len("execute_tool ") :]
                if isinstance(span_name, str) and span_name.startswith("execute_tool ")
                else None
            )
        if not isinstance(name, str) or not name:
            field = "attributes.tool_name" if claude else "attributes.gen_ai.tool.name"
            pairer.problem(where, field, "missing or not a string")
            continue
        given = attrs.get("gen_ai.tool.call.id")
        raw_id = gen_ai_call_id(given) if isinstance(given, list) else given
        if claude and (not isinstance(raw_id, str) or not raw_id):
            raw_id = attrs.get("tool_use_id")
        if raw_id in NO_CALL_ID:  # an instrumentation's placeholder for none (ADK's)
            raw_id = None
        args = json_args(first_of(attrs, _ARGS_KEYS))
        result = first_of(attrs, _RESULT_KEYS)
        if (chain := langchain_tool(args, result)) is not None:  # Traceloop's records of it
            args, result, raw_id = chain.args, chain.result, raw_id or chain.call_id
        call_id = raw_id if isinstance(raw_id, str) and raw_id else str(span.get("spanId") or where)
        spanned.add(call_id)
        if (args is None or result is None) and parts.holds_messages(attrs):  # its own (Strands')
            own = own_content(attrs, call_id)
            args, result = own[0] if args is None else args, own[1] if result is None else result
        said = parts.take(name) if not claude else None
        from_messages = False
        if said is not None and (args is None or (elided(attrs, _ARGS_KEYS) and said[0])):
            args, from_messages = said[0], True
        if (
            said is not None
            and said[1] is not None
            and (result is None or elided(attrs, _RESULT_KEYS))
        ):
            result, from_messages = said[1], True
        if args is None and claude:
            args = {}  # Claude Code's spans record no arguments
        agent = agent_of(span, attrs, by_id)
        sub_agent = attrs.get("agent_id") if claude else None
        if isinstance(sub_agent, str) and sub_agent:
            agent = f"agent-{sub_agent}"
        elif sub_agent is not None:  # the call is read, as the main thread's (R35)
            pairer.problem(
                where, "attributes.agent_id", "not a string: the call is read without its sub-agent"
            )
        extra = {k: v for k, v in attrs.items() if k not in _READ_ATTRIBUTES}
        extra["spanId"] = span.get("spanId")
        if isinstance(given, list):  # the ids as given ([run id, call id]): the call's is last
            extra["gen_ai.tool.call.id"] = given
        if from_messages:
            extra["contentFrom"] = "gen_ai messages"  # see otel_chat_parts
        elif args is None and result is None and not claude:
            extra["contentNotRecorded"] = True  # the instrumentation captured no content
            tally.add("call:contentNotRecorded")
        pairer.call(
            call_id,
            name,
            args,
            where=where,
            field_name="attributes.gen_ai.tool.call.id",
            agent_id=agent,
            extra=extra,
        )
        raw_status = span.get("status")
        status: Mapping[str, Any] = raw_status if isinstance(raw_status, dict) else {}
        error_type = attrs.get("error.type")
        if result is None and claude:
            result = event_attribute(span, "tool.output", "output")
        response = tool_response(result)
        said_failed = failure_said(response, error_type, pairer, where)
        ended_failed = status_failed(raw_status, pairer, where)
        chained = chain_failed(chain, pairer, where)  # its ToolMessage's status (Traceloop's)
        if said_failed is None or ended_failed is None or chained is None:
            pairer.discard(call_id)
            continue
        failed = error_type is not None or ended_failed or said_failed or chained
        failed = failed or attrs.get("gen_ai.tool.status") == "error"  # (Strands')
        message = status.get("message") if isinstance(status.get("message"), str) else None
        if failed:  # what the tool raised, where the span's status does not say it
            error_type, message = span_exception(span, error_type, message)
            if message and not response["content"]:
                response = tool_response(message)  # the error the model was told
        if claude:
            outcome = claude_execution(span, children, pairer)
            if outcome is None:
                pairer.discard(call_id)
                continue
            ran_failed, ran_message, ran_class = outcome
            if ran_failed and not failed:
                failed, message = True, message or ran_message
                error_type = error_type if error_type is not None else ran_class
        start, end = (
            span_nanos(span.get("startTimeUnixNano")),
            span_nanos(span.get("endTimeUnixNano")),
        )
        pairer.result(
            call_id,
            response,
            failed,
            where=where,
            field_name="attributes.error.type",
            error_code=str(error_type) if error_type is not None else None,
            error_message=(
                message or result_text(response["content"]) or str(error_type or "tool call failed")
            )
            if failed
            else None,
            duration_ms=(end - start) // 1_000_000
            if start is not None and end is not None and end >= start
            else None,
        )
    calls_of_messages(parts, spanned, pairer, rule or ErrorRule())
    boundaries = pairer.finish(ends_the_run)
    key = f"trace-{trace[:12]}" if trace else f"trace-{number}"
    run = PromotedRun(
        run_id=trace or key,
        boundaries=boundaries,
        source=file,
        format="otel",
        task_key=key if total > 1 else "trace",
        metadata={
            "traceId": trace,
            **tally.to_metadata(),
            **({"terminalCalls": pairer.terminal_calls} if pairer.terminal_calls else {}),
        },
    )
    return run, pairer.problems


_UNREAD = "messages that do not decode as a file's JSON would (nested too deep, NaN): not read"
