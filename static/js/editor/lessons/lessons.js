// The lessons shown beside the numbers, as facts: which lessons a request calls for, the
// side requests that make their comparisons, and the numbers and sentences each shows.
// Pure functions (lessonviews.js draws them, lessonpanel.js fetches): every sentence is
// built from the numbers beside it, so it can only say what they show.
//
// Sentences are prose for tex.js (maths between $…$); vectors and rows are numbers.

import { formatNumber, superscript } from "../../lib/format.js";

/** The lessons ``request`` (the page's POST /api/attention body) calls for, in the
 *  order of the maths: biases, RoPE, ALiBi, grouped-query heads, window and sinks. */
export function lessonKinds(request) {
  const heads = request.heads ?? [request];
  const kinds = [];
  if (heads.some(hasBias) || (request.kv_heads ?? []).some(hasBias)) kinds.push("bias");
  if (request.positional === "rope") kinds.push("rope");
  if (request.positional === "alibi") kinds.push("alibi");
  if (request.kv_heads) kinds.push("gqa");
  if (request.window !== undefined && request.window !== null) kinds.push("window");
  return kinds;
}

const hasBias = (h) => ["b_Q", "b_K", "b_V"].some((b) => h[b] !== undefined && h[b] !== null);

/** The field names of head ``head`` in an answer to ``request``: "working.q", or
 *  "heads[1].working.q" in the multi-head form. */
const named = (request, head, names) => names.map((f) => (request.heads ? `heads[${head}].${f}` : f));

/** ``request`` with its positions replaced: "rope" or "sinusoidal" at ``offset``, or none
 *  (null); the options of the positions it had (θ, slopes) go with them. */
export function withPositions(request, positional, offset = 0) {
  const { positional: _, rope_base, position_offset, alibi_slopes, fields, encoding, ...rest } = request;  // eslint-disable-line no-unused-vars
  if (positional === null) return rest;
  return { ...rest, positional, ...(positional === "rope" && rope_base !== undefined ? { rope_base } : {}), position_offset: offset };
}

/** ``request`` with b_K taken out of every head (and key/value head). */
export function withoutKeyBias(request) {
  const strip = ({ b_K, ...h }) => h;  // eslint-disable-line no-unused-vars
  const { fields, encoding, ...rest } = request;  // eslint-disable-line no-unused-vars
  const out = strip(rest);
  if (rest.heads) out.heads = rest.heads.map(strip);
  if (rest.kv_heads) out.kv_heads = rest.kv_heads.map(strip);
  return out;
}

/** The two offsets the RoPE lesson compares: 0 and the view's own, or 0 and 1 when the
 *  view's is 0. ``shown`` is the one this view is at. */
export function ropeOffsets(request) {
  const offset = request.position_offset ?? 0;
  return { a: 0, b: offset > 0 ? offset : 1, shown: offset };
}

/** The side requests of a lesson, {name: request}, each asking only the few fields it
 *  shows of head ``head``; {} when the lesson needs none. */
export function sideRequests(kind, request, head) {
  const ask = (req, names) => ({ ...req, fields: named(request, head, names) });
  const scores = ["working.q", "working.dots"];
  if (kind === "rope") {
    const { a, b, shown } = ropeOffsets(request);
    return {
      rope: ask(withPositions(request, "rope", shown === a ? b : a), scores),
      sinA: ask(withPositions(request, "sinusoidal", a), scores),
      sinB: ask(withPositions(request, "sinusoidal", b), scores),
    };
  }
  if (kind === "bias" && (request.heads ?? [request]).concat(request.kv_heads ?? []).some((h) => h.b_K)) {
    return { noKeyBias: ask(withoutKeyBias(request), ["working.weights"]) };
  }
  if (kind === "alibi") return { plain: ask(withPositions(request, null), ["working.weights"]) };
  return {};
}

/** Two rows compared as the page prints them: {same: every number prints alike,
 *  maxDiff: the largest |x − y| of the exact numbers}. */
export function compareRows(x, y) {
  let maxDiff = 0;
  let same = x.length === y.length;
  x.forEach((v, k) => {
    maxDiff = Math.max(maxDiff, Math.abs(v - y[k]));
    if (formatNumber(v) !== formatNumber(y[k])) same = false;
  });
  return { same, maxDiff };
}

/** A small difference in words: "0", "4.441×10⁻¹⁶" (4 figures), "0.123". */
export function diffText(d) {
  if (d === 0) return "0";
  if (d >= 0.001) return formatNumber(d);
  const [mant, exp] = d.toExponential(3).split("e");
  return `${mant}×10${superscript(Number(exp))}`;
}

/** Float64's rounding can explain a difference this small beside numbers this large. */
const rounding = (d, row) => d <= 1e-9 * (1 + Math.max(...row.map(Math.abs)));

/** The RoPE lesson's verdicts: at offsets a and b, {q, dots} each, for RoPE and
 *  sinusoidal positions. Returns {rope, sinusoidal} sentences. */
export function ropeVerdicts(rope, sinusoidal, shift) {
  const m = rope.a.dots.length;
  const r = compareRows(rope.a.dots, rope.b.dots);
  const turned = compareRows(rope.a.q, rope.b.q).same ? "; $q_i$ prints the same too" : ", while $q_i$ has turned";
  const ropeWords = r.same
    ? `Shifting every position by ${shift} leaves ${m === 1 ? "the one score" : `all ${m} scores`} the same to the last digit shown${
      r.maxDiff === 0 ? " (exactly equal in float64)" : rounding(r.maxDiff, rope.a.dots) ? ` (they differ by at most ${diffText(r.maxDiff)}, float64's rounding)` : ` (they differ by at most ${diffText(r.maxDiff)})`}${turned}: a score depends only on $i - j$.`
    : `Shifting every position by ${shift} changes the scores by up to ${diffText(r.maxDiff)}.`;
  const s = compareRows(sinusoidal.a.dots, sinusoidal.b.dots);
  const sinWords = s.same
    ? `With sinusoidal positions the same shift leaves the scores the same to the digits shown here (they differ by at most ${diffText(s.maxDiff)}).`
    : `With sinusoidal positions the same shift changes the scores, by up to ${diffText(s.maxDiff)}: $PE$ is added to $x_i$ before $W_Q$ and $W_K$, so a score depends on where the tokens stand, not only on how far apart.`;
  return { rope: ropeWords, sinusoidal: sinWords };
}

/** What b_K adds to row i without RoPE: {qb: q_i·b_K, keys: [{j, plain: q_i·(x_j W_K),
 *  dot: q_i·k_j}]} from the working (q is the biased q_i, k_unbiased the x_j W_K). */
export function keyBiasShift(w) {
  const dot = (a, b) => a.reduce((sum, x, c) => sum + x * b[c], 0);
  return { qb: dot(w.q, w.b_K), keys: w.k_unbiased.map((k, j) => ({ j, plain: dot(w.q, k), dot: w.dots[j] })) };
}

/** The b_K verdict: the row's weights with b_K (the answer's) and without (the side
 *  request's), compared as printed. */
export function keyBiasVerdict(withBias, without, rope) {
  const c = compareRows(withBias, without);
  if (c.same) {
    const exact = c.maxDiff === 0 ? ", and equal in float64 too"
      : ` (the exact numbers differ by at most ${diffText(c.maxDiff)}${rounding(c.maxDiff, withBias) ? ", float64's rounding" : ""})`;
    return `Identical to every digit shown${exact}: `
      + (rope ? "here $b_K$ happens to change no weight that the page prints." : "adding one number to every score of a row changes no weight, since $e^{s + c} = e^c e^s$ and $e^c$ cancels in the division.");
  }
  return `They differ, by up to ${diffText(c.maxDiff)}${rope ? ": with RoPE, $b_K$ is turned with each key, by that key's angle, so it adds a different number to each score." : "."}`;
}

/** b_Q·k_j for each key (no RoPE): what b_Q adds to each score of row i, and whether that
 *  differs between the keys query i may read (then the weights change; scale ≠ 0). */
export function queryBiasShift(w, K) {
  const adds = K.map((k) => w.b_Q.reduce((sum, b, c) => sum + b * k[c], 0));
  const open = adds.filter((_, j) => w.allowed[j]);
  return { adds, differs: open.some((a) => a !== open[0]) && w.scale !== 0 };
}

/** z_i without b_V: the weighted sum of x_j W_V over the keys read, and whether b_V is
 *  added at all (not when query i reads no key: its weights are all 0). */
export function valueBiasSplit(w) {
  const d_v = w.b_V.length;
  const plain = Array.from({ length: d_v }, (_, c) => w.v_unbiased.reduce((sum, v, j) => sum + w.weights[j] * v[c], 0));
  return { plain, added: w.allowed.some(Boolean) };
}

/** The key/value cache per token per layer with H query heads and G key/value heads:
 *  {own, shared} as {formula, count}; 2·H·d_k when d_v = d_k, else H·(d_k + d_v). */
export function kvCache(H, G, d_k, d_v) {
  const count = (h) => h * (d_k + d_v);
  const formula = (sym, h) => (d_k === d_v ? `2 \\cdot ${sym} \\cdot d_k = 2 \\cdot ${h} \\cdot ${d_k}` : `${sym}\\,(d_k + d_v) = ${h} \\cdot (${d_k} + ${d_v})`);
  return { own: { formula: formula("H", H), count: count(H) }, shared: { formula: formula("G", G), count: count(G) } };
}

/** Which query heads read each key/value head: [[0, 1], [2, 3]] from the answer's
 *  per-head kv_head, or null when the answer does not hold them all. */
export function kvReaders(heads) {
  if (!heads.every((h) => Number.isInteger(h.kv_head))) return null;
  const groups = [];
  heads.forEach((h, k) => (groups[h.kv_head] ??= []).push(k));
  return groups;
}

/** The ALiBi lesson's rows for query ``row``: the keys it reads by distance, each
 *  {j, distance, bias, plain (weight without ALiBi), weight}. */
export function alibiRows(w, plain) {
  return w.weights.map((weight, j) => ({ j, distance: Math.abs(w.row - j), bias: w.bias[j], plain: plain[j], weight }))
    .filter(({ j }) => w.allowed[j])
    .sort((a, b) => a.distance - b.distance || a.j - b.j);
}

/** The ALiBi verdict from the rows as printed: which distances gain weight, which lose. */
export function alibiVerdict(rows, slope) {
  if (slope === 0) return "This head's slope is 0: no bias is added, and the weights are plain attention's.";
  if (rows.length < 2) return "This query reads one key at most: its weight is 1 (or 0) with or without the bias.";
  const printed = (x) => Number(formatNumber(x).replace("\u2212", "-"));
  const span = (rs) => {
    const ds = [...new Set(rs.map((r) => r.distance))];
    return ds.length === 1 ? `distance ${ds[0]}` : `distances ${ds[0]} to ${ds.at(-1)}`;
  };
  const gain = rows.filter((r) => printed(r.weight) > printed(r.plain));
  const lose = rows.filter((r) => printed(r.weight) < printed(r.plain));
  const parts = [gain.length ? `the keys at ${span(gain)} gain weight` : null, lose.length ? `the keys at ${span(lose)} lose it` : null].filter(Boolean);
  const change = parts.length ? `Against the same scores without the bias, ${parts.join(" and ")}` : "Against the same scores without the bias, no weight changes in the digits shown";
  return `${change}. Each weight is multiplied by $e^{-m\\,|i - j|}$ and the row divided again by its sum, so the farther the key, the smaller its factor: $X$ holds no position, the bias alone knows the distance.`;
}

/** The window lesson's counts over an n × m mask: {outside: cells with |i − j| ≥ w,
 *  open: those of them left open (by a sink), masked: cells masked in all}. */
export function bandCounts(mask, { window: w }) {
  let outside = 0;
  let open = 0;
  let masked = 0;
  mask.forEach((row, i) => row.forEach((allowed, j) => {
    if (!allowed) masked += 1;
    if (Math.abs(i - j) >= w) {
      outside += 1;
      if (allowed) open += 1;
    }
  }));
  return { outside, open, masked };
}
