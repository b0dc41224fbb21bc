"""The error payload editor: a preset picker and a text box, producing MCP text content.

The payload is :func:`workbench.error_payload` of the chosen preset and text; the
preview shows it as escaped JSON.
"""

from __future__ import annotations

import json
from typing import Any

import ipywidgets as w

from workbench import PAYLOAD_PRESETS, error_payload

from ._escape import esc

__all__ = ["PayloadEditor"]


class PayloadEditor:
    """Preset + text -> ``{"content": [{"type": "text", "text": ...}]}``."""

    def __init__(self) -> None:
        self.preset = w.Dropdown(
            options=[(label, name) for name, label in PAYLOAD_PRESETS.items()],
            value="upstream_down",
            description="payload",
        )
        self.preset.add_class("wb-payload-preset")
        self.text = w.Textarea(
            placeholder="message (custom: the whole text)",
            layout=w.Layout(width="40%", height="3.2em"),
        )
        self.text.add_class("wb-payload-text")
        self.preview = w.HTML()
        self.preview.add_class("wb-payload-preview")
        self.preset.observe(self._refresh, names="value")
        self.text.observe(self._refresh, names="value")
        self.widget = w.HBox([self.preset, self.text, self.preview])
        self._refresh()

    def set_enabled(self, enabled: bool) -> None:
        """Enable the editor, or grey it out (for a fault kind that serves no payload)."""
        self.preset.disabled = not enabled
        self.text.disabled = not enabled

    def payload(self) -> dict[str, Any]:
        """The payload the editor shows (ValueError for a custom preset with no text)."""
        return error_payload(self.preset.value, self.text.value or None)

    def _refresh(self, _change: object = None) -> None:
        try:
            shown = json.dumps(self.payload(), ensure_ascii=False)
        except ValueError as exc:
            self.preview.value = f'<span class="wb-error">{esc(str(exc))}</span>'
            return
        self.preview.value = f'<code class="wb-mono">{esc(shown)}</code>'
