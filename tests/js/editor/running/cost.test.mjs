// "What n² costs"' pure parts (static/js/editor/running/cost.js): a view's sizes and a fitted slope.
import assert from "node:assert/strict";
import { test } from "node:test";
import { shapesOf, slopeText } from "../../../../static/js/editor/running/cost.js";

test("a view's sizes: its queries, keys, d_model, and the first head's d_k and d_v", () => {
  const one = { tokens: ["a", "b", "c"], X: [[1, 0], [0, 1], [1, 1]], W_Q: [[1, 0, 0], [0, 1, 0]],
    W_K: [[1, 0, 0], [0, 1, 0]], W_V: [[1], [0]] };
  assert.deepEqual(shapesOf(one), { n: 3, m: 3, d_model: 2, d_k: 3, d_v: 1 });
  const cross = { ...one, tokens_kv: ["x", "y"], X_kv: [[1, 0], [0, 1]] };
  assert.equal(shapesOf(cross).m, 2);
  const grouped_ = { tokens: ["a"], X: [[1, 2, 3]], heads: [{ W_Q: [[1, 0], [0, 1], [1, 1]] }],
    kv_heads: [{ W_K: [[1, 0], [0, 1], [1, 1]], W_V: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]] }] };
  assert.deepEqual(shapesOf(grouped_), { n: 1, m: 1, d_model: 3, d_k: 2, d_v: 4 });
});

test("a slope is written to two decimals, never −0.00, and a dash when none could be fitted", () => {
  assert.equal(slopeText(1.9349), "1.93");
  assert.equal(slopeText(-1e-17), "0.00");  // a flat line's fit
  assert.equal(slopeText(-0.25), "−0.25");
  assert.equal(slopeText(null), "—");  // the budget ran out after one size
});
