import { test } from "node:test";
import assert from "node:assert/strict";
import { limits } from "../../../static/js/lib/config.js";
import { presetMatcher, presetState } from "../../../static/js/editor/presets.js";
import { setCell } from "../../../static/js/editor/state.js";

Object.assign(limits, { tokens: 512, model_dim: 1024, dim: 256, label: 64, heads: 16 });

const CAT = { request: {
  tokens: ["the", "cat", "sat"], X: [[1, 0], [0, 1], [1, 1]], W_Q: [[1, 0], [1, 2]],
  W_K: [[2, 0], [0, 1]], W_V: [[1, 0], [0, 2]], causal: false,
} };
const CAUSAL = { request: { ...CAT.request, causal: true } };

test("a preset's state selects its last row", () => {
  assert.equal(presetState(CAT).row, 2);
  assert.deepEqual(presetState(CAT).tokens, ["the", "cat", "sat"]);
});

test("a state shows the preset it equals, whatever its row, seed or present mode", () => {
  const presetOf = presetMatcher([CAT, CAUSAL]);
  assert.equal(presetOf(presetState(CAT)), 0);
  assert.equal(presetOf(presetState(CAUSAL)), 1);
  assert.equal(presetOf({ ...presetState(CAUSAL, 7), row: 0, present: true }), 1);
  assert.equal(presetOf(setCell(presetState(CAT), "X", 0, 0, "2")), -1, "an edited example is none");
});
