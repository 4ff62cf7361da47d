// "What n² costs": the view's multiply-adds and bytes by formula (POST /api/cost), and
// "Measure on this server": the engine and the tiled computation timed at n = 64 … 512,
// drawn on log–log axes with their fitted slopes. The formulas follow the view while the
// panel is on screen; a measurement is made only when asked (it takes up to 2 s of a core).

import { el } from "../../lib/dom.js";
import { urls } from "../../lib/config.js";
import { askServer } from "../../lib/api.js";
import { bytesText, formatNumber, grouped } from "../../lib/format.js";

const SVG = "http://www.w3.org/2000/svg";
const svg = (tag, attrs = {}, text = null) => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== null) node.textContent = text;
  return node;
};

/** The view's sizes for POST /api/cost: n queries, m keys, d_model, d_k and d_v (of the
 *  first head). Pure. */
export function shapesOf(request) {
  const head = request.heads?.[0] ?? request;
  const kv = request.kv_heads?.[0] ?? head;
  return { n: request.tokens.length, m: (request.tokens_kv ?? request.tokens).length,
    d_model: request.X[0].length, d_k: head.W_Q[0].length, d_v: kv.W_V[0].length };
}


function formulas(body) {
  const row = (cells) => el("tr", {}, ...cells.map((c, k) => el(k ? "td" : "th", k ? { text: c } : { scope: "row", text: c })));
  return el("div", { class: "cost-tables" },
    el("table", { class: "cost-table", "aria-label": "Multiply-adds of each step" },
      el("thead", {}, el("tr", {}, ...["Step", "Formula", "Multiply-adds"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, ...body.steps.map((s) => row([s.step, s.formula, grouped(s.multiply_adds)])))),
    el("table", { class: "cost-table", "aria-label": "Bytes of each matrix" },
      el("thead", {}, el("tr", {}, ...["Matrix", "Shape", "Bytes (float64)"].map((h) => el("th", { scope: "col", text: h })))),
      el("tbody", {}, ...body.matrices.map((m) => row([m.matrix, m.shape, grouped(m.bytes)])))));
}

const LINES = [["standard", "engine"], ["tiled", "tiles"]];  // the two computations, as the plots name them

/** A fitted slope as the plots write it: "1.93", or "—" when fewer than two sizes were timed. Pure. */
export const slopeText = (slope) => (slope === null ? "—" : formatNumber(slope, 2));

/** ``series`` ({kind, values}) against n (``sizes``) on log–log axes, in a box of 360 × 220
 *  whose type stays legible at a phone's width; the y axis named ``yName``, its lowest and
 *  highest values written by ``text``. The lines are named in a legend beside it (legend). */
function logLog({ sizes, series, yName, text, label }) {
  const [W, H, L, B, T, R] = [360, 220, 64, 34, 10, 16];
  const all = series.flatMap((s) => s.values);
  const [lo, hi] = [Math.log10(Math.min(...all)), Math.log10(Math.max(...all))];
  const span = Math.max(hi - lo, 0.3);  // a flat line still gets an axis
  const x = (n) => L + (Math.log2(n / sizes[0]) / Math.max(1, Math.log2(sizes.at(-1) / sizes[0]))) * (W - L - R);
  const y = (v) => H - B - ((Math.log10(v) - lo) / span) * (H - B - T);
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "cost-plot", role: "img", "aria-label": label });
  const [least, most] = [Math.min(...all), Math.max(...all)];
  chart.append(svg("line", { x1: L, y1: H - B, x2: W - R + 8, y2: H - B, class: "axis" }),
    svg("line", { x1: L, y1: T, x2: L, y2: H - B, class: "axis" }),
    svg("text", { x: (L + W - R) / 2, y: H - 3, "text-anchor": "middle" }, "n (log scale)"),
    svg("text", { x: 12, y: (H - B) / 2, transform: `rotate(-90 12 ${(H - B) / 2})`, "text-anchor": "middle" }, `${yName} (log scale)`),
    svg("text", { x: L - 5, y: y(least) + 4, "text-anchor": "end" }, text(least)));
  if (most !== least) chart.append(svg("text", { x: L - 5, y: y(most) + 4, "text-anchor": "end" }, text(most)));
  for (const n of sizes) chart.append(svg("text", { x: x(n), y: H - B + 16, "text-anchor": "middle" }, String(n)));
  for (const { kind, values } of series) {
    const pts = sizes.map((n, k) => [x(n), y(values[k])]);
    chart.append(svg("polyline", { points: pts.map((p) => p.join(",")).join(" "), class: `line-${kind}` }),
      ...pts.map(([px, py]) => svg("circle", { cx: px, cy: py, r: 3.5, class: `dot-${kind}` })));
  }
  return chart;
}

/** The lines' names under a plot, each beside its line's mark. */
function legend(names) {
  return el("ul", { class: "cost-legend" }, ...LINES.map(([kind]) => el("li", { class: `key-${kind}` },
    el("span", { class: "swatch", "aria-hidden": "true" }), names[kind])));
}

const ms = (s) => `${+(s * 1e3).toPrecision(2)} ms`;

/** The measurement's two plots side by side: time against n with the fitted slopes, and the
 *  scores held at once against n: n² for the engine, one B × B tile for the tiles, whatever n. */
export function plots(m) {
  const slopes = Object.fromEntries(LINES.map(([kind]) => [kind, slopeText(m[kind].slope)]));
  const tile = bytesText(m.tiled.score_bytes[0]);
  const time = el("figure", { class: "cost-figure" },
    logLog({ sizes: m.sizes, yName: "time", text: ms, series: LINES.map(([kind]) => ({ kind, values: m[kind].seconds })),
      label: `Time against n on log–log axes: the engine's slope ${slopes.standard}, the tiles' ${slopes.tiled}` }),
    el("figcaption", {}, "Time, measured", legend({ standard: `engine: slope ${slopes.standard}`,
      tiled: `tiles of ${m.block} × ${m.block}: slope ${slopes.tiled}` })));
  const memory = el("figure", { class: "cost-figure" },
    logLog({ sizes: m.sizes, yName: "scores held", text: bytesText,
      series: LINES.map(([kind]) => ({ kind, values: m[kind].score_bytes })),
      label: `Scores held at once against n on log–log axes: the engine's grow as n² (slope 2), the tiles' stay ${tile} (slope 0)` }),
    el("figcaption", {}, "Scores held at once", legend({ standard: "engine: 8 · n² bytes, slope 2",
      tiled: `tiles: 8 · ${m.block}² bytes = ${tile}, slope 0` })));
  return el("div", { class: "cost-plots" }, time, memory);
}

function measuredText(m) {
  const last = m.sizes.length - 1;
  const ms = (s) => `${+(s * 1e3).toPrecision(3)} ms`;
  return `At n = ${m.sizes[last]} the engine took ${ms(m.standard.seconds[last])} holding ` +
    `${bytesText(m.standard.score_bytes[last])} of scores; the tiles took ${ms(m.tiled.seconds[last])} ` +
    `holding ${bytesText(m.tiled.score_bytes[last])} at once. A slope of 2 is time growing as n²; ` +
    "below it, costs that do not grow with n still count at these sizes." +
    (m.complete ? "" : " The 2 s budget ran out before the largest n.");
}

/** Build the panel in ``host``; ``page.get()`` gives {request}. Returns {changed}. */
export function mountCost(host, page) {
  const table = el("div", { class: "cost-formulas" });
  const button = el("button", { type: "button", text: "Measure on this server" });
  const status = el("p", { class: "cost-status", "aria-live": "polite" });
  const chart = el("div", { class: "cost-chart" });
  host.append(table, el("div", { class: "cost-controls" }, button), status, chart);
  let visible = false;
  const ask = async (extra) => {
    const { request } = page.get();
    if (!request) throw new Error("Nothing to count while a cell is not a number.");
    return askServer({ ...shapesOf(request), ...extra }, urls.cost);
  };
  const refresh = () => ask({}).then((body) => table.replaceChildren(formulas(body)),
    (err) => table.replaceChildren(el("p", { text: err.message })));
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = "Measuring at n = 64, 128, 256 and 512…";
    try {
      const body = await ask({ measure: true });
      chart.replaceChildren(plots(body.measured));
      status.textContent = measuredText(body.measured);
    } catch (err) {
      status.textContent = err.message;
    }
    button.disabled = false;
  });
  new IntersectionObserver(([entry]) => {
    visible = entry.isIntersecting;
    if (visible) refresh();
  }).observe(host);
  return { changed: () => { if (visible) refresh(); } };
}
