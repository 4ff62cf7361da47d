// The one state object of the page and its URL form. Pure functions, unit-tested.
//
// state = {
//   tokens: [n labels],
//   X: n × d_model, W_Q: d_model × d_k, W_K: d_model × d_k, W_V: d_model × d_v
//      (matrices of *strings*: exactly what the person typed, so nothing is lost
//       even while a cell does not parse),
//   causal: boolean, row: selected query row (0-based) or null, seed: integer,
//   scale: "" for 1/√d_k, else the factor as typed ("1" is unscaled attention),
//   positional: "" (none) | "sinusoidal" (PE added to X) | "rope" (q and k rotated) |
//      "alibi" (−m·|i − j| added to the scaled scores),
//   rope_base: "" for θ = 10000, else θ as typed; offset: the first position, as typed ("0"),
//   alibi: "" for the ALiBi paper's slopes, else [one slope as typed per head],
//   biases: boolean; when true b_Q, b_K, b_V (and b_Q_k, b_K_k, b_V_k of head k, as W_Q_k)
//      are 1-row matrices of strings, [[d_k texts]] for b_Q and b_K, [[d_v texts]] for b_V,
//   blocked: [[i, j], …] score cells masked by hand (query i may not read key j),
//   X_kv: m × d_model or null, tokens_kv: [m labels] or null — with X_kv the keys and
//      values come from this second sequence (cross-attention),
//   heads: h (1 to limits.heads); with h > 1 the k-th head's projections are W_Q_k, W_K_k, W_V_k
//      (k = 2 … h; W_Q, W_K, W_V are head 1's) and W_O is (h·d_v) × d_model,
//   kvHeads: G, a divisor of h: the key/value heads. G = h is ordinary multi-head attention;
//      with G < h only W_K … W_K_G and W_V … W_V_G (and their biases) exist, key/value head g's,
//      read by the query heads g·h/G … (g + 1)·h/G − 1 (grouped-query attention; G = 1: multi-query),
//   window: "" for none, else w as typed (query i reads key j only when |i − j| < w),
//   sinks: "0", else s as typed (keys 0 … s − 1 stay readable whatever the window),
//   head: the head (0-based) whose matrices and working are shown,
//   present: boolean (present mode: large type, the heatmap and the working alone),
// }
// Every transition returns a new object; nothing here touches the DOM. The limits (on
// tokens, dimensions, label length and heads) are the server's, from config.js. The
// request the state sends and the state of a request are request.js's; the transitions
// of heads, key/value heads and biases are heads.js's; the check that a state read from a
// link or an import holds together is statecheck.js's.

import { limits } from "../lib/config.js";

export const MATRICES = ["X", "W_Q", "W_K", "W_V"];

export const POSITIONS = ["", "sinusoidal", "rope", "alibi"];

const suffix = (k) => (k === 0 ? "" : `_${k + 1}`);

/** The state keys of head k's projections (k from 0): W_Q, W_K, W_V, then W_Q_2, … */
export const headKeys = (k) => ["W_Q", "W_K", "W_V"].map((p) => p + suffix(k));

/** The state keys of head k's biases (k from 0): b_Q, b_K, b_V, then b_Q_2, … */
export const biasKeys = (k) => ["b_Q", "b_K", "b_V"].map((p) => p + suffix(k));

/** ``keysOf(k)``'s three keys for heads from … h − 1: the query's, and the key's and
 *  value's while k is one of the ``g`` key/value heads. */
function headsKeys(keysOf, from, h, g) {
  const keys = [];
  for (let k = from; k < h; k++) {
    const [q, key, v] = keysOf(k);
    keys.push(q, ...(k < g ? [key, v] : []));
  }
  return keys;
}

/** The matrices of heads 2 … h, in order: each head's W_Q_k, and its W_K_k, W_V_k while
 *  it is one of the ``g`` key/value heads (all of them without grouping, g = h). */
export const extraHeadKeys = (h, g = h) => headsKeys(headKeys, 1, h, g);

/** Every bias row of h heads with g key/value heads: b_Q of each query head, b_K and b_V
 *  of each key/value head, head by head. */
export const allBiasKeys = (h, g = h) => headsKeys(biasKeys, 0, h, g);

/** The matrices of a state: X and every head's projections, W_O with several heads,
 *  and X_kv in cross-attention. (Each is drawn as a figure; the bias rows are drawn
 *  under theirs: biasesOf.) */
export function matricesOf(state) {
  return [...MATRICES, ...extraHeadKeys(state.heads, state.kvHeads), ...(state.heads > 1 ? ["W_O"] : []),
    ...(state.X_kv ? ["X_kv"] : [])];
}

/** The bias rows of a state (none while biases are off). */
export const biasesOf = (state) => (state.biases ? allBiasKeys(state.heads, state.kvHeads) : []);

/** Every matrix of strings a state holds: its matrices, then its bias rows. */
export const inputsOf = (state) => [...matricesOf(state), ...biasesOf(state)];

/** Whether key/value heads are shared (fewer than the query heads). */
export const grouped = (state) => state.kvHeads < state.heads;

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

// ---- transitions ----

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
export const draw = (next) => String(Math.round(next() * 40 - 20) / 10);

/** New numbers for every input from ``seed``: the matrices first, then the bias rows, so
 *  that switching biases on leaves the matrices a seed draws as they were. */
export function randomize(state, seed) {
  const next = rng(seed);
  const out = { ...state, seed };
  for (const name of inputsOf(state)) out[name] = state[name].map((r) => r.map(() => draw(next)));
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
export const blocks = (d_v) => (r, c) => (r % d_v === c ? "1" : "0");

export function resizeMatrix(m, rows, cols, fill, keepRows = m.length) {
  return Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i < keepRows && j < m[0].length ? m[i][j] : fill(i, j))));
}

/** The largest d_model (limits.model_dim: a real model's width), d_k or d_v (limits.dim). */
export const dimLimit = (dim) => (dim === "d_model" ? limits.model_dim : limits.dim);

/** Change d_model, d_k or d_v. Existing numbers are kept; new cells of X are 0 (the
 *  outputs do not change), new cells of a W continue the identity pattern, and new cells
 *  of a bias are 0. */
export function resize(state, dim, size) {
  const s = shapes(state);
  if (!(size >= 1 && size <= dimLimit(dim)) || s[dim] === undefined) return state;
  const d = { ...s, [dim]: size };
  const out = {
    ...state,
    X: resizeMatrix(state.X, d.n, d.d_model, () => "0"),
    X_kv: state.X_kv && resizeMatrix(state.X_kv, d.m, d.d_model, () => "0"),
  };
  for (const name of matricesOf(state)) {
    const p = /^W_([QKV])/.exec(name)?.[1];
    if (p) out[name] = resizeMatrix(state[name], d.d_model, p === "V" ? d.d_v : d.d_k, identity);
  }
  for (const name of biasesOf(state)) out[name] = resizeMatrix(state[name], 1, name.startsWith("b_V") ? d.d_v : d.d_k, () => "0");
  if (state.heads > 1) out.W_O = resizeMatrix(state.W_O, state.heads * d.d_v, d.d_model, blocks(d.d_v));
  return out;
}
