// Number formatting and cell parsing: pure functions, unit-tested in static/tests.

const MINUS = "\u2212";

/** Fixed decimals with a true minus sign; never "−0.000"; null or −Infinity (a masked
 *  score, sent as null because JSON has no −∞) reads "−∞". */
export function formatNumber(x, decimals = 3) {
  if (x === null || x === -Infinity) return `${MINUS}∞`;
  if (x === Infinity) return "∞";
  let text = Number(x).toFixed(decimals);
  if (/^-0\.?0*$/.test(text)) text = text.slice(1);
  return text.replace("-", MINUS);
}

/** The same number for KaTeX: ASCII minus (KaTeX typesets it as a minus) and \infty. */
export function texNumber(x, decimals = 3) {
  return formatNumber(x, decimals).replace(MINUS, "-").replace("∞", "\\infty ");
}

/** A short form for inputs: integers stay short ("2"), others keep what they need. */
export function shortNumber(x) {
  return String(Number(x.toPrecision(12))).replace("-", MINUS);
}

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
