// The pieces the row working is written with: numbers and vectors as TeX, worked by
// hand, and its lines and steps (working.js and workingsteps.js build with them).

import { el, symbols } from "../lib/dom.js";
import { number } from "../lib/config.js";
import { beyondFixed, formatNumber, superscript, texNumber } from "../lib/format.js";
import { math } from "./tex.js";

export const LONG = 8;   // vectors and sums longer than this are shortened with ⋯

/** What a query that may read no key gets, said alike by the working and the walk (and,
 *  in the same words, by attention_api/cli/report.py): the engine's softmax_rows gives such a
 *  row all 0, never the 0/0 of the textbook formula, and its warning says "its weights
 *  and output are all 0". */
export const NO_KEY = "No key may be read, so there is no sum to divide by: by convention, "
  + "as torch's scaled_dot_product_attention returns, its weights and output are all 0.";

// Every number the working computes (q, k, v, x_i + PE_i, a dot product, an angle, z) has
// 3 decimals, so that "q·k = 6.000" reads as the table beside it does and no vector mixes
// "−1.200" with "−1"; only what was typed (x_i, a bias) keeps its whole numbers short.

/** A factor of a product, a computed number: negative ones in parentheses, "2.000 · (−0.500)". */
export function texFactor(x) {
  const text = texNumber(x);
  return text.startsWith("-") ? `(${text})` : text;
}

/** Four significant figures for exponentials and their sums: 16.92, 4.113, 69.59,
 *  0.006738, 1.336 × 10^{4}; from 100000 on, texNumber's scientific form, 4.852 × 10^{8}. */
export function texSig(x) {
  if (x === null || x === Infinity) return "\\infty";
  if (x === 0) return "0";
  if (beyondFixed(x)) return texNumber(x);  // the page's one scientific form
  const [mant, exp] = x.toPrecision(number.figures).split("e");
  if (!exp) return mant;
  if (Number(exp) > 0) return String(Number(x.toPrecision(number.figures)));  // 19930, below 100000
  return `${mant} \\times 10^{${Number(exp)}}`;
}

/** Four significant figures without trailing zeros, for a rate given by a formula (a RoPE
 *  frequency θ^{−2c/d_k}, an ALiBi slope): 1, 0.01, 0.0001778, 1.778 × 10^{−7}. */
export function texRate(x) {
  const [mant, exp] = String(Number(x.toPrecision(4))).split("e");
  return exp ? `${mant} \\times 10^{${Number(exp)}}` : mant;
}

/** texSig as plain text for a table cell: 16.92, 0.006738, 4.113; from 100000 up the
 *  page's one scientific form (4.852×10⁸); ∞ for an exponential beyond float64. */
export function sigText(x) {
  if (x === null || x === Infinity) return "∞";
  if (x === 0) return "0";
  if (beyondFixed(x)) return formatNumber(x);
  const [mant, exp] = x.toPrecision(number.figures).split("e");  // below 1e-6 toPrecision writes e-7
  if (!exp) return mant;
  if (Number(exp) > 0) return String(Number(x.toPrecision(number.figures)));  // 19930: below 100000
  return `${mant}×10${superscript(Number(exp))}`;
}

/** Join terms with " + ", shortening a long list to its first and last few. */
export function joinTerms(terms, sep = " + ") {
  if (terms.length <= LONG) return terms.join(sep);
  return [...terms.slice(0, 4), "\\cdots", ...terms.slice(-2)].join(sep);
}

/** The indices 0 … count − 1 that joinTerms keeps, null where it writes ⋯. */
export function keptIndices(count) {
  const all = [...Array(count).keys()];
  return count <= LONG ? all : [...all.slice(0, 4), null, ...all.slice(-2)];
}

/** A vector in parentheses, its entries computed numbers (3 decimals) or as ``fmt`` writes
 *  them; a long one may break after a comma to fit its column. */
export function texVector(v, fmt = texNumber) {
  return `(${joinTerms(v.map((x) => fmt(x)), ",\\allowbreak ")})`;
}

/** A typed vector (x_i, a bias): "(1, 0)" while every entry is whole, else every entry
 *  with 3 decimals, "(−1.000, 0.500)": one vector, one format. */
export function texInputs(v) {
  const whole = v.every((x) => Number.isInteger(x) && Math.abs(x) < 1e6);
  return texVector(v, whole ? String : texNumber);
}

/** One line of the working; ``j`` marks the key it is about, for linked highlighting. */
export function line(tex, label = null, cls = null, j = null) {
  return el("li", { class: cls, "data-j": j }, math(tex), label === null ? null : el("span", { class: "key-label", text: `  ${label}` }));
}

/** A line of words, its symbols (d_k, W_Q) written as sub- and superscripts. */
export function wordsLine(text, cls = null) {
  return el("li", { class: cls ? `words ${cls}` : "words" }, ...symbols(text));
}

/** One numbered step: its heading and its parts. */
export function step(title, key, ...items) {
  return el("section", { class: "working-step", "data-step": key }, el("h3", {}, ...symbols(title)), ...items);
}
