// Draw the attention weights A as an ARIA grid: queries down the side, keys across the top.
// Up to TABLE_MAX tokens every cell is a table cell with its value printed, its cells as
// wide as the box allows (app.css): a cell too narrow for its number shows its colour
// alone, and its number on hover and focus (fitNumbers); beyond that a
// canvas holds one pixel per weight, scaled crisply to its box (heatmapfit.js, its caption
// saying the scale), under a grid of rows that keeps the keyboard and screen readers
// working, with the tokens along its axes where they fit and a read-out of one weight
// under it. This module only draws: which row is selected, which cell has focus and which
// weight is read out are given to it.

import { el, setAttr, setProp, setText } from "../lib/dom.js";
import { formatNumber } from "../lib/format.js";
import { rgbCss, textRGB, weightRGB, writeByteRGB, writeWeightRGB } from "../lib/colour.js";
import { bandEdges, bandText, describeBand, drawBandOverlay, isSink } from "./heatmapband.js";
import { fitToScreen, forget, observeSize } from "./heatmapfit.js";
import { labelStep, scaleText } from "./readout.js";

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

function buildCanvas(n, m) {
  const canvas = el("canvas", { class: "map", width: m, height: n, "aria-hidden": "true" });
  // The tokens along the axes, for the eye only (the grid's rows name them to screen readers).
  const queryLabels = el("div", { class: "axis-queries", "aria-hidden": "true" });
  const keyLabels = el("div", { class: "axis-keys", "aria-hidden": "true" });
  const grid = el("div", { role: "grid", "aria-label": "Attention weights", "aria-rowcount": n });
  // Each row a copy of one: at 512 tokens with 4 heads, 2,048 rows for the first paint.
  const model = el("div", { role: "row", "aria-selected": "false" },
    el("span", { role: "rowheader" }), el("span", { role: "gridcell", tabindex: "-1", "data-j": 0 }));
  for (let i = 0; i < n; i++) {
    const row = model.cloneNode(true);
    row.dataset.i = i;
    row.setAttribute("aria-rowindex", i + 1);
    row.lastChild.dataset.i = i;
    grid.append(row);
  }
  const box = el("div", { class: "bigmap" }, canvas, el("div", { class: "marker", hidden: true }),
    el("div", { class: "cell-marker", hidden: true }), grid);
  const axes = `query ↓ (${n} tokens), key → (${m})`;
  const caption = el("p", { class: "bigmap-caption map-scale", text: axes });
  // The caption under the map, not over it: the map's top is higher on the first screen.
  const view = el("div", { class: "bigmap-view" },
    el("div", { class: "bigmap-frame" }, keyLabels, queryLabels, box), caption,
    el("p", { class: "readout", "aria-live": "polite" }),
    el("p", { class: "bigmap-caption", text: "Too many tokens to print each weight: a row's grid cell names its strongest keys." }));
  // A first guess at the spacing, for the map's full width (34rem); the observer corrects it.
  placeLabels(queryLabels, n, "top", labelStep(544 / n));
  placeLabels(keyLabels, m, "left", labelStep(544 / m));
  // Every label where a row (column) is at least 12 px, else every k-th (labelStep), and
  // the scale the caption says, again whenever the map's drawn size changes.
  observeSize(box, (width, height) => {
    placeLabels(queryLabels, n, "top", labelStep(height / n));
    placeLabels(keyLabels, m, "left", labelStep(width / m));
    setText(caption, `${axes} — ${scaleText(n, m, width, height, devicePixelRatio)}`);
  });
  fitToScreen(view);
  return view;
}

// Only the labels drawn exist (at 512 tokens, 26 of each axis's 512), and one more, lit,
// for the weight read out (showCell).
const axisTexts = new WeakMap();  // an axis's labels → the tokens it was last given

/** Labels for every ``step``-th of ``count`` rows (at "top") or columns (at "left"), each
 *  centred on its own (CSS: it may be taller than a thin row). */
function placeLabels(labels, count, at, step) {
  if (labels.dataset.step === String(step)) return;
  labels.dataset.step = String(step);
  const span = (k, lit = false) => {
    const node = el("span", { class: lit ? "on" : null, "data-k": k, hidden: lit });
    node.style[at] = `${(100 * (k + 0.5)) / count}%`;  // the CSSOM: the page's CSP allows no style attribute
    return node;
  };
  const drawn = [];
  for (let k = 0; k < count; k += step) drawn.push(span(k));
  labels.replaceChildren(...drawn, span(0, true));
  const texts = axisTexts.get(labels);
  if (texts) writeLabels(labels, texts);
}

function writeLabels(labels, texts) {
  axisTexts.set(labels, texts);
  for (const node of labels.children) {
    if (node.classList.contains("on")) continue;
    const text = texts[Number(node.dataset.k)];
    setText(node, text);
    setProp(node, "title", text);
  }
}

// What a row of a head drawn from weights_u8 says: its numbers come when it is shown.
export const NOT_SHOWN = "press Enter to show this head and hear this query's strongest keys";

function fillCanvas(host, { weights, weights_u8: bytes, strongest, mask, tokens, keys = tokens, selected, focus }) {
  const exact = weights !== undefined;
  const n = (weights ?? bytes).length;
  const m = (weights ?? bytes)[0].length;
  const canvas = host.querySelector("canvas");
  const ctx = canvas.getContext("2d");
  const image = ctx.createImageData(m, n);
  const px = image.data;
  const write = exact ? writeWeightRGB : writeByteRGB;
  for (let i = 0; i < n; i++) {
    const wi = exact ? weights[i] : bytes[i];
    const mi = mask[i];
    for (let j = 0; j < m; j++) {
      const k = 4 * (i * m + j);
      if (mi[j]) write(px, k, wi[j]);
      else px[k] = px[k + 1] = px[k + 2] = (i + j) % 2 ? 150 : 200;  // masked: a grey checker, never the colour of 0
      px[k + 3] = 255;
    }
  }
  ctx.putImageData(image, 0, 0);
  const marker = host.querySelector(".marker");
  setProp(marker, "hidden", selected === null);
  if (selected !== null) {
    marker.style.top = `${(100 * selected) / n}%`;
    marker.style.height = `${Math.max(100 / n, 0.4)}%`;
  }
  writeLabels(host.querySelector(".axis-queries"), tokens);
  writeLabels(host.querySelector(".axis-keys"), keys);
  const rows = host.querySelectorAll('[role="row"]');
  // A row's token and strongest keys are the accessible names of its header and cell, not
  // text: nothing to lay out (2,048 transparent strings took ~150 ms of layout with 4
  // heads at 512 tokens).
  for (let i = 0; i < n; i++) {
    const row = rows[i];
    setAttr(row, "aria-selected", String(i === selected));
    setAttr(row.firstChild, "aria-label", tokens[i]);
    const cell = row.lastChild;
    setAttr(cell, "aria-label", strongest ? keysText(strongest[i], keys) : NOT_SHOWN);
    setProp(cell, "tabIndex", i === focus.i ? 0 : -1);
  }
}

/** Show weight ``cell`` ({i, j}, or null for none) of a canvas heatmap: a box around its
 *  pixel, its query's and key's labels lit, and ``text`` in the read-out under the map. */
export function showCell(host, cell, text) {
  const canvas = host.querySelector("canvas.map");
  if (!canvas) return;
  const n = canvas.height;
  const m = canvas.width;
  setText(host.querySelector(".readout"), text);
  const marker = host.querySelector(".cell-marker");
  const on = cell !== null && cell.i < n && cell.j < m;
  setProp(marker, "hidden", !on);
  if (on) {
    marker.style.top = `${(100 * cell.i) / n}%`;
    marker.style.left = `${(100 * cell.j) / m}%`;
    marker.style.width = `${100 / m}%`;
    marker.style.height = `${100 / n}%`;
  }
  for (const [axis, k, at, count] of [[".axis-queries", cell?.i, "top", n], [".axis-keys", cell?.j, "left", m]]) {
    const labels = host.querySelector(axis);
    const lit = labels.querySelector(".on");
    setProp(lit, "hidden", !on);
    if (!on) continue;
    lit.style[at] = `${(100 * (k + 0.5)) / count}%`;
    setText(lit, axisTexts.get(labels)?.[k] ?? "");
  }
}

/** What a screen reader hears for a row's strongest keys, given as [j, a_ij] pairs. */
export function keysText(pairs, tokens) {
  if (!pairs.length) return "reads no key (all masked)";
  return "strongest keys: " + pairs.map(([j, a]) => `${tokens[j]} ${formatNumber(a)}`).join(", ");
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
