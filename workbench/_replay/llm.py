"""The LLM agent: a recorded conversation re-driven turn by turn (SPEC R40, R41).

:class:`LLMAgent` reads the conversation promotion kept on the task input (R40) and rebuilds it
one message at a time. System and user messages are copied from the recording. Each assistant
turn is served from the recording (a **model fixture**, no model called) while the conversation
so far equals the recorded one, compared as canonical JSON; its tool calls go to the fixture
host like any agent's, and the results come back as tool messages (what the host served: its
text and ``isError``). When a result differs from the recorded one (a fault was injected, or
the host missed), the conversation has **diverged**: from then on each turn comes from the model
cache or the live :class:`~workbench._replay.chat.ChatClient`, and with neither the trial ends
``needs-model`` (R41). A live turn is stored in the cache under the SHA-256 of its request, so a
rerun with the cache calls no model and writes the same bytes (R22).

How a trial ends:

- in step with the recording to its end: ``completed`` with the task's recorded ``answer``
  (what the scripted agent answers), so an unmodified suite passes as the recording did;
- after a divergence, the first model turn without tool calls: ``completed`` with its text (the
  recorded user turns after the divergence no longer apply: nobody simulates the user);
- no model for a turn that needs one (no client, or ``offline`` and not cached):
  ``needs-model``;
- ``max_model_turns`` model turns without an answer: ``failed``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

from .._common.canonical import canonical_json
from .._common.toolresult import ToolResult
from .._common.vocab import NEEDS_MODEL, ModelTurnSource
from .agents import Decision, ModelTurns, TaskContext, ToolInterface
from .chat import ChatClient, ChatRequest, check_turn, trial_seed
from .model_cache import ModelCache

__all__ = ["LLMAgent", "conversation_of"]


def conversation_of(task_input: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The recorded messages and tool definitions of a task input's ``conversation`` (R40).

    Raises:
        ValueError: the task input has no conversation (promote a format that records the
            model's side: OpenAI chat or Responses, Anthropic, ...).
    """
    conversation = task_input.get("conversation") if isinstance(task_input, Mapping) else None
    if not isinstance(conversation, Mapping) or not isinstance(conversation.get("messages"), list):
        raise ValueError(
            "the LLM agent needs the recorded conversation on the task input "
            "(input.conversation); this task has none: promote a format that records the "
            "model's side (OpenAI chat or Responses, Anthropic, ...)"
        )
    messages = [dict(m) for m in conversation["messages"] if isinstance(m, Mapping)]
    raw_tools = conversation.get("tools")
    tools = (
        [dict(t) for t in raw_tools if isinstance(t, Mapping)]
        if isinstance(raw_tools, list)
        else []
    )
    return messages, tools


class _Trial:
    """One trial's state: the conversation so far and whether it still equals the recording."""

    __slots__ = ("counts", "history", "in_step", "recorded")

    def __init__(self, recorded: list[dict[str, Any]]) -> None:
        self.recorded = recorded
        self.history: list[dict[str, Any]] = []
        self.in_step = True
        self.counts: dict[ModelTurnSource, int] = {"recording": 0, "cache": 0, "live": 0}

    def turns(self) -> ModelTurns:
        return ModelTurns(self.counts["recording"], self.counts["cache"], self.counts["live"])

    def append(self, message: dict[str, Any]) -> None:
        """Add a message; leave step with the recording when it differs from the recorded one
        (as canonical JSON; a recorded message served as it is equals itself)."""
        at = len(self.history)
        self.history.append(message)
        if not self.in_step:
            return
        if at >= len(self.recorded):
            self.in_step = False
            return
        recorded = self.recorded[at]
        if message is not recorded and canonical_json(message) != canonical_json(recorded):
            self.in_step = False

    def copy_inputs(self) -> None:
        """Copy the recorded system and user messages that come next."""
        recorded = self.recorded
        while len(self.history) < len(recorded) and recorded[len(self.history)].get("role") in (
            "system",
            "user",
        ):
            self.history.append(recorded[len(self.history)])

    def tool_messages(
        self, calls: Sequence[Mapping[str, Any]], results: Sequence[ToolResult]
    ) -> list[dict[str, Any]]:
        """The tool messages for a turn's results, in the recording's order when in step.

        A result is what the host served (its text and ``isError``); in step, it is put on the
        recorded message that answers the same call (keeping that message's other members),
        so an unchanged result gives an equal message.
        """
        start = len(self.history)
        recorded = self.recorded[start : start + len(calls)] if self.in_step else []
        by_id: dict[str, dict[str, Any]] = {}
        for message in recorded:
            if message.get("role") == "tool":
                by_id.setdefault(str(message.get("toolCallId")), message)
        built: dict[str, dict[str, Any]] = {}
        order: list[str] = []
        for call, result in zip(calls, results, strict=True):
            call_id = str(call.get("id"))
            base = by_id.pop(call_id, None)
            if base is None:
                base = {"role": "tool", "toolCallId": call_id, "name": str(call.get("name"))}
            built.setdefault(call_id, {**base, "content": result.text, "isError": result.is_error})
            order.append(call_id)
        recorded_order = [
            str(m.get("toolCallId")) for m in recorded if str(m.get("toolCallId")) in built
        ]
        if sorted(recorded_order) == sorted(order):
            order = recorded_order
        return [built[call_id] for call_id in dict.fromkeys(order)]


class LLMAgent:
    """An agent that re-drives the recorded conversation, calling a model only after it leaves
    the recording (R40, R41).

    ``client``: a chat client (``OpenAIChatClient``, ``AnthropicClient``, ``LlamaCppClient`` or
    any object with ``name``, ``model`` and ``complete(request)``); ``None``: the recording
    only, so every trial that diverges ends ``needs-model``. ``cache``: a
    :class:`~workbench.ModelCache` or the path of its JSONL file (default: in memory, per
    agent). ``offline``: answer from the cache only (a miss is ``needs-model``, never a call).
    ``params``: sampling parameters sent with every request (``{"temperature": 0,
    "max_tokens": 256}``); they are part of the cache key, as are the model, the messages, the
    tools, each trial's seed, the task and the trial. ``max_model_turns``: the model turns a
    trial may take after a divergence before it is ended ``failed``.
    """

    agent_id = "workbench.llm"

    def __init__(
        self,
        client: ChatClient | None = None,
        *,
        cache: ModelCache | str | os.PathLike[str] | None = None,
        offline: bool = False,
        params: Mapping[str, Any] | None = None,
        max_model_turns: int = 10,
    ) -> None:
        if max_model_turns < 1:
            raise ValueError(f"max_model_turns must be at least 1, not {max_model_turns}")
        self.client = client
        """The chat client asked after a divergence (``None``: none)."""
        self.cache = cache if isinstance(cache, ModelCache) else ModelCache(cache)
        """Where live turns are kept (and looked up first)."""
        self.offline = offline
        """Whether only the cache may answer."""
        self.params: dict[str, Any] = dict(params or {})
        """Sampling parameters sent with every request."""
        self.max_model_turns = max_model_turns
        """Model turns a trial may take after a divergence."""

    def __repr__(self) -> str:
        client = f"{self.client.name}:{self.client.model}" if self.client is not None else "none"
        return f"LLMAgent(client={client!r}, cache={self.cache!r}, offline={self.offline})"

    def run(self, task_input: Any, tools: ToolInterface) -> Decision:
        """Re-drive one trial of the task's recorded conversation against ``tools``."""
        recorded, tool_defs = conversation_of(task_input)
        recorded_answer = task_input.get("answer") if isinstance(task_input, Mapping) else None
        trial = _Trial(recorded)
        model_turns = 0
        while True:
            turn: dict[str, Any] | None = None
            if trial.in_step:
                trial.copy_inputs()
                at = len(trial.history)
                if at == len(recorded):
                    return Decision(
                        "completed",
                        recorded_answer,
                        "the conversation followed the recording to its end",
                        trial.turns(),
                    )
                if recorded[at].get("role") == "assistant":
                    turn = recorded[at]
                    trial.counts["recording"] += 1
                else:
                    trial.in_step = False  # a tool result with no call before it: nothing to serve
            if turn is None:
                if model_turns >= self.max_model_turns:
                    return Decision(
                        "failed",
                        reason=f"no answer after {model_turns} model turn(s)",
                        model_turns=trial.turns(),
                    )
                answered = self._model_turn(trial, tool_defs, tools.context)
                if isinstance(answered, str):
                    return Decision(NEEDS_MODEL, reason=answered, model_turns=trial.turns())
                turn = answered
                model_turns += 1
            trial.append(turn)
            calls = list(turn.get("toolCalls") or ())
            if not calls:
                if not trial.in_step:
                    return Decision(
                        "completed", turn.get("content"), "the model answered", trial.turns()
                    )
                continue
            results = [tools.call(str(call["name"]), call.get("args")) for call in calls]
            for message in trial.tool_messages(calls, results):
                trial.append(message)

    def _model_turn(
        self, trial: _Trial, tool_defs: list[dict[str, Any]], context: TaskContext
    ) -> dict[str, Any] | str:
        """The next turn from the cache or the live client, or why there is none."""
        where = f"message {len(trial.history)}"
        client = self.client
        if client is None:
            return f"the conversation left the recording at {where} and no chat client was given"
        request = ChatRequest(
            messages=tuple(trial.history),
            tools=tuple(tool_defs),
            model=client.model,
            client=client.name,
            params=self.params,
            seed=trial_seed(context.seed, context.task_id, context.trial),
            task_id=context.task_id,
            trial=context.trial,
        )
        cached = self.cache.get(request)
        if cached is not None:
            trial.counts["cache"] += 1
            return cached
        if self.offline:
            return f"offline, and the model cache has no turn for the request at {where}"
        turn = check_turn(client.complete(request))
        # What the cache returns is a JSON round trip: the live turn must read the same.
        turn = check_turn(json.loads(json.dumps(turn)))
        self.cache.put(request, turn)
        trial.counts["live"] += 1
        return turn
