// The transitions of the heads: adding and removing one, sharing key/value heads among
// them (grouped-query attention), their bias rows and their ALiBi slopes. Pure functions on
// the state of state.js, unit-tested.

import { limits } from "../../lib/config.js";
import { allBiasKeys, biasKeys, blocks, draw, grouped, headKeys, resizeMatrix, rng, shapes } from "../state.js";

/** The divisors of h, ascending: the key/value head counts h query heads can share. */
export function divisors(h) {
  return Array.from({ length: h }, (_, k) => k + 1).filter((d) => h % d === 0);
}

/** The key/value heads once the heads go from h to h2, with g of them before. Each head
 *  with its own (g = h) stays so (h2). Heads that share keep the largest divisor of h2 not
 *  above g: they share at least as much as before, so a head added or removed never makes
 *  the key/value cache larger, and multi-query attention (g = 1) stays multi-query. */
export function kvHeadsAfter(h, g, h2) {
  return g === h ? h2 : Math.max(...divisors(h2).filter((d) => d <= g));
}

/** The ALiBi paper's slopes for h heads (Press et al., 2022, and their code): for h a power
 *  of two m_k = 2^(−8(k+1)/h); otherwise those of the power of two p below h, then every
 *  other slope of 2p's, as many as are missing. 1 → [2^−8]; 4 → [1/4, 1/16, 1/64, 1/256]. */
export function paperSlopes(h) {
  const powerOfTwo = (n) => Array.from({ length: n }, (_, k) => 2 ** (-8 * (k + 1) / n));
  const p = 2 ** Math.floor(Math.log2(h));
  if (p === h) return powerOfTwo(h);
  return [...powerOfTwo(p), ...powerOfTwo(2 * p).filter((_, k) => k % 2 === 0).slice(0, h - p)];
}

const zeros = (n) => [Array(n).fill("0")];

/** Only the first g key/value heads: the others' W_K, W_V and biases go. */
function keepKvHeads(state, g) {
  const out = { ...state, kvHeads: g };
  for (let k = g; k < state.kvHeads; k++) {
    for (const name of [...headKeys(k).slice(1), ...biasKeys(k).slice(1)]) delete out[name];
  }
  return out;
}

/** ``h`` heads (kept within 1 and the limit): heads added at the end or removed from it,
 *  as "Increase heads" and "Decrease heads" do, and the key/value heads kvHeadsAfter keeps,
 *  chosen once from the count before and after (4 heads sharing 2 typed up to 6 still
 *  share 2, where stepping through 5 would have left 1). */
export function setHeadCount(state, h) {
  const want = Math.max(1, Math.min(limits.heads, h));
  let out = state;
  while (out.heads < want) out = grown(out);
  while (out.heads > want) out = shrunk(out);
  return out === state ? state : keepKvHeads(out, kvHeadsAfter(state.heads, state.kvHeads, want));
}

export const addHead = (state) => setHeadCount(state, state.heads + 1);
export const removeHead = (state) => setHeadCount(state, state.heads - 1);

/** One more head, its projections drawn from the seed (only W_Q while key/value heads are
 *  shared: it reads one of theirs), its biases 0, its ALiBi slope the paper's for its place;
 *  W_O grows by its block of rows. Shared key/value heads are left for setHeadCount. */
function grown(state) {
  const { d_model, d_k, d_v } = shapes(state);
  const h = state.heads + 1;
  const next = rng(state.seed * 7907 + h);
  const drawn = (rows, cols) => Array.from({ length: rows }, () => Array.from({ length: cols }, () => draw(next)));
  const [q, key, v] = headKeys(h - 1);
  const [bq, bk, bv] = biasKeys(h - 1);
  const W_O = state.heads > 1 ? state.W_O : [];
  const out = {
    ...state, heads: h, head: h - 1, [q]: drawn(d_model, d_k),
    W_O: resizeMatrix(W_O.length ? W_O : [[]], h * d_v, d_model, blocks(d_v), W_O.length),
  };
  const own = !grouped(state);
  if (own) Object.assign(out, { [key]: drawn(d_model, d_k), [v]: drawn(d_model, d_v), kvHeads: h });
  if (state.biases) Object.assign(out, { [bq]: zeros(d_k) }, own ? { [bk]: zeros(d_k), [bv]: zeros(d_v) } : {});
  if (state.alibi !== "") out.alibi = [...state.alibi, String(paperSlopes(h)[h - 1])];
  return out;
}

/** The last head goes, with its block of W_O, its biases and its slope (and its W_K, W_V
 *  when it has its own); one head left has no W_O. */
function shrunk(state) {
  const { d_model, d_v } = shapes(state);
  const h = state.heads - 1;
  const out = { ...state, heads: h, head: Math.min(state.head, h - 1) };
  for (const name of [...headKeys(h), ...biasKeys(h)]) delete out[name];
  if (!grouped(state)) out.kvHeads = h;
  if (h === 1) delete out.W_O;
  else out.W_O = resizeMatrix(state.W_O, h * d_v, d_model, blocks(d_v));
  if (state.alibi !== "") out.alibi = state.alibi.slice(0, h);
  return out;
}

/** ``g`` key/value heads, g a divisor of the heads (else the state as it is). Key/value
 *  head t starts as a copy of the one its first query head (t·h/g) read until now: when the
 *  heads share less, the answer does not change (grouped-query attention is multi-head
 *  attention with K and V repeated); when they share more, each group keeps its first
 *  query head's keys and values. */
export function setKvHeads(state, g) {
  const { heads: h, kvHeads: before } = state;
  if (g === before || !(Number.isInteger(g) && g >= 1 && h % g === 0)) return state;
  const copies = {};
  for (let t = 0; t < g; t++) {
    const from = Math.floor((t * before) / g);
    const source = [...headKeys(from).slice(1), ...(state.biases ? biasKeys(from).slice(1) : [])];
    const target = [...headKeys(t).slice(1), ...(state.biases ? biasKeys(t).slice(1) : [])];
    target.forEach((name, k) => { copies[name] = state[source[k]]; });
  }
  return { ...keepKvHeads(state, Math.min(g, before)), ...copies, kvHeads: g };
}

/** Biases on (rows of zeros, d_k wide for b_Q and b_K, d_v for b_V: nothing changes until
 *  one is edited) or off (the rows go). */
export function setBiases(state, on) {
  if (on === state.biases) return state;
  const { d_k, d_v } = shapes(state);
  const out = { ...state, biases: on };
  for (const name of allBiasKeys(state.heads, state.kvHeads)) {
    if (on) out[name] = zeros(name.startsWith("b_V") ? d_v : d_k);
    else delete out[name];
  }
  return out;
}

/** The paper's ALiBi slopes (``paper``), or slopes of one's own, starting from the paper's
 *  so that nothing changes until one is edited. */
export function setPaperSlopes(state, paper) {
  if (paper === (state.alibi === "")) return state;
  return { ...state, alibi: paper ? "" : paperSlopes(state.heads).map(String) };
}

/** Head k's ALiBi slope as typed. */
export function setSlope(state, k, text) {
  const alibi = [...state.alibi];
  alibi[k] = text;
  return { ...state, alibi };
}
