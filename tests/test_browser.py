"""End to end in a real JupyterLab, driven in headless Chromium by Playwright.

The test starts ``jupyter lab`` over a scratch copy of ``notebooks/`` and ``fixtures/``, opens the
quickstart notebook and runs all cells from the Run menu. It checks the notebook's own branch
chart is live (its static PNG twin hidden), then, in the Workbench widget: flips one boundary's
isError toggle in the virtualised table (marked as an edit, apart from the recorded failure) and
opens its full args and result; replays and checks the aligned diff marks the flipped call
changed and failed (SPEC R17) with the retry one added row; saves the suite next to the notebook
and replays the file with the CLI; resets; sweeps, clicks a branch node in the chart (drawn as
SVG, found by its ARIA label) and checks the diff switches to that branch's variant (R33). Then
it loads recorded runs whose tool results hold ``<img src=x onerror=...>`` and checks nothing
ran: no dialog, no flag set on ``window``, no element made; the payload shows as text. No request
leaves the machine.

Screenshots of each step go to pytest's temporary folder; with
``WORKBENCH_SCREENSHOTS=docs/screenshots`` they go there instead, which is how the user guide's
(docs/guide.md) are refreshed:

    WORKBENCH_SCREENSHOTS=docs/screenshots python -m pytest tests/test_browser*.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers import jupyter as J

pytestmark = pytest.mark.browser
sync_api = J.require_chromium()

RUN_ALL_TIMEOUT_MS = 120_000
FLIPPED_BOUNDARY = 2  # billing:lookup: recorded as a success, so the flip is a new failure
FLIPPED_TOOL = "billing:lookup"
SELECTED_VARIANT = "b07-transient"  # the first variant on the branch where boundary 7 fails
HOSTILE_FLAG = "__wbHostilePayloadRan"


def _hostile_cells() -> list[str]:
    return [
        "from IPython.display import display\n"
        "from workbench.widgets import Workbench\n"
        "display(Workbench('../fixtures/samples/hostile-payload.openwop.jsonl'))\n"
        "display(Workbench('hostile-flag.openwop.jsonl'))\n"
    ]


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
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[J.Lab]:
    base = tmp_path_factory.mktemp("lab")
    root = base / "root"
    J.copy_tree({J.ROOT / "notebooks": root / "notebooks", J.ROOT / "fixtures": root / "fixtures"})
    _write_flag_variant(
        root / "fixtures" / "samples" / "hostile-payload.openwop.jsonl",
        root / "notebooks" / "hostile-flag.openwop.jsonl",
    )
    J.write_notebook(root / "notebooks" / "hostile.ipynb", _hostile_cells())
    with J.running_lab(base) as running:
        yield running


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return J.shots_folder(tmp_path_factory.mktemp("screenshots"))


@pytest.mark.slow
def test_workbench_end_to_end_in_jupyterlab(lab: J.Lab, shots: Path) -> None:
    """Run the quickstart in JupyterLab, flip a boundary in the widget and replay: the aligned
    diff marks the flipped call failed (R17); export and replay the export with the CLI; sweep,
    click a branch in the chart and see its variant's trajectory (R33). Hostile payloads render
    as inert text. Nothing is fetched from off the machine."""
    with J.chromium(sync_api) as browser:
        held = J.new_page(browser, height=1600)
        page = held.page
        J.open_notebook(sync_api, page, lab, "notebooks/01-quickstart.ipynb")
        page.keyboard.press("Control+b")  # hide the file browser: room for the widget
        J.run_all_cells(page)

        # Load: the last cell shows the Workbench on the Boundaries tab.
        widget = page.locator(".wb-workbench").last
        table = widget.locator(".wb-boundary-table")
        J.wait_visible(sync_api, page, table.locator(".wb-g-row").first, "the table",
                       RUN_ALL_TIMEOUT_MS)  # fmt: skip
        assert table.locator(".wb-g-row:visible").count() == 12, "12 boundaries"
        assert table.locator(".wb-g-row.wb-g-recfail").count() == 1  # boundary 3, recorded
        # The notebook's own branch chart (a cell above) is live, its PNG twin hidden.
        live = page.locator(".jp-OutputArea-output .wb-chart-with-twin svg.marks").first
        J.wait_visible(sync_api, page, live, "the notebook's live branch chart")
        twins = page.locator(".jp-OutputArea-output[data-mime-type='image/png']")
        assert twins.count() >= 1 and not twins.first.is_visible()
        J.shot(page, shots, widget, "load.png", max_height=760)

        # Flip: boundary 2 (billing:lookup) recorded as a success, now isError: an edit.
        row = table.locator(f".wb-g-row[data-index='{FLIPPED_BOUNDARY}']")
        row.locator(".wb-g-toggle").click()
        page.wait_for_function(
            "el => el.classList.contains('wb-g-edited') && "
            "el.querySelector('.wb-g-toggle').textContent === 'isError'",
            arg=row.element_handle(),
        )
        assert row.get_attribute("data-kind") == "flip"
        row.locator(".wb-g-toolc").click()  # the full view of the call
        detail = table.locator(".wb-g-detail")
        page.wait_for_function(
            "el => el.textContent.includes('its text, as the agent reads it')",
            arg=detail.element_handle(),
        )
        assert "edited: flip" in detail.inner_text()
        J.shot(page, shots, widget, "flip.png", max_height=900)

        # Replay: the diff aligns the baseline and this run; the flipped call is changed and
        # failed, its retry one added row.
        J.tab(widget, "Replay")
        widget.locator(".wb-replay-button").click()
        diff = widget.locator(".wb-replay .wb-trajectory")
        changed = diff.locator(".wb-g-row.wb-g-changed .wb-g-m-fail", has_text=FLIPPED_TOOL)
        J.wait_visible(sync_api, page, changed.first, "the changed call in the diff")
        assert diff.locator(".wb-g-row.wb-g-added").count() == 1
        assert "diverges at step 2" in widget.locator(".wb-replay .wb-compare-summary").inner_text()
        J.shot(page, shots, widget, "replay.png", max_height=900)

        # Export: the path defaults next to the notebook; the CLI replays the file (exit 1).
        J.tab(widget, "Export")
        path = Path(widget.locator(".wb-export-path input").input_value())
        assert path == lab.root / "notebooks" / "billing-support.suite.json", path
        widget.locator(".wb-save-button").click()
        J.wait_visible(sync_api, page, widget.locator(".wb-export-output", has_text="saved"),
                       "the save message")  # fmt: skip
        J.shot(page, shots, widget, "export.png")
        done = subprocess.run(
            [sys.executable, "-m", "workbench.cli", "replay", str(path)],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "PYTHONPATH": str(J.ROOT)},
        )
        assert done.returncode == 1, done.stdout + done.stderr

        J.tab(widget, "Boundaries")
        widget.locator(".wb-reset-button").click()
        page.wait_for_function(
            "el => !el.classList.contains('wb-g-edited')", arg=row.element_handle()
        )
        # Reset cleared it (the output's own update may come after the row's)
        page.wait_for_function(
            "el => el.innerText === ''",
            arg=widget.locator(".wb-export-output").element_handle(),
            timeout=10_000,
        )

        # Sweep & branches: the branch chart; a click on a node picks its variant for the diff.
        J.tab(widget, "Sweep & branches")
        widget.locator(".wb-sweep-button").click()
        chart = widget.locator(".wb-branch-chart")
        J.wait_visible(sync_api, page, chart.locator("svg.marks").first, "the branch chart")
        right = widget.locator(".wb-variant-compare .wb-compare-right select")
        page.wait_for_function("el => el.value !== ''", arg=right.element_handle())
        assert right.input_value() != SELECTED_VARIANT
        node = chart.locator(
            f"svg .mark-symbol path[aria-label*='call: error served'][aria-label$="
            f"'variants: {SELECTED_VARIANT}, {SELECTED_VARIANT.replace('transient', 'hard')}']"
        )
        assert node.count() == 1, "one branch node carries both b07 variants"
        node.click()
        page.wait_for_function(
            "([el, want]) => el.value === want", arg=[right.element_handle(), SELECTED_VARIANT]
        )
        summary = widget.locator(".wb-variant-compare .wb-compare-summary")
        page.wait_for_function(
            "el => el.textContent.includes('diverges at step 7')", arg=summary.element_handle()
        )
        J.shot(page, shots, widget, "sweep.png", max_height=1500)
        assert held.guard.blocked == [], held.guard.blocked

        # Hostile payloads: shown as text, never run. A new page: leaving the edited notebook
        # would ask "leave page?" (a beforeunload dialog, which is not what is tested here).
        hostile = J.new_page(browser)
        J.open_notebook(sync_api, hostile.page, lab, "notebooks/hostile.ipynb")
        J.run_all_cells(hostile.page)
        tables = hostile.page.locator(".wb-boundary-table")
        J.wait_visible(sync_api, hostile.page, tables.nth(1).locator(".wb-g-row").first,
                       "the hostile payload tables", RUN_ALL_TIMEOUT_MS)  # fmt: skip
        hostile.page.wait_for_timeout(1000)  # give any injected handler the chance to fire
        assert "onerror=alert(1)" in tables.first.inner_text()
        assert f"onerror=window.{HOSTILE_FLAG}=1" in tables.nth(1).inner_text()
        tables.nth(1).locator(".wb-g-row .wb-g-toolc").first.click()
        hostile.page.wait_for_timeout(1000)
        assert "<script>" in tables.nth(1).locator(".wb-g-detail").inner_text()
        assert hostile.dialogs == [] and held.dialogs == [], hostile.dialogs
        assert hostile.page.evaluate(f"() => window.{HOSTILE_FLAG} === undefined")
        assert hostile.page.locator(".wb-workbench img, .wb-workbench script").count() == 0
        assert hostile.guard.blocked == []
        assert json.dumps(hostile.errors).count(HOSTILE_FLAG) == 0
