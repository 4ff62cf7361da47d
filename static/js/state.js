// The one state object of the page and its URL form. Pure functions, unit-tested.
//
// state = {
//   tokens: [n labels],
//   X: n × d_model, W_Q: d_model × d_k, W_K: d_model × d_k, W_V: d_model × d_v
//      (matrices of *strings*: exactly what the person typed, so nothing is lost
//       even while a cell does not parse),
//   causal: boolean, row: selected query row (0-based) or null, seed: integer,
//   scale: "" for 1/√d_k, else the factor as typed ("1" is unscaled attention),
//   positional: boolean (sinusoidal positions added to X),
//   blocked: [[i, j], …] score cells masked by hand (query i may not read key j),
//   X_kv: m × d_model or null, tokens_kv: [m labels] or null — with X_kv the keys and
//      values come from this second sequence (cross-attention),
//   heads: h (1 to limits.heads); with h > 1 the k-th head's projections are W_Q_k, W_K_k, W_V_k
//      (k = 2 … h; W_Q, W_K, W_V are head 1's) and W_O is (h·d_v) × d_model,
//   head: the head (0-based) whose matrices and working are shown,
//   present: boolean (present mode: large type, the heatmap and the working alone),
// }
// Every transition returns a new object; nothing here touches the DOM. The limits (on
// tokens, dimensions, label length and heads) are the server's, from config.js.

import { limits } from "./config.js";
import { parseCell } from "./format.js";

export const MATRICES = ["X", "W_Q", "W_K", "W_V"];

/** The state keys of head k's projections (k from 0): W_Q, W_K, W_V, then W_Q_2, … */
export const headKeys = (k) => ["W_Q", "W_K", "W_V"].map((p) => (k === 0 ? p : `${p}_${k + 1}`));

export const extraHeadKeys = (h) => Array.from({ length: h - 1 }, (_, k) => headKeys(k + 1)).flat();

/** The matrices of a state: X and every head's projections, W_O with several heads,
 *  and X_kv in cross-attention. */
export function matricesOf(state) {
  return [...MATRICES, ...extraHeadKeys(state.heads), ...(state.heads > 1 ? ["W_O"] : []),
    ...(state.X_kv ? ["X_kv"] : [])];
}

/** The API's name of a field ("heads[1].W_Q[0][2]") as the page names it ("W_Q_2[0][2]"). */
export function uiField(field) {
  const m = /^heads\[(\d+)\]\.(W_[QKV])(.*)$/.exec(field ?? "");
  if (!m) return field;
  const k = Number(m[1]);
  return `${k === 0 ? m[2] : `${m[2]}_${k + 1}`}${m[3]}`;
}

// ---- shapes ----

export function shapes(state) {
  return {
    n: state.X.length,
    m: state.X_kv ? state.X_kv.length : state.X.length,
    d_model: state.X[0].length,
    d_k: state.W_Q[0].length,
    d_v: state.W_V[0].length,
  };
}

/** Throw an Error saying what does not fit when a state's parts disagree (a hand-edited link). */
export function checkShapes(state) {
  if ((state.X_kv === null) !== (state.tokens_kv === null)) throw new Error("X_kv and tokens_kv go together");
  if (!(state.head >= 0 && state.head < state.heads)) throw new Error(`head ${state.head + 1} of ${state.heads}`);
  for (const name of matricesOf(state)) {
    if (!state[name]) throw new Error(`${name} is missing`);
    const m = state[name];
    if (!Array.isArray(m) || m.length === 0 || m.some((r) => r.length !== m[0].length)) {
      throw new Error(`${name} is not a rectangular matrix`);
    }
  }
  const { n, m, d_model, d_k, d_v } = shapes(state);
  if (state.tokens.length !== n) throw new Error(`${state.tokens.length} labels for ${n} rows of X`);
  if (state.X_kv) {
    if (state.X_kv[0].length !== d_model) throw new Error(`X_kv has ${state.X_kv[0].length} columns, X has ${d_model}`);
    if (state.tokens_kv.length !== m) throw new Error(`${state.tokens_kv.length} labels for ${m} rows of X_kv`);
  }
  for (let k = 0; k < state.heads; k++) {
    const [q, key, v] = headKeys(k);
    for (const name of [q, key, v]) {
      if (state[name].length !== d_model) throw new Error(`${name} has ${state[name].length} rows, X has ${d_model} columns`);
    }
    if (state[q][0].length !== d_k || state[key][0].length !== d_k) throw new Error(`${q} and ${key} must be ${d_k} wide`);
    if (state[v][0].length !== d_v) throw new Error(`${v} must be ${d_v} wide`);
  }
  if (state.heads > 1 && (state.W_O.length !== state.heads * d_v || state.W_O[0].length !== d_model)) {
    throw new Error(`W_O must be ${state.heads * d_v} × ${d_model}`);
  }
  if (Math.max(n, m) > limits.tokens || Math.max(d_model, d_k, d_v) > limits.dim) throw new Error("too large");
  if (state.row !== null && state.row >= n) state.row = null;
  if (state.blocked.some(([i, j]) => i >= n || j >= m)) throw new Error("a masked cell is outside the matrix");
}

// ---- from state to a request for POST /api/attention ----

/** {request, errors}: ``errors`` maps a field ("X[0][1]", "tokens[2]") to a message;
 *  ``request`` is null while any field is invalid. */
export function buildRequest(state) {
  const errors = new Map();
  const request = { tokens: state.tokens, causal: state.causal, row: state.row };
  if (state.scale !== "") {
    const parsed = parseCell(state.scale);
    if (parsed.ok) request.scale = parsed.value;
    else errors.set("scale", parsed.message);
  }
  if (state.positional) request.positional = "sinusoidal";
  if (state.blocked.length) {
    const { n, m } = shapes(state);
    request.mask = Array.from({ length: n }, () => Array(m).fill(true));
    for (const [i, j] of state.blocked) request.mask[i][j] = false;
  }
  if (state.X_kv) request.tokens_kv = state.tokens_kv;
  for (const name of matricesOf(state)) {
    request[name] = state[name].map((r, i) => {
      const { values, problems } = parseRow(r);
      for (const [j, message] of problems) errors.set(`${name}[${i}][${j}]`, message);
      return values;
    });
  }
  if (state.heads > 1) {  // the API's multi-head form: heads [{W_Q, W_K, W_V}, …] and W_O
    request.heads = Array.from({ length: state.heads }, (_, k) => {
      const [q, key, v] = headKeys(k);
      return { W_Q: request[q], W_K: request[key], W_V: request[v] };
    });
    for (let k = 0; k < state.heads; k++) for (const name of headKeys(k)) delete request[name];
  }
  for (const key of ["tokens", "tokens_kv"]) {
    (state[key] ?? []).forEach((label, i) => {
      const length = characters(label);
      if (length > limits.label) {
        errors.set(`${key}[${i}]`, `Labels have at most ${limits.label} characters; this one has ${length}.`);
      }
    });
  }
  return { request: errors.size ? null : request, errors };
}

/** A label's length as the server counts it: characters (code points), not UTF-16 units,
 *  so "😀" is 1, not 2. */
const characters = (label) => [...label].length;

const parsedRows = new WeakMap();
function parseRow(r) {
  if (!parsedRows.has(r)) {
    const problems = [];
    const values = r.map((text, j) => {
      const parsed = parseCell(text);
      if (!parsed.ok) problems.push([j, parsed.message]);
      return parsed.value;
    });
    parsedRows.set(r, { values, problems });
  }
  return parsedRows.get(r);
}

// ---- transitions ----

const asText = (m) => m.map((r) => r.map((v) => String(v)));

/** The state of a preset's request (as /api/presets gives it). */
export function fromPreset(req, seed = 1) {
  const state = {
    tokens: [...req.tokens], causal: Boolean(req.causal), row: null, seed,
    scale: "", positional: false, blocked: [], X_kv: null, tokens_kv: null, heads: 1, head: 0,
    present: false,
  };
  for (const name of MATRICES) state[name] = asText(req[name]);
  return state;
}

/** The state of a request in the API's format (an imported configuration): its scale,
 *  positions, mask, second sequence, heads and selected row come along; masks become
 *  cells masked by hand. Throws an Error saying why when the page cannot show the request
 *  (its heads differ in d_k or d_v, or W_O is not d_model wide). */
export function fromRequest(req, seed = 1) {
  const heads = req.heads ?? [{ W_Q: req.W_Q, W_K: req.W_K, W_V: req.W_V }];
  const tokens = req.tokens ?? req.X.map((_, i) => `t${i + 1}`);
  const state = fromPreset({ ...req, tokens, ...heads[0] }, seed);
  if (req.scale !== undefined && req.scale !== null) state.scale = String(req.scale);
  state.positional = req.positional === "sinusoidal";
  state.row = Number.isInteger(req.row) ? req.row : null;
  if (req.X_kv) {
    state.X_kv = asText(req.X_kv);
    state.tokens_kv = [...(req.tokens_kv ?? req.X_kv.map((_, j) => `s${j + 1}`))];
  }
  state.blocked = [];
  (req.mask ?? []).forEach((r, i) => r.forEach((ok, j) => { if (!ok) state.blocked.push([i, j]); }));
  if (heads.length > 1) {
    const [d_k, d_v] = [heads[0].W_Q[0].length, heads[0].W_V[0].length];
    heads.forEach((head, k) => {
      if (head.W_Q[0].length !== d_k || head.W_V[0].length !== d_v) {
        throw new Error(`head ${k + 1} has d_k = ${head.W_Q[0].length} and d_v = ${head.W_V[0].length}, `
          + `head 1 has ${d_k} and ${d_v}: the page shows heads of one size`);
      }
      const [q, key, v] = headKeys(k);
      Object.assign(state, { [q]: asText(head.W_Q), [key]: asText(head.W_K), [v]: asText(head.W_V) });
    });
    if (req.W_O[0].length !== req.X[0].length) {
      throw new Error(`W_O is ${req.W_O[0].length} wide and d_model is ${req.X[0].length}: `
        + "the page shows W_O as wide as the embeddings");
    }
    Object.assign(state, { heads: heads.length, W_O: asText(req.W_O) });
  }
  checkShapes(state);
  return state;
}

export function setCell(state, name, i, j, text) {
  const m = [...state[name]];
  m[i] = [...m[i]];
  m[i][j] = text;
  return { ...state, [name]: m };
}

export function setLabel(state, i, text, key = "tokens") {
  const labels = [...state[key]];
  labels[i] = text;
  return { ...state, [key]: labels };
}

/** mulberry32: a small seeded generator, so a seed in the URL reproduces the numbers. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// One decimal in [−2, 2]: easy to multiply in one's head, varied enough to be interesting.
const draw = (next) => String(Math.round(next() * 40 - 20) / 10);

export function randomize(state, seed) {
  const next = rng(seed);
  const out = { ...state, seed };
  for (const name of matricesOf(state)) out[name] = state[name].map((r) => r.map(() => draw(next)));
  return out;
}

const SENTENCE = ["the", "cat", "sat", "on", "the", "mat"];

function nextLabel(tokens) {
  const n = tokens.length;
  const continues = n < SENTENCE.length && tokens.every((t, i) => t === SENTENCE[i]);
  return continues ? SENTENCE[n] : `t${n + 1}`;
}

/** Append a token whose embedding is drawn from the seed (and its position, so adding
 *  the same token twice gives different rows). */
export function addToken(state) {
  const { n, d_model } = shapes(state);
  if (n >= limits.tokens) return state;
  const next = rng(state.seed * 7919 + n);
  const row = Array.from({ length: d_model }, () => draw(next));
  return { ...state, tokens: [...state.tokens, nextLabel(state.tokens)], X: [...state.X, row] };
}

export function removeToken(state, i = state.tokens.length - 1) {
  if (state.tokens.length <= 1) return state;
  const drop = (arr) => arr.filter((_, k) => k !== i);
  const shift = (k) => (k > i ? k - 1 : k);
  let row = state.row;
  if (row !== null) row = row === i ? null : shift(row);
  // In self-attention token i is also key i; in cross-attention the keys stay.
  const self = state.X_kv === null;
  const blocked = state.blocked.filter(([a, b]) => a !== i && (!self || b !== i))
    .map(([a, b]) => [shift(a), self ? shift(b) : b]);
  return { ...state, tokens: drop(state.tokens), X: drop(state.X), row, blocked };
}

/** Add or remove tokens at the end until there are ``n`` (kept within 1 and the limit):
 *  the same rows as pressing "Add token" or "Remove token" that many times. */
export function setTokenCount(state, n) {
  const want = Math.max(1, Math.min(limits.tokens, n));
  let out = state;
  while (out.tokens.length < want) out = addToken(out);
  while (out.tokens.length > want) out = removeToken(out);
  return out;
}

/** Cross-attention on (a key/value sequence of as many tokens, drawn from the seed) or off. */
export function setCross(state, on) {
  if (!on) return { ...state, X_kv: null, tokens_kv: null, blocked: [] };
  const { n, d_model } = shapes(state);
  const next = rng(state.seed * 104729 + n);
  return {
    ...state,
    X_kv: Array.from({ length: n }, () => Array.from({ length: d_model }, () => draw(next))),
    tokens_kv: Array.from({ length: n }, (_, j) => `s${j + 1}`),
    blocked: [],
  };
}

/** Add or remove the last token of the key/value sequence. */
export function addKeyToken(state) {
  const { m, d_model } = shapes(state);
  if (!state.X_kv || m >= limits.tokens) return state;
  const next = rng(state.seed * 104729 + m + 1);
  const row = Array.from({ length: d_model }, () => draw(next));
  return { ...state, X_kv: [...state.X_kv, row], tokens_kv: [...state.tokens_kv, `s${m + 1}`] };
}

export function removeKeyToken(state) {
  const { m } = shapes(state);
  if (!state.X_kv || m <= 1) return state;
  return {
    ...state, X_kv: state.X_kv.slice(0, -1), tokens_kv: state.tokens_kv.slice(0, -1),
    blocked: state.blocked.filter(([, j]) => j < m - 1),
  };
}

/** Add or remove key tokens at the end until there are ``m`` (within 1 and the limit). */
export function setKeyTokenCount(state, m) {
  if (!state.X_kv) return state;
  const want = Math.max(1, Math.min(limits.tokens, m));
  let out = state;
  while (out.X_kv.length < want) out = addKeyToken(out);
  while (out.X_kv.length > want) out = removeKeyToken(out);
  return out;
}

/** Mask or unmask one score cell by hand (a padding mask): query i may not read key j. */
export function toggleBlocked(state, i, j) {
  const has = state.blocked.some(([a, b]) => a === i && b === j);
  const blocked = has ? state.blocked.filter(([a, b]) => a !== i || b !== j) : [...state.blocked, [i, j]];
  blocked.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
  return { ...state, blocked };
}

const identity = (i, j) => (i === j ? "1" : "0");

// W_O's sensible start: each head's block of rows is an identity, so Z sums the heads.
const blocks = (d_v) => (r, c) => (r % d_v === c ? "1" : "0");

/** One more head, its projections drawn from the seed; W_O grows by its block of rows. */
export function addHead(state) {
  if (state.heads >= limits.heads) return state;
  const { d_model, d_k, d_v } = shapes(state);
  const h = state.heads + 1;
  const next = rng(state.seed * 7907 + h);
  const drawn = (rows, cols) => Array.from({ length: rows }, () => Array.from({ length: cols }, () => draw(next)));
  const [q, key, v] = headKeys(h - 1);
  const W_O = state.heads > 1 ? state.W_O : [];
  return {
    ...state, heads: h, head: h - 1,
    [q]: drawn(d_model, d_k), [key]: drawn(d_model, d_k), [v]: drawn(d_model, d_v),
    W_O: resizeMatrix(W_O.length ? W_O : [[]], h * d_v, d_model, blocks(d_v), W_O.length),
  };
}

/** The last head goes, with its block of W_O; one head left has no W_O. */
export function removeHead(state) {
  if (state.heads <= 1) return state;
  const { d_model, d_v } = shapes(state);
  const h = state.heads - 1;
  const out = { ...state, heads: h, head: Math.min(state.head, h - 1) };
  for (const name of headKeys(h)) delete out[name];
  if (h === 1) delete out.W_O;
  else out.W_O = resizeMatrix(state.W_O, h * d_v, d_model, blocks(d_v));
  return out;
}

function resizeMatrix(m, rows, cols, fill, keepRows = m.length) {
  return Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i < keepRows && j < m[0].length ? m[i][j] : fill(i, j))));
}

/** Change d_model, d_k or d_v. Existing numbers are kept; new cells of X are 0 (the
 *  outputs do not change) and new cells of a W continue the identity pattern. */
export function resize(state, dim, size) {
  const s = shapes(state);
  if (!(size >= 1 && size <= limits.dim) || s[dim] === undefined) return state;
  const d = { ...s, [dim]: size };
  const out = {
    ...state,
    X: resizeMatrix(state.X, d.n, d.d_model, () => "0"),
    X_kv: state.X_kv && resizeMatrix(state.X_kv, d.m, d.d_model, () => "0"),
  };
  for (let k = 0; k < state.heads; k++) {
    const [q, key, v] = headKeys(k);
    out[q] = resizeMatrix(state[q], d.d_model, d.d_k, identity);
    out[key] = resizeMatrix(state[key], d.d_model, d.d_k, identity);
    out[v] = resizeMatrix(state[v], d.d_model, d.d_v, identity);
  }
  if (state.heads > 1) out.W_O = resizeMatrix(state.W_O, state.heads * d.d_v, d.d_model, blocks(d.d_v));
  return out;
}
