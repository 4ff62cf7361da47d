// The state's URL form: the fragment "#tokens=…&X=…" that reproduces a view exactly.
// One table of properties drives both directions. Pure functions, unit-tested.

import { limits } from "../lib/config.js";
import { readFragment, writeFragment } from "../lib/fragment.js";
import { fragmentOf } from "../model/state.js";
import { changedCells, withCells } from "./modelhead/source.js";
import { MATRICES, POSITIONS, allBiasKeys, extraHeadKeys } from "./state.js";
import { checkShapes } from "./statecheck.js";
import { wholeIn } from "../lib/whole.js";

const escapePart = (s) => s.replace(/[%,;|]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());

// Transitions copy only the rows they change, so a row array that is unchanged is the
// same object as before: its encoding is computed once. benchmarks/bench_browser.py's
// "256 tokens, d = 64" edit needs it: toHash takes 32 ms with every row new, 12 ms with
// one (node, median of 15), and the URL is written in the frame after the edit's.
const encodedRows = new WeakMap();
function encodeRow(r) {
  if (!encodedRows.has(r)) encodedRows.set(r, r.map(escapePart).join(","));
  return encodedRows.get(r);
}

const CODECS = {
  labels: {
    encode: (v) => v.map(escapePart).join("|"),
    decode: (s) => s.split("|").map(decodeURIComponent),
  },
  matrix: {
    encode: (m) => m.map(encodeRow).join(";"),
    // A row with no escape in it (nearly every row) is split, not decoded cell by cell:
    // 98,000 calls of decodeURIComponent took ~45 ms at 512 tokens with 4 heads.
    decode: (s) => s.split(";").map((r) => (r.includes("%") ? r.split(",").map(decodeURIComponent) : r.split(","))),
  },
  bool: { encode: (v) => (v ? "1" : "0"), decode: (s) => s === "1" },
  index: {
    encode: (v) => (v === null ? "" : String(v)),
    decode: (s) => (s === "" ? null : wholeNumber(s)),
  },
  int: { encode: String, decode: wholeNumber },
  text: { encode: (v) => v, decode: (s) => s },
  optLabels: { encode: (v) => (v ? CODECS.labels.encode(v) : ""), decode: (s) => (s === "" ? null : CODECS.labels.decode(s)) },
  optMatrix: { encode: (v) => (v ? CODECS.matrix.encode(v) : ""), decode: (s) => (s === "" ? null : CODECS.matrix.decode(s)) },
  // The positions' kind; links from before the choice (positional=1 or 0) read as
  // sinusoidal positions or none.
  positions: {
    encode: (v) => v,
    decode: (s) => {
      const kind = { 1: "sinusoidal", 0: "" }[s] ?? s;
      if (!POSITIONS.includes(kind)) throw new Error(`“${s}” is not a kind of positions (sinusoidal, rope or alibi)`);
      return kind;
    },
  },
  // "" (the paper's slopes) or one slope a head, joined by ",".
  slopes: {
    encode: (v) => (v === "" ? "" : v.map(escapePart).join(",")),
    decode: (s) => (s === "" ? "" : s.split(",").map(decodeURIComponent)),
  },
  pairs: {
    encode: (v) => v.map(([i, j]) => `${i}-${j}`).join(","),
    decode: (s) => (s === "" ? [] : s.split(",").map((p) => {
      const m = /^(\d{1,3})-(\d{1,3})$/.exec(p);
      if (!m) throw new Error(`“${p}” is not a masked cell like 2-0`);
      return [Number(m[1]), Number(m[2])];
    })),
  },
};

// The URL's properties: ``key`` in the URL, ``prop`` in the state when it differs. The
// matrices of the heads and the bias rows join the list as the heads, the key/value heads
// and the biases (read first) say.
const properties = ({ heads, kvHeads, biases }) => [
  { key: "tokens", codec: "labels" },
  ...MATRICES.map((key) => ({ key, codec: "matrix" })),
  { key: "heads", codec: "int" },
  { key: "head", codec: "int" },
  { key: "kv_heads", prop: "kvHeads", codec: "int" },
  ...extraHeadKeys(heads, kvHeads).map((key) => ({ key, codec: "matrix" })),
  ...(heads > 1 ? [{ key: "W_O", codec: "matrix" }] : []),
  { key: "biases", codec: "bool" },
  ...(biases ? allBiasKeys(heads, kvHeads) : []).map((key) => ({ key, codec: "matrix" })),
  { key: "causal", codec: "bool" },
  { key: "scale", codec: "text" },
  { key: "positional", codec: "positions" },
  { key: "rope_base", codec: "text" },
  { key: "offset", codec: "text" },
  { key: "alibi", codec: "slopes" },
  { key: "window", codec: "text" },
  { key: "sinks", codec: "text" },
  { key: "blocked", codec: "pairs" },
  { key: "tokens_kv", codec: "optLabels" },
  { key: "X_kv", codec: "optMatrix" },
  { key: "row", codec: "index" },
  { key: "seed", codec: "int" },
  { key: "present", codec: "bool" },
];

/** The value of ``key`` in a fragment read by readFragment; throws when its escapes are
 *  malformed (null). */
function valueOf(params, key) {
  const value = params.get(key);
  if (value === null) throw new Error(`the value of ${key} is not written in valid escapes`);
  return value;
}

function wholeNumber(s) {
  const v = wholeIn(s);
  if (v === null) throw new Error(`“${s}” is not a whole number`);
  return v;
}

// The state lives in the URL's fragment ("#tokens=…&X=…"), never sent to the server:
// a 256-token link is ~100 kB, beyond what servers accept in a request line.

// Kept literal in the fragment, for readability: the matrices' and labels' separators.
const SEPARATORS = ",;|:";

/** The fragment that reproduces ``state``. Separators , ; | stay literal for
 *  readability; the same characters inside a cell or label are escaped. A real model's
 *  head (state.source) is written as its reference and the cells changed, while it keeps
 *  its shapes and those are few (sourceHash). */
export function toHash(state) {
  const short = state.source ? sourceHash(state) : null;
  if (short !== null) return short;
  return "#" + writeFragment(properties(state).map(({ key, prop = key, codec }) => [key, CODECS[codec].encode(state[prop])]), SEPARATORS);
}

// The options a real model's head keeps beside its reference: everything that is not an
// input matrix, a label or the heads (the source form has one head, its own).
const OPTIONS = ["scale", "positional", "rope_base", "offset", "alibi", "window", "sinks", "blocked", "seed", "present"];
// Beyond this many changed cells (a Random, a paste) the full form is written: each costs
// ~30 characters, so the link stays under ~60 kB.
export const MAX_CHANGED = 2000;

/** "#from=model&model=…&text=…&layer=…&head=…&row=…&causal=…" (the real-model view's own
 *  link), then the changed cells, "cells=W_Q:3:5:0.25,tokens:2:0:cat" (matrix, row,
 *  column, text; a label's column is 0), then the options; null when the shapes are no
 *  longer the source's or too many cells changed. */
export function sourceHash(state) {
  const cells = changedCells(state);
  if (cells === null || cells.length > MAX_CHANGED) return null;
  const { model, text, layer, head } = state.source;
  const codec = (key) => properties(state).find((p) => (p.prop ?? p.key) === key).codec;
  return `#from=model&${fragmentOf({ model, text, layer, head, row: state.row, causal: state.causal })}&` + writeFragment([
    ["cells", cells.map(([name, i, j, t]) => `${name}:${i}:${j}:${escapePart(t)}`).join(",")],
    ...OPTIONS.map((key) => [key, CODECS[codec(key)].encode(state[key])]),
  ], SEPARATORS);
}

/** The state of a source-form fragment (sourceHash) over ``base``, the source's state
 *  (source.js stateFromHead): its options, row, mask and changed cells. Returns {state,
 *  problem} as fromHash does, ``state`` being ``base`` when the fragment does not fit it. */
export function fromSourceHash(hash, base) {
  const params = readFragment(hash);
  try {
    let state = { ...base };
    for (const { key, prop = key, codec } of properties(base)) {
      if ((OPTIONS.includes(prop) || key === "row" || key === "causal") && params.has(key)) {
        state[prop] = CODECS[codec].decode(valueOf(params, key));
      }
    }
    const changed = params.has("cells") ? valueOf(params, "cells") : "";
    const cells = changed === "" ? [] : changed.split(",").map((c) => {
      const m = /^(tokens|X|[Wb]_[QKV]):(\d{1,4}):(\d{1,4}):(.*)$/s.exec(c);
      if (!m) throw new Error(`“${c.slice(0, 40)}” is not a changed cell like W_Q:3:5:0.25`);
      return [m[1], Number(m[2]), Number(m[3]), decodeURIComponent(m[4])];
    });
    state = withCells(state, cells);
    checkShapes(state);
    return { state, problem: null };
  } catch (err) {
    return { state: base, problem: `The link's changes could not be read (${err.message}); showing the model's head as it is.` };
  }
}

/** Read a state from a fragment. Properties that are absent come from ``fallback``.
 *  Returns {state, problem}: on a URL that cannot be read or does not fit together,
 *  ``state`` is ``fallback`` and ``problem`` says why. */
export function fromHash(hash, fallback) {
  const params = readFragment(hash);
  const state = { ...fallback };
  try {
    const heads = params.has("heads") ? wholeNumber(valueOf(params, "heads")) : fallback.heads;
    if (heads < 1 || heads > limits.heads) throw new Error(`${heads} heads; there may be 1 to ${limits.heads}`);
    // A link with heads but no kv_heads (from before key/value heads) gives each head its own.
    const kvHeads = params.has("kv_heads") ? wholeNumber(valueOf(params, "kv_heads"))
      : params.has("heads") ? heads : fallback.kvHeads;
    const biases = params.has("biases") ? valueOf(params, "biases") === "1" : fallback.biases;
    for (const { key, prop = key, codec } of properties({ heads, kvHeads, biases })) {
      if (params.has(key)) state[prop] = CODECS[codec].decode(valueOf(params, key));
    }
    state.kvHeads = kvHeads;
    const keep = new Set(properties({ heads, kvHeads, biases }).map(({ key, prop = key }) => prop));
    for (const key of Object.keys(state)) if (/^(W_[QKVO]|b_[QKV])/.test(key) && !keep.has(key)) delete state[key];
    checkShapes(state);
  } catch (err) {
    return { state: fallback, problem: `The link could not be read (${err.message}); showing the default example.` };
  }
  return { state, problem: null };
}

// An edit's URL is written once the edit's frame has painted (while the request is at the
// server), and at once when the page is hidden or left, before a link is copied, or for
// an import (history.js). Not in the edit's own event: there, at 3 tokens, the browser's
// history entry took 1–4 ms of the task before the frame that paints the keystroke, and so
// before the answer could be drawn (benchmarks/bench_browser.py). It does not wait for
// the answer: a reload takes the URL it loads before the page hears of it (neither
// beforeunload nor pagehide can change it, measured in chromium), so only a reload within
// that one frame loses the edit, not one while the answer is awaited. (toHash itself,
// measured in node, one cell changed per call, median of 30: 3 tokens 0.03 ms; 256 × 64
// with 4 heads, 82,000 cells, 13 ms.)
export const writtenAtOnce = () => false;

