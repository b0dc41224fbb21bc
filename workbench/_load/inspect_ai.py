"""Inspect AI eval logs, ``.json`` and ``.eval``, as promoted runs (SPEC R34-R36).

A ``.json`` log is one object with ``version``, ``status``, ``eval`` and ``samples[]``; an
``.eval`` log is a zip archive with ``header.json`` and one ``samples/<id>_epoch_<n>.json`` per
sample and epoch (members are read one at a time, each within the size limit; deflated, or
Zstandard-compressed as Inspect writes them since 0.3.206), or, in the chunked layout of
Inspect 0.3.250 and later, the entries under ``samples/<id>_epoch_<n>/`` (a shell
``sample.json`` and chunks of messages, events, calls and attachments), put back together by
``inspect_chunked`` into the same sample; one that cannot be is not read, its problems naming
the entries, and the others load. Each sample and epoch is one run (task key
``sample-<id>-epoch-<n>``).

In a sample's ``messages[]`` an assistant message's ``tool_calls[]`` (``{id, function,
arguments}``) are the calls; a ``tool`` message answers its ``tool_call_id`` and failed when it
has an ``error`` (a ``ToolCallError`` ``{type, message}``: ``type`` is kept as the boundary's
``error_code``: ``parsing``, ``timeout``, ``unicode_decode``, ``permission``,
``file_not_found``, ``is_a_directory``, ``limit``, ``approval``, ``output_limit``,
``unknown``); Inspect leaves such a message's content empty and tells the model the error's
``message``, which is then the boundary's response text too. An ``error`` that is not an
object or null is a problem (R35). Strings of the form
``attachment://<hash>`` are resolved from the sample's ``attachments``.

A sample's ``events[]`` also record each tool call (``{"event": "tool", id, function, arguments,
result, error, failed, pending}``). They answer a call the messages leave open (a sample that
crashed mid-call: its tool event ``failed``, the sample's ``error`` the reason), and give the
calls the messages do not hold at all (``react()`` removes its ``submit`` call from them): those
follow the messages' calls, marked ``recordedIn: events``. A ``pending`` tool event never
finished, and its call stays unanswered (R2).

An assistant message's ``content`` may hold server-side tool uses (``ContentToolUse``,
``{"type": "tool_use", tool_type, id, name, arguments, result, error}``: a web search, web fetch,
code execution or MCP connector call the provider ran, recorded since Inspect 0.3.123): each is
a call answered at once, failed when its ``error`` is text (an empty one too); a ``result`` of a
type Inspect never wrote (a number, a boolean) is a problem (``inspect_results``), and in a log
whose ``eval.packages["inspect_ai"]`` is 0.3.126 or later, where ``result`` is a required
``str``, so is any ``result`` that is not text (null, left out, an object, a list).

A ``submit`` call answered by nothing ends the sample by design (R36; Control Arena's
protocols stop at the agent's submission): it is kept in ``metadata["terminalCalls"]``, not a
call never answered. One whose tool event began and never finished (``pending``) is.
"""

from __future__ import annotations

import zipfile
from collections import Counter
from collections.abc import Mapping
from typing import Any

from .chat_walk import CallRead, chat_messages, model_turn
from .common import (
    RecordTally,
    is_text_or_parts,
    json_args,
    json_kind,
    read_flag,
    refuse_result,
    text_of,
)
from .conversation import ConversationBuilder, recorded_tools
from .inspect_chunked import ChunkedSample, chunked_entry, chunked_sample
from .inspect_results import answer_call, server_tools, text_results_since
from .inspect_sent import sent_results
from .inspect_zstd import ZIP_ZSTANDARD, zstd_member
from .pairing import CallPairer
from .reading import MAX_FILE_BYTES, decode_json, refuse_dense
from .records import LoadError, LoadProblem, PromotedRun

__all__ = ["TERMINAL", "load_eval", "load_inspect", "read_eval", "read_eval_zip", "sniff_inspect"]

TERMINAL = frozenset({"submit"})
"""The tool whose call, left unanswered, ends a sample (the agent's submission, R36)."""

_ATTACHMENT = "attachment://"


def sniff_inspect(data: Any) -> bool:
    return (
        isinstance(data, dict)
        and isinstance(data.get("eval"), dict)
        and ("samples" in data or "status" in data)
        and "version" in data
    )


def read_eval_zip(file: str) -> dict[str, Any]:
    """An ``.eval`` archive as a ``.json`` log: ``header.json``'s members plus ``samples``;
    a chunked sample that cannot be put back together refuses the file."""
    log, problems = read_eval(file)
    if problems:
        raise LoadError(problems)
    return log


def load_eval(file: str) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """An ``.eval`` archive's runs, loaded around a chunked sample that cannot be put back
    together (its problems name the entries)."""
    log, problems = read_eval(file)
    runs, found = load_inspect(log, file)
    return runs, [*problems, *found]


def read_eval(file: str) -> tuple[dict[str, Any], list[LoadProblem]]:
    """An ``.eval`` archive as a ``.json`` log, and the problems of the chunked samples not
    read (``inspect_chunked``): each sample, single-entry or chunked, in the order of its
    ``<id>_epoch_<n>``."""
    try:
        archive = zipfile.ZipFile(file)
    except (zipfile.BadZipFile, OSError) as exc:
        problem = LoadProblem(file, "(file)", "", f"not a readable zip archive: {exc}")
        raise LoadError([problem]) from None
    with archive:
        names = archive.namelist()
        if "header.json" not in names:
            raise LoadError(
                [
                    LoadProblem(
                        file,
                        "(file)",
                        "",
                        "a zip archive without header.json: not an Inspect AI .eval log",
                    )
                ]
            )
        counted = Counter(names)
        twice = next((name for name in names if counted[name] > 1), None)
        if twice is not None:  # zipfile reads only the last of them: one would be lost
            raise LoadError(
                [LoadProblem(file, twice, "", "this member is in the archive twice: not read")]
            )
        wanted = [n for n in names if n.startswith("samples/") and n.endswith(".json")]
        large = next((n for n in wanted if archive.getinfo(n).file_size > MAX_FILE_BYTES), None)
        if large is not None:  # named before the whole is counted
            raise LoadError([LoadProblem(file, large, "", "zip member larger than the limit")])
        inflated = sum(archive.getinfo(n).file_size for n in [*wanted, "header.json"])
        if inflated > MAX_FILE_BYTES:  # each member may be under it, the whole not
            reason = f"its members hold {inflated:,} bytes, past the limit of {MAX_FILE_BYTES:,}"
            raise LoadError([LoadProblem(file, "(file)", "", reason)])
        header = _member(archive, "header.json", file)
        chunked: dict[str, ChunkedSample] = {}
        single: list[str] = []
        for name in wanted:
            parts = chunked_entry(name)
            if parts is None:
                single.append(name)
            else:
                chunked.setdefault(parts[0], {})[parts[1]] = name
        problems: list[LoadProblem] = []
        found: list[tuple[tuple[str, int], Any]] = []
        for name in single:
            found.append((_sample_order(name), _member(archive, name, file)))
        for prefix, entries in chunked.items():
            if f"{prefix}.json" in counted:  # Inspect reads the single entry (one form a sample)
                message = f"this sample is also the single entry {prefix}.json: not read twice"
                problems.append(LoadProblem(file, f"{prefix}/", "", message))
                continue
            sample, refused = chunked_sample(
                prefix, entries, lambda name: _member(archive, name, file), file
            )
            problems.extend(refused)
            if sample is not None:
                found.append((_sample_order(f"{prefix}.json"), sample))
    log = dict(header) if isinstance(header, dict) else {}
    log["samples"] = [sample for _, sample in sorted(found, key=lambda pair: pair[0])]
    return log, problems


def _sample_order(name: str) -> tuple[str, int]:
    stem = name.rsplit("/", 1)[-1].removesuffix(".json")
    sample, _, epoch = stem.rpartition("_epoch_")
    if epoch.isascii() and epoch.isdigit() and len(epoch) <= 9:  # ('²' is a digit to isdigit)
        return sample, int(epoch)
    return stem, 0


def _member(archive: zipfile.ZipFile, name: str, file: str) -> Any:
    info = archive.getinfo(name)
    if info.file_size > MAX_FILE_BYTES:
        raise LoadError([LoadProblem(file, name, "", "zip member larger than the limit")])
    try:
        if info.compress_type == ZIP_ZSTANDARD:
            data = zstd_member(archive, info)
        else:
            with archive.open(info) as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
    except (NotImplementedError, RuntimeError, ValueError, EOFError, OSError) as exc:
        # an unsupported method, an encrypted member, a corrupt stream, a bad CRC
        raise LoadError(
            [LoadProblem(file, name, "", f"cannot read this zip member: {exc}")]
        ) from None
    except zipfile.BadZipFile as exc:
        raise LoadError([LoadProblem(file, name, "", f"corrupt zip member: {exc}")]) from None
    if len(data) > MAX_FILE_BYTES:
        raise LoadError([LoadProblem(file, name, "", "zip member larger than the limit")])
    refuse_dense(data, file, name, always=True)  # many members may each be large
    value, problem = decode_json(data, f"{file}!{name}")
    if problem is not None:
        raise LoadError([problem])
    return value


def load_inspect(data: Any, file: str) -> tuple[list[PromotedRun], list[LoadProblem]]:
    samples = data.get("samples") if isinstance(data, dict) else None
    if not isinstance(samples, list):
        samples = []
    runs: list[PromotedRun] = []
    problems: list[LoadProblem] = []
    spec = data.get("eval") if isinstance(data.get("eval"), dict) else {}
    model = spec.get("model") if isinstance(spec.get("model"), str) else None
    text_since = text_results_since(data)
    for s_index, sample in enumerate(samples):
        where = f"samples[{s_index}]"
        if not isinstance(sample, dict) or not isinstance(sample.get("messages"), list):
            problems.append(LoadProblem(file, where, "messages", "a sample needs messages"))
            continue
        run, found = _sample(sample, where, file, model, text_since)
        runs.append(run)
        problems.extend(found)
    return runs, problems


def _resolve(value: Any, attachments: Mapping[str, Any]) -> Any:
    if isinstance(value, str) and value.startswith(_ATTACHMENT):
        found = attachments.get(value[len(_ATTACHMENT) :])
        return found if isinstance(found, str) else value
    if isinstance(value, list):
        return [_resolve(v, attachments) for v in value]
    if isinstance(value, dict):
        return {k: _resolve(v, attachments) for k, v in value.items()}
    return value


def _sample(
    sample: Mapping[str, Any], place: str, file: str, model: str | None, text_since: str | None
) -> tuple[PromotedRun, list[LoadProblem]]:
    attachments = sample.get("attachments")
    attachments = attachments if isinstance(attachments, dict) else {}
    pairer = CallPairer(file)
    tally = RecordTally()
    talk = ConversationBuilder()
    answer: Any = None

    def read(call: Any, where: str) -> CallRead | None:
        if not isinstance(call, dict) or not isinstance(call.get("function"), str):
            pairer.problem(where, "function", "missing or not a string")
            return None
        call_id = call.get("id")
        if not isinstance(call_id, str) or not call_id:
            pairer.problem(where, "id", "missing or not a string")
            return None
        extra = {k: call[k] for k in ("type", "parse_error", "view") if call.get(k)}
        called.add(call_id)
        return CallRead(call_id, call["function"], json_args(call.get("arguments")), extra)

    called: set[str] = set()  # the ids of the calls the messages made

    told = sent_results(sample, lambda value: _resolve(value, attachments))
    messages = sample["messages"]
    if attachments:  # long texts stored once, as attachment:// references
        messages = [_resolve(m, attachments) if isinstance(m, dict) else m for m in messages]
    for where, message, role, text in chat_messages(
        messages, f"{place}.messages", pairer, tally, text_of
    ):
        if role == "assistant" and isinstance(message.get("content"), list):
            server_tools(message["content"], where, pairer, talk, called, text_since)
        made = model_turn(role, text, message, where, pairer, talk, read)
        if made is not None:  # an assistant turn: its last words, if it made no call
            if made:
                answer = None
            elif text:
                answer = text
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if not isinstance(call_id, str) or not call_id:
                pairer.problem(where, "tool_call_id", "missing or not a string")
                continue
            error = message.get("error")
            if error is not None and not isinstance(error, dict):
                pairer.problem(where, "error", "a ToolCallError must be an object or null")
                pairer.discard(call_id)
                continue
            if "content" in message and not is_text_or_parts(message["content"]):  # R35
                refuse_result(pairer, call_id, where, "content", "not text or a list of content")
                continue
            failed = error is not None
            code = error.get("type") if isinstance(error, dict) else None
            note = error.get("message") if isinstance(error, dict) else None
            content = message.get("content")
            response = (
                {"content": [{"type": "text", "text": content}]}
                if isinstance(content, str)
                else {"content": content if isinstance(content, list) else []}
            )
            if failed and not text and isinstance(note, str) and note:
                # Inspect leaves a failed call's content empty and gives the model its error,
                # in the provider's words: "Error: <message>" over Chat Completions
                text = told.get(call_id) or note
                response = {"content": [{"type": "text", "text": text}]}
            answer_call(pairer, call_id, response, failed, where, "tool_call_id", code, note, text)
            talk.tool(call_id, text, failed)
    events = sample.get("events")
    pending: set[str] = set()
    if isinstance(events, list):
        pending = _tool_events(events, place, pairer, called, sample.get("error"), attachments)
    boundaries = pairer.finish(TERMINAL, unfinished=pending)
    sample_id = sample.get("id")
    epoch = sample.get("epoch", 1)
    key = f"sample-{sample_id}-epoch-{epoch}"
    metadata: dict[str, Any] = {
        k: sample[k] for k in ("id", "epoch", "target", "scores", "metadata") if k in sample
    }
    metadata.update(tally.to_metadata())
    if pairer.terminal_calls:
        metadata["terminalCalls"] = pairer.terminal_calls
    run = PromotedRun(
        run_id=str(sample.get("uuid") or key),
        boundaries=boundaries,
        source=file,
        format="inspect-ai",
        outcome="failed" if sample.get("error") else "completed",
        answer=answer,
        task_key=key,
        metadata=metadata,
        conversation=talk.build(_offered_tools(events, attachments), model),
    )
    return run, pairer.problems


def _offered_tools(events: Any, attachments: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    """The tools the sample's first model call offered (its event's ``tools``: Inspect's
    ``ToolInfo``, ``{name, description, parameters}``, a long description an attachment);
    ``None`` where no event says."""
    for event in events if isinstance(events, list) else ():
        if isinstance(event, dict) and event.get("event") == "model" and "tools" in event:
            return recorded_tools(_resolve(event["tools"], attachments))
    return None


def _tool_events(
    events: list[Any],
    place: str,
    pairer: CallPairer,
    called: set[str],
    sample_error: Any,
    attachments: Mapping[str, Any],
) -> set[str]:
    """Answer from the sample's tool events the calls its messages left open, and add the
    calls only the events record (see the module's docstring); the ids of the calls whose
    event never finished (``pending``)."""
    pending: set[str] = set()
    for index, event in enumerate(events):
        if not isinstance(event, dict) or event.get("event") != "tool":
            continue
        call_id, function = event.get("id"), event.get("function")
        if not isinstance(call_id, str) or not call_id:
            continue
        where = f"{place}.events[{index}]"
        if call_id in called:
            if not pairer.is_open(call_id):
                continue  # answered by its tool message
        elif isinstance(function, str) and function:
            called.add(call_id)
            args = json_args(_resolve(event.get("arguments"), attachments))
            extra = {"recordedIn": "events"}
            pairer.call(call_id, function, args, where=where, field_name="id", extra=extra)
        else:
            continue
        if event.get("pending") is True:
            pending.add(call_id)
            continue  # it never finished: left open, a call never answered (R2)
        error = event.get("error")
        flag = read_flag(event.get("failed"), pairer, where, "failed")  # R35: bool | None
        if flag is None or (error is not None and not isinstance(error, dict)):
            if flag is not None:  # (a ToolCallError is an object)
                pairer.problem(where, "error", f"{json_kind(error)}, not an object")
            pairer.discard(call_id)
            continue
        failed = isinstance(error, dict) or flag
        if isinstance(error, dict):
            code, note = error.get("type"), error.get("message")
        else:
            reason = sample_error.get("message") if isinstance(sample_error, dict) else None
            code, note = None, reason
        result = _resolve(event.get("result"), attachments)
        text = result if isinstance(result, str) else text_of(result)
        content = result if isinstance(result, list) else [{"type": "text", "text": text}]
        response = {"content": content if text or isinstance(result, list) else []}
        if failed and not text and isinstance(note, str) and note:
            response = {"content": [{"type": "text", "text": note}]}  # what the model was told
        answer_call(pairer, call_id, response, failed, where, "id", code, note, text)
    return pending
