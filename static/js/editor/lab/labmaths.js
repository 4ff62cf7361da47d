// The scaling lab's numbers and words (lab.js): d_k and the slider's exponent, the plots'
// scales, the samples to ask for, and the readouts, captions and summaries. Pure,
// unit-tested (tests/js/editor/lab/labmaths.test.mjs).

import { lab, urls } from "../../lib/config.js";
import { formatNumber } from "../../lib/format.js";

export const START_EXPONENT = 6;       // d_k = 64, each head's width in the original transformer
export const SAMPLE_DKS = [1, 4, 16, 64, 256];
export const BOX = { width: 360, height: 240, left: 46, right: 12, top: 12, bottom: 44 };
export const PROMPT = "Select a row of the heatmap to see how spread out its weights are.";

export const dkOf = (exponent) => 2 ** exponent;
export const exponentOf = (d_k) => Math.round(Math.log2(d_k));
export const valueText = (exponent) => `d_k = ${dkOf(exponent)}`;
/** The slider runs over d_k = 2^0 … 2^maxExponent(), the powers of two GET scaling answers. */
export const maxExponent = () => Math.floor(Math.log2(lab.curve_d_k_max));

/** Linear map of [d0, d1] onto [r0, r1]; a y range runs downwards (r0 > r1): SVG's y grows down. */
export const linear = ([d0, d1], [r0, r1]) => (v) => r0 + ((v - d0) / (d1 - d0)) * (r1 - r0);

/** The x and y maps of a plot onto the inner box of ``box`` (margins leave room for the ticks). */
export function plotScales(xDomain, yDomain, box = BOX) {
  return { x: linear(xDomain, [box.left, box.width - box.right]), y: linear(yDomain, [box.height - box.bottom, box.top]) };
}

/** An SVG ``points`` attribute, "x,y x,y …", to 0.1 of a unit. */
export const points = (xs, ys, { x, y }) => xs.map((v, k) => `${x(v).toFixed(1)},${y(ys[k]).toFixed(1)}`).join(" ");

/** The readout at d_k = 2^exponent. Unscaled gets 4 decimals: it creeps towards 1 (0.9997). */
export function winnerText(curve, exponent) {
  const k = curve.d_k.indexOf(dkOf(exponent));
  return `without scaling ${formatNumber(curve.unscaled[k], 4)}, with scaling ${formatNumber(curve.scaled[k])}`;
}

/** The curve plot's aria-label: what a sighted reader takes from it at a glance. */
export function curveSummary({ unscaled, scaled }) {
  const [lo, hi] = [Math.min(...scaled), Math.max(...scaled)].map((p) => formatNumber(p));
  const withScaling = lo === hi ? `stays at ${lo}` : `goes from ${formatNumber(scaled[0])} to ${formatNumber(scaled.at(-1))}`;
  return `Winner's weight against d_k: without scaling it rises from ${formatNumber(unscaled[0])} to ${formatNumber(unscaled.at(-1))}; with scaling it ${withScaling}`;
}

/** Samples to ask for at this d_k: what was typed, or fewer when samples × d_k would pass
 *  the server's lab.max_draws. Anything but a whole number is sent as typed, so the API's
 *  message names it. */
export function samplesFor(text, d_k) {
  const most = lab.max_draws;
  return /^\d+$/.test(text) && Number(text) * d_k > most ? String(Math.floor(most / d_k)) : text;
}

export const sampleUrl = (d_k, samples, seed) =>
  `${urls.scaling_sample}?d_k=${d_k}&samples=${encodeURIComponent(samplesFor(samples, d_k))}&seed=${encodeURIComponent(seed)}`;

/** "10000 samples, seed 0", naming every d_k whose samples were capped. (d_k = 1 never is.) */
export function sampleCaption(rows) {
  const asked = rows[0].samples;
  const capped = rows.filter((r) => r.samples !== asked).map((r) => `${r.samples} at d_k = ${r.d_k}`);
  const note = capped.length ? ` (${capped.join(", ")}: samples × d_k is at most ${lab.max_draws.toLocaleString("en")})` : "";
  return `${asked} samples${note}, seed ${rows[0].seed}`;
}

/** The variance plot's aria-label, from the measured rows (or the expectation before any). */
export function sampleSummary(rows) {
  if (!rows) return "Variance against d_k, both axes logarithmic: expected d_k for q·k and 1 for q·k/√d_k; nothing measured yet";
  const [first, last, scaled] = [rows[0], rows.at(-1), rows.map((r) => r.variance_scaled)];
  return `Measured variance against d_k, both axes logarithmic: of q·k, from ${formatNumber(first.variance_raw)} at d_k = ${first.d_k}`
    + ` to ${formatNumber(last.variance_raw)} at d_k = ${last.d_k}, about d_k; of q·k/√d_k, between`
    + ` ${formatNumber(Math.min(...scaled))} and ${formatNumber(Math.max(...scaled))}, about 1`;
}

/** The selected row's readout. The bound is ln m for the m keys it may read (``allowed``):
 *  the entropy of uniform weights over them; a masked key cannot take any weight. */
export function rowText(row) {
  if (row === null) return PROMPT;
  if (!Array.isArray(row.allowed)) throw new TypeError("rowText needs the row's allowed keys");
  const name = `Query ${row.row + 1} “${row.token}”`;
  if (row.weights.every((a) => a === 0)) return `${name} may read no key: its weights, entropy and Jacobian are all 0.`;
  const m = row.allowed.filter(Boolean).length;
  return `${name}: entropy ${formatNumber(row.entropy)} nats of at most ${formatNumber(Math.log(m))} (ln ${m});`
    + ` softmax Jacobian size ${formatNumber(row.jacobian_norm)}`;
}
