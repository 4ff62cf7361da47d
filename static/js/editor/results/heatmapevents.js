// The heatmaps' events: a click or Enter selects a query's row, the arrow keys move the
// focus, M masks a score, and the weight under the pointer, the focus or a finger is lit
// across the page. The focus and the lit weight are the pointer in the view of the page's
// store (main.js): these events read it and hand it changes (page.point); the drawing
// only receives it.

import { backToHeatmap, showWorking } from "../../lib/dom.js";
import { cellAt, moveFocus } from "../../draw/heatmap.js";
import { cellFromPoint } from "../../draw/readout.js";
import * as S from "../state.js";

const $ = (id) => document.getElementById(id);

/** Which head's heatmap ``node`` is in (0 with one head). */
const headOf = (node) => Number(node.closest("[data-head]")?.dataset.head ?? 0);

/** The weight {i, j} under a pointer event's point on a canvas heatmap's box ``map``. */
function pointAt(map, e) {
  const canvas = map.querySelector("canvas");
  return cellFromPoint(canvas.getBoundingClientRect(), e.clientX, e.clientY, canvas.height, canvas.width);
}

/** Wire the heatmaps and the links that lead to them. ``page`` = {now() (the state),
 *  body() (the last answer, or null), pointer() (the page's pointer: {focus: {i, j} (the
 *  cell with the grid's tab stop), link: {i, j} or null (the weight lit), tapped: {i, j} or
 *  null (the weight last tapped, read out under a canvas map: touch has no hover)}),
 *  point(change) (the pointer with ``change``'s parts replaced), selectRow(i, head),
 *  update(next), drawResults(), drawLink()}. */
export function wireHeatmap(page) {
  const host = $("heatmap");
  const grid = gridOf(page, host);
  const touch = { tapping: false };  // a finger is on the heatmap, or its tap's click has yet to come
  wireClicks(page, host, grid, touch);
  wireHover(page, host, grid, touch);
  wireKeys(page, host, grid, touch);
  // Skip links move focus without touching the URL's fragment, which holds the view.
  $("skip-heatmap").addEventListener("click", (e) => {
    e.preventDefault();
    cellAt(grid.shown(), page.pointer().focus)?.focus();
  });
  $("back-to-heatmap").addEventListener("click", () => {
    backToHeatmap($("heatmap-start"), cellAt(grid.shown(), page.pointer().focus));
  });
}

/** What the events ask of the heatmaps on the page. */
function gridOf(page, host) {
  const isShown = (node) => !page.body()?.heads || headOf(node) === page.now().head;
  /** The weight a cell of the shown head's grid stands for: a canvas row's, the focused key's. */
  const cellOf = (node) => {
    const cell = node.closest?.('[role="gridcell"]');
    if (!cell || !host.contains(cell) || !isShown(cell)) return null;
    return { i: Number(cell.dataset.i), j: cell.matches("td") ? Number(cell.dataset.j) : page.pointer().focus.j };
  };
  return {
    /** The heatmap of the head shown in the other blocks (the only one with one head). */
    shown: () => host.querySelector(`[data-head="${page.body()?.heads ? page.now().head : 0}"] .heatmap`),
    cellOf,
    /** The weight under the pointer: a table's cell, or the pixel of a canvas. */
    pointed: (e) => {
      const map = e.target.closest?.(".bigmap");
      if (!map) return cellOf(e.target);
      return isShown(map) ? pointAt(map, e) : null;
    },
    setLink: (next) => {
      const { link } = page.pointer();
      if (next?.i === link?.i && next?.j === link?.j) return;
      page.point({ link: next });
      page.drawLink();
    },
  };
}

function wireClicks(page, host, grid, touch) {
  host.addEventListener("click", (e) => {
    const target = e.target.closest("[data-i]");
    if (target && host.contains(target)) {
      const i = Number(target.dataset.i);
      const map = target.closest(".bigmap");  // on a canvas, the key is where the pointer is
      const { focus } = page.pointer();
      page.point({ focus: { i, j: map ? pointAt(map, e)?.j ?? focus.j : Number(target.dataset.j ?? focus.j) } });
      page.selectRow(i, headOf(target));  // with several heads, clicking a head shows that head
      cellAt(grid.shown(), page.pointer().focus)?.focus({ preventScroll: true });
      if (!page.now().present) showWorking($("working-block"));
    }
    touch.tapping = false;  // the tap's focus has come
  });
}

// A finger lights a weight while it is down; the focus a tap gives a cell lights nothing,
// since no pointer leaves to put it out. A mouse or pen lights what it is over.
function wireHover(page, host, { cellOf, pointed, setLink }, touch) {
  const unlink = () => setLink(null);
  host.addEventListener("pointerover", (e) => { if (e.pointerType !== "touch") setLink(pointed(e)); });
  host.addEventListener("pointermove", (e) => {
    if (e.pointerType !== "touch" && e.target.closest?.(".bigmap")) setLink(pointed(e));
  });
  host.addEventListener("pointerdown", (e) => {
    if (e.pointerType !== "touch") return;
    touch.tapping = true;
    page.point({ tapped: e.target.closest?.(".bigmap") ? pointed(e) : null });
    setLink(pointed(e));
  });
  document.addEventListener("pointerdown", (e) => {  // a tap elsewhere ends the read-out of the last
    if (e.pointerType === "touch" && page.pointer().tapped && !host.contains(e.target)) {
      page.point({ tapped: null });
      page.drawLink();
    }
  });
  document.addEventListener("pointerup", (e) => { if (e.pointerType === "touch" && touch.tapping) unlink(); });
  document.addEventListener("pointercancel", (e) => {
    if (e.pointerType === "touch" && touch.tapping) {
      touch.tapping = false;
      unlink();
    }
  });
  host.addEventListener("focusin", (e) => { if (!touch.tapping) setLink(cellOf(e.target)); });
  host.addEventListener("pointerleave", (e) => { if (e.pointerType !== "touch") unlink(); });
  host.addEventListener("focusout", (e) => { if (!host.contains(e.relatedTarget)) unlink(); });
}

function wireKeys(page, host, grid, touch) {
  const focused = () => page.pointer().focus;
  const focusCell = (pos) => {
    page.point({ focus: pos, link: pos });  // the link follows the focus, drawn with it (focusin comes after the drawing)
    if (page.body()) page.drawResults();
    page.drawLink();
    cellAt(grid.shown(), pos)?.focus({ preventScroll: false });
  };
  host.addEventListener("keydown", (e) => {
    touch.tapping = false;
    const body = page.body();
    if (!e.target.matches('[role="gridcell"]') || !body) return;
    if (body.heads && headOf(e.target) !== page.now().head) page.selectRow(focused().i, headOf(e.target));
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      page.selectRow(focused().i);
      return;
    }
    if ((e.key === "m" || e.key === "M") && e.target.closest(".heatmap").dataset.mode === "table") {  // mask or unmask this cell
      e.preventDefault();
      page.update(S.toggleBlocked(page.now(), focused().i, focused().j));
      return;
    }
    const next = moveFocus(focused(), e.key, body.tokens.length, e.ctrlKey || e.metaKey, (body.tokens_kv ?? body.tokens).length);
    if (!next) return;
    e.preventDefault();
    const rowChanged = next.i !== focused().i;
    focusCell(next);
    if (rowChanged) page.selectRow(next.i);  // selection follows focus up and down
  });
}
