// Number formatting and cell parsing: pure functions, unit-tested in tests/js.

import { number } from "./config.js";

const MINUS = "\u2212";

// One rule for every number the page prints: fixed decimals while the rounded magnitude is
// below number.fixed_limit (so "−99999.999" is the widest fixed form), beyond it scientific
// with number.figures significant figures, so that 1e20 fits a matrix column as "1.235×10²⁰"
// and not as 25 digits. The server sends the rule's numbers (config.js): they are
// attention_core/prose.py's, whose number() prints the hints and worksheets by the same rule.
const SUPERSCRIPT = { "-": "\u207B", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };

/** A whole-number exponent in superscript digits: −305 → "⁻³⁰⁵". */
export const superscript = (exp) => [...String(exp)].map((c) => SUPERSCRIPT[c]).join("");

/** Whether |x| is printed in the scientific form, from number.fixed_limit up. */
export const beyondFixed = (x) => Math.abs(x) >= number.fixed_limit;

/** [mantissa, exponent] of x with 4 significant figures: 1.2346e20 → ["1.235", 20]. */
function scientific(x) {
  const [mant, exp] = x.toExponential(number.figures - 1).split("e");
  return [mant, Number(exp)];
}

/** x as printed: fixed decimals, or for a large magnitude {mant, exp}; ASCII minus. */
function layout(x, decimals) {
  const fixed = Number(x).toFixed(decimals);
  if (!beyondFixed(Number(fixed))) return /^-0\.?0*$/.test(fixed) ? fixed.slice(1) : fixed;
  const [mant, exp] = scientific(Number(x));
  return { mant, exp };
}

/** Fixed decimals with a true minus sign while |x| < 100000, else 4 significant figures as
 *  "1.235×10²⁰"; never "−0.000"; null or −Infinity (a masked score, sent as null because
 *  JSON has no −∞) reads "−∞". */
export function formatNumber(x, decimals = number.decimals) {
  if (x === null || x === -Infinity) return `${MINUS}∞`;
  if (x === Infinity) return "∞";
  const out = layout(x, decimals);
  const text = typeof out === "string" ? out : `${out.mant}×10${superscript(out.exp)}`;
  return text.replace("-", MINUS);
}

/** A rate given by a formula (an ALiBi slope, a RoPE frequency) in 4 significant figures
 *  without trailing zeros, as text: 0.5, 0.1575, 1.778×10⁻⁷ (workingtex.js's texRate in TeX). */
export function rateText(x) {
  const [mant, exp] = String(Number(x.toPrecision(4))).split("e");
  return (exp ? `${mant}×10${superscript(Number(exp))}` : mant).replace("-", MINUS);
}

/** The same number for KaTeX: ASCII minus (KaTeX typesets it as a minus), \infty, and
 *  "1.235 \times 10^{20}" beyond the fixed range. */
export function texNumber(x, decimals = number.decimals) {
  if (x === null || x === -Infinity) return "-\\infty ";
  if (x === Infinity) return "\\infty ";
  const out = layout(x, decimals);
  return typeof out === "string" ? out : `${out.mant} \\times 10^{${out.exp}}`;
}

// Each character that means something to TeX, as text that prints it; every control
// character (newline, tab, carriage return…) and line separator as a space. So no label can
// end a comment, open or close a group, issue a command (\input), start TeX's ^^5c (a
// backslash) or switch to maths. attention_api/cli/report.py's latex_text agrees.
const TEX_TEXT = {
  "\\": "\\textbackslash{}", "^": "\\textasciicircum{}", "~": "\\textasciitilde{}",
  "<": "\\textless{}", ">": "\\textgreater{}", "|": "\\textbar{}",
  ...Object.fromEntries([..."{}$&#%_"].map((c) => [c, `\\${c}`])),
};
// eslint-disable-next-line no-control-regex -- matching the control characters is the point
const TEX_SPECIAL = /[\\^~<>|{}$&#%_\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/** A token label as LaTeX text that prints it and does nothing else, in a comment or in
 *  running text alike: "50% {x}" → "50\% \{x\}". */
export const texText = (s) => String(s).replace(TEX_SPECIAL, (c) => TEX_TEXT[c] ?? " ");

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** Parse what a person typed in a matrix cell.
 *  Returns {ok: true, value} or {ok: false, message} with a message fit to show
 *  under the cell. Accepts the true minus sign we display, so copied numbers work. */
export function parseCell(text) {
  if (NUMBER.test(text)) {  // the usual case, a plain number: 98,000 of them at 512 tokens × 4 heads
    const value = Number(text);
    if (Number.isFinite(value)) return { ok: true, value };
  }
  const t = String(text).trim().replace(/[\u2212\u2013]/g, "-");
  if (t === "") return { ok: false, message: "Type a number here." };
  if (/^[+-]?\d+,\d+$/.test(t)) {
    return { ok: false, message: `“${text.trim()}”: use a point for decimals, e.g. ${t.replace(",", ".")}.` };
  }
  if (!NUMBER.test(t)) return { ok: false, message: `“${text.trim()}” is not a number.` };
  const value = Number(t);
  if (!Number.isFinite(value)) {
    return { ok: false, message: `“${text.trim()}” is too large (beyond ±1.8e308).` };
  }
  return { ok: true, value };
}

/** A whole number with its thousands grouped: 1,234,567. */
export const grouped = (x) => x.toLocaleString("en-US");

/** Bytes as a person reads them, in 1,000s to 3 significant figures: "72 B", "32.8 KB",
 *  "189 MB", "1.2 GB". */
export function bytesText(b) {
  for (const [unit, size] of [["GB", 1e9], ["MB", 1e6], ["KB", 1e3]]) {
    if (b >= size) return `${+(b / size).toPrecision(3)} ${unit}`;
  }
  return `${b} B`;
}

const WHOLE_VECTOR = 8;  // a longer vector is written as its first 6 numbers and its count

/** A vector as the panels write it: "(1.000, −0.500)"; beyond 8 numbers (a real model's 64)
 *  its first 6 and its count, "(…, …) 64 numbers". */
export function vectorText(xs) {
  const long = xs.length > WHOLE_VECTOR;
  const text = (long ? xs.slice(0, 6) : xs).map((x) => formatNumber(x)).join(", ");
  return long ? `(${text}, …) ${xs.length} numbers` : `(${text})`;
}
