// Write out one query row's calculation with the real numbers, one line per step, from
// the ``working`` object of the API's answer; its maths spans are typeset by the caller
// with KaTeX (tex.js), once they are in place.

import { el, symbols } from "../lib/dom.js";
import { formatNumber, texNumber } from "../lib/format.js";
import { morph } from "../lib/morph.js";
import { math, prose } from "./tex.js";
import { joinTerms, line, NO_KEY, sigText, step, texFactor, texInputs, texRate, texSig, texVector } from "./workingtex.js";
import { count } from "../lib/words.js";
import { beyondReason, biasStep, kvHeadStep, reachStep, rotationStep } from "./workingsteps.js";
import { disclosure, formulaTex, queryKeyLines, rowTex, valueLines } from "./workingmade.js";

export { joinTerms, NO_KEY, sigText, texFactor, texInputs, texRate, texSig, texVector };

const ALL_KEYS = 12;     // up to this many keys every key gets its lines
const TOP_KEYS = 8;      // beyond it, the keys with the largest weights

/** z_i as a sum whose terms are typeset apart, so that the term of key j can be lit. */
function zLine(i, terms) {
  const parts = [math(`z_{${i}} =`)];
  terms.forEach(({ j, tex }, k) => {
    if (k) parts.push(math("+"));
    parts.push(el("span", { class: "term", "data-j": j }, math(tex)));
  });
  return el("li", { class: "z-terms", "data-step": "z" }, ...parts);
}

/** The softmax of the row, one key a row: its dot product, scaled score, exponential and
 *  weight side by side, so the whole row reads in one table (the columns are the steps).
 *  With ALiBi (w.bias) the scaled score and the bias added to it have columns of their
 *  own before s_ij. */
function softmaxTable(w, i, shown, keys, { scaleTex, shifted, total }) {
  // Each column's heading is the operation that makes it from the column before; with no
  // key to read there is no sum, and the weights are 0 by convention, not divided by it.
  // Where the working's column is narrow a heading breaks after its "=" (or, ALiBi's,
  // between −m and |i − j|), never inside an operation: each is one TeX group.
  const e = shifted ? `e^{s - m}` : `e^{s}`;
  const none = !w.allowed.some(Boolean);
  const alibi = Boolean(w.bias);
  const head = el("tr", {},
    el("th", { scope: "col", class: "key-col", text: "key j" }),
    el("th", { scope: "col" }, math(`q_{${i}} \\cdot k_j`)),
    ...(alibi
      ? [el("th", { scope: "col", class: "whole" }, math(`{}${scaleTex}`)),
        el("th", { scope: "col" }, math(`{{}- m}\\allowbreak{\\,|${i} - j|}`)),
        el("th", { scope: "col" }, math(`{}= s_{${i},j}`))]
      : [el("th", { scope: "col" }, math(`{{}${scaleTex}} = s_{${i},j}`))]),
    el("th", { scope: "col" }, math(e)),
    el("th", { scope: "col" }, math(none ? `a_{${i},j}` : `${divisorTex(total)} = a_{${i},j}`)));
  const expOf = (j) => (shifted ? w.exp_shifted[j] : w.exp[j]);
  const rows = shown.map((j) => {
    const masked = !w.allowed[j];
    // The scaled score before its bias: the float64 product the engine makes too.
    const scoreCells = alibi
      ? [el("td", { text: formatNumber(w.scale * w.dots[j]) }), el("td", { text: formatNumber(w.bias[j]) }),
        el("td", { text: masked ? "−∞" : formatNumber(w.scaled[j]) })]
      : [el("td", { text: masked ? "−∞" : formatNumber(w.scaled[j]) })];
    return el("tr", { "data-j": j, class: masked ? "masked-line" : null },
      el("th", { scope: "row", class: "key-col" }, `${j + 1} `, el("span", { class: "key-label", text: keys[j] }),
        masked ? el("span", { class: "masked-tag", text: " masked" }) : null),
      el("td", { text: formatNumber(w.dots[j]) }),
      ...scoreCells,
      el("td", { text: masked ? "0" : sigText(expOf(j)) }),
      el("td", { text: masked ? "0" : formatNumber(w.weights[j]) }));
  });
  // A narrow screen scrolls the table inside its box, by keyboard too (tabindex).
  return el("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": `Softmax of query ${i}, key by key` }, el("table", { class: alibi ? "softmax-table with-bias" : "softmax-table" },
    el("thead", {}, head), el("tbody", {}, ...rows)));
}

/** "÷ 90.62" as one TeX group; a sum in scientific form, "÷ 1.080 × 10^{6}", may break
 *  after its "×", so that its column stays narrow on a phone. */
function divisorTex(total) {
  const [mant, power] = texSig(total).split(" \\times ");
  return `{{}\\div ${mant}}${power ? ` \\times ${power}` : ""}`;
}

/** The keys whose lines are written: all up to ALL_KEYS, else the TOP_KEYS strongest
 *  allowed ones in order (the first TOP_KEYS when none is allowed), with a note saying so. */
function shownKeys(w, allowedIdx) {
  const m = w.weights.length;
  if (m <= ALL_KEYS) return { shown: [...Array(m).keys()], note: null };
  const note = (text) => el("p", { class: "note", text: `${m} keys${text}` });
  const reads = allowedIdx.length;
  if (!reads) return { shown: [...Array(TOP_KEYS).keys()], note: note(`, every one masked: the first ${TOP_KEYS} are written out.`) };
  if (reads <= TOP_KEYS) {
    return { shown: allowedIdx, note: note(`: the ${count(reads, "key")} this query may read ${reads === 1 ? "is" : "are"} written out, not the ${count(m - reads, "masked key")}.`) };
  }
  const shown = [...allowedIdx].sort((a, b) => w.weights[b] - w.weights[a]).slice(0, TOP_KEYS).sort((a, b) => a - b);
  return { shown, note: note(`: the ${TOP_KEYS} with the largest weights are written out; sums run over all ${reads} keys this query may read.`) };
}

/** renderWorking(host, view) writes the working of view.working (undefined: no row).
 *  view: {working, tokens, keys, d_k, K, V, causal, positional, ropeBase, offset, kv,
 *  dotTerms, fold, open}. K and V are the answer's matrices: k_j and v_j are their rows;
 *  ``keys`` label them (the tokens themselves in self-attention, X_kv's in
 *  cross-attention). ``positional`` is the request's ("sinusoidal": the projections
 *  multiply x_i + PE_i), ``ropeBase`` and ``offset`` its θ and first position, ``kv``
 *  {head, kvHead, kvHeads, readers} when the head reads a shared key/value head
 *  (workingsteps.kvHeadStep), ``dotTerms`` how the dot products are written (dotTex:
 *  undefined, "compact" or "every"), ``made`` what the projections multiply, for "how q_i
 *  is made" (workingmade.js: {x, xk(j), W_Q, W_K, W_V, pe, cross} with the numbers, or
 *  {d_model} for the shapes alone). The steps come in the order of the maths; with
 *  ``fold`` (the real-model view, whose reader may know only the chapter) the chapter's
 *  come first, and those of today's models (key/value heads, biases, rotations) after
 *  them, folded in a <details> (``open`` or not) under one line saying why they are there. */
export function renderWorking(host, view) {
  const { working: w, tokens, keys = tokens } = view;
  if (!w) {
    morph(host, [el("p", { class: "prompt", text: "Select a row of the heatmap to see its calculation." })]);
    return;
  }
  const i = w.row + 1;
  const m = w.weights.length;  // the keys: n in self-attention, m in cross-attention
  const allowedIdx = [...Array(m).keys()].filter((j) => w.allowed[j]);
  const { shown, note } = shownKeys(w, allowedIdx);
  // A disclosure opened stays open while its row is redrawn (its lines are new numbers).
  const opened = (key) => Boolean(host.querySelector(`details.made[data-made="${key}"]`)?.open);
  const { beyond, chapter } = stepsOf({ ...view, opened }, i, shown, keys, allowedIdx);
  const numbered = (list) => list.map((s, k) => step(`${k + 1} · ${s.title}`, s.key, ...s.items));
  morph(host, [
    el("p", { class: "working-title" }, "Query ", el("strong", { text: `${i} · “${w.token}”` }),
      allowedIdx.length === m ? " reads every key." : allowedIdx.length
        ? ` may read ${allowedIdx.length} of the ${m} keys; the ${m - allowedIdx.length === 1 ? "other is" : "others are"} masked.`
        : " may read no key: every key is masked."),
    ...(note ? [note] : []),
    ...(view.fold && beyond.length
      ? [...numbered(chapter), el("details", { class: "beyond", open: Boolean(view.open) },
        el("summary", {}, ...symbols(beyondReason(w, view.kv))), ...beyond.map((s) => step(s.title, s.key, ...s.items)))]
      : numbered([...beyond, ...chapter])),
  ]);
}

/** The working's steps: ``beyond``, what today's models add before the dot products (the
 *  key/value head read, the biases, the rotation by position), and ``chapter``, the
 *  textbook's (the dot products, which keys a window leaves, the scale and softmax, z). */
function stepsOf(view, i, shown, keys, allowedIdx) {
  const { working: w, d_k, K, V } = view;
  const dots = shown.map((j) => line(dotTex(w, i, j, K[j], view.dotTerms), keys[j], null, j));
  // Where the rotation comes before the dot products, it starts from q_i as made, with how.
  const turnFirst = Boolean(w.angles) && !view.fold;
  const turn = (r) => ({ ...r, items: [el("ol", {}, queryLine(view, i, shown, keys, { turned: false })), ...r.items] });
  return {
    beyond: [
      ...(view.kv ? [kvHeadStep(view.kv)] : []),
      ...(w.b_Q || w.b_K || w.b_V ? [biasStep(w, i, shown, keys, projected(view, i))] : []),
      ...(w.angles ? [turn(rotationStep(w, i, shown, keys, { K, base: view.ropeBase ?? 10000, offset: view.offset ?? 0 }))] : []),
    ],
    chapter: [
      { title: "Dot products with each key", key: "dots", items: [el("ol", {}, queryLine(view, i, shown, keys, { how: !turnFirst }), ...dots)] },
      ...(w.window !== undefined || w.sinks ? [reachStep(w, i, Boolean(view.causal))] : []),
      softmaxStep(w, i, shown, keys, scaleWords(w.scale, d_k), allowedIdx),
      { title: "Output: z is the weighted sum of the values", key: "output", items: [el("ol", {}, ...outputLines(w, i, allowedIdx, V, valuesMade(view, i, shown, keys)))] },
    ],
  };
}

/** q_i as the view computes it, "q_3 = x_3W_Q = (2.000, 2.000)" (``turned``: after RoPE's
 *  turn, else before it), and beside it (``how``) how q_i and k_j are made, one click
 *  away (workingmade.js). */
function queryLine(view, i, shown, keys, { turned = true, how = true } = {}) {
  const { working: w, made, K } = view;
  const pe = view.positional === "sinusoidal";
  const rotated = turned && Boolean(w.q_unrotated);
  const formula = formulaTex(rowTex(i, { pe }), "W_Q", { bias: Boolean(w.b_Q), rotated, p: w.position });
  return el("li", { class: "made-line" }, math(`q_{${i}} = ${formula} = ${texVector(rotated || !w.q_unrotated ? w.q : w.q_unrotated)}`),
    made && how ? disclosure("qk", `how q_${i} and k_j are made`, () => queryKeyLines(w, i, shown, keys, made, K), view.opened("qk")) : null);
}

/** How each v_j is made, one click away beside z_i's value (null without ``made``). */
function valuesMade(view, i, shown, keys) {
  const { working: w, made, V } = view;
  return made ? disclosure("v", "how each v_j is made", () => valueLines(w, i, shown, keys, made, V), view.opened("v")) : null;
}

/** q_i · k_j written out: by default its terms (joinTerms keeps the first and last few of
 *  a long sum); ``terms`` "compact" gives the value alone, one short line per key (a
 *  64-term product is a screen wide), and "every" every one of its d_k terms. A line too
 *  long for its column breaks after a "+": the last term and "= q_i·k_j" are one group,
 *  so the result never stands alone at the start of a line, and the line it breaks to
 *  is indented under the first (app.css). */
function dotTex(w, i, j, k, terms) {
  const lhs = `q_{${i}} \\cdot k_{${j + 1}}`;
  if (terms === "compact") return `${lhs} = ${texNumber(w.dots[j])}`;
  // A product's dot is set tight, as an ordinary symbol: the products bind closer than
  // the sum, and a line of two of them fits the working's column at 8 tokens.
  const products = w.q.map((qc, c) => `${texFactor(qc)}{\\cdot}${texFactor(k[c])}`);
  const items = [...products.slice(0, -1), `{${products.at(-1)} = ${texNumber(w.dots[j])}}`];
  return `${lhs} = ${terms === "every" ? items.join(" + \\allowbreak ") : joinTerms(items)}`;
}

/** The TeX of the rows the projections multiply: x_i, or with sinusoidal positions
 *  x_i + PE_i (in cross-attention the keys' rows are X_kv's). */
function projected({ K, V, positional, keys, tokens }, i) {
  const pe = positional === "sinusoidal";
  const kv = keys !== tokens && keys !== undefined ? "^{kv}" : "";
  const row = (x, k) => (pe ? `(x${x}_{${k}} + PE${x}_{${k}})` : `x${x}_{${k}}`);
  return { K, V, xq: row("", i), xk: (j) => row(kv, j + 1) };
}

/** Scale, with ALiBi add the bias, then the softmax table and the sum of exponentials. */
function softmaxStep(w, i, shown, keys, scale, allowedIdx) {
  const shifted = w.exp_overflow;
  const expOf = (j) => (shifted ? w.exp_shifted[j] : w.exp[j]);
  const total = shifted ? w.exp_shifted_sum : w.exp_sum;
  const sumTex = shifted ? `\\textstyle\\sum_j e^{s_{${i},j} - m}` : `\\textstyle\\sum_j e^{s_{${i},j}}`;
  // With no key to read the sum has no term: the convention is said in its place.
  const sum = allowedIdx.length
    ? [el("ol", {}, line(`${sumTex} = ${joinTerms(allowedIdx.map((j) => texSig(expOf(j))))} = ${texSig(total)}`, null, "sum-line"))]
    : [el("p", { class: "note no-key" }, ...prose(NO_KEY))];
  const notes = [];
  if (w.bias) {
    notes.push(el("p", { class: "note" }, ...prose(`ALiBi adds $-m\\,|i - j|$ to each scaled score, with this head's slope $m = ${texRate(w.alibi_slope)}$: 0 where $j = i$, and lower the farther the key.`)));
  }
  if (shifted) {
    notes.push(el("p", { class: "note" }, ...symbols(`e^s is too large for a float64 here, so, as the code does, the largest score m = ${formatNumber(w.shift)} is subtracted first from every score; the weights are unchanged.`)));
  }
  return { title: `${scale.title}${w.bias ? ", add the ALiBi bias" : ""}, then softmax`, key: "softmax",
    items: [...notes, softmaxTable(w, i, shown, keys, { scaleTex: scale.tex, shifted, total }), ...sum] };
}

/** z_i as the weighted sum of the allowed keys' values; long sums keep their first and
 *  last terms, as joinTerms does for the other lines. */
function outputLines(w, i, allowedIdx, V, made) {
  const last = (tex) => el("li", { class: "made-line" }, math(tex), made);
  if (!allowedIdx.length) return [last(`z_{${i}} = ${texVector(w.z, texNumber)}`)];
  const zIdx = allowedIdx.length <= 8 ? allowedIdx : [...allowedIdx.slice(0, 4), null, ...allowedIdx.slice(-2)];
  return [zLine(i, zIdx.map((j) => ({ j, tex: j === null ? "\\cdots" : `${texNumber(w.weights[j])}\\,${texVector(V[j])}` }))),
    last(`\\phantom{z_{${i}}} = ${texVector(w.z, texNumber)}`)];
}

/** How the scores are scaled, in words for a heading and as TeX after q·k: divided by
 *  √d_k when the scale is 1/√d_k, else multiplied by the scale actually used. */
export function scaleWords(scale, d_k) {
  const root = Math.sqrt(d_k);
  if (Math.abs(scale - 1 / root) < 1e-12) {
    return { title: `Divide by √d_k = ${formatNumber(root)} (d_k = ${d_k})`, tex: `\\div ${texNumber(root)}`, isDefault: true };
  }
  return { title: `Multiply by the scale ${formatNumber(scale)}, instead of 1/√d_k = ${formatNumber(1 / root)}`,
    tex: `\\times ${texNumber(scale)}`, isDefault: false };
}
