// The workbench's virtualised tables, as one anywidget ESM module (no dependencies, no build).
//
// Three views, picked by the model's `grid_view` trait:
//   "boundaries": the boundary table of one task (search, filter, sort, isError toggles, fault
//                 kinds per row, undo, a full view of a call's args and result);
//   "table":      a read-only table (a trajectory diff, the sweep's rows), with an optional fold
//                 (the identical prefix of a diff) and a jump to the first difference;
//   "style":      the workbench's stylesheet and a probe reporting the JupyterLab theme.
//
// Python holds the truth (the suite); the browser holds the view. Search, filter, sort and scroll
// run here with no kernel round trip, and their state is mirrored into traits. Edits go to Python
// as small messages addressed by boundary index (never by view position) and are answered with
// row patches; each row carries a version `v`, so a stale edit is refused row by row.
//
// Every recorded string reaches the DOM through textContent or title, never as HTML markup.

const ROW_H = 24;
const OVERSCAN = 6;

function h(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

// A vertical list of fixed-height rows: a spacer as tall as all rows, and a pool of row
// elements (the viewport's worth plus an overscan) moved with one transform while scrolling.
class VList {
  constructor(parent, height, makeRow, paintRow) {
    this.scroller = h("div", "wb-g-scroll");
    this.scroller.style.height = `${height}px`;
    this.scroller.tabIndex = 0;
    this.spacer = h("div", "wb-g-spacer");
    this.layer = h("div", "wb-g-layer");
    this.scroller.append(this.spacer, this.layer);
    parent.append(this.scroller);
    this.makeRow = makeRow;
    this.paintRow = paintRow;
    this.count = 0;
    this.pool = [];
    this.resize(height);
    this.scroller.addEventListener("scroll", () => this.paint(), { passive: true });
  }

  resize(height) {
    this.scroller.style.height = `${height}px`;
    const need = Math.ceil(height / ROW_H) + 2 * OVERSCAN;
    while (this.pool.length < need) {
      const row = this.makeRow();
      row._pos = -1;
      this.layer.append(row);
      this.pool.push(row);
    }
  }

  setCount(count) {
    this.count = count;
    this.spacer.style.height = `${count * ROW_H}px`;
    this.invalidate();
  }

  invalidate() {
    for (const row of this.pool) row._stamp = null;
    this.paint();
  }

  paint() {
    const first = Math.max(0, Math.floor(this.scroller.scrollTop / ROW_H) - OVERSCAN);
    this.layer.style.transform = `translateY(${first * ROW_H}px)`;
    for (let k = 0; k < this.pool.length; k++) {
      const row = this.pool[k];
      const pos = first + k;
      if (pos < this.count) {
        if (row.style.display) row.style.display = "";
        this.paintRow(row, pos);
      } else if (!row.style.display) {
        row.style.display = "none";
        row._stamp = null;
      }
    }
  }

  scrollToPos(pos, context = 1) {
    this.scroller.scrollTop = Math.max(0, (pos - context) * ROW_H);
    this.paint();
  }
}

// A batch of trait writes from the browser: set them all, then one save_changes(); `local` keeps
// the widget's own change listeners from redrawing twice.
function writer(model) {
  const state = { local: false };
  state.set = (patch) => {
    state.local = true;
    try {
      for (const [key, value] of Object.entries(patch)) model.set(key, value);
    } finally {
      state.local = false;
    }
    model.save_changes();
  };
  return state;
}

function countText(shown, total, noun) {
  const fmt = (n) => n.toLocaleString("en-US");
  return shown === total ? `${fmt(total)} ${noun}` : `${fmt(shown)} of ${fmt(total)} ${noun}`;
}

// ------------------------------------------------------------------------------------------
// The boundary table

const BOUNDARY_COLUMNS = [
  ["index", "#"],
  ["tool", "tool"],
  ["args", "args"],
  ["result", "recorded result"],
  ["isError", "isError"],
  ["edit", "edit"],
];

function renderBoundaries({ model, el }) {
  let rows = [];
  let hay = [];
  let view = new Int32Array(0);
  let selected = model.get("selected");
  let detailReq = 0;
  let reqSeq = 0;
  const traits = writer(model);

  const root = h("div", "wb-g-root wb-g-boundaries");
  const bar = h("div", "wb-g-bar");
  const search = h("input", "wb-g-search");
  search.type = "search";
  search.placeholder = "search tool, args, result";
  search.setAttribute("aria-label", "search boundaries");
  const toolSel = h("select", "wb-g-tool");
  toolSel.setAttribute("aria-label", "filter by tool");
  const failed = h("input", "wb-g-failed");
  failed.type = "checkbox";
  const edited = h("input", "wb-g-edited-only");
  edited.type = "checkbox";
  const failedLabel = h("label", "wb-g-check", " failed");
  failedLabel.prepend(failed);
  const editedLabel = h("label", "wb-g-check", " edited");
  editedLabel.prepend(edited);
  const count = h("span", "wb-g-count");
  bar.append(search, toolSel, failedLabel, editedLabel, count);

  const head = h("div", "wb-g-head wb-g-bcols");
  head.setAttribute("role", "row");
  const headCells = BOUNDARY_COLUMNS.map(([key, label]) => {
    const cell = h("div", "wb-g-hcell", label);
    cell.dataset.key = key;
    cell.setAttribute("role", "columnheader");
    cell.title = `sort by ${label}`;
    head.append(cell);
    return cell;
  });

  const kinds = () => model.get("kinds") || [];
  const kindNotes = () => model.get("kind_notes") || {};

  function makeRow() {
    const row = h("div", "wb-g-row wb-g-bcols");
    row.setAttribute("role", "row");
    const cells = {
      index: h("div", "wb-g-cell wb-g-idx"),
      tool: h("div", "wb-g-cell wb-g-toolc"),
      args: h("div", "wb-g-cell wb-g-mono"),
      result: h("div", "wb-g-cell wb-g-mono"),
      toggleCell: h("div", "wb-g-cell wb-g-ctl"),
      editCell: h("div", "wb-g-cell wb-g-ctl"),
      toggle: h("button", "wb-g-toggle"),
      kind: h("select", "wb-g-kind"),
      undo: h("button", "wb-g-undo", "\u21b6"),
    };
    cells.toggle.type = "button";
    cells.undo.type = "button";
    cells.undo.title = "undo this edit";
    cells.undo.setAttribute("aria-label", "undo this edit");
    cells.kind.setAttribute("aria-label", "fault kind");
    cells.toggleCell.append(cells.toggle);
    cells.editCell.append(cells.kind, cells.undo);
    row.append(cells.index, cells.tool, cells.args, cells.result, cells.toggleCell, cells.editCell);
    row._cells = cells;
    row._kinds = null;
    return row;
  }

  function fillKinds(row) {
    const list = kinds();
    const key = list.join(",");
    if (row._kinds === key) return;
    const select = row._cells.kind;
    select.replaceChildren();
    const recorded = h("option", null, "as recorded");
    recorded.value = "";
    select.append(recorded);
    const notes = kindNotes();
    for (const kind of list) {
      const option = h("option", null, kind);
      option.value = kind;
      if (notes[kind]) option.title = notes[kind];
      select.append(option);
    }
    row._kinds = key;
  }

  function paintRow(rowEl, pos) {
    const idx = view[pos];
    const row = rows[idx];
    const isSel = idx === selected;
    const stamp = `${idx}:${row.v}:${row.pending ? 1 : 0}:${isSel ? 1 : 0}`;
    if (rowEl._stamp === stamp) return;
    rowEl._stamp = stamp;
    fillKinds(rowEl);
    const c = rowEl._cells;
    c.index.textContent = String(idx);
    c.tool.textContent = row.tool;
    c.tool.title = row.tool;
    c.args.textContent = row.args;
    c.args.title = row.args;
    c.result.textContent = row.result;
    c.result.title = row.result;
    const editedOther = row.kind && row.kind !== "flip";
    // A flip shows its outcome at once (predicted: it only inverts isError) and is marked
    // pending until Python's patch confirms it; other edits show "..." until then.
    const predicted = row.pending && row.prev;
    c.toggle.textContent = row.pending && !predicted ? "\u2026" : row.err ? "isError" : "ok";
    c.toggle.className =
      "wb-g-toggle" + (row.err ? " wb-g-err" : "") + (row.kind ? " wb-g-toggle-edited" : "") +
      (row.pending ? " wb-g-pending" : "");
    c.toggle.disabled = !!row.pending || !!editedOther;
    c.toggle.title = editedOther
      ? `edited (${row.kind}): undo the edit to flip this boundary`
      : row.kind === "flip"
        ? "flipped by you: click to undo"
        : row.rec
          ? "recorded failure: click to make it a success"
          : "click to make this call fail (the recorded response is served as the error)";
    c.toggle.setAttribute("aria-pressed", row.err ? "true" : "false");
    c.kind.value = row.kind || "";
    c.kind.disabled = !!row.pending;
    c.kind.title = row.note || "inject a fault at this boundary";
    c.undo.hidden = !row.kind;
    c.undo.disabled = !!row.pending;
    rowEl.classList.toggle("wb-g-edited", !!row.kind);
    rowEl.classList.toggle("wb-g-recfail", !!row.rec && !row.kind);
    rowEl.classList.toggle("wb-g-selected", isSel);
    rowEl.dataset.index = String(idx);
    rowEl.dataset.kind = row.kind || "";
  }

  root.append(bar, head);
  const list = new VList(root, model.get("height"), makeRow, paintRow);

  const detail = h("div", "wb-g-detail");
  const dTitle = h("div", "wb-g-dtitle", "click a row to see its full args and result");
  const dBody = h("div", "wb-g-dbody");
  detail.append(dTitle, dBody);
  root.append(detail);
  el.append(root);

  function showDetail(parts) {
    dBody.replaceChildren();
    for (const [label, text] of parts) {
      if (text === undefined || text === null || text === "") continue;
      const box = h("div", "wb-g-dpart");
      box.append(h("div", "wb-g-dlabel", label), h("pre", "wb-g-dpre", text));
      dBody.append(box);
    }
  }

  function recompute() {
    const q = model.get("query").trim().toLowerCase();
    const tool = model.get("tool_filter");
    const failedOnly = model.get("failed_only");
    const editedOnly = model.get("edited_only");
    const out = new Int32Array(rows.length);
    let n = 0;
    for (let i = 0; i < rows.length; i++) {
      const r = rows[i];
      if (tool && r.tool !== tool) continue;
      if (failedOnly && !r.err) continue;
      if (editedOnly && !r.kind) continue;
      if (q && !hay[i].includes(q)) continue;
      out[n++] = i;
    }
    view = out.subarray(0, n);
    const key = model.get("sort_key");
    const desc = model.get("sort_desc");
    if (key && key !== "index") {
      const sign = desc ? -1 : 1;
      const value =
        key === "isError"
          ? (i) => (rows[i].err ? 1 : 0)
          : key === "edit"
            ? (i) => rows[i].kind || ""
            : (i) => rows[i][key];
      const arr = Array.from(view);
      const keys = new Map(arr.map((i) => [i, value(i)]));
      arr.sort((a, b) => {
        const x = keys.get(a);
        const y = keys.get(b);
        return x < y ? -sign : x > y ? sign : a - b;
      });
      view = Int32Array.from(arr);
    } else if (desc) {
      view = view.slice().reverse();
    }
    count.textContent = countLine();
    for (const cell of headCells) {
      const k = cell.dataset.key;
      const on = k === key || (k === "index" && (!key || key === "index"));
      cell.classList.toggle("wb-g-sorted", on);
      cell.dataset.dir = on ? (desc ? "desc" : "asc") : "";
      cell.setAttribute("aria-sort", on ? (desc ? "descending" : "ascending") : "none");
    }
    list.setCount(view.length);
    if (model.get("view_count") !== view.length) {
      model.set("view_count", view.length);
      model.save_changes();
    }
  }

  function countLine() {
    let editedCount = 0;
    for (const r of rows) if (r.kind) editedCount++;
    const edits = editedCount ? ` \u00b7 ${editedCount} edited` : "";
    return countText(view.length, rows.length, "boundaries") + edits;
  }

  function hayOf(r) {
    return `${r.tool}\u0000${r.args}\u0000${r.result}`.toLowerCase();
  }

  function loadRows() {
    rows = model.get("rows").map((r) => ({ ...r }));
    hay = rows.map(hayOf);
    const tools = [...new Set(rows.map((r) => r.tool))].sort();
    const all = h("option", null, "all tools");
    all.value = "";
    toolSel.replaceChildren(all);
    for (const t of tools) {
      const option = h("option", null, t);
      option.value = t;
      toolSel.append(option);
    }
    toolSel.value = model.get("tool_filter");
    if (selected >= rows.length) selected = -1;
    recompute();
  }

  function syncControls() {
    search.value = model.get("query");
    toolSel.value = model.get("tool_filter");
    failed.checked = model.get("failed_only");
    edited.checked = model.get("edited_only");
  }

  function requestDetail(idx) {
    const r = rows[idx];
    dTitle.textContent = `boundary ${idx} \u00b7 ${r.tool}`;
    showDetail([["args", r.args], ["recorded result", r.result]]);
    detailReq = ++reqSeq;
    model.send({ kind: "detail", req: detailReq, index: idx });
  }

  function select(idx) {
    selected = idx;
    traits.set({ selected: idx });
    requestDetail(idx);
    list.invalidate();
  }

  function sendEdit(idx, op, fault) {
    const r = rows[idx];
    if (!r || r.pending) return;
    r.pending = true;
    if (op === "flip" && (!r.kind || r.kind === "flip")) {
      // The flip's outcome is known: a new flip inverts isError, a flip clicked again is
      // undone to the recording. Shown now; Python's patch replaces the row, an error restores it.
      r.prev = { err: r.err, kind: r.kind };
      r.err = r.kind === "flip" ? !!r.rec : !r.err;
      r.kind = r.kind === "flip" ? "" : "flip";
    }
    list.invalidate();
    const msg = { kind: "edit", req: ++reqSeq, op, index: idx, v: r.v };
    if (fault) msg.fault = fault;
    model.send(msg);
  }

  search.addEventListener("input", () => {
    traits.set({ query: search.value });
    recompute();
  });
  toolSel.addEventListener("change", () => {
    traits.set({ tool_filter: toolSel.value });
    recompute();
  });
  failed.addEventListener("change", () => {
    traits.set({ failed_only: failed.checked });
    recompute();
  });
  edited.addEventListener("change", () => {
    traits.set({ edited_only: edited.checked });
    recompute();
  });
  head.addEventListener("click", (ev) => {
    const cell = ev.target.closest(".wb-g-hcell");
    if (!cell) return;
    const key = cell.dataset.key;
    const current = model.get("sort_key") || "index";
    traits.set({ sort_key: key, sort_desc: current === key ? !model.get("sort_desc") : false });
    recompute();
  });
  list.layer.addEventListener("click", (ev) => {
    const rowEl = ev.target.closest(".wb-g-row");
    if (!rowEl) return;
    const idx = Number(rowEl.dataset.index);
    if (ev.target.closest(".wb-g-toggle")) sendEdit(idx, "flip");
    else if (ev.target.closest(".wb-g-undo")) sendEdit(idx, "undo");
    else if (!ev.target.closest("select")) select(idx);
  });
  list.layer.addEventListener("change", (ev) => {
    const select_ = ev.target.closest(".wb-g-kind");
    if (!select_) return;
    const idx = Number(select_.closest(".wb-g-row").dataset.index);
    const kind = select_.value;
    if (kind) sendEdit(idx, "set", kind);
    else sendEdit(idx, "undo");
  });

  model.on("msg:custom", (msg) => {
    if (msg.kind === "patch") {
      const held = model.get("rows");
      for (const p of msg.rows) {
        rows[p.i] = { ...p };
        hay[p.i] = hayOf(p);
        if (held && held[p.i]) held[p.i] = p; // a view made later starts from the patched rows
      }
      // A patch can move a row in or out of the view ("failed" on, a flip undone) or within
      // it (sorted by isError or edit); otherwise the rows stay where they are: repaint only.
      const key = model.get("sort_key");
      const moves =
        model.get("failed_only") || model.get("edited_only") || model.get("query").trim() ||
        key === "isError" || key === "edit";
      if (moves) recompute();
      else {
        count.textContent = countLine();
        list.invalidate();
      }
      if (selected >= 0 && msg.rows.some((p) => p.i === selected)) requestDetail(selected);
    } else if (msg.kind === "detail") {
      if (msg.req !== detailReq) return;
      dTitle.textContent = msg.title;
      showDetail(msg.parts);
    } else if (msg.kind === "error") {
      const r = rows[msg.index];
      if (r) {
        if (r.prev) Object.assign(r, r.prev);
        r.pending = false;
        r.prev = null;
      }
      list.invalidate();
      dTitle.textContent = msg.message;
      dTitle.classList.add("wb-g-error");
      setTimeout(() => dTitle.classList.remove("wb-g-error"), 4000);
    } else if (msg.kind === "scroll") {
      const pos = view.indexOf(msg.index);
      if (pos >= 0) list.scrollToPos(pos, 2);
      if (msg.select) select(msg.index);
    }
  });
  model.on("change:rows", loadRows);
  model.on("change:kinds", () => list.invalidate());
  model.on("change:height", () => list.resize(model.get("height")));
  for (const k of ["query", "tool_filter", "failed_only", "edited_only", "sort_key", "sort_desc"]) {
    model.on(`change:${k}`, () => {
      if (traits.local) return;
      syncControls();
      recompute();
    });
  }
  syncControls();
  loadRows();
  // Rows edited before this view existed (in a cell, or before a page reload) are in the
  // kernel only: ask for them.
  model.send({ kind: "hello" });
  return () => el.replaceChildren();
}

// ------------------------------------------------------------------------------------------
// A read-only table: a trajectory diff or the sweep's rows

function renderTable({ model, el }) {
  let rows = [];
  let hay = [];
  let view = [];
  let expanded = false;
  const traits = writer(model);
  const FOLD = -1;

  const root = h("div", "wb-g-root wb-g-table");
  const bar = h("div", "wb-g-bar");
  const note = h("span", "wb-g-note");
  const search = h("input", "wb-g-search");
  search.type = "search";
  search.placeholder = "search";
  search.setAttribute("aria-label", "search rows");
  const jump = h("button", "wb-g-jump", "jump to first difference");
  jump.type = "button";
  const count = h("span", "wb-g-count");
  bar.append(note, search, jump, count);
  const head = h("div", "wb-g-head");
  root.append(bar, head);

  let columns = [];
  let template = "";
  function setColumns() {
    columns = model.get("columns") || [];
    template = columns.map((c) => c.width || "minmax(0,1fr)").join(" ");
    head.style.gridTemplateColumns = template;
    head.replaceChildren(
      ...columns.map((c, i) => {
        const cell = h("div", "wb-g-hcell", c.label);
        cell.dataset.col = String(i);
        return cell;
      }),
    );
  }

  function makeRow() {
    const row = h("div", "wb-g-row");
    row._cells = [];
    return row;
  }

  function paintRow(rowEl, pos) {
    const idx = view[pos];
    const stamp = `${idx}:${expanded ? 1 : 0}:${model.get("selected")}:${template}`;
    if (rowEl._stamp === stamp) return;
    rowEl._stamp = stamp;
    rowEl.style.gridTemplateColumns = template;
    const want = idx === FOLD ? 1 : columns.length;
    while (rowEl._cells.length < want) {
      const cell = h("div", "wb-g-cell");
      rowEl.append(cell);
      rowEl._cells.push(cell);
    }
    rowEl._cells.forEach((cell, k) => {
      cell.hidden = k >= want;
    });
    if (idx === FOLD) {
      const [a, b] = model.get("fold");
      const n = b - a;
      const cell = rowEl._cells[0];
      cell.className = "wb-g-cell wb-g-foldcell";
      cell.style.gridColumn = "1 / -1";
      cell.textContent = expanded
        ? `\u25be hide the ${n} identical step${n === 1 ? "" : "s"} above`
        : `\u25b8 ${n} identical step${n === 1 ? "" : "s"} (${a}\u2013${b - 1}): show`;
      rowEl.className = "wb-g-row wb-g-fold";
      rowEl.dataset.pos = "fold";
      return;
    }
    const r = rows[idx];
    const marks = r.m || [];
    rowEl.className = `wb-g-row${r.r ? ` wb-g-${r.r}` : ""}`;
    rowEl.classList.toggle("wb-g-selected", r.k !== undefined && r.k === model.get("selected"));
    rowEl.dataset.pos = String(idx);
    rowEl.dataset.key = r.k === undefined ? "" : String(r.k);
    for (let k = 0; k < columns.length; k++) {
      const cell = rowEl._cells[k];
      const text = r.c[k] === undefined || r.c[k] === null ? "" : String(r.c[k]);
      cell.style.gridColumn = "";
      cell.className = `wb-g-cell${columns[k].cls ? ` ${columns[k].cls}` : ""}${
        marks[k] ? ` wb-g-m-${marks[k]}` : ""
      }`;
      cell.textContent = text;
      cell.title = text;
    }
  }

  const list = new VList(root, model.get("height"), makeRow, paintRow);
  el.append(root);

  function recompute() {
    const q = model.get("query").trim().toLowerCase();
    const [a, b] = model.get("fold") || [0, 0];
    const folded = b > a && !q;
    const out = [];
    if (folded) {
      if (expanded) for (let i = a; i < b; i++) out.push(i);
      out.push(FOLD);
    }
    const sortCol = model.get("sort_col");
    for (let i = 0; i < rows.length; i++) {
      if (folded && i >= a && i < b) continue;
      if (q && !hay[i].includes(q)) continue;
      out.push(i);
    }
    view = out;
    if (sortCol >= 0 && sortCol < columns.length) {
      const sign = model.get("sort_desc") ? -1 : 1;
      const key = (i) => {
        const text = rows[i].c[sortCol];
        const num = Number(text);
        return text !== "" && !Number.isNaN(num) ? num : String(text ?? "");
      };
      const keys = new Map(view.map((i) => [i, key(i)]));
      view.sort((x, y) => {
        const p = keys.get(x);
        const s = keys.get(y);
        if (typeof p !== typeof s) return typeof p === "number" ? -sign : sign;
        return p < s ? -sign : p > s ? sign : x - y;
      });
    }
    const shown = view.filter((i) => i !== FOLD).length + (folded && !expanded ? b - a : 0);
    count.textContent = countText(shown, rows.length, model.get("noun") || "rows");
    jump.hidden = model.get("first_diff") < 0;
    search.hidden = !model.get("searchable");
    list.setCount(view.length);
    if (model.get("view_count") !== shown) {
      model.set("view_count", shown);
      model.save_changes();
    }
  }

  function loadRows() {
    rows = model.get("rows") || [];
    hay = rows.map((r) => r.c.join("\u0000").toLowerCase());
    expanded = false;
    recompute();
    list.scroller.scrollTop = 0;
    list.paint();
  }

  jump.addEventListener("click", () => {
    const target = model.get("first_diff");
    const pos = view.indexOf(target);
    if (pos >= 0) list.scrollToPos(pos, 1);
  });
  search.addEventListener("input", () => {
    traits.set({ query: search.value });
    recompute();
  });
  head.addEventListener("click", (ev) => {
    const cell = ev.target.closest(".wb-g-hcell");
    if (!cell || !model.get("sortable")) return;
    const col = Number(cell.dataset.col);
    const same = model.get("sort_col") === col;
    traits.set({ sort_col: col, sort_desc: same ? !model.get("sort_desc") : false });
    recompute();
  });
  list.layer.addEventListener("click", (ev) => {
    const rowEl = ev.target.closest(".wb-g-row");
    if (!rowEl) return;
    if (rowEl.dataset.pos === "fold") {
      expanded = !expanded;
      recompute();
      return;
    }
    const key = rowEl.dataset.key;
    if (key) {
      traits.set({ selected: key });
      list.invalidate();
    }
  });

  model.on("change:columns", () => {
    setColumns();
    list.invalidate();
  });
  model.on("change:rows", loadRows);
  model.on("change:fold", recompute);
  model.on("change:selected", () => list.invalidate());
  model.on("change:height", () => list.resize(model.get("height")));
  model.on("change:note", () => {
    note.textContent = model.get("note");
  });
  for (const k of ["query", "sort_col", "sort_desc", "first_diff", "searchable"]) {
    model.on(`change:${k}`, () => {
      if (traits.local) return;
      search.value = model.get("query");
      recompute();
    });
  }
  model.on("msg:custom", (msg) => {
    if (msg.kind === "scroll") {
      const pos = view.indexOf(msg.pos);
      if (pos >= 0) list.scrollToPos(pos, 1);
    }
  });
  note.textContent = model.get("note");
  search.value = model.get("query");
  setColumns();
  loadRows();
  return () => el.replaceChildren();
}

// ------------------------------------------------------------------------------------------
// The stylesheet carrier and theme probe

function renderStyle({ model, el }) {
  el.classList.add("wb-style-probe");
  const report = () => {
    const dark = document.body.dataset.jpThemeLight === "false";
    if (model.get("dark") !== dark) {
      model.set("dark", dark);
      model.save_changes();
    }
  };
  const observer = new MutationObserver(report);
  observer.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });
  report();
  return () => observer.disconnect();
}

function render(context) {
  const kind = context.model.get("grid_view");
  if (kind === "table") return renderTable(context);
  if (kind === "style") return renderStyle(context);
  return renderBoundaries(context);
}

export default { render };
