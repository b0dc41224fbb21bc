"""Colours from JupyterLab's CSS variables: every text of the widget at 4.5:1 or more, in
JupyterLab Light and JupyterLab Dark (WCAG 2.1 AA; issue 12).

One notebook shows the Workbench on the bundled billing run with one boundary flipped, one
fault injected (a recorded failure, an edit of each look, a selected row), a replay (its diff:
changed, added and removed rows, failed calls) and a sweep (the status, the table). Each tab is
opened in turn and every visible text in it is measured (tests/helpers/contrast.py); then the
theme is switched from the Settings menu, as a user would, and everything is measured again.
Screenshots of the dark theme go with the guide's.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import contrast
from helpers import jupyter as J

pytestmark = pytest.mark.browser
sync_api = J.require_chromium()

MINIMUM = 4.5
CELL = (
    "from workbench.widgets import Workbench\n"
    "wb = Workbench('../fixtures/billing-support.openwop.jsonl')\n"
    "wb.boundaries.flip(2)\n"
    "wb.boundaries.set_edit(6, 'transient')\n"
    "wb.replay_panel.run()\n"
    "wb.sweep_panel.kinds.value = ('hard',)\n"
    "wb.sweep_panel.run()\n"
    "wb.boundaries.flip(99)  # an error message, shown in place\n"
    "wb"
)
TABS = ("Boundaries", "Replay", "Sweep & branches", "Export", "Load")


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[J.Lab]:
    base = tmp_path_factory.mktemp("themes")
    J.copy_tree({J.ROOT / "fixtures": base / "root" / "fixtures"})
    J.write_notebook(base / "root" / "themes" / "contrast.ipynb", [CELL])
    with J.running_lab(base) as running:
        yield running


def _measure_tabs(page: Any, widget: Any, theme: str, folder: Path) -> list[str]:
    problems: list[str] = []
    J.tab(widget, "Boundaries")
    widget.locator(".wb-g-row[data-index='4'] .wb-g-toolc").click()  # a selected row
    for title in TABS:
        J.tab(widget, title)
        page.wait_for_timeout(400)
        found = contrast.measure(page)
        assert len(found) > 10, f"{theme} / {title}: only {len(found)} texts found"
        problems += [
            f"{theme} / {title}: {item['ratio']}:1 {item['tag']}.{item['cls']} {item['text']!r}"
            f" ({item['color']})"
            for item in contrast.failures(found, MINIMUM)
        ]
        if title in ("Boundaries", "Replay"):
            slug = theme.lower().replace(" ", "-")
            J.shot(page, folder, widget, f"theme-{slug}-{title.lower()}.png", max_height=900)
    return problems


@pytest.mark.slow
def test_every_text_of_the_widget_has_contrast_in_light_and_dark(
    lab: J.Lab, tmp_path: Path
) -> None:
    lab.stop_kernels()
    folder = J.shots_folder(tmp_path)
    with J.chromium(sync_api) as browser:
        held = J.new_page(browser, height=1300)
        page = held.page
        J.open_notebook(sync_api, page, lab, "themes/contrast.ipynb")
        page.keyboard.press("Control+b")
        J.run_all_cells(page)
        widget = page.locator(".wb-workbench").last
        J.wait_visible(sync_api, page, widget.locator(".wb-g-row").first, "the table", 120_000)
        assert page.evaluate("() => document.body.dataset.jpThemeLight") == "true"
        problems = _measure_tabs(page, widget, "JupyterLab Light", folder)

        page.locator(".lm-MenuBar-itemLabel", has_text="Settings").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
        page.locator(".lm-Menu-itemLabel", has_text="JupyterLab Dark").first.click()
        page.wait_for_function(
            "() => document.body.dataset.jpThemeLight === 'false'", timeout=30_000
        )
        page.wait_for_timeout(1000)
        problems += _measure_tabs(page, widget, "JupyterLab Dark", folder)
        assert held.guard.blocked == []
        assert not problems, "text under 4.5:1:\n" + "\n".join(problems)
