// From the page's state (state.js) to a request for POST /api/attention, and from a request
// (a preset, an imported configuration) back to a state. Pure functions, unit-tested.
//
// Problems are keyed by the page's names of its fields, which are the API's where the API
// has one field for an input: "X[0][1]", "tokens[2]", "scale", "rope_base",
// "position_offset", "alibi_slopes[1]", "window", "sinks". A matrix of a head other than
// the first is the page's "W_Q_2[0][1]" (the API's "heads[1].W_Q[0][1]"), and a bias is a
// one-row matrix: "b_Q[0][1]" (the API's "b_Q[1]"), "b_K_2[0][0]" (the API's
// "heads[1].b_K[0]", or "kv_heads[1].b_K[0]" with shared key/value heads).

import { limits } from "../lib/config.js";
import { parseCell } from "../lib/format.js";
import { biasKeys, grouped, headKeys, inputsOf, shapes } from "./state.js";
import { checkShapes } from "./statecheck.js";

/** The API's name of a field ("heads[1].W_Q[0][2]", "kv_heads[1].b_K[0]", "b_Q[1]") as the
 *  page names it ("W_Q_2[0][2]", "b_K_2[0][0]", "b_Q[0][1]"); other names are the same. */
export function uiField(field) {
  const m = /^(?:(?:heads|kv_heads)\[(\d+)\]\.)?([Wb]_[QKV])(.*)$/.exec(field ?? "");
  if (!m) return field;
  const [, k, name, rest] = m;
  const key = k === undefined || k === "0" ? name : `${name}_${Number(k) + 1}`;
  return name.startsWith("b_") && /^\[\d+\]$/.test(rest) ? `${key}[0]${rest}` : key + rest;
}

// ---- from state to a request ----

// A cache, keyed by the state itself: a state is never changed once made (every transition
// makes a new one, state.js), so its entry never goes stale, and it goes with the state.
// One request per state: an edit asks for it some six times (the request, the marks, the
// stale mark, the drawing, the walk, the shuffle test), and the lessons' side requests
// are keyed by its identity (lessonpanel.js). Built again each time, the 0.26 ms of
// benchmarks/bench_browser.py's "256 tokens, d = 64" edit (buildRequest) would be ~1.5 ms.
const built = new WeakMap();

/** buildRequest(state), built once per state: the same {request, errors} each time. */
export function requestOf(state) {
  if (!built.has(state)) built.set(state, buildRequest(state));
  return built.get(state);
}


/** {request, errors}: ``errors`` maps a field ("X[0][1]", "tokens[2]", "window") to a
 *  message; ``request`` is null while any field is invalid. The positions' settings, the
 *  ALiBi slopes, the window and the sinks are sent only when they apply, and the biases
 *  and key/value heads in the API's forms (single head: b_Q … at the top; several: in
 *  heads[h], or in kv_heads[g] when key/value heads are shared). */
export function buildRequest(state) {
  const errors = new Map();
  const request = { tokens: state.tokens, causal: state.causal, row: state.row };
  const number = (field, text) => {
    const parsed = parseCell(text);
    if (!parsed.ok) errors.set(field, parsed.message);
    return parsed.value;
  };
  if (state.scale !== "") request.scale = number("scale", state.scale);
  Object.assign(request, positions(state, number));
  if (state.blocked.length) {
    const { n, m } = shapes(state);
    request.mask = Array.from({ length: n }, () => Array(m).fill(true));
    for (const [i, j] of state.blocked) request.mask[i][j] = false;
  }
  if (state.X_kv) request.tokens_kv = state.tokens_kv;
  const values = {};
  for (const name of inputsOf(state)) {
    values[name] = state[name].map((r, i) => {
      const { values: row, problems } = parseRow(r);
      for (const [j, message] of problems) errors.set(`${name}[${i}][${j}]`, message);
      return row;
    });
  }
  Object.assign(request, projections(state, values));
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

/** The request's positions, ALiBi slopes, window and sinks, each only where it applies;
 *  ``number(field, text)`` parses a text and notes a problem under ``field``. */
function positions(state, number) {
  const out = {};
  const kind = state.positional;
  if (kind) out.positional = kind;
  if (kind === "rope" && state.rope_base !== "") out.rope_base = number("rope_base", state.rope_base);
  if ((kind === "sinusoidal" || kind === "rope") && state.offset !== "0") {
    out.position_offset = number("position_offset", state.offset);
  }
  if (kind === "alibi" && state.alibi !== "") {
    out.alibi_slopes = state.alibi.map((text, k) => number(`alibi_slopes[${k}]`, text));
  }
  if (state.window !== "") {
    out.window = number("window", state.window);
    if (state.sinks !== "0") out.sinks = number("sinks", state.sinks);
  }
  return out;
}

/** X, X_kv and the projections of ``values`` (the state's inputs parsed) in the API's
 *  single-head or multi-head form. */
function projections(state, values) {
  const { heads: h, kvHeads: g } = state;
  const bias = (name) => (state.biases ? { [name.replace(/_\d+$/, "")]: values[name][0] } : {});
  const out = { X: values.X, ...(state.X_kv ? { X_kv: values.X_kv } : {}) };
  if (h === 1) {
    return { ...out, W_Q: values.W_Q, W_K: values.W_K, W_V: values.W_V, ...bias("b_Q"), ...bias("b_K"), ...bias("b_V") };
  }
  const shared = grouped(state);
  out.heads = Array.from({ length: h }, (_, k) => {
    const [q, key, v] = headKeys(k);
    const [bq, bk, bv] = biasKeys(k);
    if (shared) return { W_Q: values[q], ...bias(bq) };
    return { W_Q: values[q], W_K: values[key], W_V: values[v], ...bias(bq), ...bias(bk), ...bias(bv) };
  });
  if (shared) {
    out.kv_heads = Array.from({ length: g }, (_, t) => {
      const [, key, v] = headKeys(t);
      const [, bk, bv] = biasKeys(t);
      return { W_K: values[key], W_V: values[v], ...bias(bk), ...bias(bv) };
    });
  }
  out.W_O = values.W_O;
  return out;
}

/** A label's length as the server counts it: characters (code points), not UTF-16 units,
 *  so "😀" is 1, not 2. */
const characters = (label) => [...label].length;

// A row of cells is parsed once: transitions copy only the rows they change (state.js).
// benchmarks/bench_browser.py's "256 tokens, d = 64" edit needs it: buildRequest takes
// 5.7 ms with every row new, 0.26 ms with one (node, median of 15).
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

// ---- from a request to a state ----

const asText = (m) => m.map((r) => r.map((v) => String(v)));
const text = (v, otherwise) => (v === undefined || v === null ? otherwise : String(v));

/** The state of a preset's request (as /api/presets gives it): all of it, as an imported
 *  one, but no row selected unless it says so. */
export function fromPreset(req, seed = 1) {
  return fromRequest(req, seed);
}

/** The state of a request in the API's format (a preset, an imported configuration): its
 *  scale, positions, ALiBi slopes, window, sinks, mask, second sequence, heads, key/value
 *  heads, biases and selected row come along; masks become cells masked by hand, and a
 *  bias some head lacks is zeros. Throws an Error saying why when the page cannot show the
 *  request (its heads differ in d_k or d_v, W_O is not d_model wide, its parts disagree). */
export function fromRequest(req, seed = 1) {
  const heads = req.heads ?? [req];
  const kv = req.heads ? req.kv_heads ?? req.heads : [req];
  const state = {
    tokens: [...(req.tokens ?? req.X.map((_, i) => `t${i + 1}`))], causal: Boolean(req.causal),
    row: Number.isInteger(req.row) ? req.row : null, seed,
    scale: text(req.scale, ""), positional: req.positional ?? "", rope_base: text(req.rope_base, ""),
    offset: text(req.position_offset, "0"), alibi: req.alibi_slopes ? req.alibi_slopes.map(String) : "",
    window: text(req.window, ""), sinks: text(req.sinks, "0"),
    blocked: [], X_kv: null, tokens_kv: null, heads: heads.length, kvHeads: kv.length, head: 0, present: false,
    X: asText(req.X), biases: [...heads, ...kv].some((p) => p.b_Q || p.b_K || p.b_V),
  };
  if (req.X_kv) {
    state.X_kv = asText(req.X_kv);
    state.tokens_kv = [...(req.tokens_kv ?? req.X_kv.map((_, j) => `s${j + 1}`))];
  }
  (req.mask ?? []).forEach((r, i) => r.forEach((ok, j) => { if (!ok) state.blocked.push([i, j]); }));
  readHeads(state, heads, kv);
  if (heads.length > 1) {
    if (req.W_O[0].length !== req.X[0].length) {
      throw new Error(`W_O is ${req.W_O[0].length} wide and d_model is ${req.X[0].length}: `
        + "the page shows W_O as wide as the embeddings");
    }
    state.W_O = asText(req.W_O);
  }
  checkShapes(state);
  return state;
}

/** The query heads' W_Q (and b_Q) and the key/value heads' W_K, W_V (and b_K, b_V) into
 *  the state's keys, checking that every head has head 1's d_k and d_v. */
function readHeads(state, heads, kv) {
  const [d_k, d_v] = [heads[0].W_Q[0].length, kv[0].W_V[0].length];
  const zeros = (n) => Array(n).fill(0);
  heads.forEach((head, k) => {
    const own = kv[k];  // the key/value head of the same number, when there is one
    const widths = [head.W_Q[0].length, own ? own.W_V[0].length : d_v];
    if (widths[0] !== d_k || widths[1] !== d_v) {
      throw new Error(`head ${k + 1} has d_k = ${widths[0]} and d_v = ${widths[1]}, `
        + `head 1 has ${d_k} and ${d_v}: the page shows heads of one size`);
    }
    const [q, key, v] = headKeys(k);
    const [bq, bk, bv] = biasKeys(k);
    state[q] = asText(head.W_Q);
    if (state.biases) state[bq] = asText([head.b_Q ?? zeros(d_k)]);
    if (!own) return;
    Object.assign(state, { [key]: asText(own.W_K), [v]: asText(own.W_V) });
    if (state.biases) Object.assign(state, { [bk]: asText([own.b_K ?? zeros(d_k)]), [bv]: asText([own.b_V ?? zeros(d_v)]) });
  });
}
