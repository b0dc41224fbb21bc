"""The Load part: a path box (or an uploaded file) for a promoted run or a suite.

Loading is two library calls: :func:`workbench.load_runs` then :func:`workbench.promote` for a
run file, or :meth:`workbench.Suite.load` for a suite file. A relative path is taken from the
notebook's folder (not the kernel's working directory, which a cell may have changed). Load
errors stay in place, naming the file and line (``LoadError.problems``, ``JSONFileError``), and
say which folder a relative path was resolved against.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as w

from workbench import (
    RUN_FORMATS,
    ErrorRule,
    JSONFileError,
    LoadError,
    LoadResult,
    PromotedRun,
    Promotion,
    Suite,
    SuiteError,
    load_runs,
    promote,
)

from ._escape import esc
from ._paths import resolve

if TYPE_CHECKING:
    from ._state import WorkbenchState

__all__ = ["LOAD_FORMATS", "LoadPanel", "Loaded", "load_source"]

LOAD_FORMATS: tuple[str, ...] = ("auto", "suite", *RUN_FORMATS)
"""The format picker's choices: ``auto`` tells a suite from a run file by its content."""


@dataclass(frozen=True, slots=True)
class Loaded:
    """What the widget loaded: the suite it edits and where it came from."""

    suite: Suite
    """The suite (promoted from a run, or read from a suite file)."""
    label: str
    """A short description: the file and what it held."""
    promotion: Promotion | None = None
    """The promotion, when the source was a run."""
    path: str | None = None
    """The file read, if any."""


def _looks_like_suite(path: str) -> bool:
    if path.endswith((".jsonl", ".ndjson")) or not os.path.isfile(path):
        return False  # a FIFO or device is never opened here: load_runs refuses it (R35)
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return False
    return isinstance(data, Mapping) and isinstance(data.get("tasks"), list)


def _promoted(source: LoadResult | PromotedRun | Sequence[PromotedRun], path: str | None) -> Loaded:
    promotion = promote(source)
    suite = promotion.suite
    name = os.path.basename(path) if path else "run"
    label = (
        f"{name}: promoted {len(promotion.task_ids)} task(s), {promotion.boundary_count} "
        f"boundaries, {promotion.error_count} recorded error(s)"
    )
    return Loaded(suite=suite, label=label, promotion=promotion, path=path)


class PathLoadError(Exception):
    """A file given by a relative path could not be loaded: the error, and where it looked."""

    def __init__(self, given: str, folder: Path, error: BaseException) -> None:
        super().__init__(f"{given}: resolved against {folder}")
        self.given = given
        self.folder = folder
        self.error = error


def load_source(
    source: Any,
    *,
    format: str = "auto",
    error_rule: ErrorRule | None = None,
    folder: Path | None = None,
) -> Loaded:
    """Load what the widget was given: a path (run or suite file), a ``LoadResult``, runs, a
    ``Promotion``, a :class:`~workbench.Suite` or a suite's JSON object. A relative path is
    taken from ``folder`` (default: the working directory); when it cannot be loaded the error
    is a :class:`PathLoadError` naming that folder."""
    if isinstance(source, Suite):
        return Loaded(suite=source, label=f"suite {source.suite_id}", path=source.path)
    if isinstance(source, Promotion):
        return Loaded(suite=source.suite, label=f"suite {source.suite.suite_id}", promotion=source)
    if isinstance(source, Mapping):
        suite = Suite(source)
        return Loaded(suite=suite, label=f"suite {suite.suite_id}")
    if isinstance(source, LoadResult):
        return _promoted(source, source.path)
    if isinstance(source, PromotedRun):
        return _promoted(source, source.source or None)
    if isinstance(source, Sequence) and not isinstance(source, str | bytes):
        return _promoted(list(source), None)
    given = os.fspath(source)
    base = folder if folder is not None else Path(os.getcwd())
    path = str(resolve(given, base))
    if os.path.isabs(os.path.expanduser(given)):
        return _load_path(path, format, error_rule)
    try:
        return _load_path(path, format, error_rule)
    except Exception as exc:
        raise PathLoadError(given, base, exc) from exc


def _load_path(path: str, format: str, error_rule: ErrorRule | None) -> Loaded:
    if format == "suite" or (format == "auto" and _looks_like_suite(path)):
        suite = Suite.load(path)
        label = f"{os.path.basename(path)}: suite {suite.suite_id} ({len(suite)} task(s))"
        return Loaded(suite=suite, label=label, path=path)
    result = load_runs(path, format=format, error_rule=error_rule)
    return _promoted(result, path)


def error_lines(exc: BaseException) -> list[str]:
    """The messages to show for a failed load: every problem of a ``LoadError``, one a line."""
    if isinstance(exc, PathLoadError):
        return [
            *error_lines(exc.error),
            f"{exc.given} is a relative path: it was resolved against the notebook's folder "
            f"{exc.folder}",
        ]
    if isinstance(exc, LoadError) and exc.problems:
        return [str(problem) for problem in exc.problems]
    if isinstance(exc, JSONFileError | SuiteError | OSError | ValueError | KeyError):
        return [str(exc)]
    return [f"{type(exc).__name__}: {exc}"]


class LoadPanel:
    """Path box, upload, format and error rule; the load status (errors by file and line)."""

    def __init__(self, wb: WorkbenchState) -> None:
        self._wb = wb
        self.path = w.Text(
            description="path", placeholder="run or suite file", layout=w.Layout(width="60%")
        )
        self.path.add_class("wb-load-path")
        self.format = w.Dropdown(options=LOAD_FORMATS, value="auto", description="format")
        self.rule_kind = w.Dropdown(
            options=[("error prefix", "prefix"), ("error regex", "regex")],
            value="prefix",
            description="error rule",
            tooltip="formats without an error flag: a result whose text starts with the prefix "
            "(or matches the regular expression, re.search) failed (R36)",
        )
        self.error_rule = w.Text(value="Error:", placeholder="prefix or regular expression")
        self.button = w.Button(description="Load", icon="folder-open")
        self.button.add_class("wb-load-button")
        self.button.add_class("wb-btn-primary")
        self.button.on_click(lambda _b: self.load_path())
        self.upload = w.FileUpload(
            accept=".json,.jsonl,.ndjson,.eval,.traj,.yaml,.yml,.gz", multiple=False
        )
        self.upload.observe(self._on_upload, names="value")
        self.status = w.HTML()
        self.status.add_class("wb-load-status")
        self.widget = w.VBox(
            [
                w.HBox([self.path, self.button]),
                w.HBox([self.format, self.rule_kind, self.error_rule, self.upload]),
                self.status,
            ]
        )
        self.widget.add_class("wb-load")

    def rule(self) -> ErrorRule:
        """The error rule from the box: a prefix, or a regular expression (empty: no rule).

        Raises ``ValueError`` for a regular expression that does not compile (shown in place)."""
        if self.rule_kind.value == "regex" and self.error_rule.value:
            try:
                return ErrorRule.regex(self.error_rule.value)
            except re.error as exc:
                raise ValueError(
                    f"error regex {self.error_rule.value!r} is not a regular expression: {exc}"
                ) from exc
        return ErrorRule.prefix(self.error_rule.value)

    def show_loaded(self, loaded: Loaded) -> None:
        """Show what was loaded."""
        self.status.value = f'<span class="wb-ok">Loaded {esc(loaded.label)}</span>'

    def show_error(self, exc: BaseException) -> None:
        """Show a load error in place: every problem, naming its file and line."""
        items = "".join(f"<li>{esc(line)}</li>" for line in error_lines(exc))
        self.status.value = f'<div class="wb-error"><b>Could not load</b><ul>{items}</ul></div>'

    def load_path(self, path: str | None = None) -> bool:
        """Load the path in the box (or ``path``); True when it loaded."""
        target = path if path is not None else self.path.value.strip()
        if not target:
            self.show_error(ValueError("give a path to a run or suite file"))
            return False
        try:
            loaded = load_source(
                target, format=self.format.value, error_rule=self.rule(), folder=self._wb.folder
            )
        except Exception as exc:  # shown in place, the widget stays usable
            self.show_error(exc)
            return False
        self._wb.set_loaded(loaded)
        return True

    def _on_upload(self, change: Mapping[str, Any]) -> None:
        files = change.get("new") or ()
        if not files:
            return
        item = files[0]
        name = os.path.basename(str(item.get("name") or "upload.json")) or "upload.json"
        folder = tempfile.mkdtemp(prefix="workbench-upload-")
        target = Path(folder) / name
        target.write_bytes(bytes(item.get("content", b"")))
        self.path.value = str(target)
        self.load_path(str(target))
