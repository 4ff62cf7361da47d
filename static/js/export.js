// Exports of matrices (CSV, JSON, LaTeX, NumPy, SVG) and of the settings, and their import. Pure.

import { formatNumber, texNumber } from "./format.js";
import { textRGB, weightRGB } from "./colour.js";
import { LIMITS } from "./state.js";

// A masked score is null (as the API sends it) or −Infinity (as the engine computes it).
const isMasked = (x) => x === null || x === -Infinity;

// ---- matrices: rows of the matrix are rows of the output ----

const csvText = (s) => (/[",\r\n]/.test(String(s)) ? `"${String(s).replace(/"/g, '""')}"` : String(s));
const csvNumber = (x) => (isMasked(x) ? "-inf" : x === Infinity ? "inf" : Number.isNaN(x) ? "nan" : String(x));

/** CSV (RFC 4180 quoting, rows joined by "\n", no final newline). Numbers are String(x):
 *  the shortest form that reads back as the same double, ASCII minus; masked → "-inf".
 *  rowLabels become a first column; header is a first line (with an empty corner cell). */
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

/** One-line LaTeX pmatrix with fixed decimals, ASCII minus, never -0.000; masked → -\infty. */
export function matrixToLatex(matrix, { decimals = 3 } = {}) {
  const cell = (x) => (isMasked(x) ? "-\\infty" : x === Infinity ? "\\infty" : texNumber(x, decimals));
  return `\\begin{pmatrix} ${matrix.map((r) => r.map(cell).join(" & ")).join(" \\\\ ")} \\end{pmatrix}`;
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

const CONFIG_KEYS = ["tokens", "X", "W_Q", "W_K", "W_V", "heads", "W_O", "X_kv", "tokens_kv",
  "causal", "scale", "mask", "positional", "row"];
const KNOWN = [...CONFIG_KEYS, "fields"];
const MAX_HEADS = 16;

/** Pretty JSON (2-space indent, one matrix row per line) of the request's keys, in the
 *  API's order; keys absent from request are left out. parseConfig reads it back. */
export function configToJSON(request) {
  const list = (v) => `[${v.map((x) => JSON.stringify(x)).join(", ")}]`;
  const value = (v) => (!Array.isArray(v) ? JSON.stringify(v)
    : Array.isArray(v[0]) ? `[\n${v.map((r) => `    ${list(r)}`).join(",\n")}\n  ]`
      : typeof v[0] === "object" && v[0] !== null  // heads: one head per line
        ? `[\n${v.map((h) => `    ${JSON.stringify(h)}`).join(",\n")}\n  ]` : list(v));
  const parts = CONFIG_KEYS.filter((k) => request[k] !== undefined)
    .map((k) => `  ${JSON.stringify(k)}: ${value(request[k])}`);
  return parts.length ? `{\n${parts.join(",\n")}\n}` : "{}";
}

class Problem extends Error {
  constructor(field, message) { super(message); this.field = field; }
}
const fail = (field, message) => { throw new Problem(field, message); };

// "X[2][0]", "heads[1].W_Q[0][2]", "tokens[0]", "mask[0][1]": a field as the API spells it.
const FIELD = /^(?:heads\[(\d+)\]\.)?([A-Za-z_]+)(?:\[(\d+)\])?(?:\[(\d+)\])?$/;

/** A field as the page's inputs are named, from 1, as the API's messages say it (errors.py's
 *  page_name): "W_Q head 2 row 1 column 3", "X row 3", "Token 1 label"; head 1's weights are
 *  the plain W_Q, W_K, W_V. */
export function pageName(field) {
  const m = FIELD.exec(field);
  if (!m) return field;
  const [, head, name, row, col] = m;
  if (head === undefined && col === undefined && row !== undefined) {
    if (name === "tokens") return `Token ${Number(row) + 1} label`;
    if (name === "tokens_kv") return `Key token ${Number(row) + 1} label`;
  }
  return [name, head && head !== "0" ? `head ${Number(head) + 1}` : null,
    row === undefined ? null : `row ${Number(row) + 1}`,
    col === undefined ? null : `column ${Number(col) + 1}`].filter(Boolean).join(" ");
}

/** A value as the API's messages show it: null, true, 2.5, the string "a", a list, an object. */
function describe(v) {
  if (v === null) return "null";
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 20 ? v.slice(0, 20) + "…" : v)}`;
  if (Array.isArray(v)) return "a list";
  return typeof v === "object" ? "an object" : String(v);
}

function number(v, field) {
  if (typeof v === "number" && Number.isFinite(v)) return;
  if (typeof v === "number") {
    fail(field, `${pageName(field)} is a number too large for float64, which reads as infinity; every number ` +
      "must be finite and within float64's range (about ±1.8e308)");
  }
  fail(field, `${pageName(field)} must be a number, got ${describe(v)}`);
}

function boolean(v, field) {
  if (typeof v !== "boolean") fail(field, `${pageName(field)} must be true or false, got ${describe(v)}`);
}

/** Check a rectangular, non-empty list of lists within limits, then each cell. */
function table(m, name, maxRows, maxCols, checkCell) {
  if (!Array.isArray(m)) fail(name, `${name} must be a matrix (a list of rows), got ${describe(m)}`);
  if (!m.length) fail(name, `${name} is empty; it needs at least one row`);
  if (m.length > maxRows) fail(name, `${name} has ${m.length} rows; at most ${maxRows} are allowed`);
  m.forEach((row, i) => {
    const [f, said] = [`${name}[${i}]`, pageName(`${name}[${i}]`)];  // "X[2]", "X row 3"
    if (!Array.isArray(row)) fail(f, `${said} must be a row (a list of numbers), got ${describe(row)}`);
    if (!row.length) fail(f, `${said} is an empty row`);
    if (row.length > maxCols) fail(f, `${said} has ${row.length} numbers; at most ${maxCols} are allowed`);
    if (row.length !== m[0].length) {
      fail(f, `${said} has ${row.length} numbers but ${pageName(`${name}[0]`)} has ${m[0].length}; ` +
        "every row must be the same length");
    }
  });
  m.forEach((row, i) => row.forEach((v, j) => checkCell(v, `${name}[${i}][${j}]`)));
  return m;
}

/** Levenshtein distance: the fewest one-character edits that turn a into b. */
function editDistance(a, b) {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/** The message for a key the API does not know, suggesting a close one ("W_q" → "W_Q"). */
function unknownKey(key) {
  const [best] = KNOWN.map((k) => [editDistance(key.toLowerCase(), k.toLowerCase()), k])
    .sort((p, q) => p[0] - q[0]);
  const hint = best[0] <= Math.max(1, Math.floor(key.length / 3)) ? `; did you mean "${best[1]}"?` : ".";
  return `Unknown field "${key}"${hint} The fields are ${CONFIG_KEYS.join(", ")}.`;
}

function checkRequest(body) {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    fail(null, `The file must hold a JSON object with X, W_Q, W_K and W_V, got ${describe(body)}`);
  }
  for (const key of Object.keys(body)) {
    if (!KNOWN.includes(key)) fail(key, unknownKey(key));
  }
  const given = (key) => Object.hasOwn(body, key) && body[key] !== null;
  if (!Object.hasOwn(body, "X")) fail("X", 'The file needs the field "X"');
  table(body.X, "X", LIMITS.tokens, LIMITS.dim, number);
  const [n, d] = [body.X.length, body.X[0].length];
  // W_Q, W_K, W_V of one head, checked against X; ``owner`` says whose ("The file", "Head 2").
  const projections = (head, where, owner = "The file") => {
    for (const name of ["W_Q", "W_K", "W_V"]) {
      if (!Object.hasOwn(head, name)) fail(where + name, `${owner} needs the field "${name}"`);
      table(head[name], where + name, LIMITS.dim, LIMITS.dim, number);
      const rows = head[name].length;
      if (rows !== d) {
        fail(where + name, `${pageName(where + name)} has ${rows} rows but X has ${d} columns; ${name} needs one row per column of X`);
      }
    }
    if (head.W_K[0].length !== head.W_Q[0].length) {
      fail(where + "W_K", `${pageName(where + "W_K")} has ${head.W_K[0].length} columns but W_Q has ${head.W_Q[0].length}; ` +
        "queries and keys must have the same width d_k");
    }
  };
  if (given("heads")) {
    const mixed = ["W_Q", "W_K", "W_V"].filter((k) => Object.hasOwn(body, k));
    if (mixed.length) {
      fail("heads", `Send either W_Q, W_K and W_V (one head) or heads with W_O, not both; this file has heads and ${mixed.join(", ")}`);
    }
    const { heads } = body;
    if (!Array.isArray(heads) || heads.length < 1 || heads.length > MAX_HEADS) {
      fail("heads", `heads must be a list of 1 to ${MAX_HEADS} objects with W_Q, W_K and W_V`);
    }
    heads.forEach((head, h) => {
      const [where, owner] = [`heads[${h}].`, `Head ${h + 1}`];  // the field 0-based, the words from 1
      if (head === null || typeof head !== "object" || Array.isArray(head)) {
        fail(`heads[${h}]`, `${owner} must be an object with W_Q, W_K and W_V, got ${describe(head)}`);
      }
      for (const key of Object.keys(head)) {
        if (!["W_Q", "W_K", "W_V"].includes(key)) fail(where + key, `${owner} has an unknown field "${key}"; a head has W_Q, W_K and W_V.`);
      }
      projections(head, where, owner);
    });
    if (!Object.hasOwn(body, "W_O")) fail("W_O", 'The file needs the field "W_O"');
    table(body.W_O, "W_O", LIMITS.dim * MAX_HEADS, LIMITS.dim, number);
    const width = heads.reduce((sum, head) => sum + head.W_V[0].length, 0);
    if (body.W_O.length !== width) {
      fail("W_O", `W_O has ${body.W_O.length} rows but the heads' outputs concatenate to ${width} columns (the sum of their d_v); W_O needs one row per concatenated column`);
    }
  } else {
    if (Object.hasOwn(body, "W_O")) fail("W_O", "W_O goes with heads; a single head has no W_O");
    projections(body, "");
  }
  let m = n;  // keys: the tokens themselves, or X_kv's
  if (given("X_kv")) {
    table(body.X_kv, "X_kv", LIMITS.tokens, LIMITS.dim, number);
    if (body.X_kv[0].length !== d) {
      fail("X_kv", `X_kv has ${body.X_kv[0].length} numbers per token but X has ${d}; both sequences must use the same embedding width d_model`);
    }
    m = body.X_kv.length;
  } else if (given("tokens_kv")) {
    fail("tokens_kv", "tokens_kv labels the rows of X_kv, and there is no X_kv");
  }
  const labels = (key, rows, of) => {
    const list = body[key];
    if (!Array.isArray(list)) fail(key, `${key} must be a list of labels, got ${describe(list)}`);
    if (list.length !== rows) {
      fail(key, `${key} has ${list.length} labels but ${of} has ${rows} rows; give one label per row of ${of}`);
    }
    list.forEach((t, i) => {
      const f = `${key}[${i}]`;
      if (typeof t !== "string") fail(f, `${pageName(f)} must be text, got ${describe(t)}`);
      if (t.length > LIMITS.label) {
        fail(f, `${pageName(f)} is ${t.length} characters long; at most ${LIMITS.label} are allowed`);
      }
    });
  };
  if (given("tokens")) labels("tokens", n, "X");
  if (given("tokens_kv")) labels("tokens_kv", m, "X_kv");
  if (given("causal")) boolean(body.causal, "causal");
  if (given("scale")) number(body.scale, "scale");
  if (given("mask")) {
    const { mask } = body;
    table(mask, "mask", LIMITS.tokens, LIMITS.tokens, boolean);
    if (mask.length !== n || mask[0].length !== m) {
      fail("mask", `mask is ${mask.length}×${mask[0].length} but there are ${n} queries and ${m} keys; ` +
        `it must be ${n}×${m}`);
    }
  }
  if (given("positional") && body.positional !== "sinusoidal") {
    fail("positional", `positional must be null or "sinusoidal", got ${describe(body.positional)}`);
  }
  if (given("row") && !(Number.isInteger(body.row) && body.row >= 0 && body.row < n)) {
    fail("row", `row must be a whole number from 0 to ${n - 1} (0-based, queries 1 to ${n}), got ${describe(body.row)}`);
  }
  // The keys given, in the usual order ("fields" only shapes a response: dropped); labels
  // that are absent default to t1 … tn, as in the API.
  const request = { tokens: given("tokens") ? body.tokens : Array.from({ length: n }, (_, i) => `t${i + 1}`) };
  for (const key of CONFIG_KEYS.slice(1)) if (Object.hasOwn(body, key)) request[key] = body[key];
  if (given("X_kv") && !given("tokens_kv")) request.tokens_kv = body.X_kv.map((_, j) => `s${j + 1}`);
  return request;
}

/** Read a saved settings file: {ok: true, request} or {ok: false, field, message}, the field
 *  named as the API names it ("W_Q[1][0]", "tokens[2]"; null when the text is not JSON). */
export function parseConfig(text) {
  let body;
  try {
    body = JSON.parse(text.replace(/^\uFEFF/, ""));  // editors may start a file with a BOM
  } catch (err) {
    return { ok: false, field: null, message: `The file is not valid JSON: ${err.message}` };
  }
  try {
    return { ok: true, request: checkRequest(body) };
  } catch (err) {
    if (err instanceof Problem) return { ok: false, field: err.field, message: err.message };
    throw err;
  }
}
