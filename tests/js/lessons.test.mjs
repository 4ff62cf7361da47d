import { all, read } from "./fakedom.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import "./numberformat.mjs";
import {
  alibiRows, alibiVerdict, bandCounts, compareRows, diffText, keyBiasShift, keyBiasVerdict, kvCache,
  kvReaders, lessonKinds, queryBiasShift, ropeOffsets, ropeVerdicts, sideRequests, valueBiasSplit,
} from "../../static/js/editor/lessons/lessons.js";
import { alibiLesson, biasLesson, gqaLesson, ropeLesson, windowLesson } from "../../static/js/editor/lessons/lessonviews.js";
import { bandEdges, bandLegend, bandText } from "../../static/js/draw/heatmapband.js";

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

test("the RoPE lesson: both offsets one above the other, the comparison waiting for its answers", () => {
  const here = ROPE.a;
  const rows = (node, k) => all(all(node, "table")[k], "tr").map((tr) => tr.childNodes.map(read));
  const waiting = ropeLesson({ i: 3, offsets: { a: 0, b: 1, shown: 0 }, here });
  assert.deepEqual(rows(waiting, 0), [
    ["", "$q_i$", "scores $q_i \\cdot k_j$"],
    ["offset 0", "−1.325", "0.493", "−0.832", "2.764", "3.000"],
    ["offset 1", "…", "…"],
  ]);
  assert.equal(texts(waiting)[1], "Computing the comparison…");
  const done = ropeLesson({ i: 3, offsets: { a: 0, b: 1, shown: 0 }, here, rope: { value: ROPE.b }, sinA: { value: SIN.a }, sinB: { value: SIN.b } });
  assert.equal(texts(done)[0], "Every position moved by 1: query 3 from $p = 2$ to $p = 3$, key 1 from $p = 0$ to $p = 1$. Row 3 at offset 0 and 1 (this view is at 0), with RoPE:");
  assert.deepEqual(rows(done, 0).slice(1), [
    ["offset 0", "−1.325", "0.493", "−0.832", "2.764", "3.000"],
    ["offset 1", "−1.131", "−0.849", "−0.832", "2.764", "3.000"],
  ]);
  assert.deepEqual(rows(done, 1).slice(1), [
    ["offset 0", "1.000", "2.000", "0.500", "1.200", "2.000"],
    ["offset 1", "1.500", "2.000", "0.700", "1.100", "2.000"],
  ]);
  assert.match(texts(done)[1], /^Shifting every position by 1 leaves all 3 scores the same/);
  assert.match(texts(done)[3], /^With sinusoidal positions the same shift changes the scores, by up to 0\.200/);
  // At offset 5 this view is the second row; the first is RoPE's side answer at 0.
  const five = ropeLesson({ i: 3, offsets: { a: 0, b: 5, shown: 5 }, here: ROPE.b, rope: { value: ROPE.a } });
  assert.deepEqual(rows(five, 0).slice(1).map((r) => r.slice(0, 3)), [["offset 0", "−1.325", "0.493"], ["offset 5", "−1.131", "−0.849"]]);
  const failed = ropeLesson({ i: 3, offsets: { a: 0, b: 1, shown: 0 }, here, rope: { error: "the server cannot be reached." } });
  assert.equal(texts(failed)[1], "The comparison could not be computed: the server cannot be reached.");
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

test("the bias lesson shows q_i·b_K, each score before and after it, and both rows of weights", () => {
  const node = biasLesson({ w: BIASED, i: 3, K: K_BIASED, rope: false, noKeyBias: { value: [0.25, 0.25, 0.5] } });
  const [shift, weights] = all(node, "table");
  assert.deepEqual(all(shift, "tr").map((tr) => tr.childNodes.map(read)), [
    ["key $j$", "$q_{3} \\cdot x_j W_K$", "$+\\, q_{3} \\cdot b_K$", "$= q_{3} \\cdot k_j$"],
    ["1", "1.000", "1.000", "2.000"], ["2", "1.000", "1.000", "2.000"], ["3", "2.000", "1.000", "3.000"],
  ]);
  assert.deepEqual(all(weights, "tr").slice(1).map((tr) => tr.childNodes.map(read)),
    [["with $b_K$", "0.250", "0.250", "0.500"], ["without $b_K$", "0.250", "0.250", "0.500"]]);
  const p = texts(node);
  assert.equal(p[0], "$b_K$ adds one number to every score of row 3: $q_{3} \\cdot b_K = (1.000,\\allowbreak 1.000) \\cdot (0,\\allowbreak 1) = 1.000$.");
  assert.match(p[1], /^Identical to every digit shown, and equal in float64 too/);
  assert.equal(p[2], "$b_Q$ adds $b_Q \\cdot k_j$ to the score of key $j$: (−0.500, −2.000, −1.500), not the same number for every key this query reads, so $b_Q$ changes the weights.");
  assert.equal(p[3], "$b_V$ is added to every $v_j$, and a row's weights sum to 1, so $z_{3}$ gains exactly $b_V$ and no weight changes: $z_{3} = \\sum_j a_{3,j}\\, x_j W_V + b_V = (0.750,\\allowbreak 0.750) + (1,\\allowbreak 0) = (1.750,\\allowbreak 0.750)$.");
  assert.equal(read(all(node, "h3")[0]), "Biases: what b_K, b_Q, b_V do to row 3");
  const zero = biasLesson({ w: { ...BIASED, b_Q: [0, 0] }, i: 3, K: K_BIASED, rope: true, noKeyBias: { value: [0.25, 0.25, 0.5] } });
  assert.equal(texts(zero)[2], "$b_Q$ is 0 here: it adds nothing to $q_i$, and changes no score.");
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

test("window and sinks: the band's edges, its words and its counts", () => {
  const band = { window: 2, sinks: 1 };
  assert.deepEqual([0, 1, 2].map((i) => bandEdges(i, band, 3)), [{ left: null, right: 1 }, { left: null, right: null }, { left: 1, right: null }]);
  assert.equal(bandText(band, ["the", "cat", "sat"]),
    "Sliding window of 2: query i reads the keys j with |i − j| < 2, itself and up to 1 on either side, a band along the diagonal, outlined; cells outside it are masked; the sink, key 1 “the”, marked “sink”, stays readable from every query, so its column is open outside the band (unless another mask closes a cell).");
  assert.equal(bandText(null, []), "");
  assert.equal(bandLegend(band, ["the", "cat", "sat"]), "Dashed lines: the window's band, |i − j| < 2; cells outside it are masked. Marked “sink”: key 1, open to every query (its cells outside the band ringed with dots).");
  assert.equal(bandLegend({ window: 4, sinks: 0 }, ["the"]), "Dashed lines: the window's band, |i − j| < 4; cells outside it are masked.");
  // 3 tokens, causal, window 2, 1 sink: query 3 reads key 1 through the sink.
  const mask = [[true, false, false], [true, true, false], [true, true, true]];
  assert.deepEqual(bandCounts(mask, band), { outside: 2, open: 1, masked: 3 });
  const node = windowLesson({ band, mask, keys: ["the", "cat", "sat"] });
  assert.equal(texts(node)[1], "Of the 9 weights, 2 lie outside the band: 1 stays open because its key is a sink, the other 1 is masked.");
  assert.equal(texts(windowLesson({ band: { window: 3, sinks: 0 }, mask, keys: ["the", "cat", "sat"] }))[1],
    "Every one of the 9 weights is inside the band: a window of 3 changes nothing here.");
});

test("the lessons' counts agree with their nouns when a count is 1", () => {
  // One key: q_1·k_1 = 2 at both offsets (both turned by the same angle).
  const single = { a: { q: [1, 1], dots: [2] }, b: { q: [0, 1.4142135623730951], dots: [2] } };
  assert.match(ropeVerdicts(single, { a: { q: [1], dots: [2] }, b: { q: [1], dots: [2] } }, 1).rope,
    /^Shifting every position by 1 leaves the one score the same to the last digit shown \(exactly equal in float64\)/);
  // Four heads sharing two key/value heads, over one token: 2·4·2 = 16 numbers become 2·2·2 = 8.
  assert.equal(texts(gqaLesson({ H: 4, G: 2, d_k: 2, d_v: 2, tokens: 1, readers: [[0, 1], [2, 3]] }))[1],
    "Sharing 2 key/value heads among 4 query heads makes it 2 times smaller: for the 1 token here, 16 numbers become 8 in each layer. Here query heads 1 and 2 read key/value head 1; query heads 3 and 4 read key/value head 2.");
  // A window of 1: each query reads itself alone, and one token has one weight.
  assert.equal(texts(windowLesson({ band: { window: 1, sinks: 0 }, mask: [[true]], keys: ["the"] }))[0],
    "The heatmap outlines the band $|i - j| < 1$ with dashes: at most 1 key of it for each query, 1 with the causal mask.");
  assert.equal(texts(windowLesson({ band: { window: 1, sinks: 0 }, mask: [[true]], keys: ["the"] }))[1],
    "The one weight is inside the band: a window of 1 changes nothing here.");
});
