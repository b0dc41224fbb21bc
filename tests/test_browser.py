"""End to end in a real JupyterLab, driven in headless Chromium by Playwright.

The test starts ``jupyter lab`` on a free port with a random token, serving a scratch copy of
``notebooks/`` and ``fixtures/``; opens the quickstart notebook; runs all cells from the Run menu;
waits for the Workbench widget's boundary table and branch chart; flips one boundary's isError
toggle, replays, and checks the new trajectory marks the flipped call failed (SPEC R17); runs a
sweep, clicks a branch node in the branch chart (drawn as SVG, found by its ARIA label) and checks
the variant trajectory view switches to that branch's variant (R33). Then it loads recorded
runs whose tool results hold ``<img src=x onerror=...>`` and checks nothing ran: no dialog
opened and no flag was set on ``window``; the payload shows as text.

It uses the system Chromium (/usr/bin/chromium, Debian's ``chromium`` package, which ``.ci/run``
installs); it never downloads a browser. Without /usr/bin/chromium it skips. Screenshots of each
step go to pytest's temporary folder; with ``WORKBENCH_SCREENSHOTS=docs/screenshots`` (a folder,
relative to the current directory) they go there instead, which is how the user guide's
(docs/guide.md) are refreshed:

    WORKBENCH_SCREENSHOTS=docs/screenshots python -m pytest tests/test_browser.py
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from helpers.paths import ROOT

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS_ENV = "WORKBENCH_SCREENSHOTS"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LAB_START_TIMEOUT_S = 60.0
RUN_ALL_TIMEOUT_MS = 90_000
STEP_TIMEOUT_MS = 30_000
FLIPPED_BOUNDARY = 2  # billing:lookup: recorded as a success, so the flip is a new failure
FLIPPED_TOOL = "billing:lookup"
SELECTED_VARIANT = "b07-transient"  # the first variant on the branch where boundary 7 fails
HOSTILE_FLAG = "__wbHostilePayloadRan"
FAILURE_SHOT = Path(tempfile.gettempdir()) / "workbench-browser-test-failure.png"

if not CHROMIUM.exists():
    if os.environ.get("CI") == "true":
        # .ci/run installs chromium first; in CI a missing browser is a failure, never a skip.
        raise RuntimeError("CI=true but /usr/bin/chromium is missing: .ci/run did not install it")
    pytest.skip(
        "needs Debian's chromium at /usr/bin/chromium (CI installs it: apt-get install chromium)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip("playwright.sync_api", reason="needs the playwright package")


@dataclass(frozen=True, slots=True)
class Lab:
    """A running JupyterLab server started by the test."""

    url: str
    """Base URL, e.g. ``http://127.0.0.1:8899``."""
    token: str
    """The server's random token."""
    root: Path
    """The server's root directory (a scratch copy of notebooks/ and fixtures/)."""

    def open_url(self, path: str) -> str:
        return f"{self.url}/lab/tree/{path}?token={self.token}&reset"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _hostile_notebook() -> dict[str, Any]:
    """A one-cell notebook that opens the Workbench on the two hostile recordings."""
    source = (
        "from IPython.display import display\n"
        "from workbench.widgets import Workbench\n"
        "display(Workbench('../fixtures/samples/hostile-payload.openwop.jsonl'))\n"
        "display(Workbench('hostile-flag.openwop.jsonl'))\n"
    )
    return {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": "hostile",
                "metadata": {},
                "outputs": [],
                "source": source,
            }
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def _write_flag_variant(source: Path, target: Path) -> None:
    """The bundled hostile log with an onerror that sets a window flag instead of alert()."""
    lines = source.read_text(encoding="utf-8").splitlines()
    target.write_text(
        "\n".join(
            line.replace("onerror=alert(1)", f"onerror=window.{HOSTILE_FLAG}=1").replace(
                "<script>alert(2)</script>", f"<script>window.{HOSTILE_FLAG}=2</script>"
            )
            for line in lines
        )
        + "\n",
        encoding="utf-8",
    )


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    """Start JupyterLab on a scratch copy of the notebooks; wait (bounded) until it answers."""
    base = tmp_path_factory.mktemp("lab")
    root = base / "root"
    shutil.copytree(ROOT / "notebooks", root / "notebooks")
    shutil.copytree(ROOT / "fixtures", root / "fixtures")
    _write_flag_variant(
        root / "fixtures" / "samples" / "hostile-payload.openwop.jsonl",
        root / "notebooks" / "hostile-flag.openwop.jsonl",
    )
    (root / "notebooks" / "hostile.ipynb").write_text(json.dumps(_hostile_notebook()))
    settings = base / "settings" / "@jupyterlab"
    (settings / "apputils-extension").mkdir(parents=True)
    (settings / "notebook-extension").mkdir(parents=True)
    # No news or update checks: the toast would cover the page and there is no network anyway.
    (settings / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    # Start the notebook's own kernel (python3) without the Select Kernel dialog.
    (settings / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
        json.dumps({"autoStartDefaultKernel": True})
    )
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(os.environ)
    env.update(
        PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p),
        JUPYTERLAB_SETTINGS_DIR=str(base / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(base / "workspaces"),
        JUPYTER_RUNTIME_DIR=str(base / "runtime"),
        IPYTHONDIR=str(base / "ipython"),
    )
    log = (base / "lab.log").open("w")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyterlab",
            "--allow-root",
            "--no-browser",
            "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}",
            "--ServerApp.port_retries=0",
            f"--ServerApp.token={token}",
            f"--ServerApp.root_dir={root}",
            "--LabApp.news_url=",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=root,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + LAB_START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                pytest.fail(
                    f"jupyter lab exited with {proc.returncode}:\n{_tail(base / 'lab.log')}"
                )
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"jupyter lab not ready in {LAB_START_TIMEOUT_S:.0f} s:\n"
                    f"{_tail(base / 'lab.log')}"
                )
            time.sleep(0.25)
        yield Lab(url=url, token=token, root=root)
    finally:
        _stop(proc)
        log.close()


def _tail(path: Path, lines: int = 40) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop the server we started (and its kernels, which share its process group)."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=5)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield chromium
        finally:
            chromium.close()


def _run_all_cells(page: Any) -> None:
    """Run > Run All Cells, from the menu bar as a user would."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()


def _open_notebook(page: Any, lab: Lab, path: str) -> None:
    page.goto(lab.open_url(path))
    page.wait_for_selector(".jp-NotebookPanel .jp-Notebook", timeout=STEP_TIMEOUT_MS)
    # Should the settings above not apply, answer the Select Kernel dialog with its default.
    dialog = page.locator(".jp-Dialog", has_text="Select Kernel")
    try:
        dialog.wait_for(state="visible", timeout=3000)
    except sync_api.TimeoutError:
        pass
    else:
        dialog.locator(".jp-mod-accept").click()
    # The kernel is ready when the toolbar's status reads Idle.
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-Toolbar-kernelStatus, "
        ".jp-Notebook-ExecutionIndicator')].some(e => /idle/i.test("
        "e.getAttribute('data-status') || e.getAttribute('title') || e.textContent || ''))",
        timeout=STEP_TIMEOUT_MS,
    )


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: $WORKBENCH_SCREENSHOTS if set, else a pytest temporary folder."""
    chosen = os.environ.get(SCREENSHOTS_ENV)
    folder = Path(chosen).resolve() if chosen else tmp_path_factory.mktemp("screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _shot(
    page: Any, folder: Path, top: Any, name: str, bottom: Any = None, max_height: int = 1100
) -> None:
    """Save the page region from ``top``'s top to ``bottom``'s bottom (default: ``top``'s),
    at most ``max_height`` pixels tall, as ``folder/name``."""
    top.scroll_into_view_if_needed()
    box = top.bounding_box()
    end = (bottom or top).bounding_box()
    assert box is not None and end is not None, f"{name}: nothing to photograph"
    height = min(end["y"] + end["height"] - box["y"], max_height)
    page.screenshot(
        path=str(folder / name),
        clip={"x": box["x"], "y": box["y"], "width": box["width"], "height": height},
    )


def _cell_errors(page: Any) -> str:
    """The text of any traceback in the open notebook (to say why a wait failed)."""
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    return "\n".join(errors.all_inner_texts())[-3000:]


def _wait(page: Any, locator: Any, what: str, timeout_ms: int = STEP_TIMEOUT_MS) -> None:
    """Wait for ``locator`` to be visible; on timeout fail with the notebook's tracebacks."""
    try:
        locator.wait_for(state="visible", timeout=timeout_ms)
    except sync_api.TimeoutError:
        page.screenshot(path=str(FAILURE_SHOT), full_page=True)
        pytest.fail(
            f"{what} did not appear in {timeout_ms / 1000:.0f} s (page: {FAILURE_SHOT})\n"
            f"{_cell_errors(page)}"
        )


def _tab(widget: Any, title: str) -> None:
    """Select one of the Workbench's tabs (an ipywidgets Tab: a Lumino tab bar)."""
    widget.locator(".lm-TabBar-tab", has_text=title).first.click()


def test_workbench_end_to_end_in_jupyterlab(lab: Lab, browser: Any, shots: Path) -> None:
    """Run the quickstart in JupyterLab, flip a boundary in the widget and replay: the new
    trajectory marks the flipped call failed (R17); export and replay the export with the CLI;
    sweep, click a branch in the chart and see its variant's trajectory (R33). Hostile payloads
    render as inert text."""
    context = browser.new_context(viewport={"width": 1500, "height": 1600})
    page = context.new_page()
    dialogs: list[str] = []

    def on_dialog(dialog: Any) -> None:
        dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    try:
        _open_notebook(page, lab, "notebooks/01-quickstart.ipynb")
        page.keyboard.press("Control+b")  # hide the file browser: room for the widget
        _run_all_cells(page)

        # Load: the last cell shows the Workbench on the Boundaries tab.
        widget = page.locator(".wb-workbench").last
        table = widget.locator(".wb-boundary-table")
        _wait(page, table, "the Workbench boundary table", RUN_ALL_TIMEOUT_MS)
        rows = table.locator(".wb-boundary-row:visible")
        assert rows.count() == 12, "the billing run has 12 boundaries"
        # The notebook's own branch chart (a cell above) is drawn offline too.
        page.locator(".jp-OutputArea-output .marks").first.wait_for(
            state="visible", timeout=STEP_TIMEOUT_MS
        )
        _shot(page, shots, widget, "load.png", max_height=720)

        # Flip: boundary 2 (billing:lookup) recorded as a success, now isError.
        toggle = widget.locator(f".wb-toggle-{FLIPPED_BOUNDARY}")
        toggle.click()
        page.wait_for_function(
            "el => el.textContent.includes('isError')", arg=toggle.element_handle()
        )
        _shot(page, shots, widget, "flip.png", max_height=720)

        # Replay: the new trajectory marks billing:lookup failed.
        _tab(widget, "Replay")
        widget.locator(".wb-replay-button").click()
        failed = widget.locator(".wb-trajectory .wb-failed", has_text=FLIPPED_TOOL)
        _wait(page, failed.first, "the failed call in the new trajectory")
        assert "failed" in widget.locator(".wb-trajectory").inner_text()
        _shot(page, shots, widget, "replay.png", max_height=900)

        # Export: save the edited suite; the CLI replays the file (exit 1: the flip fails it).
        _tab(widget, "Export")
        path = widget.locator(".wb-export-path input").input_value()
        widget.locator(".wb-save-button").click()
        _wait(page, widget.locator(".wb-export-output", has_text="saved"), "the save message")
        _shot(page, shots, widget, "export.png")
        saved = Path(path) if Path(path).is_absolute() else lab.root / "notebooks" / path
        done = subprocess.run(
            [sys.executable, "-m", "workbench.cli", "replay", str(saved)],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        assert done.returncode == 1, done.stdout + done.stderr

        _tab(widget, "Boundaries")
        widget.locator(".wb-reset-button").click()
        page.wait_for_function(
            "el => !el.textContent.includes('isError')", arg=toggle.element_handle()
        )
        # Sweep & branches: back to the suite as loaded, a single-fault sweep, the branch chart.
        _tab(widget, "Sweep & branches")
        widget.locator(".wb-sweep-button").click()
        chart = widget.locator(".wb-branch-chart")
        _wait(page, chart.locator(".marks").first, "the branch chart")
        # Select a branch in the chart (drawn as SVG: each node is an element with an ARIA
        # label): the variant trajectory view shows the branch's first variant.
        trajectory = widget.locator(".wb-variant-trajectory")
        _wait(page, trajectory.locator("table").first, "the variant trajectory")
        assert SELECTED_VARIANT not in trajectory.inner_text()
        node = chart.locator(
            f"svg .mark-symbol path[aria-label*='call: error served'][aria-label$="
            f"'variants: {SELECTED_VARIANT}, {SELECTED_VARIANT.replace('transient', 'hard')}']"
        )
        assert node.count() == 1, "one branch node carries both b07 variants"
        node.click()
        _wait(page, trajectory.locator("th", has_text=SELECTED_VARIANT), "the clicked variant")
        assert widget.locator(".wb-variant-picker select").input_value() == SELECTED_VARIANT
        _shot(page, shots, widget, "sweep.png", bottom=trajectory, max_height=1400)

        # Hostile payloads: shown as text, never run. A new page: leaving the edited notebook
        # would ask "leave page?" (a beforeunload dialog, which is not what is tested here).
        page = context.new_page()
        page.on("dialog", on_dialog)
        _open_notebook(page, lab, "notebooks/hostile.ipynb")
        _run_all_cells(page)
        tables = page.locator(".wb-boundary-table")
        _wait(page, tables.nth(1), "the hostile payload tables", RUN_ALL_TIMEOUT_MS)
        page.wait_for_timeout(1000)  # give any injected handler the chance to fire
        assert "onerror=alert(1)" in tables.first.inner_text()
        assert f"onerror=window.{HOSTILE_FLAG}=1" in tables.nth(1).inner_text()
        assert dialogs == [], f"a dialog opened: {dialogs}"
        assert page.evaluate(f"() => window.{HOSTILE_FLAG} === undefined")
        assert page.locator(".wb-workbench img, .wb-workbench script").count() == 0
    finally:
        context.close()
