"""Loading promoted-run files: the format detected from content, one module per format
(SPEC R1-R4, R34-R36).

``load_runs`` reads a file through ``reading`` (special files refused before opening, lines
bounded, JSON strict), tells its format from what it holds (never from its name alone, R34),
hands it to that format's module, and then holds every result to R35: a file in which no tool
call is found is a problem saying what the file held, and an explicit format that does not fit
is refused with what the file looks like.

Detection, in order:

- a folder holding ``results.json`` and ``simulations/``: a tau2-bench run saved as a folder;
- a SQLite database: OpenCode's (``opencode.db``, module ``opencode_db``);
- a folder of OpenCode's storage (``storage/`` with ``session/``, ``message/``, ``part/``): its
  sessions (module ``opencode_storage``);
- a zip archive with ``header.json``: Inspect AI ``.eval``;
- JSON Lines (one value a line; a ``.jsonl``/``.ndjson`` name, or a first line that is a whole
  JSON object with more lines after it; records a formatter indented over lines are read as
  the records they are, ``json_sequence``), by its first records: Claude Code (``user`` /
  ``assistant`` records with ``uuid``, or its bookkeeping records), Codex (``session_meta``,
  ``response_item``, ... with ``payload``), Gemini CLI (a ``sessionId`` + ``projectHash``
  record; or its headless ``stream-json`` output, ``init`` / ``tool_use`` / ... records),
  OpenCode (``opencode run --format json`` events: ``type`` + ``sessionID`` + ``part``),
  OTLP (``resourceSpans``), JSON-RPC messages (MCP), chat records or messages, a recording a
  line (OpenHands' ``output.jsonl``: each line a document of the formats below), else OpenWOP
  events (streamed, the fast path);
- goose's MCP replay (``STDIN: {...}`` / ``STDOUT: {...}`` / ``STDERR: ...`` lines): ``mcp``
  (module ``mcp_goose``);
- an httprr trace (``httprr trace v1``, Go's raw HTTP records), or YAML beginning
  ``interactions:``, ``http_interactions:``, ``requests:`` or ``version:``: an HTTP cassette,
  read for MCP ``tools/call`` traffic, else for model API calls (Responses API exchanges, Chat
  Completions, Anthropic Messages and Gemini API conversations); another ``.yaml`` file is
  read as a YAML document, below;
- one JSON document: an OpenWOP array or ``{"events"}``; Inspect AI (``eval`` + ``samples``);
  tau2-bench (``simulations``); Gemini CLI (``sessionId`` + ``messages``); SWE-agent
  (``history`` + ``trajectory`` + ``info``), mini-swe-agent (``trajectory_format``, or a list
  of messages with ``<returncode>`` outputs); AgentDojo (``suite_name`` + ``user_task_id``
  or ``pipeline_name``);
  an mcp-recorder, mcp-cassette or mcp-vcr recording, or a JSON-RPC message array; OTLP
  (``resourceSpans``); OpenHands events (``source`` + ``action``/``observation``); a Langfuse
  trace export (``trace`` + ``observations``); an OpenCode export (``info`` + ``messages``
  of ``info`` + ``parts``, or those messages alone); a Claude
  Code web session (``loglines``); an HTTP cassette (vcrpy's JSON, HAR, the Azure test
  proxy's ``Entries``); a Cline or Roo Code task history (messages with ``[tool] Result:``
  or ``<environment_details>`` user texts, or ``modelInfo``); Responses API items; chat
  (Anthropic when a ``tool_use``/``tool_result`` block appears, else OpenAI chat).

Longer than 400 lines: it is the one place that tells the formats apart in their four
containers (JSONL, one JSON document, YAML, httprr traces), refuses a wrong explicit format with
what the file looks like, and sniffs the OpenWOP fast path; each format's reading is in its
module.
"""

from __future__ import annotations

import os
import re
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, Literal, NamedTuple

from .._common.vocab import RUN_FORMATS, RunFormat
from . import openwop
from .adk import load_adk, sniff_adk, sniff_adk_events
from .agentdojo import load_agentdojo, sniff_agentdojo
from .anthropic import load_anthropic
from .bedrock_converse import Written as ConverseWritten
from .bedrock_converse import as_messages as converse_messages
from .bedrock_converse import converse_calls
from .cassette_yaml import load_yaml, looks_like_yaml_cassette
from .cassettes import Exchange, cassette_exchanges, other_exchanges
from .chat_cassettes import (
    ChatApi,
    chat_apis_of,
    chat_cassette_apis,
    load_chat_exchanges,
    model_calls,
)
from .chat_resends import UNSHARED, decode_vcr_cassette
from .claude_code import load_claude_code, sniff_claude_code, sniff_claude_code_loglines
from .claude_subagents import with_subagents
from .cline import load_cline, sniff_cline
from .codex import load_codex, sniff_codex
from .codex_exec import load_codex_exec, sniff_codex_exec
from .codex_subagents import as_subagent, with_codex_subagents
from .codex_typed import TYPED_LINE as CODEX_TYPED_LINE
from .copilot_cli import load_copilot_cli, sniff_copilot_cli
from .copilot_history import load_copilot_history, sniff_copilot_history
from .document_lines import load_document_lines
from .file_kinds import foreign_kind, gzip_content_kind
from .gemini_api import as_messages, gemini_calls
from .gemini_cli import load_gemini_cli, sniff_gemini_cli
from .gemini_cli_lines import load_gemini_cli_lines, sniff_gemini_cli_lines
from .gemini_cli_stream import load_gemini_cli_stream, sniff_gemini_cli_stream
from .httprr import HEADER as HTTPRR
from .httprr import trace as httprr_trace
from .inspect_ai import load_eval, load_inspect, sniff_inspect
from .json_sequence import json_sequence, starts_spread
from .langfuse import is_observation, load_langfuse, sniff_langfuse
from .mcp import (
    is_message_log_head,
    load_mcp,
    load_mcp_messages,
    sniff_mcp,
    sniff_mcp_messages,
)
from .mcp_debug import is_mcp_debug_head, load_mcp_debug, load_mcp_debug_bytes, sniff_mcp_debug
from .mcp_goose import is_goose_replay_head, load_goose_replay
from .mcp_rpc import is_rpc
from .messages import detect_chat_format, explain_shape
from .mini_swe_agent import load_mini_swe_agent, sniff_mini_swe_agent
from .openai_chat import load_openai_chat
from .opencode import load_opencode, load_opencode_events, sniff_opencode, sniff_opencode_events
from .opencode_db import SQLITE_HEADER, load_opencode_db
from .opencode_storage import load_opencode_storage, opencode_storage
from .openhands import load_openhands, sniff_openhands
from .openhands_sdk import is_sdk_events
from .openwop import holds_no_event, load_openwop, load_openwop_bytes, load_openwop_lines
from .otel import load_otel, sniff_otel
from .otel_js import is_js_export
from .problem_cap import capped
from .reading import (
    EXTRA_DATA,
    decode_json,
    decode_json_lines,
    first_bad_utf8,
    gc_paused,
    may_be_json,
    read_file_bytes,
    read_pipe_bytes,
    refuse_special,
    values_one_after_another,
)
from .records import (
    DEFAULT_ERROR_RULE,
    ErrorRule,
    LoadError,
    LoadProblem,
    LoadResult,
    PromotedRun,
)
from .responses import is_responses_data, load_openai_responses, load_responses_exchanges
from .session_folder import session_events
from .swe_agent import load_swe_agent, sniff_swe_agent
from .tau2 import load_tau2, sniff_tau2
from .tau2_folder import is_tau2_folder, load_tau2_folder
from .xai_grpc import as_exchanges as xai_exchanges
from .xai_grpc import is_xai_cassette

__all__ = ["FORMATS", "FORMAT_LABELS", "FormatChoice", "detect_format", "load_runs"]

FormatChoice = RunFormat | Literal["auto"]
"""What ``load_runs(format=...)`` takes: a format, or ``"auto"`` to detect it from content."""
FORMATS: tuple[str, ...] = ("auto", *RUN_FORMATS)
"""Every :data:`FormatChoice`, ``auto`` first (the command line's ``--format`` choices)."""
FORMAT_LABELS: dict[str, str] = {
    "openwop": "an OpenWOP event log",
    "openai-chat": "an OpenAI chat transcript",
    "openai-responses": "OpenAI Responses API items",
    "anthropic": "an Anthropic messages transcript",
    "gemini-api": "Gemini API (generateContent) traffic",
    "claude-code": "a Claude Code session",
    "codex": "a Codex CLI rollout",
    "gemini-cli": "a Gemini CLI session",
    "tau2-bench": "tau2-bench results",
    "inspect-ai": "an Inspect AI eval log",
    "swe-agent": "a SWE-agent or mini-swe-agent trajectory",
    "openhands": "an OpenHands event stream",
    "agentdojo": "an AgentDojo result",
    "mcp": "an MCP JSON-RPC recording",
    "langfuse": "a Langfuse trace export",
    "copilot-cli": "a GitHub Copilot CLI session",
    "bedrock-converse": "Amazon Bedrock Converse API traffic",
    "google-adk": "a Google ADK session",
    "opencode": "an OpenCode session",
    "cline": "a Cline or Roo Code task history",
    "xai": "an xAI (Grok) gRPC cassette (pydantic-ai's .xai.yaml)",
    "otel": "OpenTelemetry spans (OTLP JSON, a Jaeger export, an SDK exporter's JSON)",
}
"""What each format is called in messages."""
_CHUNK_BYTES = 1 << 20
_HEAD_LINES = 64

_DOCUMENT_OPENINGS = (b"[", b"{")
"""A pretty-printed document's first line: no JSONL record is one bracket alone."""
_ALIASES = {
    "openai": "openai-chat",
    "oai": "openai-chat",
    "claude": "anthropic",
    "responses": "openai-responses",
    "jsonl": "openwop",
    "tau2": "tau2-bench",
    "inspect": "inspect-ai",
    "swe": "swe-agent",
    "gemini": "gemini-cli",
    "opentelemetry": "otel",
    "copilot": "copilot-cli",
    "adk": "google-adk",
    "roo": "cline",
    "grok": "xai",
}

Loaded = tuple[list[PromotedRun], list[LoadProblem]]


def _looks_like_event(value: Any) -> bool:
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("type"), str)
        and ("payload" in value or "eventId" in value or "sequence" in value)
        and ("." in value["type"] or "eventId" in value or "runId" in value)
    )


_DOCUMENT_SNIFFERS: tuple[tuple[RunFormat, Callable[[Any], bool]], ...] = (
    ("inspect-ai", sniff_inspect),
    ("tau2-bench", sniff_tau2),
    ("gemini-cli", sniff_gemini_cli),
    ("swe-agent", sniff_swe_agent),
    ("swe-agent", sniff_mini_swe_agent),
    ("agentdojo", sniff_agentdojo),
    ("mcp", sniff_mcp),
    ("mcp", sniff_mcp_messages),
    ("otel", sniff_otel),
    ("openhands", sniff_openhands),
    ("langfuse", sniff_langfuse),
    ("google-adk", sniff_adk),
    ("opencode", sniff_opencode),
)


def detect_format(data: Any) -> RunFormat | None:
    """The format of one decoded JSON document, or ``None`` when it is none the workbench reads."""
    if isinstance(data, list) and data and _looks_like_event(data[0]):
        return "openwop"
    if isinstance(data, Mapping) and isinstance(data.get("events"), list):
        events = data["events"]
        if not events and sniff_adk(data):
            return "google-adk"  # an ADK session with no events yet (its app and user named)
        if not events or _looks_like_event(events[0]):
            return "openwop"
    for fmt, sniff in _DOCUMENT_SNIFFERS:
        if sniff(data):
            return fmt
    if sniff_copilot_history(data):
        return "copilot-cli"  # a legacy session (history-session-state/session_*.json)
    if (whole := _array_of_recordings(data)) is not None:
        return whole  # one recording an item: output.jsonl kept as one array (jq -s)
    if isinstance(data, list) and sniff_claude_code(data[:_HEAD_LINES]):
        return "claude-code"  # headless stream-json saved as one array (claude-code-action)
    if sniff_claude_code_loglines(data):
        return "claude-code"  # a web session from the Claude API
    if _claude_code_messages(data) is not None:
        return "claude-code"  # stream-json records kept under "messages" (an SDK's test dump)
    if isinstance(data, list) and sniff_copilot_cli(data[:_HEAD_LINES]):
        return "copilot-cli"  # the events saved as one JSON array
    if sniff_cline(data):  # before chat: Cline's history is Anthropic messages of its own
        return "cline"
    if is_responses_data(data):
        return "openai-responses"
    return detect_chat_format(data)


def _detect_lines(heads: list[Any]) -> str | None:
    """The format of a JSONL file from its first records."""
    if not heads:
        return None
    if sniff_claude_code(heads):
        return "claude-code"
    if sniff_copilot_cli(heads):  # before Codex's, which a stray line of a rollout satisfies
        return "copilot-cli"
    if sniff_codex(heads) or sniff_codex_exec(heads):
        return "codex"
    if sniff_gemini_cli_lines(heads) or sniff_gemini_cli_stream(heads):
        return "gemini-cli"
    if sniff_adk_events(heads):
        return "google-adk"
    if sniff_opencode_events(heads):
        return "opencode"
    first = heads[0]
    if sniff_otel(first) or is_js_export(heads):
        return "otel"  # (a JavaScript exporter's file may open with a metric or odd line)
    if is_message_log_head(heads) or sniff_mcp_debug(heads):
        return "mcp"
    if _looks_like_event(first):
        return "openwop"
    if _openhands_event_lines(heads):
        return "openhands"  # an event a line (the agent SDK's events.jsonl)
    if is_observation(first):
        return "langfuse"  # Langfuse observations, one a line (an export script's JSONL)
    leading = _leading_recording(heads, _recording_of)  # a recording a line whose records
    if leading is not None:  # hold messages (AgentDojo's): not chat records
        return leading[0]
    if _is_chat_line(first):
        return "chat"  # one of the chat formats, told apart by the chat loaders
    if _is_file_header(first) and len(heads) > 1:  # a recording a line after the file's header
        whole = detect_format(heads[1])
        return whole if whole in _DOCUMENT_FORMATS else None
    return None


def _array_of_recordings(data: Any) -> RunFormat | None:
    """The document format each of a JSON array's first items is a whole recording of (all the
    same one, or a record of the same members that holds none yet), as a recording a line is in
    JSONL; else ``None``."""
    if not isinstance(data, list) or not data:
        return None
    heads = data[:_HEAD_LINES]
    leading = _leading_recording(heads, detect_format)
    if leading is None:
        return None
    found, at = leading
    shape = heads[at].keys()
    for item in heads[at + 1 :]:
        if not isinstance(item, Mapping):
            return None
        kind = detect_format(item)
        if kind != found and (kind is not None or item.keys() != shape):
            return None
    return found


def _recording_of(record: Any) -> RunFormat | None:
    """The document format one JSONL line is a whole recording of, else ``None``."""
    for fmt, sniff in _DOCUMENT_SNIFFERS:
        if fmt in _DOCUMENT_FORMATS and sniff(record):
            return fmt
    return None


def _leading_recording(
    records: list[Any], claims: Callable[[Any], RunFormat | None]
) -> tuple[RunFormat, int] | None:
    """The document format of the first of ``records`` that ``claims`` a recording of, and its
    place, when every record before it has its members: an evaluation writes an instance that
    stopped before its first event (an empty ``history``) as a record like the others, and it
    is often the first written (it ended first). ``None`` when a record before it differs."""
    shape = None
    for index, record in enumerate(records):
        if not isinstance(record, Mapping) or (shape is not None and record.keys() != shape):
            return None
        shape = record.keys()
        found = claims(record)
        if found is not None:
            return (found, index) if found in _DOCUMENT_FORMATS else None
    return None


def _is_file_header(record: Any) -> bool:
    """A JSONL file's header line, ``{"metadata": {...}}`` and nothing else (Invariant Labs'
    trace exports open so, then a recording a line)."""
    return type(record) is dict and len(record) == 1 and type(record.get("metadata")) is dict


_DOCUMENT_FORMATS = frozenset(fmt for fmt, _ in _DOCUMENT_SNIFFERS if fmt not in ("mcp", "otel"))
"""The formats whose recording is one JSON document, which a JSONL file may hold a line each."""


def load_runs(
    path: str | os.PathLike[str],
    *,
    format: FormatChoice | str = "auto",
    error_rule: ErrorRule | None = None,
    strict: bool = True,
) -> LoadResult:
    """Load a promoted-run file of any format :data:`FORMATS` lists (``docs/formats.md``).

    ``format="auto"`` detects the format from content. ``error_rule`` tells failed results in
    formats with no failure signal of their own (default: content starting with ``Error:``).
    With ``strict=True`` any problem (R2, R35) raises :class:`LoadError` naming file, place and
    field; with ``strict=False`` every valid boundary is loaded and the problems are returned on
    the result. A file that cannot be read at all (a special file, a line over the limit, not
    UTF-8 where text is needed) raises :class:`LoadError` either way. Nothing is dropped
    silently, and a file with no tool call is a problem (R35).
    """
    file = os.fspath(path)
    chosen = _ALIASES.get(str(format), str(format))
    if chosen not in FORMATS:
        raise ValueError(f"unknown format {format!r}; choose one of {', '.join(FORMATS)}")
    rule = error_rule if error_rule is not None else DEFAULT_ERROR_RULE
    try:
        with gc_paused():  # many small acyclic objects that all stay alive: nothing to collect
            runs, problems, fmt = _load(file, chosen, rule)
    except UnicodeDecodeError as exc:
        found = first_bad_utf8(file)  # the line and column, which the text reader does not say
        byte = found[2] if found else exc.object[exc.start]
        where = f"line {found[0]}, column {found[1]}" if found else "(file)"
        message = f"cannot read: not UTF-8 text (byte 0x{byte:02x})"
        raise LoadError(
            [LoadProblem(file, where, "", message, found[0] if found else None)]
        ) from exc
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise LoadError([LoadProblem(file, "(file)", "", f"cannot read: {reason}")]) from exc
    if not problems and not any(run.boundaries for run in runs):
        problems = [_nothing_found(file, fmt, runs)]
    problems = capped(file, problems)  # each run's reading lists 10,000: the file's too
    if strict and problems:
        raise LoadError(problems)
    return LoadResult(path=file, format=fmt, runs=tuple(runs), problems=tuple(problems))


def _noted(run: PromotedRun, key: str) -> list[Any]:
    """What a loader noted under ``run.metadata[key]``: a member of that name that is no list
    is the recording's own (AgentDojo keeps a result's members on its run), not a note."""
    noted = run.metadata.get(key)
    return noted if type(noted) is list else []


_API_NAMES = {
    "openai-responses": "Responses API",
    "openai-chat": "Chat Completions",
    "anthropic": "Anthropic Messages",
    "gemini-api": "Gemini API",
    "bedrock-converse": "Bedrock Converse",
}
"""The model APIs a cassette's conversations call, as a mixed cassette's are told."""


def _nothing_found(file: str, fmt: RunFormat, runs: list[PromotedRun]) -> LoadProblem:
    """R35: the file loaded, but records no tool call; say what it held."""
    kinds: Counter[str] = Counter()
    for run in runs:
        records = run.metadata.get("records")
        if isinstance(records, Mapping):
            kinds.update({str(k): int(v) for k, v in records.items() if isinstance(v, int)})
        for event in _noted(run, "otherEvents"):
            if isinstance(event, Mapping):
                kinds[str(event.get("type"))] += 1
        for call in _noted(run, "terminalCalls"):
            if isinstance(call, Mapping):
                kinds[f"terminal call to {call.get('tool')}"] += 1
    held = ", ".join(f"{kind} {count}" for kind, count in kinds.most_common(8))
    label = FORMAT_LABELS[fmt]
    if fmt == "codex" and "thread.started" in kinds:  # a headless stream, not a rollout
        label = "Codex CLI output of codex exec --json"
    what = f"{label} of {len(runs)} run(s)"
    apis = Counter(run.format for run in runs)
    if len(apis) > 1:  # a cassette of several model APIs: each one's conversations (R35)
        each = ", ".join(f"{_API_NAMES.get(api, api)} {count}" for api, count in apis.items())
        what = f"{len(runs)} conversation(s) ({each})"
    events = [e for run in runs for e in _noted(run, "otherEvents")]
    if fmt == "openwop" and events and _is_entire_transcript(events[0]):
        return LoadProblem(
            file,
            "(file)",
            "",
            "the file is the Entire CLI's compact transcript (transcript.jsonl) of "
            f"{_shown_agent(events[0])}, which the workbench does not read (it writes a "
            "failed Codex call as a success); load the full.jsonl beside it",
        )
    if fmt == "openwop" and events and not any(_looks_like_event(e) for e in events):
        # read as OpenWOP only because no format told itself: say so, not that it is one
        what = (
            "in no format the workbench reads (see docs/formats.md): its records have no "
            f"OpenWOP envelope (runId, type, payload), and read as {what}"
        )
    if fmt != "xai" and any("exchanges" in run.metadata for run in runs):
        what = f"an HTTP cassette of {what}"
    if held:
        what += f" holding {held}"
    elif not runs:
        what += ", nothing in it"
    return LoadProblem(
        file, "(file)", "", f"no tool call found: the file is {what}, and no tool call among them"
    )


def _load(
    file: str, chosen: str, rule: ErrorRule
) -> tuple[list[PromotedRun], list[LoadProblem], RunFormat]:
    if os.path.isdir(file) and chosen in ("auto", "tau2-bench") and is_tau2_folder(file):
        loaded = load_tau2_folder(file, rule)  # a tau2 run saved as a folder
        if loaded is not None:
            return loaded[0], loaded[1], "tau2-bench"
    if os.path.isdir(file) and chosen in ("auto", "opencode"):
        storage = opencode_storage(file)
        if storage is not None:  # OpenCode's storage before its database: a file a record
            runs, problems = load_opencode_storage(file, *storage)
            return runs, problems, "opencode"
    if os.path.isdir(file) and chosen in ("auto", "openhands"):
        session = session_events(file)
        if session is not None:  # an OpenHands session kept as an event a file
            return _load_session_folder(file, chosen, rule, *session)
    info = refuse_special(file, pipes=True)
    pipe = stat.S_ISFIFO(info.st_mode)  # a pipe is read once, whole: no sniffing ahead of it
    data = read_pipe_bytes(file) if pipe else b""
    if (pipe and not data) or (info.st_size == 0 and stat.S_ISREG(info.st_mode)):
        fmt_empty: RunFormat = _as_format(chosen) if chosen != "auto" else "openwop"
        return (
            [],
            [LoadProblem(file, "(file)", "", "the file is empty: nothing to load")],
            fmt_empty,
        )
    if not pipe:
        with open(file, "rb") as handle:
            head = handle.read(4096)  # room for comment lines and directives before the YAML
        if head.startswith(SQLITE_HEADER):  # OpenCode's database (the only one read)
            if chosen not in ("auto", "opencode"):
                return [], [_wrong_format(file, chosen, "opencode")], _as_format(chosen)
            runs, problems = load_opencode_db(file)
            return runs, problems, "opencode"
        if (kind := foreign_kind(head)) is not None:
            return [], [LoadProblem(file, "(file)", "", kind)], "openwop"
        if head.startswith(b"PK\x03\x04"):
            runs, problems = load_eval(file)
            if chosen not in ("auto", "inspect-ai"):
                return [], [_wrong_format(file, chosen, "inspect-ai")], _as_format(chosen)
            return runs, problems, "inspect-ai"
        other = _starts_like_yaml_cassette(head) or head.startswith(HTTPRR)
        other = other or is_mcp_debug_head(head)  # mcp-debug's recording: '#' lines first
        other = other or is_goose_replay_head(head)  # goose's: 'STDIN: ' lines
        if chosen in ("auto", "openwop") and not head.startswith(b"\x1f\x8b") and not other:
            # (a YAML cassette is never a log, though a line of it may be a JSON object)
            streamed = _stream_openwop(file, Path(file).name, told=chosen == "openwop")
            if isinstance(streamed, _Document):  # the sniff decoded the whole file: reuse it
                return _load_document(streamed.value, file, chosen, rule)
            if streamed is not None:
                return streamed[0], streamed[1], "openwop"
        data = read_file_bytes(file)
    name = Path(file).name.lower()
    if pipe and data.startswith(SQLITE_HEADER):
        message = "a SQLite database is read from its file, not from a pipe: give its path"
        return [], [LoadProblem(file, "(file)", "", message)], "opencode"
    if pipe and (kind := foreign_kind(data[:4096])):
        return [], [LoadProblem(file, "(file)", "", kind)], "openwop"
    if not pipe and head.startswith(b"\x1f\x8b") and (kind := gzip_content_kind(data)):
        said = f"its gzip content is {kind}"  # (a .tar.gz of sessions, an .eval.gz)
        return [], [LoadProblem(file, "(file)", "", said)], "openwop"
    if chosen in ("auto", "mcp") and is_mcp_debug_head(data[:4096]):
        return (*load_mcp_debug_bytes(data, file), "mcp")  # mcp-debug's, '#' lines and all
    if is_goose_replay_head(data[:4096], told=chosen == "mcp"):  # goose's 'STDIN: ' lines
        if chosen not in ("auto", "mcp"):
            return [], [_wrong_format(file, chosen, "mcp")], _as_format(chosen)
        return (*load_goose_replay(data, file), "mcp")
    if data.startswith(HTTPRR):  # Go's httprr trace: raw HTTP, read as a cassette
        return _load_cassette(httprr_trace(data, file), file, chosen, rule)
    if _starts_like_yaml_cassette(data):
        return _load_cassette(load_yaml(data, file), file, chosen, rule)
    if (
        name.endswith((".yaml", ".yml"))
        and not data.startswith(b"\xef\xbb\xbf")  # a byte order mark is refused, below (R35)
        and not data.startswith((b"{", b"["), _first_text(data))
    ):
        return _load_document(load_yaml(data, file), file, chosen, rule)  # YAML of another shape
    jsonl, decoded = _is_jsonl(data, name, file)
    if jsonl:
        return _load_jsonl(data, file, chosen, rule)
    if decoded is not None:
        value, problem = decoded
    elif data.startswith(b"{", _first_text(data)) and (
        (value := decode_vcr_cassette(data)) is not UNSHARED
    ):
        problem = None  # a vcrpy JSON cassette: each message its requests resend decoded once
    else:
        value, problem = decode_json(data, file)
    spread = json_sequence(data, file) if problem is not None and starts_spread(data) else None
    if spread is not None and len(spread[0]) + len(spread[1]) > 1:
        # indented records one after another, whatever the file's name (a .json or .log of
        # OpenTelemetry's console exporter, a JSONL log a formatter indented): read as JSONL
        return _load_jsonl(data, file, chosen, rule, spread)
    if problem is not None:
        fmt: RunFormat = _as_format(chosen) if chosen != "auto" else "openwop"
        return [], [problem], fmt
    return _load_document(value, file, chosen, rule)


def _starts_like_yaml_cassette(data: bytes) -> bool:
    """Whether a file (its bytes, or its head) starts like a YAML cassette, not a JSON text."""
    start = _first_text(data)
    head = data[start : start + 4096]  # room for comment lines and directives before the YAML
    return not head.startswith((b"{", b"[")) and looks_like_yaml_cassette(head)


def _load_session_folder(
    folder: str,
    chosen: str,
    rule: ErrorRule,
    events: list[Any],
    names: list[str],
    unread: list[LoadProblem],
) -> tuple[list[PromotedRun], list[LoadProblem], RunFormat]:
    """A session folder's events as the one stream they are; a problem at an event (``[i]``)
    names the event's file. A session whose events hold no action or observation (the agent
    only talked) is an OpenHands session holding no tool call, said with its events' kinds
    (R35), not a document of unknown format."""
    if events and chosen in ("auto", "openhands") and not any(map(_acts, events)):
        kinds = Counter(_session_event_kind(event) for event in events)
        held = ", ".join(f"{kind} {count}" for kind, count in kinds.most_common(8))
        message = (
            f"no tool call found: the folder is an OpenHands session of {len(events)} event "
            f"file(s) holding {held}, and no action or observation among them"
        )
        return [], [*unread, LoadProblem(folder, "(file)", "", message)], "openhands"
    if events and chosen in ("auto", "openhands"):  # the layout says OpenHands: no sniffing
        runs, problems = load_openhands(events, folder)
        fmt: RunFormat = "openhands"
    else:
        runs, problems, fmt = _load_document(events, folder, chosen, rule)
    named: list[LoadProblem] = list(unread)
    for problem in problems:
        found = _EVENT_INDEX.match(problem.where)
        if found is not None and int(found.group(1)) < len(names):
            where = names[int(found.group(1))] + problem.where[found.end() :]
            problem = LoadProblem(problem.file, where, problem.field, problem.message, None)
        named.append(problem)
    return runs, named, fmt


_EVENT_INDEX = re.compile(r"^\[(\d+)\]")


def _is_entire_transcript(record: Any) -> bool:
    """A record of the Entire CLI's compact transcript: ``{"v": 1, "agent", "cli_version",
    "type": "user" | "assistant", "ts", "content": [...]}``."""
    return (
        isinstance(record, Mapping)
        and record.get("v") == 1
        and isinstance(record.get("agent"), str)
        and "cli_version" in record
        and isinstance(record.get("content"), list)
    )


def _shown_agent(record: Mapping[str, Any]) -> str:
    agent = str(record.get("agent"))
    return agent if len(agent) <= 40 and agent.isprintable() else "an agent"


def _acts(event: Any) -> bool:
    """Whether a session's event is an action or an observation (classic: ``action`` or
    ``observation`` beside ``source``; the agent SDK's: its ``kind`` names one), whichever
    of the session's events it is (not only the first few, which the sniffer reads)."""
    if type(event) is not dict:
        return False
    kind = event.get("kind")
    if type(kind) is str:
        return kind.endswith(("Action", "Observation", "ActionEvent", "ObservationEvent"))
    return "action" in event or "observation" in event


def _session_event_kind(event: Any) -> str:
    """An event's kind as a session's refusal names it: the agent SDK's ``kind``, else what
    its members say it is."""
    if not isinstance(event, Mapping):
        return "not an object"
    kind = event.get("kind")
    if isinstance(kind, str) and kind:
        return kind if len(kind) <= 60 else f"{kind[:40]}...({len(kind):,} characters)"
    if "system_prompt" in event:
        return "system prompt"
    if "llm_message" in event:
        return "message"
    return "other event"


def _wrong_format(file: str, chosen: str, found: RunFormat | str | None) -> LoadProblem:
    if found and found in FORMAT_LABELS:
        looks = f"it looks like {FORMAT_LABELS[found]} (--format {found}, or auto)"
    else:
        looks = f"it looks like {found}" if found else "its format is none the workbench reads"
    return LoadProblem(
        file,
        "(file)",
        "",
        f"--format {chosen} does not fit this file: no tool call read as "
        f"{FORMAT_LABELS.get(chosen, chosen)}; {looks}",
    )


def _load_document(
    value: Any, file: str, chosen: str, rule: ErrorRule
) -> tuple[list[PromotedRun], list[LoadProblem], RunFormat]:
    if is_xai_cassette(value):  # (saved as JSON, or YAML that starts otherwise)
        return _load_xai(value, file, chosen, rule)
    found = detect_format(value)
    if found is None and chosen in (
        "auto",
        "openai-responses",
        "anthropic",
        "openai-chat",
        "gemini-api",
        "bedrock-converse",
    ):
        exchanges = cassette_exchanges(value)
        if exchanges:  # an HTTP cassette written by vcrpy's JSON serializer
            # detect_format found no format, so sniff_mcp (one of its sniffers) did not hold
            return _load_cassette(value, file, chosen, rule, exchanges, mcp=False)
    fmt = _as_format(chosen) if chosen != "auto" else found
    if fmt is None:
        problem = LoadProblem(
            file,
            "(root)",
            "",
            explain_shape(value)
            or f"cannot tell the format: {_shape(value)}; expected one of the formats in "
            "docs/formats.md; pass format= (--format) to say which",
        )
        return [], [problem], "openwop"
    runs, problems = _document_loader(fmt, value, file, rule)
    if (
        chosen != "auto"
        and found not in (None, fmt)
        and value
        and not any(r.boundaries for r in runs)
    ):
        return [], [_wrong_format(file, chosen, found)], fmt
    if chosen != "auto" and not runs and not problems and found is None and value:
        return [], [_wrong_format(file, chosen, _shape(value))], fmt
    return runs, problems, fmt


def _document_loader(fmt: RunFormat, value: Any, file: str, rule: ErrorRule) -> Loaded:
    if fmt in _DOCUMENT_FORMATS and _array_of_recordings(value) == fmt:
        return load_document_lines(
            list(enumerate(value)),
            file,
            lambda item, at: _document_loader(fmt, item, at, rule),
            unit="item",
        )
    if fmt == "openwop":
        items = value.get("events") if isinstance(value, Mapping) else value
        if not isinstance(items, list):
            return [], [LoadProblem(file, "(root)", "", "an OpenWOP log must be a list of events")]
        return load_openwop(items, file)
    if fmt == "anthropic":
        return load_anthropic(value, file)
    if fmt == "openai-responses":
        return load_openai_responses(value, file, rule)
    if fmt == "openai-chat":
        return load_openai_chat(value, file, rule)
    if fmt == "mcp":
        if isinstance(value, list):
            return load_mcp_messages([(f"[{i}]", m) for i, m in enumerate(value)], file)
        if isinstance(value, Mapping) and (sniff_mcp(value) or is_rpc(value)):
            return load_mcp(value, file)
        return [], []  # no JSON-RPC in it: --format mcp does not fit (said by the caller)
    if fmt == "otel":
        return load_otel([("(root)", value)], file, rule)
    table: dict[str, Callable[[Any, str], Loaded]] = {
        "inspect-ai": load_inspect,
        "gemini-cli": load_gemini_cli,
        "agentdojo": load_agentdojo,
        "openhands": load_openhands,
    }
    sniffers = dict(_DOCUMENT_SNIFFERS)
    if fmt == "tau2-bench":
        return load_tau2(value, file, rule) if sniff_tau2(value) else ([], [])
    if fmt == "langfuse":
        return load_langfuse(value, file, rule) if sniff_langfuse(value) else ([], [])
    if fmt == "google-adk":
        return load_adk(value, file, rule) if sniff_adk(value) else ([], [])
    if fmt == "opencode":
        return load_opencode(value, file) if sniff_opencode(value) else ([], [])
    if fmt == "cline":
        return load_cline(value, file) if sniff_cline(value) else ([], [])
    if fmt == "swe-agent":
        if sniff_mini_swe_agent(value):
            return load_mini_swe_agent(value, file, rule)
        if not sniff_swe_agent(value):
            return [], []
        return load_swe_agent(value, file, rule)
    if fmt in table:
        if fmt in sniffers and not sniffers[fmt](value):
            return [], []
        return table[fmt](value, file)
    if fmt == "claude-code" and isinstance(value, list):
        return load_claude_code(list(enumerate(value)), file, unit="item")
    if fmt == "claude-code" and isinstance(value, Mapping) and type(value.get("loglines")) is list:
        return load_claude_code(list(enumerate(value["loglines"])), file, unit="logline")
    if fmt == "claude-code" and (records := _claude_code_messages(value)) is not None:
        return load_claude_code(list(enumerate(records)), file, unit="messages item")
    if fmt == "copilot-cli" and sniff_copilot_history(value):
        return load_copilot_history(value, file)
    if fmt == "copilot-cli" and isinstance(value, list):
        return load_copilot_cli(list(enumerate(value)), file, unit="item")
    # a line-based format (claude-code, codex) named for a JSON document
    return [], []


def _claude_code_messages(value: Any) -> list[Any] | None:
    """Claude Code's stream-json records kept as a document's ``messages`` (the Claude Agent
    SDK's messages as a test harness dumps them, ``{"messages": [{"type": "system", ...}]}``,
    each maybe in its transport envelope): records with a ``type`` and no ``role``, which no
    chat transcript's messages are."""
    records = value.get("messages") if isinstance(value, Mapping) else None
    if type(records) is not list or not records:
        return None
    if any(_is_transport_envelope(r) for r in records):  # the SDK's transport, both ways
        records = [r["message"] if _is_transport_envelope(r) else r for r in records]
    heads = records[:_HEAD_LINES]
    if any(isinstance(r, Mapping) and "role" in r for r in heads):
        return None
    return records if sniff_claude_code(heads) else None


def _is_transport_envelope(record: Any) -> bool:
    """A record of the Claude Agent SDK's transport as a test recorder keeps it (logfire's
    cassettes): ``{"direction": "send" | "recv", "message": <stream-json record>}``."""
    return (
        isinstance(record, Mapping)
        and record.get("direction") in ("send", "recv")
        and isinstance(record.get("message"), Mapping)
    )


def _shape(value: Any) -> str:
    if isinstance(value, Mapping):
        keys = ", ".join(list(map(str, value))[:8])
        return f"a JSON object with members {keys}" if keys else "an empty JSON object"
    if isinstance(value, list):
        return f"a JSON array of {len(value)} item(s)"
    return f"a JSON {type(value).__name__}"


def _load_cassette(
    data: Any,
    file: str,
    chosen: str,
    rule: ErrorRule,
    exchanges: list[Exchange] | None = None,
    *,
    mcp: bool | None = None,
) -> tuple[list[PromotedRun], list[LoadProblem], RunFormat]:
    """An HTTP cassette's MCP traffic, or its model API traffic (Responses, Chat Completions,
    Anthropic Messages); ``mcp``: whether :func:`sniff_mcp` holds, when the caller knows."""
    if exchanges is None and is_xai_cassette(data):
        return _load_xai(data, file, chosen, rule)
    if exchanges is None:
        exchanges = cassette_exchanges(data)
    if exchanges is None:
        problem = LoadProblem(file, "(root)", "", f"cannot tell the format: {_shape(data)}")
        return [], [problem], _as_format(chosen) if chosen != "auto" else "openwop"
    model_api = chosen in ("openai-responses", "openai-chat", "anthropic")
    if not model_api and (sniff_mcp(data, exchanges) if mcp is None else mcp):
        # an MCP client's traffic (in a cassette of both, the model's side is read when asked)
        found: RunFormat = "mcp"
        fmt = _as_format(chosen) if chosen != "auto" else found
        runs, problems = load_mcp(data, file, exchanges) if fmt == "mcp" else ([], [])
        problems = [*_body_problems(exchanges, file, None), *problems]
    else:
        runs, problems, found = _load_api_exchanges(exchanges, file, chosen, rule)
        fmt = _as_format(chosen) if chosen != "auto" else found
    if not runs and not problems:
        hosts = sorted({e.uri.split("/")[2] for e in exchanges if e.uri.count("/") >= 2})
        calls = model_calls(exchanges)
        held = (
            f": {calls}, and no tool call"
            if calls
            else ", none of them a Responses API, Chat Completions, Anthropic Messages, "
            "Gemini API or Bedrock Converse call or an MCP tools/call"
        )
        cassette = (
            f"an HTTP cassette of {len(exchanges)} exchange(s)"
            f"{' with ' + ', '.join(hosts) if hosts else ''}{held}"
        )
        if chosen != "auto":  # found is a guess when the cassette calls no API it knows
            return [], [_wrong_format(file, chosen, found if calls else cassette)], fmt
        message = f"no tool call found: the file is {cassette}"
        return [], [LoadProblem(file, "(file)", "", message)], fmt
    if chosen != "auto" and found != fmt and not any(r.boundaries for r in runs):
        # a body that did not decode first: it may be why no call of that format was read
        return [], [*problems, _wrong_format(file, chosen, found)], fmt
    return runs, problems, fmt


def _load_xai(
    data: Any, file: str, chosen: str, rule: ErrorRule
) -> tuple[list[PromotedRun], list[LoadProblem], RunFormat]:
    """pydantic-ai's xAI cassette (``xai_grpc``): its model calls read in Messages' shape."""
    if chosen not in ("auto", "xai"):
        return [], [_wrong_format(file, chosen, "xai")], _as_format(chosen)
    exchanges, calls, problems = xai_exchanges(data, file, rule)
    kinds: list[ChatApi | None] = ["anthropic" if c else None for c in calls]
    runs, more = load_chat_exchanges(exchanges, kinds, file, rule, "anthropic", any_input=True)
    problems = [*problems, *_own_fields(more, _XAI_FIELDS)]
    runs = [replace(run, format="xai") for run in runs]
    if not runs and not problems:
        said = f"no tool call found: the file is an xAI cassette of {len(exchanges)} interaction(s)"
        return [], [LoadProblem(file, "(file)", "", said)], "xai"
    read = {index for run in runs for index in run.metadata.get("exchanges", ())}
    other = other_exchanges(exchanges, read)
    if other and runs:  # kept on the first run, as other formats keep their non-tool records
        runs[0] = replace(runs[0], metadata={**runs[0].metadata, "otherExchanges": other})
    return runs, problems, "xai"


def _load_api_exchanges(
    exchanges: list[Exchange], file: str, chosen: str, rule: ErrorRule
) -> tuple[list[PromotedRun], list[LoadProblem], RunFormat]:
    """A cassette's model API traffic: its Responses API conversations, then those of each chat
    API it calls (``chosen``: only that API's, unless ``auto``). The format found is the API
    whose runs hold the most calls; when several APIs have runs, the runs are numbered
    ``conversation-<n>`` across them in that order."""
    found: list[tuple[RunFormat, list[PromotedRun]]] = []
    problems: list[LoadProblem] = []
    if chosen in ("auto", "openai-responses"):
        runs, more = load_responses_exchanges(exchanges, file, rule)
        found.append(("openai-responses", runs))
        problems.extend(more)
    kinds = chat_apis_of(exchanges)
    apis = chat_cassette_apis(kinds)
    gemini = gemini_calls(exchanges)
    # a cassette of Gemini and another model API called after it is one conversation carried
    # from Gemini to the other (pydantic-ai's, Mirascope's tests): read as the other's, Gemini's
    # left as before; Gemini called last carries none on, and is read beside the others
    last = max((e.index for e, g in zip(exchanges, gemini, strict=True) if g), default=-1)
    after = any(_is_model_uri(e, gemini=False) for e in exchanges[last + 1 :])
    if any(gemini) and (chosen == "gemini-api" or (chosen == "auto" and not after)):
        written = [as_messages(e) if g else e for e, g in zip(exchanges, gemini, strict=True)]
        kinds_of: list[ChatApi | None] = ["anthropic" if g else None for g in gemini]
        runs, more = load_chat_exchanges(written, kinds_of, file, rule, "anthropic")
        found.append(("gemini-api", [replace(run, format="gemini-api") for run in runs]))
        problems.extend(_own_fields(more, _GEMINI_FIELDS))
    converse = converse_calls(exchanges)
    if any(converse) and chosen in ("auto", "bedrock-converse"):
        seen = ConverseWritten()  # the messages written, shared by the requests
        written = [
            converse_messages(e, seen) if c else e for e, c in zip(exchanges, converse, strict=True)
        ]
        kinds_of = ["anthropic" if c else None for c in converse]
        # (toolUse.input is a Document: any JSON value)
        runs, more = load_chat_exchanges(written, kinds_of, file, rule, "anthropic", any_input=True)
        found.append(("bedrock-converse", [replace(r, format="bedrock-converse") for r in runs]))
        problems.extend(_own_fields(more, _CONVERSE_FIELDS))
    for api in apis:
        if chosen in ("auto", api):
            runs, more = load_chat_exchanges(exchanges, kinds, file, rule, api)
            found.append((api, runs))
            problems.extend(more)
    if any(e.extra.get("bodyProblems") for e in exchanges):  # (the usual cassette has none)
        model = {
            e.index
            for e, kind, g, c in zip(exchanges, kinds, gemini, converse, strict=True)
            if kind or g or c or _is_model_uri(e)
        }
        problems = [*_body_problems(exchanges, file, model), *problems]
    found = [(api, runs) for api, runs in found if runs]
    if not found:  # what the cassette looks like, for a wrong --format's message
        looks: RunFormat = (
            apis[0]
            if apis
            else "gemini-api"
            if any(gemini)
            else "bedrock-converse"
            if any(converse)
            else "openai-responses"
        )
        return [], problems, looks
    fmt = max(found, key=lambda pair: sum(len(run.boundaries) for run in pair[1]))[0]
    every = [run for _, runs in found for run in runs]
    if len(found) > 1:
        every = [
            replace(run, run_id=f"conversation-{n}", task_key=f"conversation-{n}")
            for n, run in enumerate(every)
        ]
    read = {index for run in every for index in run.metadata.get("exchanges", ())}
    other = other_exchanges(exchanges, read)
    if other:  # kept on the first run, as other formats keep their non-tool records
        every[0] = replace(every[0], metadata={**every[0].metadata, "otherExchanges": other})
    return every, problems, fmt


_GEMINI_FIELDS = {
    "id": "functionCall",
    "name": "functionCall.name",
    "input": "functionCall.args",
    "tool_use_id": "functionResponse",
    "content": "functionResponse.response",
}
_XAI_FIELDS = {
    "id": "tool_calls.id",
    "name": "tool_calls.function.name",
    "tool_use_id": "tool_call_id",
    "status": "tool_calls.status",
}
"""The Messages reader's field names, as the xAI cassette's own."""

_CONVERSE_FIELDS = {
    "id": "toolUse.toolUseId",
    "name": "toolUse.name",
    "tool_use_id": "toolResult.toolUseId",
    "content": "toolResult.content",
}
"""The Messages reader's field names, as the Gemini API's and Converse's own (their exchanges
are read in Messages' shape: a problem names the file's field)."""


def _own_fields(problems: list[LoadProblem], names: Mapping[str, str]) -> list[LoadProblem]:
    return [replace(p, field=names.get(p.field, p.field)) for p in problems]


def _body_problems(
    exchanges: list[Exchange], file: str, model: set[int] | None
) -> list[LoadProblem]:
    """The bodies that look like JSON and do not decode as a file's JSON would (R35), and the
    compressed ones past the cassette's budget, of the exchanges in ``model`` (the model API
    calls; ``None``: every exchange): a problem each. Another exchange's broken body (a page, a
    telemetry post) is left on its entry in ``otherExchanges``."""
    out: list[LoadProblem] = []
    for exchange in exchanges:
        for field, message in exchange.extra.get("bodyProblems", ()):
            if model is None or exchange.index in model:
                out.append(LoadProblem(file, f"interaction {exchange.index}", field, message))
    return out


def _is_model_uri(exchange: Exchange, *, gemini: bool = True) -> bool:
    """Whether an exchange went to a model API (by its path, whatever its body held): a body
    of such an exchange that does not decode is a problem named at it (R35). ``gemini``:
    the Gemini API's methods count too."""
    path = exchange.uri.split("?", 1)[0].rstrip("/")
    return path.endswith(_MODEL_PATHS) or (gemini and path.endswith(_GEMINI_METHODS))


_MODEL_PATHS = (
    "/responses",
    "/chat/completions",
    "/messages",
    "/invoke",
    "/invoke-with-response-stream",
    "/converse",
    "/converse-stream",
)
_GEMINI_METHODS = (":generateContent", ":streamGenerateContent")


def _load_jsonl(
    data: bytes,
    file: str,
    chosen: str,
    rule: ErrorRule,
    spread: tuple[list[tuple[int, Any]], list[LoadProblem]] | None = None,
) -> tuple[list[PromotedRun], list[LoadProblem], RunFormat]:
    """A JSONL file (``spread``: its indented records, when the caller has read them)."""
    if spread is None and starts_spread(data):
        spread = json_sequence(data, file)
    if spread is not None:  # records indented over lines (a formatter ran over the JSONL)
        docs, problems = spread
        told, found = False, None
    else:
        head = _head_docs(data, file)
        told = head is not None
        found = _detect_lines(head) if head is not None else None
        del head  # not kept beside the whole file's records (a head of large records is large)
        guess = chosen == "auto" and told and found is None  # its first records tell none
        if guess and (cut := _after_lines(data, _GUESS_LINES)):
            # no format tells itself: a long file whose first lines hold no event is no log
            first_docs, first_problems = decode_json_lines(data[:cut], file)
            runs, more = _lines_loader("openwop", first_docs, file, rule)
            if first_docs and _nothing_read(runs, [*first_problems, *more]):
                line, first = first_docs[0]
                return [], [_unknown_records(file, line, first, _GUESS_LINES)], "openwop"
            del first_docs, first_problems, runs, more
        use_typed = chosen == "codex" or (chosen == "auto" and found == "codex")
        typed = CODEX_TYPED_LINE if use_typed else None
        docs, problems = decode_json_lines(data, file, typed=typed)
    if not told:
        found = _detect_lines([d for _, d in docs[:_HEAD_LINES]])
    fmt_name = chosen if chosen != "auto" else found
    if fmt_name is None:
        fmt_name = "openwop"
    if fmt_name in ("chat", "openai-chat", "anthropic", "openai-responses"):
        runs, more, fmt = _jsonl_chat(docs, file, chosen, rule)
        problems.extend(more)
    else:
        fmt = _as_format(fmt_name)
        runs, more = _lines_loader(fmt, docs, file, rule)
        problems.extend(more)
    if chosen == "auto" and found is None and docs and _nothing_read(runs, problems):
        line, first = docs[0]
        return [], [_unknown_records(file, line, first)], fmt
    chat_named = found == "chat" and chosen in ("openai-chat", "anthropic", "openai-responses")
    if (
        chosen != "auto"
        and found not in (None, chosen)
        and not chat_named
        and not any(r.boundaries for r in runs)
    ):
        label = "chat records or messages" if found == "chat" else found
        return [], [_wrong_format(file, chosen, label)], fmt
    return runs, problems, fmt


def _after_lines(data: bytes, count: int) -> int:
    """Where the file's first ``count`` lines end (0: it has no more lines than that)."""
    end = 0
    for _ in range(count):
        end = data.find(b"\n", end) + 1
        if not end:
            return 0
    return end if end < len(data) else 0


def _nothing_read(runs: list[PromotedRun], problems: list[LoadProblem]) -> bool:
    """Whether a JSONL file of no format, read as an OpenWOP log, gave no boundary, no other
    event, and a problem a record saying it is no event (no ``type``, not an object) and no
    other problem: none of its records is an event, broken or not, and every line was read."""
    events = any(run.boundaries or run.metadata.get("otherEvents") for run in runs)
    return holds_no_event(problems, events)


_GUESS_LINES = 100_000
"""The lines a JSONL file of no format is read as an OpenWOP log for before it is refused for
holding no event among them (it would be refused for holding none among all of them)."""


def _unknown_records(file: str, line: int, first: Any, read: int | None = None) -> LoadProblem:
    """R35: the one problem of a JSONL file whose records are of no format the workbench
    reads, not even OpenWOP events (:func:`_nothing_read`; ``line``, ``first``: its first
    record). Read as an OpenWOP log, it had a problem a record (``event has no string
    type``), which said nothing of what the file is. A file that also holds an event (a log
    whose header has no ``type``) or a line that could not be read keeps its problems."""
    among = "" if read is None else f" of its first {read:,} lines"
    return LoadProblem(
        file,
        f"line {line}",
        "",
        f"cannot tell the format: no record{among}"
        " is of a format the workbench reads, nor an OpenWOP event (runId, type, payload); "
        f"the first is {_shape(first)}; expected one of the "
        "formats in docs/formats.md; pass format= (--format) to say which",
        line,
    )


def _head_docs(data: bytes, file: str) -> list[Any] | None:
    """The first ``_HEAD_LINES`` records of a JSONL file, as decoding the whole file would give
    them (what its format is told by), from its first lines alone; ``None`` when those lines
    hold too few records to be sure (then the whole file is decoded first).

    Telling the format first lets a format with typed lines (Codex) decode the file typed."""
    end = 0
    for _ in range(2 * _HEAD_LINES):
        found = data.find(b"\n", end)
        if found < 0:
            return None  # a short file: decoded whole, at once
        end = found + 1
    head, _ = decode_json_lines(data[:end], file)
    return [doc for _, doc in head[:_HEAD_LINES]] if len(head) >= _HEAD_LINES else None


def _lines_loader(
    fmt: RunFormat, docs: list[tuple[int, Any]], file: str, rule: ErrorRule
) -> Loaded:
    if fmt == "claude-code":
        runs, problems = load_claude_code(docs, file)
        return with_subagents(runs, problems, file, load_claude_code, docs)
    if fmt == "codex":
        if sniff_codex_exec([d for _, d in docs[:_HEAD_LINES]]):
            return load_codex_exec(docs, file)  # headless ``codex exec --json``
        runs, problems = load_codex(docs, file, rule)
        runs = [as_subagent(run) for run in runs]  # a sub-agent's own rollout
        return with_codex_subagents(runs, problems, file, lambda d, f: load_codex(d, f, rule))
    if fmt == "gemini-cli":
        if sniff_gemini_cli_stream([d for _, d in docs[:_HEAD_LINES]]):
            return load_gemini_cli_stream(docs, file)  # headless ``--output-format stream-json``
        return load_gemini_cli_lines(docs, file)
    if fmt == "otel":
        return load_otel([(f"line {n}", d) for n, d in docs], file, rule)
    if fmt == "copilot-cli":
        return load_copilot_cli(docs, file)
    if fmt == "opencode" and sniff_opencode_events([doc for _, doc in docs[:_HEAD_LINES]]):
        return load_opencode_events(docs, file)
    if fmt == "google-adk" and sniff_adk_events([d for _, d in docs[:_HEAD_LINES]]):
        return load_adk([d for _, d in docs], file, rule, lines=[n for n, _ in docs])
    if fmt == "mcp" and sniff_mcp_debug([d for _, d in docs[:_HEAD_LINES]]):
        return load_mcp_debug(docs, file)  # mcp-debug's, its comment lines left out
    if fmt == "mcp":
        return load_mcp_messages([(f"line {n}", d) for n, d in docs], file)
    if fmt == "openwop":
        runs, problems = load_openwop([d for _, d in docs], file)
        return runs, _relined(problems, docs, file)
    if fmt == "langfuse" and is_observation(docs[0][1] if docs else None):
        runs, problems = load_langfuse([d for _, d in docs], file, rule)
        return runs, _relined(problems, docs, file)
    if fmt == "openhands" and _openhands_event_lines([d for _, d in docs[:_HEAD_LINES]]):
        runs, problems = load_openhands([d for _, d in docs], file)
        return runs, _relined(problems, docs, file)
    if fmt in _DOCUMENT_FORMATS:
        header = docs[0] if docs and _is_file_header(docs[0][1]) else None
        runs, problems = load_document_lines(
            docs[1:] if header else docs,
            file,
            lambda value, at: _document_loader(fmt, value, at, rule),
        )
        if header and runs:  # a known non-tool record (R35), kept on the first run
            kept = {"line": header[0], **header[1]}
            runs[0] = replace(runs[0], metadata={**runs[0].metadata, "fileHeader": kept})
        return runs, problems
    return [], []


def _relined(
    problems: list[LoadProblem], docs: list[tuple[int, Any]], file: str
) -> list[LoadProblem]:
    """Array-item places (``item 3``, ``[3]``) as the JSONL lines they came from."""
    out: list[LoadProblem] = []
    for problem in problems:
        where = problem.where
        found = _ITEM_PLACE.match(where)
        if found is not None and int(found.group(1) or found.group(2)) < len(docs):
            line = docs[int(found.group(1) or found.group(2))][0]
            rest = where[found.end() :]
            out.append(
                LoadProblem(file, f"line {line}{rest}", problem.field, problem.message, line)
            )
        else:
            out.append(problem)
    return out


_ITEM_PLACE = re.compile(r"^(?:item (\d+)$|\[(\d+)\])")


def _openhands_event_lines(heads: list[Any]) -> bool:
    """Whether the first records of a JSONL file are OpenHands events, one a line: the agent
    SDK's (``kind`` an event class) or classic ones (``source`` with an action or an
    observation). A line that is a whole recording (``output.jsonl``) is none of these."""
    return is_sdk_events(heads) or any(
        isinstance(event, dict)
        and "source" in event
        and ("action" in event or "observation" in event)
        for event in heads[:50]
    )


def _jsonl_chat(
    docs: list[tuple[int, Any]], file: str, chosen: str, rule: ErrorRule
) -> tuple[list[PromotedRun], list[LoadProblem], RunFormat]:
    """A JSONL chat file: each line a record (``{"messages": [...]}``, a run each) or one
    message of a single run (bare, or wrapped as ``{"message": {...}}``, unwrapped)."""
    lines = [n for n, _ in docs]
    values = [d for _, d in docs]
    record_keys = ("messages", "traj", "input", "output")
    if not all(
        isinstance(d, Mapping) and any(isinstance(d.get(k), list) for k in record_keys)
        for d in values
    ):
        values = [
            d["message"]
            if isinstance(d, Mapping) and "role" not in d and isinstance(d.get("message"), Mapping)
            else d
            for d in values
        ]
    if chosen != "auto":
        fmt = _as_format(chosen)
    elif is_responses_data(values):
        fmt = "openai-responses"
    else:
        fmt = detect_chat_format(values) or "openai-chat"
    if fmt == "anthropic":
        runs, problems = load_anthropic(values, file, lines=lines)
    elif fmt == "openai-responses":
        runs, problems = load_openai_responses(values, file, rule, lines=lines)
    else:
        runs, problems = load_openai_chat(values, file, rule, lines=lines)
    return runs, problems, fmt


def _is_jsonl(
    data: bytes, name: str, file: str
) -> tuple[bool, tuple[Any, LoadProblem | None] | None]:
    """Whether the file is JSON Lines, and the document decoded when finding out took that
    (a JSON array is one document, whatever the name says), so it is not decoded twice."""
    start = _first_text(data)  # offsets, not stripped copies: the file may be large
    if data.startswith(b"[", start):
        value, problem = decode_json(data, file)
        if problem is None:
            return False, (value, problem)
    if name.endswith((".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")):
        return True, None
    if not data.startswith(b"{", start):
        return False, None
    end = data.find(b"\n", start)
    if end < 0 or _first_text(data, end) == len(data):
        # one line, or one line and white space: a document, unless it holds several records
        # one after another (a lost line break; a long line is not decoded twice to see)
        line = data[start:] if end < 0 else data[start:end]
        if len(line) > _CHUNK_BYTES:
            return False, None
        _, problem = decode_json(line, "")
        return _records_one_after_another(line, problem), None
    line = data[start:end]
    value, problem = decode_json(line, "")
    if problem is not None:
        return _records_one_after_another(line, problem), None
    return isinstance(value, Mapping), None


def _records_one_after_another(line: bytes, problem: LoadProblem | None) -> bool:
    """Whether a line (``problem``: its decode's) holds JSON values one after another, the
    first an object (records of a JSONL file whose line break was lost, read as those)."""
    if problem is None or problem.message != EXTRA_DATA:
        return False
    values = values_one_after_another(line, "", 1)
    return values is not None and isinstance(values[0], Mapping)


_WHITE_SPACE = re.compile(rb"\s*")


def _first_text(data: bytes, start: int = 0) -> int:
    """The offset of the first byte at or after ``start`` that is not white space
    (``bytes.lstrip``'s white space), without copying the data."""
    found = _WHITE_SPACE.match(data, start)
    return found.end() if found else start


def _as_format(chosen: str) -> RunFormat:
    for fmt in RUN_FORMATS:
        if fmt == chosen:
            return fmt
    return "openwop"


# --- the OpenWOP fast path -------------------------------------------------------------------


class _Document(NamedTuple):
    """A file of one JSON document on one line, decoded whole by the OpenWOP sniff (it was
    the file's first line), and not an OpenWOP log: the caller loads it as a document."""

    value: Any


class _Unknown(NamedTuple):
    """A JSONL file whose first records are of no format (the OpenWOP sniff's answer): read as
    an OpenWOP log, whose problems name its lines, unless none of its records is an event."""

    line: int
    first: Any
    """The first record, and its line."""


def _stream_openwop(
    file: str, name: str, *, told: bool = False
) -> tuple[list[PromotedRun], list[LoadProblem]] | _Document | None:
    """Load a JSONL OpenWOP log a block at a time, or ``None`` when the file is not one
    (a :class:`_Document` when finding out decoded the whole file). ``told``: the caller
    said it is one, and a file of no format gets a problem a line, not one for the file.

    Only regular files are streamed (the loader may read a log twice, see ``openwop``); the
    file must not change between reads. Its first records decide (:func:`_detect_lines`): a
    file that starts like another JSONL format is read whole by the caller. The bytes are read a
    megabyte at a time and decoded as ``openwop.load_openwop_bytes`` says (msgspec, orjson,
    ``json``), or as text when ``openwop._FAST_DECODE`` is off.
    """
    with open(file, "rb") as handle:
        identity = _identity(os.fstat(handle.fileno()))
        if identity is None:
            return None
        head = handle.read(_CHUNK_BYTES)
    found = _openwop_head(head, name)
    if found is not True and not isinstance(found, _Unknown):
        return found or None

    @contextmanager
    def lines() -> Iterator[Iterable[str]]:
        with open(file, encoding="utf-8") as again:
            if _identity(os.fstat(again.fileno())) != identity:
                raise OSError(0, "the file changed while it was being loaded")
            yield openwop.bounded_text_lines(again, file)

    @contextmanager
    def chunks() -> Iterator[Iterable[bytes]]:
        with open(file, "rb", buffering=0) as again:
            if _identity(os.fstat(again.fileno())) != identity:
                raise OSError(0, "the file changed while it was being loaded")
            yield iter(partial(again.read, _CHUNK_BYTES), b"")

    guess = isinstance(found, _Unknown) and not told
    if openwop._FAST_DECODE:
        try:  # read on a guess: a file whose first lines hold no event is no log
            loaded = load_openwop_bytes(chunks, file, give_up_after=_GUESS_LINES if guess else None)
        except openwop.NoEventsRead as stopped:
            assert isinstance(found, _Unknown)
            return [], [_unknown_records(file, found.line, found.first, stopped.lines)]
    else:
        loaded = load_openwop_lines(lines, file)
    if isinstance(found, _Unknown) and not told and _nothing_read(*loaded):
        return [], [_unknown_records(file, found.line, found.first)]
    return loaded


def _openwop_head(head: bytes, name: str) -> bool | _Document | _Unknown:
    """Whether a file's first megabyte starts like a JSONL OpenWOP log; a :class:`_Document`
    (not a log) when the file is one JSON object on one line, decoded here whole; an
    :class:`_Unknown` when its records are of no format, which is read as an OpenWOP log."""
    if head.startswith(b"\xef\xbb\xbf"):
        return False  # refused with its place by the strict reader
    cut = len(head) == _CHUNK_BYTES
    jsonl = name.endswith((".jsonl", ".ndjson"))
    values: list[Any] = []
    several = False  # a line held several records one after another
    first_line = 0
    opening = True  # no text yet
    for number, raw in enumerate(_head_lines(head, cut=cut), start=1):
        line = raw.rstrip(b"\r")
        if opening:
            text = line.strip()
            if text in _DOCUMENT_OPENINGS:
                # A document's first line, as ``json.dumps(indent=...)`` and ``jq`` write it:
                # a JSON array with one event a line is not a JSONL log whose lines are broken.
                return False
            opening = not text
        if not may_be_json(line):  # a blank line, or one a decode refuses (a document's line)
            continue
        value, problem = decode_json(line, "")
        if problem is not None:
            # records one after another (a lost line break) tell the format as lines would
            merged = (
                values_one_after_another(line, "", number)
                if problem.message == EXTRA_DATA
                else None
            )
            if merged is None:
                continue  # a broken record: the others tell the format (the loader reports it)
            values.extend(merged)
            several = True
        else:
            values.append(value)
        first_line = first_line or number
        if len(values) >= _HEAD_LINES:
            break
    # No whole line in the first megabyte: the whole-file way tells the format from every
    # record (a Codex rollout with a long first line was taken for an OpenWOP log).
    if not values:
        return False
    if not isinstance(values[0], Mapping):
        return False
    found = _detect_lines(values)
    if found == "openwop":
        return True
    if not jsonl and not cut and b"\n" not in head.strip():  # the file is this one line
        # (read as JSONL when it holds several records one after another: each is read)
        return False if several else _Document(values[0])
    if found is None and (jsonl or len(values) > 1):
        return _Unknown(first_line, values[0])
    return False


def _head_lines(head: bytes, *, cut: bool) -> Iterator[bytes]:
    """The lines of a file's head one at a time, as it is read (the first line often decides,
    and a megabyte split at once costs as much as the rest of a small load); ``cut``: the
    last piece may be cut short, and is not given."""
    start = 0
    end = head.find(b"\n")
    while end >= 0:
        yield head[start:end]
        start = end + 1
        end = head.find(b"\n", start)
    if not cut:
        yield head[start:]


def _identity(info: os.stat_result) -> tuple[int, int, int, int] | None:
    if not stat.S_ISREG(info.st_mode):
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def _is_chat_line(head: Any) -> bool:
    if not isinstance(head, Mapping) or _looks_like_event(head):
        return False
    if "payload" in head:
        return False
    if any(isinstance(head.get(key), list) for key in ("messages", "traj", "input", "output")):
        return True
    if "role" in head or isinstance(head.get("message"), Mapping):
        return True
    return head.get("type") in (
        "function_call",
        "function_call_output",
        "message",
        "mcp_call",
        "custom_tool_call",
        "custom_tool_call_output",
    )
