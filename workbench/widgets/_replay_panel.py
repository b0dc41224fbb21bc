"""The Replay part: agent, policy, trials, seed, a Run button with a progress bar, the results,
and any two trajectories of the picked task aligned step by step (R17, R33).

Run is one library call, :func:`workbench.replay` (its ``on_trial`` callback feeds the progress
bar), on the picked task or on every task; the baseline is the same call on the suite as loaded.
The scripted agent's default policy applies only to steps with no ``onError``; a promoted suite
gives every step its own, so the part says how many steps each policy reaches and offers to
override them all (``ScriptedAgent(override=...)``).

The LLM agent (:class:`workbench.LLMAgent`, R40, R41) re-drives a task's recorded conversation:
the recording answers each model turn until the run leaves it, then the model cache, then the
model at an OpenAI-compatible base URL. Offline (the default) only the cache may answer, so
nothing leaves the kernel; a turn nobody can answer ends the trial ``needs-model``, counted and
left out of scores. The status counts the turns by where they came from.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from workbench import (
    HostRefusal,
    ReplayResult,
    ScriptedAgent,
    ScriptError,
    Step,
    Suite,
    TrialResult,
    replay,
)

from ._escape import esc, html_table
from ._llm_controls import LLMControls, model_turns_text
from ._trajectory import TrajectoryCompare

if TYPE_CHECKING:
    from ._state import WorkbenchState

__all__ = ["POLICIES", "ReplayPanel", "scoped"]

POLICIES: tuple[tuple[str, Any], ...] = (
    ("abort", "abort"),
    ("skip", "skip"),
    ("retry 1", {"retry": 1}),
    ("retry 3", {"retry": 3}),
)
"""The scripted agent's policies offered (R23)."""

THIS_TASK, ALL_TASKS = "this task", "all tasks"

AGENTS: tuple[tuple[str, str], ...] = (
    ("scripted agent", "scripted"),
    ("LLM agent (recorded conversation)", "llm"),
    ("Python object (wb.agent)", "object"),
)
"""The agents the Replay tab offers (the Sweep tab runs the same one)."""


def scoped(suite: Suite, task_id: str | None) -> Suite:
    """The suite with only ``task_id`` (``None``: every task). Shares the task's JSON."""
    if task_id is None:
        return suite
    return Suite({**suite.data, "tasks": [suite.task(task_id)]})


class ReplayPanel:
    """Agent and policy, trials, seed, Run with progress; results; two trajectories aligned."""

    def __init__(self, wb: WorkbenchState) -> None:
        self._wb = wb
        self.result: ReplayResult | None = None
        """The last replay of the held suite."""
        self.baseline_result: ReplayResult | None = None
        """The last replay of the suite as loaded (same agent, trials, seed and scope)."""
        self.error: BaseException | None = None
        """The last run's error, if it failed."""
        self._baseline_key: tuple[Any, ...] | None = None
        self.agent_choice = w.Dropdown(options=AGENTS, value="scripted", description="agent")
        self.agent_choice.add_class("wb-agent-choice")
        self.llm = LLMControls(wb)
        """The LLM agent's fields (model, base URL, offline, model cache)."""
        self.model, self.base_url = self.llm.model, self.llm.base_url
        self.offline, self.cache_path, self.llm_box = (
            self.llm.offline,
            self.llm.cache_path,
            self.llm.box,
        )
        self.policy = w.Dropdown(
            options=[(label, i) for i, (label, _p) in enumerate(POLICIES)],
            value=0,
            description="default policy",
            style={"description_width": "initial"},
        )
        self.policy.add_class("wb-policy")
        self.override = w.Checkbox(
            value=False,
            description="apply to every step (override the steps' own onError)",
            indent=False,
            layout=w.Layout(width="auto"),
        )
        self.override.add_class("wb-policy-override")
        self.policy_note = w.HTML()
        self.policy_note.add_class("wb-policy-note")
        for control in (
            self.agent_choice,
            self.policy,
            self.override,
            self.model,
            self.base_url,
            self.offline,
        ):
            control.observe(lambda _c: self._show_policy(), names="value")
        self.trials = w.BoundedIntText(value=1, min=1, max=10_000, description="trials")
        self.seed = w.IntText(value=0, description="seed")
        self.scope = w.ToggleButtons(options=[THIS_TASK, ALL_TASKS], value=THIS_TASK)
        self.scope.add_class("wb-replay-scope")
        self.button = w.Button(description="Run", icon="play")
        self.button.add_class("wb-replay-button")
        self.button.add_class("wb-btn-primary")
        self.button.on_click(lambda _b: self.run())
        self.progress = w.IntProgress(value=0, min=0, max=1, description="trials")
        self.progress.add_class("wb-replay-progress")
        self.status = w.HTML()
        self.status.add_class("wb-replay-status")
        self.results = w.HTML()
        self.results.add_class("wb-replay-results")
        self.compare = TrajectoryCompare()
        self.widget = w.VBox(
            [
                w.HBox([self.agent_choice, self.policy, self.override]),
                self.llm_box,
                self.policy_note,
                w.HBox([self.trials, self.seed, self.scope]),
                w.HBox([self.button, self.progress]),
                self.status,
                self.results,
                self.compare.widget,
            ]
        )
        self.widget.add_class("wb-replay")

    # -- agent and policy ----------------------------------------------------------------------

    def agent(self) -> Any:
        """The agent the run uses: the scripted agent with the picked policy, the LLM agent,
        or ``wb.agent``."""
        if self.agent_choice.value == "object":
            if self._wb.agent is None:
                raise ValueError("no agent object: set wb.agent = your_agent in a cell")
            return self._wb.agent
        if self.agent_choice.value == "llm":
            return self.llm.agent()
        policy = POLICIES[self.policy.value][1]
        if self.override.value:
            return ScriptedAgent(override=policy)
        return ScriptedAgent(default_policy=policy)

    def model_cache_path(self) -> Path:
        """The LLM agent's model cache (see :meth:`LLMControls.cache_file`)."""
        return self.llm.cache_file()

    def _agent_key(self) -> tuple[Any, ...]:
        if self.agent_choice.value == "object":
            return ("object", id(self._wb.agent))
        if self.agent_choice.value == "llm":
            return ("llm", *self.llm.key())
        return ("scripted", self.policy.value, bool(self.override.value))

    def _show_policy(self) -> None:
        choice = self.agent_choice.value
        scripted = choice == "scripted"
        self.policy.layout.display = None if scripted else "none"
        self.override.layout.display = None if scripted else "none"
        self.llm_box.layout.display = None if choice == "llm" else "none"
        self.base_url.disabled = bool(self.offline.value)
        if choice == "llm":
            self.policy_note.value = self.llm.note()
            return
        if not scripted:
            self.policy_note.value = (
                '<span class="wb-note">the Python object decides what to do after a failure</span>'
            )
            return
        task_id = self._wb.task_id
        if not task_id:
            self.policy_note.value = ""
            return
        label = POLICIES[self.policy.value][0]
        try:
            script = ScriptedAgent().script_for(self._wb.suite.task(task_id).get("input"))
        except (ScriptError, KeyError) as exc:
            self.policy_note.value = (
                f'<span class="wb-note">task {esc(task_id)} has no script the scripted agent '
                f"can run: {esc(str(exc))}</span>"
            )
            return
        steps = len(script.steps)
        own = sum(1 for s in script.steps if s.on_error is not None)
        if self.override.value:
            text = f"<b>{esc(label)}</b> handles every failed step of task {esc(task_id)}"
            if own:
                text += f" (its {own} step(s) with their own onError included)"
        elif own == steps and steps:
            text = (
                f"all {steps} step(s) of task {esc(task_id)} carry their own onError policy, so "
                f"the default <b>{esc(label)}</b> applies to none of them; tick "
                "<i>apply to every step</i> to use it everywhere"
            )
        elif own:
            text = (
                f"{own} of {steps} step(s) of task {esc(task_id)} carry their own onError "
                f"policy; the default <b>{esc(label)}</b> applies to the other {steps - own}"
            )
        else:
            text = f"the default <b>{esc(label)}</b> applies to all {steps} step(s)"
        self.policy_note.value = f'<span class="wb-note">{text}</span>'

    # -- running -------------------------------------------------------------------------------

    def _scope(self) -> str | None:
        if self.scope.value == ALL_TASKS or not self._wb.task_id:
            return None
        return self._wb.task_id

    def run(self) -> ReplayResult | None:
        """Replay the held suite (the picked task, or all) and the baseline, and show them."""
        self.error = None
        try:
            agent = self.agent()
            trials = int(self.trials.value)
            seed = int(self.seed.value)
            task = self._scope()
            suite = scoped(self._wb.suite, task)
            self.progress.value = 0
            self.progress.max = max(1, trials * len(suite.tasks))
            self.progress.bar_style = ""
            self.status.value = "running&hellip;"

            def tick(_trial: TrialResult) -> None:
                self.progress.value += 1

            result = replay(suite, agent, trials=trials, seed=seed, on_trial=tick)
            key = (self._agent_key(), trials, seed, task, id(self._wb.baseline))
            if self.baseline_result is None or self._baseline_key != key:
                try:
                    base_suite = scoped(self._wb.baseline, task)
                except KeyError:
                    base_suite = None
                self.baseline_result = (
                    None
                    if base_suite is None
                    else replay(base_suite, agent, trials=trials, seed=seed)
                )
                self._baseline_key = key
        except HostRefusal as exc:
            self._fail(exc, json.dumps(exc.body, indent=2, ensure_ascii=False))
            return None
        except Exception as exc:
            self._fail(exc, f"{type(exc).__name__}: {exc}")
            return None
        self.result = result
        self.progress.bar_style = "success"
        verdict = "passed" if result.passed else "failed"
        where = f"task {task}" if task else f"{len(result.tasks)} task(s)"
        self.status.value = (
            f'<span class="wb-note"><b>{verdict}</b> ({esc(where)}): aggregate score '
            f"{result.summary['aggregateScore']:.3g}, {result.fixture_miss_count} fixture "
            "miss(es)</span>"
        )
        turns = model_turns_text([t for task in result.tasks for t in task.trials])
        if turns:
            self.status.value += f'<br><span class="wb-note wb-model-turns">{turns}</span>'
        self.results.value = f'<div class="wb-scrollbox">{self._results_table(result)}</div>'
        self.show_task(self._wb.task_id)
        return result

    def _fail(self, exc: BaseException, text: str) -> None:
        self.error = exc
        self.result = None
        self.progress.bar_style = "danger"
        self.status.value = f'<div class="wb-error"><pre>{esc(text)}</pre></div>'
        self.results.value = ""
        self.compare.clear()

    @staticmethod
    def _results_table(result: ReplayResult) -> str:
        trials = [(t, r) for t in result.tasks for r in t.trials]
        rows: list[list[Any]] = [
            [t.task_id, r.trial, r.passed, t.score, r.fixture_misses, r.decision.outcome]
            for t, r in trials
        ]
        columns = ["task", "trial", "passed", "score", "misses", "outcome"]
        if any(r.model_turns is not None for _t, r in trials):
            columns += ["turns recorded", "cached", "live"]
            for row, (_t, r) in zip(rows, trials, strict=True):
                m = r.model_turns
                row += ["", "", ""] if m is None else [m.recording, m.cache, m.live]
        return html_table(columns, rows)

    # -- the picked task's trajectories --------------------------------------------------------

    def clear(self) -> None:
        """A new suite: forget the results."""
        self.result = None
        self.baseline_result = None
        self._baseline_key = None
        self.clear_messages()
        self.compare.clear()
        self._show_policy()

    def clear_messages(self) -> None:
        """Empty the status, the results and the progress bar."""
        self.status.value = ""
        self.results.value = ""
        self.progress.value = 0
        self.progress.bar_style = ""
        self.error = None

    def _trials(self, which: ReplayResult | None, task_id: str) -> Sequence[TrialResult]:
        if which is None:
            return ()
        try:
            return which.task(task_id).trials
        except KeyError:
            return ()

    def show_task(self, task_id: str) -> None:
        """Offer the picked task's trajectories: the baseline's and this run's, per trial."""
        self._show_policy()
        runs = {"base": self._trials(self.baseline_result, task_id)}
        runs["run"] = self._trials(self.result, task_id)
        sources: list[tuple[str, Hashable]] = []
        for name, label in (("base", "baseline"), ("run", "this run")):
            sources += [(f"{label} \u00b7 trial {t.trial}", (name, t.trial)) for t in runs[name]]
        if not sources:
            self.compare.clear()
            return

        def steps(key: Hashable) -> Sequence[Step]:
            name, trial = key if isinstance(key, tuple) else ("", -1)
            found = runs.get(name, ())
            return found[trial].steps if 0 <= trial < len(found) else ()

        self.compare.set_sources(sources, steps, left=("base", 0), right=("run", 0))
