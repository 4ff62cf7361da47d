import { test } from "node:test";
import assert from "node:assert/strict";
import "../../numberformat.mjs";
import { permutation, sameAsShown, shuffledRequest } from "../../../../static/js/editor/lessons/shuffle.js";

test("permutations are reproducible, complete and never the identity", () => {
  for (const n of [2, 3, 5, 12]) {
    for (const seed of [1, 2, 3, 42]) {
      const p = permutation(n, seed);
      assert.deepEqual([...p].sort((a, b) => a - b), [...Array(n).keys()]);
      assert.ok(p.some((v, k) => v !== k), `n=${n} seed=${seed}`);
      assert.deepEqual(permutation(n, seed), p);
    }
  }
  assert.deepEqual(permutation(1, 5), [0]);
});

test("the shuffled request moves tokens and rows of X together, nothing else", () => {
  const req = { tokens: ["a", "b", "c"], X: [[1], [2], [3]], W_Q: [[1]], W_K: [[2]], W_V: [[3]], causal: true, mask: [[true]] };
  const s = shuffledRequest(req, [2, 0, 1], true);
  assert.deepEqual(s.tokens, ["c", "a", "b"]);
  assert.deepEqual(s.X, [[3], [1], [2]]);
  assert.equal(s.positional, "sinusoidal");
  assert.equal("causal" in s || "mask" in s, false, "order-dependent masks are left out");
  const rope = { ...req, positional: "rope", rope_base: 100, position_offset: 2, window: 2, sinks: 1, b_Q: [1] };
  const plain = shuffledRequest(rope, [2, 0, 1], false);
  assert.deepEqual(Object.keys(plain).sort(), ["W_K", "W_Q", "W_V", "X", "b_Q", "fields", "positional", "tokens"],
    "the window, the sinks and the page's own positions are left out; the biases stay");
  assert.equal(plain.positional, null);
});

test("rows put back in order are compared as shown (3 decimals)", () => {
  const Z = [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]];
  const perm = [2, 0, 1];
  const Zs = perm.map((k) => Z[k].map((v) => v + 1e-9));
  assert.equal(sameAsShown(Z, Zs, perm), true);
  Zs[0][1] += 0.01;
  assert.equal(sameAsShown(Z, Zs, perm), false);
});
