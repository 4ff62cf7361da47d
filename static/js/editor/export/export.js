// Exports of matrices (CSV, JSON, LaTeX, NumPy, SVG) and of the settings, and their import. Pure.

import { formatNumber, texNumber, texText } from "../../lib/format.js";
import { textRGB, weightRGB } from "../../lib/colour.js";
import { settings } from "../../lib/config.js";

// A masked score is null (as the API sends it) or −Infinity (as the engine computes it).
const isMasked = (x) => x === null || x === -Infinity;

// ---- matrices: rows of the matrix are rows of the output ----

// OWASP's defence against formula injection: a label a spreadsheet would run as a formula
// (one beginning with =, +, -, @, a tab or a carriage return) is prefixed with ' and quoted.
const FORMULA = /^[=+\-@\t\r]/;
function csvText(s) {
  const formula = FORMULA.test(String(s));
  const text = formula ? `'${s}` : String(s);
  // Quoted too: a ; (the separator where the decimal mark is a comma) and a tab.
  return formula || /[",;\t\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
const csvNumber = (x) => (isMasked(x) ? "-inf" : x === Infinity ? "inf" : Number.isNaN(x) ? "nan" : String(x));

/** CSV (RFC 4180 quoting, rows joined by "\n", no final newline). Numbers are String(x):
 *  the shortest form that reads back as the same double, ASCII minus; masked → "-inf".
 *  rowLabels become a first column; header is a first line (with an empty corner cell).
 *  A label that begins with =, +, -, @, a tab or a carriage return reads '=… (see csvText). */
export function matrixToCSV(matrix, { rowLabels = null, header = null } = {}) {
  const lines = matrix.map((row, i) =>
    [...(rowLabels ? [csvText(rowLabels[i])] : []), ...row.map(csvNumber)].join(","));
  if (header) lines.unshift([...(rowLabels ? [""] : []), ...header].map(csvText).join(","));
  return lines.join("\n");
}

/** JSON text of the nested list, one line; masked (and any non-finite) entries → null. */
export function matrixToJSON(matrix) {
  return JSON.stringify(matrix.map((row) => row.map((x) => (Number.isFinite(x) ? x : null))));
}

/** One-line LaTeX pmatrix with fixed decimals, ASCII minus, never -0.000; masked → -\infty.
 *  rowLabels and header (the columns' labels) come first as comment lines, "% rows: the,
 *  cat", each label as texText writes it. */
export function matrixToLatex(matrix, { decimals = 3, rowLabels = null, header = null } = {}) {
  const cell = (x) => (isMasked(x) ? "-\\infty" : x === Infinity ? "\\infty" : texNumber(x, decimals));
  const named = (what, labels) => (labels ? [`% ${what}: ${labels.map(texText).join(", ")}`] : []);
  return [...named("rows", rowLabels), ...named("columns", header),
    `\\begin{pmatrix} ${matrix.map((r) => r.map(cell).join(" & ")).join(" \\\\ ")} \\end{pmatrix}`].join("\n");
}

const PY_KEYWORDS = new Set(("False None True and as assert async await break class continue def " +
  "del elif else except finally for from global if import in is lambda nonlocal not or pass " +
  "raise return try while with yield").split(" "));

/** Python's repr of a float: shortest round-trip digits, always a "." or an exponent. */
function pyFloat(x) {
  if (isMasked(x)) return "-np.inf";
  if (x === Infinity) return "np.inf";
  if (Number.isNaN(x)) return "np.nan";
  if (Object.is(x, -0)) return "-0.0";
  const [digits, exp] = x.toExponential().split("e");  // toExponential() keeps the shortest digits
  const e = Number(exp);
  if (e < -4 || e >= 16) return `${digits}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  const text = String(x);  // fixed notation in this range, as Python writes it
  return text.includes(".") ? text : `${text}.0`;
}

/** Python source `name = np.array([[1.0, 0.0], [0.0, 1.0]])` that rebuilds the same float64
 *  values; masked → -np.inf. Throws if name is not an (ASCII) Python identifier. */
export function matrixToNumpy(name, matrix) {
  if (typeof name !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) || PY_KEYWORDS.has(name)) {
    throw new Error(`${JSON.stringify(String(name))} is not a valid Python name: use letters, ` +
      "digits and _, not starting with a digit, and not a Python keyword");
  }
  return `${name} = np.array([${matrix.map((r) => `[${r.map(pyFloat).join(", ")}]`).join(", ")}])`;
}

// ---- the heatmap as a standalone SVG: queries down the side, keys across the top ----

const ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
// Characters XML 1.0 forbids become U+FFFD, so any label gives a well-formed document.
const xml = (s) => String(s).replace(/[&<>"']/g, (c) => ESCAPES[c])
  // eslint-disable-next-line no-control-regex -- matching the control characters is the point
  .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, "\uFFFD");
const hex = (rgb) => "#" + rgb.map((c) => c.toString(16).padStart(2, "0")).join("");

/** A standalone SVG document of the n × m weights: queries (``tokens``) down, keys (``keys``,
 *  the tokens themselves in self-attention) across; viridis squares with the value to 3
 *  decimals; cells whose mask[i][j] is false are a grey hatch titled "masked" (mask null:
 *  nothing masked). Each cell has a <title> "q → k: 0.446". */
export function heatmapToSVG(weights, mask, tokens, { cell = 40, keys = tokens } = {}) {
  const n = weights.length;
  const m = weights[0].length;
  const label = (i) => String(tokens?.[i] ?? `t${i + 1}`);
  const keyLabel = (j) => String(keys?.[j] ?? `t${j + 1}`);
  const labels = Array.from({ length: n }, (_, i) => label(i));
  const keyLabels = Array.from({ length: m }, (_, j) => keyLabel(j));
  const font = Math.max(8, Math.round(cell * 0.3));
  const pad = Math.round(font / 2);
  const textWidth = (s) => Math.ceil([...s].length * font * 0.62);  // an estimate: no DOM here
  const longest = Math.max(0, ...labels.map(textWidth));
  const left = Math.max(longest, textWidth("query ↓")) + 2 * pad;
  const top = font + Math.max(0, ...keyLabels.map(textWidth)) + 3 * pad;
  const width = left + m * cell + pad;
  const height = top + n * cell + pad;
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
      `viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="${font}">`,
    "<title>Attention weights</title>",
    '<defs><pattern id="masked-hatch" width="8" height="8" patternUnits="userSpaceOnUse" ' +
      'patternTransform="rotate(45)"><rect width="8" height="8" fill="#c8c8c8"/>' +
      '<line x1="0" y1="0" x2="0" y2="8" stroke="#969696" stroke-width="4"/></pattern></defs>',
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${left}" y="${pad + font}">key →</text>`,
    `<text x="${pad}" y="${top - pad}">query ↓</text>`,
  ];
  labels.forEach((t, k) => {
    const y = top + k * cell + cell / 2;
    out.push(`<text x="${left - pad}" y="${y}" dy="0.35em" text-anchor="end">${xml(t)}</text>`);
  });
  keyLabels.forEach((t, k) => {
    const x = left + k * cell + cell / 2;
    out.push(`<text x="${x}" y="${top - pad}" dy="0.35em" ` +
      `transform="rotate(-90 ${x} ${top - pad})">${xml(t)}</text>`);
  });
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < weights[i].length; j++) {
      const [x, y] = [left + j * cell, top + i * cell];
      const square = `<rect x="${x}" y="${y}" width="${cell}" height="${cell}"`;
      const title = `<title>${xml(`${labels[i]} → ${keyLabels[j]}: `)}`;
      if (mask && !mask[i][j]) {
        out.push(`<g>${title}masked</title>${square} fill="url(#masked-hatch)"/></g>`);
        continue;
      }
      const bg = weightRGB(weights[i][j]);
      const value = formatNumber(weights[i][j]);
      out.push(`<g>${title}${value}</title>${square} fill="${hex(bg)}"/><text x="${x + cell / 2}" ` +
        `y="${y + cell / 2}" dy="0.35em" text-anchor="middle" fill="${hex(textRGB(bg))}">${value}</text></g>`);
    }
  }
  out.push("</svg>");
  return out.join("\n");
}

// ---- the settings: a request in the API's format, saved and read back ----

/** Pretty JSON (2-space indent, one matrix row per line) of the request's keys that
 *  settings.fields names (the page config), in its order, the API's; keys absent from
 *  request are left out. readConfig reads it back. */
export function configToJSON(request) {
  const list = (v) => `[${v.map((x) => JSON.stringify(x)).join(", ")}]`;
  const value = (v) => (!Array.isArray(v) ? JSON.stringify(v)
    : Array.isArray(v[0]) ? `[\n${v.map((r) => `    ${list(r)}`).join(",\n")}\n  ]`
      : typeof v[0] === "object" && v[0] !== null  // heads: one head per line
        ? `[\n${v.map((h) => `    ${JSON.stringify(h)}`).join(",\n")}\n  ]` : list(v));
  const parts = settings.fields.filter((k) => request[k] !== undefined)
    .map((k) => `  ${JSON.stringify(k)}: ${value(request[k])}`);
  return parts.length ? `{\n${parts.join(",\n")}\n}` : "{}";
}

/** A value as the API's messages show it: null, 2.5, the string "a", a list. */
function describe(v) {
  if (v === null) return "null";
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 20 ? v.slice(0, 20) + "…" : v)}`;
  if (Array.isArray(v)) return "a list";
  return typeof v === "object" ? "an object" : String(v);
}

const EXPECTED = "expected the JSON object that “Export configuration” saves, with X, W_Q, W_K and W_V.";
const BEGINS = 35;  // characters of the text quoted back when it is not JSON

/** Read a saved configuration: {ok: true, request} or {ok: false, message}. ``what`` names
 *  where the text came from ("The pasted text", "“attention.json”"), so a message says what
 *  was received and what is expected. Only what the server cannot be asked about is
 *  checked here (the text is JSON, and an object); the request itself is checked by the
 *  server, which alone knows its rules. */
export function readConfig(text, what = "The file") {
  const clean = text.replace(/^\uFEFF/, "");  // editors may start a file with a BOM
  if (!clean.trim()) return { ok: false, message: `${what} is empty; ${EXPECTED}` };
  let body;
  try {
    body = JSON.parse(clean);
  } catch (err) {
    // V8 ends some of its messages by quoting the text again ("…, "X = [[1, 0"... is not
    // valid JSON"): the text is quoted once, below.
    const why = err.message.replace(/, ".*"(\.\.\.)? is not valid JSON$/s, "");
    const start = clean.trim().replace(/\s+/g, " ");
    const quoted = start.length > BEGINS ? `${start.slice(0, BEGINS)}…` : start;
    return { ok: false, message: `${what} is not JSON: ${why}. It begins “${quoted}”; ${EXPECTED}` };
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return { ok: false, message: `${what} holds ${describe(body)}, not an object; ${EXPECTED}` };
  }
  return { ok: true, request: body };
}
