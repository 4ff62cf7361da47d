// Draw the attention weights A as an ARIA grid: queries down the side, keys across the top.
// Up to TABLE_MAX tokens every cell is a table cell with its value printed, its cells as
// wide as the box allows (app.css): a cell too narrow for its number shows its colour
// alone, and its number on hover and focus (fitNumbers); beyond that a canvas holds one
// pixel per weight (heatmapcanvas.js, whose showCell, keysText and NOT_SHOWN this module
// passes on to its importers). This module only draws: which row is selected, which cell has focus and which
// weight is read out are given to it.

import { el, setAttr, setProp, setText } from "../lib/dom.js";
import { formatNumber } from "../lib/format.js";
import { rgbCss, textRGB, weightRGB } from "../lib/colour.js";
import { bandEdges, bandText, describeBand, drawBandOverlay, isSink } from "./heatmapband.js";
import { buildCanvas, fillCanvas } from "./heatmapcanvas.js";
import { forget } from "./heatmapfit.js";

export { keysText, NOT_SHOWN, showCell } from "./heatmapcanvas.js";

export const TABLE_MAX = 24;

/** Where focus goes for a key press in an n × m grid, or null for keys we leave alone. */
export function moveFocus({ i, j }, key, n, ctrl = false, m = n) {
  const row = (v) => Math.max(0, Math.min(n - 1, v));
  const col = (v) => Math.max(0, Math.min(m - 1, v));
  switch (key) {
    case "ArrowUp": return { i: row(i - 1), j };
    case "ArrowDown": return { i: row(i + 1), j };
    case "ArrowLeft": return { i, j: col(j - 1) };
    case "ArrowRight": return { i, j: col(j + 1) };
    case "Home": return ctrl ? { i: 0, j: 0 } : { i, j: 0 };
    case "End": return ctrl ? { i: n - 1, j: m - 1 } : { i, j: m - 1 };
    case "PageUp": return { i: row(i - 10), j };
    case "PageDown": return { i: row(i + 10), j };
    default: return null;
  }
}

/** The focus ``{i, j}`` kept inside an n × m grid (the grid shrinks when tokens go). */
export const keptInside = ({ i, j }, n, m) => ({ i: Math.min(i, n - 1), j: Math.min(j, m - 1) });

/** renderHeatmap(host, {weights, weights_u8, strongest, mask, tokens, keys, selected, focus, band})
 *  weights and mask are n × m: queries (labelled ``tokens``) down, keys (``keys``) across.
 *  Beyond TABLE_MAX tokens, weights_u8 (round(255·a), the API's) may stand in for weights:
 *  the picture is the same, and each row reads out its ``strongest`` keys (the API's
 *  strongest_keys, [j, a_ij] pairs) or, without them, says how to hear its numbers.
 *  ``band`` ({window, sinks}, or null) outlines a sliding window and its sink columns. */
export function renderHeatmap(host, view) {
  const drawn = view.weights ?? view.weights_u8;
  const n = drawn.length;
  const m = drawn[0].length;
  const mode = Math.max(n, m) <= TABLE_MAX ? "table" : "canvas";
  const size = `${mode} ${n}×${m}`;
  const rebuilt = host.dataset.size !== size;
  if (rebuilt) {
    const old = host.querySelector(".bigmap");
    if (old) forget(old);
    host.replaceChildren(mode === "table" ? buildTable(n, m) : buildCanvas(n, m));
    host.dataset.mode = mode;
    host.dataset.size = size;
    if (mode === "canvas") fitting?.unobserve(host);
  }
  const grid = host.querySelector('[role="grid"]');
  setAttr(grid, "aria-label", view.name ?? "Attention weights");
  if (mode === "table") {
    fillTable(host, view);
    // Observed afresh whenever its cells' width may change without its box's: reported
    // once more after the next layout.
    if (sizeTable(host, m, view.tokens) || rebuilt) fitting?.observe(host);
  } else fillCanvas(host, view);
  const keys = view.keys ?? view.tokens;
  describeBand(host, grid, bandText(view.band ?? null, keys));
  if (mode === "canvas") drawBandOverlay(host.querySelector(".bigmap"), view.band ?? null, n, m);
}

/** What the table's widths are made from (app.css): its m columns and its longest row
 *  label, in characters. Written only when they change (a write restyles the grid);
 *  returns whether they did. */
function sizeTable(host, m, tokens) {
  const label = Math.max(...tokens.map((t) => [...t].length));
  let changed = false;
  for (const [name, value] of [["--cols", String(m)], ["--label-ch", String(label)]]) {
    if (host.style.getPropertyValue(name) === value) continue;
    host.style.setProperty(name, value);
    changed = true;
  }
  return changed;
}

// Whether a table's cells are wide enough for their numbers, asked after layout each time
// its box changes size: a hidden ruler in the corner cell holds "0.000" in the cells'
// type, one cell wide (app.css). Where it does not fit, every cell shows its colour alone
// (data-fit="colour") and its number on hover and focus, so the whole pattern stays in
// view; a screen reader reads the number as before.
const fitting = globalThis.ResizeObserver ? new ResizeObserver((entries) => {
  for (const { target } of entries) fitNumbers(target);
}) : null;

function fitNumbers(host) {
  const ruler = host.querySelector(".fit-ruler");
  if (!ruler || host.dataset.mode !== "table") return;
  const room = ruler.getBoundingClientRect().width;
  if (!room) return;  // not laid out (a hidden block): keep what it was
  const range = document.createRange();
  range.selectNodeContents(ruler);
  setAttr(host, "data-fit", range.getBoundingClientRect().width <= room ? "numbers" : "colour");
}

/** A key's column header: its token, and "sink" under it for a sink. */
function keyHeader(th, key, sink) {
  if (!sink) setText(th, key);
  else if (th.childElementCount === 0 || th.firstChild.data !== key) {
    th.replaceChildren(key, el("span", { class: "sink-tag", text: " sink" }));  // its name: "the sink"
  }
}

/** The grid cell element that should hold focus for position {i, j}. */
export function cellAt(host, { i, j }) {
  if (host.dataset.mode === "table") return host.querySelector(`td[data-i="${i}"][data-j="${j}"]`);
  return host.querySelector(`[role="gridcell"][data-i="${i}"]`);
}

function buildTable(n, m) {
  const head = el("tr", { role: "row" },
    el("th", { class: "axis", scope: "col" }, el("span", { text: "query ↓" }), el("br"), el("span", { text: "key →" }),
      el("span", { class: "v fit-ruler", "aria-hidden": "true", text: "0.000" })),
    ...Array.from({ length: m }, () => el("th", { role: "columnheader", scope: "col" })));
  // Each cell's number in a span of its own: the span is what a narrow cell hides and
  // shows on hover and focus; its masked mark, for screen readers, stands beside it.
  const body = Array.from({ length: n }, (_, i) => el("tr", { role: "row", "data-i": i, "aria-selected": "false" },
    el("th", { role: "rowheader", scope: "row" }),
    ...Array.from({ length: m }, (_, j) => el("td", { role: "gridcell", tabindex: "-1", "data-i": i, "data-j": j },
      el("span", { class: "v" })))));
  return el("table", { role: "grid", "aria-label": "Attention weights", class: "grid" },
    el("thead", {}, head), el("tbody", {}, ...body));
}

// Only what changed is written (setText, setAttr, setProp), here and in fillCanvas: a text,
// title or attribute written again with the same value still costs the frame its style and
// layout.
function fillTable(host, { weights, mask, tokens, keys = tokens, selected, focus, band = null }) {
  const n = weights.length;
  const m = weights[0].length;
  const heads = host.querySelector("thead tr").cells;
  const rows = host.querySelector("tbody").rows;
  for (let j = 0; j < m; j++) {
    keyHeader(heads[j + 1], keys[j], isSink(j, band));
    setProp(heads[j + 1], "title", isSink(j, band) ? `${keys[j]} (a sink: readable from every query)` : keys[j]);
  }
  for (let i = 0; i < n; i++) {
    const tr = rows[i];
    setAttr(tr, "aria-selected", String(i === selected));
    setText(tr.cells[0], tokens[i]);
    setProp(tr.cells[0], "title", tokens[i]);
    const edge = band ? bandEdges(i, band, m) : { left: null, right: null };
    for (let j = 0; j < m; j++) {
      const td = tr.cells[j + 1];
      const allowed = mask[i][j];
      td.classList.toggle("masked", !allowed);
      td.classList.toggle("band-l", j === edge.left);
      td.classList.toggle("band-r", j === edge.right);
      // Open only because its key is a sink: outside the window, and no other mask on it.
      td.classList.toggle("sink-open", allowed && isSink(j, band) && Math.abs(i - j) >= band.window);
      const value = td.firstChild;
      if (allowed) {
        const text = formatNumber(weights[i][j]);
        if (td.childElementCount > 1) td.lastChild.remove();  // its masked mark
        if (value.textContent !== text || !td.style.backgroundColor) {
          const bg = weightRGB(weights[i][j]);
          td.style.backgroundColor = rgbCss(bg);
          td.style.color = rgbCss(textRGB(bg));
          setText(value, text);
        }
      } else if (td.childElementCount === 1) {  // not yet drawn masked
        td.style.backgroundColor = "";
        td.style.color = "";
        setText(value, "0");
        td.append(el("span", { class: "visually-hidden", text: " (masked)" }));
      }
      setProp(td, "tabIndex", i === focus.i && j === focus.j ? 0 : -1);
    }
  }
}

/** The colour legend 0 → 1 and the masked swatch. */
export function renderLegend(host) {
  if (host.childElementCount) return;
  const bar = el("div", { class: "bar" });
  // From 1 to 0: app.css runs it down beside the heatmap, or leftwards under it on a phone.
  const stops = Array.from({ length: 11 }, (_, k) => `${rgbCss(weightRGB(1 - k / 10))} ${k * 10}%`);
  bar.style.setProperty("--legend-stops", stops.join(", "));
  host.append(
    el("div", { class: "scale" }, bar, el("div", { class: "ticks" },
      el("span", { text: "1" }), el("span", { text: "0.5" }), el("span", { text: "0" }))),
    el("div", { class: "masked-item" }, el("span", { class: "masked-key" }), " masked"));
}
