"""The LLM agent's fields in the Replay tab (R40, R41): a model and an OpenAI-compatible base
URL, offline (the default: only the model cache answers), the model cache file; the agent they
make (:class:`workbench.LLMAgent`), and the words the tabs use for its turns.

The cache defaults to ``NAME.model-cache.jsonl`` in the notebook's folder, never the data's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from workbench import LLMAgent, ModelCache, OpenAIChatClient, ScriptedAgent, TrialResult

from ._escape import esc

if TYPE_CHECKING:
    from ._state import WorkbenchState

__all__ = ["LLMControls", "agent_label", "has_conversation", "model_turns_text"]


def model_turns_text(trials: Sequence[TrialResult]) -> str:
    """Where an LLM agent's model turns came from over ``trials`` (``""`` for other agents)."""
    counted = [t.model_turns for t in trials if t.model_turns is not None]
    if not counted:
        return ""
    recorded = sum(m.recording for m in counted)
    cached = sum(m.cache for m in counted)
    live = sum(m.live for m in counted)
    needs = sum(1 for t in trials if t.needs_model)
    return (
        f"model turns: <b>{recorded:,}</b> recorded, <b>{cached:,}</b> cached, "
        f"<b>{live:,}</b> live; {needs:,} trial(s) needs-model (counted, left out of scores)"
    )


def has_conversation(task: Any) -> bool:
    """Whether a task carries the recorded conversation the LLM agent re-drives (R40)."""
    given = task.get("input") if isinstance(task, Mapping) else None
    conversation = given.get("conversation") if isinstance(given, Mapping) else None
    return isinstance(conversation, Mapping) and isinstance(conversation.get("messages"), list)


def agent_label(agent: Any) -> str:
    """What a sweep runs, in a few words (the agent is picked in the Replay tab)."""
    if agent is None or isinstance(agent, ScriptedAgent):
        return "the scripted agent"
    if isinstance(agent, LLMAgent):
        client = agent.client
        model = getattr(client, "model", None) if client is not None else None
        where = f"model {model}" if model else "the recording only"
        return f"the LLM agent, {where}{', offline' if agent.offline else ''}"
    name = str(getattr(agent, "name", "") or type(agent).__name__)
    return f"{name} (set in the Replay tab)"


class LLMControls:
    """Model, base URL, offline, model cache; :meth:`agent` makes the LLM agent they describe."""

    def __init__(self, wb: WorkbenchState) -> None:
        self._wb = wb
        self.model = w.Text(
            description="model",
            placeholder="its name (empty: the recording only)",
            layout=w.Layout(width="40%"),
        )
        self.model.add_class("wb-llm-model")
        self.base_url = w.Text(
            description="base URL",
            placeholder="OpenAI-compatible, e.g. http://127.0.0.1:8080/v1",
            layout=w.Layout(width="55%"),
        )
        self.base_url.add_class("wb-llm-base-url")
        self.offline = w.Checkbox(
            value=True,
            description="offline: only the model cache answers (no request leaves the kernel)",
            indent=False,
            layout=w.Layout(width="auto"),
        )
        self.offline.add_class("wb-llm-offline")
        self.cache_path = w.Text(
            description="model cache",
            placeholder="NAME.model-cache.jsonl in the notebook's folder",
            style={"description_width": "initial"},
            layout=w.Layout(width="60%"),
        )
        self.cache_path.add_class("wb-llm-cache")
        self.box = w.VBox(
            [w.HBox([self.model, self.base_url]), w.HBox([self.offline, self.cache_path])]
        )
        self.box.add_class("wb-llm")
        self._made: tuple[tuple[Any, ...], LLMAgent] | None = None

    def cache_file(self) -> Path:
        """The LLM agent's model cache: the path typed (relative to the notebook's folder), by
        default ``NAME.model-cache.jsonl`` in the notebook's folder (never the data's)."""
        typed = self.cache_path.value.strip()
        if typed:
            path = Path(typed).expanduser()
            return path if path.is_absolute() else self._wb.folder / path
        source = self._wb.source_path
        stem = Path(source).name.split(".")[0] if source else ""
        stem = stem or str(self._wb.suite.data.get("suiteId") or "") or "workbench"
        return self._wb.folder / f"{stem}.model-cache.jsonl"

    def key(self) -> tuple[Any, ...]:
        return (
            self.model.value.strip(),
            self.base_url.value.strip(),
            bool(self.offline.value),
            str(self.cache_file()),
        )

    def agent(self) -> LLMAgent:
        """The LLM agent the fields describe (one per setting, so its cache is read once)."""
        key = self.key()
        if self._made is not None and self._made[0] == key:
            return self._made[1]
        model, base_url, offline, cache_path = key
        if base_url and not model:
            raise ValueError("a base URL needs a model name: the model to ask at that URL")
        client = OpenAIChatClient.connect(model, base_url=base_url or None) if model else None
        agent = LLMAgent(client, cache=ModelCache(cache_path), offline=offline)
        self._made = (key, agent)
        return agent

    def note(self) -> str:
        """What the LLM agent will do with these fields, on the picked task."""
        model = self.model.value.strip()
        if not model:
            text = (
                "the recording answers each model turn; once the run leaves it (after an edit "
                "changes what the agent sees), a trial ends <b>needs-model</b>: name a model to "
                "answer from the model cache"
            )
            text += "" if self.offline.value else " or a base URL"
        elif self.offline.value:
            text = (
                f"the recording, then the model cache (<b>{esc(model)}</b>'s turns) answer; "
                "offline, so a turn the cache lacks ends <b>needs-model</b>"
            )
        else:
            where = self.base_url.value.strip() or "the OpenAI API ($OPENAI_API_KEY)"
            text = (
                f"the recording, then the model cache, then <b>{esc(model)}</b> at "
                f"<code>{esc(where)}</code> answer; live turns are added to the cache"
            )
        text += f"; cache: <code>{esc(str(self.cache_file()))}</code>"
        task_id = self._wb.task_id
        if task_id:
            try:
                task = self._wb.suite.task(task_id)
            except KeyError:
                task = None
            if task is not None and not has_conversation(task):
                text = (
                    f"task {esc(task_id)} has no recorded conversation, so the LLM agent cannot "
                    "drive it: promote a run that records the model's side (OpenAI chat or "
                    "Responses, Anthropic, tau-bench)"
                )
        return f'<span class="wb-note">{text}</span>'
