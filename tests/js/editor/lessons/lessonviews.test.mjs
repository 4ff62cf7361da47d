import { all, read } from "../../fakedom.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import "../../numberformat.mjs";
import { ropeVerdicts } from "../../../../static/js/editor/lessons/lessons.js";
import { biasLesson, gqaLesson, ropeLesson, windowLesson } from "../../../../static/js/editor/lessons/lessonviews.js";

const texts = (node) => all(node, "p").map(read);

// Query 3 of 3 tokens with RoPE (θ irrelevant: d_k = 2, one pair of frequency
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
