"""A sweep the notebook can watch and cancel: :func:`workbench.sweep` over chunks of variants,
in a background thread.

The kernel stays free while it runs (the Run button's handler returns at once, so cells and
clicks are answered), progress is reported per batch, and Cancel stops it at the next batch: the
chunks that finished are kept, merged into one :class:`~workbench.SweepResult`, and labelled
partial. Each chunk is one ``sweep(suite, faults=<those variants>)`` call, so the figures are the
library's; the variants come from :func:`workbench.single_fault_variants` (and its siblings), as
``sweep(faults="single")`` would make them. Chunks are sized from the first one to take about a
second, so a cancel waits at most about that long and the baseline (replayed once per chunk)
stays a small part of the time.

The merge is a concatenation: every chunk replays the same baseline with the same trials and
seed, so its baseline rows are the same and are kept once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from workbench import (
    BASELINE,
    Suite,
    SweepResult,
    Variant,
    pair_variants,
    single_fault_variants,
    sweep,
    tool_variants,
)

__all__ = ["SweepJob", "SweepProgress", "SweepState", "make_variants", "merge_results"]

SweepState = Literal["idle", "running", "cancelling", "cancelled", "done", "failed"]

_FIRST_CHUNK = 4
_TARGET_S = 1.0
_MAX_CHUNK = 256


class _Cancelled(Exception):
    """Raised from ``on_progress`` to stop a chunk at its next batch."""


@dataclass(frozen=True, slots=True)
class SweepProgress:
    """Where a sweep is: ``done`` of ``total`` variants, batches completed so far."""

    done: int
    total: int
    batches: int
    state: SweepState
    seconds: float


def make_variants(
    suite: Suite, faults: str, kinds: Sequence[str], *, hard_repeats: int = 3, payload: Any = None
) -> list[Variant]:
    """The variants ``sweep(suite, faults=faults, kinds=kinds)`` would run."""
    if faults == "single":
        return single_fault_variants(suite, kinds, hard_repeats=hard_repeats, payload=payload)
    if faults == "pairs":
        return pair_variants(suite, kinds, hard_repeats=hard_repeats, payload=payload)
    if faults.startswith("tool:") and len(faults) > 5:
        return tool_variants(suite, faults[5:], kinds, hard_repeats=hard_repeats, payload=payload)
    raise ValueError(f"faults must be 'single', 'pairs' or 'tool:NAME', not {faults!r}")


def merge_results(parts: Sequence[SweepResult], kinds: tuple[str, ...]) -> SweepResult:
    """One result from the results of chunks of one sweep (same suite, baseline, trials, seed)."""
    import pandas as pd

    first = parts[0]
    if len(parts) == 1:
        frames = [first.frame]
    else:
        frames = [first.frame] + [p.frame[p.frame["variant"] != BASELINE] for p in parts[1:]]
    frame = pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    steps: dict[tuple[str, str, int], tuple[Any, ...]] = {}
    for part in parts:
        steps.update(part.steps)
    return SweepResult(
        suite=first.suite,
        baseline_result=first.baseline_result,
        variants=tuple(v for p in parts for v in p.variants),
        frame=frame,
        steps=steps,
        trials=first.trials,
        seed=first.seed,
        kinds=kinds,
    )


class SweepJob:
    """One sweep, run in chunks; :meth:`start` it in a thread or :meth:`run` it here."""

    def __init__(
        self,
        suite: Suite,
        *,
        faults: str = "single",
        kinds: Sequence[str] = ("transient", "hard"),
        trials: int = 1,
        seed: int = 0,
        agent: Any = None,
        hard_repeats: int = 3,
        payload: Any = None,
        on_progress: Callable[[SweepProgress], None] | None = None,
        on_finish: Callable[[SweepJob], None] | None = None,
    ) -> None:
        self.suite = suite
        self.faults = faults
        self.kinds = tuple(kinds)
        self.trials = trials
        self.seed = seed
        self.agent = agent
        self.hard_repeats = hard_repeats
        self.payload = payload
        self.on_progress = on_progress
        self.on_finish = on_finish
        self.state: SweepState = "idle"
        self.result: SweepResult | None = None
        """What has finished so far (every variant once :attr:`state` is ``done``)."""
        self.error: BaseException | None = None
        self.total = 0
        self.done = 0
        self.batches = 0
        self.seconds = 0.0
        self.stopped_after: float | None = None
        """Seconds from :meth:`cancel` to the thread stopping."""
        self._cancel = threading.Event()
        self._cancelled_at: float | None = None
        self._thread: threading.Thread | None = None
        self._start = 0.0

    @property
    def complete(self) -> bool:
        """Whether every variant was swept."""
        return self.state == "done"

    def start(self) -> threading.Thread:
        """Run in a background thread (the kernel stays free); returns the thread."""
        self._thread = threading.Thread(target=self.run, name="workbench-sweep", daemon=True)
        self._thread.start()
        return self._thread

    def join(self, timeout: float | None = None) -> bool:
        """Wait for a started job; True when it has stopped."""
        if self._thread is not None:
            self._thread.join(timeout)
            return not self._thread.is_alive()
        return self.state not in ("running", "cancelling")

    def cancel(self) -> None:
        """Stop at the next batch; what finished is kept."""
        if self.state in ("running", "idle"):
            self._cancelled_at = time.perf_counter()
            self.state = "cancelling"
            self._cancel.set()
            self._report()

    def _report(self) -> None:
        self.seconds = time.perf_counter() - self._start if self._start else 0.0
        if self.on_progress is not None:
            self.on_progress(
                SweepProgress(self.done, self.total, self.batches, self.state, self.seconds)
            )

    def run(self) -> SweepResult | None:
        """Sweep every chunk here (returns the merged result; ``None`` if nothing finished)."""
        self._start = time.perf_counter()
        if self.state == "idle":
            self.state = "running"
        parts: list[SweepResult] = []
        try:
            variants = make_variants(
                self.suite,
                self.faults,
                self.kinds,
                hard_repeats=self.hard_repeats,
                payload=self.payload,
            )
            self.total = len(variants)
            self._report()
            size = _FIRST_CHUNK
            at = 0
            while at < len(variants) and not self._cancel.is_set():
                chunk = variants[at : at + size]
                began = time.perf_counter()
                part = self._sweep(chunk)
                if part is None:
                    break
                parts.append(part)
                at += len(chunk)
                self.done = at
                self.result = merge_results(parts, self.kinds)
                self._report()
                took = max(time.perf_counter() - began, 1e-3)
                size = max(1, min(_MAX_CHUNK, int(len(chunk) * _TARGET_S / took)))
            if self._cancel.is_set() or at < len(variants):
                self.state = "cancelled"
            else:
                self.state = "done"
        except Exception as exc:  # shown by the panel; what finished is kept
            self.error = exc
            self.state = "failed"
        finally:
            if self._cancelled_at is not None:
                self.stopped_after = time.perf_counter() - self._cancelled_at
            self._report()
            if self.on_finish is not None:
                self.on_finish(self)
        return self.result

    def _sweep(self, chunk: Sequence[Variant]) -> SweepResult | None:
        def tick(done: int, total: int) -> None:
            if done:
                self.batches += 1
                self._report_chunk(done)
            if self._cancel.is_set() and done < total:
                raise _Cancelled

        try:
            return sweep(
                self.suite,
                faults=list(chunk),
                trials=self.trials,
                seed=self.seed,
                agent=self.agent,
                progress=False,
                on_progress=tick,
            )
        except _Cancelled:
            return None

    def _report_chunk(self, done_in_chunk: int) -> None:
        # Progress inside a chunk: the variants of finished batches, not yet merged.
        finished = self.done
        self.done = finished + done_in_chunk
        try:
            self._report()
        finally:
            self.done = finished
