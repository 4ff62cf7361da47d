import { all, host, read } from "../fakedom.mjs";
import { test } from "node:test";
import assert from "node:assert/strict";
import "../numberformat.mjs";
import { joinTerms, renderWorking, sigText, texFactor, texInputs, texSig, texVector } from "../../../static/js/draw/working.js";

test("derived vectors always have 3 decimals; an input's whole numbers stay short, one format a vector", () => {
  assert.equal(texVector([-1.2, -1]), "(-1.200,\\allowbreak -1.000)");  // never (−1.200, −1)
  assert.equal(texVector([6, 0]), "(6.000,\\allowbreak 0.000)");
  assert.equal(texVector([-0.0001]), "(0.000)");
  assert.equal(texInputs([1, 0]), "(1,\\allowbreak 0)");  // as typed in X
  assert.equal(texInputs([-1, 0.5]), "(-1.000,\\allowbreak 0.500)");  // one entry needs decimals: all have them
});

test("factors of a product are derived numbers: 3 decimals, negative ones bracketed", () => {
  assert.equal(texFactor(-1.5), "(-1.500)");
  assert.equal(texFactor(2), "2.000");
});

test("exponentials have four significant figures", () => {
  // e^{2.828}, e^{1.414}, e^{4.243} and their sum, as in the default example
  assert.equal(texSig(Math.exp(4 / Math.SQRT2)), "16.92");
  assert.equal(texSig(Math.exp(2 / Math.SQRT2)), "4.113");
  assert.equal(texSig(Math.exp(6 / Math.SQRT2)), "69.59");
  assert.equal(texSig(0.00673795), "0.006738");
  assert.equal(texSig(485165195.4), "4.852 \\times 10^{8}");
  assert.equal(texSig(0), "0");
  assert.equal(texSig(null), "\\infty");
});

test("long sums and vectors are shortened with a centred ellipsis", () => {
  assert.equal(joinTerms(["a", "b", "c"]), "a + b + c");
  const ten = Array.from({ length: 10 }, (_, k) => `t${k}`);
  assert.equal(joinTerms(ten), "t0 + t1 + t2 + t3 + \\cdots + t8 + t9");
  assert.equal(texVector([1, 2.5]), "(1.000,\\allowbreak 2.500)");  // may break after the comma
});

test("exponentials keep 4 significant figures; from 100000 on, the page's scientific form", () => {
  assert.equal(texSig(13359.7), "13360");  // below 100000: no exponent, as every other number
  assert.equal(texSig(150000), "1.500 \\times 10^{5}");
  assert.equal(texSig(2.5e300), "2.500 \\times 10^{300}");
});

test("a table cell's exponential: four significant figures, the page's scientific form from 100000", () => {
  assert.equal(sigText(Math.exp(4 / Math.SQRT2)), "16.92");
  assert.equal(sigText(0.00673795), "0.006738");
  assert.equal(sigText(485165195.4), "4.852×10⁸");
  assert.equal(sigText(Math.exp(9.9)), "19930");  // e^9.9 = 19930.37…: below 100000, no exponent
  assert.equal(texSig(Math.exp(9.9)), "19930");
  assert.equal(sigText(Math.exp(-700)), "9.860×10⁻³⁰⁵");  // toPrecision alone would write 9.860e-305
  assert.equal(sigText(null), "∞");
  assert.equal(sigText(0), "0");
});

// Query 1 "the" of the default example with every key masked by hand: q_1 = (1, 0), dots
// with k = (2, 0), (0, 1), (2, 1) are 2, 0, 2; every scaled score is −∞ (null), every e^s 0.
const MASKED = { row: 0, token: "the", q: [1, 0], dots: [2, 0, 2], scale: Math.SQRT1_2, scaled: [null, null, null],
  allowed: [false, false, false], exp: [0, 0, 0], exp_sum: 0, exp_overflow: false, shift: 0,
  exp_shifted: [0, 0, 0], exp_shifted_sum: 0, weights: [0, 0, 0], z: [0, 0] };

test("a query that may read no key: no division by 0, the convention said, z_1 = 0", () => {
  const out = host();
  renderWorking(out, { working: MASKED, tokens: ["the", "cat", "sat"], d_k: 2,
    K: [[2, 0], [0, 1], [2, 1]], V: [[1, 0], [0, 2], [1, 2]] });
  const text = read(out);
  assert.doesNotMatch(text, /\\div\s*0\b|÷\s*0\b/, "no division by 0");
  assert.doesNotMatch(text, /\\sum_j e\^\{s_\{1,j\}\} = 0/, "no sum of nothing");
  const table = all(out, "table")[0];
  assert.deepEqual(all(table, "th").slice(0, 5).map(read), ["key j", "$q_{1} \\cdot k_j$", "${{}\\div 1.414} = s_{1,j}$", "$e^{s}$", "$a_{1,j}$"]);
  assert.deepEqual(all(table, "tr").slice(1).map((tr) => all(tr, "td").map(read)), [
    ["2.000", "−∞", "0", "0"], ["0.000", "−∞", "0", "0"], ["2.000", "−∞", "0", "0"]]);
  const softmax = all(out, "section").find((s) => s.getAttribute("data-step") === "softmax");
  assert.match(read(softmax), /No key may be read/);
  assert.match(read(softmax), /torch's scaled_dot_product_attention/);
  assert.match(read(softmax), /its weights and output are all 0/);
  const output = all(out, "section").find((s) => s.getAttribute("data-step") === "output");
  assert.deepEqual(all(output, "li").map(read), ["$z_{1} = (0.000,\\allowbreak 0.000)$"]);
});

/** A working of ``m`` keys, all scores 0 (k_j = 0), in which query 1 may read ``allowed``. */
function flat(m, allowed) {
  const reads = allowed.filter(Boolean).length;
  const weights = allowed.map((ok) => (ok ? 1 / reads : 0));
  return { row: 0, token: "t1", q: [1], dots: Array(m).fill(0), scale: 1, scaled: allowed.map((ok) => (ok ? 0 : null)),
    allowed, exp: allowed.map((ok) => (ok ? 1 : 0)), exp_sum: reads, exp_overflow: false, shift: 0,
    exp_shifted: allowed.map((ok) => (ok ? 1 : 0)), exp_shifted_sum: reads, weights, z: [0] };
}

const drawFlat = (w) => {
  const out = host();
  const m = w.allowed.length;
  renderWorking(out, { working: w, tokens: Array.from({ length: m }, (_, j) => `t${j + 1}`), d_k: 1,
    K: Array(m).fill([0]), V: Array(m).fill([0]) });
  return out;
};

test("the working's counts agree with their nouns: one masked key is “the other”, one readable key is one", () => {
  const title = (out) => read(all(out, "p")[0]);
  assert.equal(title(drawFlat(flat(3, [true, true, false]))), "Query 1 · “t1” may read 2 of the 3 keys; the other is masked.");
  assert.equal(title(drawFlat(flat(3, [true, false, false]))), "Query 1 · “t1” may read 1 of the 3 keys; the others are masked.");
  // Beyond 12 keys only some are written out, and the note says which.
  const one = drawFlat(flat(13, [true, ...Array(12).fill(false)]));
  assert.equal(read(all(one, "p")[1]), "13 keys: the 1 key this query may read is written out, not the 12 masked keys.");
  assert.equal(all(all(one, "table")[0], "tr").length, 2);
  const ten = drawFlat(flat(13, [...Array(10).fill(true), false, false, false]));
  assert.equal(read(all(ten, "p")[1]), "13 keys: the 8 with the largest weights are written out; sums run over all 10 keys this query may read.");
  const none = drawFlat(flat(13, Array(13).fill(false)));
  assert.equal(read(all(none, "p")[1]), "13 keys, every one masked: the first 8 are written out.");
  assert.equal(all(all(none, "table")[0], "tr").length, 9);
});
