// "Generate step by step"'s words for a step (static/js/draw/generation.js's stepWords).
import assert from "node:assert/strict";
import { test } from "node:test";

import { stepWords } from "../../../static/js/draw/generation.js";

const step = (t, allowed, cache) => ({
  t, token: "sat", working: { allowed }, cost: { dot_products: t + 1, without_cache: (t + 1) ** 2 }, cache,
});

test("a step says which token it adds, the keys it reads, its cost and its cache", () => {
  const words = stepWords(step(2, [true, true, true],
    { tokens: 3, numbers: 12, bytes: 96, without_sharing: 12 }), 3);
  assert.equal(words.status, "Step 3 of 3: token 3 “sat” reads 3 keys");
  assert.equal(words.cost, "3 dot products with the cache, against 9 to compute every row again");
  assert.equal(words.cache, "Cache: 3 tokens, 12 numbers, 96 bytes");
});

test("a window reads fewer keys; shared key/value heads keep fewer numbers", () => {
  const words = stepWords(step(0, [true], { tokens: 1, numbers: 8, bytes: 64, without_sharing: 16 }), 4);
  assert.equal(words.status, "Step 1 of 4: token 1 “sat” reads 1 key");
  assert.equal(words.cost, "1 dot product with the cache, against 1 to compute every row again");
  assert.equal(words.cache, "Cache: 1 token, 8 numbers, 64 bytes (16 numbers without shared key/value heads)");
  assert.equal(stepWords(step(2, [false, true, true], { tokens: 3, numbers: 12, bytes: 96, without_sharing: 12 }), 3).status,
    "Step 3 of 3: token 3 “sat” reads 2 keys");
});

test("a real model's step, which carries no working, reads every key of its row", () => {
  // SmolLM2's step 5: weights over keys 1 … 5, this head's cache 5 × (64 + 64) numbers of 8 bytes.
  const words = stepWords({ t: 4, token: "␣is", weights: [0.9, 0.02, 0.03, 0.01, 0.04],
    cost: { dot_products: 5, without_cache: 25 }, cache: { tokens: 5, numbers: 640, bytes: 5120 } }, 6);
  assert.equal(words.status, "Step 5 of 6: token 5 “␣is” reads 5 keys");
  assert.equal(words.cache, "Cache: 5 tokens, 640 numbers, 5,120 bytes");
});
