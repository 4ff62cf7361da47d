// Drawing the lessons beside the numbers (their facts and sentences are lessons.js's):
// each a section with a heading, small tables of the real numbers and the sentences
// they support. A comparison still being fetched shows "…"; one that failed says why.

import { el, symbols } from "../../lib/dom.js";
import { formatNumber, texNumber } from "../../lib/format.js";
import {
  alibiRows, alibiVerdict, bandCounts, keyBiasShift, keyBiasVerdict, kvCache, queryBiasShift,
  ropeVerdicts, valueBiasSplit,
} from "./lessons.js";
import { prose } from "../../draw/tex.js";
import { texInputs, texRate, texVector } from "../../draw/workingtex.js";
import { andList, count } from "../../lib/words.js";

const LONG = 8;  // rows of numbers longer than this keep their first 4 and last 2

/** A row of numbers as printed: "(1.000, −0.500)", a long one shortened with "…". */
export function rowText(v) {
  const parts = v.map((x) => formatNumber(x));
  return `(${(parts.length > LONG ? [...parts.slice(0, 4), "…", ...parts.slice(-2)] : parts).join(", ")})`;
}

const para = (text, cls = null) => el("p", { class: cls }, ...prose(text));
const lesson = (kind, title, ...parts) => el("section", { class: "lesson", "data-lesson": kind }, el("h3", {}, ...symbols(title)), ...parts);

/** A small table: a header row of texts and rows of [heading, ...cells]; texts may hold
 *  maths between $…$. */
function table(label, head, rows) {
  const cell = (c, tag, scope) => el(tag, { scope }, ...(typeof c === "string" ? prose(c) : [c]));
  return scroller(label, el("table", { class: "lesson-table" },
    el("thead", {}, el("tr", {}, ...head.map((h) => cell(h, "th", "col")))),
    el("tbody", {}, ...rows.map(([h, ...cells]) => el("tr", {}, cell(h, "th", "row"), ...cells.map((c) => cell(c, "td")))))));
}

// A narrow screen scrolls a table inside its box, by keyboard too (tabindex).
const scroller = (label, node) => el("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": label }, node);

/** Vectors one above the other, a number a cell, so equal numbers line up: ``head`` is
 *  [{title, size}] (a vector each), ``rows`` [heading, ...vectors] (null: not yet known). */
function vectorTable(label, head, rows) {
  const kept = (size) => (size > LONG ? [0, 1, 2, 3, null, size - 2, size - 1] : [...Array(size).keys()]);
  // Each vector's first cell opens its group (app.css rules it off from the one before).
  const cells = (v, size) => (v ? kept(size).map((k, c) => el("td", { class: c ? null : "group", text: k === null ? "…" : formatNumber(v[k]) }))
    : [el("td", { colspan: kept(size).length, class: "group waiting", text: "…" })]);
  return scroller(label, el("table", { class: "lesson-table vectors" },
    el("thead", {}, el("tr", {}, el("td"), ...head.map(({ title, size }) => el("th", { scope: "colgroup", class: "group", colspan: kept(size).length }, ...prose(title))))),
    el("tbody", {}, ...rows.map(([h, ...vs]) => el("tr", {}, el("th", { scope: "row" }, ...prose(h)), ...vs.flatMap((v, k) => cells(v, head[k].size)))))));
}

/** The state of a side answer: its value, or a sentence while it comes or when it failed. */
function pending(side) {
  if (!side) return "Computing the comparison…";
  if (side.error) return `The comparison could not be computed: ${side.error}`;
  return null;
}

/** RoPE: the same row at two offsets, under RoPE and under sinusoidal positions. data:
 *  {i, offsets: {a, b, shown}, here: {q, dots} (this view), rope, sinA, sinB} — the
 *  side answers as {value: {q, dots}} or pending. */
export function ropeLesson({ i, offsets: { a, b, shown }, here, rope, sinA, sinB }) {
  const ropeAt = { [shown]: here, [shown === a ? b : a]: rope?.value };
  const head = [{ title: "$q_i$", size: here.q.length }, { title: "scores $q_i \\cdot k_j$", size: here.dots.length }];
  const rows = (A, B) => [[`offset ${a}`, A?.q, A?.dots], [`offset ${b}`, B?.q, B?.dots]];
  const waitRope = pending(rope);
  const waitSin = pending(sinA) ?? pending(sinB);
  const verdicts = waitRope || waitSin ? null
    : ropeVerdicts({ a: ropeAt[a], b: ropeAt[b] }, { a: sinA.value, b: sinB.value }, b - a);
  return lesson("rope", "Rotary positions: shift every position, the scores stay",
    para(`Every position moved by ${b - a}: query ${i} from $p = ${a + i - 1}$ to $p = ${b + i - 1}$, key 1 from $p = ${a}$ to $p = ${b}$. Row ${i} at offset ${a} and ${b} (this view is at ${shown}), with RoPE:`),
    vectorTable(`Rotary positions, query ${i}, offsets ${a} and ${b}`, head, rows(ropeAt[a], ropeAt[b])),
    para(waitRope ?? verdicts?.rope ?? "…", "verdict"),
    para("The same request with sinusoidal positions added to $X$ instead:"),
    vectorTable(`Sinusoidal positions, query ${i}, offsets ${a} and ${b}`, head, rows(sinA?.value, sinB?.value)),
    para(waitSin ?? verdicts?.sinusoidal ?? "…", "verdict"));
}

/** Biases: b_K moves every score of row i by q_i·b_K; b_Q and b_V. data: {w, i, K, rope,
 *  noKeyBias (side: {value: weights})}. */
export function biasLesson({ w, i, K, rope, noKeyBias }) {
  const parts = [];
  if (w.b_K) parts.push(...keyBiasParts(w, i, rope, noKeyBias));
  if (w.b_Q) {
    const { adds, differs } = queryBiasShift(w, K);
    parts.push(w.b_Q.every((b) => b === 0) ? para("$b_Q$ is 0 here: it adds nothing to $q_i$, and changes no score.")
      : rope ? para("$b_Q$ is added before the rotation: it adds to each score an amount that depends on the key, so in general it changes the weights.")
      : para(`$b_Q$ adds $b_Q \\cdot k_j$ to the score of key $j$: ${rowText(adds)}, ${differs ? "not the same number for every key this query reads, so $b_Q$ changes the weights." : "here the same number for every key this query reads, so these weights do not change."}`));
  }
  if (w.b_V) {
    const { plain, added } = valueBiasSplit(w);
    parts.push(added
      ? para(`$b_V$ is added to every $v_j$, and a row's weights sum to 1, so $z_{${i}}$ gains exactly $b_V$ and no weight changes: $z_{${i}} = \\sum_j a_{${i},j}\\, x_j W_V + b_V = ${texVector(plain)} + ${texInputs(w.b_V)} = ${texVector(w.z)}$.`)
      : para(`Query ${i} reads no key: its weights are all 0, so $z_{${i}} = 0$ and $b_V$ is not added.`));
  }
  const names = ["b_K", "b_Q", "b_V"].filter((b) => w[b]);
  return lesson("bias", `Biases: what ${names.join(", ")} do${names.length > 1 ? "" : "es"} to row ${i}`, ...parts);
}

function keyBiasParts(w, i, rope, side) {
  const parts = [];
  if (!rope) {
    const { qb, keys } = keyBiasShift(w);
    parts.push(para(`$b_K$ adds one number to every score of row ${i}: $q_{${i}} \\cdot b_K = ${texVector(w.q)} \\cdot ${texInputs(w.b_K)} = ${texNumber(qb)}$.`),
      table(`What b_K adds to each score of query ${i}`, ["key $j$", `$q_{${i}} \\cdot x_j W_K$`, `$+\\, q_{${i}} \\cdot b_K$`, `$= q_{${i}} \\cdot k_j$`],
        shortList(keys).map((k) => (k === null ? ["…", "", "", ""] : [String(k.j + 1), formatNumber(k.plain), formatNumber(qb), formatNumber(k.dot)]))));
  } else {
    parts.push(para("With rotary positions $b_K$ is turned with each key, by that key's own angle, so it no longer adds one number to the whole row."));
  }
  const wait = pending(side);
  parts.push(vectorTable(`The weights of query ${i} with and without b_K`, [{ title: `weights $a_{${i},j}$`, size: w.weights.length }],
    [["with $b_K$", w.weights], ["without $b_K$", side?.value ?? null]]),
  para(wait ?? keyBiasVerdict(w.weights, side.value, rope), "verdict"));
  return parts;
}

/** Up to 12 items, else the first 8 and null for the rest. */
const shortList = (xs) => (xs.length <= 12 ? xs : [...xs.slice(0, 8), null]);

/** Grouped-query heads: the key/value cache per token per layer. data: {H, G, d_k, d_v,
 *  tokens (keys kept), readers (kvReaders, or null)}. */
export function gqaLesson({ H, G, d_k, d_v, tokens, readers }) {
  const { own, shared } = kvCache(H, G, d_k, d_v);
  const saving = G === H
    ? "With as many key/value heads as query heads nothing is shared, and nothing saved."
    : `Sharing ${G} key/value head${G > 1 ? "s" : ""} among ${H} query heads makes it ${H / G} times smaller${G === 1 ? " (multi-query attention)" : ""}: for the ${count(tokens, "token")} here, ${tokens * own.count} numbers become ${tokens * shared.count} in each layer.`;
  const who = readers ? readers.map((hs, g) => `query head${hs.length > 1 ? "s" : ""} ${andList(hs.map((h) => h + 1))} read${hs.length > 1 ? "" : "s"} key/value head ${g + 1}`).join("; ") : null;
  return lesson("gqa", "Grouped-query heads: a smaller key/value cache",
    para("While a model generates, it keeps the keys and values of every token it has read, in every layer (the key/value cache), so as not to compute them again for each new token. Per token and layer:"),
    table("Numbers kept per token and layer", ["", "key/value heads", "numbers kept"],
      [["each query head its own", `$H = ${H}$`, `$${own.formula} = ${own.count}$`], ["shared", `$G = ${G}$`, `$${shared.formula} = ${shared.count}$`]]),
    para(`${saving}${who ? ` Here ${who}.` : ""}`, "verdict"));
}

/** ALiBi: the selected row's bias and weights by distance. data: {w, i, keys, plain
 *  (side: {value: weights without ALiBi})}. */
export function alibiLesson({ w, i, keys, plain }) {
  const wait = pending(plain);
  const rows = alibiRows(w, plain?.value ?? w.weights.map(() => NaN));
  return lesson("alibi", "ALiBi: nearer keys win, farther keys fade",
    para(`No position is added to $X$; the scores of row ${i} get the bias ${"${-m\\,|i - j|}$"} instead, with $m = ${texRate(w.alibi_slope)}$. By distance:`),
    table(`ALiBi bias and weights of query ${i}, by distance`, ["key $j$", "$|i - j|$", "bias", `$a_{${i},j}$ without`, "with"],
      shortList(rows).map((r) => (r === null ? ["…", "", "", "", ""]
        : [`${r.j + 1} ${keys[r.j]}`, String(r.distance), formatNumber(r.bias), wait ? "…" : formatNumber(r.plain), formatNumber(r.weight)]))),
    para(wait ?? alibiVerdict(rows, w.alibi_slope), "verdict"));
}

/** Window and sinks: what the heatmap's outlines show, counted. data: {band, mask, keys}. */
export function windowLesson({ band, mask, keys }) {
  const { outside, open } = bandCounts(mask, band);
  const total = mask.length * mask[0].length;
  const s = Math.min(band.sinks, keys.length);
  const sinks = s ? ` The first ${s === 1 ? "key" : `${s} keys`} (${keys.slice(0, s).join(", ")}) ${s === 1 ? "is a sink" : "are sinks"}, marked “sink”: readable from every query, ${s === 1 ? "its column stays" : "their columns stay"} open outside the band, each such cell ringed with dots.` : "";
  const counts = outside === 0 ? `${total === 1 ? "The one weight" : `Every one of the ${total} weights`} is inside the band: a window of ${band.window} changes nothing here.`
    : `Of the ${total} weights, ${outside} lie${outside === 1 ? "s" : ""} outside the band${open === 0 ? ", masked"
      : `: ${open} stay${open === 1 ? "s" : ""} open because ${open === 1 ? "its key is a sink" : "their keys are sinks"}${
        open < outside ? `, the other ${outside - open} ${outside - open === 1 ? "is" : "are"} masked` : ""}`}.`;
  return lesson("window", `Sliding window of ${band.window}${s ? ` with ${s} sink${s > 1 ? "s" : ""}` : ""}: the band on the heatmap`,
    para(`The heatmap outlines the band $|i - j| < ${band.window}$ with dashes: at most ${count(2 * band.window - 1, "key")} of it for each query, ${band.window} with the causal mask.${sinks}`),
    para(counts, "verdict"));
}
