"""The Replay part: agent, trials, seed, a Run button with a progress bar, the results and the
trajectory beside the baseline's, the divergence marked and failed calls marked failed (R17).

Run is one library call, :func:`workbench.replay` (its ``on_trial`` callback feeds the progress
bar); the baseline is the same call on the suite as loaded.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from workbench import HostRefusal, ReplayResult, ScriptedAgent, Step, TrialResult, replay

from ._escape import esc, html_table
from ._trajectory import trajectory_html

if TYPE_CHECKING:
    from ._state import WorkbenchState

__all__ = ["POLICIES", "ReplayPanel"]

POLICIES: tuple[tuple[str, Any], ...] = (
    ("abort", "abort"),
    ("skip", "skip"),
    ("retry 1", {"retry": 1}),
    ("retry 3", {"retry": 3}),
)
"""The scripted agent's default policies offered (for steps with no ``onError``, R23)."""


class ReplayPanel:
    """Agent, trials, seed, Run with progress; results; trajectory vs baseline."""

    def __init__(self, wb: WorkbenchState) -> None:
        self._wb = wb
        self.result: ReplayResult | None = None
        """The last replay of the held suite."""
        self.baseline_result: ReplayResult | None = None
        """The last replay of the suite as loaded (same agent, trials and seed)."""
        self.error: BaseException | None = None
        """The last run's error, if it failed."""
        self._baseline_key: tuple[Any, ...] | None = None
        self.agent_choice = w.Dropdown(
            options=[("scripted agent", "scripted"), ("Python object (wb.agent)", "object")],
            value="scripted",
            description="agent",
        )
        self.policy = w.Dropdown(
            options=[(label, i) for i, (label, _p) in enumerate(POLICIES)],
            value=0,
            description="default policy",
            style={"description_width": "initial"},
        )
        self.agent_choice.observe(self._on_agent_choice, names="value")
        self.trials = w.BoundedIntText(value=1, min=1, max=10_000, description="trials")
        self.seed = w.IntText(value=0, description="seed")
        self.button = w.Button(description="Run", button_style="success", icon="play")
        self.button.add_class("wb-replay-button")
        self.button.on_click(lambda _b: self.run())
        self.progress = w.IntProgress(value=0, min=0, max=1, description="trials")
        self.progress.add_class("wb-replay-progress")
        self.status = w.HTML()
        self.status.add_class("wb-replay-status")
        self.results = w.HTML()
        self.results.add_class("wb-replay-results")
        self.pick = w.Dropdown(description="trial", options=[], layout=w.Layout(width="50%"))
        self.pick.observe(lambda _c: self.show_trajectory(), names="value")
        self.trajectory = w.HTML()
        self.trajectory.add_class("wb-trajectory")
        self.widget = w.VBox(
            [
                w.HBox([self.agent_choice, self.policy]),
                w.HBox([self.trials, self.seed]),
                w.HBox([self.button, self.progress]),
                self.status,
                self.results,
                self.pick,
                self.trajectory,
            ]
        )
        self.widget.add_class("wb-replay")

    def _on_agent_choice(self, _change: object) -> None:
        self.policy.layout.display = None if self.agent_choice.value == "scripted" else "none"

    def agent(self) -> Any:
        """The agent the run uses: the scripted agent with the picked policy, or ``wb.agent``."""
        if self.agent_choice.value == "object":
            if self._wb.agent is None:
                raise ValueError("no agent object: set wb.agent = your_agent in a cell")
            return self._wb.agent
        return ScriptedAgent(default_policy=POLICIES[self.policy.value][1])

    def _count(self, suite_trials: int | None) -> int:
        views = self._wb.suite.views()
        if suite_trials is not None:
            return suite_trials * len(views)
        return sum(view.trials for view in views)

    def run(self) -> ReplayResult | None:
        """Replay the held suite (and the baseline, once per agent/trials/seed)."""
        self.error = None
        try:
            agent = self.agent()
            trials = int(self.trials.value)
            seed = int(self.seed.value)
            self.progress.value = 0
            self.progress.max = max(1, self._count(trials))
            self.progress.bar_style = ""
            self.status.value = "running&hellip;"

            def tick(_trial: TrialResult) -> None:
                self.progress.value += 1

            result = replay(self._wb.suite, agent, trials=trials, seed=seed, on_trial=tick)
            key = (
                id(agent) if self.agent_choice.value == "object" else self.policy.value,
                trials,
                seed,
            )
            if self.baseline_result is None or self._baseline_key != key:
                self.baseline_result = replay(self._wb.baseline, agent, trials=trials, seed=seed)
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
        self.status.value = (
            f"<b>{verdict}</b>: aggregate score {result.summary['aggregateScore']:.3g}, "
            f"{result.fixture_miss_count} fixture miss(es)"
        )
        self.results.value = self._results_table(result)
        self.pick.options = [
            (f"{t.task_id} / trial {r.trial}", (t.task_id, r.trial))
            for t in result.tasks
            for r in t.trials
        ]
        self.pick.index = 0 if self.pick.options else None
        self.show_trajectory()
        return result

    def _fail(self, exc: BaseException, text: str) -> None:
        self.error = exc
        self.result = None
        self.progress.bar_style = "danger"
        self.status.value = (
            f'<pre class="wb-error" style="color:#b00020;white-space:pre-wrap">{esc(text)}</pre>'
        )
        self.results.value = ""
        self.trajectory.value = ""
        self.pick.options = []

    @staticmethod
    def _results_table(result: ReplayResult) -> str:
        rows = [
            [t.task_id, r.trial, r.passed, t.score, r.fixture_misses, r.decision.outcome]
            for t in result.tasks
            for r in t.trials
        ]
        return html_table(["task", "trial", "passed", "score", "misses", "outcome"], rows)

    def show_trajectory(self) -> None:
        """Show the picked trial's trajectory beside the baseline's same trial."""
        if self.result is None or not self.pick.value:
            self.trajectory.value = ""
            return
        task_id, trial = self.pick.value
        steps = self.result.task(task_id).trials[trial].steps
        base: Sequence[Step] = ()
        if self.baseline_result is not None:
            try:
                base_task = self.baseline_result.task(task_id)
            except KeyError:
                base_task = None
            if base_task is not None and trial < len(base_task.trials):
                base = base_task.trials[trial].steps
        self.trajectory.value = trajectory_html(base, steps)
