// The tile FlashAttention is at, outlined over a heatmap: the queries of its query block
// down, the keys of its key block across (editor/running/tiles.js steps through them). One box over
// the cells, not a mark on each: the cells' own outlines are the selected row's, the band's
// and the sinks' (heatmap.js, heatmapband.js). This module only draws; which tile is given.

import { el } from "../lib/dom.js";

const placed = new WeakMap();  // a printed heatmap's host → the ResizeObserver that keeps its box on the cells

/** Outline ``tile`` ({rows: [start, stop], keys: [start, stop], skipped}, 0-based, stop
 *  excluded) over the heatmap in ``host``, or none for null or a tile beyond its grid. A
 *  skipped tile's box is dashed. */
export function outlineTile(host, tile) {
  const table = host.dataset.mode === "table";
  const parent = table ? host : host.querySelector(".bigmap");
  const old = host.querySelector(".tile-outline");
  if (old && old.parentElement !== parent) old.remove();
  let box = parent?.querySelector(":scope > .tile-outline");
  if (!parent || !tile || !inside(host, tile)) {
    box?.remove();
    placed.get(host)?.disconnect();
    placed.delete(host);
    return;
  }
  if (!box) {
    box = el("div", { class: "tile-outline", "aria-hidden": "true" });
    parent.append(box);
  }
  box.classList.toggle("skipped", tile.skipped);
  if (table) keepOnCells(host, box, tile);
  else placeOnCanvas(box, tile, Number(host.querySelector("canvas").height), Number(host.querySelector("canvas").width));
}

/** Whether the tile's queries and keys are all in the grid drawn in ``host``. */
function inside(host, { rows, keys }) {
  const canvas = host.querySelector("canvas");
  const n = canvas ? canvas.height : host.querySelectorAll("tbody tr").length;
  const m = canvas ? canvas.width : host.querySelectorAll("thead th[role='columnheader']").length;
  return rows[0] < rows[1] && rows[1] <= n && keys[0] < keys[1] && keys[1] <= m;
}

/** On a canvas (one unit a weight), in per cent of the map: no measuring needed. */
function placeOnCanvas(box, { rows, keys }, n, m) {
  box.style.left = `${(100 * keys[0]) / m}%`;  // the CSSOM: the page's CSP allows no style attribute
  box.style.width = `${(100 * (keys[1] - keys[0])) / m}%`;
  box.style.top = `${(100 * rows[0]) / n}%`;
  box.style.height = `${(100 * (rows[1] - rows[0])) / n}%`;
}

/** On a printed grid the cells' sizes are the layout's: the box is measured from its first
 *  and last cells, and again whenever the table's size changes. */
function keepOnCells(host, box, tile) {
  const place = () => {
    const first = host.querySelector(`td[data-i="${tile.rows[0]}"][data-j="${tile.keys[0]}"]`);
    const last = host.querySelector(`td[data-i="${tile.rows[1] - 1}"][data-j="${tile.keys[1] - 1}"]`);
    if (!first || !last) return;
    const origin = host.getBoundingClientRect();
    const [a, b] = [first.getBoundingClientRect(), last.getBoundingClientRect()];
    const x = a.left - origin.left + host.scrollLeft - host.clientLeft;
    const y = a.top - origin.top + host.scrollTop - host.clientTop;
    box.style.left = `${x}px`;
    box.style.top = `${y}px`;
    box.style.width = `${b.right - a.left}px`;
    box.style.height = `${b.bottom - a.top}px`;
  };
  place();
  placed.get(host)?.disconnect();
  if (!globalThis.ResizeObserver) return;
  const observer = new ResizeObserver(place);
  observer.observe(host.querySelector("table"));
  placed.set(host, observer);
}
