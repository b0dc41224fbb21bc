"""The eval suite: an OpenWOP agent eval suite (RFC 0081) with the RFC 0244/0245 members (R5-R9).

A :class:`Suite` is a thin wrapper over the suite's JSON object. Keeping the JSON as it is means
members the workbench does not know survive a load/export cycle, and export is byte-stable
(:func:`~workbench._common.jsonio.dumps_stable`, members in their order: R42): load -> export ->
load gives the same bytes.
"""

from __future__ import annotations

import copy
import hashlib
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .._common.jsonio import (
    JSONFileError,
    dumps_stable,
    is_suite_json_file,
    parse_json_bytes,
    read_input_bytes,
    write_text_atomic,
)
from .._common.outputs import OutputError, same_file
from .._common.vocab import OnMiss

if TYPE_CHECKING:
    from .schemas import SchemaProblem

__all__ = [
    "FileChangedError",
    "Suite",
    "SuiteError",
    "TaskView",
    "task_on_miss",
    "task_tool_responses",
    "task_trials",
]


class SuiteError(ValueError):
    """A suite file that is not a suite (not an object, no tasks), named by file and field."""


class FileChangedError(OutputError, RuntimeError):
    """Refused to overwrite a suite file that changed on disk since it was loaded (an
    :class:`~workbench.OutputError` that ``overwrite=True`` lifts)."""

    def __init__(self, path: str) -> None:
        super().__init__(path, "changed on disk since it was loaded; reload it", needs_force=True)


class Suite:
    """An eval suite held as its JSON object.

    ``suite.data`` is the JSON object itself; change it directly or through the library's
    functions (variants, widgets). :meth:`save` writes it atomically as stable JSON.
    """

    __slots__ = ("_loaded_digest", "data", "path")

    def __init__(
        self,
        data: Mapping[str, Any],
        *,
        path: str | os.PathLike[str] | None = None,
        loaded_digest: str | None = None,
    ) -> None:
        if not isinstance(data, Mapping):
            raise SuiteError(f"{path or 'suite'}: a suite must be a JSON object")
        self.data: dict[str, Any] = dict(data)
        """The suite's JSON object."""
        self.path: str | None = os.fspath(path) if path is not None else None
        """The file the suite was loaded from or last saved to, if any."""
        self._loaded_digest = loaded_digest

    # -- reading ---------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Suite:
        """Read a suite file (errors name the file, line and column of invalid JSON)."""
        file = os.fspath(path)
        # One read: the digest the overwrite guard compares against is of the bytes parsed.
        try:
            raw = read_input_bytes(file)
        except OSError as exc:
            reason = exc.strerror or exc.__class__.__name__
            raise JSONFileError(file, f"cannot read the file: {reason}") from exc
        data = parse_json_bytes(raw, file)
        if not isinstance(data, Mapping):
            raise SuiteError(f"{file}: a suite must be a JSON object, not {type(data).__name__}")
        tasks = data.get("tasks")
        if not isinstance(tasks, list):
            raise SuiteError(f"{file}: field 'tasks' must be a list of tasks")
        digest = hashlib.sha256(raw).hexdigest()
        return cls(data, path=file, loaded_digest=digest)

    @classmethod
    def coerce(cls, value: Suite | Mapping[str, Any] | str | os.PathLike[str]) -> Suite:
        """A suite from a :class:`Suite`, a JSON object or a path."""
        if isinstance(value, Suite):
            return value
        if isinstance(value, Mapping):
            return cls(value)
        return cls.load(value)

    @property
    def suite_id(self) -> str:
        """The suite's ``suiteId``."""
        return str(self.data.get("suiteId", ""))

    @property
    def version(self) -> str:
        """The suite's ``version``."""
        return str(self.data.get("version", ""))

    @property
    def tasks(self) -> list[dict[str, Any]]:
        """The suite's task objects (the live list: changes show in :attr:`data`)."""
        tasks = self.data.get("tasks")
        if not isinstance(tasks, list):
            raise SuiteError(f"{self.path or 'suite'}: field 'tasks' must be a list")
        return tasks

    def task(self, task_id: str) -> dict[str, Any]:
        """The task with ``taskId`` ``task_id``; a KeyError lists the ids there are."""
        for task in self.tasks:
            if task.get("taskId") == task_id:
                return task
        ids = ", ".join(str(t.get("taskId")) for t in self.tasks)
        raise KeyError(f"no task {task_id!r} in suite {self.suite_id!r} (tasks: {ids})")

    def view(self, task_id: str) -> TaskView:
        """A read-only view of one task (its fixtures, trials and input)."""
        return TaskView(self.task(task_id), self.data)

    def views(self) -> tuple[TaskView, ...]:
        """A read-only view of every task, in suite order."""
        return tuple(TaskView(task, self.data) for task in self.tasks)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.tasks)

    def __len__(self) -> int:
        return len(self.tasks)

    def __eq__(self, other: object) -> bool:
        """Equal values (member order aside: :meth:`to_json` keeps it, equality does not)."""
        return isinstance(other, Suite) and dumps_stable(self.data) == dumps_stable(other.data)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Suite({self.suite_id!r}, version={self.version!r}, tasks={len(self.tasks)})"

    def copy(self) -> Suite:
        """A deep copy (not tied to the file it was loaded from)."""
        return Suite(copy.deepcopy(self.data))

    # -- checking --------------------------------------------------------------------------

    def validate(self, *, official: bool = False) -> list[SchemaProblem]:
        """Every schema problem, with its JSON path (extension schema; ``official=True``: the
        official RFC 0081 schema alone)."""
        from .schemas import validate_suite

        return validate_suite(self.data, official=official)

    def extension_members(self) -> list[str]:
        """The JSON paths of every RFC 0244/0245 or project member the suite uses (R9)."""
        from .schemas import uses_extension_members

        return uses_extension_members(self.data)

    # -- writing ---------------------------------------------------------------------------

    def to_json(self) -> str:
        """The suite as stable JSON text: members in their order (recorded payloads keep theirs,
        SPEC R42), 2-space indent, trailing newline."""
        return dumps_stable(self.data, sort_keys=False)

    def save(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        overwrite: bool = False,
        parents: bool = False,
        inputs: Iterable[str | os.PathLike[str] | None] = (),
    ) -> Path:
        """Write the suite atomically as stable JSON and return the path.

        Saving over the file the suite was loaded from (or last saved to) is allowed while that
        file is as it was then; if it changed on disk since (another editor, a rerun) the write
        is refused with :class:`FileChangedError`. Any other existing file is replaced only when
        it is stable JSON the workbench wrote, and never when it is one of ``inputs``, a folder,
        a device or a FIFO (:class:`~workbench.OutputError`). ``overwrite=True`` lifts the
        first two refusals; missing parent folders are created only with ``parents=True``.
        """
        target = os.fspath(path) if path is not None else self.path
        if target is None:
            raise ValueError("no path: pass one, the suite was not loaded from a file")
        own_file = (
            self._loaded_digest is not None
            and self.path is not None
            and (
                os.path.abspath(target) == os.path.abspath(self.path)
                or same_file(target, self.path)
            )
            and os.path.exists(target)
        )
        if own_file and not overwrite:
            try:
                current = hashlib.sha256(Path(target).read_bytes()).hexdigest()
            except OSError:
                current = None
            if current != self._loaded_digest:
                raise FileChangedError(target)
        text = self.to_json()
        write_text_atomic(
            target,
            text,
            overwrite=overwrite or own_file,
            parents=parents,
            recognise=is_suite_json_file,
            inputs=inputs,
        )
        self.path = target
        self._loaded_digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return Path(target)


def task_tool_responses(task: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A task's ``fixtures.toolResponses`` (an empty list when it has none)."""
    fixtures = task.get("fixtures")
    if not isinstance(fixtures, Mapping):
        return []
    entries = fixtures.get("toolResponses")
    return entries if isinstance(entries, list) else []


def task_on_miss(task: Mapping[str, Any]) -> OnMiss:
    """A task's ``fixtures.onMiss`` (R6, default ``"fail"``)."""
    fixtures = task.get("fixtures")
    value = fixtures.get("onMiss") if isinstance(fixtures, Mapping) else None
    return "live" if value == "live" else "fail"


def task_trials(suite: Mapping[str, Any], task: Mapping[str, Any]) -> int:
    """How many trials a task runs (R8: the task's ``trials`` wins over the suite's; default 1)."""
    for value in (task.get("trials"), suite.get("trials")):
        if isinstance(value, int) and not isinstance(value, bool) and value >= 1:
            return value
    return 1


class TaskView:
    """A read-only view of one task of a suite: what a host, a grader or a view reads of it.

    Mappings come back read-only (``MappingProxyType``); the suite itself is changed through
    the library's functions (:func:`~workbench.toggle_error`, :func:`~workbench.apply_faults`).
    """

    __slots__ = ("_suite", "_task")

    def __init__(self, task: Mapping[str, Any], suite: Mapping[str, Any] | None = None) -> None:
        self._task = task
        self._suite: Mapping[str, Any] = suite if suite is not None else {}

    @property
    def task_id(self) -> str:
        """The task's ``taskId``."""
        return str(self._task.get("taskId", ""))

    @property
    def data(self) -> Mapping[str, Any]:
        """The task's JSON object, read-only."""
        return (
            MappingProxyType(dict(self._task))
            if not isinstance(self._task, dict)
            else MappingProxyType(self._task)
        )

    @property
    def input(self) -> Any:
        """The task's ``input`` (the scripted agent's script, a conversation, ...)."""
        return self._task.get("input")

    @property
    def entries(self) -> tuple[Mapping[str, Any], ...]:
        """The task's ``fixtures.toolResponses`` (R5), each read-only, in array order."""
        return tuple(MappingProxyType(e) for e in task_tool_responses(self._task))

    @property
    def on_miss(self) -> OnMiss:
        """The task's ``fixtures.onMiss`` (R6, default ``"fail"``)."""
        return task_on_miss(self._task)

    @property
    def trials(self) -> int:
        """How many trials the task runs (R8: the task's, then the suite's, then 1)."""
        return task_trials(self._suite, self._task)

    def __len__(self) -> int:
        return len(task_tool_responses(self._task))

    def __repr__(self) -> str:
        return f"TaskView({self.task_id!r}, entries={len(self)})"
