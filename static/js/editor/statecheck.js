// Whether a state's parts agree: the shapes of its matrices, its heads and key/value heads,
// its options, its limits. A state made by the page's transitions always does; one read
// from a hand-edited link or an imported configuration is checked here (url.js,
// request.js). Pure, unit-tested.

import { limits } from "../lib/config.js";
import { count } from "../lib/words.js";
import { biasesOf, headKeys, inputsOf, POSITIONS, shapes } from "./state.js";

/** Throw an Error saying what does not fit when a state's parts disagree (a hand-edited link). */
export function checkShapes(state) {
  if ((state.X_kv === null) !== (state.tokens_kv === null)) throw new Error("X_kv and tokens_kv go together");
  if (!(state.head >= 0 && state.head < state.heads)) throw new Error(`head ${state.head + 1} of ${state.heads}`);
  checkOptions(state);
  for (const name of inputsOf(state)) {
    if (!state[name]) throw new Error(`${name} is missing`);
    const m = state[name];
    if (!Array.isArray(m) || m.length === 0 || m.some((r) => r.length !== m[0].length)) {
      throw new Error(`${name} is not a rectangular matrix`);
    }
  }
  const { n, m, d_model } = shapes(state);
  if (state.tokens.length !== n) throw new Error(`${count(state.tokens.length, "label")} for ${count(n, "row")} of X`);
  if (state.X_kv) {
    if (state.X_kv[0].length !== d_model) throw new Error(`X_kv has ${count(state.X_kv[0].length, "column")}, X has ${d_model}`);
    if (state.tokens_kv.length !== m) throw new Error(`${count(state.tokens_kv.length, "label")} for ${count(m, "row")} of X_kv`);
  }
  checkHeads(state);
  if (Math.max(n, m) > limits.tokens || d_model > limits.model_dim || Math.max(shapes(state).d_k, shapes(state).d_v) > limits.dim) {
    throw new Error("too large");
  }
  if (state.row !== null && state.row >= n) state.row = null;
  if (state.blocked.some(([i, j]) => i >= n || j >= m)) throw new Error("a masked cell is outside the matrix");
}

/** The positions, the key/value heads, the ALiBi slopes, the window and the sinks: of a
 *  kind the page knows (their text is the server's to judge). */
function checkOptions(state) {
  if (!POSITIONS.includes(state.positional)) {
    throw new Error(`“${state.positional}” is not a kind of positions (none, sinusoidal, rope or alibi)`);
  }
  const { heads: h, kvHeads: g } = state;
  if (!(Number.isInteger(g) && g >= 1 && g <= h && h % g === 0)) {
    throw new Error(`${count(g, "key/value head")} for ${count(h, "head")}: they must divide them`);
  }
  if (state.alibi !== "" && !(Array.isArray(state.alibi) && state.alibi.length === h)) {
    throw new Error(`${Array.isArray(state.alibi) ? count(state.alibi.length, "ALiBi slope") : "no ALiBi slopes"} for ${count(h, "head")}`);
  }
  for (const key of ["rope_base", "offset", "window", "sinks"]) {
    if (typeof state[key] !== "string") throw new Error(`${key} is missing`);
  }
}

/** Each head's projections (and biases) against X and head 1's d_k and d_v, and W_O. */
function checkHeads(state) {
  const { d_model, d_k, d_v } = shapes(state);
  const width = (name, want) => {
    if (state[name][0].length !== want) throw new Error(`${name} must be ${want} wide`);
  };
  for (let k = 0; k < state.heads; k++) {
    const [q, key, v] = headKeys(k);
    const own = k < state.kvHeads ? [q, key, v] : [q];
    for (const name of own) {
      if (state[name].length !== d_model) throw new Error(`${name} has ${count(state[name].length, "row")}, X has ${count(d_model, "column")}`);
      width(name, name === v ? d_v : d_k);
    }
  }
  for (const name of biasesOf(state)) {
    if (state[name].length !== 1) throw new Error(`${name} must be one row`);
    width(name, name.startsWith("b_V") ? d_v : d_k);
  }
  if (state.heads > 1 && (state.W_O.length !== state.heads * d_v || state.W_O[0].length !== d_model)) {
    throw new Error(`W_O must be ${state.heads * d_v} × ${d_model}`);
  }
}
