// "What n² costs": the view's multiply-adds and bytes by formula (POST /api/cost), and
// "Measure on this server": the engine and the tiled computation timed at n = 64 … 512,
// drawn on log–log axes with their fitted slopes. The formulas follow the view while the
// panel is on screen; a measurement is made only when asked (it takes up to 2 s of a core).

import { el } from "../lib/dom.js";
import { urls } from "../lib/config.js";
import { askServer } from "../lib/api.js";
import { bytesText, grouped } from "../lib/format.js";

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

/** Seconds against n on log–log axes: the engine's points and the tiles', each line
 *  labelled with its fitted slope. */
export function plot(measured) {
  const [W, H, L, B, R] = [480, 240, 70, 36, 150];  // R: room for the lines' labels
  const all = [...measured.standard.seconds, ...measured.tiled.seconds];
  const [lo, hi] = [Math.log10(Math.min(...all)), Math.log10(Math.max(...all))];
  const span = Math.max(hi - lo, 0.3);
  const x = (n) => L + (Math.log2(n / measured.sizes[0]) / Math.max(1, Math.log2(measured.sizes.at(-1) / measured.sizes[0]))) * (W - L - R);
  const y = (s) => H - B - ((Math.log10(s) - lo) / span) * (H - B - 16);
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "cost-plot", role: "img",
    "aria-label": `Time against n on log–log axes: the engine's slope ${measured.standard.slope.toFixed(2)}, the tiles' ${measured.tiled.slope.toFixed(2)}` });
  const ms = (s) => `${+(s * 1e3).toPrecision(2)} ms`;
  const [fast, slow] = [Math.min(...all), Math.max(...all)];
  chart.append(svg("line", { x1: L, y1: H - B, x2: W - R + 10, y2: H - B, class: "axis" }),
    svg("line", { x1: L, y1: 12, x2: L, y2: H - B, class: "axis" }),
    svg("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle" }, "n (log scale)"),
    svg("text", { x: 10, y: (H - B) / 2, transform: `rotate(-90 10 ${(H - B) / 2})`, "text-anchor": "middle" }, "time (log scale)"),
    svg("text", { x: L - 4, y: y(fast) + 4, "text-anchor": "end" }, ms(fast)),
    svg("text", { x: L - 4, y: y(slow) + 4, "text-anchor": "end" }, ms(slow)));
  for (const n of measured.sizes) chart.append(svg("text", { x: x(n), y: H - B + 14, "text-anchor": "middle" }, String(n)));
  for (const [kind, label] of [["standard", "engine"], ["tiled", `tiles ${measured.block}²`]]) {
    const pts = measured.sizes.map((n, k) => [x(n), y(measured[kind].seconds[k])]);
    chart.append(svg("polyline", { points: pts.map((p) => p.join(",")).join(" "), class: `line-${kind}` }),
      ...pts.map(([px, py]) => svg("circle", { cx: px, cy: py, r: 3, class: `dot-${kind}` })),
      svg("text", { x: pts.at(-1)[0] + 6, y: pts.at(-1)[1] + 4, class: `label-${kind}` },
        `${label}: slope ${measured[kind].slope.toFixed(2)}`));
  }
  return chart;
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
      chart.replaceChildren(plot(body.measured));
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
