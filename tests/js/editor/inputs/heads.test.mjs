import { test } from "node:test";
import assert from "node:assert/strict";
import { limits } from "../../../../static/js/lib/config.js";
import { addHead, divisors, kvHeadsAfter, paperSlopes, removeHead, setBiases, setHeadCount, setKvHeads, setPaperSlopes } from "../../../../static/js/editor/inputs/heads.js";
import { buildRequest, fromPreset, uiField } from "../../../../static/js/editor/request.js";
import { inputsOf, randomize, resize, setCell } from "../../../../static/js/editor/state.js";
import { checkShapes } from "../../../../static/js/editor/statecheck.js";
import { fromHash, toHash } from "../../../../static/js/editor/url.js";

Object.assign(limits, { tokens: 512, model_dim: 1024, dim: 256, label: 64, heads: 16 });

const CAT = {
  tokens: ["the", "cat", "sat"], X: [[1, 0], [0, 1], [1, 1]], W_Q: [[1, 0], [1, 2]],
  W_K: [[2, 0], [0, 1]], W_V: [[1, 0], [0, 2]], causal: false,
};

const base = () => fromPreset(CAT);

const withHeads = (h) => {
  let s = base();
  while (s.heads < h) s = addHead(s);
  return s;
};

test("divisors, and the key/value heads kept when the heads change", () => {
  assert.deepEqual(divisors(1), [1]);
  assert.deepEqual(divisors(12), [1, 2, 3, 4, 6, 12]);
  assert.deepEqual(divisors(7), [1, 7]);
  assert.equal(kvHeadsAfter(4, 4, 5), 5, "each head its own stays so");
  assert.equal(kvHeadsAfter(4, 4, 3), 3);
  assert.equal(kvHeadsAfter(4, 2, 5), 1, "5 has no divisor 2: the heads share one");
  assert.equal(kvHeadsAfter(4, 2, 6), 2);
  assert.equal(kvHeadsAfter(6, 3, 4), 2, "the largest divisor of 4 not above 3");
  assert.equal(kvHeadsAfter(8, 1, 7), 1, "multi-query stays multi-query");
});

test("the ALiBi paper's slopes, from its rule written out by hand", () => {
  assert.deepEqual(paperSlopes(1), [1 / 256]);
  assert.deepEqual(paperSlopes(2), [1 / 16, 1 / 256]);
  assert.deepEqual(paperSlopes(4), [0.25, 0.0625, 0.015625, 0.00390625]);
  assert.deepEqual(paperSlopes(8), [1, 2, 3, 4, 5, 6, 7, 8].map((k) => 2 ** -k));
  // Not a power of two: those of 2 (2^-4, 2^-8), then every other one of 4's (2^-2, …) as needed.
  assert.deepEqual(paperSlopes(3), [2 ** -4, 2 ** -8, 2 ** -2]);
  // 6: those of 4, then 8's first and third (2^-1, 2^-3).
  assert.deepEqual(paperSlopes(6), [2 ** -2, 2 ** -4, 2 ** -6, 2 ** -8, 2 ** -1, 2 ** -3]);
});

test("shared key/value heads: fewer, each a copy of the one its first query head read", () => {
  const four = withHeads(4);
  const two = setKvHeads(four, 2);
  assert.equal(two.kvHeads, 2);
  assert.equal(two.W_K, four.W_K);
  assert.equal(two.W_K_2, four.W_K_3, "key/value head 2 is head 3's: the first of heads 3 and 4");
  assert.equal(two.W_V_2, four.W_V_3);
  assert.equal("W_K_3" in two || "W_V_3" in two || "W_K_4" in two || "W_V_4" in two, false);
  assert.equal(two.W_Q_4, four.W_Q_4, "every query head keeps its W_Q");
  checkShapes(two);
  // Back to four: heads 1 and 2 read the old key/value head 1, heads 3 and 4 the old 2.
  const again = setKvHeads(two, 4);
  assert.deepEqual([again.W_K, again.W_K_2, again.W_K_3, again.W_K_4], [two.W_K, two.W_K, two.W_K_2, two.W_K_2]);
  assert.equal(setKvHeads(four, 3), four, "3 does not divide 4");
  assert.equal(setKvHeads(four, 0), four);
  const one = setKvHeads(two, 1);
  assert.deepEqual([one.kvHeads, one.W_K, "W_K_2" in one], [1, four.W_K, false]);
});

test("adding or removing a head keeps the key/value heads a divisor", () => {
  const two = setKvHeads(withHeads(4), 2);
  const five = addHead(two);
  assert.deepEqual([five.heads, five.kvHeads], [5, 1]);
  assert.equal("W_K_5" in five || "W_K_2" in five, false, "a new query head brings only W_Q");
  assert.deepEqual(five.W_Q_5, addHead(withHeads(4)).W_Q_5, "drawn as any new head's W_Q");
  checkShapes(five);
  const three = removeHead(two);
  assert.deepEqual([three.heads, three.kvHeads, "W_Q_4" in three, "W_K_2" in three], [3, 1, false, false]);
  checkShapes(three);
  const six = addHead(addHead(setKvHeads(withHeads(4), 2)));  // 5 heads share 1, then 6 still 1
  assert.equal(six.kvHeads, 1);
  const own = addHead(withHeads(3));
  assert.deepEqual([own.heads, own.kvHeads], [4, 4], "each head its own: the new one too");
  assert.equal(removeHead(own).kvHeads, 3);
});

test("biases: zero rows of the right widths for every head, kept in step with the heads", () => {
  const wide = resize(withHeads(2), "d_v", 3);
  const on = setBiases(setKvHeads(setKvHeads(addHead(addHead(wide)), 4), 2), true);
  assert.equal(on.heads, 4);
  assert.deepEqual(inputsOf(on).filter((k) => k.startsWith("b_")),
    ["b_Q", "b_K", "b_V", "b_Q_2", "b_K_2", "b_V_2", "b_Q_3", "b_Q_4"]);
  assert.deepEqual([on.b_Q, on.b_K, on.b_V, on.b_Q_4], [[["0", "0"]], [["0", "0"]], [["0", "0", "0"]], [["0", "0"]]]);
  const five = addHead(on);
  assert.deepEqual([five.b_Q_5, "b_K_2" in five], [[["0", "0"]], false]);
  const edited = setCell(on, "b_K_2", 0, 1, "4");
  const split = setKvHeads(edited, 4);
  assert.deepEqual([split.b_K_3, split.b_K_4], [edited.b_K_2, edited.b_K_2], "biases copied with their heads");
  const resized = resize(edited, "d_k", 3);
  assert.deepEqual([resized.b_K_2, resized.b_V], [[["0", "4", "0"]], [["0", "0", "0"]]]);
  assert.equal("b_Q" in setBiases(on, false) || "b_K_2" in setBiases(on, false), false);
  assert.deepEqual(removeHead(removeHead(removeHead(on))).b_Q, [["0", "0"]]);
  assert.equal("b_Q_2" in removeHead(removeHead(removeHead(on))), false);
});

test("Random draws the bias rows after the matrices", () => {
  const plain = randomize(base(), 5);
  const biased = randomize(setBiases(base(), true), 5);
  for (const name of ["X", "W_Q", "W_K", "W_V"]) assert.deepEqual(biased[name], plain[name], name);
  assert.notDeepEqual(biased.b_Q, [["0", "0"]]);
  assert.equal(buildRequest(biased).errors.size, 0);
});

test("ALiBi slopes of one's own start from the paper's and follow the heads", () => {
  const four = setPaperSlopes(withHeads(4), false);
  assert.deepEqual(four.alibi, ["0.25", "0.0625", "0.015625", "0.00390625"]);
  assert.deepEqual(addHead(four).alibi, [...four.alibi, "0.5"], "the paper's fifth slope of 5 heads");
  assert.deepEqual(removeHead(four).alibi, ["0.25", "0.0625", "0.015625"]);
  assert.equal(setPaperSlopes(four, true).alibi, "");
  assert.equal(addHead(withHeads(2)).alibi, "", "the paper's slopes stay the paper's");
});

test("a head count typed chooses the key/value heads once, from the counts before and after", () => {
  const two = setKvHeads(withHeads(4), 2);
  const six = setHeadCount(two, 6);
  assert.deepEqual([six.heads, six.kvHeads, six.W_K_2], [6, 2, two.W_K_2], "6 is divisible by 2: both stay");
  assert.deepEqual(six.W_Q_6, withHeads(6).W_Q_6, "the new heads' W_Q as Increase heads draws them");
  assert.equal("W_K_5" in six || "W_K_3" in six, false);
  checkShapes(six);
  assert.deepEqual([setHeadCount(two, 5).kvHeads, setHeadCount(two, 3).kvHeads, setHeadCount(two, 2).kvHeads], [1, 1, 2]);
  assert.deepEqual(setHeadCount(two, 1), { ...base(), seed: two.seed }, "one head: as the example was");
  assert.equal(setHeadCount(two, 4), two);
  assert.equal(setHeadCount(base(), 99).heads, 16, "within the limit");
  const one = base();
  assert.equal(setHeadCount(one, 0), one, "never fewer than one head");
});

test("several heads: their own projections, W_O summing them, the URL and the request", () => {
  let s = addHead(base());
  assert.equal(s.heads, 2);
  assert.equal(s.head, 1, "the new head is shown");
  assert.equal(s.W_Q_2.length, 2);
  assert.deepEqual(s.W_O, [["1", "0"], ["0", "1"], ["1", "0"], ["0", "1"]]);
  s = setCell(s, "W_V_2", 0, 1, "x");
  const bad = buildRequest(s);
  assert.deepEqual([...bad.errors.keys()], ["W_V_2[0][1]"]);
  s = setCell(s, "W_V_2", 0, 1, "3");
  const { request } = buildRequest(s);
  assert.equal(request.heads.length, 2);
  assert.deepEqual(request.heads[0].W_Q, [[1, 0], [1, 2]]);
  assert.deepEqual(request.heads[1].W_V[0][1], 3);
  assert.equal("W_Q" in request || "W_Q_2" in request, false);
  assert.equal(request.W_O.length, 4);
  const back = fromHash(toHash(s), base());
  assert.equal(back.problem, null);
  assert.deepEqual(back.state, s);
  const three = addHead(s);
  assert.equal(three.W_O.length, 6);
  // Existing numbers are kept where they stand: W_O shrinks to its first 3 rows.
  assert.deepEqual(resize(three, "d_v", 1).W_O, [["1", "0"], ["0", "1"], ["1", "0"]]);
  const one = removeHead(removeHead(three));
  assert.equal(one.heads, 1);
  assert.equal("W_O" in one || "W_Q_2" in one, false);
  assert.deepEqual(one, { ...base(), seed: one.seed });
  assert.equal(uiField("heads[1].W_Q[0][2]"), "W_Q_2[0][2]");
  assert.equal(uiField("heads[0].W_K[1][0]"), "W_K[1][0]");
  assert.equal(uiField("W_O"), "W_O");
  assert.match(fromHash("#heads=2", base()).problem, /W_Q_2 is missing/);
  assert.match(fromHash("#heads=17", base()).problem, /17 heads/);
});
