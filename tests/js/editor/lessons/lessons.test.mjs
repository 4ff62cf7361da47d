import { all, read } from "../../fakedom.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import "../../numberformat.mjs";
import { alibiRows, alibiVerdict, compareRows, diffText, keyBiasShift, keyBiasVerdict, kvCache, kvReaders, lessonKinds, queryBiasShift, ropeOffsets, ropeVerdicts, sideRequests, valueBiasSplit } from "../../../../static/js/editor/lessons/lessons.js";
import { alibiLesson, gqaLesson } from "../../../../static/js/editor/lessons/lessonviews.js";

const X = [[1, 0], [0, 1], [1, 1]];

const I = [[1, 0], [0, 1]];

const ONE = { tokens: ["the", "cat", "sat"], X, W_Q: I, W_K: I, W_V: I, row: 2, causal: false };

const texts = (node) => all(node, "p").map(read);

test("each feature calls for its lesson, in the order of the maths", () => {
  assert.deepEqual(lessonKinds(ONE), []);
  assert.deepEqual(lessonKinds({ ...ONE, positional: "sinusoidal" }), []);
  assert.deepEqual(lessonKinds({ ...ONE, b_K: [0, 1], positional: "rope", window: 2 }), ["bias", "rope", "window"]);
  const heads = [{ W_Q: I }, { W_Q: I, b_Q: [1, 0] }];
  assert.deepEqual(lessonKinds({ ...ONE, heads, kv_heads: [{ W_K: I, W_V: I }], positional: "alibi" }), ["bias", "alibi", "gqa"]);
  assert.deepEqual(lessonKinds({ ...ONE, heads: [{ W_Q: I }, { W_Q: I }], kv_heads: [{ W_K: I, W_V: I, b_V: [0, 1] }] }), ["bias", "gqa"]);
});

test("RoPE's side requests: the other offset, and sinusoidal positions at both, asking two fields", () => {
  const rope = { ...ONE, positional: "rope", rope_base: 500, fields: ["weights"], encoding: "base64" };
  assert.deepEqual(ropeOffsets(rope), { a: 0, b: 1, shown: 0 });
  const side = sideRequests("rope", rope, 0);
  assert.deepEqual(Object.keys(side), ["rope", "sinA", "sinB"]);
  assert.deepEqual(side.rope, { ...ONE, positional: "rope", rope_base: 500, position_offset: 1, fields: ["working.q", "working.dots"] });
  assert.deepEqual(side.sinA, { ...ONE, positional: "sinusoidal", position_offset: 0, fields: ["working.q", "working.dots"] });
  assert.equal(side.sinB.position_offset, 1);
  // At offset 5 the view is the second of the two: RoPE is asked at 0.
  const five = sideRequests("rope", { ...rope, position_offset: 5 }, 0);
  assert.deepEqual([five.rope.position_offset, five.sinA.position_offset, five.sinB.position_offset], [0, 0, 5]);
  // Several heads: the shown head's fields.
  const multi = { ...ONE, heads: [{ W_Q: I, W_K: I, W_V: I }, { W_Q: I, W_K: I, W_V: I }], W_O: I, positional: "rope" };
  assert.deepEqual(sideRequests("rope", multi, 1).sinA.fields, ["heads[1].working.q", "heads[1].working.dots"]);
});

test("the biases' side request takes b_K out of every head and key/value head; ALiBi's drops the positions", () => {
  const one = sideRequests("bias", { ...ONE, b_Q: [1, 0], b_K: [0, 1], b_V: [2, 2] }, 0);
  assert.deepEqual(one.noKeyBias, { ...ONE, b_Q: [1, 0], b_V: [2, 2], fields: ["working.weights"] });
  const gqa = { ...ONE, W_O: I, heads: [{ W_Q: I, b_Q: [1, 0] }, { W_Q: I }], kv_heads: [{ W_K: I, W_V: I, b_K: [0, 1], b_V: [1, 1] }] };
  const side = sideRequests("bias", gqa, 1).noKeyBias;
  assert.deepEqual(side.kv_heads, [{ W_K: I, W_V: I, b_V: [1, 1] }]);
  assert.deepEqual(side.heads, gqa.heads);
  assert.deepEqual(side.fields, ["heads[1].working.weights"]);
  assert.deepEqual(sideRequests("bias", { ...ONE, b_Q: [1, 0] }, 0), {}, "without b_K nothing to compare");
  const alibi = sideRequests("alibi", { ...ONE, positional: "alibi", alibi_slopes: [0.5] }, 0).plain;
  assert.deepEqual(alibi, { ...ONE, fields: ["working.weights"] });
  assert.deepEqual(sideRequests("gqa", ONE, 0), {});
});

test("rows are compared as printed, with the largest exact difference", () => {
  const close = compareRows([1, 2.0004], [1, 2.0001]);
  assert.equal(close.same, true);
  assert.ok(Math.abs(close.maxDiff - 0.0003) < 1e-15);
  assert.equal(compareRows([1, 2.0006], [1, 2.0004]).same, false);  // 2.001 against 2.000
  assert.equal(diffText(4.440892098500626e-16), "4.441×10⁻¹⁶");
  assert.equal(diffText(0.2), "0.200");
  assert.equal(diffText(0), "0");
});

// Query 3 of the 3 tokens above with RoPE (θ irrelevant: d_k = 2, one pair of frequency
// 1), q_3 = (1, 1) and k_j = (1, 1), (0, 2), (1, 2) before rotation. At offset 0 q_3 turns
// by 2, k_1 by 0: q_3 = (−1.325444, 0.493151), k_1 = (1, 1). At offset 1 by 3 and 1:
// q_3 = (cos 3 − sin 3, sin 3 + cos 3) = (−1.131113, −0.848872), k_1 = (cos 1 − sin 1,
// sin 1 + cos 1) = (−0.301169, 1.381773). Each score q_3·k_j depends on 3 − j only: the
// same numbers, the second off by one unit in the last place (float64's rounding).
const ROPE = {
  a: { q: [-1.325444263372824, 0.4931505902785393], dots: [-0.8322936730942847, 2.763546581352072, 3] },
  b: { q: [-1.1311125046603125, -0.8488724885405782], dots: [-0.8322936730942847, 2.7635465813520725, 3] },
};

// The same shift with sinusoidal positions, scores chosen by hand.
const SIN = { a: { q: [1, 2], dots: [0.5, 1.2, 2] }, b: { q: [1.5, 2], dots: [0.7, 1.1, 2] } };

test("RoPE's verdicts say what the numbers show", () => {
  const v = ropeVerdicts(ROPE, SIN, 1);
  assert.equal(v.rope, "Shifting every position by 1 leaves all 3 scores the same to the last digit shown (they differ by at most 4.441×10⁻¹⁶, float64's rounding), while $q_i$ has turned: a score depends only on $i - j$.");
  assert.equal(v.sinusoidal, "With sinusoidal positions the same shift changes the scores, by up to 0.200: $PE$ is added to $x_i$ before $W_Q$ and $W_K$, so a score depends on where the tokens stand, not only on how far apart.");
  // Scores that do not match are never called the same.
  const off = { a: ROPE.a, b: { ...ROPE.b, dots: [-0.8322936730942847, 2.7656, 3] } };  // 2.766 against 2.764
  assert.equal(ropeVerdicts(off, SIN, 1).rope, "Shifting every position by 1 changes the scores by up to 0.002.");
});

// Biases, no RoPE, query 3: q_3 = (1, 1) (x_3 W_Q = (0.5, 2) plus b_Q = (0.5, −1)),
// x_j W_K = (1, 0), (0, 1), (1, 1), b_K = (0, 1): q_3·b_K = 1, so the scores
// q_3·(x_j W_K) = 1, 1, 2 become 2, 2, 3. With k_j = (1, 1), (0, 2), (1, 2), b_Q adds
// b_Q·k_j = 0.5 − 1 = −0.5, −2 and 0.5 − 2 = −1.5. Weights (0.25, 0.25, 0.5) chosen by
// hand; x_j W_V = (1, 0), (0, 1), (1, 1) and b_V = (1, 0): Σ a_j x_j W_V = (0.75, 0.75),
// z_3 = (1.75, 0.75).
const BIASED = {
  row: 2, q: [1, 1], b_K: [0, 1], k_unbiased: [[1, 0], [0, 1], [1, 1]], dots: [2, 2, 3], b_Q: [0.5, -1],
  allowed: [true, true, true], scale: 1 / Math.SQRT2, weights: [0.25, 0.25, 0.5],
  b_V: [1, 0], v_unbiased: [[1, 0], [0, 1], [1, 1]], z: [1.75, 0.75],
};

const K_BIASED = [[1, 1], [0, 2], [1, 2]];

test("b_K adds q_i·b_K to every score of the row; b_Q adds a number of its own to each", () => {
  assert.deepEqual(keyBiasShift(BIASED), { qb: 1, keys: [{ j: 0, plain: 1, dot: 2 }, { j: 1, plain: 1, dot: 2 }, { j: 2, plain: 2, dot: 3 }] });
  assert.deepEqual(queryBiasShift(BIASED, K_BIASED), { adds: [-0.5, -2, -1.5], differs: true });
  assert.equal(queryBiasShift({ ...BIASED, b_Q: [0, 0] }, K_BIASED).differs, false);
  assert.deepEqual(valueBiasSplit(BIASED), { plain: [0.75, 0.75], added: true });
  assert.equal(valueBiasSplit({ ...BIASED, allowed: [false, false, false], weights: [0, 0, 0] }).added, false);
});

test("the b_K verdict says identical only when the printed weights are", () => {
  assert.equal(keyBiasVerdict([0.25, 0.25, 0.5], [0.25, 0.25, 0.5], false),
    "Identical to every digit shown, and equal in float64 too: adding one number to every score of a row changes no weight, since $e^{s + c} = e^c e^s$ and $e^c$ cancels in the division.");
  assert.equal(keyBiasVerdict([0.25, 0.25, 0.5], [0.25, 0.25000000000000006, 0.49999999999999994], false).split(":")[0],
    "Identical to every digit shown (the exact numbers differ by at most 5.551×10⁻¹⁷, float64's rounding)");
  assert.equal(keyBiasVerdict([0.25, 0.25, 0.5], [0.3, 0.2, 0.5], true),
    "They differ, by up to 0.050: with RoPE, $b_K$ is turned with each key, by that key's angle, so it adds a different number to each score.");
});

test("the key/value cache: 2·H·d_k against 2·G·d_k numbers per token and layer", () => {
  assert.deepEqual(kvCache(4, 2, 2, 2), { own: { formula: "2 \\cdot H \\cdot d_k = 2 \\cdot 4 \\cdot 2", count: 16 }, shared: { formula: "2 \\cdot G \\cdot d_k = 2 \\cdot 2 \\cdot 2", count: 8 } });
  assert.deepEqual(kvCache(4, 1, 2, 3).own, { formula: "H\\,(d_k + d_v) = 4 \\cdot (2 + 3)", count: 20 });
  assert.equal(kvCache(4, 1, 2, 3).shared.count, 5);
  assert.deepEqual(kvReaders([{ kv_head: 0 }, { kv_head: 0 }, { kv_head: 1 }, { kv_head: 1 }]), [[0, 1], [2, 3]]);
  assert.equal(kvReaders([{ kv_head: 0 }, {}]), null);
  const node = gqaLesson({ H: 4, G: 2, d_k: 2, d_v: 2, tokens: 3, readers: [[0, 1], [2, 3]] });
  assert.deepEqual(all(all(node, "table")[0], "tr").slice(1).map((tr) => tr.childNodes.map(read)), [
    ["each query head its own", "$H = 4$", "$2 \\cdot H \\cdot d_k = 2 \\cdot 4 \\cdot 2 = 16$"],
    ["shared", "$G = 2$", "$2 \\cdot G \\cdot d_k = 2 \\cdot 2 \\cdot 2 = 8$"]]);
  assert.equal(texts(node)[1], "Sharing 2 key/value heads among 4 query heads makes it 2 times smaller: for the 3 tokens here, 48 numbers become 24 in each layer. Here query heads 1 and 2 read key/value head 1; query heads 3 and 4 read key/value head 2.");
  assert.match(texts(gqaLesson({ H: 4, G: 1, d_k: 2, d_v: 2, tokens: 3, readers: null }))[1], /4 times smaller \(multi-query attention\): for the 3 tokens here, 48 numbers become 12/);
});

// ALiBi, query 3 of 3, slope 0.5, scale 0.5, dots (1, 2, 0): with the bias
// s = (−0.5, 0.5, 0), weights (0.186324, 0.506480, 0.307196); without,
// s = (0.5, 1, 0), weights (0.307196, 0.506480, 0.186324).
const ALIBI = { row: 2, weights: [0.18632372, 0.50648039, 0.30719589], bias: [-1, -0.5, 0], allowed: [true, true, true], alibi_slope: 0.5 };

const PLAIN = [0.30719589, 0.50648039, 0.18632372];

test("ALiBi: the row by distance, and which distances gain or lose weight", () => {
  const rows = alibiRows(ALIBI, PLAIN);
  assert.deepEqual(rows.map((r) => [r.j, r.distance, r.bias]), [[2, 0, 0], [1, 1, -0.5], [0, 2, -1]]);
  assert.equal(alibiVerdict(rows, 0.5).split(". ")[0], "Against the same scores without the bias, the keys at distance 0 gain weight and the keys at distance 2 lose it");
  assert.equal(alibiVerdict(rows, 0), "This head's slope is 0: no bias is added, and the weights are plain attention's.");
  const node = alibiLesson({ w: ALIBI, i: 3, keys: ["the", "cat", "sat"], plain: { value: PLAIN } });
  assert.deepEqual(all(all(node, "table")[0], "tr").slice(1).map((tr) => tr.childNodes.map(read)), [
    ["3 sat", "0", "0.000", "0.186", "0.307"], ["2 cat", "1", "−0.500", "0.506", "0.506"], ["1 the", "2", "−1.000", "0.307", "0.186"],
  ]);
  assert.equal(texts(node)[0], "No position is added to $X$; the scores of row 3 get the bias ${-m\\,|i - j|}$ instead, with $m = 0.5$. By distance:");
});
