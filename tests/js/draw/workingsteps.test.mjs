import { all, host, read } from "../fakedom.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import "../numberformat.mjs";
import { renderWorking } from "../../../static/js/draw/working.js";
import { keyList } from "../../../static/js/draw/workingsteps.js";

// A 3-token example worked by hand: query 3 (row 2), d_k = d_v = 2, self-attention, the
// causal mask, RoPE from position 0 (θ = 10000, so the one pair's frequency is
// θ^0 = 1), biases, a window of 2 and 1 sink.
//   x_3 W_Q = (0.5, 2), b_Q = (0.5, −1): q_3 = (1, 1) before rotation.
//   x_j W_K = (1, 0), (0, 1), (1, 1); b_K = (0, 1): k_j = (1, 1), (0, 2), (1, 2).
//   x_j W_V = (1, 0), (0, 1), (1, 1); b_V = (1, 0): v_j = (2, 0), (1, 1), (2, 1).
// Rotation by the angle p (cos 1 = 0.540302, sin 1 = 0.841471, cos 2 = −0.416147,
// sin 2 = 0.909297):
//   q_3 at p = 2: (1·cos 2 − 1·sin 2, 1·sin 2 + 1·cos 2) = (−1.325444, 0.493151)
//   k_1 at p = 0: (1, 1); k_2 at p = 1: (−2 sin 1, 2 cos 1) = (−1.682942, 1.080605);
//   k_3 at p = 2: (cos 2 − 2 sin 2, sin 2 + 2 cos 2) = (−2.234742, 0.077004)
// Dot products: q·k_1 = −1.325444 + 0.493151 = −0.832294; q·k_2 = 2.230530 + 0.533017
// = 2.763547; q·k_3 = 3 (both turned by 2: q_3·k_3 before rotation, (1, 1)·(1, 2)).
// Window 2: |3 − j| < 2 for keys 2, 3; key 1 is the sink, so all three are readable.
// Scaled by 1/√2: −0.588521, 1.954123, 2.121320; e^s: 0.555148, 7.057723, 8.342145, sum
// 15.955016; weights 0.034795, 0.442351, 0.522854; z = Σ a_j v_j = (1.557649, 0.965205).
const ROPE_BIAS_WINDOW = {
  row: 2, token: "sat",
  q: [-1.325444263372824, 0.4931505902785393],
  dots: [-0.8322936730942847, 2.763546581352072, 3],
  scale: 1 / Math.SQRT2,
  scaled: [-0.5885205001836282, 1.954122527798951, 2.1213203435596424],
  allowed: [true, true, true],
  exp: [0.5551480188387498, 7.057723349790796, 8.342144716476795], exp_sum: 15.95501608510634,
  exp_overflow: false, shift: 2.1213203435596424,
  exp_shifted: [0.066548, 0.846036, 1], exp_shifted_sum: 1.912584,
  weights: [0.03479457594260706, 0.44235137790798135, 0.5228540461494117],
  z: [1.5576486220920187, 0.9652054240573931],
  q_unbiased: [0.5, 2], b_Q: [0.5, -1],
  k_unbiased: [[1, 0], [0, 1], [1, 1]], b_K: [0, 1],
  v_unbiased: [[1, 0], [0, 1], [1, 1]], b_V: [1, 0],
  q_unrotated: [1, 1], k_unrotated: [[1, 1], [0, 2], [1, 2]],
  position: 2, positions_k: [0, 1, 2], frequencies: [1], angles: [2], angles_k: [[0], [1], [2]],
  window: 2, in_window: [false, true, true], sinks: 1, sink: [true, false, false],
};
const K = [[1, 1], [-1.682941969615793, 1.0806046117362795], [-2.234741690198506, 0.0770037537313969]];
const V = [[2, 0], [1, 1], [2, 1]];
const TOKENS = ["the", "cat", "sat"];

function draw(working, extra = {}) {
  const out = host();
  renderWorking(out, { working, tokens: TOKENS, d_k: 2, K, V, causal: true, ...extra });
  return out;
}
const steps = (out) => all(out, "section").map((s) => ({ key: s.getAttribute("data-step"), title: read(all(s, "h3")[0]), lines: all(s, "li").map(read) }));

test("the new steps come in the order of the maths, numbered with the existing ones", () => {
  const got = steps(draw(ROPE_BIAS_WINDOW, { ropeBase: 10000 }));
  assert.deepEqual(got.map((s) => s.key), ["bias", "rope", "dots", "reach", "softmax", "output"]);
  assert.deepEqual(got.map((s) => s.title), [
    "1 · Add the biases b_Q, b_K, b_V",
    "2 · Rotate q_i and each k_j by its position (RoPE, θ = 10000)",
    "3 · Dot products with each key",
    "4 · Which keys query 3 may read — window w = 2, 1 sink",
    "5 · Divide by √d_k = 1.414 (d_k = 2), then softmax",
    "6 · Output: z is the weighted sum of the values",
  ]);
});

test("folded, as the real-model view asks: the chapter's steps first, then what the model adds under its reason", () => {
  const out = draw(ROPE_BIAS_WINDOW, { ropeBase: 10000, fold: true });
  const [title, ...parts] = out.children;
  assert.match(read(title), /^Query 3 · “sat” reads every key\.$/);
  assert.deepEqual(parts.map((p) => p.nodeName), ["SECTION", "SECTION", "SECTION", "SECTION", "DETAILS"]);
  assert.deepEqual(parts.slice(0, 4).map((p) => read(all(p, "h3")[0])), [
    "1 · Dot products with each key",
    "2 · Which keys query 3 may read — window w = 2, 1 sink",
    "3 · Divide by √d_k = 1.414 (d_k = 2), then softmax",
    "4 · Output: z is the weighted sum of the values",
  ]);
  const fold = parts[4];
  assert.equal(fold.hasAttribute("open"), false, "folded unless asked open");
  const [summary, ...folded] = fold.children;
  assert.equal(read(summary), "Beyond the chapter, and already in the numbers above: each projection adds a learned bias, "
    + "b_Q, b_K and b_V, as linear layers usually do, and q_i and k_j are turned by their positions (RoPE), so that the "
    + "scores depend on where the tokens stand.");
  assert.deepEqual(folded.map((f) => [f.getAttribute("data-step"), read(all(f, "h3")[0])]), [
    ["bias", "Add the biases b_Q, b_K, b_V"], ["rope", "Rotate q_i and each k_j by its position (RoPE, θ = 10000)"]]);
  assert.equal(draw(ROPE_BIAS_WINDOW, { fold: true, open: true }).children.at(-1).hasAttribute("open"), true);
  // A shared key/value head is named with the query heads that share it.
  const kv = { head: 4, kvHead: 1, kvHeads: 3, readers: [3, 4, 5] };
  const shared = draw({ ...ROPE_BIAS_WINDOW, b_Q: undefined, b_K: undefined, b_V: undefined }, { kv, fold: true });
  assert.equal(read(all(shared.children.at(-1), "summary")[0]), "Beyond the chapter, and already in the numbers above: "
    + "query heads 4, 5 and 6 share one key/value head, to save memory, and q_i and k_j are turned by their positions "
    + "(RoPE), so that the scores depend on where the tokens stand.");
  // Nothing beyond the chapter: nothing folded, the steps as ever.
  const plain = draw({ ...ROPE_BIAS_WINDOW, b_Q: undefined, b_K: undefined, b_V: undefined, angles: undefined,
    window: undefined, sinks: 0 }, { fold: true });
  assert.deepEqual(steps(plain).map((s) => s.key), ["dots", "softmax", "output"]);
  assert.equal(all(plain, "details").length, 0);
});

test("the biases: q_3 = x_3 W_Q + b_Q, and each k_j and v_j, with the real numbers", () => {
  const [bias] = steps(draw(ROPE_BIAS_WINDOW));
  assert.deepEqual(bias.lines, [
    // x_i·W and the sums are computed: 3 decimals; a bias is typed, its whole numbers short
    // unless one of them needs decimals (b_Q = (0.5, −1)).
    "$q_{3} = x_{3}W_Q + b_Q = (0.500,\\allowbreak 2.000) + (0.500,\\allowbreak -1.000) = (1.000,\\allowbreak 1.000)$",
    // k_j before rotation: the working's k_unrotated (the answer's K is rotated)
    "$k_{1} = x_{1}W_K + b_K = (1.000,\\allowbreak 0.000) + (0,\\allowbreak 1) = (1.000,\\allowbreak 1.000)$  the",
    "$k_{2} = x_{2}W_K + b_K = (0.000,\\allowbreak 1.000) + (0,\\allowbreak 1) = (0.000,\\allowbreak 2.000)$  cat",
    "$k_{3} = x_{3}W_K + b_K = (1.000,\\allowbreak 1.000) + (0,\\allowbreak 1) = (1.000,\\allowbreak 2.000)$  sat",
    "$v_{1} = x_{1}W_V + b_V = (1.000,\\allowbreak 0.000) + (1,\\allowbreak 0) = (2.000,\\allowbreak 0.000)$  the",
    "$v_{2} = x_{2}W_V + b_V = (0.000,\\allowbreak 1.000) + (1,\\allowbreak 0) = (1.000,\\allowbreak 1.000)$  cat",
    "$v_{3} = x_{3}W_V + b_V = (1.000,\\allowbreak 1.000) + (1,\\allowbreak 0) = (2.000,\\allowbreak 1.000)$  sat",
  ]);
  // With sinusoidal positions the projections multiply x_i + PE_i.
  const { b_Q, q_unbiased, row, token, dots, scale, scaled, allowed, exp, exp_sum, exp_overflow, shift,
    exp_shifted, exp_shifted_sum, weights, z } = ROPE_BIAS_WINDOW;
  // Without RoPE q_3 is (1, 1) as it is; the other numbers do not enter this step.
  const sin = steps(draw({ b_Q, q_unbiased, row, token, q: [1, 1], dots, scale, scaled, allowed, exp, exp_sum,
    exp_overflow, shift, exp_shifted, exp_shifted_sum, weights, z }, { positional: "sinusoidal" }));
  assert.equal(sin[0].title, "1 · Add the bias b_Q");
  assert.deepEqual(sin[0].lines, ["$q_{3} = (x_{3} + PE_{3})W_Q + b_Q = (0.500,\\allowbreak 2.000) + (0.500,\\allowbreak -1.000) = (1.000,\\allowbreak 1.000)$"]);
});

test("the rotation: the position, each pair's angle, the turned q_3 and every k_j", () => {
  const rope = steps(draw(ROPE_BIAS_WINDOW, { ropeBase: 10000 }))[1];
  assert.deepEqual(rope.lines, [
    // It starts from q_3 as made, before the turn (with "how q_3 and k_j are made").
    "$q_{3} = x_{3}W_Q + b_Q = (1.000,\\allowbreak 1.000)$",
    "$\\omega_c = \\theta^{-2c/2} = (1)$  c = 0",
    // ω is a rate (4 significant figures); the angles, cosines and turned vectors are
    // computed: 3 decimals, the positions p whole.
    "$\\alpha_c = p\\,\\omega_c = 2 \\cdot (1) = (2.000)$",
    "$\\cos 2.000 = -0.416,\\ \\sin 2.000 = 0.909$  pair c = 0",
    "$(1.000, 1.000) \\mapsto (1.000 \\cdot (-0.416) - 1.000 \\cdot 0.909,\\ 1.000 \\cdot 0.909 + 1.000 \\cdot (-0.416)) = (-1.325, 0.493)$",
    "$q_{3} = (-1.325,\\allowbreak 0.493)$  rotated",
    "$k_{1}:\\ p = 0,\\ \\alpha = (0.000),\\ (1.000,\\allowbreak 1.000) \\mapsto (1.000,\\allowbreak 1.000)$  the",
    "$k_{2}:\\ p = 1,\\ \\alpha = (1.000),\\ (0.000,\\allowbreak 2.000) \\mapsto (-1.683,\\allowbreak 1.081)$  cat",
    "$k_{3}:\\ p = 2,\\ \\alpha = (2.000),\\ (1.000,\\allowbreak 2.000) \\mapsto (-2.235,\\allowbreak 0.077)$  sat",
  ]);
  const note = read(all(draw(ROPE_BIAS_WINDOW, { offset: 5 }), "section")[1].children[2]);
  assert.match(note, /^Positions count from the offset 5: query 3 stands at \$p = 2\$\./);
});

test("the window and the sink: which keys query 3 may read, and why", () => {
  const reach = steps(draw(ROPE_BIAS_WINDOW)).find((s) => s.key === "reach");
  assert.deepEqual(reach.lines, [
    "$|3 - j| < 2$ in the window: keys 2 and 3.",
    "$j \\le 1$ the sink, readable from every query: key 1.",
    "So query 3 reads keys 1 to 3: 3 of 3.",
  ]);
  // Query 1 of the same example: in the window are keys 1 and 2; key 2 comes after it.
  const first = { ...ROPE_BIAS_WINDOW, row: 0, in_window: [true, true, false], allowed: [true, false, false] };
  assert.deepEqual(steps(draw(first)).find((s) => s.key === "reach").lines, [
    "$|1 - j| < 2$ in the window: keys 1 and 2.",
    "$j \\le 1$ the sink, readable from every query: key 1.",
    "Outside the window and not a sink, so masked: key 3.",
    "$j > 1$ masked by the causal mask: key 2.",
    "So query 1 reads key 1: 1 of 3.",
  ]);
});

// ALiBi with a slope of 0.5 and a custom scale of 0.5, query 3 of 3 tokens, head 2 of 4
// reading key/value head 1 of 2 (query heads 1 and 2 share it):
//   dots (1, 2, 0); × 0.5 = (0.5, 1, 0); bias −0.5·|3 − j| = (−1, −0.5, 0);
//   s = (−0.5, 0.5, 0); e^s = (0.606531, 1.648721, 1), sum 3.255252;
//   weights (0.186324, 0.506480, 0.307196).
const ALIBI = {
  row: 2, token: "sat", q: [1, 0], dots: [1, 2, 0], scale: 0.5, scaled: [-0.5, 0.5, 0], allowed: [true, true, true],
  exp: [0.6065306597126334, 1.6487212707001282, 1], exp_sum: 3.2552519304127614, exp_overflow: false, shift: 0.5,
  exp_shifted: [0.36787944117144233, 1, 0.6065306597126334], exp_shifted_sum: 1.9744101008840758,
  weights: [0.18632372, 0.50648039, 0.30719589], z: [1, 1],
  bias: [-1, -0.5, 0], alibi_slope: 0.5,
};

test("ALiBi: the scaled score, the bias −m·|i − j| and s in columns of the softmax table", () => {
  const out = draw(ALIBI, { kv: { head: 1, kvHead: 0, kvHeads: 2, readers: [0, 1] } });
  const got = steps(out);
  assert.deepEqual(got.map((s) => s.key), ["kv-head", "dots", "softmax", "output"]);
  assert.equal(got[0].title, "1 · Keys and values from key/value head 1 of 2");
  assert.equal(got[0].lines[0], "Query head 2 has its own W_Q, so q_i is its own. Its k_j and v_j are key/value head 1's, made with that head's W_K and W_V; query heads 1 and 2 share it.");
  assert.equal(got[2].title, "3 · Multiply by the scale 0.500, instead of 1/√d_k = 0.707, add the ALiBi bias, then softmax");
  const table = all(out, "table")[0];
  assert.deepEqual(all(table, "th").slice(0, 7).map(read),
    ["key j", "$q_{3} \\cdot k_j$", "${}\\times 0.500$", "${{}- m}\\allowbreak{\\,|3 - j|}$", "${}= s_{3,j}$", "$e^{s}$", "${{}\\div 3.255} = a_{3,j}$"]);
  assert.deepEqual(all(table, "tr").slice(1).map((tr) => all(tr, "td").map(read)), [
    ["1.000", "0.500", "−1.000", "−0.500", "0.6065", "0.186"],
    ["2.000", "1.000", "−0.500", "0.500", "1.649", "0.506"],
    ["0.000", "0.000", "0.000", "0.000", "1.000", "0.307"],
  ]);
  assert.match(read(all(out, "section")[2].children[1]), /with this head's slope \$m = 0\.5\$/);
});

// The same row without ALiBi: s = (0.5, 1, 0); e^s = (1.648721, 2.718282, 1), sum
// 5.367003; weights (0.307196, 0.506480, 0.186324).
const PLAIN = {
  ...ALIBI, scaled: [0.5, 1, 0], exp: [1.6487212707001282, 2.718281828459045, 1], exp_sum: 5.367003099159173, shift: 1,
  exp_shifted: [0.6065306597126334, 1, 0.36787944117144233], exp_shifted_sum: 1.9744101008840758,
  weights: [0.30719589, 0.50648039, 0.18632372], bias: undefined, alibi_slope: undefined,
};

test("a plain working is drawn as before: three steps, four columns of numbers", () => {
  const out = draw(PLAIN);
  assert.deepEqual(steps(out).map((s) => s.title), ["1 · Dot products with each key",
    "2 · Multiply by the scale 0.500, instead of 1/√d_k = 0.707, then softmax", "3 · Output: z is the weighted sum of the values"]);
  assert.deepEqual(all(all(out, "table")[0], "tr")[1].childNodes.slice(1).map(read), ["1.000", "0.500", "1.649", "0.307"]);
});

test("keys are listed in runs", () => {
  assert.equal(keyList([0]), "key 1");
  assert.equal(keyList([1, 2]), "keys 2 and 3");
  assert.equal(keyList([0, 1, 2, 4, 6]), "keys 1 to 3, 5 and 7");
});

test("the rotation's pairs are numbered in full when there are two: c = 0, 1", async () => {
  const { rotationStep } = await import("../../../static/js/draw/workingsteps.js");
  // d_k = 4 at position 0: ω = (1, 0.01), every angle 0, so q and k stay as they are.
  const w = { q: [1, 0, 0, 1], q_unrotated: [1, 0, 0, 1], position: 0, frequencies: [1, 0.01], angles: [0, 0],
    positions_k: [0], angles_k: [[0, 0]], k_unrotated: [[1, 1, 1, 1]] };
  const { items } = rotationStep(w, 1, [0], ["the"], { K: [[1, 1, 1, 1]], base: 10000, offset: 0 });
  assert.equal(all(items[1], "li").map(read)[0], "$\\omega_c = \\theta^{-2c/4} = (1,\\allowbreak 0.01)$  c = 0, 1");
});
