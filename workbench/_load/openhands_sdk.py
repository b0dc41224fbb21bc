"""OpenHands agent SDK event streams (OpenHands V1) as promoted runs (SPEC R34-R36, R40).

The OpenHands agent SDK (``software-agent-sdk``, OpenHands V1) writes events of its own, told apart
by their ``kind`` (its per-event files ``events/event-NNNNN-*.json`` joined in name order):
an ``ActionEvent`` is a call (tool ``tool_name``, call id ``tool_call_id``, args the model's
``tool_call.arguments``, else the ``action``), answered by the ``ObservationEvent``,
``AgentErrorEvent`` or ``UserRejectObservation`` of its ``tool_call_id``. It failed when the
observation says ``is_error: true`` or a non-zero ``exit_code`` (error code ``exit_code:N``;
-1 is none: the SDK's mark of a command not yet finished, at its soft or hard timeout or with
its exit code lost, which the model is told to wait on, so the call is no failure and keeps
``extra.notFinished``; one that is no integer, ``"1"`` or ``1.0``, is a problem and the call is
not read, R35), or, in the SDK of late 2025 (no ``is_error``; the text in ``output``),
has an ``error``: a message, or ``true`` (error code ``observation_error``). It always failed for
an agent error (error code ``agent_error``, e.g. arguments that failed validation) or a rejection
(``rejected:user`` or ``rejected:hook``). A terminal's result is served as the SDK sent it to
the model (``terminal_text``), not as stored. Its ``finish`` has an observation like any tool; the
finish message is the answer. ``MessageEvent``s are the conversation; ``SystemPromptEvent`` and
every other kind are counted (R35).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from .._common.toolresult import result_text
from .common import RecordTally, is_text_or_parts, json_args, read_flag, refuse_result, text_of
from .conversation import ConversationBuilder
from .messages import as_text_block
from .pairing import CallPairer
from .records import LoadProblem, PromotedRun

__all__ = [
    "TERMINAL",
    "classic_clipped",
    "command_text",
    "is_sdk_events",
    "load_openhands_sdk",
    "session_run",
]

TERMINAL = frozenset({"finish"})
"""``finish`` ends an OpenHands run (R36): classic OpenHands leaves it unanswered by design;
the SDK answers it with an observation. Its message (or final thought) is the answer."""

_SDK_RESULTS = frozenset({"ObservationEvent", "AgentErrorEvent", "UserRejectObservation"})
_SDK_KINDS = frozenset({"ActionEvent", "MessageEvent", "SystemPromptEvent", *_SDK_RESULTS})


def is_sdk_events(events: list[Any]) -> bool:
    """Whether the events are the agent SDK's (``kind`` names an SDK event class)."""
    return any(
        isinstance(e, dict) and type(e.get("kind")) is str and e["kind"] in _SDK_KINDS
        for e in events[:50]
    )


def load_openhands_sdk(events: list[Any], file: str) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """The agent SDK's events (see the module's docstring)."""
    pairer = CallPairer(file)
    tally = RecordTally()
    talk = ConversationBuilder()
    answer: Any = None
    for index, event in enumerate(events):
        where = f"[{index}]"
        if not isinstance(event, dict):
            pairer.problem(where, "", "an event must be an object")
            continue
        kind = event.get("kind")
        if not isinstance(kind, str):
            tally.other("event", event)
            continue
        tally.add(kind)
        if kind == "ActionEvent":
            call = _sdk_call(event, pairer, where)
            if call is None:
                continue
            call_id, name, args = call
            thought = text_of(event.get("thought"))
            talk.assistant(
                thought or None,
                [{"id": call_id, "name": name, "args": args}],
                turn=_str(event.get("llm_response_id")),
            )
            if name in TERMINAL:
                answer = _final(args)
        elif kind in _SDK_RESULTS:
            _sdk_result(event, kind, pairer, talk, where)
        elif kind == "MessageEvent":
            message = event.get("llm_message")
            if isinstance(message, dict):
                text = text_of(message.get("content"))
                if message.get("role") == "user":
                    talk.user(text)
                elif message.get("role") == "assistant":
                    talk.assistant(text or None, turn=_str(event.get("llm_response_id")))
                    answer = text or answer
        elif kind == "SystemPromptEvent":
            prompt = event.get("system_prompt")
            text = text_of(prompt) if isinstance(prompt, dict | list | str) else ""
            if text:
                talk.system(text)
    run = session_run(pairer, tally, talk, file, answer=answer, outcome="completed", model=None)
    return [run], pairer.problems


def session_run(
    pairer: CallPairer,
    tally: RecordTally,
    talk: ConversationBuilder,
    file: str,
    *,
    answer: Any,
    outcome: str,
    model: str | None,
) -> PromotedRun:
    """An OpenHands session's one run, classic or SDK: its calls paired (``finish`` may go
    unanswered by design, R36), its records counted, its conversation."""
    boundaries = pairer.finish(TERMINAL)
    metadata = tally.to_metadata()
    if pairer.terminal_calls:
        metadata["terminalCalls"] = pairer.terminal_calls
    return PromotedRun(
        run_id="session",
        boundaries=boundaries,
        source=file,
        format="openhands",
        outcome=outcome,
        answer=answer,
        task_key="session",
        metadata=metadata,
        conversation=talk.build(None, model),
    )


def _sdk_call(
    event: Mapping[str, Any], pairer: CallPairer, where: str
) -> tuple[str, str, Any] | None:
    name = event.get("tool_name")
    call_id = event.get("tool_call_id")
    if not isinstance(name, str) or not name:
        pairer.problem(where, "tool_name", "missing or not a string")
        return None
    if not isinstance(call_id, str) or not call_id:
        pairer.problem(where, "tool_call_id", "missing or not a string")
        return None
    tool_call = event.get("tool_call")
    raw = tool_call.get("arguments") if isinstance(tool_call, dict) else None
    action = event.get("action")
    if raw is not None:
        args = json_args(raw)
    elif isinstance(action, dict):
        args = {k: v for k, v in action.items() if k != "kind"}
    else:
        args = {}
    extra = {
        "action": action.get("kind") if isinstance(action, dict) else None,
        "eventId": event.get("id"),
    }
    pairer.call(
        call_id,
        name,
        args,
        where=where,
        field_name="tool_call_id",
        agent_id=_str(event.get("source")),
        extra=extra,
    )
    return call_id, name, args


def _sdk_result(
    event: Mapping[str, Any],
    kind: str,
    pairer: CallPairer,
    talk: ConversationBuilder,
    where: str,
) -> None:
    call_id = event.get("tool_call_id")
    if not isinstance(call_id, str) or not call_id:
        pairer.problem(where, "tool_call_id", "missing or not a string")
        return
    if not pairer.is_open(call_id):
        pairer.problem(where, "tool_call_id", f"result for call id {call_id!r} has no open call")
        return
    code: str | None = None
    extras: dict[str, Any] = {"event": kind}
    if kind == "ObservationEvent":
        observation = event.get("observation")
        if not isinstance(observation, dict):
            pairer.problem(where, "observation", "missing or not an object")
            pairer.discard(call_id)
            return
        failed = read_flag(observation.get("is_error"), pairer, where, "observation.is_error")
        if failed is None:
            pairer.discard(call_id)
            return
        exit_code = _exit_code(observation)
        if exit_code is not None and type(exit_code) is not int:  # ("1", 1.0, true: R35)
            own = observation.get("exit_code") is not None
            field = "observation.exit_code" if own else "observation.metadata.exit_code"
            pairer.problem(where, field, "must be an integer or null")
            pairer.discard(call_id)
            return
        if exit_code == NOT_FINISHED:  # still running (or its exit not seen): no exit code
            extras["notFinished"] = True
        elif exit_code is not None and exit_code != 0:
            failed = True
            code = f"exit_code:{exit_code}"
        content = observation.get("content")
        if content is not None and not is_text_or_parts(content):  # R35: not an empty success
            refuse_result(pairer, call_id, where, "observation.content", "not a list of content")
            return
        if content is None:  # the SDK of late 2025: the text in ``output`` (or ``message``)
            content = _str(observation.get("output")) or _str(observation.get("message"))
        error = observation.get("error")  # that SDK's flag: a message, or True
        if error is not None and not isinstance(error, str | bool):  # R35: a flag of no type
            pairer.problem(where, "observation.error", "must be a message, true or false")
            pairer.discard(call_id)
            return
        if (isinstance(error, str) and error) or error is True:
            failed = True
            code = code or "observation_error"
            if isinstance(error, str):
                content = f"{content}\n{error}" if isinstance(content, str) and content else error
        if isinstance(content, str):
            blocks = [{"type": "text", "text": content}]
        else:
            blocks = [as_text_block(b) for b in content] if isinstance(content, list) else []
        said = terminal_text(observation, blocks)
        if said is not None:  # what the model was sent of a terminal's output (R42)
            extras["recordedContent"] = blocks
            blocks = said
        extras["observation"] = observation.get("kind")
    elif kind == "AgentErrorEvent":
        failed, code = True, "agent_error"
        error = event.get("error")
        blocks = [{"type": "text", "text": error if isinstance(error, str) else ""}]
        if event.get("classification") is not None:
            extras["classification"] = event.get("classification")
    else:  # UserRejectObservation
        source = event.get("rejection_source")
        failed, code = True, f"rejected:{source if isinstance(source, str) else 'user'}"
        reason = event.get("rejection_reason")
        text = reason if isinstance(reason, str) else "User rejected the action"
        blocks = [{"type": "text", "text": f"Action rejected: {text}"}]
    text = result_text(blocks)
    pairer.result(
        call_id,
        {"content": blocks},
        failed,
        where=where,
        field_name="tool_call_id",
        error_code=code,
        error_message=(text or "tool call failed") if failed else None,
        extra=extras,
    )
    talk.tool(call_id, text, failed)  # the conversation knows the call's tool


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _final(args: Any) -> Any:
    message = args.get("message") if isinstance(args, dict) else None
    return message or None


NOT_FINISHED = -1
"""The SDK's ``exit_code`` of a command not yet finished (``TerminalObservation.exit_code``:
"-1 indicates the process hit the soft timeout and is not yet finished")."""


def _exit_code(observation: Mapping[str, Any]) -> Any:
    """The exit code of a terminal observation: its own, else its ``metadata``'s."""
    code = observation.get("exit_code")
    if code is None and isinstance(observation.get("metadata"), dict):
        code = observation["metadata"].get("exit_code")
    return code


_TERMINALS = frozenset({"TerminalObservation", "ExecuteBashObservation"})
_ERROR_HEADER = "[An error occurred during execution.]\n"
_OLD_ERROR_HEADER = "[There was an error during command execution.]\n"
"""The SDK of late 2025 (``ExecuteBashObservation`` with ``error: true``) put its header in the
text itself."""
SENT_AT_MOST = 30_000
"""The most of a command's text OpenHands sends the model (the agent SDK's
``MAX_CMD_OUTPUT_SIZE``; classic OpenHands' ``max_message_chars`` by default): the middle of a
longer text is cut."""
_CLIPPED = (
    "<response clipped><NOTE>Due to the max output limit, only part of the full response has "
    "been shown to you.</NOTE>"
)
_CLIPPED_SAVED = (
    "<response clipped><NOTE>Due to the max output limit, only part of the full response has "
    "been shown to you. The complete output has been saved to {file_path} - you can use other "
    "tools to view the full content (truncated part starts around line {line_num}).</NOTE>"
)
_CLASSIC_CLIPPED = "\n[... Observation truncated due to length ...]\n"


def terminal_text(observation: Mapping[str, Any], blocks: list[Any]) -> list[dict[str, Any]] | None:
    """The text the SDK sends the model for a terminal's observation (its ``to_llm_content``:
    :func:`command_text` of its output and ``metadata``, its middle cut past
    :data:`SENT_AT_MOST` as the SDK cuts it, after a header when ``is_error``), or ``None`` for
    another observation, or one without the ``metadata`` that text is made of. The output the
    SDK stored (its ``content``) is what the model read only in part: the rest was added when
    it was sent."""
    kind = observation.get("kind")
    if type(kind) is not str or kind not in _TERMINALS:
        return None
    texts = [b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    strings = [text for text in texts if isinstance(text, str)]
    if len(strings) != len(texts):
        return None  # a block of no text: served as stored (shown as such)
    output = "".join(strings)
    said = command_text(output, observation.get("metadata"))
    if said is None:
        return None
    saved = observation.get("full_output_save_dir")
    said = sdk_clipped(said, saved if isinstance(saved, str) else None)
    if observation.get("error") is True and "is_error" not in observation:
        return [{"type": "text", "text": _OLD_ERROR_HEADER + said}]  # the SDK of late 2025
    header = observation.get("is_error") is True
    return [
        *([{"type": "text", "text": _ERROR_HEADER}] if header else []),
        {"type": "text", "text": said},
    ]


def command_text(output: str, metadata: Any) -> str | None:
    """A shell command's output as OpenHands tells the model of it (classic OpenHands'
    ``CmdOutputObservation.to_agent_observation`` since 0.21, which the agent SDK's terminal
    keeps): the output between the ``metadata``'s ``prefix`` and ``suffix``, then the working
    directory, the Python interpreter and, unless the command is still running, its exit code,
    each on a line of its own; ``None`` without that ``metadata``."""
    if not isinstance(metadata, dict):
        return None
    prefix, suffix = metadata.get("prefix", ""), metadata.get("suffix", "")
    if not isinstance(prefix, str) or not isinstance(suffix, str):
        return None
    said = f"{prefix}{output}{suffix}"
    where = metadata.get("working_dir")
    if isinstance(where, str) and where:
        said += f"\n[Current working directory: {where}]"
    python = metadata.get("py_interpreter_path")
    if isinstance(python, str) and python:
        said += f"\n[Python interpreter: {python}]"
    code = metadata.get("exit_code", -1)
    if code != -1:
        said += f"\n[Command finished with exit code {code}]"
    return said


def sdk_clipped(text: str, save_dir: str | None) -> str:
    """The agent SDK's ``maybe_truncate`` of a terminal's text (past :data:`SENT_AT_MOST`: its
    head, a notice naming the file the SDK saved the whole to, its tail)."""
    limit = SENT_AT_MOST
    if len(text) <= limit:
        return text
    head = (limit - len(_CLIPPED)) // 2 + (limit - len(_CLIPPED)) % 2
    notice = _CLIPPED
    if save_dir:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
        path = f"{save_dir.rstrip('/')}/terminal_output_{digest}.txt"
        notice = _CLIPPED_SAVED.format(file_path=path, line_num=len(text[:head].splitlines()) + 1)
    if len(notice) >= limit:
        return notice[:limit]
    remaining = limit - len(notice)
    head = min(head, remaining)
    tail = remaining - head
    return text[:head] + notice + (text[-tail:] if tail > 0 else "")


def classic_clipped(text: str) -> str:
    """Classic OpenHands' ``truncate_content`` at its default ``max_message_chars``."""
    if len(text) <= SENT_AT_MOST:
        return text
    half = SENT_AT_MOST // 2
    return text[:half] + _CLASSIC_CLIPPED + text[-half:]
