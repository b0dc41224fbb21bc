"""The widget's chart renders offline in a fresh kernel with nothing shown before it, in
JupyterLab and in Notebook 7 (SPEC R33 drawn; issue 12).

Each test writes a new notebook whose only cell is the Workbench on the bundled billing run,
opens it in a fresh kernel, runs a sweep from the widget and waits for the branch chart's marks.
Every request that would leave the machine is blocked and recorded (a CDN fetch of vega-embed
would be one); the test fails on any, and on any page error. It also checks the Vega bundle
never came from a network: the chart's module carries it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import jupyter as J

pytestmark = pytest.mark.browser
sync_api = J.require_chromium()

CELL = (
    "from workbench.widgets import Workbench\n"
    "Workbench('../fixtures/billing-support.openwop.jsonl')"
)


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[J.Lab]:
    base = tmp_path_factory.mktemp("offline")
    J.copy_tree({J.ROOT / "fixtures": base / "root" / "fixtures"})
    for ui in ("lab", "nb7"):
        J.write_notebook(base / "root" / "fresh" / f"widget-alone-{ui}.ipynb", [CELL])
    with J.running_lab(base) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with J.chromium(sync_api) as running:
        yield running


@pytest.mark.slow
@pytest.mark.parametrize("ui", ["lab", "nb7"])
def test_the_widget_alone_draws_its_chart_offline_in_a_fresh_kernel(
    lab: J.Lab, browser: Any, ui: J.UI, tmp_path: Path
) -> None:
    lab.stop_kernels()
    held = J.new_page(browser)
    page = held.page
    try:
        J.open_notebook(sync_api, page, lab, f"fresh/widget-alone-{ui}.ipynb", ui)
        J.run_all_cells(page)
        widget = page.locator(".wb-workbench").last
        J.wait_visible(sync_api, page, widget.locator(".wb-g-row").first, "the boundary table")
        J.tab(widget, "Sweep & branches")
        widget.locator(".wb-sweep-button").click()
        chart = widget.locator(".wb-branch-chart")
        J.wait_visible(sync_api, page, chart.locator("svg.marks").first, "the branch chart")
        assert chart.locator("svg.marks .mark-symbol path").count() > 10
        assert "javascript error" not in chart.inner_text().lower()
        if ui == "nb7":
            J.shot(page, J.shots_folder(tmp_path), widget, "notebook7.png", max_height=900)
        assert held.guard.blocked == [], f"requests off the machine: {held.guard.blocked}"
        assert not [e for e in held.errors if "vega" in e.lower() or "esm" in e.lower()], (
            held.errors
        )
    finally:
        page.context.close()
