"""End to end in a real JupyterLab, driven in headless Chromium by Playwright.

The test starts ``jupyter lab`` on a free port with a random token, serving a scratch copy of
``notebooks/`` and ``fixtures/``; opens the quickstart notebook; runs all cells from the Run menu;
waits for the Workbench widget's boundary table and branch chart; flips one boundary's isError
toggle, replays, and checks the new trajectory marks the flipped call failed (SPEC R17). Then it
loads recorded runs whose tool results hold ``<img src=x onerror=...>`` and checks nothing ran:
no dialog opened and no flag was set on ``window``; the payload shows as text.

It uses the system Chromium (/usr/bin/chromium, Debian's ``chromium`` package, which ``.ci/run``
installs); it never downloads a browser. Without /usr/bin/chromium it skips. Screenshots of each
step are written to docs/screenshots/ for the user guide (docs/guide.md).
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
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
SCREENSHOTS = ROOT / "docs" / "screenshots"
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
HOSTILE_FLAG = "__wbHostilePayloadRan"

if not CHROMIUM.exists():
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
        "from workbench.widgets import Workbench\n"
        "from ipywidgets import VBox\n"
        "VBox([\n"
        "    Workbench('../fixtures/samples/hostile-payload.openwop.jsonl'),\n"
        "    Workbench('hostile-flag.openwop.jsonl'),\n"
        "])\n"
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
    settings = base / "settings" / "@jupyterlab" / "apputils-extension"
    settings.mkdir(parents=True)
    # No news or update checks: the toast would cover the page and there is no network anyway.
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
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
    # The kernel is ready when the toolbar's status reads Idle.
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-Toolbar-kernelStatus, "
        ".jp-Notebook-ExecutionIndicator')].some(e => /idle/i.test("
        "e.getAttribute('data-status') || e.getAttribute('title') || e.textContent || ''))",
        timeout=STEP_TIMEOUT_MS,
    )


def _shot(locator: Any, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    locator.scroll_into_view_if_needed()
    locator.screenshot(path=str(SCREENSHOTS / name))


def test_workbench_end_to_end_in_jupyterlab(lab: Lab, browser: Any) -> None:
    """Run the quickstart in JupyterLab, flip a boundary in the widget and replay: the new
    trajectory marks the flipped call failed (R17). Hostile payloads render as inert text."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    dialogs: list[str] = []

    def on_dialog(dialog: Any) -> None:
        dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    try:
        _open_notebook(page, lab, "notebooks/01-quickstart.ipynb")
        _run_all_cells(page)

        table = page.locator(".wb-boundary-table").last
        table.wait_for(state="visible", timeout=RUN_ALL_TIMEOUT_MS)
        chart = page.locator(".wb-branch-chart").last
        chart.wait_for(state="visible", timeout=RUN_ALL_TIMEOUT_MS)
        # The chart is drawn (vega renders an svg or a canvas) and the table has its rows.
        chart.locator("svg, canvas").first.wait_for(state="visible", timeout=STEP_TIMEOUT_MS)
        assert table.locator("tr").count() > FLIPPED_BOUNDARY + 1

        widget = page.locator(".jp-OutputArea-output").filter(has=table).last
        _shot(widget, "load.png")

        toggle = widget.locator(f".wb-toggle-{FLIPPED_BOUNDARY}").first
        toggle.scroll_into_view_if_needed()
        toggle.click()
        _shot(widget, "flip.png")

        widget.locator(".wb-replay-button").first.click()
        trajectory = widget.locator(".wb-trajectory").first
        page.wait_for_function(
            "([el, tool]) => el.textContent.includes(tool + '!')",
            arg=[trajectory.element_handle(), FLIPPED_TOOL],
            timeout=STEP_TIMEOUT_MS,
        )
        assert f"{FLIPPED_TOOL}!" in trajectory.inner_text()
        _shot(widget, "replay.png")
        _shot(chart, "sweep.png")

        # Hostile payloads: shown as text, never run.
        _open_notebook(page, lab, "notebooks/hostile.ipynb")
        _run_all_cells(page)
        hostile = page.locator(".wb-boundary-table")
        page.wait_for_function(
            "() => document.querySelectorAll('.wb-boundary-table').length >= 2",
            timeout=RUN_ALL_TIMEOUT_MS,
        )
        page.wait_for_timeout(1000)  # give any injected handler the chance to fire
        assert "<img src=x onerror=alert(1)>" in hostile.first.inner_text()
        assert dialogs == [], f"a dialog opened: {dialogs}"
        assert page.evaluate(f"() => window.{HOSTILE_FLAG} === undefined")
        assert page.locator(".wb-boundary-table img").count() == 0
        assert page.locator(".wb-boundary-table script").count() == 0
    finally:
        context.close()
