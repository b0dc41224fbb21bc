"""What the HTTP host can run: suites, recorded runs and agents, found by the names a run
create gives (SPEC R43).

``evalSuiteRef`` names a suite:

- ``suite://ID`` or ``ID``, optionally ``@VERSION``: a suite the host was given (a file, a
  :class:`~workbench.Suite`, a JSON object, or an object with a ``suite`` attribute such as the
  notebook's ``Workbench``), or one found in a served folder, by its ``suiteId``;
- ``conformance-eval-fixture-error``: the RFC 0245 conformance suite every host carries;
- a relative path (``billing.suite.json``, ``team/a.json``): that file under a served folder;
  a suite file the host was given by name is also found by the path it was given as, its file
  name, its absolute path or its ``file://`` URI (no other file is ever read).

Suites are read at each run create, so an edit (in the notebook, or to the file) is what the
next run runs: a file is re-read when its size or modification time changed, a live suite is
copied as it is at that moment, and a running run never sees later edits.

``fixtureRuns`` (RFC 0252) names recorded runs the host loaded: each becomes a task's fixtures
exactly as ``workbench promote`` writes them (one entry per boundary, ``isError`` as recorded,
secrets redacted: R30, R31), with ``onMiss: "fail"``. ``agentId`` picks the scripted agent
(``workbench.scripted-agent``, ``scripted`` or ``core.conformance.agents.scripted``) or an agent
registered with the host.
"""

from __future__ import annotations

import os
import pickle
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._load.loader import load_runs
from .._load.records import LoadResult, PromotedRun
from .._promote.promote import promote
from .._replay.agents import Agent
from .._replay.scripted import ScriptedAgent
from .._suite.model import Suite
from ._documents import CONFORMANCE_FIXTURE, conformance_suite
from ._wire import WireError

__all__ = [
    "SCRIPTED_AGENT_IDS",
    "AgentRegistry",
    "RecordedRuns",
    "ResolvedSuite",
    "SuiteCatalog",
]

SCRIPTED_AGENT_IDS = ("workbench.scripted-agent", "scripted", "core.conformance.agents.scripted")
"""The names of the scripted agent (R23); the last is the one RFC 0245's legs drive."""

_FIELD = "evalSuiteRef"


@dataclass(frozen=True, slots=True)
class ResolvedSuite:
    """A suite as a run create found it: a copy no later edit reaches."""

    suite: Suite
    """The suite (independent of its source)."""
    origin: str
    """Where it came from (``file:NAME``, ``notebook``, ``conformance``), for the snapshot."""


def _independent(data: Mapping[str, Any]) -> Suite:
    # A pickle round trip of our own JSON data: three times faster than copy.deepcopy.
    return Suite(pickle.loads(pickle.dumps(dict(data), protocol=pickle.HIGHEST_PROTOCOL)))


class _FileSuite:
    """A suite file, re-read when it changed on disk."""

    __slots__ = ("_cached", "_lock", "_stamp", "path")

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int] | None = None
        self._cached: Suite | None = None
        self._lock = threading.Lock()

    def current(self) -> Suite:
        """The suite as the file holds it now (``ValueError`` when it does not parse)."""
        stat = self.path.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            if self._cached is None or stamp != self._stamp:
                self._cached = Suite.load(self.path)
                self._stamp = stamp
            return self._cached


class _LiveSuite:
    """A suite held in memory: a :class:`Suite`, or an object whose ``suite`` is one."""

    __slots__ = ("source",)

    def __init__(self, source: Any) -> None:
        self.source = source

    def current(self) -> Suite:
        held = self.source if isinstance(self.source, Suite) else self.source.suite
        return Suite.coerce(held)


class SuiteCatalog:
    """The suites a host serves, found by ``evalSuiteRef``."""

    def __init__(self, sources: Sequence[Any] = ()) -> None:
        self._named: list[tuple[str, _FileSuite | _LiveSuite]] = []
        self._folders: list[Path] = []
        self._folder_index: list[_FileSuite] = []
        self._files: dict[str, list[tuple[str, _FileSuite]]] = {}
        for source in sources:
            if isinstance(source, Suite) or hasattr(source, "suite"):
                self._named.append(("notebook", _LiveSuite(source)))
            elif isinstance(source, Mapping):
                self._named.append(("json", _LiveSuite(Suite(dict(source)))))
            elif isinstance(source, str | os.PathLike):
                path = Path(os.fspath(source))
                if path.is_dir():
                    self._folders.append(path.resolve())
                else:
                    entry = _FileSuite(path)
                    entry.current()  # a file that does not parse is refused now
                    self._named.append((f"file:{path.name}", entry))
                    absolute = path.resolve()
                    names = {os.fspath(source), os.path.normpath(os.fspath(source)), path.name}
                    names |= {str(absolute), absolute.as_uri()}
                    for name in names:
                        self._files.setdefault(name, []).append((f"file:{path.name}", entry))
            else:
                raise TypeError(f"cannot serve {type(source).__name__} as a suite")
        self._index_folders()

    @property
    def folders(self) -> tuple[Path, ...]:
        """The served folders (suite files under them are found by path and by id)."""
        return tuple(self._folders)

    def _index_folders(self) -> None:
        found: list[_FileSuite] = []
        for folder in self._folders:
            for path in sorted(folder.rglob("*.json")):
                hidden = any(part.startswith(".") for part in path.relative_to(folder).parts)
                # A symlink leading out of the folder is not served by id, as not by path.
                if not hidden and path.resolve().is_relative_to(folder):
                    found.append(_FileSuite(path))
        self._folder_index = found

    def _candidates(self) -> Iterator[tuple[str, Suite]]:
        for origin, entry in self._named:
            try:
                yield origin, entry.current()
            except (OSError, ValueError):
                continue
        for file in self._folder_index:
            try:
                yield f"file:{file.path.name}", file.current()
            except (OSError, ValueError):
                continue

    def listing(self) -> list[tuple[str, str, str]]:
        """``(suiteId, version, origin)`` of every suite found by id now."""
        return [(s.suite_id, s.version, origin) for origin, s in self._candidates()]

    def resolve(self, ref: str) -> ResolvedSuite:
        """The suite ``ref`` names; ``400 validation_error`` naming ``evalSuiteRef`` if none."""
        if ref == CONFORMANCE_FIXTURE:
            return ResolvedSuite(_independent(conformance_suite()), "conformance")
        if ref.startswith("suite://"):
            return self._by_id(ref[len("suite://") :], ref)
        if ref.startswith("file://"):
            return self._by_path(ref)
        if "/" in ref or "\\" in ref or ref.endswith(".json") or ref.startswith("file:"):
            return self._by_path(ref.removeprefix("file:"))
        return self._by_id(ref, ref)

    def _by_id(self, name: str, ref: str) -> ResolvedSuite:
        suite_id, _, version = name.partition("@")
        for attempt in range(2):
            found = [(o, s) for o, s in self._candidates() if s.suite_id == suite_id]
            if version:
                found = [(o, s) for o, s in found if s.version == version]
            if found or attempt:
                break
            self._index_folders()  # a file added since: look again once
        if suite_id == "core.conformance.evals.fixture-error" and not found:
            return ResolvedSuite(_independent(conformance_suite()), "conformance")
        if not found:
            known = sorted({f"{s.suite_id}@{s.version}" for _, s in self._candidates()})
            shown = ", ".join(known[:10]) or "none"
            raise WireError.invalid(_FIELD, f"no suite {ref!r} on this host (suites: {shown})")
        versions = sorted({s.version for _, s in found})
        if len(versions) > 1:
            raise WireError.invalid(
                _FIELD,
                f"suite {suite_id!r} is served in versions {', '.join(versions)}: "
                f"name one (suite://{suite_id}@{versions[-1]})",
            )
        origin, suite = found[0]
        return ResolvedSuite(_independent(suite.data), origin)

    def _by_path(self, relative: str) -> ResolvedSuite:
        named = self._files.get(relative) or self._files.get("file:" + relative)
        if named is not None and len(named) == 1:
            origin, entry = named[0]
            try:
                return ResolvedSuite(_independent(entry.current().data), origin)
            except (OSError, ValueError) as exc:
                raise WireError.invalid(_FIELD, f"suite file {relative!r}: {exc}") from None
        if not self._folders:
            raise WireError.invalid(
                _FIELD, "this host serves no folder: name a suite by id (suite://ID)"
            )
        parts = Path(relative).parts
        if not relative or Path(relative).is_absolute() or ".." in parts or "\\" in relative:
            raise WireError.invalid(_FIELD, "a suite path is relative to the served folder")
        for folder in self._folders:
            path = (folder / relative).resolve()
            if not path.is_relative_to(folder) or not path.is_file():
                continue
            try:
                suite = _FileSuite(path).current()
            except (OSError, ValueError) as exc:
                message = str(exc).replace(str(folder) + os.sep, "")
                raise WireError.invalid(_FIELD, f"suite file {relative!r}: {message}") from None
            return ResolvedSuite(_independent(suite.data), f"file:{relative}")
        raise WireError.invalid(_FIELD, f"no suite file {relative!r} under the served folder")


class RecordedRuns:
    """Recorded runs the host loaded, by their run id: sources for ``fixtureRuns``."""

    def __init__(self, sources: Sequence[str | os.PathLike[str] | LoadResult | PromotedRun] = ()):
        self._runs: dict[str, tuple[PromotedRun, str]] = {}
        self._fixtures: dict[str, dict[str, Any]] = {}
        self._lock = threading.Lock()
        for source in sources:
            if isinstance(source, PromotedRun):
                runs, where = [source], source.source or "runs"
            elif isinstance(source, LoadResult):
                runs, where = list(source.runs), source.path
            else:
                where = os.fspath(source)
                runs = list(load_runs(where).runs)
            for run in runs:
                if run.run_id in self._runs:
                    raise ValueError(
                        f"{where}: run id {run.run_id!r} is also in {self._runs[run.run_id][1]}"
                    )
                self._runs[run.run_id] = (run, where)

    def __len__(self) -> int:
        return len(self._runs)

    def ids(self) -> list[str]:
        """The run ids, in loading order."""
        return list(self._runs)

    def fixtures(self, run_id: str) -> dict[str, Any] | None:
        """A task's ``fixtures`` from the recorded run (promotion's entries, ``onMiss:
        "fail"``), or ``None`` for a run the host does not hold or one without tool calls."""
        held = self._runs.get(run_id)
        if held is None or not held[0].boundaries:
            return None
        with self._lock:
            if run_id not in self._fixtures:
                task = promote(held[0], self_test=False).suite.tasks[0]
                entries = task["fixtures"]["toolResponses"]
                self._fixtures[run_id] = {"toolResponses": entries, "onMiss": "fail"}
            return self._fixtures[run_id]


AgentSource = Agent | Callable[[], Agent]


class AgentRegistry:
    """The agents a run create may name: the scripted agent and any registered ones."""

    def __init__(self, agents: Mapping[str, AgentSource] | None = None) -> None:
        self._agents: dict[str, AgentSource] = dict(agents or {})
        for name in self._agents:
            if not isinstance(name, str) or not name:
                raise ValueError(f"agent name {name!r} is not a non-empty string")

    def names(self) -> list[str]:
        """Every id a run create may give, registered ones first."""
        return [*self._agents, *(n for n in SCRIPTED_AGENT_IDS if n not in self._agents)]

    def is_scripted(self, agent_id: str) -> bool:
        """Whether ``agent_id`` names the scripted agent."""
        return agent_id in SCRIPTED_AGENT_IDS and agent_id not in self._agents

    def knows(self, agent_id: str) -> bool:
        """Whether ``agent_id`` names an agent here."""
        return agent_id in self._agents or agent_id in SCRIPTED_AGENT_IDS

    def make(self, agent_id: str) -> Any:
        """The agent for one run: a fresh scripted agent, a registered instance, or what a
        registered factory returns."""
        source = self._agents.get(agent_id)
        if source is None:
            return ScriptedAgent()
        if hasattr(source, "run"):
            return source
        return source()
