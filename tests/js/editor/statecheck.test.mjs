import { test } from "node:test";
import assert from "node:assert/strict";
import { limits } from "../../../static/js/lib/config.js";
import { addHead } from "../../../static/js/editor/inputs/heads.js";
import { fromPreset } from "../../../static/js/editor/request.js";
import { checkShapes } from "../../../static/js/editor/statecheck.js";

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

test("a hand-edited link's shapes are refused with counts that agree with their nouns", () => {
  assert.throws(() => checkShapes({ ...base(), tokens: ["a"] }), { message: "1 label for 3 rows of X" });
  assert.throws(() => checkShapes({ ...base(), W_Q: [[1, 0]] }), { message: "W_Q has 1 row, X has 2 columns" });
  assert.throws(() => checkShapes({ ...base(), X: [[1], [0], [1]] }), { message: "W_Q has 2 rows, X has 1 column" });
  assert.throws(() => checkShapes({ ...withHeads(2), alibi: ["0.5"] }), { message: "1 ALiBi slope for 2 heads" });
});
