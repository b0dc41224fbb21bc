"""Building a run's :class:`~workbench.Conversation`, the model's side in one shape (SPEC R40).

Every loader of a format that records the model's side (OpenAI chat and Responses, Anthropic,
and the formats of R34) reads its messages into a :class:`ConversationBuilder`, one neutral
message at a time, and asks it for the conversation at the end. The builder names each tool
message's tool from the call it answers, and infers the tool definitions from the calls when
the recording has none (marking them so). :func:`recorded_tools` reads the three common ways a
request lists its tools.

A format that records one model response as several records (Claude Code writes a line per
content block; a Responses cassette's response output is several items) names the response as
the ``turn``: records of the same turn in a row are one assistant message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .records import Conversation

__all__ = ["ConversationBuilder", "infer_tools", "recorded_tools"]


class ConversationBuilder:
    """Neutral messages in order (shapes in :class:`~workbench.Conversation`), then the record."""

    __slots__ = ("_calls", "_names", "_texts", "_turn", "messages")

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        """The messages so far (a turn's joined texts are put together by :meth:`build`)."""
        self._names: dict[str, str] = {}
        self._calls: list[tuple[str, Any]] = []
        self._turn: str | None = None
        self._texts: dict[int, list[str]] = {}
        """The texts of an assistant turn made of several records, by its message's place:
        joined once, at the end (joining at each record copied the text so far each time)."""

    def system(self, text: str) -> None:
        """A system (or developer) message."""
        self._turn = None
        self.messages.append({"role": "system", "content": text})

    def user(self, text: str) -> None:
        """A user message (its text)."""
        self._turn = None
        self.messages.append({"role": "user", "content": text})

    def assistant(
        self,
        text: str | None,
        calls: Sequence[Mapping[str, Any]] = (),
        *,
        turn: str | None = None,
        fresh: bool = False,
    ) -> None:
        """An assistant turn: its text (``None`` for none) and the tool calls it made, each
        ``{"id", "name", "args"}`` plus any ``x-`` members. With a ``turn`` equal to the last
        assistant message's, the text and calls join that message instead. ``fresh``: the
        call dicts were made for this turn and are kept as they are, not copied."""
        last = self.messages[-1] if self.messages else None
        if turn is not None and turn == self._turn and last is not None:
            if text:
                place = len(self.messages) - 1
                texts = self._texts.get(place)
                if texts is None:
                    texts = self._texts[place] = [last["content"]] if last["content"] else []
                texts.append(text)
            for call in calls:
                self._join(last, call)
            return
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if calls:
            copies = list(calls) if fresh else [dict(call) for call in calls]
            message["toolCalls"] = copies
            for call in copies:
                self._remember(call)
        self.messages.append(message)
        self._turn = turn

    def add_call(self, call: Mapping[str, Any], *, turn: str | None = None) -> None:
        """One more tool call on the last assistant turn (a new turn when the last message is
        not an assistant turn, or is of another ``turn``): formats that record each call as
        its own item use this."""
        self.add_new_call(dict(call), turn=turn)

    def add_new_call(self, call: dict[str, Any], *, turn: str | None = None) -> None:
        """:meth:`add_call` of a call dict made for it, kept as it is rather than copied (the
        usual Responses call, read on the fast path)."""
        messages = self.messages
        last = messages[-1] if messages else None
        if (
            last is not None
            and turn == self._turn
            and (turn is not None or last["role"] == "assistant")
        ):
            last.setdefault("toolCalls", []).append(call)
        else:
            # a new assistant turn of one call (what ``assistant(None, [call], turn=turn)`` does)
            messages.append({"role": "assistant", "content": None, "toolCalls": [call]})
            self._turn = turn
        self._remember(call)

    def _join(self, message: dict[str, Any], call: Mapping[str, Any]) -> None:
        copy = dict(call)
        message.setdefault("toolCalls", []).append(copy)
        self._remember(copy)

    def _remember(self, call: Mapping[str, Any]) -> None:
        """A call's tool by its id (for the tool message that answers it) and its args (for the
        inferred tool definitions)."""
        call_id, name = call["id"], call["name"]
        if type(name) is not str:
            name = str(name)
        self._names[call_id if type(call_id) is str else str(call_id)] = name
        self._calls.append((name, call.get("args")))

    def made(self, call_id: str) -> bool:
        """Whether a call of this id is in the conversation so far."""
        return call_id in self._names

    def tool(self, call_id: str, text: str, is_error: bool, name: str | None = None) -> None:
        """A tool result: the text the model read and whether it was a failure (R3)."""
        self._turn = None
        self.messages.append(
            {
                "role": "tool",
                "toolCallId": call_id,
                "name": name if name is not None else self._names.get(call_id, ""),
                "content": text,
                "isError": is_error,
            }
        )

    def build(
        self, tools: Sequence[Mapping[str, Any]] | None = None, model: Any = None
    ) -> Conversation | None:
        """The conversation (``None`` when no message was read). ``tools``: the recorded tool
        definitions; ``None`` (not recorded) infers them from the calls, marked inferred."""
        if not self.messages:
            return None
        for place, texts in self._texts.items():
            self.messages[place]["content"] = "\n".join(texts)
        self._texts.clear()
        inferred = tools is None
        return Conversation(
            messages=tuple(self.messages),
            tools=infer_tools(self._calls) if tools is None else tuple(dict(t) for t in tools),
            tools_inferred=inferred,
            model=model if isinstance(model, str) and model else None,
        )


_JSON_TYPES: dict[type, str] = {
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


def _json_type_of(kind: type) -> str:
    name = _JSON_TYPES.get(kind)
    if name is not None:
        return name
    for base, base_name in _JSON_TYPES.items():  # a subclass (decoded JSON has none)
        if issubclass(kind, base):
            return base_name
    return "null"


def infer_tools(calls: Sequence[tuple[str, Any]]) -> tuple[dict[str, Any], ...]:
    """Tool definitions inferred from the calls made, in first-use order (R40).

    Each is ``{"name", "inputSchema"}``: an object schema whose properties are the arg names
    seen, each with the JSON types its values had (``"integer"`` and ``"number"`` both kept
    when both were seen); an arg present in every call is required. Calls whose args are not
    an object give ``{"type": "object"}``.
    """
    seen: dict[str, list[Any]] = {}  # in first-use order
    for name, args in calls:
        found = seen.get(name)
        if found is None:
            seen[name] = [args]
        else:
            found.append(args)
    tools: list[dict[str, Any]] = []
    for name, all_args in seen.items():
        objects = [a for a in all_args if isinstance(a, dict)]
        # Calls of one tool mostly pass the same args with the same types: each distinct
        # shape (arg names and value types) is read once, with how often it was seen.
        shapes: dict[tuple[tuple[str, ...], tuple[type, ...]], int] = {}
        for args in objects:
            shape = (tuple(args), tuple(map(type, args.values())))
            shapes[shape] = shapes.get(shape, 0) + 1
        if len(shapes) == 1:  # one shape (the usual tool): each arg of one type, all required
            ((keys, value_types),) = shapes
            if all(type(key) is str for key in keys):  # names as they are, none the same
                tools.append({"name": name, "inputSchema": _one_shape(keys, value_types)})
                continue
        tools.append({"name": name, "inputSchema": _shapes_schema(shapes, len(objects))})
    return tuple(tools)


def _shapes_schema(
    shapes: Mapping[tuple[tuple[Any, ...], tuple[type, ...]], int], objects: int
) -> dict[str, Any]:
    """The schema of a tool whose ``objects`` calls with object args had these shapes (arg
    names and value types), each seen so many times."""
    properties: dict[str, list[str]] = {}
    counts: dict[str, int] = {}
    for (keys, value_types), times in shapes.items():
        for raw_key, value_type in zip(keys, value_types, strict=True):
            key = str(raw_key)
            types = properties.setdefault(key, [])
            kind = _json_type_of(value_type)
            if kind not in types:
                types.append(kind)
            counts[key] = counts.get(key, 0) + times
    schema: dict[str, Any] = {"type": "object"}
    if properties:
        schema["properties"] = {
            key: {"type": types[0] if len(types) == 1 else types}
            for key, types in properties.items()
        }
        required = [key for key in properties if counts[key] == objects]
        if required:
            schema["required"] = required
    return schema


def _one_shape(keys: tuple[str, ...], value_types: tuple[type, ...]) -> dict[str, Any]:
    """:func:`_shapes_schema` of calls whose args all have one shape, its names strings: each
    arg has one type and is required."""
    schema: dict[str, Any] = {"type": "object"}
    if keys:
        schema["properties"] = {
            key: {"type": _json_type_of(kind)} for key, kind in zip(keys, value_types, strict=True)
        }
        schema["required"] = list(keys)
    return schema


def recorded_tools(raw: Any) -> list[dict[str, Any]] | None:
    """Tool definitions a request recorded, as ``{"name", "description"?, "inputSchema"?}``.

    Reads OpenAI chat (``{"type": "function", "function": {"name", "description",
    "parameters"}}``), Responses (``{"type": "function", "name", "parameters"}``) and Anthropic
    (``{"name", "description", "input_schema"}``) tool lists; a hosted tool with no name (a
    Responses ``web_search`` entry) is kept by its ``type`` as its name. ``None`` when ``raw``
    is not a list of tool objects (the tools were not recorded).
    """
    if not isinstance(raw, list) or not raw:
        return None
    tools: list[dict[str, Any]] = []
    for item in raw:
        if not isinstance(item, dict):
            return None
        body: Mapping[str, Any] = item
        if isinstance(item.get("function"), dict):
            body = item["function"]
        name = body.get("name", item.get("type"))
        if not isinstance(name, str) or not name:
            return None
        tool: dict[str, Any] = {"name": name}
        if isinstance(body.get("description"), str):
            tool["description"] = body["description"]
        schema = body.get("parameters", body.get("input_schema", body.get("inputSchema")))
        if isinstance(schema, dict):
            tool["inputSchema"] = dict(schema)
        tools.append(tool)
    return tools
