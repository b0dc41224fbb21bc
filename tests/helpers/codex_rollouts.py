"""SYNTHETIC Codex rollouts for tests: a session line, then each call and its output as
``response_item`` lines, in the shape codex-rs writes them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def call_items(
    call_id: str, output: Any, *, name: str = "exec_command", custom: bool = False
) -> list[dict[str, Any]]:
    """A call and its output: a ``function_call`` (``arguments`` ``{}``) and its
    ``function_call_output``, or with ``custom`` a ``custom_tool_call`` (``input`` ``x``) and
    its ``custom_tool_call_output``."""
    kind = "custom_tool_call" if custom else "function_call"
    call: dict[str, Any] = {"type": kind, "name": name, "call_id": call_id}
    call |= {"input": "x"} if custom else {"arguments": "{}"}
    answer = {"type": f"{kind}_output", "call_id": call_id, "output": output}
    return [{"type": "response_item", "payload": p} for p in (call, answer)]


def write_rollout(tmp_path: Path, items: list[dict[str, Any]]) -> Path:
    """``rollout-x.jsonl`` in ``tmp_path``: a ``session_meta`` line, then ``items``."""
    records = [{"type": "session_meta", "payload": {"id": "s", "timestamp": "t"}}, *items]
    path = tmp_path / "rollout-x.jsonl"
    lines = (json.dumps({"timestamp": "2026-01-01T00:00:00Z", **r}) for r in records)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
