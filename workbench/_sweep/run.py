"""Fault sweeps: replay every variant of a suite x trials and tabulate how the agent recovered.

:func:`sweep` takes a suite (or a promoted run, a run file, a :class:`~workbench.Promotion`:
promoted on the fly), generates its fault variants (R32), replays the baseline and every variant
for the same trials and seed, and returns a :class:`~workbench.SweepResult`: one row per variant
and trial (``.frame``), each trial's steps (``.steps``), per-boundary aggregates
(``.per_boundary()``) and the branch tree (``.branches()``, R33).

Variants run on any :class:`concurrent.futures.Executor`: in-process by default, a process pool
with ``workers=N``, or a Dask cluster (``distributed.Client(...).get_executor()``). They are
sent in batches per task (not one future per variant), each carrying the :class:`SweepPlan`;
rows are put back in variant order, so the result is the same whatever the executor.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from typing import Any

from .._common.jsonio import JSONFileError, read_json
from .._common.vocab import BASELINE, FaultKind
from .._load.records import ErrorRule, LoadResult, PromotedRun
from .._replay.scripted import ScriptedAgent
from .._replay.session import agent_id_for, replay
from .._suite.model import Suite, task_tool_responses
from .plan import Batch, FaultOptions, SweepPlan, VariantOutcome, WorkItem, batches_for
from .result import SweepResult, tabulate
from .resume import run_batch
from .variants import (
    Variant,
    check_kinds,
    pair_variants,
    single_fault_variants,
    tool_variants,
)

__all__ = ["baseline_note", "sweep", "sweep_source"]

_PROGRESS_MIN_VARIANTS = 50


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
    options: FaultOptions,
) -> tuple[list[Variant], bool]:
    """The variants, and whether they were generated (workers can rebuild them from faults)."""
    repeats, payload = options.hard_repeats, options.payload
    if isinstance(faults, str):
        if faults == "single":
            found = single_fault_variants(suite, kinds, hard_repeats=repeats, payload=payload)
        elif faults == "pairs":
            found = pair_variants(suite, kinds, hard_repeats=repeats, payload=payload)
        elif faults.startswith("tool:") and len(faults) > 5:
            found = tool_variants(suite, faults[5:], kinds, hard_repeats=repeats, payload=payload)
        else:
            raise ValueError(f"faults must be 'single', 'pairs' or 'tool:NAME', not {faults!r}")
        return found, True
    found = list(faults)
    for variant in found:
        if not isinstance(variant, Variant):
            raise TypeError(f"faults: expected Variant objects, got {type(variant).__name__}")
    names = [v.name for v in found]
    if len(set(names)) != len(names) or BASELINE in names:
        raise ValueError(f"variant names must be unique and not {BASELINE!r}")
    return found, False


MAX_VARIANTS = 100_000
"""The most variants one sweep generates."""
MAX_SWEEP_TRIALS = 200_000
"""The most variant-trials one sweep replays (variants x trials)."""
MAX_SWEEP_CALLS = 50_000_000
"""The most tool calls one sweep of generated faults replays (each variant-trial replays its
task's calls): a run of N calls makes about 2N single-fault variants of N calls each, so work
and memory grow with N squared (a 4,000-call run: 32 million calls, 16 s, 0.8 GB; a 50,000-call
run grew past 14 GB and was refused only by the machine)."""


def _check_size(suite: Suite, faults: Any, kinds: Sequence[str], trials: int) -> int:
    """Refuse a sweep too large to finish before generating it (bounds on work from content).

    Asked before the baseline, which may be long too, and so before the suite is checked: a
    task that is no object counts no boundary. Returns the number of variants (about, for
    generated faults)."""
    if not isinstance(faults, str):
        count = len(faults)
    else:
        responses = [
            task_tool_responses(task) if isinstance(task, Mapping) else [] for task in suite.tasks
        ]
        sizes = [len(entries) for entries in responses]
        if faults == "pairs":
            per_task = [n * (n - 1) // 2 for n in sizes]
        elif faults.startswith("tool:"):  # a variant a task (and kind) faulting all its calls
            per_task = [int(any(e.get("tool") == faults[5:] for e in es)) for es in responses]
        else:
            per_task = sizes
        count = sum(per_task) * len(kinds)
    if count > MAX_VARIANTS:
        raise ValueError(
            f"faults={faults!r} would make about {count} variants, over the limit of "
            f"{MAX_VARIANTS}: choose single faults, one tool, or fewer kinds"
        )
    if count * trials > MAX_SWEEP_TRIALS:
        raise ValueError(
            f"{count} variants x {trials} trials is over the limit of {MAX_SWEEP_TRIALS} "
            "variant-trials per sweep: use fewer trials or fewer faults"
        )
    if isinstance(faults, str):
        calls = sum(v * n for v, n in zip(per_task, sizes, strict=True)) * len(kinds) * trials
        if calls > MAX_SWEEP_CALLS:
            raise ValueError(
                f"{count} variants x {trials} trials would replay about {calls:,} tool calls, "
                f"over the limit of {MAX_SWEEP_CALLS:,} per sweep (a run's calls squared): "
                "sweep one tool (tool:NAME faults), fewer kinds or trials, or a shorter run"
            )
    return count


def _executor_workers(executor: Executor) -> int:
    value = getattr(executor, "_max_workers", None)
    if isinstance(value, int) and value > 0:
        return value
    client = getattr(executor, "_client", None)
    if client is not None:
        try:
            return max(1, int(sum(client.nthreads().values())))
        except Exception:  # a client that cannot say: guess from this machine
            pass
    return os.cpu_count() or 1


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
    kinds (``hard``, ``transient``, ``flip``, and the silent ``empty`` and ``truncated``, R39).
    Each variant runs the same trials with the same
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

    Each variant-trial is marked ``triggered`` when it was served a result the baseline trial
    was not (R37) and ``recovered`` only then (R38). With the scripted agent a variant-trial
    resumes from the baseline's prefix and takes the baseline's rest once it rejoins it, so
    the cost grows with the calls that differ from the baseline. A pairs sweep also runs the
    single faults of the same kinds, for :meth:`~workbench.SweepResult.minimal_failing_pairs`.
    """
    if trials < 1:
        raise ValueError(f"trials must be at least 1, not {trials}")
    suite = sweep_source(source, error_rule=error_rule, policy=policy)
    note = baseline_note(suite, promoted_here=not isinstance(source, Suite | Mapping))
    checked = check_kinds(kinds)
    plan = SweepPlan(trials, seed, agent, FaultOptions(hard_repeats, payload))
    count = _check_size(suite, faults, checked, trials)
    # The baseline is validated once (here); variants derived from it skip the schema check.
    baseline = replay(suite, agent, trials=trials, seed=seed, events=False, validate=True)
    if count == 0 and isinstance(faults, str) and not faults.startswith("tool:"):
        # (said once the suite is known valid; tool_variants names the tools it has)
        raise ValueError("nothing to sweep: the suite has no tool boundary to fault")
    variants, generated = _variants_for(suite, faults, checked, plan.faults)
    items_by_task: dict[str, list[WorkItem]] = {}
    for index, variant in enumerate(variants):
        data = None if generated else variant.suite.data
        items_by_task.setdefault(variant.task_id, []).append(
            WorkItem(index, variant.name, variant.faults, data)
        )
    own_pool: ProcessPoolExecutor | None = None
    if executor is None and workers is not None and workers > 1:
        executor = own_pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init)
    try:
        n_workers = 1 if executor is None else (workers or _executor_workers(executor))
        batches = batches_for(
            suite, items_by_task, plan, in_process=executor is None, workers=n_workers
        )
        outs = _execute(batches, executor, _progress_bar(len(variants), progress), on_progress)
        singles_frame = None
        if faults == "pairs":
            singles = _variants_for(suite, "single", checked, plan.faults)[0]
            single_items: dict[str, list[WorkItem]] = {}
            for index, variant in enumerate(singles):
                single_items.setdefault(variant.task_id, []).append(
                    WorkItem(index, variant.name, variant.faults, None)
                )
            single_batches = batches_for(
                suite, single_items, plan, in_process=executor is None, workers=n_workers
            )
            single_outs = _execute(single_batches, executor, None, None)
            singles_frame = tabulate(baseline, singles, single_outs)[0]
    except BaseException:
        if own_pool is not None:
            _stop_pool(own_pool)  # Ctrl-C or an error: do not wait for the running batches
        raise
    if own_pool is not None:
        own_pool.shutdown()
    frame, steps = tabulate(baseline, variants, outs)
    return SweepResult(
        suite=suite,
        baseline_result=baseline,
        variants=tuple(variants),
        frame=frame,
        steps=steps,
        trials=trials,
        seed=seed,
        kinds=checked if generated else (),
        faults=faults if isinstance(faults, str) else "custom",
        agent_name=agent_id_for(getattr(agent, "agent_id", None))
        if agent is not None
        else ScriptedAgent.agent_id,
        baseline_note=note,
        singles=singles_frame,
    )


def _worker_init() -> None:
    """In a pool worker: Ctrl-C (sent to the whole process group) is the parent's to handle;
    the parent stops the workers, so they do not print interrupt tracebacks of their own. A
    SIGTERM handler inherited from the parent (the command line's) is dropped: SIGTERM ends a
    worker at once."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _stop_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a process pool at once: cancel what has not started, terminate the workers."""
    processes = list(getattr(pool, "_processes", {}).values())  # no public API before 3.14
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(1.0)


def baseline_note(suite: Suite, *, promoted_here: bool = False) -> str:
    """What a sweep's baseline is (R38): the suite as given, as promoted from a recording, or as
    edited after promotion (its fixtures differ from the digest promotion recorded)."""
    from .._promote.promote import fixtures_digest

    info = suite.data.get("x-promotion")
    if not isinstance(info, Mapping):
        return "the suite as given"
    source = str(info.get("source") or "a recording")
    if promoted_here:
        return f"as recorded: promoted from {source} for this sweep"
    digest = info.get("fixturesDigest")
    if not isinstance(digest, str):
        return (
            f"the suite as given, promoted from {source} (whether it was edited since is unknown)"
        )
    if digest == fixtures_digest(suite.data):
        return f"as recorded: the suite promoted from {source}, unedited"
    return f"EDITED: the suite promoted from {source}, with fixtures changed since promotion"


def _execute(
    batches: Sequence[Batch],
    executor: Executor | None,
    bar: Any,
    on_progress: Callable[[int, int], None] | None,
) -> dict[int, VariantOutcome]:
    outs: dict[int, VariantOutcome] = {}
    total = sum(len(b.items) for b in batches)

    def collect(result: list[VariantOutcome]) -> None:
        for outcome in result:
            outs[outcome.index] = outcome
        if bar is not None:
            bar.update(len(result))
        if on_progress is not None:
            on_progress(len(outs), total)

    futures: list[Future[list[VariantOutcome]]] = []
    try:
        if on_progress is not None:
            on_progress(0, total)
        if executor is None:
            runners: dict[int, Any] = {}
            for batch in batches:
                collect(run_batch(batch, runners))
        else:
            futures = [executor.submit(run_batch, b) for b in batches]
            for future in as_completed(futures):
                collect(future.result())
    finally:
        for future in futures:
            future.cancel()  # a no-op for futures done or running
        if bar is not None:
            bar.close()
    return outs
