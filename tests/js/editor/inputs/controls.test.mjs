import { test } from "node:test";
import assert from "node:assert/strict";
import { limits } from "../../../../static/js/lib/config.js";
import { inputsTitle } from "../../../../static/js/editor/inputs/controls.js";
import { setBiases, setHeadCount, setKvHeads } from "../../../../static/js/editor/inputs/heads.js";
import { fromPreset } from "../../../../static/js/editor/request.js";

Object.assign(limits, { tokens: 512, model_dim: 1024, dim: 256, label: 64, heads: 16 });

const CAT = {
  tokens: ["the", "cat", "sat"], X: [[1, 0], [0, 1], [1, 1]], W_Q: [[1, 0], [1, 2]],
  W_K: [[2, 0], [0, 1]], W_V: [[1, 0], [0, 2]], causal: false,
};
const heads = (h, g = h) => setKvHeads(setHeadCount(fromPreset(CAT), h), g);

test("the inputs' heading counts heads and key/value heads in agreement with their nouns", () => {
  assert.equal(inputsTitle(fromPreset(CAT)), "— X, W_Q, W_K, W_V");
  assert.equal(inputsTitle(heads(2)), "— X, W_Q, W_K, W_V of each of 2 heads, W_O");
  assert.equal(inputsTitle(heads(4, 2)), "— X, W_Q of each of 4 heads, W_K, W_V of each of 2 key/value heads, W_O");
  // Multi-query attention: the four heads share one key/value head.
  assert.equal(inputsTitle(heads(4, 1)), "— X, W_Q of each of 4 heads, W_K, W_V of the one key/value head they share, W_O");
  assert.equal(inputsTitle(setBiases(heads(4, 1), true)),
    "— X, W_Q, b_Q of each of 4 heads, W_K, W_V, b_K, b_V of the one key/value head they share, W_O");
});
