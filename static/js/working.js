// Write out one query row's calculation with the real numbers, typeset with KaTeX,
// one line per step, from the ``working`` object of the API's answer.

import katex from "../vendor/katex/katex.mjs";
import { el, symbols } from "./dom.js";
import { FIXED_LIMIT, texNumber } from "./format.js";
import { morph, untypeset } from "./morph.js";

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

/** A span for typeset maths, typeset by ``typeset`` once it is on the page (and only if
 *  the line is new: see morph.js). */
function math(tex) {
  return el("span", { class: "math", "data-tex": tex });
}

function typeset(host) {
  for (const span of untypeset(host)) {
    katex.render(span.dataset.tex, span, { throwOnError: false, output: "htmlAndMathml" });
  }
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
  return el("li", { class: "z-terms" }, ...parts);
}

function step(title, ...items) {
  return [el("h3", {}, ...symbols(title)), el("ol", {}, ...items)];
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
  const n = w.weights.length;
  const sub = (j) => `${i},${j + 1}`;
  const allowedIdx = [...Array(n).keys()].filter((j) => w.allowed[j]);
  let shown = [...Array(n).keys()];
  let note = null;
  if (n > ALL_KEYS) {
    shown = [...allowedIdx].sort((a, b) => w.weights[b] - w.weights[a]).slice(0, TOP_KEYS).sort((a, b) => a - b);
    note = el("p", { class: "note", text: `${n} keys: the ${shown.length} with the largest weights are written out; sums run over all ${allowedIdx.length} keys this query may read.` });
  }
  const unscaledDefault = Math.abs(w.scale - 1 / Math.sqrt(d_k)) < 1e-12;
  const root = texNumber(Math.sqrt(d_k));

  const dots = shown.map((j) => line(
    `q_{${i}} \\cdot k_{${j + 1}} = ${joinTerms(w.q.map((qc, c) => `${texFactor(qc)} \\cdot ${texFactor(K[j][c])}`))} = ${texTerm(w.dots[j])}`,
    keys[j], null, j));
  const scaled = shown.map((j) => (w.allowed[j]
    ? line(`s_{${sub(j)}} = ${texTerm(w.dots[j])} ${unscaledDefault ? `\\div ${root}` : `\\times ${texNumber(w.scale)}`} = ${texNumber(w.scaled[j])}`, keys[j], null, j)
    : line(`s_{${sub(j)}} = -\\infty`, `${keys[j]} — masked`, "masked-line", j)));
  const useShift = w.exp_overflow;
  const expOf = (j) => (useShift ? w.exp_shifted[j] : w.exp[j]);
  const total = useShift ? w.exp_shifted_sum : w.exp_sum;
  const power = (j) => (useShift ? `${texNumber(w.scaled[j])} - ${texNumber(w.shift)}` : texNumber(w.scaled[j]));
  const exps = shown.map((j) => (w.allowed[j]
    ? line(`e^{${power(j)}} \\approx ${texSig(expOf(j))}`, keys[j], null, j)
    : line("e^{-\\infty} = 0", `${keys[j]} — masked`, "masked-line", j)));
  const sumTex = useShift ? `\\textstyle\\sum_j e^{s_{${i},j} - m}` : `\\textstyle\\sum_j e^{s_{${i},j}}`;
  const sum = allowedIdx.length
    ? line(`${sumTex} \\approx ${joinTerms(allowedIdx.map((j) => texSig(expOf(j))))} = ${texSig(total)}`)
    : line(`${sumTex} = 0`);
  const weights = shown.map((j) => (w.allowed[j]
    ? line(`a_{${sub(j)}} = ${texSig(expOf(j))} / ${texSig(total)} = ${texNumber(w.weights[j])}`, keys[j], null, j)
    : line(`a_{${sub(j)}} = 0`, `${keys[j]} — masked`, "masked-line", j)));
  // Long sums keep their first and last terms, as joinTerms does for the other lines.
  const zIdx = allowedIdx.length <= 8 ? allowedIdx : [...allowedIdx.slice(0, 4), null, ...allowedIdx.slice(-2)];
  const output = allowedIdx.length
    ? [zLine(i, zIdx.map((j) => ({ j, tex: j === null ? "\\cdots" : `${texNumber(w.weights[j])}\\,${texVector(V[j])}` }))),
      line(`\\phantom{z_{${i}}} = ${texVector(w.z, texNumber)}`)]
    : [line(`z_{${i}} = ${texVector(w.z, texNumber)}`)];

  morph(host, [
    el("p", { class: "working-title" }, "Query ", el("strong", { text: `${i} · “${w.token}”` }),
      allowedIdx.length === n ? " reads every key." : allowedIdx.length
        ? ` may read ${allowedIdx.length} of the ${n} keys; the others are masked.`
        : " may read no key: every weight is 0 and so is its output."),
    ...(note ? [note] : []),
    ...step("1 · Dot products with each key", line(`q_{${i}} = ${texVector(w.q)}`), ...dots),
    ...step(unscaledDefault ? `2 · Divide by √d_k = ${root.replace("-", "−")}  (d_k = ${d_k})` : `2 · Multiply by the scale ${texNumber(w.scale)}`, ...scaled),
    ...step("3 · Exponentials and their sum", ...(useShift
      ? [el("li", { class: "note", text: `e^s is too large for a float64 here, so — as the code does — the largest score m = ${texNumber(w.shift)} is subtracted first; the weights are unchanged.` })]
      : []), ...exps, sum),
    ...step("4 · Weights: each exponential over the sum", ...weights),
    ...step(`5 · Output: z is the weighted sum of the values`, ...output),
  ]);
  typeset(host);
}
