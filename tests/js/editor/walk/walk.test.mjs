import { test } from "node:test";
import assert from "node:assert/strict";
import "../../numberformat.mjs";
import { STEPS, walkContext } from "../../../../static/js/editor/walk/walk.js";
import { ROLES, roleLine } from "../../../../static/js/editor/inputs/roles.js";

// The default example's answer for query 3 "sat", worked by hand: q_3 = (2, 2), keys
// k = (2, 0), (0, 1), (2, 1), dots 4, 2, 6, scaled by 1/√2.
const s = [4, 2, 6].map((d) => d / Math.SQRT2);
const e = s.map(Math.exp);
const sum = e.reduce((a, b) => a + b);
const body = {
  tokens: ["the", "cat", "sat"], d_k: 2, K: [[2, 0], [0, 1], [2, 1]], V: [[1, 0], [0, 2], [1, 2]],
  working: { row: 2, q: [2, 2], dots: [4, 2, 6], scale: Math.SQRT1_2, scaled: s, allowed: [true, true, true],
    exp: e, exp_sum: sum, exp_overflow: false, weights: e.map((x) => x / sum), z: [0.955, 1.627] },
};
const request = { X: [[1, 0], [0, 1], [1, 1]] };

test("the walk's context: the row that enters the projections and the keys it may read", () => {
  const c = walkContext(body, 2, request, false);
  assert.deepEqual(c.x, [1, 1]);
  assert.deepEqual(c.keys, [0, 1, 2]);
  assert.equal(c.head, "");
  assert.equal(walkContext(body, 1, request, false), null, "no working for another row yet");
  const pos = walkContext({ ...body, positional_encoding: [[0, 1], [0.841, 0.540], [0.909, -0.416]] }, 2, request, false);
  assert.deepEqual(pos.x, [1 + 0.909, 1 + -0.416]);  // x_3 + PE_3, summed as float64
  assert.equal(walkContext({ ...body, head: 1 }, 2, request, true).head, "head 2's ");
  // x_3 is typed, so its whole numbers stay short; x_3 + PE_3 is computed: 3 decimals.
  assert.match(STEPS[0].say(walkContext(body, 2, request, false)), /\$x_\{3\} = \(1,\\allowbreak 1\)\$/);
  const zeroPE = walkContext({ ...body, positional_encoding: [[0, 1], [0, 0], [0, 0]] }, 2, request, false);
  assert.match(STEPS[0].say(zeroPE), /\$x_\{3\} \+ PE_\{3\} = \(1\.000,\\allowbreak 1\.000\)\$/);
});

test("each step quotes the row's own numbers", () => {
  const c = walkContext(body, 2, request, false);
  const say = STEPS.map((step) => step.say(c));
  assert.match(say[0], /row 3 of X, \$x_\{3\} = \(1,\\allowbreak 1\)\$/);
  // Derived numbers always have 3 decimals: q·k = 4.000 as the softmax table prints it.
  assert.match(say[1], /q_\{3\} = \(2\.000,\\allowbreak 2\.000\)\$/);
  assert.match(say[2], /k_\{1\} = \(2\.000,\\allowbreak 0\.000\), k_\{2\} = \(0\.000,\\allowbreak 1\.000\)/);
  assert.match(say[3], /q_\{3\} \\cdot k_\{1\} = 2\.000 \\cdot 2\.000 \+ 2\.000 \\cdot 0\.000 = 4\.000/);
  assert.match(say[3], /q_\{3\} \\cdot k_\{3\} = 2\.000 \\cdot 2\.000 \+ 2\.000 \\cdot 1\.000 = 6\.000/);
  assert.match(say[4], /\\sqrt\{2\} = 1\.414/);
  assert.match(say[4], /s_\{3,1\} = 2\.828, s_\{3,2\} = 1\.414, s_\{3,3\} = 4\.243/);
  assert.match(say[5], /\(16\.92, 4\.113, 69\.59\), their sum 90\.62, .* the weights 0\.187, 0\.045, 0\.768/);
  assert.match(say[7], /z_\{3\} = 0\.187\\,\(1\.000,\\allowbreak 0\.000\) \+ 0\.045\\,\(0\.000,\\allowbreak 2\.000\) \+ 0\.768\\,\(1\.000,\\allowbreak 2\.000\) = \(0\.955,\\allowbreak 1\.627\)/);
});

test("biases, rotary positions and ALiBi are said where they act, with their numbers", () => {
  // The cat sat with b_Q = (1, 0), b_K = (0, 1), b_V = (1, 1), and for RoPE query 3 at
  // position 2: (3, 2) turned by 2 radians is (3 cos 2 − 2 sin 2, 3 sin 2 + 2 cos 2).
  const turned = [3 * Math.cos(2) - 2 * Math.sin(2), 3 * Math.sin(2) + 2 * Math.cos(2)];
  const w = { ...body.working, b_Q: [1, 0], b_K: [0, 1], b_V: [1, 1], q_unrotated: [3, 2],
    q: turned, k_unrotated: [[2, 1], [0, 2], [2, 2]], position: 2, bias: [-1, -0.5, 0], alibi_slope: 0.5 };
  const say = STEPS.map((step) => step.say(walkContext({ ...body, working: w }, 2, request, false)));
  assert.match(say[1], /plus the bias \$b_Q = \(1,\\allowbreak 0\)\$, it gives its query vector \$\(3\.000,\\allowbreak 2\.000\)\$, which rotary positions then turn by its position 2: \$q_\{3\} = \(-3\.067,\\allowbreak 1\.896\)\$/);
  assert.match(say[2], /multiplied by \$W_K\$, plus \$b_K = \(0,\\allowbreak 1\)\$, and turned by its own position, to give its key, what it offers: \$k_\{1\}/);
  assert.match(say[4], /then ALiBi adds \$-0\.5 \\cdot \|i - j\|\$/);  // the slope as the working's note writes it
  assert.match(say[6], /through \$W_V\$ plus \$b_V = \(1,\\allowbreak 1\)\$: /);
  const plain = STEPS[1].say(walkContext(body, 2, request, false));
  assert.match(plain, /^Multiplied by \$W_Q\$ it gives its query vector, what it is looking for: \$q_\{3\} = \(2\.000,\\allowbreak 2\.000\)\$\.$/);
});

test("a custom scale and masked keys are said as they are", () => {
  const w = { ...body.working, scale: 0.5, scaled: [2, -Infinity, -Infinity], allowed: [true, false, false] };
  const c = walkContext({ ...body, working: w }, 2, request, false);
  const say = STEPS[4].say(c);
  assert.match(say, /multiplied by the scale 0\.500, not by \$1\/\\sqrt\{d_k\} = 0\.707\$/);
  assert.match(say, /The 2 masked keys' scores become \$-\\infty\$/);
  assert.doesNotMatch(say, /divided/);
});

test("a token label is quoted as words: a $ or a backslash in it never starts maths", async () => {
  const { proseParts } = await import("../../../../static/js/draw/tex.js");
  const label = "a $\\input{x}$ b\\";
  const c = walkContext({ ...body, tokens: ["the", "cat", label] }, 2, request, false);
  const first = proseParts(STEPS[0].say(c));
  assert.deepEqual(first.slice(0, 2), [
    { text: "The query token “a $\\input{x}$ b\\” starts as its embedding: row 3 of X, " },
    { tex: "x_{3} = (1,\\allowbreak 1)" }]);
  const last = proseParts(STEPS[7].say(c));
  assert.deepEqual(last[0], { text: `The output for “${label}” is the weighted sum of those values, each weighted by its row of A: ` });
  assert.equal(last.filter((part) => part.tex !== undefined).length, 1);
  // Maths between dollars; an escaped $ is a word, and so is the first of "$$".
  assert.deepEqual(proseParts("a $x$ b \\$ c $$ d $"),
    [{ text: "a " }, { tex: "x" }, { text: " b $ c $" }, { tex: " d " }]);
  assert.deepEqual(proseParts("no maths $"), [{ text: "no maths $" }]);
});

// Query 1 "the" of the default example with every key masked by hand: q_1 = x_1·W_Q =
// (1, 0), its dots with k = (2, 0), (0, 1), (2, 1) are 2, 0, 2, every scaled score is −∞
// (sent as null), every e^s is 0 and no key may be read: by the engine's convention
// (softmax_rows) the weights are all 0, and so is z_1.
const MASKED = {
  ...body,
  working: { row: 0, q: [1, 0], dots: [2, 0, 2], scale: Math.SQRT1_2, scaled: [null, null, null],
    allowed: [false, false, false], exp: [0, 0, 0], exp_sum: 0, exp_overflow: false, shift: 0,
    exp_shifted: [0, 0, 0], exp_shifted_sum: 0, weights: [0, 0, 0], z: [0, 0] },
};

test("a query that may read no key: every step says so, with no empty maths and no division by 0", async () => {
  const { proseParts } = await import("../../../../static/js/draw/tex.js");
  const c = walkContext(MASKED, 0, request, false);
  assert.deepEqual(c.keys, []);
  const say = STEPS.map((step) => step.say(c));
  for (const [k, text] of say.entries()) {
    const maths = proseParts(text).filter((p) => p.tex !== undefined).map((p) => p.tex);
    assert.ok(maths.every((t) => t.trim() !== ""), `step ${k + 1} has empty maths: ${text}`);
    assert.doesNotMatch(maths.join(" | "), /=\s*=|\\div\s*0\b|\/\s*0\b/, `step ${k + 1}: ${text}`);
    // The words between the maths are words: no stray dollar, no TeX command outside $…$.
    assert.ok(proseParts(text).every((p) => p.tex !== undefined || !/[$\\]/.test(p.text)), `step ${k + 1}: ${text}`);
  }
  assert.match(say[2], /may read no key/);
  // The raw scores are still computed, q_1·k_j = 2, 0, 2, before the mask sets them aside.
  assert.match(say[3], /q_\{1\} \\cdot k_\{1\} = 2\.000, q_\{1\} \\cdot k_\{2\} = 0\.000, q_\{1\} \\cdot k_\{3\} = 2\.000/);
  assert.match(say[4], /all 3 keys are masked/);
  assert.match(say[4], /s_\{1,j\} = -\\infty/);
  // The convention, in the engine's words: no key, so its weights and output are all 0.
  assert.match(say[5], /no key may be read/i);
  assert.match(say[5], /torch's scaled_dot_product_attention/);
  assert.match(say[5], /its weights and output are all 0/);
  assert.match(say[6], /no value/);
  assert.match(say[7], /z_\{1\} = \(0\.000,\\allowbreak 0\.000\)\$/);
});

test("the walk says what q, k and v are in the words written under W_Q, W_K and W_V", () => {
  const say = STEPS.map((step) => step.say(walkContext(body, 2, request, false)));
  assert.equal(say[2], "Every token it may read is multiplied by $W_K$, to give its key, what it offers: "
    + "$k_{1} = (2.000,\\allowbreak 0.000), k_{2} = (0.000,\\allowbreak 1.000), k_{3} = (2.000,\\allowbreak 1.000)$.");
  assert.match(say[6], /^Every token it may read also gives a value vector, what it passes on, through \$W_V\$: /);
  assert.deepEqual(["W_Q", "W_K", "W_V", "X", "W_O"].map(roleLine), ["each token's query: what it is looking for",
    "each token's key: what it offers", "each token's value: what it passes on", "", ""]);
  for (const [k, base] of [[1, "W_Q"], [2, "W_K"], [6, "W_V"]]) assert.ok(say[k].includes(ROLES[base]), base);
});
