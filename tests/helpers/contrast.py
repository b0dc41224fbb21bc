"""WCAG contrast of every piece of text under an element, measured in the browser.

For each visible element with text of its own (a text node child, or the value of an input,
select or button), the text colour is composited over the element's effective background (its
own and its ancestors' background colours, alpha included, down to an opaque one), and the
contrast ratio is computed as WCAG 2.1 defines it. Disabled controls and their contents are left
out (WCAG exempts inactive components), and so is SVG text (charts draw with fills). Colours
come from ``getComputedStyle``, so CSS variables and ``color-mix()`` are resolved as the page
shows them.
"""

from __future__ import annotations

from typing import Any

CONTRAST_JS = r"""(rootSel) => {
  const parse = (c) => {
    if (!c) return null;
    let m = c.match(/^rgba?\(([^)]+)\)$/);
    if (m) {
      const p = m[1].split(/[\s,\/]+/).filter(Boolean).map(Number);
      return [p[0] / 255, p[1] / 255, p[2] / 255, p.length > 3 ? p[3] : 1];
    }
    m = c.match(/^color\(srgb\s+([^)]+)\)$/);
    if (m) {
      const p = m[1].split(/[\s\/]+/).filter(Boolean).map(Number);
      return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
    }
    return null;
  };
  const over = (top, bottom) => {
    const a = top[3];
    return [0, 1, 2].map((k) => top[k] * a + bottom[k] * (1 - a)).concat([1]);
  };
  const lin = (v) => (v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4));
  const lum = (c) => 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  const ratio = (a, b) => {
    const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
    return (x + 0.05) / (y + 0.05);
  };
  const page = parse(getComputedStyle(document.body).backgroundColor) || [1, 1, 1, 1];
  const background = (el) => {
    const layers = [];
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const c = parse(getComputedStyle(e).backgroundColor);
      if (c && c[3] > 0) {
        layers.push(c);
        if (c[3] >= 1) break;
      }
    }
    let bg = page[3] >= 1 ? page : [1, 1, 1, 1];
    for (let k = layers.length - 1; k >= 0; k--) bg = over(layers[k], bg);
    return bg;
  };
  const shown = (el) => {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return false;
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      const s = getComputedStyle(e);
      const gone = s.display === "none" || s.visibility === "hidden";
      if (gone || Number(s.opacity) < 0.99) return false;
    }
    return true;
  };
  const out = [];
  for (const root of document.querySelectorAll(rootSel)) {
    for (const el of root.querySelectorAll("*")) {
      if (el.closest("svg") || el.closest(":disabled") || el.closest("[disabled]")) continue;
      if (el.closest(".wb-style-probe")) continue;
      const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
      const control = ["INPUT", "SELECT", "TEXTAREA"].includes(el.tagName) &&
        (el.value || "").trim() && el.type !== "checkbox" && el.type !== "range";
      if (!own && !control) continue;
      if (!shown(el)) continue;
      const fg = parse(getComputedStyle(el).color);
      if (!fg) continue;
      const bg = background(el);
      const color = over(fg, bg);
      const text = (control ? el.value : el.textContent).trim().slice(0, 40);
      out.push({
        text,
        ratio: Math.round(ratio(color, bg) * 100) / 100,
        color: getComputedStyle(el).color,
        cls: (el.className && el.className.baseVal === undefined ? el.className : "").slice(0, 60),
        tag: el.tagName,
      });
    }
  }
  return out;
}"""


def measure(page: Any, root: str = ".wb-workbench") -> list[dict[str, Any]]:
    """Every visible text under ``root`` with its contrast ratio against its background."""
    found: list[dict[str, Any]] = page.evaluate(CONTRAST_JS, root)
    return found


def failures(found: list[dict[str, Any]], minimum: float = 4.5) -> list[dict[str, Any]]:
    return [item for item in found if item["ratio"] < minimum]
