"""Fault sweeps (SPEC R32): rows, divergence, recovery, executors, determinism, the CLI."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest

from helpers.frames import rows
from helpers.paths import BILLING
from helpers.suites import three_boundary_suite
from workbench import FRAME_COLUMNS, Fault, Variant, inject, load_runs, promote, sweep
from workbench.cli import main


def test_sweep_rows_match_hand_computed_expectations() -> None:
    """R32: one row per variant x trial; divergence and recovery as worked out by hand."""
    result = sweep(three_boundary_suite(), progress=False)
    assert list(result.frame.columns) == list(FRAME_COLUMNS)
    columns = ["variant", "boundaries", "kind", "passed", "calls", "errorsServed", "outcome",
               "divergenceStep", "recovered", "trajectory"]  # fmt: skip
    assert rows(result.frame, columns) == [
        ("baseline", "", "baseline", True, 3, 0, "completed", None, None, "a > b > c"),
        ("b00-hard", "0", "hard", False, 2, 2, "failed", 0, False, "a! > a!"),
        ("b00-transient", "0", "transient", True, 4, 1, "completed", 0, True, "a! > a > b > c"),
        ("b01-hard", "1", "hard", False, 2, 1, "failed", 1, False, "a > b!"),
        ("b01-transient", "1", "transient", False, 2, 1, "failed", 1, False, "a > b!"),
        ("b02-hard", "2", "hard", True, 3, 1, "completed", 2, True, "a > b > c!"),
        ("b02-transient", "2", "transient", True, 3, 1, "completed", 2, True, "a > b > c!"),
    ]
    assert result.frame["divergenceStep"].dtype == "Int64"
    assert result.frame["recovered"].dtype == "boolean"
    assert result.steps[("b00-transient", "t", 0)][0].key == ("a", '{"x":1}', True)


def test_divergence_is_na_when_the_trajectory_equals_the_baselines() -> None:
    """R33: a flip on an entry that already fails changes nothing: no divergence."""
    suite = three_boundary_suite()
    suite.tasks[0]["fixtures"]["toolResponses"][2]["isError"] = True
    result = sweep(suite, kinds=["flip"], progress=False)
    row = result.frame.set_index("variant").loc["b02-flip"]
    assert row["divergenceStep"] is pd.NA and bool(row["passed"])


def test_divergence_of_a_prefix_is_where_the_shorter_trajectory_ends() -> None:
    """A trajectory that stops early diverges at the first step it does not make."""
    suite = three_boundary_suite()
    variant = inject(suite, [Fault("t", 2, "hard")])
    variant.tasks[0]["input"] = {**variant.tasks[0]["input"],
                                 "script": variant.tasks[0]["input"]["script"][:2]}  # fmt: skip
    result = sweep(suite, faults=[Variant("short", (Fault("t", 2, "hard"),), variant)],
                   progress=False)  # fmt: skip
    assert result.frame.set_index("variant").loc["short", "divergenceStep"] == 2


def test_per_boundary_rates_and_extra_calls_match_hand_computed() -> None:
    """Per-boundary recovery rate, pass^k and extra calls over the baseline's trial."""
    table = sweep(three_boundary_suite(), trials=2, progress=False).per_boundary()
    got = rows(table, ["boundary", "kind", "variants", "trials", "recoveryRate", "passHatK",
                       "extraCalls"])  # fmt: skip
    assert got == [
        (0, "hard", 1, 2, 0.0, 0.0, -1.0),
        (0, "transient", 1, 2, 1.0, 1.0, 1.0),
        (1, "hard", 1, 2, 0.0, 0.0, -1.0),
        (1, "transient", 1, 2, 0.0, 0.0, -1.0),
        (2, "hard", 1, 2, 1.0, 1.0, 0.0),
        (2, "transient", 1, 2, 1.0, 1.0, 0.0),
    ]


def test_billing_recovers_from_every_transient_and_fails_every_hard_fault() -> None:
    """R32 acceptance: retry once then abort survives a transient fault, never a hard one."""
    result = sweep(BILLING, progress=False)
    variants = result.frame[result.frame["variant"] != "baseline"]
    assert len(variants) == 24
    assert bool(result.frame.iloc[0]["passed"])
    transient = variants[variants["kind"] == "transient"]
    hard = variants[variants["kind"] == "hard"]
    assert len(transient) == len(hard) == 12
    assert transient["recovered"].all()
    assert not hard["recovered"].any()
    assert set(hard["outcome"]) == {"failed"}


def test_sweep_promotes_a_run_on_the_fly_like_promote() -> None:
    """A run file, a load result and a promoted suite give the same sweep."""
    a = sweep(BILLING, progress=False).frame
    b = sweep(load_runs(BILLING), progress=False).frame
    c = sweep(promote(load_runs(BILLING)), progress=False).frame
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(a, c)


def test_same_frame_in_process_and_on_a_process_pool() -> None:
    """Results do not depend on the executor (rows sorted by variant order, trial)."""
    suite = promote(load_runs(BILLING)).suite
    local = sweep(suite, faults="pairs", kinds=["hard", "transient", "flip"], trials=2,
                  progress=False)  # fmt: skip
    with ProcessPoolExecutor(2) as pool:
        pooled = sweep(suite, faults="pairs", kinds=["hard", "transient", "flip"], trials=2,
                       executor=pool, progress=False)  # fmt: skip
    by_workers = sweep(suite, faults="pairs", kinds=["hard", "transient", "flip"], trials=2,
                       workers=2, progress=False)  # fmt: skip
    # a worker keeps its last batch's baseline for the next batch of the same task; a thread
    # pool's workers each keep their own (never one runner on two threads)
    with ThreadPoolExecutor(2) as threads:
        threaded = sweep(suite, faults="pairs", kinds=["hard", "transient", "flip"], trials=2,
                         executor=threads, progress=False)  # fmt: skip
    pd.testing.assert_frame_equal(local.frame, pooled.frame)
    pd.testing.assert_frame_equal(local.frame, by_workers.frame)
    pd.testing.assert_frame_equal(local.frame, threaded.frame)
    assert local.steps == pooled.steps == threaded.steps
    pd.testing.assert_frame_equal(local.branches(), pooled.branches())


def test_same_frame_on_a_dask_local_cluster() -> None:
    """The sweep runs on a Dask cluster's executor with identical results."""
    distributed = pytest.importorskip("distributed")
    suite = promote(load_runs(BILLING)).suite
    local = sweep(suite, faults="pairs", progress=False)
    with (
        distributed.LocalCluster(
            n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        remote = sweep(suite, faults="pairs", executor=client.get_executor(), progress=False)
    pd.testing.assert_frame_equal(local.frame, remote.frame)
    assert local.steps == remote.steps


def test_same_seed_same_csv_bytes(tmp_path: Path) -> None:
    """Determinism: the same inputs and seed give the same CSV bytes."""
    first = sweep(BILLING, kinds=["hard", "transient", "flip"], trials=2, seed=7, progress=False)
    second = sweep(BILLING, kinds=["hard", "transient", "flip"], trials=2, seed=7, progress=False)
    paths_a = first.write_csvs(tmp_path / "a", parents=True)
    paths_b = second.write_csvs(tmp_path / "b", parents=True)
    for a, b in zip(paths_a, paths_b, strict=True):
        assert Path(a).read_bytes() == Path(b).read_bytes()


def test_choose_policy_trials_compare_with_the_same_baseline_trial() -> None:
    """Each variant's trial diverges from the baseline's trial of the same number and seed."""
    suite = three_boundary_suite()
    suite.tasks[0]["input"]["script"][0]["onError"] = {
        "choose": [{"p": 0.5, "policy": {"retry": 1}}, {"p": 0.5, "policy": "abort"}]
    }
    result = sweep(suite, kinds=["transient"], trials=6, seed=3, progress=False)
    b0 = result.frame[result.frame["variant"] == "b00-transient"]
    assert set(b0["passed"]) == {True, False}  # the draw differs between trials
    assert list(result.frame[result.frame["variant"] == "baseline"]["passed"]) == [True] * 6
    again = sweep(suite, kinds=["transient"], trials=6, seed=3, progress=False)
    pd.testing.assert_frame_equal(result.frame, again.frame)


def test_tool_faults_and_bad_faults_argument() -> None:
    """faults='tool:NAME' sweeps every call of one tool; anything else is refused."""
    result = sweep(BILLING, faults="tool:billing:get-invoice", progress=False)
    assert [v.name for v in result.variants] == [
        "tool:billing:get-invoice-hard", "tool:billing:get-invoice-transient",
    ]  # fmt: skip
    assert list(result.frame["boundaries"][1:]) == ["5+8", "5+8"]
    with pytest.raises(ValueError, match="faults must be"):
        sweep(BILLING, faults="everything", progress=False)


def test_cli_sweep_writes_outputs_and_prints_the_recovery_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`workbench sweep RUN --out DIR` writes the sweep CSVs and prints per-boundary recovery."""
    code = main([
        "sweep", str(BILLING), "--kind", "transient", "--kind", "flip", "--trials", "2",
        "--out", str(tmp_path),
    ])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "recoveryRate" in out and "billing:lookup" in out
    frame = pd.read_csv(tmp_path / "sweep.csv")
    assert len(frame) == 2 * (1 + 24)
    assert (tmp_path / "branches.csv").exists()


def test_cli_sweep_of_many_boundaries_prints_per_kind_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R38 in a terminal at scale: past 60 boundary rows the CLI prints the per task x kind and
    per kind figures with their untriggered counts (every boundary's go to recovery.csv)."""
    from workbench._load.synthetic import write_synthetic_log

    log = tmp_path / "run.jsonl"
    write_synthetic_log(log, n_calls=100, runs=2)  # 50 calls a task, every 50th failed
    code = main(["sweep", str(log), "--out", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "200 boundary x kind rows: per boundary in recovery.csv; per kind here"
    assert lines[1].split() == ["taskId", "kind", "variantTrials", "triggered", "untriggered",
                                "recovered", "recoveryRate", "low95", "high95"]  # fmt: skip
    table = pd.read_csv(tmp_path / "out" / "recovery.csv")
    printed = [line.split() for line in lines[2:8]]
    expected = table[table["level"].isin(["task-kind", "kind"])]
    assert len(printed) == len(expected) == 6
    for cells, row in zip(printed, expected.to_dict("records"), strict=True):
        assert cells[-7:-3] == [str(row[c]) for c in ("variantTrials", "triggered",
                                                      "untriggered", "recovered")]  # fmt: skip
    assert int(table[table["level"] == "overall"]["untriggered"].iloc[0]) > 0
    assert len(table[table["level"] == "boundary"]) == 200


def test_cli_sweep_reports_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bad --faults value is a clear error with exit code 2."""
    code = main(["sweep", str(BILLING), "--faults", "nope", "--out", str(tmp_path)])
    assert code == 2
    assert "faults must be" in capsys.readouterr().err


def test_on_progress_counts_variants_batch_by_batch_in_process() -> None:
    """R32 sweep progress: (0, total) first, then one call per completed batch of 4 (small, so
    a widget's Cancel waits at most one), ending at (total, total); the baseline is not counted."""
    suite = promote(load_runs(BILLING)).suite
    calls: list[tuple[int, int]] = []
    result = sweep(suite, kinds=["hard", "transient"], progress=False,
                   on_progress=lambda done, total: calls.append((done, total)))  # fmt: skip
    assert len(result.variants) == 24
    assert calls == [(0, 24)] + [(done, 24) for done in range(4, 25, 4)]


@pytest.mark.parametrize("how", ["executor", "workers"])
def test_on_progress_is_called_in_this_process_as_executor_batches_complete(how: str) -> None:
    """With an executor the callback runs here (not in the workers), once per batch, rising."""
    suite = promote(load_runs(BILLING)).suite
    calls: list[tuple[int, int]] = []

    def record(done: int, total: int) -> None:
        calls.append((done, total))

    if how == "executor":
        with ProcessPoolExecutor(2) as pool:
            sweep(suite, faults="pairs", executor=pool, progress=False, on_progress=record)
    else:
        sweep(suite, faults="pairs", workers=2, progress=False, on_progress=record)
    total = 66 * 2  # C(12, 2) pairs x 2 kinds
    assert calls[0] == (0, total)
    assert calls[-1] == (total, total)
    assert len(calls) == 1 + 4 * 2  # 4 batches per worker
    dones = [done for done, _ in calls]
    assert dones == sorted(dones) and len(set(dones)) == len(dones)
    assert {t for _, t in calls} == {total}


def test_an_exception_in_on_progress_stops_the_sweep() -> None:
    """A callback can cancel a sweep by raising; the error reaches the caller."""
    suite = promote(load_runs(BILLING)).suite
    calls: list[int] = []

    def stop(done: int, total: int) -> None:
        calls.append(done)
        if done > 0:
            raise KeyboardInterrupt("stop")

    with pytest.raises(KeyboardInterrupt, match="stop"):
        sweep(suite, faults="pairs", progress=False, on_progress=stop)
    assert calls == [0, 4]  # stopped after its first batch of 4
