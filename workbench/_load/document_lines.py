"""JSON Lines of whole recordings: each line one document of a document format (SPEC R34, R35).

Evaluation harnesses write one record a task: OpenHands' ``output.jsonl`` holds a line per
instance, ``{"instance_id", "instruction", "history": [events], "metrics", ...}``. Each line is
loaded as the document it is, into its own runs: a run's id is the line's ``instance_id``
(``issue-<number>`` for the OpenHands resolver's line of an issue; else ``line-N``), its boundaries
are located at their line, and its problems name the line. A line that gives no run and no problem
(an instance whose ``history`` is empty: the agent stopped before its first event) is a known non-
tool record (R35), listed on the first run as ``metadata["linesWithoutRun"]``: ``{"line", "id"}``
each."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from .records import LoadProblem, PromotedRun

__all__ = ["load_document_lines"]

_ID_MEMBERS = ("instance_id", "task_id", "id")
"""A line's own name for its task, first found wins."""


def load_document_lines(
    docs: list[tuple[int, Any]],
    file: str,
    load_one: Callable[[Any, str], tuple[list[PromotedRun], list[LoadProblem]]],
) -> tuple[list[PromotedRun], list[LoadProblem]]:
    """Every line's runs, keyed by the line; ``load_one(value, file)`` reads one document."""
    runs: list[PromotedRun] = []
    problems: list[LoadProblem] = []
    used: set[str] = set()
    empty: list[dict[str, Any]] = []
    for line, value in docs:
        found, more = load_one(value, f"{file}:{line}")
        if not found and not more:
            empty.append({"line": line, "id": _line_name(value, line)})
            continue
        problems.extend(
            LoadProblem(file, _at_line(line, p.where), p.field, p.message, line) for p in more
        )
        name = _line_name(value, line)
        if name in used:  # (several records of one line, when its line break was lost)
            base, count = f"{name}-line-{line}", 1
            name = base
            while name in used:
                count += 1
                name = f"{base}-{count}"
        used.add(name)
        for number, run in enumerate(found):
            key = name if len(found) == 1 else f"{name}-{run.run_id or number}"
            metadata = {**run.metadata, "line": line}
            runs.append(replace(run, run_id=key, task_key=key, source=file, metadata=metadata))
    if runs and empty:
        runs[0] = replace(runs[0], metadata={**runs[0].metadata, "linesWithoutRun": empty})
    return runs, problems


def _line_name(value: Any, line: int) -> str:
    if isinstance(value, Mapping):
        for member in _ID_MEMBERS:
            found = value.get(member)
            if isinstance(found, str | int) and not isinstance(found, bool) and str(found):
                return str(found)
        issue = value.get("issue")  # the OpenHands resolver's line: the issue it worked on
        number = issue.get("number") if isinstance(issue, Mapping) else None
        if isinstance(number, int) and not isinstance(number, bool):
            return f"issue-{number}"
    return f"line-{line}"


def _at_line(line: int, where: str) -> str:
    return f"line {line}" if where in ("", "(root)", "(file)") else f"line {line}, {where}"
