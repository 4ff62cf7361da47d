// The sliding window and its sinks on a heatmap: the band of keys each query may reach
// (|i − j| < w), outlined, and the sink columns (j < s), open outside it. The cells the
// masks close are drawn masked by heatmap.js from the answer's mask; this module draws
// the outlines and says in words what they are. band: {window: w, sinks: s} or null.

import { el } from "../lib/dom.js";
import { keyList } from "./workingsteps.js";

const SVG = "http://www.w3.org/2000/svg";

/** The band's edges in row i of an m-key grid: the first and the last key j with
 *  |i − j| < w, each null where the band runs to the grid's side (no edge to draw). */
export function bandEdges(i, { window: w }, m) {
  const first = i - w + 1;
  const last = i + w - 1;
  return { left: first > 0 && first < m ? first : null, right: last < m - 1 && last >= 0 ? last : null };
}

/** Is key j a sink (s of them: keys 0 … s − 1)? */
export const isSink = (j, band) => Boolean(band) && j < band.sinks;

/** The band and the sinks in words, for the grid's accessible description and the line
 *  under the heatmaps; keys labels the key columns. "" without a band. */
export function bandText(band, keys) {
  if (!band) return "";
  const w = band.window;
  const s = Math.min(band.sinks, keys.length);
  const reach = w === 1 ? "only the key at its own position" : `the keys j with |i − j| < ${w}, itself and up to ${w - 1} on either side`;
  const words = [`Sliding window of ${w}: query i reads ${reach}, a band along the diagonal, outlined; cells outside it are masked`];
  if (s > 0) {
    const named = keys.slice(0, s).map((k, j) => `${j + 1} “${k}”`).join(", ");
    words.push(`${s === 1 ? "the sink, key" : `the ${s} sinks, keys`} ${named}, marked “sink”, stay${s === 1 ? "s" : ""} readable from every query, so ${s === 1 ? "its column is" : "their columns are"} open outside the band (unless another mask closes a cell)`);
  }
  return `${words.join("; ")}.`;
}

/** The band in a line under the heatmaps: what the dashes and the dots mean. */
export function bandLegend(band, keys) {
  if (!band) return "";
  const s = Math.min(band.sinks, keys.length);
  const sinks = s ? ` Marked “sink”: ${keyList([...Array(s).keys()])}, open to every query (${s === 1 ? "its" : "their"} cells outside the band ringed with dots).` : "";
  return `Dashed lines: the window's band, |i − j| < ${band.window}; cells outside it are masked.${sinks}`;
}

let described = 0;  // ids for the grids' descriptions

/** The hidden description of a heatmap's band, made once per host, its id on the grid. */
export function describeBand(host, grid, text) {
  let note = host.querySelector(":scope > .band-note");
  if (!note) {
    note = el("p", { class: "band-note visually-hidden", id: `band-note-${++described}` });
    host.append(note);
  }
  if (note.textContent !== text) note.textContent = text;
  if (text) grid.setAttribute("aria-describedby", note.id);
  else grid.removeAttribute("aria-describedby");
}

/** The band and sink outlines over a canvas heatmap of n × m weights (one unit a cell),
 *  or nothing without a band. */
export function drawBandOverlay(box, band, n, m) {
  let svg = box.querySelector(":scope > svg.band");
  if (!band) {
    svg?.remove();
    return;
  }
  if (!svg) {
    svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("class", "band");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("preserveAspectRatio", "none");
    box.append(svg);
  }
  svg.setAttribute("viewBox", `0 0 ${m} ${n}`);
  const parts = [];
  for (const side of ["left", "right"]) {
    const points = [];
    for (let i = 0; i < n; i++) {
      const j = bandEdges(i, band, m)[side];
      if (j !== null) {
        const x = side === "left" ? j : j + 1;
        points.push(`${x},${i} ${x},${i + 1}`);
      }
    }
    // A light line under the dark one: the edge stays visible on pale and dark cells alike.
    for (const cls of ["halo", "band-edge"]) if (points.length) parts.push(shape("polyline", { points: points.join(" "), class: cls }));
  }
  const s = Math.min(band.sinks, m);
  for (const cls of ["halo", "sink-cols"]) if (s > 0) parts.push(shape("rect", { x: 0, y: 0, width: s, height: n, class: cls }));
  svg.replaceChildren(...parts);
}

function shape(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.setAttribute("vector-effect", "non-scaling-stroke");
  return node;
}
