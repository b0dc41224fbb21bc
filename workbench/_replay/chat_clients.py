"""The OpenAI-compatible chat client: chat completions through the official ``openai`` SDK (R40).

Each chat client turns a neutral :class:`~workbench._replay.chat.ChatRequest` into its API's
own request, calls the model through that API's official client, and reads the reply back as a
neutral assistant turn; each has ``request_body(request)``, the exact arguments it sends, for
people and tests to read. :class:`OpenAIChatClient` wraps an ``openai.OpenAI`` object: the
OpenAI API or any compatible server (vLLM, Ollama, llama.cpp's ``llama_cpp.server``). Tool
results go back as ``role: "tool"`` messages with ``tool_call_id``; the API has no error flag,
so a failure's text (R17's) is prefixed ``Error: ``. ``tool_mode="json"`` is for small local
models whose chat template ignores ``tools`` (see :mod:`workbench._replay.chat`), and
:meth:`OpenAIChatClient.for_llama_cpp_server` sets it up for llama-cpp-python's server.

The other clients: :class:`~workbench._replay.anthropic_client.AnthropicClient` (Anthropic
messages) and :class:`~workbench._replay.local_model.LlamaCppClient` (a local model in process).
The SDKs are optional (``pip install 'workbench[llm]'``); none is imported until it is used.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, Literal

from .chat import (
    ChatRequest,
    WireNames,
    json_mode_messages,
    json_mode_schema,
    parse_json_mode,
    request_names,
    tool_result_text,
)

__all__ = ["OpenAIChatClient", "ToolMode", "missing_sdk"]

ToolMode = Literal["native", "json"]
"""How an OpenAI-compatible client passes tools: the API's ``tools`` (``native``) or the JSON
tool mode of :mod:`workbench._replay.chat` (``json``)."""

_ERROR_PREFIX = "Error: "


def _args_text(args: Any) -> str:
    return json.dumps(args if args is not None else {}, ensure_ascii=False)


def _parse_args(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw) if raw.strip() else {}
        except json.JSONDecodeError:
            return raw
    return raw


def missing_sdk(package: str, extra: str) -> ImportError:
    return ImportError(f"this chat client needs {package}: pip install 'workbench[{extra}]'")


class SdkConnection:
    """What a chat client over an official SDK shares: the SDK object is made on first use from
    the settings ``connect`` kept, and a client pickles as those settings (sweep workers make
    their own SDK object). A client wrapping a caller's own SDK object has no settings and does
    not pickle."""

    _SDK_OBJECT = "an SDK client"
    """The SDK class a wrapped object is (for the pickling refusal)."""
    _client: Any
    _connect: dict[str, Any] | None

    def __getstate__(self) -> dict[str, Any]:
        if self._connect is None:
            name = type(self).__name__
            raise TypeError(
                f"{name} wrapping your own {self._SDK_OBJECT} object does not pickle; "
                f"make it with {name}.connect(...) to send it to sweep workers"
            )
        state = dict(vars(self))
        state["_client"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        vars(self).update(state)


class OpenAIChatClient(SdkConnection):
    """OpenAI-compatible chat completions through the official ``openai`` client (R40).

    ``client`` is an ``openai.OpenAI`` object (any ``base_url``: the OpenAI API, vLLM, Ollama,
    llama.cpp's server); ``model`` the model name sent. ``tool_mode``: ``native`` sends
    ``tools`` and reads ``tool_calls`` (what the OpenAI API and most servers do); ``json``
    describes the tools in the system message and constrains each turn to one JSON call with a
    JSON-schema ``response_format`` (for small local models whose template ignores tools).
    ``error_prefix`` is put before a failed result's text (the API has no error flag).
    ``send_seed`` sends each trial's seed. ``reset_prompt_cache`` sends a one-token completion
    before each request, which makes llama.cpp's server evaluate the next prompt afresh (it
    reuses the previous prompt's cache otherwise, and that changes greedy answers).
    """

    _SDK_OBJECT = "openai.OpenAI"

    name = "openai-chat"

    def __init__(
        self,
        client: Any,
        model: str,
        *,
        tool_mode: ToolMode = "native",
        error_prefix: str = _ERROR_PREFIX,
        send_seed: bool = True,
        reset_prompt_cache: bool = False,
    ) -> None:
        if tool_mode not in ("native", "json"):
            raise ValueError(f"tool_mode must be 'native' or 'json', not {tool_mode!r}")
        self._client = client
        self._connect: dict[str, Any] | None = None
        self.model = model
        self.tool_mode: ToolMode = tool_mode
        self.error_prefix = error_prefix
        self.send_seed = send_seed
        self.reset_prompt_cache = reset_prompt_cache

    @classmethod
    def connect(
        cls,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 600.0,
        max_retries: int = 2,
        **options: Any,
    ) -> OpenAIChatClient:
        """A client that makes its own ``openai.OpenAI`` (on first use, so it pickles and can
        go to sweep workers). ``api_key`` defaults to ``$OPENAI_API_KEY`` (``"unused"`` for a
        local server when unset); ``options`` are the constructor's keywords."""
        client = cls(None, model, **options)
        client._connect = {
            "base_url": base_url,
            "api_key": api_key,
            "timeout": timeout,
            "max_retries": max_retries,
        }
        return client

    @classmethod
    def for_llama_cpp_server(
        cls, base_url: str, model: str, *, timeout: float = 600.0
    ) -> OpenAIChatClient:
        """A client for llama-cpp-python's OpenAI-compatible server: JSON tool mode (its
        ``chatml-function-calling`` format drops tool results), the model's own template, the
        prompt cache reset before each request, no retries."""
        return cls.connect(
            model,
            base_url=base_url,
            api_key="unused",
            timeout=timeout,
            max_retries=0,
            tool_mode="json",
            reset_prompt_cache=True,
        )

    @property
    def client(self) -> Any:
        """The ``openai.OpenAI`` object requests go through."""
        if self._client is None:
            try:
                import openai
            except ImportError as exc:
                raise missing_sdk("openai", "llm") from exc
            settings = dict(self._connect or {})
            key = settings.pop("api_key") or os.environ.get("OPENAI_API_KEY") or "unused"
            self._client = openai.OpenAI(api_key=key, **settings)
        return self._client

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        """The keyword arguments of ``client.chat.completions.create`` for ``request``."""
        names = request_names(request)
        body: dict[str, Any] = {"model": self.model}
        if self.tool_mode == "json":
            body["messages"] = json_mode_messages(request, names, self.error_prefix)
            body["extra_body"] = {
                "response_format": {
                    "type": "json_object",
                    "schema": json_mode_schema(request, names),
                }
            }
        else:
            body["messages"] = [self._native(m, names) for m in request.messages]
            if request.tools:
                body["tools"] = [
                    {
                        "type": "function",
                        "function": {
                            "name": names.wire(str(t["name"])),
                            **({"description": t["description"]} if t.get("description") else {}),
                            "parameters": dict(t.get("inputSchema") or {"type": "object"}),
                        },
                    }
                    for t in request.tools
                ]
        body.update(request.params)
        if self.send_seed:
            body["seed"] = request.seed
        return body

    def _native(self, message: Mapping[str, Any], names: WireNames) -> dict[str, Any]:
        role = message.get("role")
        if role == "tool":
            return {
                "role": "tool",
                "tool_call_id": str(message.get("toolCallId", "")),
                "content": tool_result_text(message, self.error_prefix),
            }
        if role == "assistant":
            out: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
            calls = message.get("toolCalls") or ()
            if calls:
                out["tool_calls"] = [
                    {
                        "id": str(c["id"]),
                        "type": "function",
                        "function": {
                            "name": names.wire(str(c["name"])),
                            "arguments": _args_text(c.get("args")),
                        },
                    }
                    for c in calls
                ]
            return out
        return {"role": str(role), "content": str(message.get("content") or "")}

    def complete(self, request: ChatRequest) -> dict[str, Any]:
        """Ask the model for the next turn (one ``chat.completions.create`` call)."""
        body = self.request_body(request)
        client = self.client
        if self.reset_prompt_cache:
            client.completions.create(model=self.model, prompt="0", max_tokens=1)
        reply = client.chat.completions.create(**body)
        message = reply.choices[0].message
        names = request_names(request)
        if self.tool_mode == "json":
            return parse_json_mode(message.content, names, request)
        turn: dict[str, Any] = {"role": "assistant", "content": message.content}
        calls = [
            {
                "id": str(call.id),
                "name": names.recorded(str(call.function.name)),
                "args": _parse_args(call.function.arguments),
            }
            for call in (message.tool_calls or ())
        ]
        if calls:
            turn["toolCalls"] = calls
        return turn
