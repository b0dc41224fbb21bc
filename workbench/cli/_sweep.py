"""``workbench sweep INPUT`` and ``workbench demo``: fault sweeps with their reports (R32, R33)."""

from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from workbench import (
    BASELINE,
    NEEDS_MODEL,
    ErrorRule,
    HostRefusal,
    JSONFileError,
    LoadError,
    SuiteError,
    SweepResult,
    sweep,
    write_report,
)

from ._common import fail, print_table
from ._llm import add_agent_arguments, agent_from_args

_ROOT = Path(__file__).resolve().parents[2]
DEMO_INPUTS: tuple[tuple[str, str, str | None], ...] = (
    ("billing", "fixtures/billing-support.openwop.jsonl", None),
    ("tau-bench", "fixtures/tau-bench/tau-bench-airline-task-3-trial-0.json", "Error:"),
)
"""The demo's sweeps: (sub-folder, bundled run file, error prefix for formats without a flag)."""


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "sweep",
        help="replay every fault variant of a suite or run and report how the agent recovered",
    )
    parser.add_argument(
        "input", metavar="INPUT", help="a suite (.json) or a run file, promoted on the fly"
    )
    parser.add_argument(
        "--faults",
        default="single",
        metavar="single|pairs|tool:NAME",
        help="every boundary once (default), every pair, or every call of one tool",
    )
    parser.add_argument(
        "--kind",
        action="append",
        choices=("hard", "transient", "flip"),
        default=None,
        help="a fault kind (repeatable; default: hard and transient)",
    )
    parser.add_argument("--trials", type=int, default=1, help="trials per variant (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed for choose draws and ids")
    parser.add_argument("--workers", type=int, default=None, help="a process pool of N workers")
    parser.add_argument(
        "--dask",
        nargs="?",
        const="local",
        default=None,
        metavar="SCHEDULER_ADDRESS",
        help="run on a Dask cluster (no address: a local cluster); needs workbench[dask]",
    )
    parser.add_argument(
        "--error-prefix",
        default=None,
        metavar="P",
        help="for run formats with no error flag: a reply starting with P is a failure",
    )
    parser.add_argument("--out", default="out/sweep", metavar="DIR", help="output folder")
    add_agent_arguments(parser)
    parser.set_defaults(handler=run)

    demo = sub.add_parser(
        "demo",
        help="sweep the bundled billing run and tau-bench record and write their reports",
    )
    demo.add_argument("--out", default="out/demo", metavar="DIR", help="output folder")
    demo.add_argument("--workers", type=int, default=None, help="a process pool of N workers")
    demo.set_defaults(handler=run_demo)


def write_outputs(result: SweepResult, out_dir: str | os.PathLike[str]) -> list[str]:
    """The report folder: ``report.html``, the CSVs and the charts."""
    report = write_report(result, out_dir)
    return [os.fspath(report)]


def print_recovery(result: SweepResult) -> None:
    """The per-boundary recovery table."""
    table = result.per_boundary()
    rows = [
        {
            **{str(k): v for k, v in row.items()},
            "recoveryRate": f"{row['recoveryRate']:.2f}",
            "passHatK": f"{row['passHatK']:.2f}",
            "extraCalls": f"{row['extraCalls']:+.1f}",
        }
        for row in table.to_dict(orient="records")
    ]
    columns = ["boundary", "tool", "kind", "variants", "trials", "recoveryRate", "passHatK"]
    if len(result.task_ids) > 1:
        columns.insert(0, "taskId")
    print_table(rows, [*columns, "extraCalls"])


def _summary_line(result: SweepResult) -> str:
    frame = result.frame
    variants = frame[frame["variant"] != BASELINE]
    recovered = int(variants["recovered"].sum())
    base = frame[frame["variant"] == BASELINE]
    needs_model = int((variants["outcome"] == NEEDS_MODEL).sum())
    return (
        f"{len(result.variants)} variant(s) x {result.trials} trial(s): {recovered}/"
        f"{len(variants) - needs_model} variant-trials recovered; baseline "
        f"{'passed' if bool(base['passed'].all()) else 'FAILED'}"
        + (f"; {needs_model} needs-model (no model to answer)" if needs_model else "")
    )


def _dask_executor(address: str) -> tuple[Executor, Any]:
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise RuntimeError("--dask needs the dask extra: pip install 'workbench[dask]'") from exc
    if address == "local":
        cluster = LocalCluster(  # type: ignore[no-untyped-call]
            n_workers=2, processes=True, threads_per_worker=1
        )
        client = Client(cluster)  # type: ignore[no-untyped-call]
        return client.get_executor(), (client, cluster)  # type: ignore[no-untyped-call]
    client = Client(address)  # type: ignore[no-untyped-call]
    return client.get_executor(), (client,)  # type: ignore[no-untyped-call]


def run(args: argparse.Namespace) -> int:
    if args.trials < 1:
        return fail(f"--trials must be at least 1, not {args.trials}")
    # '' is "no error rule", as in `boundaries` and `promote` (ErrorRule.prefix(''))
    rule = ErrorRule.prefix(args.error_prefix) if args.error_prefix is not None else None
    kinds = tuple(dict.fromkeys(args.kind)) if args.kind else ("hard", "transient")
    agent = agent_from_args(args, args.input)
    if isinstance(agent, int):
        return agent
    executor: Executor | None = None
    closers: Any = ()
    try:
        if args.dask is not None:
            executor, closers = _dask_executor(args.dask)
        result = sweep(
            args.input,
            faults=args.faults,
            kinds=kinds,
            trials=args.trials,
            seed=args.seed,
            agent=agent,
            executor=executor,
            workers=args.workers,
            error_rule=rule,
        )
    except LoadError as exc:
        for problem in exc.problems[:20]:
            print(f"workbench: error: {problem}", file=sys.stderr)
        return 2
    except HostRefusal as refusal:
        return fail(f"{args.input}: {refusal}")
    except (JSONFileError, SuiteError, ValueError, KeyError, RuntimeError, OSError) as exc:
        return fail(str(exc))
    finally:
        for closer in closers:
            closer.close()
    print_recovery(result)
    print(_summary_line(result))
    for path in write_outputs(result, args.out):
        print(f"wrote {path}")
    return 0


def run_demo(args: argparse.Namespace) -> int:
    out = Path(args.out)
    lines: list[str] = []
    for folder, relative, prefix in DEMO_INPUTS:
        source = _ROOT / relative
        if not source.exists():
            return fail(f"bundled run {relative} not found (run the demo from a source checkout)")
        rule = ErrorRule.prefix(prefix) if prefix else None
        print(f"== {folder}: single-fault sweep of {relative} (hard, transient)")
        result = sweep(source, workers=args.workers, error_rule=rule)
        print_recovery(result)
        print(_summary_line(result))
        written = write_outputs(result, out / folder)
        lines.append(f"  {folder:<10} {_summary_line(result)}")
        lines.extend(f"             {path}" for path in written)
        print()
    print("demo done; where to look:")
    print("\n".join(lines))
    report = out / DEMO_INPUTS[0][0] / "report.html"
    if report.exists():
        print(f"open {report} in a browser for the branch tree and recovery charts")
    return 0
