"""Timing the boundary table in the browser, with the browser's clock (``performance.now()``).

Each measure starts just before the user's action is dispatched (an ``input`` event, a header
click, a ``scrollTop`` change, a toggle click) and stops once the DOM shows the answer and the
next frame has been produced (``requestAnimationFrame`` then a task), so layout and paint are
counted, not only our handler. A toggle is timed twice: to the frame showing its new state (the
table shows a flip's outcome at once, marked pending) and to the row Python sent back (a round
trip through the kernel, pending mark gone).

Used by tests/test_browser_scale.py (which asserts the 100 ms budget) and by
benchmarks/widget.py (which prints medians).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

INSTALL = r"""(rootSel) => {
  const root = () => [...document.querySelectorAll(rootSel)].pop();
  const frame = () => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)));
  window.__wbPerf = {
    root,
    frame,
    async measure(act, done) {
      const t0 = performance.now();
      act(root());
      while (!done(root())) {
        await new Promise(r => requestAnimationFrame(r));
        if (performance.now() - t0 > 10000) return -1;
      }
      await frame();
      return performance.now() - t0;
    },
  };
}"""

SEARCH = r"""async (term) => window.__wbPerf.measure(
  (el) => { const i = el.querySelector('.wb-g-search'); i.value = term;
            i.dispatchEvent(new Event('input')); },
  (el) => true)"""

SORT = r"""async (key) => window.__wbPerf.measure(
  (el) => el.querySelector(`.wb-g-hcell[data-key="${key}"]`).click(),
  (el) => el.querySelector(`.wb-g-hcell[data-key="${key}"]`).classList.contains('wb-g-sorted'))"""

SCROLL = r"""async (y) => window.__wbPerf.measure(
  (el) => { el.querySelector('.wb-g-scroll').scrollTop = y; },
  (el) => true)"""

TOGGLE = r"""async (index) => {
  const el = window.__wbPerf.root();
  const row = el.querySelector(`.wb-g-row[data-index="${index}"]`);
  if (!row) return [-1, -1];
  const button = row.querySelector('.wb-g-toggle');
  const before = button.textContent;
  const now = () => el.querySelector(`.wb-g-row[data-index="${index}"] .wb-g-toggle`);
  const changed = (b) => b && b.textContent !== before && b.textContent !== '\u2026';
  const t0 = performance.now();
  button.click();
  let shown = -1;
  while (true) {
    const b = now();
    if (shown < 0 && changed(b)) {
      await window.__wbPerf.frame();
      shown = performance.now() - t0;
    }
    if (changed(now()) && !now().classList.contains('wb-g-pending')) break;
    await new Promise(r => requestAnimationFrame(r));
    if (performance.now() - t0 > 10000) return [shown, -1];
  }
  await window.__wbPerf.frame();
  return [shown, performance.now() - t0];
}"""

VISIBLE_INDEXES = r"""() => [...window.__wbPerf.root().querySelectorAll('.wb-g-row')]
  .filter(r => r.style.display !== 'none' && r.getBoundingClientRect().height > 0)
  .map(r => Number(r.dataset.index))"""

COUNT_TEXT = r"""() => window.__wbPerf.root().querySelector('.wb-g-count').textContent"""


def install(page: Any, root: str = ".wb-boundary-table") -> None:
    """Put the timing helpers on the page (``root``: the table's CSS selector; the last one)."""
    page.evaluate(INSTALL, root)


def search(page: Any, term: str) -> float:
    return float(page.evaluate(SEARCH, term))


def sort(page: Any, key: str) -> float:
    return float(page.evaluate(SORT, key))


def scroll(page: Any, y: int) -> float:
    return float(page.evaluate(SCROLL, y))


def toggle(page: Any, index: int) -> tuple[float, float]:
    """Milliseconds to the new state shown, and to Python's row (the round trip)."""
    shown, roundtrip = page.evaluate(TOGGLE, index)
    return float(shown), float(roundtrip)


def visible_indexes(page: Any) -> list[int]:
    return [int(i) for i in page.evaluate(VISIBLE_INDEXES)]


def count_text(page: Any) -> str:
    return str(page.evaluate(COUNT_TEXT))


def summary(values: Sequence[float]) -> dict[str, float]:
    """Median, max and count (ms)."""
    return {
        "median": round(statistics.median(values), 1),
        "max": round(max(values), 1),
        "n": float(len(values)),
    }


SEARCH_TERMS = ("refund", "invoice", "crm:get", "zzzz-none", "pending", "")
SORT_KEYS = ("tool", "args", "result", "isError", "index")
SCROLL_TARGETS = (120_000, 30_000, 200_000, 5_000, 160_000, 72, 90_000, 0)


PAUSE_MS = 150
"""Idle time between two timed actions (a person does not act twice in the same frame)."""


def measure_all(page: Any, *, toggles: int = 6) -> dict[str, dict[str, float]]:
    """Search, sort, scroll and toggle timings on the table shown (each a few times)."""
    install(page)

    def paced(value: float) -> float:
        page.wait_for_timeout(PAUSE_MS)
        return value

    out: dict[str, dict[str, float]] = {}
    out["search"] = summary([paced(search(page, t)) for t in SEARCH_TERMS])
    out["sort"] = summary([paced(sort(page, k)) for k in SORT_KEYS for _ in (0, 1)])
    out["scroll"] = summary([paced(scroll(page, y)) for y in SCROLL_TARGETS])
    rows = [i for i in visible_indexes(page)][2 : 2 + toggles]
    shown, roundtrip = [], []
    for index in rows:
        f, r = toggle(page, index)
        page.wait_for_timeout(PAUSE_MS)
        shown.append(f)
        roundtrip.append(r)
    out["toggle shown"] = summary(shown)
    out["toggle round trip"] = summary(roundtrip)
    return out
