"""Fault sweeps: replay every variant of a suite x trials and tabulate how the agent recovered.

:func:`sweep` takes a suite (or a promoted run, a run file, a :class:`~workbench.Promotion`:
promoted on the fly), generates its fault variants (R32), replays the baseline and every variant
for the same trials and seed, and returns a :class:`SweepResult`: one row per variant and trial
(``.frame``), each trial's steps (``.steps``), per-boundary aggregates (``.per_boundary()``) and
the branch tree (``.branches()``, R33).

Variants run on any :class:`concurrent.futures.Executor`: in-process by default, a process pool
with ``workers=N``, or a Dask cluster (``distributed.Client(...).get_executor()``). They are
sent in batches per task (not one future per variant), and for generated variants only the
baseline task and each variant's faults travel: workers build the variant suites themselves. Rows
are put back in variant order, so the result is the same whatever the executor.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .._common.canonical import canonical_json
from .._common.jsonio import JSONFileError, read_json
from .._grade.grading import pass_hat_k
from .._load.records import ErrorRule, LoadResult, PromotedRun
from .._replay.host import CallRecord, ServedBy
from .._replay.session import ReplayResult, TaskResult, replay
from .._suite.model import Suite, task_tool_responses
from .variants import (
    FAULT_KINDS,
    Fault,
    FaultKind,
    Variant,
    _check_kinds,
    inject,
    pair_variants,
    single_fault_variants,
    tool_variants,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["BASELINE", "FRAME_COLUMNS", "Step", "SweepResult", "sweep", "sweep_source"]

BASELINE = "baseline"
"""The ``variant`` (and ``kind``) of the baseline's rows in :attr:`SweepResult.frame`."""

FRAME_COLUMNS: tuple[str, ...] = (
    "variant", "taskId", "boundaries", "kind", "trial", "passed", "score", "calls",
    "errorsServed", "fixtureMisses", "outcome", "divergenceStep", "recovered", "trajectory",
)  # fmt: skip
"""The columns of :attr:`SweepResult.frame`, in order."""

PER_BOUNDARY_COLUMNS: tuple[str, ...] = (
    "taskId", "boundary", "tool", "kind", "variants", "trials", "recoveryRate", "passHatK",
    "extraCalls",
)  # fmt: skip

_PROGRESS_MIN_VARIANTS = 50


@dataclass(frozen=True, slots=True)
class Step:
    """One call of a trial, as the branch tree and divergence read it."""

    tool: str
    """The tool called."""
    args_json: str
    """The call's args as canonical JSON (R12: key order and ``1`` vs ``1.0`` do not matter)."""
    is_error: bool
    """Whether the agent received a failure."""
    served_by: ServedBy
    """``fixture``, ``miss`` or ``live``."""

    @property
    def key(self) -> tuple[str, str, bool]:
        """``(tool, args, isError)``: what divergence and the branch tree compare (R33)."""
        return (self.tool, self.args_json, self.is_error)


# -- the work sent to an executor -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Item:
    index: int
    name: str
    faults: tuple[Fault, ...]
    suite_data: dict[str, Any] | None  # None: build it from the batch's base and the faults


@dataclass(frozen=True, slots=True)
class _Batch:
    base: dict[str, Any]  # the baseline suite holding the batch's task only
    items: tuple[_Item, ...]
    trials: int
    seed: int
    agent: Any
    hard_repeats: int
    payload: Any


# (trial, passed, calls, errorsServed, fixtureMisses, outcome, steps)
_TrialOut = tuple[int, bool, int, int, int, str, tuple[Step, ...]]
# (variant index, [(taskId, score, trials)])
_ItemOut = tuple[int, list[tuple[str, float, list[_TrialOut]]]]


class _StepCache:
    """Canonical args text and Step objects reused within a batch (cheaper to make and to
    pickle: a repeated object is sent once)."""

    def __init__(self) -> None:
        self._canon: dict[int, tuple[Any, str]] = {}
        self._steps: dict[tuple[str, str, bool, str], Step] = {}

    def step(self, call: CallRecord) -> Step:
        args = call.args
        held = self._canon.get(id(args))
        if held is not None and held[0] is args:
            text = held[1]
        else:
            text = canonical_json(args)
            self._canon[id(args)] = (args, text)  # holding args keeps its id from being reused
        key = (call.tool, text, call.is_error, call.served_by)
        found = self._steps.get(key)
        if found is None:
            found = self._steps[key] = Step(call.tool, text, call.is_error, call.served_by)
        return found


def _trial_outs(task: TaskResult, cache: _StepCache) -> list[_TrialOut]:
    return [
        (
            r.trial,
            r.passed,
            len(r.calls),
            r.errors_served,
            r.fixture_misses,
            r.decision.outcome,
            tuple(cache.step(c) for c in r.calls),
        )
        for r in task.trials
    ]


def _run_batch(batch: _Batch) -> list[_ItemOut]:
    """Replay a batch of variants (runs in a worker process, or in-process)."""
    cache = _StepCache()
    out: list[_ItemOut] = []
    for item in batch.items:
        if item.suite_data is None:
            suite = inject(
                batch.base,
                item.faults,
                hard_repeats=batch.hard_repeats,
                payload=batch.payload,
                name=item.name,
            )
            validate = False  # derived from the baseline, which was validated once
        else:
            suite = Suite(item.suite_data)
            validate = True
        result = replay(
            suite, batch.agent, trials=batch.trials, seed=batch.seed, events=False,
            validate=validate,
        )  # fmt: skip
        out.append(
            (item.index, [(t.task_id, t.score, _trial_outs(t, cache)) for t in result.tasks])
        )
    return out


# -- the result ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SweepResult:
    """A sweep: the baseline, the variants, one row per variant x trial, and each trial's steps."""

    suite: Suite
    """The baseline suite."""
    baseline_result: ReplayResult
    """The baseline's replay."""
    variants: tuple[Variant, ...]
    """The variants, in sweep order."""
    frame: pd.DataFrame
    """One row per variant x trial, baseline rows first (columns :data:`FRAME_COLUMNS`)."""
    steps: dict[tuple[str, str, int], tuple[Step, ...]]
    """Each trial's steps by ``(variant, taskId, trial)``; the baseline's variant is
    ``"baseline"``."""
    trials: int
    """Trials per variant."""
    seed: int
    """The sweep's seed."""
    kinds: tuple[str, ...] = field(default=())
    """The fault kinds swept (for generated variants)."""

    @property
    def baseline(self) -> dict[str, TaskResult]:
        """The baseline's result per task, by ``taskId``."""
        return {t.task_id: t for t in self.baseline_result.tasks}

    @property
    def task_ids(self) -> tuple[str, ...]:
        """The baseline's task ids, in suite order."""
        return tuple(t.task_id for t in self.baseline_result.tasks)

    def variant(self, name: str) -> Variant:
        """The variant named ``name``."""
        for variant in self.variants:
            if variant.name == name:
                return variant
        raise KeyError(f"no variant {name!r}")

    def per_boundary(self) -> pd.DataFrame:
        """Per task, boundary and kind: how many variants and trials fault it, the recovery
        rate (share of those trials where the agent still met the expectations), pass^k (mean
        over the variants of pass^k at k = trials) and the mean extra calls over the baseline's
        trial. A pair variant counts for both its boundaries."""
        import pandas as pd

        frame = self.frame
        rows = frame[frame["variant"] != BASELINE]
        base_calls = {
            (r.taskId, r.trial): r.calls
            for r in frame[frame["variant"] == BASELINE].itertuples(index=False)
        }
        by_variant: dict[tuple[str, str], list[Any]] = {}
        for r in rows.itertuples(index=False):
            by_variant.setdefault((str(r.variant), str(r.taskId)), []).append(r)
        groups: dict[tuple[str, int, str], list[tuple[str, str]]] = {}
        for variant in self.variants:
            for fault in variant.faults:
                key = (fault.task_id, fault.boundary, fault.kind)
                members = groups.setdefault(key, [])
                if (variant.name, fault.task_id) not in members:
                    members.append((variant.name, fault.task_id))
        task_order = {t: i for i, t in enumerate(self.task_ids)}
        kind_order: dict[str, int] = {k: i for i, k in enumerate(FAULT_KINDS)}
        out: list[dict[str, Any]] = []
        for (task_id, boundary, kind), members in sorted(
            groups.items(),
            key=lambda kv: (task_order.get(kv[0][0], 0), kv[0][1], kind_order.get(kv[0][2], 9)),
        ):
            trial_rows = [r for m in members for r in by_variant.get(m, [])]
            if not trial_rows:
                continue
            hat = [
                pass_hat_k(len(v), sum(bool(r.passed) for r in v), len(v))
                for m in members
                if (v := by_variant.get(m))
            ]
            extra = [r.calls - base_calls.get((task_id, r.trial), 0) for r in trial_rows]
            entries = task_tool_responses(self.suite.task(task_id))
            out.append(
                {
                    "taskId": task_id,
                    "boundary": boundary,
                    "tool": str(entries[boundary].get("tool")) if boundary < len(entries) else "",
                    "kind": kind,
                    "variants": len(members),
                    "trials": len(trial_rows),
                    "recoveryRate": sum(bool(r.recovered) for r in trial_rows) / len(trial_rows),
                    "passHatK": sum(hat) / len(hat),
                    "extraCalls": sum(extra) / len(extra),
                }
            )
        return pd.DataFrame(out, columns=list(PER_BOUNDARY_COLUMNS))

    def branches(self, task_id: str | None = None) -> pd.DataFrame:
        """The branch tree (R33): see :func:`workbench._sweep.branches.branch_tree`."""
        from .branches import branch_tree

        return branch_tree(self, task_id)

    def write_csvs(self, out_dir: str | os.PathLike[str]) -> list[str]:
        """Write ``sweep.csv`` and ``branches.csv`` into ``out_dir`` (atomically); return paths."""
        from .._common.jsonio import write_text_atomic

        os.makedirs(out_dir, exist_ok=True)
        paths = []
        for name, frame in (("sweep.csv", self.frame), ("branches.csv", self.branches())):
            path = os.path.join(os.fspath(out_dir), name)
            write_text_atomic(path, frame.to_csv(index=False, lineterminator="\n"))
            paths.append(path)
        return paths


# -- the sweep --------------------------------------------------------------------------------


def sweep_source(
    source: Any,
    *,
    error_rule: ErrorRule | None = None,
    policy: Any = None,
) -> Suite:
    """The baseline suite of a sweep's source: a :class:`~workbench.Suite` (or its JSON object or
    file), a :class:`~workbench.Promotion`, or a promoted run / run file / load result, promoted
    on the fly with ``policy`` (default: retry once, then abort)."""
    from .._promote.promote import Promotion, promote

    if isinstance(source, Suite):
        return source
    if isinstance(source, Promotion):
        return source.suite
    if isinstance(source, LoadResult | PromotedRun) or (
        isinstance(source, Sequence)
        and not isinstance(source, str)
        and source
        and all(isinstance(r, PromotedRun) for r in source)
    ):
        return promote(source, policy=policy).suite
    if isinstance(source, Mapping):
        return Suite(source)
    if isinstance(source, str | os.PathLike):
        path = os.fspath(source)
        try:
            data = read_json(path)
        except JSONFileError:
            data = None  # JSONL (an OpenWOP log): a run file
        if isinstance(data, Mapping) and isinstance(data.get("tasks"), list):
            return Suite.load(path)
        from .._load.loader import load_runs

        return promote(load_runs(path, error_rule=error_rule), policy=policy).suite
    raise TypeError(f"cannot sweep a {type(source).__name__}: pass a suite, a run file or runs")


def _variants_for(
    suite: Suite,
    faults: str | Sequence[Variant],
    kinds: tuple[FaultKind, ...],
    hard_repeats: int,
    payload: Any,
) -> tuple[list[Variant], bool]:
    """The variants, and whether they were generated (workers can rebuild them from faults)."""
    if isinstance(faults, str):
        if faults == "single":
            found = single_fault_variants(suite, kinds, hard_repeats=hard_repeats, payload=payload)
        elif faults == "pairs":
            found = pair_variants(suite, kinds, hard_repeats=hard_repeats, payload=payload)
        elif faults.startswith("tool:") and len(faults) > 5:
            found = tool_variants(
                suite, faults[5:], kinds, hard_repeats=hard_repeats, payload=payload
            )
        else:
            raise ValueError(f"faults must be 'single', 'pairs' or 'tool:NAME', not {faults!r}")
        return found, True
    found = list(faults)
    for variant in found:
        if not isinstance(variant, Variant):
            raise TypeError(f"faults: expected Variant objects, got {type(variant).__name__}")
    names = [v.name for v in found]
    if len(set(names)) != len(names) or BASELINE in names:
        raise ValueError("variant names must be unique and not 'baseline'")
    return found, False


def _executor_workers(executor: Executor) -> int:
    for attr in ("_max_workers",):
        value = getattr(executor, attr, None)
        if isinstance(value, int) and value > 0:
            return value
    client = getattr(executor, "_client", None)
    if client is not None:
        try:
            return max(1, int(sum(client.nthreads().values())))
        except Exception:  # a client that cannot say: guess from this machine
            pass
    return os.cpu_count() or 1


def _chunks(items: Sequence[_Item], size: int) -> Iterator[tuple[_Item, ...]]:
    for start in range(0, len(items), size):
        yield tuple(items[start : start + size])


def _progress_bar(total: int, progress: bool | None) -> Any:
    if progress is None:
        progress = total > _PROGRESS_MIN_VARIANTS and sys.stderr.isatty()
    if not progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="sweep", unit="variant", file=sys.stderr)


def sweep(
    source: Any,
    *,
    faults: str | Sequence[Variant] = "single",
    kinds: Sequence[str] = ("hard", "transient"),
    trials: int = 1,
    seed: int = 0,
    agent: Any = None,
    executor: Executor | None = None,
    workers: int | None = None,
    progress: bool | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    hard_repeats: int = 3,
    payload: Any = None,
    error_rule: ErrorRule | None = None,
    policy: Any = None,
) -> SweepResult:
    """Replay the baseline and every fault variant x ``trials`` and tabulate them (R32, R33).

    ``faults``: ``"single"`` (every boundary once), ``"pairs"`` (every pair), ``"tool:NAME"``
    (every call of one tool), or your own :class:`~workbench.Variant` list. ``kinds``: the fault
    kinds (``hard``, ``transient``, ``flip``). Each variant runs the same trials with the same
    ``seed`` as the baseline, so a variant's trial is compared with the baseline's trial of the
    same number. ``executor``: any :class:`concurrent.futures.Executor` (not shut down here);
    ``workers=N`` (N > 1) runs a process pool of N; neither: in-process. ``progress``: a tqdm bar
    (``None``: on when stderr is a terminal and there are more than 50 variants).
    ``on_progress(done, total)``: called in this process with the number of variants replayed
    so far and their total, once with ``done = 0`` before the first batch runs and again each
    time a batch completes (in-process or on the executor), ending with ``done == total``; an
    exception it raises stops the sweep (batches already submitted to an executor are
    cancelled where they have not started). The baseline is not counted. The agent
    (default: the scripted agent) must be picklable to run in other processes.
    ``hard_repeats``/``payload``: see :func:`~workbench.inject`. ``error_rule``/``policy``: how
    a run file is promoted on the fly.
    """
    if trials < 1:
        raise ValueError(f"trials must be at least 1, not {trials}")
    suite = sweep_source(source, error_rule=error_rule, policy=policy)
    checked = _check_kinds(kinds)
    # The baseline is validated once (here); variants derived from it skip the schema check.
    baseline = replay(suite, agent, trials=trials, seed=seed, events=False, validate=True)
    variants, generated = _variants_for(suite, faults, checked, hard_repeats, payload)
    items_by_task: dict[str, list[_Item]] = {}
    for index, variant in enumerate(variants):
        data = None if generated else variant.suite.data
        items_by_task.setdefault(variant.task_id, []).append(
            _Item(index, variant.name, variant.faults, data)
        )
    own_pool: Executor | None = None
    if executor is None and workers is not None and workers > 1:
        executor = own_pool = ProcessPoolExecutor(max_workers=workers)
    try:
        outs = _execute(
            suite, items_by_task, executor, workers, trials, seed, agent, hard_repeats, payload,
            _progress_bar(len(variants), progress), on_progress,
        )  # fmt: skip
    finally:
        if own_pool is not None:
            own_pool.shutdown()
    frame, steps = _tabulate(suite, baseline, variants, outs, trials)
    return SweepResult(
        suite=suite,
        baseline_result=baseline,
        variants=tuple(variants),
        frame=frame,
        steps=steps,
        trials=trials,
        seed=seed,
        kinds=checked if generated else (),
    )


def _execute(
    suite: Suite,
    items_by_task: dict[str, list[_Item]],
    executor: Executor | None,
    workers: int | None,
    trials: int,
    seed: int,
    agent: Any,
    hard_repeats: int,
    payload: Any,
    bar: Any,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[int, list[tuple[str, float, list[_TrialOut]]]]:
    root = {k: v for k, v in suite.data.items() if k != "tasks"}
    n_workers = 1 if executor is None else (workers or _executor_workers(executor))
    batches: list[_Batch] = []
    for task_id, items in items_by_task.items():
        base = {**root, "tasks": [suite.task(task_id)]} if task_id else suite.data
        # In-process: small batches for a lively progress bar. Elsewhere: 4 batches per worker,
        # enough to balance the load, few enough that each pays for its trip.
        if executor is None:
            chunks = list(_chunks(items, 16))
        else:
            # Strided, so each batch mixes early and late boundaries (their costs differ).
            count = min(len(items), 4 * n_workers)
            chunks = [tuple(items[k::count]) for k in range(count)]
        batches.extend(
            _Batch(base, chunk, trials, seed, agent, hard_repeats, payload) for chunk in chunks
        )
    outs: dict[int, list[tuple[str, float, list[_TrialOut]]]] = {}
    total = sum(len(b.items) for b in batches)

    def collect(result: list[_ItemOut]) -> None:
        for index, tasks in result:
            outs[index] = tasks
        if bar is not None:
            bar.update(len(result))
        if on_progress is not None:
            on_progress(len(outs), total)

    futures: list[Future[list[_ItemOut]]] = []
    try:
        if on_progress is not None:
            on_progress(0, total)
        if executor is None:
            for batch in batches:
                collect(_run_batch(batch))
        else:
            futures = [executor.submit(_run_batch, b) for b in batches]
            for future in as_completed(futures):
                collect(future.result())
    finally:
        for future in futures:
            future.cancel()  # a no-op for futures done or running
        if bar is not None:
            bar.close()
    return outs


def _divergence(steps: tuple[Step, ...], base: tuple[Step, ...]) -> int | None:
    for index, (a, b) in enumerate(zip(steps, base, strict=False)):
        if a.key != b.key:
            return index
    if len(steps) != len(base):
        return min(len(steps), len(base))
    return None


def _trajectory(steps: tuple[Step, ...]) -> str:
    return " > ".join(f"{s.tool}!" if s.is_error else s.tool for s in steps)


def _tabulate(
    suite: Suite,
    baseline: ReplayResult,
    variants: Sequence[Variant],
    outs: Mapping[int, list[tuple[str, float, list[_TrialOut]]]],
    trials: int,
) -> tuple[pd.DataFrame, dict[tuple[str, str, int], tuple[Step, ...]]]:
    import pandas as pd

    cache = _StepCache()
    steps: dict[tuple[str, str, int], tuple[Step, ...]] = {}
    rows: list[tuple[Any, ...]] = []
    for task in baseline.tasks:
        for t in _trial_outs(task, cache):
            trial, passed, calls, errors, misses, outcome, trial_steps = t
            steps[(BASELINE, task.task_id, trial)] = trial_steps
            rows.append(
                (BASELINE, task.task_id, "", BASELINE, trial, passed, task.score, calls, errors,
                 misses, outcome, None, None, _trajectory(trial_steps))
            )  # fmt: skip
    for index, variant in enumerate(variants):
        boundaries = "+".join(str(b) for b in variant.boundaries)
        for task_id, score, trial_outs in outs[index]:
            for trial, passed, calls, errors, misses, outcome, trial_steps in trial_outs:
                steps[(variant.name, task_id, trial)] = trial_steps
                base = steps.get((BASELINE, task_id, trial), ())
                rows.append(
                    (variant.name, task_id, boundaries, variant.kind, trial, passed, score,
                     calls, errors, misses, outcome, _divergence(trial_steps, base), passed,
                     _trajectory(trial_steps))
                )  # fmt: skip
    frame = pd.DataFrame(rows, columns=list(FRAME_COLUMNS))
    frame = frame.astype(
        {
            "variant": "object",
            "taskId": "object",
            "boundaries": "object",
            "kind": "object",
            "trial": "int64",
            "passed": "bool",
            "score": "float64",
            "calls": "int64",
            "errorsServed": "int64",
            "fixtureMisses": "int64",
            "outcome": "object",
            "divergenceStep": "Int64",
            "recovered": "boolean",
            "trajectory": "object",
        }
    )
    return frame, steps
