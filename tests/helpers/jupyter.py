"""A real Jupyter server and headless Chromium for the browser tests (Playwright).

``running_lab`` starts ``jupyter lab --allow-root`` on a free port with a random token over a
scratch folder (so the files a notebook writes never land in the repository), with news and
update checks off; ``new_page`` opens a Chromium page whose every request off the machine is
blocked and recorded (:class:`OffMachine`), so a test can assert that nothing was fetched from a
CDN. The same server serves JupyterLab (``/lab/tree/...``) and Notebook 7 (``/notebooks/...``).

Chromium is Debian's ``/usr/bin/chromium`` (``.ci/run`` installs it); Playwright never downloads
a browser here. Without it the browser tests skip, except in CI, where that is a failure.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SCREENSHOTS_ENV = "WORKBENCH_SCREENSHOTS"
LAB_START_TIMEOUT_S = 90.0
STEP_TIMEOUT_MS = 60_000
FAILURE_SHOT = Path(tempfile.gettempdir()) / "workbench-browser-test-failure.png"
LOCAL_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]", "::1"})

UI = Literal["lab", "nb7"]


def require_chromium() -> Any:
    """The Playwright sync API; skips the module without a browser (fails in CI)."""
    if not CHROMIUM.exists():
        if os.environ.get("CI") == "true":
            raise RuntimeError(
                "CI=true but /usr/bin/chromium is missing: .ci/run did not install it"
            )
        pytest.skip(
            "needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)",
            allow_module_level=True,
        )
    return pytest.importorskip("playwright.sync_api", reason="needs the playwright package")


@dataclass(frozen=True, slots=True)
class Lab:
    """A running Jupyter server started by a test."""

    url: str
    """Base URL, e.g. ``http://127.0.0.1:8899``."""
    token: str
    """The server's random token."""
    root: Path
    """The server's root folder."""
    log: Path
    """The server's log file."""

    def open_url(self, path: str, ui: UI = "lab") -> str:
        """The URL that opens a notebook (``path`` relative to the root) in JupyterLab or
        Notebook 7."""
        if ui == "lab":
            return f"{self.url}/lab/tree/{path}?token={self.token}&reset"
        return f"{self.url}/notebooks/{path}?token={self.token}"

    def api(self, path: str, method: str = "GET") -> Any:
        request = urllib.request.Request(
            f"{self.url}{path}", method=method, headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            body = answer.read()
        return json.loads(body) if body else None

    def stop_kernels(self) -> None:
        """Shut down every kernel (each test starts from a fresh one)."""
        for kernel in self.api("/api/kernels") or []:
            with contextlib.suppress(OSError):
                self.api(f"/api/kernels/{kernel['id']}", method="DELETE")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def notebook(cells: Sequence[str]) -> dict[str, Any]:
    """A notebook of code cells, no outputs, python3 kernel."""
    return {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": None,
                "id": f"cell{i}",
                "metadata": {},
                "outputs": [],
                "source": source,
            }
            for i, source in enumerate(cells)
        ],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def write_notebook(path: Path, cells: Sequence[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(notebook(cells)), encoding="utf-8")


def _settings(base: Path, theme: str | None) -> Path:
    folder = base / "settings"
    values: dict[str, dict[str, Any]] = {
        # No news or update checks: the toast would cover the page and there is no network.
        "apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
        # Start the notebook's own kernel (python3) without the Select Kernel dialog.
        "notebook-extension/tracker": {"autoStartDefaultKernel": True},
    }
    if theme is not None:
        values["apputils-extension/themes"] = {"theme": theme}
    for name, value in values.items():
        target = folder / "@jupyterlab" / f"{name}.jupyterlab-settings"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(value), encoding="utf-8")
    return folder


@contextlib.contextmanager
def running_lab(base: Path, *, theme: str | None = None) -> Iterator[Lab]:
    """Start ``jupyter lab`` over ``base / "root"`` (made if missing); stop it and its kernels
    afterwards. ``theme``: JupyterLab's theme name (``JupyterLab Dark``)."""
    root = base / "root"
    root.mkdir(parents=True, exist_ok=True)
    settings = _settings(base, theme)
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(os.environ)
    env.update(
        PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p),
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(base / "workspaces"),
        JUPYTER_RUNTIME_DIR=str(base / "runtime"),
        IPYTHONDIR=str(base / "ipython"),
    )
    log_path = base / "lab.log"
    log = log_path.open("w")
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
                pytest.fail(f"jupyter lab exited with {proc.returncode}:\n{tail(log_path)}")
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(
                    f"jupyter lab not ready in {LAB_START_TIMEOUT_S:.0f} s:\n{tail(log_path)}"
                )
            time.sleep(0.25)
        yield Lab(url=url, token=token, root=root, log=log_path)
    finally:
        _stop(proc)
        log.close()


def tail(path: Path, lines: int = 40) -> str:
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


@contextlib.contextmanager
def chromium(sync_api: Any) -> Iterator[Any]:
    """Headless Debian Chromium through Playwright."""
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


@dataclass
class OffMachine:
    """Blocks and records every request that would leave the machine."""

    blocked: list[str] = field(default_factory=list)

    def install(self, context: Any) -> None:
        def route(route_: Any) -> None:
            url = route_.request.url
            scheme = urlsplit(url).scheme
            host = urlsplit(url).hostname or ""
            if scheme in ("data", "blob") or host in LOCAL_HOSTS:
                route_.continue_()
            else:
                self.blocked.append(url)
                route_.abort()

        context.route("**/*", route)


@dataclass
class Page:
    """A Chromium page with its console errors, dialogs and blocked requests recorded."""

    page: Any
    guard: OffMachine
    errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)


def new_page(browser: Any, *, width: int = 1500, height: int = 1200) -> Page:
    """A new page in a new context, every off-machine request blocked and recorded."""
    context = browser.new_context(viewport={"width": width, "height": height})
    guard = OffMachine()
    guard.install(context)
    page = context.new_page()
    held = Page(page, guard)

    def on_dialog(dialog: Any) -> None:
        held.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on("pageerror", lambda exc: held.errors.append(str(exc)))
    page.on("console", lambda m: held.errors.append(m.text) if m.type == "error" else None)
    return held


def open_notebook(sync_api: Any, page: Any, lab: Lab, path: str, ui: UI = "lab") -> None:
    """Open a notebook and wait for its kernel to be idle."""
    page.goto(lab.open_url(path, ui))
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=STEP_TIMEOUT_MS)
    dialog = page.locator(".jp-Dialog", has_text="Select Kernel")
    try:
        dialog.wait_for(state="visible", timeout=2000)
    except sync_api.TimeoutError:
        pass
    else:
        dialog.locator(".jp-mod-accept").click()
    page.wait_for_function(
        "() => [...document.querySelectorAll('.jp-Notebook-ExecutionIndicator, "
        ".jp-Toolbar-kernelStatus, .jp-KernelStatus')].some(e => /idle/i.test("
        "e.getAttribute('data-status') || e.getAttribute('title') || e.textContent || ''))",
        timeout=STEP_TIMEOUT_MS,
    )


_STARTED = (
    "() => [...document.querySelectorAll('.jp-Notebook .jp-InputArea-prompt')]"
    ".some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent))"
)


def run_all_cells(page: Any) -> None:
    """Run > Run All Cells, from the menu bar as a user would (JupyterLab and Notebook 7);
    once more if no cell started within 15 s (a click can land while the page still settles)."""
    for attempt in range(2):
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        try:
            page.wait_for_function(_STARTED, timeout=15_000)
            return
        except Exception:
            if attempt:
                raise
            page.keyboard.press("Escape")


def run_first_cell(page: Any) -> None:
    """Run the first cell alone (Shift+Enter on it, as a user would); once more if it has not
    started within 15 s (a key press can land while the page still settles)."""
    cell = page.locator(".jp-Notebook .jp-CodeCell").first
    for attempt in range(2):
        cell.locator(".jp-InputArea-prompt").click()
        page.keyboard.press("Shift+Enter")
        try:
            page.wait_for_function(_STARTED, timeout=15_000)
            return
        except Exception:
            if attempt:
                raise


def cell_errors(page: Any) -> str:
    """The text of any traceback in the open notebook (to say why a wait failed)."""
    errors = page.locator(
        ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr'], "
        ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.error']"
    )
    return "\n".join(errors.all_inner_texts())[-3000:]


def wait_visible(
    sync_api: Any, page: Any, locator: Any, what: str, timeout_ms: int = STEP_TIMEOUT_MS
) -> None:
    """Wait for ``locator`` to be visible; on timeout fail with the notebook's tracebacks."""
    try:
        locator.wait_for(state="visible", timeout=timeout_ms)
    except sync_api.TimeoutError:
        page.screenshot(path=str(FAILURE_SHOT), full_page=True)
        pytest.fail(
            f"{what} did not appear in {timeout_ms / 1000:.0f} s (page: {FAILURE_SHOT})\n"
            f"{cell_errors(page)}"
        )


def tab(widget: Any, title: str) -> None:
    """Select one of the Workbench's tabs (an ipywidgets Tab: a Lumino tab bar)."""
    widget.locator(".lm-TabBar-tab", has_text=title).first.click()


def shots_folder(tmp: Path) -> Path:
    """Where screenshots go: $WORKBENCH_SCREENSHOTS if set, else ``tmp``."""
    chosen = os.environ.get(SCREENSHOTS_ENV)
    folder = Path(chosen).resolve() if chosen else tmp
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shot(
    page: Any, folder: Path, top: Any, name: str, bottom: Any = None, max_height: int = 1100
) -> Path:
    """Save the page region from ``top``'s top to ``bottom``'s bottom (default: ``top``'s), at
    most ``max_height`` pixels tall, as ``folder/name``."""
    top.evaluate("el => el.scrollIntoView({block: 'start'})")  # its top at the view's top
    top.page.wait_for_timeout(200)
    box = top.bounding_box()
    end = (bottom or top).bounding_box()
    assert box is not None and end is not None, f"{name}: nothing to photograph"
    height = min(end["y"] + end["height"] - box["y"], max_height)
    target = folder / name
    page.screenshot(
        path=str(target),
        clip={"x": box["x"], "y": box["y"], "width": box["width"], "height": height},
    )
    return target


def copy_tree(pairs: Mapping[Path, Path]) -> None:
    import shutil

    for source, target in pairs.items():
        shutil.copytree(source, target)
