"""Google ADK sessions and their events as promoted runs (SPEC R34-R36, R40).

An ADK (Agent Development Kit) session is ``{"id", "appName", "userId", "state", "events":
[...], "lastUpdateTime"}`` as ``Session.model_dump_json()`` writes it (``adk run
--save_session``, the API server's session, a test's dump; the members in camelCase with
``by_alias``, in snake_case without). Its events may also come alone: a JSON array, or JSONL one
event a line (what ``/run_sse`` streams, or Agent Engine's ``stream_query`` returns). An event
is ``{"content": {"role", "parts": [...]}, "author", "invocationId", "id", "timestamp",
"actions", ...}``; its parts are Gemini's (``google.genai.types.Part``), in either spelling:

- a ``functionCall`` part (``id``, ``name``, ``args``) of a model event is a call, made by the
  event's ``author`` (its ``agent_id``: ADK names every agent, the root too); the part's other
  members (a ``thoughtSignature``) are kept on the boundary's ``extra`` (R4);
- a ``functionResponse`` part (``id``, ``name``, ``response``) answers the call of its ``id``.
  ADK before 1.0 (sessions of late 2024) gave calls no ``id``: such a call gets one made up
  (``adk-call-<event>-<part>``), and a response with none answers the earliest open call of its
  ``name`` made by the event its ``options.function_call_event_id`` names, else by any event
  (the Gemini API's rule: responses answer calls by name, in order);
  ADK has no failure flag: a response holding ``error`` and no ``result`` or ``output`` (what
  ``on_tool_error_callback`` returns, and Gemini's own convention; ADK's tools write its text,
  ``{"error": str(e)}``: an ``error`` that is false or empty, ``false``, ``0``, ``""``, ``[]``,
  ``{}``, says none, the tool's own output), or ``"status": "error"`` (ADK's documented
  convention for a tool's failure, ``error_message`` or ``message`` beside it; a ``status`` of
  another value or type, ``true``, is the tool's own output, not refused), is a failure; else
  the error rule on the response's JSON text (R3). The model was sent the
  response object: the fixture serves its JSON text;
- an event with an ``errorCode`` (a tool that raised with no callback, a model error) fails the
  calls its author left open, long-running ones aside (``error_code`` the code, the message its
  ``errorMessage``), and the run (``failed``); content beside the error is read first;
- a call of ``longRunningToolIds`` left unanswered is waiting by design (R36): a terminal call.

Streaming pieces (``partial: true``) are counted, not read (the whole event follows). Text parts
are the conversation's user and model turns (R40); the last model text is the answer.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from .._common.jsonio import json_text
from .._common.toolresult import text_content
from .common import RecordTally, refuse_result
from .conversation import ConversationBuilder
from .gemini_api import is_error_response, member
from .pairing import CallPairer
from .records import ErrorRule, LoadProblem, PromotedRun

__all__ = ["is_adk_event", "load_adk", "sniff_adk", "sniff_adk_events"]

_CALL_PARTS = frozenset({"functionCall", "function_call"})


def _is_map(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """A JSON object (a ``dict`` at once, the usual case; any other mapping by its ABC)."""
    return type(value) is dict or isinstance(value, Mapping)


def is_adk_event(value: Any) -> bool:
    """An ADK event: an ``author``, an invocation id, and content or actions."""
    return (
        isinstance(value, Mapping)
        and isinstance(value.get("author"), str)
        and isinstance(member(value, "invocationId"), str)
        and ("content" in value or "actions" in value)
    )


def sniff_adk(data: Any) -> bool:
    """An ADK session object, or its events as a JSON array."""
    if isinstance(data, list):
        return bool(data) and is_adk_event(data[0])
    if not isinstance(data, Mapping) or not isinstance(data.get("events"), list):
        return False
    named = member(data, "appName") is not None or member(data, "userId")
    events = data["events"]
    if not events:
        return bool(named)
    return is_adk_event(events[0])  # (``adk test --rebuild`` writes the events alone so)


def sniff_adk_events(heads: Sequence[Any]) -> bool:
    """Whether a JSONL file's first records are ADK events (the API server's last line of a
    failed run, ``{"error": ...}``, among them)."""
    return (
        bool(heads)
        and is_adk_event(heads[0])
        and all(is_adk_event(r) or _is_server_error(r) for r in heads)
    )


def _is_server_error(value: Any) -> bool:
    """The line ``/run_sse`` ends a failed run with: ``{"error": ..., "error_details": ...}``."""
    return isinstance(value, Mapping) and "error" in value and "author" not in value


def load_adk(
    data: Any, file: str, rule: ErrorRule, *, lines: Sequence[int] | None = None
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """One run from a session object or its events (``lines``: each event's file line, JSONL)."""
    session: Mapping[str, Any] = data if isinstance(data, Mapping) else {}
    events = session.get("events") if session else data
    if not isinstance(events, list):
        return [], [LoadProblem(file, "(root)", "events", "missing or not a list")]
    reader = _Reader(file, rule, "events" if session else "")
    for index, event in enumerate(events):
        line = lines[index] if lines is not None and index < len(lines) else None
        reader.event(index, event, line)
    return reader.finish(session)


class _Reader:
    """One session's events, read in order."""

    def __init__(self, file: str, rule: ErrorRule, container: str) -> None:
        self.file = file
        self.rule = rule
        self.container = container
        self.pairer = CallPairer(file)
        self.tally = RecordTally()
        self.talk = ConversationBuilder()
        self.made: dict[str, tuple[str, str]] = {}
        """Each call's author and tool, by its id (which are open, the pairer knows)."""
        self.unnamed: dict[tuple[str | None, str], deque[str]] = {}
        """The ids made up for the calls made with no id (ADK before 1.0), in call order, by
        their event's id and tool, and (under ``None``) by tool alone: a call answered by one
        queue stays in the other, and is passed over there (it is no longer open)."""
        self.idless = False
        """Whether a call with no id was made (then a response with none answers by name)."""
        self.event_id: str | None = None
        """The id of the event being read."""
        self.long_running: set[str] = set()
        self.answer: str | None = None
        self.failed: list[dict[str, Any]] = []
        self.model: str | None = None

    def where(self, index: int, line: int | None) -> str:
        if line is not None:
            return f"line {line}"
        return f"{self.container}[{index}]" if self.container else f"item {index}"

    def event(self, index: int, event: Any, line: int | None) -> None:
        where = self.where(index, line)
        self.pairer.current_line = line
        if not _is_map(event):
            self.pairer.problem(where, "", "an event must be an object")
            return
        if "author" not in event and _is_server_error(event):  # the server's word: it failed
            self.tally.add("server error")
            self.failed.append({"serverError": event.get("error")})
            return
        author = event.get("author")
        author = author if isinstance(author, str) else ""
        event_id = event.get("id")
        self.event_id = event_id if type(event_id) is str else f"#{index}"
        if event.get("partial") is True:
            self.tally.add("partial")
            return
        code = event["errorCode"] if "errorCode" in event else event.get("error_code")
        if code is not None and (not isinstance(code, str) or not code):
            # a failure flag of another type says nothing sure (R35): a problem, not a failure
            self.pairer.problem(where, "errorCode", "not a string")
            code = None
        content: Any = event.get("content")
        is_map = type(content) is dict or isinstance(content, Mapping)
        parts = content.get("parts") if is_map else None
        if type(parts) is not list:
            if code is not None:
                self._error(event, author, code, where)
            else:
                self.tally.add("event:no content")
            return
        role = content.get("role") if is_map else None
        version = member(event, "modelVersion")
        if type(version) is str and version:
            self.model = version
        waiting = member(event, "longRunningToolIds")
        if type(waiting) is list:
            self.long_running.update(key for key in waiting if type(key) is str)
        texts: list[str] = []
        calls: list[dict[str, Any]] = []
        for p_index, part in enumerate(parts):
            place = f"{where}, part {p_index}"
            if type(part) is not dict and not isinstance(part, Mapping):
                self.pairer.problem(place, "", "a part must be an object")
                continue
            # member(part, "functionCall"), inline: two parts an event, every event
            call = part["functionCall"] if "functionCall" in part else part.get("function_call")
            if type(call) is dict or isinstance(call, Mapping):
                made = self._call(call, author, place, part, p_index)
                if made is not None:
                    calls.append(made)
                if isinstance(part.get("text"), str) and not part.get("thought"):
                    texts.append(part["text"])  # said beside the call, in the same part
            elif _is_map(answer := member(part, "functionResponse")):
                self._response(answer, place, event)
            elif isinstance(part.get("text"), str) and not part.get("thought"):
                texts.append(part["text"])
            else:
                self.tally.add("part:other")
        text = "".join(texts)
        if code is not None:  # an error beside content: the content read, then the error
            self._error(event, author, code, where)
        if role == "user" and author == "user":
            self.tally.add("event:user")
            if text:
                self.talk.user(text)
        elif calls or text:
            self.tally.add("event:model")
            self.talk.assistant(text or None, calls, fresh=True)
            self.answer = text if text and not calls else self.answer if not calls else None
        else:
            self.tally.add("event:tool")

    def _call(
        self,
        call: Mapping[str, Any],
        author: str,
        where: str,
        part: Mapping[str, Any],
        p_index: int,
    ) -> dict[str, Any] | None:
        call_id, name = call.get("id"), call.get("name")
        if not isinstance(name, str) or not name:
            self.pairer.problem(where, "functionCall.name", "missing or not a string")
            return None
        if call_id is None:  # ADK before 1.0: no call ids (answered by name, in order)
            call_id = f"adk-call-{self.event_id}-{p_index}"
            self.unnamed.setdefault((self.event_id, name), deque()).append(call_id)
            self.unnamed.setdefault((None, name), deque()).append(call_id)
            self.idless = True
        elif not isinstance(call_id, str) or not call_id:
            self.pairer.problem(where, "functionCall.id", "missing or not a string")
            return None
        args = call.get("args")
        extra = (
            {k: v for k, v in part.items() if v is not None and k not in _CALL_PARTS}
            if len(part) > 1  # a part of the call alone, the usual one, has none
            else None
        )
        self.pairer.call(
            call_id,
            name,
            args,
            where=where,
            field_name="functionCall.id",
            agent_id=author or None,
            extra=extra,
        )
        self.made[call_id] = (author, name)
        return {"id": call_id, "name": name, "args": args}

    def _response(self, answer: Mapping[str, Any], where: str, event: Mapping[str, Any]) -> None:
        call_id = answer.get("id")
        if call_id is None and self.idless:  # ADK before 1.0 (see the module)
            call_id = self._unnamed_call(answer.get("name"), event)
            if call_id is None:
                self.pairer.problem(
                    where, "functionResponse.name", "answers no open call of its name (no id)"
                )
                return
        if not isinstance(call_id, str) or not call_id:
            self.pairer.problem(where, "functionResponse.id", "missing or not a string")
            return
        if "response" not in answer:  # nothing recorded of what the call gave (R35)
            self.pairer.problem(where, "functionResponse.response", "missing")
            self.pairer.discard(call_id)
            return
        response = answer.get("response")
        if not isinstance(response, dict | str):  # R35: ADK writes an object; not a success
            said = 'not an object (ADK wraps any other value as {"result": ...})'
            refuse_result(self.pairer, call_id, where, "functionResponse.response", said)
            return
        text = response if type(response) is str else json_text(response)
        code: str | None = None
        message: str | None = None
        if is_error_response(response) and response["error"]:  # (false, 0, "", [], {}: none)
            failed, code, message = True, "error", _said(response.get("error"))
        elif _is_map(response) and response.get("status") == "error":
            failed, code = True, "status:error"
            message = _said(response.get("error_message", response.get("message", response)))
        else:
            failed = self.rule.matches(text)
            message = text if failed else None
        self.pairer.result(
            call_id,
            {"content": text_content(text)},
            failed,
            where=where,
            field_name="functionResponse.id",
            error_code=code,
            error_message=message,
        )
        name = answer.get("name")
        self.talk.tool(call_id, text, failed, name if isinstance(name, str) else None)

    def _unnamed_call(self, name: Any, event: Mapping[str, Any]) -> str | None:
        """The id made up for the open id-less call a response with no id answers: the
        earliest of its name made by the event its options name, else by any event."""
        options = event.get("options")
        named = member(options, "functionCallEventId") if _is_map(options) else None
        if not isinstance(name, str):
            return None
        keys = ((named, name), (None, name)) if isinstance(named, str) else ((None, name),)
        for key in keys:  # each id is passed over at most once a queue: linear in all
            waiting = self.unnamed.get(key)
            while waiting:
                call_id = waiting.popleft()
                if self.pairer.is_open(call_id):  # (else answered: by the other queue, or an
                    return call_id  # error event)
        return None

    def _error(self, event: Mapping[str, Any], author: str, code: Any, where: str) -> None:
        message = member(event, "errorMessage")
        said = message if isinstance(message, str) else str(code)
        self.tally.add("event:error")
        self.failed.append({"errorCode": code, "errorMessage": message, "author": author})
        for call_id in self.pairer.open_ids():
            if self.made.get(call_id, ("", ""))[0] != author or call_id in self.long_running:
                continue  # another agent's, or waiting by design
            self.pairer.result(
                call_id,
                {"content": text_content(said)},
                True,
                where=where,
                field_name="errorCode",
                error_code=str(code),
                error_message=said,
                extra={"answeredBy": "errorEvent"},
            )

    def finish(self, session: Mapping[str, Any]) -> tuple[list[PromotedRun], list[LoadProblem]]:
        waiting = self.pairer.open_ids()
        by_design = {self.made[i][1] for i in waiting if i in self.long_running}
        unfinished = frozenset(i for i in waiting if i not in self.long_running)
        boundaries = self.pairer.finish(frozenset(by_design), unfinished=unfinished)
        run_id = session.get("id") if isinstance(session.get("id"), str) else "session"
        metadata: dict[str, Any] = {**self.tally.to_metadata()}
        for key in ("appName", "app_name", "userId", "user_id", "state"):
            if key in session:
                metadata[key] = session[key]
        if self.failed:
            metadata["errors"] = self.failed
        if self.pairer.terminal_calls:
            metadata["terminalCalls"] = self.pairer.terminal_calls
        run = PromotedRun(
            run_id=str(run_id),
            boundaries=boundaries,
            source=self.file,
            format="google-adk",
            outcome="failed" if self.failed else "completed",
            answer=self.answer,
            task_key=str(run_id),
            metadata=metadata,
            conversation=self.talk.build(None, self.model),
        )
        return [run], self.pairer.problems


def _said(value: Any) -> str:
    return value if isinstance(value, str) else json_text(value)
