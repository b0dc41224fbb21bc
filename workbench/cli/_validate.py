"""``workbench validate SUITE.json``: every check ``replay`` runs before it starts.

The same checks as a replay's run-create refusal (:func:`workbench.preflight`): the extension
schema, task ids used twice, trials over the host's limits, members the host profile does not
advertise, and the scripted agent's scripts and policies. Each problem is listed with its kind,
so a schema problem is told apart from a host refusal. ``--official`` checks the suite against
the official RFC 0081 schema alone and explains the workbench's extension members it uses
instead of listing them as errors.
"""

from __future__ import annotations

import argparse
from typing import Any

from ._common import plural, terminal_text

_KIND_WORDS = {
    "schema": ("schema problem", "schema problems"),
    "suite": ("suite problem", "suite problems"),
    "limit": ("host limit", "host limits"),
    "host": ("host refusal", "host refusals"),
    "script": ("script problem", "script problems"),
}
_SHOWN_MEMBERS = 8


def register(sub: Any) -> None:
    parser: argparse.ArgumentParser = sub.add_parser(
        "validate",
        help="check a suite the way replay does before it runs (exit 0 valid, 1 problems, "
        "2 unreadable)",
        description="Check a suite with every check replay runs before it starts: the "
        "schema (OpenWOP RFC 0081 with the workbench's extension members), task ids used "
        "twice, trials over the host's limits, members the host profile does not advertise, "
        "and the scripted agent's scripts and failure policies. Each problem says which kind "
        "it is and names its field.",
    )
    parser.add_argument("suite", metavar="SUITE.json", help="the suite file to check")
    parser.add_argument(
        "--official",
        action="store_true",
        help="check against the official RFC 0081 schema alone: is the suite portable to a "
        "host without the workbench's extension members? (they are listed, not errors)",
    )
    parser.add_argument(
        "--host-profile",
        default=None,
        metavar="P.json",
        help="check against another host's capabilities (default: the workbench's own host, "
        "which advertises everything)",
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from workbench import HostProfile, Suite

    suite = Suite.load(args.suite)
    name = terminal_text(args.suite)
    if args.official:
        return _official(suite, name)
    from workbench import preflight

    profile = HostProfile() if args.host_profile is None else HostProfile.load(args.host_profile)
    problems = preflight(suite, host_profile=profile)
    for problem in problems:
        word = _KIND_WORDS[problem.kind][0]
        print(f"{name}: {word}: {terminal_text(str(problem))}")
    if problems:
        counts: dict[str, int] = {}
        for problem in problems:
            counts[problem.kind] = counts.get(problem.kind, 0) + 1
        parts = [plural(n, *_KIND_WORDS[kind]) for kind, n in counts.items()]
        print(
            f"{name}: {plural(len(problems), 'problem')} ({', '.join(parts)}); "
            "replay would refuse this suite"
        )
        return 1
    tasks = len(suite.tasks)
    print(
        f"{name}: valid: schema, task ids, scripts and host {profile.name!r} checked "
        f"({plural(tasks, 'task')}); replay will run it"
    )
    return 0


def _official(suite: Any, name: str) -> int:
    from workbench import validate_suite, without_extension_members

    members = suite.extension_members()
    problems = validate_suite(without_extension_members(suite.data), official=True)
    for problem in problems:
        print(f"{name}: official schema: {terminal_text(str(problem))}")
    if members:
        shown = ", ".join(members[:_SHOWN_MEMBERS])
        more = len(members) - _SHOWN_MEMBERS
        if more > 0:
            shown += f", and {more} more"
        print(
            f"{name}: uses {plural(len(members), 'extension member')} the official RFC 0081 "
            f"schema does not define: {terminal_text(shown)}. They are the workbench's "
            "RFC 0244/0245 members (fixtures with args and isError, onMiss, trials, "
            "trajectory, x- members; SPEC R5-R9): a host without them refuses or ignores "
            "them; 'workbench validate' without --official checks them."
        )
    if problems:
        print(
            f"{name}: {plural(len(problems), 'problem')} against the official schema "
            "besides the extension members"
        )
        return 1
    if members:
        print(f"{name}: valid against the official schema apart from the extension members")
        return 1
    print(f"{name}: valid against the official RFC 0081 schema (no extension members)")
    return 0
