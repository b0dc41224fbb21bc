"""``workbench replay SUITE.json``: replay a suite with the scripted agent (or ``--agent llm``)
and grade it."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from workbench import (
    HostProfile,
    HostRefusal,
    JSONFileError,
    ScriptError,
    Suite,
    SuiteError,
    replay,
)

from ._common import fail, print_table
from ._llm import add_agent_arguments, agent_from_args, model_turns_line


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "replay",
        help="replay a suite with the scripted agent (exit 0 passed, 1 failed, 2 refused)",
    )
    parser.add_argument("suite", metavar="SUITE.json")
    parser.add_argument("--trials", type=int, default=None, help="trials per task (overrides R8)")
    parser.add_argument("--seed", type=int, default=0, help="seed for choose draws and ids")
    parser.add_argument("--host-profile", default=None, metavar="P.json", help="a host profile")
    parser.add_argument("--events", default=None, metavar="OUT.jsonl", help="write the event log")
    parser.add_argument("--summary", default=None, metavar="OUT.json", help="write the summary")
    parser.add_argument(
        "--events-content",
        action="store_true",
        help="put tool inputs and results on the event log (off: content-free, RFC 0245 D)",
    )
    add_agent_arguments(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    try:
        suite = Suite.load(args.suite)
        profile = HostProfile.load(args.host_profile) if args.host_profile else None
    except (JSONFileError, SuiteError, ValueError) as exc:
        return fail(str(exc))
    agent = agent_from_args(args, args.suite)
    if isinstance(agent, int):
        return agent
    try:
        result = replay(
            suite,
            agent,
            trials=args.trials,
            seed=args.seed,
            host_profile=profile,
            events=args.events is not None,
            include_content=args.events_content,
        )
    except HostRefusal as refusal:
        print(json.dumps(refusal.body, indent=2, sort_keys=True), file=sys.stderr)
        return 2
    except (ScriptError, ValueError) as exc:
        return fail(str(exc))
    rows = [
        {**{str(k): v for k, v in row.items()}, "score": f"{row['score']:.2f}"}
        for row in result.to_frame().to_dict(orient="records")
    ]
    print_table(
        rows,
        ["taskId", "score", "passed", "trials", "fixtureMisses", "calls", "errorsServed"],
    )
    summary = result.summary
    print(
        f"suite {summary['suiteId']} {summary['suiteVersion']}: "
        f"{'PASSED' if result.passed else 'FAILED'}, aggregate score "
        f"{summary['aggregateScore']:.3f}, {summary['passedCount']}/{summary['taskCount']} "
        f"tasks passed, {summary['fixtureMissCount']} fixture miss(es)"
    )
    turns = model_turns_line([r for t in result.tasks for r in t.trials])
    if turns is not None:
        print(turns)
    if args.events:
        result.write_events(args.events)
        print(f"wrote {args.events} ({len(result.events)} events)")
    if args.summary:
        result.write_summary(args.summary)
        print(f"wrote {args.summary}")
    return 0 if result.passed else 1
