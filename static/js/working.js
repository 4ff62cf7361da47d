// Write out one query row's calculation with the real numbers, one line per step, from
// the ``working`` object of the API's answer; its maths spans are typeset by the caller
// with KaTeX (tex.js), once they are in place.

import { el, symbols } from "./dom.js";
import { FIXED_LIMIT, formatNumber, superscript, texNumber } from "./format.js";
import { morph } from "./morph.js";
import { math } from "./tex.js";

const ALL_KEYS = 12;     // up to this many keys every key gets its lines
const TOP_KEYS = 8;      // beyond it, the keys with the largest weights
const LONG = 8;          // vectors and sums longer than this are shortened with ⋯

/** A number as it is worked by hand: whole numbers stay short ("2"), others 3 decimals. */
export function texTerm(x) {
  return Number.isInteger(x) && Math.abs(x) < 1e6 ? String(x) : texNumber(x);
}

/** A factor of a product: negative numbers in parentheses, "2 · (−0.5)". */
export function texFactor(x) {
  return x < 0 ? `(${texTerm(x)})` : texTerm(x);
}

/** Four significant figures for exponentials and their sums: 16.92, 4.113, 69.59,
 *  0.006738, 1.336 × 10^{4}; from 100000 on, texNumber's scientific form, 4.852 × 10^{8}. */
export function texSig(x) {
  if (x === null || x === Infinity) return "\\infty";
  if (x === 0) return "0";
  if (Math.abs(x) >= FIXED_LIMIT) return texNumber(x);  // the page's one scientific form
  const [mant, exp] = x.toPrecision(4).split("e");
  if (!exp) return mant;
  if (Number(exp) > 0) return String(Number(x.toPrecision(4)));  // 19930, as printed below 100000
  return `${mant} \\times 10^{${Number(exp)}}`;
}

/** Join terms with " + ", shortening a long list to its first and last few. */
export function joinTerms(terms, sep = " + ") {
  if (terms.length <= LONG) return terms.join(sep);
  return [...terms.slice(0, 4), "\\cdots", ...terms.slice(-2)].join(sep);
}

/** A vector in parentheses; a long one may break after a comma to fit its column. */
export function texVector(v, fmt = texTerm) {
  return `(${joinTerms(v.map((x) => fmt(x)), ",\\allowbreak ")})`;
}

/** One line of the working; ``j`` marks the key it is about, for linked highlighting. */
function line(tex, label = null, cls = null, j = null) {
  return el("li", { class: cls, "data-j": j }, math(tex), label === null ? null : el("span", { class: "key-label", text: `  ${label}` }));
}

/** z_i as a sum whose terms are typeset apart, so that the term of key j can be lit. */
function zLine(i, terms) {
  const parts = [math(`z_{${i}} =`)];
  terms.forEach(({ j, tex }, k) => {
    if (k) parts.push(math("+"));
    parts.push(el("span", { class: "term", "data-j": j }, math(tex)));
  });
  return el("li", { class: "z-terms", "data-step": "z" }, ...parts);
}

function step(title, key, ...items) {
  return el("section", { class: "working-step", "data-step": key }, el("h3", {}, ...symbols(title)), ...items);
}

/** texSig as plain text for a table cell: 16.92, 0.006738, 4.113; from FIXED_LIMIT up the
 *  page's one scientific form (4.852×10⁸); ∞ for an exponential beyond float64. */
export function sigText(x) {
  if (x === null || x === Infinity) return "∞";
  if (x === 0) return "0";
  if (Math.abs(x) >= FIXED_LIMIT) return formatNumber(x);
  const [mant, exp] = x.toPrecision(4).split("e");  // below 1e-6 toPrecision writes e-7
  if (!exp) return mant;
  if (Number(exp) > 0) return String(Number(x.toPrecision(4)));  // 19930: 4 figures, below 100000
  return `${mant}×10${superscript(Number(exp))}`;
}

/** The softmax of the row, one key a row: its dot product, scaled score, exponential and
 *  weight side by side, so the whole row reads in one table (the columns are the steps). */
function softmaxTable(w, i, shown, keys, { scaleTex, shifted, total }) {
  // Each column's heading is the operation that makes it from the column before.
  const e = shifted ? `e^{s - m}` : `e^{s}`;
  const head = el("tr", {},
    el("th", { scope: "col", class: "key-col", text: "key j" }),
    el("th", { scope: "col" }, math(`q_{${i}} \\cdot k_j`)),
    el("th", { scope: "col" }, math(`{}${scaleTex} = s_{${i},j}`)),
    el("th", { scope: "col" }, math(e)),
    el("th", { scope: "col" }, math(`{}\\div ${texSig(total)} = a_{${i},j}`)));
  const expOf = (j) => (shifted ? w.exp_shifted[j] : w.exp[j]);
  const rows = shown.map((j) => {
    const masked = !w.allowed[j];
    return el("tr", { "data-j": j, class: masked ? "masked-line" : null },
      el("th", { scope: "row", class: "key-col" }, `${j + 1} `, el("span", { class: "key-label", text: keys[j] }),
        masked ? el("span", { class: "masked-tag", text: " masked" }) : null),
      el("td", { text: formatNumber(w.dots[j]) }),
      el("td", { text: masked ? "−∞" : formatNumber(w.scaled[j]) }),
      el("td", { text: masked ? "0" : sigText(expOf(j)) }),
      el("td", { text: masked ? "0" : formatNumber(w.weights[j]) }));
  });
  // A narrow screen scrolls the table inside its box, by keyboard too (tabindex).
  return el("div", { class: "table-scroll", tabindex: "0", role: "region", "aria-label": `Softmax of query ${i}, key by key` }, el("table", { class: "softmax-table" },
    el("thead", {}, head), el("tbody", {}, ...rows)));
}

/** renderWorking(host, {working, tokens, keys, d_k, K, V}) — working may be undefined (no
 *  row). K and V are the answer's matrices: k_j and v_j are their rows; ``keys`` label
 *  them (the tokens themselves in self-attention, X_kv's in cross-attention). */
export function renderWorking(host, { working: w, tokens, keys = tokens, d_k, K, V }) {
  if (!w) {
    morph(host, [el("p", { class: "prompt", text: "Select a row of the heatmap to see its calculation." })]);
    return;
  }
  const i = w.row + 1;
  const m = w.weights.length;  // the keys: n in self-attention, m in cross-attention
  const allowedIdx = [...Array(m).keys()].filter((j) => w.allowed[j]);
  let shown = [...Array(m).keys()];
  let note = null;
  if (m > ALL_KEYS) {
    shown = [...allowedIdx].sort((a, b) => w.weights[b] - w.weights[a]).slice(0, TOP_KEYS).sort((a, b) => a - b);
    note = el("p", { class: "note", text: `${m} keys: the ${shown.length} with the largest weights are written out; sums run over all ${allowedIdx.length} keys this query may read.` });
  }
  const scale = scaleWords(w.scale, d_k);
  const dots = shown.map((j) => line(
    `q_{${i}} \\cdot k_{${j + 1}} = ${joinTerms(w.q.map((qc, c) => `${texFactor(qc)} \\cdot ${texFactor(K[j][c])}`))} = ${texTerm(w.dots[j])}`,
    keys[j], null, j));
  const shifted = w.exp_overflow;
  const expOf = (j) => (shifted ? w.exp_shifted[j] : w.exp[j]);
  const total = shifted ? w.exp_shifted_sum : w.exp_sum;
  const sumTex = shifted ? `\\textstyle\\sum_j e^{s_{${i},j} - m}` : `\\textstyle\\sum_j e^{s_{${i},j}}`;
  const sum = allowedIdx.length
    ? line(`${sumTex} = ${joinTerms(allowedIdx.map((j) => texSig(expOf(j))))} = ${texSig(total)}`, null, "sum-line")
    : line(`${sumTex} = 0`, null, "sum-line");
  // Long sums keep their first and last terms, as joinTerms does for the other lines.
  const zIdx = allowedIdx.length <= 8 ? allowedIdx : [...allowedIdx.slice(0, 4), null, ...allowedIdx.slice(-2)];
  const output = allowedIdx.length
    ? [zLine(i, zIdx.map((j) => ({ j, tex: j === null ? "\\cdots" : `${texNumber(w.weights[j])}\\,${texVector(V[j])}` }))),
      line(`\\phantom{z_{${i}}} = ${texVector(w.z, texNumber)}`)]
    : [line(`z_{${i}} = ${texVector(w.z, texNumber)}`)];

  morph(host, [
    el("p", { class: "working-title" }, "Query ", el("strong", { text: `${i} · “${w.token}”` }),
      allowedIdx.length === m ? " reads every key." : allowedIdx.length
        ? ` may read ${allowedIdx.length} of the ${m} keys; the others are masked.`
        : " may read no key: every weight is 0 and so is its output."),
    ...(note ? [note] : []),
    step("1 · Dot products with each key", "dots", el("ol", {}, line(`q_{${i}} = ${texVector(w.q)}`, null, null, null), ...dots)),
    step(`2 · ${scale.title}, then softmax`, "softmax",
      ...(shifted ? [el("p", { class: "note" }, ...symbols(`e^s is too large for a float64 here, so, as the code does, the largest score m = ${formatNumber(w.shift)} is subtracted first from every score; the weights are unchanged.`))] : []),
      softmaxTable(w, i, shown, keys, { scaleTex: scale.tex, shifted, total }),
      el("ol", {}, sum)),
    step("3 · Output: z is the weighted sum of the values", "output", el("ol", {}, ...output)),
  ]);
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
