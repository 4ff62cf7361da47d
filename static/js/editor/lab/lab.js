// The scaling lab, "why divide by √d_k", in three exhibits:
//  1. two keys whose raw scores are one standard deviation of q·k (√d_k) apart: the winner's
//     softmax weight against d_k, without and with the scaling (GET /api/scaling, fetched once);
//  2. where that √d_k comes from: the measured variance of q·k and of q·k/√d_k (GET
//     /api/scaling/sample, one request per d_k each time "Sample" is pressed);
//  3. what saturation costs: the selected row's entropy and softmax-Jacobian size.
// The panel is built whole at mount, before the first paint, at its final size, so nothing
// moves when the numbers arrive; afterwards only text and a few SVG attributes change.
// Its numbers and words are labmaths.js's, its plots' SVG parts labsvg.js's.

import { urls } from "../../lib/config.js";
import { el, setText, symbols } from "../../lib/dom.js";
import { formatNumber } from "../../lib/format.js";
import { BOX, curveSummary, dkOf, exponentOf, maxExponent, plotScales, points, PROMPT, rowText, SAMPLE_DKS,
  sampleCaption, sampleSummary, sampleUrl, START_EXPONENT, valueText, winnerText } from "./labmaths.js";
import { dot, frame, legend, powerTicks, setAttrs, square, svg } from "./labsvg.js";

function curveFigure(ui, ids) {
  const top = maxExponent();
  const s = ui.curveScales = plotScales([-0.3, top + 0.3], [0.5, 1]);
  const xTicks = powerTicks(Array.from({ length: Math.floor(top / 2) + 1 }, (_, k) => 2 * k));  // 1, 4, 16 …
  ui.lines = ["unscaled", "scaled"].map((cls) => svg("polyline", { class: cls }));
  ui.cursor = svg("line", { class: "cursor", y1: s.y(0.5), y2: s.y(1) });
  ui.marks = [0, 1].map(() => svg("circle", { class: "mark", r: 4 }));
  ui.markLabels = [0, 1].map(() => svg("text", { class: "mark-label" }));
  ui.curve = frame(s, xTicks, [0.5, 0.6, 0.7, 0.8, 0.9, 1].map((v) => [v, v.toFixed(1)]),
    "d_k (log scale)", "winner's weight");
  ui.curve.setAttribute("aria-label", "Winner's weight against d_k: loading");
  // The legend sits in the empty band below 0.7, drawn over the cursor, under the marks.
  ui.curve.append(...ui.lines, ui.cursor, legend(s.x(4.6), s.y(0.6), 140, [["unscaled", "without scaling", null],
    ["scaled", "with scaling, ÷ √d_k", null]]), ...ui.marks, ...ui.markLabels);
  ui.slider = el("input", { type: "range", id: ids.dk, min: 0, max: top, step: 1, value: START_EXPONENT,
    "aria-label": "d_k for the scaling lab" });
  ui.dk = el("span", { class: "lab-dk" });
  // Announced as the slider moves; a live span, not <output>, whose role "status" belongs to the page's status line.
  ui.winner = el("span", { class: "lab-winner", "aria-live": "polite", text: "without scaling …, with scaling …" });
  ui.gap = el("span");
  return el("figure", { class: "lab-fig" }, el("h3", { text: "The winner's weight" }),
    el("div", { class: "lab-slider" }, el("label", { for: ids.dk }, ...symbols("d_k")), ui.slider, ui.dk),
    el("p", { class: "lab-readout" }, ui.winner), ui.curve,
    el("figcaption", {}, ui.gap, ...symbols(" They differ by one standard deviation of q·k, which is √d_k: unscaled, the gap"
      + " grows with d_k and the softmax gives the winner almost everything; scaled, it is always 1 and the winner gets σ(1) = 0.731.")));
}

/** Move the slider's readout and marks to d_k = 2^e; the curve itself arrives once, from the API. */
function showExponent(ui, e) {
  const d_k = dkOf(e);
  ui.slider.setAttribute("aria-valuetext", valueText(e));
  ui.dk.textContent = String(d_k);
  ui.gap.replaceChildren(...symbols(`At d_k = ${d_k} the two raw scores are √${d_k} = ${formatNumber(Math.sqrt(d_k))} and 0;`
    + " divided by √d_k they are 1 and 0."));
  if (!ui.curveData) return;
  ui.winner.textContent = winnerText(ui.curveData, e);
  const { x, y } = ui.curveScales;
  const k = ui.curveData.d_k.indexOf(d_k);
  const left = e >= 7;  // near the right edge the labels go left of the marks
  setAttrs(ui.cursor, { x1: x(e), x2: x(e) });
  [[ui.curveData.unscaled[k], -7, 4], [ui.curveData.scaled[k], 16, 3]].forEach(([p, dy, digits], m) => {
    setAttrs(ui.marks[m], { cx: x(e), cy: y(p) });
    setAttrs(ui.markLabels[m], { x: x(e) + (left ? -7 : 7), y: Math.max(y(p) + dy, BOX.top + 14), "text-anchor": left ? "end" : "start" });
    ui.markLabels[m].textContent = formatNumber(p, digits);
  });
}

async function loadCurve(ui) {
  if (ui.loading) return;
  ui.loading = true;
  try {
    const response = await fetch(urls.scaling);
    const body = await response.json();
    if (!response.ok) throw new Error(body.error?.message ?? `the server answered ${response.status}`);
    ui.curveData = body;
  } catch (err) {  // said where the numbers would be; the slider's next move tries again
    ui.winner.textContent = `the curve did not load (${err.message}); move the slider to try again.`;
    return;
  } finally {
    ui.loading = false;
  }
  const xs = ui.curveData.d_k.map(exponentOf);
  ["unscaled", "scaled"].forEach((key, m) => ui.lines[m].setAttribute("points", points(xs, ui.curveData[key], ui.curveScales)));
  ui.curve.setAttribute("aria-label", curveSummary(ui.curveData));
  showExponent(ui, Number(ui.slider.value));
}

function sampleFigure(ui, ids) {
  // Both axes in log2, of d_k and of the variance, over the d_k sampled with a margin; the
  // expected lines run from the first d_k sampled to the last, inside the margins, and
  // every line is clipped to the plot area, so a measured value beyond it (a few samples)
  // never runs over the axes.
  const dks = SAMPLE_DKS.map(Math.log2);  // 0, 2, … 8
  const [first, last] = [dks[0], dks.at(-1)];
  const s = ui.sampleScales = plotScales([first - 0.4, last + 0.4], [first - 1.5, last + 1]);
  const inside = { "clip-path": `url(#${ids.clip})` };
  ui.measured = svg("g", { class: "measured", ...inside });
  ui.plot = frame(s, powerTicks(dks), powerTicks(dks), "d_k (log scale)", "variance (log scale)", ids.clip);
  ui.plot.setAttribute("aria-label", sampleSummary(null));
  ui.plot.append(svg("polyline", { class: "expected", points: points([first, last], [first, last], s), ...inside }),
    svg("polyline", { class: "expected", points: points([first, last], [0, 0], s), ...inside }),
    legend(s.x(first - 0.1), s.y(last + 0.3), 130, [["unscaled", "Var(q·k)", dot], ["scaled", "Var(q·k / √d_k)", square],
      ["expected", "expected: d_k and 1", null]]), ui.measured);
  const field = (key, label, value) => el("div", { class: "lab-field" }, el("label", { for: ids[key], text: label }),
    ui[key] = el("input", { id: ids[key], type: "text", inputmode: "numeric", autocomplete: "off", spellcheck: "false", value }));
  ui.form = el("form", { class: "lab-form", novalidate: true }, field("samples", "Samples", "10000"), field("seed", "Seed", "0"),
    el("button", { type: "submit", text: "Sample" }));
  ui.msg = el("p", { class: "lab-msg", id: ids.msg, "aria-live": "polite" });
  ui.caption = el("span", { text: "the expected values; press Sample to measure them" });
  ui.tbody = el("tbody");
  ui.table = el("table", { class: "lab-table", hidden: true }, el("caption", { class: "visually-hidden" }),
    el("thead", {}, el("tr", {}, ...["d_k", "Var(q·k)", "Var(q·k / √d_k)"].map((t) => el("th", { scope: "col" }, ...symbols(t))))), ui.tbody);
  return el("figure", { class: "lab-fig" }, el("h3", {}, ...symbols("Where √d_k comes from")), ui.form, ui.msg, ui.plot,
    el("figcaption", {}, ...symbols("Variance of q·k and of q·k/√d_k for random q, k with N(0, 1) components: "), ui.caption, "."),
    ui.table,
    el("p", { class: "lab-note" }, ...symbols("q·k is a sum of d_k independent products, each of variance 1, so its variance"
      + " grows like d_k. Dividing by √d_k divides the variance by d_k and brings it back to 1, whatever the width.")));
}

/** Put the API's message by the input it names (or under the form), or clear it. */
function say(ui, text, field = null) {
  ui.msg.textContent = text;
  ui.msg.classList.toggle("is-error", field !== null);
  for (const key of ["samples", "seed"]) {
    ui[key].setAttribute("aria-invalid", String(key === field));
    if (key === field) ui[key].setAttribute("aria-describedby", ui.msg.id);
    else ui[key].removeAttribute("aria-describedby");
  }
}

async function sample(ui) {
  const [samples, seed] = [ui.samples.value.trim(), ui.seed.value.trim()];
  const ticket = ++ui.ticket;  // a second press supersedes the first
  say(ui, "Sampling…");
  let answers;
  try {
    answers = await Promise.all(SAMPLE_DKS.map(async (d) => {
      const response = await fetch(sampleUrl(d, samples, seed));
      return { status: response.status, body: await response.json() };
    }));
  } catch {
    if (ticket === ui.ticket) say(ui, "Nothing was measured: the server did not answer. Try again.", "");
    return;
  }
  if (ticket !== ui.ticket) return;
  const bad = answers.find((a) => a.status !== 200);
  if (bad) {
    const { message, field } = bad.body.error ?? { message: `The server answered ${bad.status}.`, field: null };
    say(ui, message, field ?? "");
    return;
  }
  say(ui, "");
  drawSamples(ui, answers.map((a) => a.body));
}

/** The five measured rows on the plot, in its summary and caption, and in the table. */
function drawSamples(ui, rows) {
  const s = ui.sampleScales;
  const xs = rows.map((r) => Math.log2(r.d_k));
  const [raw, scaled] = ["variance_raw", "variance_scaled"].map((key) => rows.map((r) => Math.log2(r[key])));
  ui.measured.replaceChildren(svg("polyline", { class: "unscaled thin", points: points(xs, raw, s) }),
    svg("polyline", { class: "scaled thin", points: points(xs, scaled, s) }),
    ...xs.map((v, k) => dot(s.x(v), s.y(raw[k]))), ...xs.map((v, k) => square(s.x(v), s.y(scaled[k]))));
  ui.plot.setAttribute("aria-label", sampleSummary(rows));
  ui.caption.replaceChildren(...symbols(`measured with ${sampleCaption(rows)}`));  // "d_k" typeset
  ui.table.querySelector("caption").textContent = `Measured variances, ${sampleCaption(rows)}`;
  ui.tbody.replaceChildren(...rows.map((r) => el("tr", {}, el("th", { scope: "row", text: String(r.d_k) }),
    el("td", { text: formatNumber(r.variance_raw) }), el("td", { text: formatNumber(r.variance_scaled) }))));
  ui.table.hidden = false;
}

/** Build the lab's panel inside ``host`` (a section the page provides). */
export function mountLab(host) {
  const id = (s) => `${host.id || "lab"}-${s}`;
  const ids = { dk: id("dk"), samples: id("samples"), seed: id("seed"), msg: id("msg"), clip: id("variance-area") };
  const ui = { curveData: null, loading: false, ticket: 0 };
  const row = el("p", { class: "lab-row-text", text: PROMPT });
  host.replaceChildren(el("div", { class: "lab" },
    el("p", { class: "lab-intro" }, ...symbols("Without the division, scores grow with the width d_k of q and k, and the"
      + " softmax saturates: one weight near 1, the rest near 0, and almost no gradient to learn from.")),
    el("div", { class: "lab-figs" }, curveFigure(ui, ids), sampleFigure(ui, ids)),
    el("div", { class: "lab-row" }, el("h3", { text: "The selected row" }), row,
      el("p", { class: "lab-note", text: "When the weights saturate (entropy near 0), the softmax Jacobian diag(a) − a aᵀ"
        + " goes to 0, and with it the gradient that flows back into the scores. Its size here is its Frobenius norm." }))));
  ui.slider.addEventListener("input", () => { showExponent(ui, Number(ui.slider.value)); if (!ui.curveData) loadCurve(ui); });
  ui.form.addEventListener("submit", (e) => { e.preventDefault(); sample(ui); });
  showExponent(ui, START_EXPONENT);
  loadCurve(ui);
  const given = labRows.get(host)?.row;  // the page may select a row before the lab is mounted
  labRows.set(host, { node: row, timer: 0 });
  if (given !== undefined) updateLabRow(host, given);
}

// host → its readout paragraph, so an update is one text write; or, until mountLab,
// {row}: the row it is to show.
const labRows = new WeakMap();

/** Show the selected row's entropy and softmax-Jacobian size, or a prompt for null. */
export function updateLabRow(host, row) {
  const r = labRows.get(host);
  if (!r?.node) {
    labRows.set(host, { row });
    return;
  }
  clearTimeout(r.timer);
  // The page passes null for a moment while a newly selected row's numbers are fetched;
  // the prompt waits, so the old row's readout (which names its row) does not flicker.
  const show = () => setText(r.node, rowText(row));
  if (row === null) r.timer = setTimeout(show, 250);
  else show();
}
