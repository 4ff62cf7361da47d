// The read-out of one weight of a heatmap too large to print: which query, which key and
// how much, with every digit shown one the page really has. Pure functions, unit-tested.

import { formatNumber } from "../lib/format.js";

// Up to this many weights the shown head's exact weights are fetched with its bytes
// (8 bytes each, ~11 as base64: at 128 tokens 175 kB more, an answer of 112 kB becoming
// 287 kB with d = 16; at 30 tokens 10 kB more); beyond, a weight off the selected row is
// read from its byte, round(255·a), and said to be within ±0.002.
export const EXACT_MAX = 128 * 128;

/** The extra fields of POST /api/attention that give the shown head's weights exactly,
 *  for n queries and m keys beyond the table's size (none when they are too many). */
export function exactFields(n, m, multi, head) {
  if (n * m > EXACT_MAX) return [];
  return [multi ? `heads[${head}].weights` : "weights"];
}

/** {i, j} of the weight under a point (clientX, clientY) of a heatmap drawn in ``rect``
 *  (a DOMRect), n queries down and m keys across; null outside it. */
export function cellFromPoint(rect, x, y, n, m) {
  const fx = (x - rect.left) / rect.width;
  const fy = (y - rect.top) / rect.height;
  if (!(fx >= 0 && fx < 1 && fy >= 0 && fy < 1)) return null;
  return { i: Math.min(n - 1, Math.floor(fy * n)), j: Math.min(m - 1, Math.floor(fx * m)) };
}

/** The weight a_ij as the page holds it: {value, exact} — exact from ``weights`` or the
 *  selected row's working, else from the byte (round(255·a)/255, within 1/510), or null
 *  when the answer holds neither. */
export function weightOf(body, { i, j }) {
  if (body.weights) return { value: body.weights[i][j], exact: true };
  if (body.working?.row === i) return { value: body.working.weights[j], exact: true };
  if (body.weights_u8) return { value: body.weights_u8[i][j] / 255, exact: false };
  return null;
}

/** The sentence of the read-out for weight {i, j} of ``body`` (an answer of one head:
 *  tokens, tokens_kv, mask and what weightOf reads), or a hint when ``cell`` is null. */
export function readoutText(body, cell) {
  if (!cell) return "Point at a weight, or focus the map and use the arrow keys, to read it here.";
  const { i, j } = cell;
  const keys = body.tokens_kv ?? body.tokens;
  const where = `Query ${i + 1} “${body.tokens[i]}”, key ${j + 1} “${keys[j]}”`;
  if (!body.mask[i][j]) return `${where}: masked, weight 0`;
  const w = weightOf(body, cell);
  if (!w) return where;
  return w.exact ? `${where}: weight ${formatNumber(w.value)}`
    : `${where}: weight ≈ ${formatNumber(w.value)} (±0.002; select the row for its exact weights)`;
}

/** The step between axis labels drawn for ``count`` rows or columns of ``px`` pixels each,
 *  so that labels ``min`` pixels tall never overlap: 1, 2, 5, 10, 20, 50, … */
export function labelStep(px, min = 12) {
  for (let step = 1; ; step *= 10) {
    for (const k of [1, 2, 5]) if (k * step * px >= min) return k * step;
    if (step > 1e6) return Infinity;
  }
}

/** What the caption of an n × m map drawn ``width`` × ``height`` CSS pixels says of its
 *  scale, in the screen's pixels (``dpr`` of them to a CSS pixel): the picture is scaled
 *  to its box, so a weight takes what the box gives it, a fraction of a pixel at 512
 *  tokens, where each pixel shows one of the weights it covers (image-rendering:
 *  pixelated) and the others are not drawn. */
export function scaleText(n, m, width, height, dpr = 1) {
  const across = (width * dpr) / m;
  const down = (height * dpr) / n;
  const px = (v) => v.toFixed(v < 1 ? 2 : 1);
  const size = `each weight ${px(across)} × ${px(down)} screen pixels`;
  return Math.min(across, down) < 1 ? `${size}: fewer pixels than weights, so not every weight is drawn` : size;
}
