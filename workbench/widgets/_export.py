"""The Export part: suite id, version and path; validation problems by JSON path; a chosen host
profile's refusal with its ``validation_error`` body; an atomic save that will not overwrite a
file changed on disk since it was loaded unless told to (``FileChangedError``).

Each button is one library call: :meth:`Suite.validate`, :func:`check_suite`, :meth:`Suite.save`.
The path defaults to the notebook's folder (never the data folder the run came from); a relative
path is taken from the notebook's folder, and every message names the file it means in full.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import ipywidgets as w

from workbench import FileChangedError, HostProfile, HostRefusal, OutputError, check_suite

from ._escape import esc
from ._paths import resolve

if TYPE_CHECKING:
    from ._state import WorkbenchState

__all__ = ["HOST_PROFILES", "ExportPanel"]

HOST_PROFILES: dict[str, HostProfile] = {
    "workbench": HostProfile.workbench(),
    "no fixture errors": HostProfile(name="no-fixture-errors", fixture_errors=False),
    "RFC 0081 only": HostProfile(
        name="rfc-0081-only",
        fixture_matching=False,
        fixture_errors=False,
        trials=False,
        trajectory=False,
        pre_post_events=False,
    ),
}
"""Host profiles to check a suite against (R10); a profile file can be given too."""

_ERR = 'class="wb-error"'


class ExportPanel:
    """Suite id, version, path; Validate, Check host, Save (with an overwrite checkbox)."""

    def __init__(self, wb: WorkbenchState) -> None:
        self._wb = wb
        wide = w.Layout(width="60%")
        self.suite_id = w.Text(description="suite id", layout=wide)
        self.version = w.Text(description="version")
        self.path = w.Text(description="path", placeholder="suite.json", layout=wide)
        self.path.add_class("wb-export-path")
        self.profile = w.Dropdown(options=[*HOST_PROFILES, "profile file"], description="host")
        self.profile_path = w.Text(placeholder="host profile JSON (for 'profile file')")
        self.overwrite = w.Checkbox(value=False, description="overwrite a file changed on disk")
        self.overwrite.add_class("wb-overwrite")
        self.validate_button = w.Button(description="Validate", icon="check")
        self.validate_button.add_class("wb-validate-button")
        self.host_button = w.Button(description="Check host", icon="server")
        self.host_button.add_class("wb-host-button")
        self.save_button = w.Button(description="Save", icon="save")
        self.save_button.add_class("wb-save-button")
        self.save_button.add_class("wb-btn-primary")
        self.validate_button.on_click(lambda _b: self.validate())
        self.host_button.on_click(lambda _b: self.check_host())
        self.save_button.on_click(lambda _b: self.save())
        self.output = w.HTML()
        self.output.add_class("wb-export-output")
        self.last_refusal: HostRefusal | None = None
        """The refusal of the last Check host (``None``: accepted, or not checked)."""
        self.widget = w.VBox(
            [
                self.suite_id,
                self.version,
                self.path,
                w.HBox([self.profile, self.profile_path]),
                self.overwrite,
                w.HBox([self.validate_button, self.host_button, self.save_button]),
                self.output,
            ]
        )
        self.widget.add_class("wb-export")

    def reload(self) -> None:
        """A new suite: fill the boxes from it."""
        suite = self._wb.suite
        self.suite_id.value = suite.suite_id
        self.version.value = suite.version
        self.path.value = self.default_path()
        self.overwrite.value = False
        self.clear_messages()

    def default_path(self) -> str:
        """Where Save writes by default: the suite's own file when it was loaded from one,
        else ``NAME.suite.json`` in the notebook's folder (never beside the data it came from)."""
        suite = self._wb.suite
        if suite.path:
            return suite.path
        source = self._wb.source_path
        stem = (Path(source).name.split(".")[0] if source else "") or (
            suite.suite_id.rsplit(".", 1)[-1] or "suite"
        )
        return str(self._wb.folder / f"{stem}.suite.json")

    def target(self) -> Path | None:
        """The path in the box, resolved against the notebook's folder."""
        text = self.path.value.strip()
        return resolve(text, self._wb.folder) if text else None

    def clear_messages(self) -> None:
        """Empty the output."""
        self.output.value = ""
        self.last_refusal = None

    def _apply_fields(self) -> None:
        data = self._wb.suite.data
        if self.suite_id.value and self.suite_id.value != data.get("suiteId"):
            data["suiteId"] = self.suite_id.value
        if self.version.value and self.version.value != data.get("version"):
            data["version"] = self.version.value

    def validate(self) -> bool:
        """``suite.validate()``: every problem listed by JSON path; True when valid."""
        self._apply_fields()
        problems = self._wb.suite.validate()
        if not problems:
            self.output.value = '<span class="wb-ok">valid</span>'
            return True
        items = "".join(f"<li><code>{esc(p.path)}</code>: {esc(p.message)}</li>" for p in problems)
        self.output.value = (
            f"<div {_ERR}><b>{len(problems)} validation problem(s)</b><ul>{items}</ul></div>"
        )
        return False

    def host_profile(self) -> HostProfile:
        """The chosen host profile."""
        if self.profile.value == "profile file":
            text = self.profile_path.value.strip()
            if not text:
                raise ValueError("give the path of a host profile JSON file")
            return HostProfile.load(resolve(text, self._wb.folder))
        return HOST_PROFILES[self.profile.value]

    def check_host(self) -> bool:
        """``check_suite(suite, profile)``: the refusal body shown; True when accepted."""
        self._apply_fields()
        self.last_refusal = None
        try:
            profile = self.host_profile()
            check_suite(self._wb.suite.data, profile)
        except HostRefusal as exc:
            self.last_refusal = exc
            body = json.dumps(exc.body, indent=2, ensure_ascii=False)
            self.output.value = (
                f"<div {_ERR}><b>400 refused by host</b><pre>{esc(body)}</pre></div>"
            )
            return False
        except (OSError, ValueError) as exc:
            self.output.value = f"<div {_ERR}>{esc(str(exc))}</div>"
            return False
        self.output.value = f'<span class="wb-ok">host {esc(profile.name)} accepts the suite</span>'
        return True

    def save(self) -> Path | None:
        """``suite.save(path, overwrite=...)`` when the suite is valid; refusals shown."""
        if not self.validate():
            return None
        target = self.target()
        if target is None:
            self.output.value = f"<div {_ERR}>give a path to save to</div>"
            return None
        suite = self._wb.suite
        own_file = suite.path is not None and os.path.abspath(target) == os.path.abspath(suite.path)
        if not own_file and target.exists() and not self.overwrite.value:
            self.output.value = (
                f"<div {_ERR}>{esc(str(target))} exists and is not the file this suite was loaded "
                "from; tick overwrite to replace it</div>"
            )
            return None
        try:
            # The path was typed here, so its missing folders are made (as a file dialog would).
            written = suite.save(target, overwrite=bool(self.overwrite.value), parents=True)
        except (FileChangedError, OutputError) as exc:
            self.output.value = f"<div {_ERR}><b>not saved</b>: {esc(str(exc))}</div>"
            return None
        except OSError as exc:
            self.output.value = (
                f"<div {_ERR}><b>not saved</b> to {esc(str(target))}: {esc(str(exc))}</div>"
            )
            return None
        self.overwrite.value = False
        self.output.value = f'<span class="wb-ok">saved {esc(str(written))}</span>'
        return written
