// The colour of a weight: viridis reversed (light = low), with a readable text colour.
// Pure functions, unit-tested in tests/js.

// matplotlib's viridis sampled at nine evenly spaced points, 0 → 1.
const VIRIDIS = [
  [68, 1, 84], [71, 45, 123], [59, 82, 139], [44, 114, 142], [33, 145, 140],
  [40, 174, 128], [94, 201, 98], [173, 220, 48], [253, 231, 37],
];

/** rgb [0–255 ×3] for a weight in [0, 1]; out-of-range values are clamped first.
 *  Weight 0 is viridis' light yellow end and weight 1 its dark purple end. */
export function weightRGB(w) {
  const t = 1 - Math.min(1, Math.max(0, Number.isFinite(w) ? w : 0));
  const pos = t * (VIRIDIS.length - 1);
  const i = Math.min(VIRIDIS.length - 2, Math.floor(pos));
  const f = pos - i;
  return VIRIDIS[i].map((c, k) => Math.round(c + f * (VIRIDIS[i + 1][k] - c)));
}

// The canvas of a 512-token heatmap colours 262,144 pixels: a table of weightRGB at
// STEPS + 1 evenly spaced weights is ~10× faster than computing each. A weight between
// two steps takes the nearer one's colour, at most one unit off in a channel (of 255).
// Built for the first canvas, not when the page loads: its 4,097 colours took ~7 ms of the
// page's start (~30 ms at Lighthouse's 4× CPU slowdown), and few tokens draw no canvas.
const STEPS = 4096;
let TABLE = null;
function colourTable() {
  TABLE = new Uint8Array(3 * (STEPS + 1));
  for (let s = 0; s <= STEPS; s++) TABLE.set(weightRGB(s / STEPS), 3 * s);
  return TABLE;
}

/** weightRGB(w), to within one unit per channel, written into out[k … k + 2]. */
export function writeWeightRGB(out, k, w) {
  const table = TABLE ?? colourTable();
  const s = 3 * Math.round(STEPS * (w >= 0 ? (w <= 1 ? w : 1) : 0));  // NaN too goes to 0
  out[k] = table[s];
  out[k + 1] = table[s + 1];
  out[k + 2] = table[s + 2];
}

// A canvas drawn from the API's weights_u8 (round(255·a)) needs only 256 colours: each is
// weightRGB(b / 255) exactly, and a pixel is three bytes copied (at 512 tokens with 4
// heads, 1,048,576 pixels for the first paint).
let BYTES = null;

/** weightRGB(b / 255) of byte ``b`` (0–255), written into out[k … k + 2]. */
export function writeByteRGB(out, k, b) {
  if (BYTES === null) {
    BYTES = new Uint8Array(3 * 256);
    for (let v = 0; v < 256; v++) BYTES.set(weightRGB(v / 255), 3 * v);
  }
  out[k] = BYTES[3 * b];
  out[k + 1] = BYTES[3 * b + 1];
  out[k + 2] = BYTES[3 * b + 2];
}

export function rgbCss([r, g, b]) {
  return `rgb(${r} ${g} ${b})`;
}

/** WCAG 2 relative luminance of an sRGB colour. */
export function luminance([r, g, b]) {
  const lin = (c) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

export function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

export const DARK_TEXT = [0, 0, 0];
export const LIGHT_TEXT = [255, 255, 255];

/** Whichever of dark or light text contrasts more with the background. */
export function textRGB(background) {
  return contrast(background, DARK_TEXT) >= contrast(background, LIGHT_TEXT)
    ? DARK_TEXT : LIGHT_TEXT;
}
