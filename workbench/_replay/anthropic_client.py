"""The Anthropic chat client: messages through the official ``anthropic`` SDK (R40).

Tool results go back in Anthropic's own shape: ``tool_result`` blocks in a user turn, with
``is_error: true`` and R17's failure text for a failure.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from .chat import ChatRequest, failure_text, request_names
from .chat_clients import SdkConnection, missing_sdk

__all__ = ["AnthropicClient"]

_SDK_ARGUMENTS = frozenset({"max_tokens", "metadata", "stop_sequences", "thinking", "tool_choice"})
"""Parameters passed to ``messages.create`` by name; any other goes in ``extra_body`` (the
anthropic 2.x SDK names no sampling parameter; the API still reads them from the body)."""


class AnthropicClient(SdkConnection):
    """Anthropic messages through the official ``anthropic`` client (R40).

    ``client`` is an ``anthropic.Anthropic`` object; ``model`` the model sent; ``max_tokens``
    the reply's limit unless the agent's parameters set one (the API requires it). System
    messages go in ``system``; tool results go back as ``tool_result`` blocks in a user turn,
    ``is_error: true`` for a failure; consecutive turns of one role are merged, as the API
    expects. The API takes no seed: each trial's seed is still part of the cache key.
    """

    _SDK_OBJECT = "anthropic.Anthropic"

    name = "anthropic"

    def __init__(self, client: Any, model: str, *, max_tokens: int = 1024) -> None:
        self._client = client
        self._connect: dict[str, Any] | None = None
        self.model = model
        self.max_tokens = max_tokens

    @classmethod
    def connect(
        cls,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        max_tokens: int = 1024,
        timeout: float = 600.0,
        max_retries: int = 2,
    ) -> AnthropicClient:
        """A client that makes its own ``anthropic.Anthropic`` on first use (so it pickles);
        ``api_key`` defaults to ``$ANTHROPIC_API_KEY``."""
        client = cls(None, model, max_tokens=max_tokens)
        client._connect = {
            "base_url": base_url,
            "api_key": api_key,
            "timeout": timeout,
            "max_retries": max_retries,
        }
        return client

    @property
    def client(self) -> Any:
        """The ``anthropic.Anthropic`` object requests go through."""
        if self._client is None:
            try:
                import anthropic
            except ImportError as exc:
                raise missing_sdk("anthropic", "llm") from exc
            settings = dict(self._connect or {})
            key = settings.pop("api_key") or os.environ.get("ANTHROPIC_API_KEY")
            self._client = anthropic.Anthropic(api_key=key, **settings)
        return self._client

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        """The keyword arguments of ``client.messages.create`` for ``request``."""
        names = request_names(request)
        system: list[str] = []
        turns: list[dict[str, Any]] = []

        def add(role: str, blocks: list[dict[str, Any]]) -> None:
            if turns and turns[-1]["role"] == role:
                turns[-1]["content"].extend(blocks)
            else:
                turns.append({"role": role, "content": blocks})

        for message in request.messages:
            role = message.get("role")
            text = message.get("content")
            if role == "system":
                system.append(str(text or ""))
            elif role == "user":
                add("user", [{"type": "text", "text": str(text or "")}])
            elif role == "assistant":
                blocks: list[dict[str, Any]] = []
                if text:
                    blocks.append({"type": "text", "text": str(text)})
                for call in message.get("toolCalls") or ():
                    args = call.get("args")
                    blocks.append(
                        {
                            "type": "tool_use",
                            "id": _block_id(str(call["id"])),
                            "name": names.wire(str(call["name"])),
                            "input": dict(args) if isinstance(args, Mapping) else {"value": args},
                        }
                    )
                if blocks:
                    add("assistant", blocks)
            elif role == "tool":
                result: dict[str, Any] = {
                    "type": "tool_result",
                    "tool_use_id": _block_id(str(message.get("toolCallId", ""))),
                }
                if message.get("isError"):
                    result["content"] = failure_text(str(text or ""))
                    result["is_error"] = True
                else:
                    result["content"] = str(text or "")
                add("user", [result])
        body: dict[str, Any] = {"model": self.model, "messages": turns}
        if system:
            body["system"] = "\n\n".join(system)
        if request.tools:
            body["tools"] = [
                {
                    "name": names.wire(str(t["name"])),
                    **({"description": t["description"]} if t.get("description") else {}),
                    "input_schema": dict(t.get("inputSchema") or {"type": "object"}),
                }
                for t in request.tools
            ]
        body["max_tokens"] = self.max_tokens
        extra: dict[str, Any] = {}
        for key, value in request.params.items():
            if key in _SDK_ARGUMENTS:
                body[key] = value
            else:  # sampling parameters the SDK's signature no longer names (temperature, ...)
                extra[key] = value
        if extra:
            body["extra_body"] = extra
        return body

    def complete(self, request: ChatRequest) -> dict[str, Any]:
        """Ask the model for the next turn (one ``messages.create`` call)."""
        reply = self.client.messages.create(**self.request_body(request))
        names = request_names(request)
        texts: list[str] = []
        calls: list[dict[str, Any]] = []
        for block in reply.content:
            kind = getattr(block, "type", None)
            if kind == "text":
                texts.append(str(block.text))
            elif kind == "tool_use":
                calls.append(
                    {
                        "id": str(block.id),
                        "name": names.recorded(str(block.name)),
                        "args": block.input,
                    }
                )
        turn: dict[str, Any] = {"role": "assistant", "content": "\n".join(texts) or None}
        if calls:
            turn["toolCalls"] = calls
        return turn


def _block_id(call_id: str) -> str:
    """A tool-use id as Anthropic accepts it (``[A-Za-z0-9_-]+``)."""
    cleaned = "".join(
        ch if ch.isascii() and (ch.isalnum() or ch in "_-") else "_" for ch in call_id
    )
    return cleaned or "call"
