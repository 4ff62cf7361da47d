// The real-model view's grid of heads and its opened head's heatmap, by pointer and keys: a
// cell opens its head, a row of the heatmap is chosen (joining its head's history entry, as
// in the editor), the arrow keys move the focus (the store's view.focus: {grid: {layer,
// head}, map: {i, j}}), and the skip links and "Back to the heatmap" move to them.

import { backToHeatmap, showWorking } from "../lib/dom.js";
import { cellAt, moveFocus } from "../draw/heatmap.js";
import { cellOf, gridMove } from "./grid.js";
import { rowOf } from "./state.js";

const $ = (id) => document.getElementById(id);

/** Wire the grid and the heatmap; ``page`` = {store, info(), update(next, options)}. */
export function wireHead(page) {
  wireGrid(page);
  wireHeatmap(page);
  wireSkipLinks(page.store);
}

/** The store's view with its focus changed by ``change`` ({grid} or {map}). */
const focusOn = (store, change) => store.look({ focus: { ...store.view.focus, ...change } });

function wireGrid(page) {
  const store = page.store;
  function openHead(layer, head) {
    focusOn(store, { grid: { layer, head } });
    const { state } = store;
    if (layer !== state.layer || head !== state.head) page.update({ ...state, layer, head });
  }

  $("grid").addEventListener("click", (e) => {
    const cell = e.target.closest("[data-layer]");
    if (cell) openHead(Number(cell.dataset.layer), Number(cell.dataset.head));
  });

  $("grid").addEventListener("keydown", (e) => {
    const cell = e.target.closest("[data-layer]");
    if (!cell) return;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      openHead(Number(cell.dataset.layer), Number(cell.dataset.head));
      return;
    }
    const info = page.info();
    const to = gridMove(store.view.focus.grid, e.key, info.layers, info.heads, e.ctrlKey || e.metaKey);
    if (!to) return;
    e.preventDefault();
    focusOn(store, { grid: to });
    store.changed();
    cellOf($("grid"), to)?.focus();
  });
}

function wireHeatmap(page) {
  const store = page.store;
  /** A row chosen joins its head's history entry, as in the editor. */
  function selectRow(i) {
    if (i !== store.state.row) page.update({ ...store.state, row: i }, { history: "replace" });
  }

  $("heatmap").addEventListener("click", (e) => {
    const target = e.target.closest("[data-i]");
    if (!target) return;
    const i = Number(target.dataset.i);
    focusOn(store, { map: { i, j: Number(target.dataset.j ?? store.view.focus.map.j) } });
    selectRow(i);
    showWorking($("working-block"));  // as the editor does
  });

  $("back-to-heatmap").addEventListener("click", () => backToHeatmap($("head-block"), cellAt($("heatmap"), store.view.focus.map)));

  $("heatmap").addEventListener("keydown", (e) => {
    const { tokens } = store.view.kept.answer;
    if (!e.target.closest('[role="gridcell"]') || !tokens) return;
    const n = tokens.length;
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      selectRow(store.view.focus.map.i);
      return;
    }
    const to = moveFocus(store.view.focus.map, e.key, n, e.ctrlKey || e.metaKey, n);
    if (!to) return;
    e.preventDefault();
    focusOn(store, { map: to });
    if (to.i !== rowOf(store.state, n)) selectRow(to.i);
    else store.changed();
    cellAt($("heatmap"), to)?.focus();
  });
}

function wireSkipLinks(store) {
  // The skip links move the focus and leave the fragment, which holds the view, alone.
  document.querySelector('.skip-links a[href="#grid-start"]').addEventListener("click", (e) => {
    e.preventDefault();
    cellOf($("grid"), store.view.focus.grid)?.focus();
  });
  document.querySelector('.skip-links a[href="#working-block"]').addEventListener("click", (e) => {
    e.preventDefault();
    $("working-block").focus();
  });
}
