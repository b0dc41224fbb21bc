"""A sweep from the widget can be watched and cancelled; what finished is kept (SPEC R32, R33).

The Sweep tab runs :func:`workbench.sweep` over chunks of variants in a background thread: the
Run button returns at once (the kernel stays free), progress comes per batch, and Cancel stops it
at the next batch with the finished chunks merged into one result, labelled partial. The merged
result is the library's own: the same rows as one ``sweep()`` of those variants.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from workbench import Suite, load_runs, promote, single_fault_variants, sweep
from workbench._load.synthetic import write_synthetic_log
from workbench.widgets import Workbench
from workbench.widgets._sweep_job import SweepJob, SweepProgress, merge_results

BILLING = Path(__file__).resolve().parents[1] / "fixtures" / "billing-support.openwop.jsonl"


def billing() -> Suite:
    return promote(load_runs(BILLING)).suite


@pytest.fixture(scope="module")
def long_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cancel") / "long.openwop.jsonl"
    write_synthetic_log(path, n_calls=400, error_every=0)
    return path


@pytest.mark.slow
def test_cancel_stops_within_a_second_and_keeps_the_finished_variants(
    long_run: Path, tmp_path: Path
) -> None:
    """Start from the button, cancel after the first batches: the thread stops within 1 s,
    the finished variants are the result (labelled partial in the status, the table and the
    chart's title), and the kernel's thread was free all along."""
    wb = Workbench(str(long_run), folder=tmp_path)
    panel = wb.sweep_panel
    panel.kinds.value = ("transient", "hard")
    started = time.perf_counter()
    panel.button.click()
    returned = time.perf_counter() - started
    assert returned < 1.0, f"the Run button held the kernel for {returned:.2f} s"
    job = panel.job
    assert job is not None
    deadline = time.monotonic() + 120
    while job.done < 8 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert job.done >= 8 and job.state == "running"
    panel.cancel_button.click()
    # The thread stops at the next batch; drawing what finished (the first chart of a process
    # bundles Vega, about 2 s) happens in the same thread, the kernel still free.
    assert job.join(timeout=120)
    assert str(job.state) == "cancelled"
    assert job.stopped_after is not None and job.stopped_after < 1.0, job.stopped_after
    result = panel.result
    assert result is not None and not panel.complete
    assert 0 < len(result.variants) < job.total == 800
    assert "partial" in panel.status.value and f"of {job.total:,}" in panel.status.value
    assert panel.table.note == "partial sweep (cancelled)"
    assert panel.chart is not None and "partial" in str(panel.chart.spec.get("title"))
    # What was kept is exactly the library's sweep of those variants.
    names = [v.name for v in result.variants]
    direct = sweep(
        wb.suite,
        faults=[
            v for v in single_fault_variants(wb.suite, ("transient", "hard")) if v.name in names
        ],
        progress=False,
    )
    assert result.frame.equals(direct.frame)
    assert not panel.button.disabled and panel.cancel_button.disabled


def test_merged_chunks_are_one_sweep(tmp_path: Path) -> None:
    """Chunks of one sweep merged: the frame, steps and variants of a single ``sweep()``."""
    suite = billing()
    variants = single_fault_variants(suite, ("hard", "transient"))
    parts = [
        sweep(suite, faults=variants[k : k + 5], progress=False) for k in range(0, len(variants), 5)
    ]
    merged = merge_results(parts, ("hard", "transient"))
    whole = sweep(suite, faults="single", kinds=("hard", "transient"), progress=False)
    assert merged.frame.equals(whole.frame)
    assert merged.steps == whole.steps
    assert [v.name for v in merged.variants] == [v.name for v in whole.variants]
    assert merged.per_boundary().equals(whole.per_boundary())


def test_progress_is_reported_per_batch_and_ends_done(tmp_path: Path) -> None:
    suite = billing()
    seen: list[SweepProgress] = []
    job = SweepJob(suite, kinds=("hard", "transient"), on_progress=seen.append)
    result = job.run()
    assert job.complete and result is not None and len(result.variants) == 24
    done = [p.done for p in seen]
    assert done == sorted(done) and done[0] == 0 and done[-1] == 24
    assert seen[-1].state == "done" and seen[-1].batches >= 2


def test_a_job_cancelled_before_it_starts_keeps_nothing_and_says_so(tmp_path: Path) -> None:
    suite = billing()
    job = SweepJob(suite, kinds=("hard",))
    job.cancel()
    assert job.run() is None
    assert job.state == "cancelled" and job.result is None


def test_a_failing_sweep_keeps_what_finished(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sweep that breaks part way (here: the third chunk raises): the error is kept for the
    panel to show, the chunks before it are kept as the result."""
    import workbench.widgets._sweep_job as job_module

    calls = []
    real = job_module.sweep  # type: ignore[attr-defined]

    def breaking(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("the executor broke")
        return real(*args, **kwargs)

    monkeypatch.setattr(job_module, "sweep", breaking)
    monkeypatch.setattr(job_module, "_TARGET_S", 0.0)  # chunks of one variant after the first
    job = SweepJob(billing(), kinds=("hard", "transient"))
    job.run()
    assert job.state == "failed" and "the executor broke" in str(job.error)
    assert job.result is not None and len(job.result.variants) == 4 + 1
