// The row working's steps for the attention of today's models, each drawn only when the
// answer's ``working`` holds its fields: the key/value head a query head reads, the
// biases added to q_i, k_j and v_j, the rotation of q_i and k_j by their positions
// (RoPE), and which keys a sliding window and its sinks leave readable. Each returns
// {title, key, items} for working.js, which numbers the steps in the order of the maths.

import { el } from "../lib/dom.js";
import { math, prose } from "./tex.js";
import { texNumber } from "../lib/format.js";
import { keptIndices, line, texFactor, texInputs, texRate, texVector, wordsLine } from "./workingtex.js";
import { andList, numbered } from "../lib/words.js";

/** "key 1", "keys 2 and 4", "keys 1 to 3, 5 and 7" for 0-based key indices, in order. */
export function keyList(indices) {
  const runs = [];
  for (const j of indices) {
    const last = runs.at(-1);
    if (last && j === last[1] + 1) last[1] = j;
    else runs.push([j, j]);
  }
  const parts = runs.flatMap(([a, b]) => (b - a >= 2 ? [`${a + 1} to ${b + 1}`] : b > a ? [String(a + 1), String(b + 1)] : [String(a + 1)]));
  const words = parts.length > 1 ? `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}` : parts[0];
  return `${indices.length === 1 ? "key" : "keys"} ${words}`;
}

/** "heads 3 and 4" for 0-based head indices. */
const headList = (hs) => `${hs.length === 1 ? "head" : "heads"} ${andList(hs.map((h) => h + 1))}`;

/** Which key/value head the shown query head reads: {head, kvHead, kvHeads: G, readers:
 *  the query heads (0-based) that read the same one, or null when not known}. */
export function kvHeadStep({ head, kvHead, kvHeads, readers }) {
  const others = readers ? readers.filter((h) => h !== head) : [];
  const shared = !readers ? "" : others.length
    ? `; query ${headList(readers)} share it`
    : "; no other query head reads it";
  return {
    title: `Keys and values from key/value head ${kvHead + 1} of ${kvHeads}`, key: "kv-head",
    items: [el("ol", {},
      wordsLine(`Query head ${head + 1} has its own W_Q, so q_i is its own. Its k_j and v_j are key/value head ${kvHead + 1}'s, made with that head's W_K and W_V${shared}.`))],
  };
}

/** The one line over the steps a real model adds, folded under the chapter's (working.js
 *  with ``fold``): what each is and why it is there, in the order of the steps. ``w`` is
 *  the row's working, ``kv`` as kvHeadStep takes it (or null). */
export function beyondReason(w, kv) {
  const parts = [];
  if (kv) {
    parts.push(kv.readers && kv.readers.length > 1
      ? `query ${headList(kv.readers)} share one key/value head, to save memory`
      : `this query head reads key/value head ${kv.kvHead + 1} of ${kv.kvHeads}, which others share, to save memory`);
  }
  const biases = ["b_Q", "b_K", "b_V"].filter((b) => w[b]);
  if (biases.length) {
    parts.push(`${biases.length === 3 ? "each projection adds" : "the projections add"} a learned bias, ${andList(biases)}, as linear layers usually do`);
  }
  if (w.angles) parts.push("q_i and k_j are turned by their positions (RoPE), so that the scores depend on where the tokens stand");
  // Each part has commas of its own: the last is joined with ", and".
  const said = parts.length > 1 ? `${parts.slice(0, -1).join(", ")}, and ${parts.at(-1)}` : parts[0];
  return `Beyond the chapter, and already in the numbers above: ${said}.`;
}

/** The biases: q_i = x_i·W_Q + b_Q, and k_j, v_j likewise for the ``shown`` keys. ``xq``
 *  and ``xk`` are the TeX of the rows the projections multiply (x_i, or x_i + PE_i);
 *  K and V are the answer's (V holds b_V; K holds b_K, and with RoPE is rotated, so k_j
 *  before rotation is the working's k_unrotated). */
export function biasStep(w, i, shown, keys, { K, V, xq, xk }) {
  const names = ["b_Q", "b_K", "b_V"].filter((b) => w[b]);
  const items = [];
  if (w.b_Q) {
    items.push(line(`q_{${i}} = ${xq}W_Q + b_Q = ${texVector(w.q_unbiased)} + ${texInputs(w.b_Q)} = ${texVector(w.q_unrotated ?? w.q)}`));
  }
  const keyLines = (name, unbiased, b, biased, W) => shown.map((j) => line(
    `${name}_{${j + 1}} = ${xk(j)}${W} + b_${W.at(-1)} = ${texVector(unbiased[j])} + ${texInputs(b)} = ${texVector(biased(j))}`,
    keys[j], null, j));
  if (w.b_K) items.push(...keyLines("k", w.k_unbiased, w.b_K, (j) => (w.k_unrotated ?? K)[j], "W_K"));
  if (w.b_V) items.push(...keyLines("v", w.v_unbiased, w.b_V, (j) => V[j], "W_V"));
  return { title: `Add the bias${names.length > 1 ? "es" : ""} ${names.join(", ")}`, key: "bias", items: [el("ol", {}, ...items)] };
}

/** RoPE: each pair (x_2c, x_2c+1) of q_i and of every shown k_j turned by the angle
 *  p·θ^{−2c/d_k} of its position p; ``base`` is θ, ``offset`` the first position. */
export function rotationStep(w, i, shown, keys, { K, base, offset }) {
  const p = w.position;
  const pairs = w.frequencies.length;
  const d_k = 2 * pairs;
  const from = offset ? `from the offset ${offset}` : "from 0";
  const turn = (c) => {
    if (c === null) return line("\\cdots");
    const a = w.angles[c];
    const [x, y] = [w.q_unrotated[2 * c], w.q_unrotated[2 * c + 1]];
    const [cos, sin] = [Math.cos(a), Math.sin(a)];
    // Two lines a pair: its angle's cosine and sine, then the turn itself.
    return [line(`\\cos ${texNumber(a)} = ${texNumber(cos)},\\ \\sin ${texNumber(a)} = ${texNumber(sin)}`, `pair c = ${c}`),
      line(`(${texNumber(x)}, ${texNumber(y)}) \\mapsto (${texFactor(x)} \\cdot ${texFactor(cos)} - ${texFactor(y)} \\cdot ${texFactor(sin)},\\ `
        + `${texFactor(x)} \\cdot ${texFactor(sin)} + ${texFactor(y)} \\cdot ${texFactor(cos)}) = (${texNumber(w.q[2 * c])}, ${texNumber(w.q[2 * c + 1])})`)];
  };
  const keyLines = shown.map((j) => line(
    `k_{${j + 1}}:\\ p = ${w.positions_k[j]},\\ \\alpha = ${texVector(w.angles_k[j])},\\ ${texVector(w.k_unrotated[j])} \\mapsto ${texVector(K[j])}`,
    keys[j], null, j));
  return {
    title: `Rotate q_i and each k_j by its position (RoPE, θ = ${base})`, key: "rope",
    items: [
      el("p", { class: "note" }, ...prose(`Positions count ${from}: query ${i} stands at $p = ${p}$. Each pair of components $(2c, 2c + 1)$ turns by the angle $\\alpha_c = p\\,\\theta^{-2c/d_k}$; the turned $q_i$ and $k_j$ are what the dot products use.`)),
      el("ol", {},
        line(`\\omega_c = \\theta^{-2c/${d_k}} = ${texVector(w.frequencies, texRate)}`, `c = ${numbered("", pairs, 0)}`),
        line(`\\alpha_c = p\\,\\omega_c = ${p} \\cdot ${texVector(w.frequencies, texRate)} = ${texVector(w.angles)}`),
        ...keptIndices(pairs).flatMap(turn),
        line(`q_{${i}} = ${texVector(w.q)}`, "rotated"),
        ...keyLines),
    ],
  };
}

/** Which keys the window and the sinks leave readable, and what masks the rest; the
 *  verdict is the working's ``allowed`` (causal AND mask AND (window OR sink)). */
export function reachStep(w, i, causal) {
  const m = w.allowed.length;
  const all = [...Array(m).keys()];
  const inWindow = (j) => (w.in_window ? w.in_window[j] : true);
  const sink = (j) => Boolean(w.sink?.[j]);
  const reach = (j) => inWindow(j) || sink(j);
  const late = (j) => causal && j > i - 1;  // i is the query's number, 1-based
  const items = [];
  const phrase = (tex, words) => el("li", { class: "words" }, math(tex), ` ${words}`);
  if (w.window !== undefined) {
    const inside = all.filter(inWindow);
    items.push(phrase(`|${i} - j| < ${w.window}`, inside.length ? `in the window: ${keyList(inside)}.` : "for no key."));
  }
  if (w.sinks) {
    const sinks = all.filter(sink);
    items.push(phrase(`j \\le ${w.sinks}`, `the sink${sinks.length > 1 ? "s" : ""}, readable from every query: ${keyList(sinks)}.`));
    if (w.window === undefined) items.push(wordsLine("Without a window every key is in reach already, so the sinks change nothing."));
  }
  const out = all.filter((j) => !reach(j));
  if (out.length) items.push(wordsLine(`Outside the window and not a sink, so masked: ${keyList(out)}.`));
  const afterQuery = all.filter((j) => reach(j) && late(j));
  if (afterQuery.length) items.push(phrase(`j > ${i}`, `masked by the causal mask: ${keyList(afterQuery)}.`));
  const byHand = all.filter((j) => reach(j) && !late(j) && !w.allowed[j]);
  if (byHand.length) items.push(wordsLine(`Masked by hand: ${keyList(byHand)}.`));
  const readable = all.filter((j) => w.allowed[j]);
  items.push(wordsLine(readable.length ? `So query ${i} reads ${keyList(readable)}: ${readable.length} of ${m}.` : `So query ${i} reads no key.`));
  const title = [w.window !== undefined ? `window w = ${w.window}` : null, w.sinks ? `${w.sinks} sink${w.sinks > 1 ? "s" : ""}` : null].filter(Boolean).join(", ");
  return { title: `Which keys query ${i} may read — ${title}`, key: "reach", items: [el("ol", {}, ...items)] };
}
