// A heatmap too large to print each weight (beyond heatmap.js's TABLE_MAX tokens): a canvas
// holding one pixel per weight, scaled crisply to its box (heatmapfit.js, its caption saying
// the scale), under a grid of rows that keeps the keyboard and screen readers working, with
// the tokens along its axes where they fit and a read-out of one weight under it
// (showCell). Drawing only, as heatmap.js, which builds and fills it through this module.

import { el, setAttr, setProp, setText } from "../lib/dom.js";
import { formatNumber } from "../lib/format.js";
import { writeByteRGB, writeWeightRGB } from "../lib/colour.js";
import { fitToScreen, observeSize } from "./heatmapfit.js";
import { labelStep, scaleText } from "./readout.js";

/** The canvas, its axes and its grid of rows, for n queries × m keys. */
export function buildCanvas(n, m) {
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

/** Paint the weights (or weights_u8) and write the rows' names, the selection and the focus. */
export function fillCanvas(host, { weights, weights_u8: bytes, strongest, mask, tokens, keys = tokens, selected, focus }) {
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
