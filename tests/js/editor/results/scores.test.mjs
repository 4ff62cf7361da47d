import { test } from "node:test";
import assert from "node:assert/strict";
import { alibiCaption, maskWords } from "../../../../static/js/editor/results/scores.js";

test("the headings say what the causal mask, the window and its sinks leave out", () => {
  assert.deepEqual(maskWords(false, undefined), { heading: "", note: "" });
  assert.deepEqual(maskWords(true, undefined), { heading: ", keys after the query masked", note: "masked: j > i" });
  assert.deepEqual(maskWords(true, 3, 1), {
    heading: ", keys after the query or outside a window of 3 masked; key 1 stays open as a sink",
    note: "masked: j > i or |i − j| ≥ 3, but not j ≤ 1" });
  assert.deepEqual(maskWords(false, 2, 2), {
    heading: ", keys outside a window of 2 masked; keys 1 and 2 stay open as sinks",
    note: "masked: |i − j| ≥ 2, but not j ≤ 2" });
  assert.equal(maskWords(false, undefined, 4).heading, "", "sinks without a window change nothing");
});

test("ALiBi's slope in the scores' caption has 4 significant figures, as the working's note writes it", () => {
  const how = ["QKᵀ / √d_k", "÷ 1.414, d_k = 2"];
  // Three heads: the paper's slope of head 1 is 2^(−8/3) = 0.15749013…
  assert.deepEqual(alibiCaption({ alibi_slope: 2 ** (-8 / 3) }, how),
    ["QKᵀ / √d_k − m·|i − j|", "÷ 1.414, d_k = 2, then ALiBi's bias, m = 0.1575"]);
  assert.equal(alibiCaption({ alibi_slope: 0.5 }, how)[1], "÷ 1.414, d_k = 2, then ALiBi's bias, m = 0.5");
  assert.equal(alibiCaption({ alibi_slope: 1.7782794e-7 }, how)[1], "÷ 1.414, d_k = 2, then ALiBi's bias, m = 1.778×10⁻⁷");
  assert.deepEqual(alibiCaption({}, how), how);
});
