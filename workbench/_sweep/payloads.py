"""Error payload presets: the MCP text content a fault serves (R5, R15).

A failed fixture entry's ``response`` is an MCP ``CallToolResult`` body. These presets give the
common failures a tool reports (upstream down, rate limited, timeout, permission denied, invalid
arguments) as one text block holding a small JSON object, and a ``custom`` preset for any text.
The sweep's default injected payload is :func:`error_payload` ``("upstream_down")``.

    >>> error_payload("rate_limited")
    {'content': [{'type': 'text', 'text': '{"error":"rate_limited","status":429}'}]}
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Literal

__all__ = ["PAYLOAD_PRESETS", "PRESETS", "PayloadPreset", "error_payload", "error_text_for"]

PayloadPreset = Literal[
    "upstream_down",
    "rate_limited",
    "timeout",
    "permission_denied",
    "invalid_arguments",
    "custom",
]
"""The preset names; ``custom`` takes its text from the caller."""

PRESETS: Mapping[str, Mapping[str, Any]] = MappingProxyType(
    {
        "upstream_down": MappingProxyType({"error": "upstream_down"}),
        "rate_limited": MappingProxyType({"error": "rate_limited", "status": 429}),
        "timeout": MappingProxyType({"error": "timeout"}),
        "permission_denied": MappingProxyType({"error": "permission_denied", "status": 403}),
        "invalid_arguments": MappingProxyType({"error": "invalid_arguments", "status": 400}),
        "custom": MappingProxyType({}),
    }
)
"""Each preset's JSON object (the text block holds it as compact JSON); ``custom`` has none."""

PRESET_LABELS: Mapping[str, str] = MappingProxyType(
    {
        "upstream_down": "upstream down",
        "rate_limited": "rate limited (429)",
        "timeout": "timeout",
        "permission_denied": "permission denied (403)",
        "invalid_arguments": "invalid arguments (400)",
        "custom": "custom text",
    }
)
"""A short label per preset, for pickers."""

PAYLOAD_PRESETS: Mapping[str, str] = PRESET_LABELS
"""The preset names (in offer order) and their labels: what :func:`error_payload` takes."""


def error_text_for(preset: PayloadPreset | str, text: str | None = None) -> str:
    """The text block of a preset: its JSON object as compact JSON, with ``text`` as its
    ``message`` when given; for ``custom``, ``text`` itself (required)."""
    if preset not in PRESETS:
        raise ValueError(f"unknown payload preset {preset!r}; choose one of {', '.join(PRESETS)}")
    if text is not None and not isinstance(text, str):
        raise TypeError(f"text must be a string, not {type(text).__name__}")
    if preset == "custom":
        if not text:
            raise ValueError("the custom preset needs text")
        return text
    body = dict(PRESETS[preset])
    if text:
        body["message"] = text
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def error_payload(preset: PayloadPreset | str, text: str | None = None) -> dict[str, Any]:
    """An error response as MCP text content: ``{"content": [{"type": "text", "text": ...}]}``.

    ``preset`` is one of :data:`PRESETS`; ``text`` is the custom preset's text, or for the others
    a ``message`` added to the preset's JSON object.
    """
    return {"content": [{"type": "text", "text": error_text_for(preset, text)}]}
