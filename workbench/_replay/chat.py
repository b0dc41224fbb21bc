"""What an LLM agent asks a model for, and the chat-client protocol it asks through (R40, R41).

An LLM agent rebuilds a recorded conversation turn by turn. When it needs a turn the recording
cannot give, it makes a :class:`ChatRequest`: the conversation so far in the neutral shape of
:class:`~workbench.Conversation`, the tool definitions, the model, the sampling parameters, and
the seed, task and trial the turn is drawn for. Its :attr:`~ChatRequest.key` (SHA-256 of the
canonical JSON) is what the model cache stores the answer under. A :class:`ChatClient` turns a
request into one API's call and the reply back into a neutral assistant turn
``{"role": "assistant", "content": str | None, "toolCalls": [{"id", "name", "args"}]?}``.

The helpers below are shared by the clients in :mod:`workbench._replay.chat_clients`:
:class:`WireNames` (APIs accept tool names of ``[A-Za-z0-9_-]{1,64}`` only), the failure text
of a tool result (R17's), and the *JSON tool mode* for small local models whose chat template
ignores tool definitions: the tools are described in the system message, each turn is
constrained to one JSON object ``{"tool", "args"}`` or ``{"answer"}`` by a JSON-schema response
format, and earlier calls are shown to the model as that JSON.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from .._common.canonical import canonical_json
from .._common.toolresult import NO_TEXT_ERROR

__all__ = [
    "ChatClient",
    "ChatRequest",
    "WireNames",
    "check_turn",
    "failure_text",
    "json_mode_messages",
    "json_mode_schema",
    "parse_json_mode",
    "request_names",
    "tool_result_text",
    "trial_seed",
]


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """One request for the next assistant turn (R41): everything the answer may depend on."""

    messages: tuple[Mapping[str, Any], ...]
    """The conversation so far, in the neutral shape (system, user, assistant, tool)."""
    tools: tuple[Mapping[str, Any], ...]
    """The tool definitions, ``{"name", "description"?, "inputSchema"?}``."""
    model: str
    """The model asked."""
    client: str
    """Which kind of client asks (``openai-chat``, ``anthropic``, ``llama-cpp``): the same
    messages render differently for each, so a turn cached for one is not served to another."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """Sampling parameters as sent (``temperature``, ``max_tokens``, ``top_p``, ...)."""
    seed: int = 0
    """The seed the turn is drawn with: one per run seed, task and trial (:func:`trial_seed`)."""
    task_id: str = ""
    """The task."""
    trial: int = 0
    """The trial."""

    def to_json(self) -> dict[str, Any]:
        """The request as the model cache stores it (and hashes it)."""
        return {
            "client": self.client,
            "model": self.model,
            "messages": [dict(m) for m in self.messages],
            "tools": [dict(t) for t in self.tools],
            "params": dict(self.params),
            "seed": self.seed,
            "taskId": self.task_id,
            "trial": self.trial,
        }

    @property
    def key(self) -> str:
        """SHA-256 (hex) of the request's canonical JSON: the model cache's key (R41)."""
        return hashlib.sha256(canonical_json(self.to_json()).encode("utf-8")).hexdigest()


@runtime_checkable
class ChatClient(Protocol):
    """A chat model an LLM agent can ask for a turn (R40): OpenAI-compatible chat completions,
    Anthropic messages, a local model, or anything with these three members."""

    @property
    def name(self) -> str:
        """The kind of client (part of every request's cache key)."""
        ...

    @property
    def model(self) -> str:
        """The model it asks."""
        ...

    def complete(self, request: ChatRequest) -> Mapping[str, Any]:
        """The next assistant turn, in the neutral shape (``role``, ``content``,
        ``toolCalls``?). Errors (HTTP, connection) are raised."""
        ...


def trial_seed(seed: int, task_id: str, trial: int) -> int:
    """The seed a trial's model turns are drawn with: the same for a rerun, different for each
    trial and task, so ``trials=N`` shows how the model's choices vary (R41)."""
    digest = hashlib.sha256(f"{seed}\x1f{task_id}\x1f{trial}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def check_turn(turn: Any) -> dict[str, Any]:
    """A client's answer checked and copied as a neutral assistant turn.

    Raises:
        ValueError: it is not ``{"role": "assistant", "content": str | None, "toolCalls"?:
            [{"id": str, "name": str, "args": any}]}``.
    """
    if not isinstance(turn, Mapping) or turn.get("role") != "assistant":
        raise ValueError(f"a chat client must return an assistant turn, not {turn!r:.200}")
    content = turn.get("content")
    if content is not None and not isinstance(content, str):
        raise ValueError("an assistant turn's content must be a string or null")
    out: dict[str, Any] = {"role": "assistant", "content": content}
    calls = turn.get("toolCalls")
    if calls:
        if not isinstance(calls, Sequence) or isinstance(calls, str):
            raise ValueError("an assistant turn's toolCalls must be a list")
        checked: list[dict[str, Any]] = []
        for index, call in enumerate(calls):
            if not (
                isinstance(call, Mapping)
                and isinstance(call.get("id"), str)
                and isinstance(call.get("name"), str)
                and call["name"]
            ):
                raise ValueError(f"toolCalls[{index}] must have a string id and name")
            checked.append({"id": call["id"], "name": call["name"], "args": call.get("args")})
        out["toolCalls"] = checked
    return out


def failure_text(content: str) -> str:
    """The text of a failed result as a model is shown it: its text, or R17's
    ``Tool call failed`` when it has none."""
    return content or NO_TEXT_ERROR


def tool_result_text(message: Mapping[str, Any], error_prefix: str) -> str:
    """A tool message's text for an API with no error flag (OpenAI chat): a failure is prefixed
    ``error_prefix`` (unless its text already starts so), so the model can tell it failed."""
    text = str(message.get("content") or "")
    if not message.get("isError"):
        return text
    text = failure_text(text)
    marker = error_prefix.strip()
    if marker and text.lstrip().startswith(marker):
        return text
    return error_prefix + text


_WIRE_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_NOT_WIRE = re.compile(r"[^A-Za-z0-9_-]")


class WireNames:
    """Tool names as an API accepts them (``[A-Za-z0-9_-]{1,64}``) and back.

    ``billing:lookup`` goes out as ``billing_lookup``; two names that would clash get ``_2``,
    ``_3``, ...; a valid name is kept as it is. :meth:`recorded` maps a name the model answers
    with back to the recorded one.
    """

    __slots__ = ("_back", "_out")

    def __init__(self, names: Iterable[str]) -> None:
        self._out: dict[str, str] = {}
        self._back: dict[str, str] = {}
        for name in names:
            self.wire(name)

    def wire(self, name: str) -> str:
        """The name as sent."""
        found = self._out.get(name)
        if found is not None:
            return found
        base = name if _WIRE_NAME.fullmatch(name) else (_NOT_WIRE.sub("_", name)[:64] or "tool")
        candidate, number = base, 2
        while candidate in self._back:
            suffix = f"_{number}"
            candidate = base[: 64 - len(suffix)] + suffix
            number += 1
        self._out[name] = candidate
        self._back[candidate] = name
        return candidate

    def recorded(self, wire_name: str) -> str:
        """The recorded name of a name the model answered with (unknown names as they are)."""
        return self._back.get(wire_name, wire_name)


def request_names(request: ChatRequest) -> WireNames:
    """Wire names for every tool a request defines or its messages call."""
    names = [str(t.get("name", "")) for t in request.tools]
    for message in request.messages:
        names.extend(str(c.get("name", "")) for c in message.get("toolCalls", ()) or ())
    return WireNames(n for n in names if n)


def _schema_of(tool: Mapping[str, Any]) -> dict[str, Any]:
    schema = tool.get("inputSchema")
    return dict(schema) if isinstance(schema, Mapping) else {"type": "object"}


def json_mode_schema(request: ChatRequest, names: WireNames) -> dict[str, Any]:
    """The JSON schema a turn must match in JSON tool mode: one of ``{"tool": <name>, "args":
    <that tool's input schema>}`` per tool, or ``{"answer": "text"}``."""
    options: list[dict[str, Any]] = [
        {
            "type": "object",
            "properties": {"tool": {"const": names.wire(str(t["name"]))}, "args": _schema_of(t)},
            "required": ["tool", "args"],
        }
        for t in request.tools
    ]
    options.append(
        {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
    )
    return {"anyOf": options}


def _json_mode_prompt(request: ChatRequest, names: WireNames) -> str:
    lines = [
        "You can call tools. To call one, answer with exactly one JSON object "
        '{"tool": "<name>", "args": {...}}; to answer the user, {"answer": "<text>"}.',
        "Tools:",
    ]
    for tool in request.tools:
        description = str(tool.get("description") or "").strip()
        schema = json.dumps(_schema_of(tool), ensure_ascii=False, sort_keys=True)
        head = f"- {names.wire(str(tool['name']))}"
        lines.append(
            f"{head}: {description} args: {schema}" if description else f"{head}: {schema}"
        )
    return "\n".join(lines)


def _call_text(call: Mapping[str, Any], names: WireNames) -> str:
    return json.dumps(
        {"tool": names.wire(str(call["name"])), "args": call.get("args")}, ensure_ascii=False
    )


def json_mode_messages(
    request: ChatRequest, names: WireNames, error_prefix: str
) -> list[dict[str, Any]]:
    """OpenAI-shaped messages for JSON tool mode: the tool prompt joined to the system message
    (or first, when there is none), each assistant turn's calls as their JSON (one a line; a
    text turn as ``{"answer": ...}``), tool results as ``role: tool`` with ``tool_call_id``
    (failures prefixed ``error_prefix``). Every ``content`` is a string: llama.cpp's server
    refuses ``null``."""
    prompt = _json_mode_prompt(request, names)
    out: list[dict[str, Any]] = []
    placed = False
    for message in request.messages:
        role = message.get("role")
        if role == "system":
            text = str(message.get("content") or "")
            if not placed:
                text = f"{text}\n\n{prompt}" if text else prompt
                placed = True
            out.append({"role": "system", "content": text})
        elif role == "user":
            out.append({"role": "user", "content": str(message.get("content") or "")})
        elif role == "assistant":
            calls = message.get("toolCalls") or ()
            if calls:
                text = "\n".join(_call_text(c, names) for c in calls)
            else:
                answer = str(message.get("content") or "")
                text = json.dumps({"answer": answer}, ensure_ascii=False)
            out.append({"role": "assistant", "content": text})
        elif role == "tool":
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": str(message.get("toolCallId", "")),
                    "content": tool_result_text(message, error_prefix),
                }
            )
    if not placed:
        out.insert(0, {"role": "system", "content": prompt})
    return out


def parse_json_mode(text: str | None, names: WireNames, request: ChatRequest) -> dict[str, Any]:
    """A JSON tool mode reply as a neutral turn: ``{"tool", "args"}`` is a call (its id made
    from the request's key, so a rerun gives the same id), ``{"answer"}`` or anything else is
    the text of a reply to the user."""
    raw = text or ""
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return {"role": "assistant", "content": raw}
    if isinstance(value, Mapping) and isinstance(value.get("tool"), str) and value["tool"]:
        call = {
            "id": f"call_{request.key[:16]}",
            "name": names.recorded(value["tool"]),
            "args": value.get("args", {}),
        }
        return {"role": "assistant", "content": None, "toolCalls": [call]}
    if isinstance(value, Mapping) and isinstance(value.get("answer"), str):
        return {"role": "assistant", "content": value["answer"]}
    return {"role": "assistant", "content": raw}
