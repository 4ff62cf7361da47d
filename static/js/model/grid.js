// The grid of every layer × head of a real model, each head a small heatmap of its weights
// (the overview's bytes) with the share of its attention on the first token under it. An
// ARIA grid: one tab stop, the arrow keys move, Enter, Space or a click opens the head.
// Names count from 1, as the page's other names do: "Layer 3 head 5" is layer index 2,
// head index 4 of the API. This module only draws; model/main.js owns the state.

import { el, setAttr, setProp, setText } from "../lib/dom.js";
import { writeByteRGB } from "../lib/colour.js";
import { moveFocus } from "../draw/heatmap.js";
import { overviewMap } from "./request.js";
import { shareText } from "./tokens.js";

/** A cell's accessible name, from 0-based indices. */
export const cellName = (layer, head) => `Layer ${layer + 1} head ${head + 1}`;

/** Where the focus goes for ``key`` from {layer, head} in a grid of ``layers`` rows and
 *  ``heads`` columns, or null for a key the grid leaves alone: the arrows, Home and End
 *  (of the layer; with Ctrl of the grid), Page Up and Down (ten layers), as the heatmap. */
export function gridMove({ layer, head }, key, layers, heads, ctrl = false) {
  const to = moveFocus({ i: layer, j: head }, key, layers, ctrl, heads);
  return to && { layer: to.i, head: to.j };
}

/** The cell of {layer, head} in a drawn grid. */
export const cellOf = (host, { layer, head }) => host.querySelector(`[data-layer="${layer}"][data-head="${head}"]`);

function build(layers, heads) {
  const grid = el("div", { role: "grid", class: "head-grid", "aria-label": "Every layer and head", "aria-rowcount": layers + 1 });
  grid.style.setProperty("--heads", String(heads));
  // The corner names both axes, as the heatmap's does; a layer's row is named "Layer 3"
  // and shows its number alone, so the small maps keep the width.
  grid.append(el("div", { role: "row", class: "head-grid-row" },
    el("span", { role: "columnheader", class: "corner" }, "layer ↓", el("br"), "head →"),
    ...Array.from({ length: heads }, (_, h) => el("span", { role: "columnheader", text: String(h + 1) }))));
  for (let l = 0; l < layers; l++) {
    grid.append(el("div", { role: "row", class: "head-grid-row" },
      el("span", { role: "rowheader", text: String(l + 1), "aria-label": `Layer ${l + 1}` }),
      ...Array.from({ length: heads }, (_, h) => el("span", {
        role: "gridcell", class: "head-cell", tabindex: "-1", "data-layer": l, "data-head": h,
        "aria-label": cellName(l, h), "aria-selected": "false",
      }, el("img", { class: "head-map", alt: "", "aria-hidden": "true" }),
      el("span", { class: "share", "aria-hidden": "true" })))));
  }
  return grid;
}

/** Whether an overview is one of a model of ``layers`` × ``heads``. */
export function fits(overview, layers, heads) {
  const [L, H] = overview?.weights_u8?.shape ?? [];
  return L === layers && H === heads && overview.first_token_share?.length === layers
    && overview.first_token_share.every((row) => row.length === heads);
}

/** renderGrid(host, {layers, heads, overview: the decoded overview (model/request.js) or
 *  null before it comes, causal: the model's own mask (the overview is its run), selected
 *  and focus: {layer, head}}). The maps are drawn again only for a new overview; one of
 *  another size (another model's) is never drawn, and leaves the maps empty. */
export function renderGrid(host, { layers, heads, overview, causal, selected, focus }) {
  const size = `${layers}×${heads}`;
  const shown = fits(overview, layers, heads) ? overview : null;
  if (host.dataset.size !== size || (!shown && drawn.has(host))) {
    host.replaceChildren(build(layers, heads));
    host.dataset.size = size;
    drawn.delete(host);
  }
  if (shown && drawn.get(host) !== shown) {
    drawMaps(host, shown, causal);
    drawn.set(host, shown);
  }
  for (const cell of host.querySelectorAll(".head-cell")) {
    const l = Number(cell.dataset.layer);
    const h = Number(cell.dataset.head);
    setAttr(cell, "aria-selected", String(l === selected.layer && h === selected.head));
    setProp(cell, "tabIndex", l === focus.layer && h === focus.head ? 0 : -1);
  }
}

const drawn = new WeakMap();  // a grid's host → the overview its maps show

// Each map is an image, painted once through one canvas: 270 canvases (SmolLM2's 30 × 9)
// were each a layer the compositor updated in every frame, ~40 ms of each head or row
// switch's ~100 (benchmarks/bench_browser.py, "head switch" and "row switch").
let painter = null;

function drawMaps(host, overview, causal) {
  const { weights_u8: bytes, first_token_share: share } = overview;
  const [, , n, m] = bytes.shape;
  painter ??= document.createElement("canvas");
  painter.width = m;
  painter.height = n;
  const ctx = painter.getContext("2d");
  for (const cell of host.querySelectorAll(".head-cell")) {
    const l = Number(cell.dataset.layer);
    const h = Number(cell.dataset.head);
    const image = ctx.createImageData(m, n);
    const px = image.data;
    const map = overviewMap(bytes, l, h);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < m; j++) {
        const k = 4 * (i * m + j);
        if (causal && j > i) px[k] = px[k + 1] = px[k + 2] = 205;  // masked: grey, never the colour of 0
        else writeByteRGB(px, k, map[i * m + j]);
        px[k + 3] = 255;
      }
    }
    ctx.putImageData(image, 0, 0);
    cell.firstChild.src = painter.toDataURL();
    setText(cell.lastChild, shareText(share[l][h]));
    // The name stays "Layer 3 head 5"; the share, which the eye reads under the map, is its
    // description for a screen reader (the number itself is aria-hidden).
    const said = `${shareText(share[l][h])}% of its attention on the first token`;
    setProp(cell, "title", `${cellName(l, h)}: ${said}`);
    setAttr(cell, "aria-description", said);
  }
}
