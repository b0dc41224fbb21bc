"""Helpers for the LLM agent's tests (R40, R41): promoted chat suites, a scripted chat client,
and the CI rule for optional packages (a skip on a developer's machine, a failure in CI)."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import workbench as wb
from helpers.paths import SAMPLES, TAU_DEMO, TAU_FULL

CHAT_TRANSCRIPTS: tuple[Path, ...] = (
    SAMPLES / "openai-chat-refund.json",
    SAMPLES / "anthropic-refund.json",
    TAU_DEMO,
    TAU_FULL,
)
"""The bundled chat transcripts: OpenAI chat, Anthropic messages, real tau-bench records."""

OPENAI_REFUND = CHAT_TRANSCRIPTS[0]

RESPONSES_RUN: list[dict[str, Any]] = [
    # Synthetic (written for these tests): a Responses-API run with a failed call and a retry.
    {"type": "message", "role": "developer", "content": "You look up orders."},
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "Order 7?"}]},
    {"type": "function_call", "call_id": "fc_1", "name": "get_order", "arguments": '{"id": 7}'},
    {"type": "function_call_output", "call_id": "fc_1", "output": "Error: timeout"},
    {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Retrying."}],
    },
    {"type": "function_call", "call_id": "fc_2", "name": "get_order", "arguments": '{"id": 7}'},
    {"type": "function_call_output", "call_id": "fc_2", "output": '{"status": "shipped"}'},
    {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Order 7 has shipped."}],
    },
]


def promoted(path: Path) -> wb.Promotion:
    """A bundled transcript promoted with the error rule its format needs."""
    return wb.promote(wb.load_runs(path, error_rule=wb.ErrorRule.prefix("Error:")))


def flipped(promotion: wb.Promotion, boundary: int, task: int = 0) -> wb.Suite:
    """The promoted suite with one boundary of one task flipped to a failure (R32)."""
    return wb.inject(promotion.suite, [wb.Fault(promotion.task_ids[task], boundary, "flip")])


class ScriptedChatClient:
    """A chat client that answers from a list of turns and keeps every request it was sent."""

    name = "scripted-test"

    def __init__(self, turns: Sequence[Mapping[str, Any]], model: str = "test-model") -> None:
        self.model = model
        self.turns = list(turns)
        self.requests: list[wb.ChatRequest] = []

    def complete(self, request: wb.ChatRequest) -> Mapping[str, Any]:
        self.requests.append(request)
        if not self.turns:
            return {"role": "assistant", "content": "I give up."}
        return self.turns.pop(0)


def answer(text: str) -> dict[str, Any]:
    """An assistant turn with text only."""
    return {"role": "assistant", "content": text}


def call(name: str, args: Any, call_id: str = "live_1") -> dict[str, Any]:
    """An assistant turn making one tool call."""
    return {
        "role": "assistant",
        "content": None,
        "toolCalls": [{"id": call_id, "name": name, "args": args}],
    }


def require(module: str) -> ModuleType:
    """Import an optional package: skipped when it is missing, except in CI (CI=true), which
    installs it (.ci/run), where its absence fails the test instead of hiding it."""
    if os.environ.get("CI") == "true":
        import importlib

        found: ModuleType = importlib.import_module(module)
        return found
    skipped: ModuleType = pytest.importorskip(module, reason=f"needs {module} (CI installs it)")
    return skipped
