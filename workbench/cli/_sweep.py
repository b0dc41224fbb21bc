"""``workbench sweep INPUT`` and ``workbench demo``: fault sweeps with their reports (R32, R33)."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sys
from concurrent.futures import Executor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._common import (
    MAX_TRIALS,
    MAX_WORKERS,
    add_output_arguments,
    bounded_int,
    check_outputs,
    fail,
    naming,
    plural,
    print_table,
)
from ._llm import add_agent_arguments, agent_from_args

if TYPE_CHECKING:
    from workbench import SweepResult

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
    parser.add_argument(
        "--trials",
        type=bounded_int(1, MAX_TRIALS),
        default=1,
        metavar="N",
        help="trials per variant (default 1)",
    )
    parser.add_argument(
        "--seed",
        type=bounded_int(-(2**63), 2**63 - 1),
        default=0,
        help="the seed of the scripted agent's choose draws and of the run's ids (default 0)",
    )
    parser.add_argument(
        "--workers",
        type=bounded_int(1, MAX_WORKERS),
        default=None,
        metavar="N",
        help="run the variants on a pool of N worker processes (default: in this process)",
    )
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
    parser.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="the report folder, replaced as a whole when the sweep is done (default "
        "out/sweep; a folder you name must be new, empty or an earlier report)",
    )
    add_output_arguments(parser)
    add_agent_arguments(parser)
    parser.set_defaults(handler=run)

    demo = sub.add_parser(
        "demo",
        help="sweep the bundled billing run and tau-bench record and write their reports",
    )
    demo.add_argument(
        "--out",
        default=None,
        metavar="DIR",
        help="the folder for the two report folders (default out/demo)",
    )
    demo.add_argument(
        "--workers",
        type=bounded_int(1, MAX_WORKERS),
        default=None,
        metavar="N",
        help="run the variants on a pool of N worker processes (default: in this process)",
    )
    add_output_arguments(demo)
    demo.set_defaults(handler=run_demo)


def _out(args: argparse.Namespace, default: str) -> tuple[str, bool]:
    """The output folder and whether its missing parents may be created (the default's are)."""
    if args.out is None:
        return default, True
    return args.out, bool(args.parents)


def write_outputs(
    result: SweepResult,
    out_dir: str | os.PathLike[str],
    *,
    overwrite: bool = False,
    parents: bool = False,
    inputs: tuple[str | os.PathLike[str], ...] = (),
) -> list[str]:
    """The report folder: ``report.html``, the CSVs and the charts (replaced as a whole)."""
    from workbench import write_report

    report = write_report(result, out_dir, overwrite=overwrite, parents=parents, inputs=inputs)
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
    from workbench import BASELINE, NEEDS_MODEL

    frame = result.frame
    variants = frame[frame["variant"] != BASELINE]
    recovered = int(variants["recovered"].sum())
    base = frame[frame["variant"] == BASELINE]
    needs_model = int((variants["outcome"] == NEEDS_MODEL).sum())
    return (
        f"{plural(len(result.variants), 'variant')} x {plural(result.trials, 'trial')}: "
        f"{recovered}/{len(variants) - needs_model} variant-trials recovered; baseline "
        f"{'passed' if bool(base['passed'].all()) else 'FAILED'}"
        + (f"; {needs_model} needs-model (no model to answer)" if needs_model else "")
    )


def _dask_executor(address: str) -> tuple[Executor, Any]:
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise RuntimeError("--dask needs the dask extra: pip install 'workbench[dask]'") from exc
    # Dask's and Tornado's loggers report cancelled futures and killed workers as ERRORs with
    # tracebacks when a sweep is stopped; the sweep reports its own errors, so they stay quiet.
    for name in ("distributed", "tornado"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    if address == "local":
        # The resource tracker (started for the cluster's processes) warns at exit about the
        # semaphores of workers killed by Ctrl-C, which it then cleans up: no warning needed.
        sys.warnoptions.append("ignore::UserWarning:multiprocessing.resource_tracker")
        # Ctrl-C reaches every process of the terminal's group: the cluster's processes start
        # with SIGINT ignored (inherited), so only this process handles it and stops them.
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            cluster = LocalCluster(  # type: ignore[no-untyped-call]
                n_workers=2, processes=True, threads_per_worker=1
            )
        finally:
            signal.signal(signal.SIGINT, previous)
        client = Client(cluster)  # type: ignore[no-untyped-call]
        return client.get_executor(), (client, cluster)  # type: ignore[no-untyped-call]
    client = Client(address)  # type: ignore[no-untyped-call]
    return client.get_executor(), (client,)  # type: ignore[no-untyped-call]


def _close(closers: Any, interrupted: bool) -> None:
    """Close the Dask client and cluster. After Ctrl-C (or an error) a local cluster's
    processes are killed first, since a graceful close waits for the batches they run."""
    if not interrupted:
        for closer in closers:
            closer.close()
        return
    if len(closers) > 1:  # our own LocalCluster: kill its worker processes (Nanny.pid)
        for nanny in list(getattr(closers[1], "workers", {}).values()):
            nanny.auto_restart = False
            pid = getattr(nanny, "pid", None)
            if isinstance(pid, int):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
    for closer in closers:
        with contextlib.suppress(BaseException):
            closer.close(timeout=0.5)


def run(args: argparse.Namespace) -> int:
    from workbench import ErrorRule, HostRefusal, sweep, sweep_source

    out, parents = _out(args, "out/sweep")
    args.parents = parents
    check_outputs(args, [("--out", out, "report")], inputs=[args.input])
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
        with naming(args.input):
            suite = sweep_source(args.input, error_rule=rule)
        result = sweep(
            suite,
            faults=args.faults,
            kinds=kinds,
            trials=args.trials,
            seed=args.seed,
            agent=agent,
            executor=executor,
            workers=args.workers,
            error_rule=rule,
        )
    except HostRefusal as refusal:
        return fail(f"{args.input}: {refusal}")
    except KeyError as exc:
        return fail(str(exc.args[0]) if exc.args else str(exc))
    except RuntimeError as exc:
        return fail(str(exc))
    except ValueError as exc:  # a sweep the input cannot make (faults, size): name the input
        message = str(exc)
        return fail(message if args.input in message else f"{args.input}: {message}")
    except BaseException:
        _close(closers, interrupted=True)
        raise
    _close(closers, interrupted=False)
    print_recovery(result)
    print(_summary_line(result))
    written = write_outputs(
        result, out, overwrite=args.force, parents=parents, inputs=(args.input,)
    )
    for path in written:
        print(f"wrote {path}")
    return 0


def run_demo(args: argparse.Namespace) -> int:
    from workbench import ErrorRule, sweep

    out_text, parents = _out(args, "out/demo")
    out = Path(out_text)
    sources = [_ROOT / relative for _, relative, _ in DEMO_INPUTS]
    for source, (_, relative, _) in zip(sources, DEMO_INPUTS, strict=True):
        if not source.exists():
            return fail(f"bundled run {relative} not found (run the demo from a source checkout)")
    args.parents = parents
    check_outputs(
        args,
        [(f"--out {folder}", out / folder, "report") for folder, _, _ in DEMO_INPUTS],
        inputs=sources,
    )
    lines: list[str] = []
    for (folder, relative, prefix), source in zip(DEMO_INPUTS, sources, strict=True):
        rule = ErrorRule.prefix(prefix) if prefix else None
        print(f"== {folder}: single-fault sweep of {relative} (hard, transient)")
        result = sweep(source, workers=args.workers, error_rule=rule)
        print_recovery(result)
        print(_summary_line(result))
        written = write_outputs(
            result, out / folder, overwrite=args.force, parents=parents, inputs=tuple(sources)
        )
        lines.append(f"  {folder:<10} {_summary_line(result)}")
        lines.extend(f"             {path}" for path in written)
        print()
    print("demo done; where to look:")
    print("\n".join(lines))
    report = out / DEMO_INPUTS[0][0] / "report.html"
    if report.exists():
        print(f"open {report} in a browser for the branch tree and recovery charts")
    return 0
